/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sha.c - SHA-1/256/512 and HMAC, every compiled-in variant.
 *
 * For each variant of each hash (kdf_impl_list), forced with
 * kdf_dispatch_force_index:
 *   - the FIPS 180-4 example messages ("abc", "", the 448- and 896-bit
 *     messages, one million 'a'; digests as published by NIST in its
 *     "Cryptographic Standards and Guidelines: Examples with Intermediate
 *     Values");
 *   - 315 messages per hash of lengths 0..300 and longer, and 36 HMAC keys
 *     and messages per hash, with digests from Python hashlib/hmac
 *     (tests/vectors/sha_vectors.inc, tests/vectors/gen-sha-vectors.py);
 *   - 1,000 random (state, 1..8 blocks) compressions against the portable
 *     function, and 1,000 random two-state compressions against two
 *     portable ones where the variant has a compress2.
 * A variant this CPU cannot run is skipped with the reason printed.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"
#include "kdf_testing.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hex_common.h"

#include "alg_sha.h"

#define SHA1 KDF_SCHEME_PBKDF2_SHA1
#define SHA256 KDF_SCHEME_PBKDF2_SHA256
#define SHA512 KDF_SCHEME_PBKDF2_SHA512

struct sha_row {
    enum kdf_scheme alg;
    size_t len;
    const char *hex;
};
struct hmac_row {
    enum kdf_scheme alg;
    size_t klen, mlen;
    const char *hex;
};

static const struct sha_row sha_rows[] = {
#define SHA_VEC(a, n, h) {a, n, h},
#define HMAC_VEC(a, k, m, h)
#include "vectors/sha_vectors.inc"
#undef SHA_VEC
#undef HMAC_VEC
};
static const struct hmac_row hmac_rows[] = {
#define SHA_VEC(a, n, h)
#define HMAC_VEC(a, k, m, h) {a, k, m, h},
#include "vectors/sha_vectors.inc"
#undef SHA_VEC
#undef HMAC_VEC
};

/* FIPS 180-4 examples: SHA-1, SHA-256, SHA-512 digests of each message. */
static const char *const fips_msgs[] = {
    "abc", "", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
    "mnopqrsmnopqrstnopqrstu",
    NULL /* one million 'a' */};
static const char *const fips_md[5][3] = {
    {"a9993e364706816aba3e25717850c26c9cd0d89d",
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3"
     "c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
    {"da39a3ee5e6b4b0d3255bfef95601890afd80709",
     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff831"
     "8d2877eec2f63b931bd47417a81a538327af927da3e"},
    {"84983e441c3bd26ebaae4aa1f95129e5e54670f1",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
     "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3"
     "bea57789ca031ad85c7a71dd70354ec631238ca3445"},
    {"a49b2446a02c645bf419f995b67091253a04a259",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b9"
     "9dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
    {"34aa973cd4c4daa4f61eeb2bdbad27316534016f",
     "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
     "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb04"
     "32ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"},
};

#define STREAM_LEN 70000
static uint8_t g_stream[STREAM_LEN];

/* The generator's byte stream (gen-sha-vectors.py). */
static void
make_stream(void)
{
    uint32_t x = 0x9e3779b9u;
    for (size_t i = 0; i < STREAM_LEN; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        g_stream[i] = (uint8_t)x;
    }
}

static void
to_hex(const uint8_t *b, size_t n, char *out)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[2 * n] = '\0';
}

static uint64_t g_rng = 0x243f6a8885a308d3ULL;
static uint64_t
rnd(void)
{
    return xorshift64(&g_rng);
}
static void
rnd_fill(void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(rnd() >> 24);
}

static const enum kdf_prim prims[3] = {KDF_PRIM_SHA1, KDF_PRIM_SHA256, KDF_PRIM_SHA512};
static const enum kdf_scheme algs[3] = {SHA1, SHA256, SHA512};

struct variant {
    int h; /* 0 sha1, 1 sha256, 2 sha512 */
    size_t index;
    const char *name;
    int usable;
};

/* Hash h (an index of prims[] and algs[]). */
static void
check_digest(int h, const void *msg, size_t len, const char *want)
{
    uint8_t md[KDF_SHA_MAX_LEN], pub[KDF_SHA1_LEN];
    char hex[2 * KDF_SHA_MAX_LEN + 1];
    struct kdf_md d;

    assert_int_equal(kdf_md_bind(&d, prims[h]), KDF_OK);
    assert_int_equal(kdf_sha_digest(prims[h], msg, len, md, sizeof md), KDF_OK);
    if (prims[h] == KDF_PRIM_SHA1) { /* the public one-shot of kdfhash.h */
        assert_int_equal(kdf_sha1(msg, len, pub), KDF_OK);
        assert_memory_equal(pub, md, KDF_SHA1_LEN);
    }
    to_hex(md, d.digest_len, hex);
    if (strcmp(hex, want) != 0)
        fail_msg("%s len %zu: got %s want %s", kdf_scheme_name(algs[h]), len, hex, want);
}

static void
known_answers(int h)
{
    enum kdf_scheme alg = algs[h];
    size_t rows = 0;

    for (size_t m = 0; m < 5; m++) {
        if (fips_msgs[m] != NULL) {
            check_digest(h, fips_msgs[m], strlen(fips_msgs[m]), fips_md[m][h]);
        } else {
            static uint8_t million[1000000];
            memset(million, 'a', sizeof million);
            check_digest(h, million, sizeof million, fips_md[m][h]);
        }
    }
    for (size_t i = 0; i < KDF_ARRAY_LEN(sha_rows); i++) {
        if (sha_rows[i].alg != alg)
            continue;
        check_digest(h, g_stream, sha_rows[i].len, sha_rows[i].hex);
        rows++;
    }
    assert_true(rows >= 300);
    rows = 0;
    for (size_t i = 0; i < KDF_ARRAY_LEN(hmac_rows); i++) {
        const struct hmac_row *r = &hmac_rows[i];
        uint8_t mac[KDF_SHA_MAX_LEN];
        char hex[2 * KDF_SHA_MAX_LEN + 1];
        if (r->alg != alg)
            continue;
        assert_int_equal(kdf_hmac(prims[h], g_stream, r->klen, g_stream + r->klen,
                                  r->mlen, mac, sizeof mac),
                         KDF_OK);
        to_hex(mac, strlen(r->hex) / 2, hex);
        if (strcmp(hex, r->hex) != 0)
            fail_msg("HMAC %s klen %zu mlen %zu: got %s want %s", kdf_scheme_name(alg),
                     r->klen, r->mlen, hex, r->hex);
        rows++;
    }
    assert_true(rows >= 36);
}

/* Streaming in random chunk sizes equals the one-shot digest. */
static void
chunked(int h)
{
    struct kdf_md d;
    assert_int_equal(kdf_md_bind(&d, prims[h]), KDF_OK);
    for (int trial = 0; trial < 200; trial++) {
        size_t len = (size_t)(rnd() % 1200), pos = 0;
        uint8_t a[KDF_SHA_MAX_LEN], b[KDF_SHA_MAX_LEN];
        struct kdf_md_ctx c;
        kdf_md_init(&c, &d);
        while (pos < len) {
            size_t n = (size_t)(rnd() % 200);
            if (n > len - pos)
                n = len - pos;
            kdf_md_update(&c, g_stream + 7 + pos, n);
            pos += n;
        }
        kdf_md_final(&c, a);
        assert_int_equal(kdf_sha_digest(prims[h], g_stream + 7, len, b, sizeof b),
                         KDF_OK);
        assert_memory_equal(a, b, d.digest_len);
    }
}

static const struct kdf_impl_desc *
table_of(int h, size_t *n)
{
    const struct kdf_dispatch_table *t =
        h == 0 ? &kdf_sha1_table : h == 1 ? &kdf_sha256_table : &kdf_sha512_table;
    *n = t->nrows;
    return t->rows;
}

/* The row's two-state compression, read from the row itself, and checked
 * against what kdf_md_bind() finds for the same compression function. */
static kdf_compress2_fn *
x2_of(int h, const struct kdf_impl_desc *row)
{
    const struct kdf_sha_more *more = (const struct kdf_sha_more *)row->more;
    kdf_compress_fn *fn = (kdf_compress_fn *)row->fn;
    kdf_compress2_fn *bound = h == 0   ? kdf_sha1_compress2_of(fn)
                              : h == 1 ? kdf_sha256_compress2_of(fn)
                                       : kdf_sha512_compress2_of(fn);
    kdf_compress2_fn *own = more != NULL ? more->compress2 : NULL;
    assert_true(own == bound);
    return own;
}

/* 1,000 random states and block runs against the portable row. */
static void
differential(int h, size_t index)
{
    size_t n;
    const struct kdf_impl_desc *t = table_of(h, &n);
    kdf_compress_fn *fn = (kdf_compress_fn *)t[index].fn;
    kdf_compress_fn *ref = (kdf_compress_fn *)t[n - 1].fn;
    kdf_compress2_fn *fn2 = x2_of(h, &t[index]);
    const size_t bl = h == 2 ? 128 : 64, sl = h == 0 ? 20 : h == 1 ? 32 : 64;
    static uint8_t blocks[8 * 128], blocks2[128];
    union kdf_sha_state s1, s2, s3, s4;

    assert_string_equal(t[n - 1].name, "portable");
    assert_int_equal(t[n - 1].needs, 0);
    /* The dispatch self-test of this row (and of portable) passes. */
    assert_non_null(t[index].selftest);
    assert_int_equal(t[index].selftest(&t[index]), 0);
    assert_int_equal(t[n - 1].selftest(&t[n - 1]), 0);
    for (int trial = 0; trial < 1000; trial++) {
        size_t nb = 1 + (size_t)(rnd() % 8);
        rnd_fill(&s1, sizeof s1);
        s2 = s1;
        rnd_fill(blocks, nb * bl);
        fn(&s1, blocks, nb);
        ref(&s2, blocks, nb);
        if (memcmp(&s1, &s2, sl) != 0)
            fail_msg("%s differs from portable: trial %d, %zu blocks", t[index].name, trial, nb);
    }
    if (fn2 == NULL) {
        print_message("  %s/%s: no two-state compression\n", kdf_prim_name(prims[h]),
                      t[index].name);
        return;
    }
    for (int trial = 0; trial < 1000; trial++) {
        rnd_fill(&s1, sizeof s1);
        rnd_fill(&s3, sizeof s3);
        s2 = s1;
        s4 = s3;
        rnd_fill(blocks, bl);
        rnd_fill(blocks2, bl);
        fn2(&s1, blocks, &s3, blocks2);
        ref(&s2, blocks, 1);
        ref(&s4, blocks2, 1);
        if (memcmp(&s1, &s2, sl) != 0 || memcmp(&s3, &s4, sl) != 0)
            fail_msg("%s compress2 differs from portable: trial %d", t[index].name, trial);
    }
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
    assert_string_equal(kdf_impl_name(prims[v->h]), v->name);
    known_answers(v->h);
    chunked(v->h);
    differential(v->h, v->index);
    kdf_dispatch_force_mask(~0u); /* back to the automatic pick */
}

/* The automatic pick is the first usable row (the self-tests pass here). */
static void
test_pick(void **state)
{
    (void)state;
    kdf_dispatch_force_mask(~0u);
    for (int h = 0; h < 3; h++) {
        const char *names[8];
        int usable[8];
        size_t n = kdf_impl_list(prims[h], names, usable, 8);
        size_t first = n;
        assert_true(n >= 1 && n <= 8);
        assert_string_equal(names[n - 1], "portable");
        for (size_t i = 0; i < n && first == n; i++)
            if (usable[i])
                first = i;
        assert_string_equal(kdf_impl_name(prims[h]), names[first]);
        print_message("  %s: picked %s\n", kdf_prim_name(prims[h]), names[first]);
    }
}

/* Arguments the one-shot helpers refuse. */
static void
test_args(void **state)
{
    uint8_t out[64];
    (void)state;
    assert_int_equal(kdf_sha_digest(KDF_PRIM_BLAMKA, "", 0, out, sizeof out),
                     KDF_UNSUPPORTED);
    assert_int_equal(kdf_sha_digest(KDF_PRIM_COUNT, "", 0, out, sizeof out),
                     KDF_UNSUPPORTED);
    assert_int_equal(kdf_hmac(KDF_PRIM_BLOWFISH, NULL, 0, "", 0, out, sizeof out),
                     KDF_UNSUPPORTED);
    assert_int_equal(kdf_sha_digest(KDF_PRIM_SHA256, "", 0, out, 31), KDF_RANGE);
    assert_int_equal(kdf_sha_digest(KDF_PRIM_SHA256, NULL, 1, out, sizeof out),
                     KDF_RANGE);
    assert_int_equal(kdf_hmac(KDF_PRIM_SHA512, NULL, 0, "", 0, out, 63), KDF_RANGE);
    assert_int_equal(kdf_sha1(NULL, 1, out), KDF_RANGE);
}

int
main(void)
{
    static struct variant vars[24];
    static struct CMUnitTest tests[28];
    static char names[24][48];
    size_t nt = 0, nv = 0;

    make_stream();
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_pick);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_args);
    for (int h = 0; h < 3; h++) {
        const char *vn[8];
        int us[8];
        size_t n = kdf_impl_list(prims[h], vn, us, 8);
        for (size_t i = 0; i < n && nv < 24; i++, nv++) {
            vars[nv] = (struct variant){h, i, vn[i], us[i]};
            snprintf(names[nv], sizeof names[nv], "%s_%s", kdf_prim_name(prims[h]), vn[i]);
            tests[nt++] = (struct CMUnitTest){names[nv], test_variant, NULL, NULL, &vars[nv]};
        }
    }
    return _cmocka_run_group_tests("sha", tests, nt, NULL, NULL);
}
