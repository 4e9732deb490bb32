/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pbkdf2.c - PBKDF2-HMAC (RFC 8018 5.2) and the PBKDF2 hash strings.
 *
 *   - RFC 6070 (PBKDF2-HMAC-SHA1, with the NUL-bearing "pass\0word" /
 *     "sa\0lt" case) and RFC 7914 section 11 (PBKDF2-HMAC-SHA256), on
 *     every variant this CPU runs; the 16,777,216-iteration RFC 6070 case
 *     only with --soak (tests/soak/soak_pbkdf2.sh, `make check-soak`);
 *   - differential against OpenSSL PKCS5_PBKDF2_HMAC: 300 random cases per
 *     variant (password 0..300 bytes with NULs, salt 0..100, iterations
 *     1..3000, dkLen 1..200 so above every hash size), all three hashes;
 *   - every row of tests/vectors/pbkdf2.inc (passlib, Django, PHC strings
 *     from the vectors generator) verifies through kdf_verify, and the same
 *     password with one byte changed (or one appended) is a mismatch;
 *   - kdf_verify of PBKDF2 strings makes no heap allocation (malloc,
 *     calloc, realloc wrapped by the linker);
 *   - kdf_hash_salt -> kdf_verify round trip for passlib, PHC and Django,
 *     and the refusals (Django SHA-512, passlib with a non-native length).
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"
#include "kdf_scheme.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "alloc_count.h"
#include "hex_common.h"

#ifdef TEST_WITH_LIBCRYPTO
#include <openssl/evp.h>
#endif

#include "alg_sha.h"

#define SHA1 KDF_SCHEME_PBKDF2_SHA1
#define SHA256 KDF_SCHEME_PBKDF2_SHA256
#define SHA512 KDF_SCHEME_PBKDF2_SHA512

static const enum kdf_prim prims[3] = {KDF_PRIM_SHA1, KDF_PRIM_SHA256, KDF_PRIM_SHA512};
static const enum kdf_scheme algs[3] = {SHA1, SHA256, SHA512};

static void
from_hex(const char *h, uint8_t *out)
{
    for (size_t i = 0; h[2 * i] != '\0'; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

struct kat {
    enum kdf_scheme md;
    const char *pw;
    size_t pw_len;
    const char *salt;
    size_t salt_len;
    uint32_t iter;
    const char *dk_hex;
};

/* RFC 6070 section 2 and RFC 7914 section 11 (PBKDF2-HMAC-SHA256). */
static const struct kat kats[] = {
    {SHA1, "password", 8, "salt", 4, 1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"},
    {SHA1, "password", 8, "salt", 4, 2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"},
    {SHA1, "password", 8, "salt", 4, 4096, "4b007901b765489abead49d926f721d065a429c1"},
    {SHA1, "passwordPASSWORDpassword", 24, "saltSALTsaltSALTsaltSALTsaltSALTsalt", 36, 4096,
     "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"},
    {SHA1, "pass\0word", 9, "sa\0lt", 5, 4096, "56fa6aa75548099dcc37d7f03425e0c3"},
    {SHA256, "passwd", 6, "salt", 4, 1,
     "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b3"
     "9d77ef317c71b845b1e30bd509112041d3a19783"},
    {SHA256, "Password", 8, "NaCl", 4, 80000,
     "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b"
     "51c9b3176a272bdebba1d078478f62b397f33c8d"},
};
/* RFC 6070: the long one, soak only. */
static const struct kat soak_kat = {SHA1, "password", 8, "salt", 4, 16777216,
                                    "eefe3d61cd4da4e4e9945b3d6ba2158c2634e984"};

static void
check_kat(const struct kat *k)
{
    uint8_t want[64], got[64];
    size_t n = strlen(k->dk_hex) / 2;

    from_hex(k->dk_hex, want);
    assert_int_equal(kdf_pbkdf2(k->md, (const uint8_t *)k->pw, k->pw_len,
                                (const uint8_t *)k->salt, k->salt_len, k->iter, got, n),
                     KDF_OK);
    assert_memory_equal(got, want, n);
}

/* ---- per-variant tests: state = {hash index, row index} ---- */
struct variant {
    int h;
    size_t index;
    const char *name;
    int usable;
};

#ifdef TEST_WITH_LIBCRYPTO
static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;
static uint64_t
rnd(void)
{
    return xorshift64(&g_rng);
}
#endif

static void
differential(int h)
{
#ifdef TEST_WITH_LIBCRYPTO
    const EVP_MD *evp = h == 0 ? EVP_sha1() : h == 1 ? EVP_sha256() : EVP_sha512();
    static uint8_t pw[300], salt[100], a[200], b[200];
    int cases = 0;

    for (int trial = 0; trial < 300; trial++) {
        size_t pw_len = (size_t)(rnd() % 301), salt_len = (size_t)(rnd() % 101);
        size_t dk_len = 1 + (size_t)(rnd() % 200);
        /* Mostly cheap iteration counts, one case in eight up to 3000. */
        uint32_t iter = 1 + (uint32_t)(rnd() % (rnd() % 8 == 0 ? 3000 : 40));
        for (size_t i = 0; i < pw_len; i++)
            pw[i] = (uint8_t)(rnd() % 5 == 0 ? 0 : rnd()); /* NULs included */
        for (size_t i = 0; i < salt_len; i++)
            salt[i] = (uint8_t)rnd();
        if (trial < 3) /* the edges: empty password and salt, dkLen 200 */
            pw_len = salt_len = 0, dk_len = 200;
        assert_int_equal(kdf_pbkdf2(algs[h], pw, pw_len, salt, salt_len, iter, a, dk_len),
                         KDF_OK);
        assert_int_equal(PKCS5_PBKDF2_HMAC((const char *)pw, (int)pw_len, salt, (int)salt_len,
                                           (int)iter, evp, (int)dk_len, b),
                         1);
        if (memcmp(a, b, dk_len) != 0)
            fail_msg("%s: differs from OpenSSL: pw %zu salt %zu iter %u dk %zu",
                     kdf_scheme_name(algs[h]), pw_len, salt_len, iter, dk_len);
        cases++;
    }
    assert_int_equal(cases, 300);
#else
    (void)h;
    print_message("  (OpenSSL libcrypto not found at configure time: no differential)\n");
#endif
}

static void
test_variant(void **state)
{
    const struct variant *v = (const struct variant *)*state;

    if (!v->usable) {
        print_message("SKIP: this CPU lacks the %s variant of %s\n", v->name,
                      kdf_prim_name(prims[v->h]));
        skip();
    }
    assert_int_equal(kdf_dispatch_force_index(prims[v->h], v->index), KDF_OK);
    for (size_t i = 0; i < KDF_ARRAY_LEN(kats); i++)
        if (kats[i].md == algs[v->h])
            check_kat(&kats[i]);
    differential(v->h);
    kdf_dispatch_force_mask(~0u);
}

/* ---- string-level tests with the automatic pick ---- */
struct vec {
    const char *pw;
    size_t pw_len;
    const char *hash;
};
static const struct vec vecs[] = {
#define KDF_VEC(pw, len, hash) {pw, len, hash},
#include "vectors/pbkdf2.inc"
#undef KDF_VEC
};

static void
test_vectors(void **state)
{
    char pw[4200];
    (void)state;
    assert_true(KDF_ARRAY_LEN(vecs) >= 30);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct vec *v = &vecs[i];
        size_t hl = strlen(v->hash), n = v->pw_len;
        enum kdf_status st = kdf_verify(v->pw, v->pw_len, v->hash, hl);
        if (st != KDF_OK)
            fail_msg("row %zu (%s): %s", i, v->hash, kdf_status_str(st));
        assert_true(n < sizeof pw);
        memcpy(pw, v->pw, n);
        if (n == 0)
            pw[n++] = 'x';
        else
            pw[i % n] ^= 0x01;
        assert_int_equal(kdf_verify(pw, n, v->hash, hl), KDF_MISMATCH);
    }
}

static void
test_no_alloc(void **state)
{
    size_t verified = 0;
    (void)state;
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        enum kdf_status st;
        unsigned long allocs = alloc_count_allocs();
        st = kdf_verify(vecs[i].pw, vecs[i].pw_len, vecs[i].hash, strlen(vecs[i].hash));
        allocs = alloc_count_allocs() - allocs;
        assert_int_equal(st, KDF_OK);
        if (allocs != 0)
            fail_msg("%lu heap allocations verifying %s", allocs, vecs[i].hash);
        verified++;
    }
    /* The wrap works: a malloc of our own is counted (volatile: a
     * malloc/free pair may otherwise be elided). */
    {
        unsigned long allocs = alloc_count_allocs();
        void *volatile p = malloc(16);
        free(p);
        assert_true(alloc_count_allocs() - allocs == 1);
    }
    assert_true(verified == KDF_ARRAY_LEN(vecs));
}

static void
test_round_trip(void **state)
{
    static const enum kdf_format fmts[3] = {KDF_FMT_PASSLIB, KDF_FMT_PHC, KDF_FMT_DJANGO};
    static const char *const prefix[3][3] = {
        {"$pbkdf2$", "$pbkdf2-sha256$", "$pbkdf2-sha512$"},
        {"$pbkdf2$i=", "$pbkdf2-sha256$i=", "$pbkdf2-sha512$i="},
        {"pbkdf2_sha1$", "pbkdf2_sha256$", NULL}};
    uint8_t salt[16];
    char out[KDF_MAX_HASH_STR];
    (void)state;

    for (size_t i = 0; i < sizeof salt; i++)
        salt[i] = (uint8_t)(0xf0 + i);
    for (int f = 0; f < 3; f++) {
        for (int h = 0; h < 3; h++) {
            struct kdf_target t = {.scheme = algs[h], .format = fmts[f], .cost = 1000,
                                   .salt_len = 16, .dk_len = h == 0 ? 20 : h == 1 ? 32 : 64};
            enum kdf_status st = kdf_hash_salt("pass\0word", 9, &t, salt, 16, out, sizeof out);
            if (prefix[f][h] == NULL) {
                assert_int_equal(st, KDF_UNSUPPORTED);
                continue;
            }
            assert_int_equal(st, KDF_OK);
            assert_true(strncmp(out, prefix[f][h], strlen(prefix[f][h])) == 0);
            assert_int_equal(kdf_verify("pass\0word", 9, out, strlen(out)), KDF_OK);
            assert_int_equal(kdf_verify("pass\0wore", 9, out, strlen(out)), KDF_MISMATCH);
            assert_int_equal(kdf_verify("pass", 4, out, strlen(out)), KDF_MISMATCH);
            /* a fresh random salt verifies too */
            assert_int_equal(kdf_hash("pw", 2, &t, out, sizeof out), KDF_OK);
            assert_int_equal(kdf_verify("pw", 2, out, strlen(out)), KDF_OK);
        }
    }
    /* Django: 16 salt bytes become 22 alphanumerics (base 62). */
    {
        struct kdf_target t = {.scheme = SHA256, .format = KDF_FMT_DJANGO, .cost = 10,
                               .salt_len = 16, .dk_len = 32};
        const char *p, *q;
        assert_int_equal(kdf_hash_salt("x", 1, &t, salt, 16, out, sizeof out), KDF_OK);
        p = strchr(strchr(out, '$') + 1, '$') + 1;
        q = strchr(p, '$');
        assert_int_equal(q - p, 22);
        for (; p < q; p++)
            assert_true((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
                        (*p >= 'a' && *p <= 'z'));
    }
    /* PHC with a chosen length writes l= and verifies; passlib refuses it. */
    {
        struct kdf_target t = {.scheme = SHA256, .format = KDF_FMT_PHC, .cost = 3,
                               .salt_len = 16, .dk_len = 40};
        assert_int_equal(kdf_hash_salt("x", 1, &t, salt, 16, out, sizeof out), KDF_OK);
        assert_non_null(strstr(out, "$i=3,l=40$"));
        assert_int_equal(kdf_verify("x", 1, out, strlen(out)), KDF_OK);
        t.format = KDF_FMT_PASSLIB;
        assert_int_equal(kdf_hash_salt("x", 1, &t, salt, 16, out, sizeof out), KDF_RANGE);
        /* the scheme entry itself (below the policy check) refuses it too */
        assert_int_equal(kdf_scheme_target_row(&t)->hash("x", 1, &t, NULL, salt, 16, out, sizeof out), KDF_RANGE);
        t.format = KDF_FMT_NATIVE; /* passlib spelling when called directly */
        t.dk_len = 32;
        assert_int_equal(kdf_scheme_target_row(&t)->hash("x", 1, &t, NULL, salt, 16, out, sizeof out), KDF_OK);
        assert_true(strncmp(out, "$pbkdf2-sha256$3$", 17) == 0);
    }
}

/* The raw API's refusals. */
static void
test_args(void **state)
{
    uint8_t out[8];
    (void)state;
    assert_int_equal(kdf_pbkdf2(SHA256, (const uint8_t *)"p", 1, NULL, 0, 0, out, 8),
                     KDF_RANGE);
    assert_int_equal(kdf_pbkdf2(SHA256, (const uint8_t *)"p", 1, NULL, 0, 1, out, 0),
                     KDF_RANGE);
    assert_int_equal(kdf_pbkdf2(SHA256, NULL, 1, NULL, 0, 1, out, 8), KDF_RANGE);
    assert_int_equal(kdf_pbkdf2(SHA256, (const uint8_t *)"p", 1, NULL, 3, 1, out, 8),
                     KDF_RANGE);
    assert_int_equal(kdf_pbkdf2(KDF_SCHEME_BCRYPT, (const uint8_t *)"p", 1, NULL, 0, 1, out, 8),
                     KDF_UNSUPPORTED);
    assert_int_equal(kdf_pbkdf2(SHA1, NULL, 0, NULL, 0, 1, out, 8), KDF_OK);
}

static int
soak(void)
{
    const char *vn[8];
    int us[8];
    size_t n = kdf_impl_list(KDF_PRIM_SHA1, vn, us, 8);
    uint8_t want[20], got[20];
    int bad = 0;

    from_hex(soak_kat.dk_hex, want);
    for (size_t i = 0; i < n; i++) {
        if (!us[i]) {
            printf("SKIP sha1/%s: this CPU lacks it\n", vn[i]);
            continue;
        }
        if (kdf_dispatch_force_index(KDF_PRIM_SHA1, i) != KDF_OK ||
            kdf_pbkdf2(SHA1, (const uint8_t *)"password", 8, (const uint8_t *)"salt", 4,
                       soak_kat.iter, got, 20) != KDF_OK ||
            memcmp(got, want, 20) != 0) {
            printf("FAIL RFC 6070 c=16777216 with sha1/%s\n", vn[i]);
            bad = 1;
        } else {
            printf("ok RFC 6070 c=16777216 with sha1/%s\n", vn[i]);
        }
    }
    return bad;
}

int
main(int argc, char **argv)
{
    static struct variant vars[24];
    static struct CMUnitTest tests[32];
    static char names[24][48];
    size_t nt = 0, nv = 0;

    if (argc > 1 && strcmp(argv[1], "--soak") == 0)
        return soak();
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_args);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_vectors);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_no_alloc);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_round_trip);
    for (int h = 0; h < 3; h++) {
        const char *vn[8];
        int us[8];
        size_t n = kdf_impl_list(prims[h], vn, us, 8);
        for (size_t i = 0; i < n && nv < 24; i++, nv++) {
            vars[nv] = (struct variant){h, i, vn[i], us[i]};
            snprintf(names[nv], sizeof names[nv], "pbkdf2_%s_%s", kdf_prim_name(prims[h]),
                     vn[i]);
            tests[nt++] = (struct CMUnitTest){names[nv], test_variant, NULL, NULL, &vars[nv]};
        }
    }
    return _cmocka_run_group_tests("pbkdf2", tests, nt, NULL, NULL);
}
