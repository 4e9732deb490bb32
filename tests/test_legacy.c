/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_legacy.c - crypt(3) schemes verified through libxcrypt's crypt_rn()
 * (core/scheme_legacy.c; doc/DESIGN.md section 3).
 *
 * Expected answers: the committed rows of tests/vectors/legacy.inc
 * (libxcrypt output, each cross-checked with passlib or hashlib by the
 * vectors generator), and strings crypt_rn() makes in this process.
 */
#include "kdf_internal.h"
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

/* A NUL inside the password: crypt(3) semantics, the bytes before it count
 * (what crypt_rn() itself does with the same bytes). */
static void
test_embedded_nul(void **state)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    char hash[160];
    const char *r;
    (void)state;

    assert_non_null(cd);
    r = crypt_rn("pass\0word", "$5$rounds=1000$nulsalt$", cd, (int)sizeof *cd);
    assert_non_null(r);
    snprintf(hash, sizeof hash, "%s", r);
    assert_int_equal(kdf_verify("pass", 4, hash, strlen(hash)), KDF_OK);
    assert_int_equal(kdf_verify("pass\0word", 9, hash, strlen(hash)), KDF_OK);
    assert_int_equal(kdf_verify("pass\0", 5, hash, strlen(hash)), KDF_OK);
    assert_int_equal(kdf_verify("pas", 3, hash, strlen(hash)), KDF_MISMATCH);
    free(cd);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_failure_tokens),
        cmocka_unit_test(test_long_password),
        cmocka_unit_test(test_embedded_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
