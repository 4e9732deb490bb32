/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_legacy.c - crypt(3) schemes verified through libxcrypt's crypt_rn()
 * (core/scheme_legacy.c; doc/DESIGN.md "Hash strings").
 *
 * Expected answers: the committed rows of tests/vectors/legacy.inc
 * (libxcrypt output, each cross-checked with passlib or hashlib by the
 * vectors generator), and strings crypt_rn() makes in this process.
 */
#include "kdf_prelude.h"
#include "hstr_xcrypt_cost.h"
#include "kdf_scheme.h"

#include <crypt.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct vec {
    const char *pw;
    size_t len;
    const char *hash;
};
#define KDF_VEC(p, l, h) {p, l, h},
static const struct vec legacy_vecs[] = {
#include "vectors/legacy.inc"
};
#undef KDF_VEC

static struct kdf_hash
legacy_of(const char *s)
{
    struct kdf_hash h;
    memset(&h, 0, sizeof h);
    h.scheme = KDF_SCHEME_LEGACY;
    h.whole.ptr = s;
    h.whole.len = strlen(s);
    return h;
}

/* Every row verifies through kdf_verify() and directly; a password that
 * differs in its first byte (or an added byte for the empty one) does not. */
static void
test_vectors(void **state)
{
    size_t ok = 0, wrong = 0;
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(legacy_vecs); i++) {
        const struct vec *v = &legacy_vecs[i];
        size_t hl = strlen(v->hash);
        struct kdf_hash h;
        char pw[600];
        size_t len;
        enum kdf_status st;

        assert_int_equal(kdf_parse(v->hash, hl, &h, NULL), KDF_OK);
        assert_int_equal(h.scheme, KDF_SCHEME_LEGACY);
        st = kdf_verify(v->pw, v->len, v->hash, hl);
        if (st != KDF_OK)
            fail_msg("row %zu (%s): %s", i, v->hash, kdf_status_str(st));
        assert_int_equal(kdf_row_crypt.verify(v->pw, v->len, &h, NULL, NULL, 0), KDF_OK);
        ok++;

        assert_true(v->len < sizeof pw);
        memcpy(pw, v->pw, v->len);
        if (v->len == 0) {
            pw[0] = 'x';
            len = 1;
        } else {
            /* Bit 0 is used by every scheme (DES drops bit 7, not bit 0). */
            pw[0] = (char)(pw[0] ^ 1);
            len = v->len;
        }
        assert_int_equal(kdf_verify(pw, len, v->hash, hl), KDF_MISMATCH);
        assert_int_equal(kdf_row_crypt.verify(pw, len, &h, NULL, NULL, 0), KDF_MISMATCH);
        wrong++;
    }
    printf("# legacy.inc: %zu rows verify, %zu wrong passwords refused\n", ok, wrong);
    assert_true(ok >= 20);
}

/* libxcrypt's failure tokens never match: not as stored strings (the
 * parser calls them locked; kdf_legacy_verify refuses them as well), and
 * not when crypt_rn() fails on whatever the span holds. */
static void
test_failure_tokens(void **state)
{
    static const char *const garbage[] = {
        "*0",
        "*1",
        "!",
        "*",
        "$9$nonsense",
        "$2b$03$CCCCCCCCCCCCCCCCCCCCC.", /* cost 3: refused */
        "$y$j9T$abc$",
        "garbage!",
        "$6$rounds=1000$a:b$x", /* ':' is a bad salt character */
        "$1$",
        "@@",
    };
    struct crypt_data *cd = calloc(1, sizeof *cd);
    (void)state;

    assert_non_null(cd);
    assert_int_not_equal(kdf_verify("", 0, "*0", 2), KDF_OK);
    assert_int_not_equal(kdf_verify("", 0, "*1", 2), KDF_OK);
    assert_int_not_equal(kdf_verify("*0", 2, "*0", 2), KDF_OK);
    for (size_t i = 0; i < KDF_ARRAY_LEN(garbage); i++) {
        struct kdf_hash h = legacy_of(garbage[i]);
        const char *pws[] = {"", "*0", "*1", "password"};
        for (size_t k = 0; k < KDF_ARRAY_LEN(pws); k++) {
            enum kdf_status st = kdf_row_crypt.verify(pws[k], strlen(pws[k]), &h, NULL, NULL, 0);
            if (st == KDF_OK)
                fail_msg("'%s' matched garbage '%s'", pws[k], garbage[i]);
        }
    }
    /* A setting libxcrypt refuses: crypt_rn() returns NULL with EINVAL (the
     * oracle says so), which is a refusal, not a match. */
    assert_null(crypt_rn("password", "$9$nonsense", cd, (int)sizeof *cd));
    {
        struct kdf_hash h = legacy_of("$9$nonsense");
        assert_int_equal(kdf_row_crypt.verify("password", 8, &h, NULL, NULL, 0), KDF_UNSUPPORTED);
        h = legacy_of("*0");
        assert_int_equal(kdf_row_crypt.verify("password", 8, &h, NULL, NULL, 0), KDF_MISMATCH);
    }
    /* Spans that are not strings at all. */
    {
        struct kdf_hash h = legacy_of("ab");
        h.whole.len = 0;
        assert_int_equal(kdf_row_crypt.verify("x", 1, &h, NULL, NULL, 0), KDF_MALFORMED);
        h.whole.ptr = "ab\0cdefghijk";
        h.whole.len = 12;
        assert_int_equal(kdf_row_crypt.verify("x", 1, &h, NULL, NULL, 0), KDF_MALFORMED);
        h.whole.ptr = NULL;
        assert_int_equal(kdf_row_crypt.verify("x", 1, &h, NULL, NULL, 0), KDF_MALFORMED);
        h = legacy_of("ab");
        h.scheme = KDF_SCHEME_BCRYPT;
        assert_int_equal(kdf_row_crypt.verify("x", 1, &h, NULL, NULL, 0), KDF_RANGE);
    }
    free(cd);
}

/* Long passwords: libxcrypt takes up to 511 bytes; 512 and more are a
 * refusal (never a crash, never a match). */
static void
test_long_password(void **state)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    char *pw = malloc(70000);
    char hash[128];
    const char *r;
    (void)state;

    assert_non_null(cd);
    assert_non_null(pw);
    memset(pw, 'k', 70000);
    pw[511] = '\0';
    r = crypt_rn(pw, "$6$rounds=1000$longpwsalt$", cd, (int)sizeof *cd);
    assert_non_null(r);
    snprintf(hash, sizeof hash, "%s", r);
    pw[511] = 'k';
    assert_int_equal(kdf_verify(pw, 511, hash, strlen(hash)), KDF_OK);
    assert_int_equal(kdf_verify(pw, 510, hash, strlen(hash)), KDF_MISMATCH);
    {
        static const size_t lens[] = {512, 513, 4096, 65536};
        struct kdf_hash h = legacy_of(hash);
        for (size_t i = 0; i < KDF_ARRAY_LEN(lens); i++) {
            enum kdf_status st = kdf_verify(pw, lens[i], hash, strlen(hash));
            assert_true(st == KDF_TOO_COSTLY || st == KDF_MISMATCH);
            assert_int_equal(kdf_row_crypt.verify(pw, lens[i], &h, NULL, NULL, 0), KDF_TOO_COSTLY);
        }
    }
    free(pw);
    free(cd);
}

/* A NUL inside the password: crypt_rn() would read the bytes before it,
 * so "pass\0word" would verify against the hash of "pass" and an upgrade
 * would then store all nine bytes.  Refused, for verify and for hash. */
static void
test_embedded_nul(void **state)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    struct kdf_target t;
    char hash[160], out[256];
    const char *r;
    (void)state;

    assert_non_null(cd);
    r = crypt_rn("pass\0word", "$5$rounds=1000$nulsalt$", cd, (int)sizeof *cd);
    assert_non_null(r);
    snprintf(hash, sizeof hash, "%s", r);
    assert_int_equal(kdf_verify("pass", 4, hash, strlen(hash)), KDF_OK);
    assert_int_equal(kdf_verify("pass\0word", 9, hash, strlen(hash)), KDF_RANGE);
    assert_int_equal(kdf_verify("pass\0", 5, hash, strlen(hash)), KDF_RANGE);
    assert_int_equal(kdf_verify("\0", 1, hash, strlen(hash)), KDF_RANGE);
    assert_int_equal(kdf_verify("pas", 3, hash, strlen(hash)), KDF_MISMATCH);
    memset(&t, 0, sizeof t);
    t.scheme = KDF_SCHEME_LEGACY;
    t.xcrypt = KDF_XCRYPT_YESCRYPT;
    t.cost = 1;
    t.salt_len = 16;
    assert_int_equal(kdf_hash_ex("\0abc", 4, &t, NULL, NULL, 0, out, sizeof out), KDF_RANGE);
    assert_int_equal(kdf_hash_ex("abc", 3, &t, NULL, NULL, 0, out, sizeof out), KDF_OK);
    free(cd);
}

/* What a scrypt/yescrypt setting costs, and whether the default caps let
 * it through: "$7$" with N = 4, r = 1 and p = 2^22 is 512 MiB of PBKDF2
 * output and seconds of SHA-256, whatever N r says. */
static enum kdf_status
caps_of(const char *s, const char **why)
{
    struct kdf_hash h = legacy_of(s);
    struct kdf_policy pol;

    kdf_policy_default(&pol);
    return kdf_check_caps(&h, 1, &pol, why);
}

static void
test_memhard_caps(void **state)
{
    static const char *const over[] = {
        /* $7$: log2 N '0' (2), r "/...." (1), p "...E." (2^22) */
        "$7$0/.......E.abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        /* p = 2^20 and p = 17 */
        "$7$0/.......2.abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$7$0/....F....abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        /* $y$ flavor 0 (classic scrypt), N = 8, r = 1, have = p, p = 2^20:
         * 3.6 s and 129 MiB in libxcrypt */
        "$y$.0..y/vrC$abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        /* $y$ RW (flavor j), N = 2^16, r = 1, p = 2^14: 8 MiB of V but
         * 204 MiB of S-boxes, one per lane */
        "$y$jD..vrC$abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        /* r so large that V alone is above 1 GiB */
        "$7$Czzzz./....abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    };
    static const char *const within[] = {
        "$7$CU..../....abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$y$j9T$abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$y$jDT$abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    };
    struct kdf_xcrypt_cost c;
    const char *why;
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(over); i++) {
        why = NULL;
        if (caps_of(over[i], &why) != KDF_TOO_COSTLY)
            fail_msg("%s passed the caps", over[i]);
        print_message("# %.32s...: %s\n", over[i], why);
    }
    for (size_t i = 0; i < KDF_ARRAY_LEN(within); i++)
        if (caps_of(within[i], &why) != KDF_OK)
            fail_msg("%s refused: %s", within[i], why);

    /* Memory is what libxcrypt maps: B (128 r p) counts, and a KiB is not
     * rounded away. */
    assert_int_equal(kdf_xcrypt_cost(over[0], strlen(over[0]), &c), 0);
    assert_true(c.mem_kib >= (uint64_t)128 * 4194304 / 1024);
    assert_int_equal(c.lanes, 4194304);
    assert_true(c.work_kib >= (uint64_t)1048576 * 16);
    assert_int_equal(kdf_xcrypt_cost(over[4], strlen(over[4]), &c), 0);
    assert_true(c.mem_kib >= (uint64_t)16384 * 12 + 8192);
    assert_int_equal(kdf_xcrypt_cost(within[1], strlen(within[1]), &c), 0);
    assert_true(c.mem_kib >= 16384 && c.mem_kib < 16384 + 64); /* $y$j9T$: 16 MiB */
}

/* libxcrypt's scrypt and yescrypt take their memory from the machine-wide
 * budget, as Argon2 does: above the whole budget they are refused at once,
 * and no work is done. */
static void
test_memhard_budget(void **state)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    struct kdf_policy pol;
    struct kdf_hash h;
    char hash[160];
    const char *r;
    (void)state;

    assert_non_null(cd);
    r = crypt_rn("pw", "$y$j9T$abcdefghijklmnop$", cd, (int)sizeof *cd);
    assert_non_null(r);
    snprintf(hash, sizeof hash, "%s", r);
    h = legacy_of(hash);
    kdf_policy_default(&pol);
    pol.max_memory_kib = 8 * 1024; /* 8 MiB: $y$j9T$ takes 16 */
    assert_int_equal(kdf_verify_ex("pw", 2, &h, &pol, NULL, 0), KDF_OVER_BUDGET);
    pol.max_memory_kib = 64 * 1024;
    assert_int_equal(kdf_verify_ex("pw", 2, &h, &pol, NULL, 0), KDF_OK);
    assert_int_equal(kdf_verify_ex("px", 2, &h, &pol, NULL, 0), KDF_MISMATCH);
    free(cd);
}

/* The DES family drops bit 7 of every byte (and traditional DES reads 8
 * bytes): "p\xe1ssword" verifies against DES("password").  Whichever of
 * the two was typed, a new hash of it could lose the other: never read
 * whole, never upgraded.  md5crypt reads every bit. */
static void
test_des_family_not_whole(void **state)
{
    static const char des[] = "abJnggxhB/yWI";         /* mkpasswd: password */
    static const char bsdi[] = "_J9..efghozhWZW6RBiA"; /* passlib: password1234 */
    static const char md5[] = "$1$saltsalt$Esf4UW8VH5Hye.hp7EKud."; /* password1234 */
    struct kdf_hash h;
    (void)state;

    assert_int_equal(kdf_verify("p\xe1ssword", 8, des, strlen(des)), KDF_OK);
    assert_int_equal(kdf_parse(des, strlen(des), &h, NULL), KDF_OK);
    assert_int_equal(kdf_reads_whole_password("p\xe1ssword", 8, &h), 0);
    assert_int_equal(kdf_reads_whole_password("password", 8, &h), 0);

    assert_int_equal(kdf_verify("p\xe1ssword1234", 12, bsdi, strlen(bsdi)), KDF_OK);
    assert_int_equal(kdf_parse(bsdi, strlen(bsdi), &h, NULL), KDF_OK);
    assert_int_equal(kdf_reads_whole_password("p\xe1ssword1234", 12, &h), 0);
    assert_int_equal(kdf_reads_whole_password("password1234", 12, &h), 0);

    assert_int_equal(kdf_verify("p\xe1ssword1234", 12, md5, strlen(md5)), KDF_MISMATCH);
    assert_int_equal(kdf_parse(md5, strlen(md5), &h, NULL), KDF_OK);
    assert_int_equal(kdf_reads_whole_password("password1234", 12, &h), 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_failure_tokens),
        cmocka_unit_test(test_long_password),
        cmocka_unit_test(test_embedded_nul),
        cmocka_unit_test(test_memhard_caps),
        cmocka_unit_test(test_memhard_budget),
        cmocka_unit_test(test_des_family_not_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
