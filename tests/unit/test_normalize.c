/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_normalize.c - the NFKC form of passwords (core/util_normalize.c) and
 * what the entry points do with it under normalize = nfkc and = no:
 *   - the forms: composed and decomposed "é", full-width ASCII, Hangul
 *     syllables and conjoining jamo, bytes that are not UTF-8 (used as
 *     given), forms longer than the cap (refused, wiped), forms that need
 *     the heap;
 *   - new hashes are of the NFKC form: the same salt gives one string for
 *     every byte form of one password;
 *   - verify tries the bytes as typed, then the NFKC form when it differs,
 *     and says which matched; ASCII costs one verification (counted with
 *     kdf_test_row_verifies());
 *   - entries made from raw bytes before normalization: what still
 *     verifies, and what does not;
 *   - normalize = no keeps the raw-bytes behaviour.
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"
#include "util_normalize.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define E_NFC "\xC3\xA9"      /* U+00E9 */
#define E_NFD "e\xCC\x81"     /* U+0065 U+0301 */
#define FW_ABC "\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\xA3" /* U+FF21..U+FF23 */
#define HANGUL_GA "\xEA\xB0\x80"            /* U+AC00 */
#define JAMO_GA "\xE1\x84\x80\xE1\x85\xA1" /* U+1100 U+1161 */
#define LIGATURE "\xEF\xB7\xBA" /* U+FDFA: 33 bytes in NFKC */

static const uint8_t salt[16] = "0123456789abcdef";

static void
nfkc_is(const char *in, const char *want)
{
    char out[256];
    size_t n = 12345;

    memset(out, 0x5A, sizeof out);
    assert_int_equal(kdf_normalize_nfkc(in, strlen(in), out, sizeof out, &n), KDF_OK);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
}

static void
test_forms(void **state)
{
    (void)state;
    nfkc_is(E_NFD, E_NFC);
    nfkc_is(E_NFC, E_NFC);
    nfkc_is("caf" E_NFD "!", "caf" E_NFC "!");
    nfkc_is(FW_ABC, "ABC");
    nfkc_is(JAMO_GA, HANGUL_GA);
    nfkc_is(HANGUL_GA, HANGUL_GA);
    nfkc_is("plain ascii", "plain ascii");
    nfkc_is("", "");
}

static void
test_not_utf8(void **state)
{
    static const char latin1[] = "caf\xE9";        /* Latin-1 "café" */
    static const char overlong[] = "\xC0\xAF";     /* overlong "/" */
    static const char surrogate[] = "\xED\xA0\x80"; /* U+D800 */
    const char *bad[] = {latin1, overlong, surrogate, "\xFF\xFE"};
    struct kdf_nfkc f;
    char out[64];
    size_t n;

    (void)state;
    for (size_t i = 0; i < KDF_ARRAY_LEN(bad); i++) {
        n = 99;
        assert_int_equal(kdf_normalize_nfkc(bad[i], strlen(bad[i]), out, sizeof out, &n),
                         KDF_MALFORMED);
        assert_int_equal(n, 0);
        assert_int_equal(kdf_nfkc_form(&f, bad[i], strlen(bad[i]), 4096), KDF_OK);
        assert_ptr_equal(f.pw, bad[i]); /* the bytes as given */
        assert_int_equal(f.len, strlen(bad[i]));
        assert_false(f.differs);
        kdf_nfkc_drop(&f);
    }
}

/* A form over the cap is refused and nothing of it stays in out; one over
 * the stack area goes to the heap, and the drop wipes and frees it. */
static void
test_caps(void **state)
{
    char out[16], pw[40 * 3 + 1] = "";
    struct kdf_nfkc f;
    size_t n;

    (void)state;
    memset(out, 0x5A, sizeof out);
    assert_int_equal(kdf_normalize_nfkc(LIGATURE, 3, out, sizeof out, &n), KDF_TOO_COSTLY);
    for (size_t i = 0; i < sizeof out; i++)
        assert_int_equal(out[i], 0);
    assert_int_equal(kdf_normalize_nfkc("abc", 3, out, 2, &n), KDF_TOO_COSTLY);

    /* Within the stack area: no heap, and the drop wipes the area. */
    assert_int_equal(kdf_nfkc_form(&f, E_NFD E_NFD, 6, 4096), KDF_OK);
    assert_null(f.heap);
    assert_ptr_equal(f.pw, f.stack);
    assert_int_equal(f.len, 4);
    assert_memory_equal(f.pw, E_NFC E_NFC, 4);
    kdf_nfkc_drop(&f);
    for (size_t i = 0; i < sizeof f.stack; i++)
        assert_int_equal(f.stack[i], 0);

    for (int i = 0; i < 40; i++)
        strcat(pw, LIGATURE);
    assert_int_equal(kdf_nfkc_form(&f, pw, strlen(pw), 4096), KDF_OK);
    assert_non_null(f.heap);
    assert_int_equal(f.len, 40 * 33);
    assert_true(f.differs);
    assert_ptr_equal(f.pw, f.heap);
    kdf_nfkc_drop(&f);
    assert_null(f.heap);
    assert_int_equal(kdf_nfkc_form(&f, pw, strlen(pw), 1000), KDF_TOO_COSTLY);
    kdf_nfkc_drop(&f);
}

static void
pbkdf2_target(struct kdf_target *t)
{
    assert_int_equal(kdf_target_parse("pbkdf2-sha256 i=1000", t, NULL, 0), KDF_OK);
}

static void
policy(struct kdf_policy *p, const char *normalize)
{
    char err[128];

    kdf_policy_default(p);
    assert_int_equal(kdf_policy_set(p, "normalize", normalize, err, sizeof err), KDF_OK);
}

static void
make(const char *pw, const struct kdf_policy *p, char *out, size_t cap)
{
    struct kdf_target t;

    pbkdf2_target(&t);
    assert_int_equal(kdf_hash_ex(pw, strlen(pw), &t, p, salt, sizeof salt, out, cap), KDF_OK);
}

/* Verify pw against hash under p: the status, the form that matched and
 * the verifications it cost. */
static enum kdf_status
check(const char *pw, const char *hash, const struct kdf_policy *p, enum kdf_form *form,
      unsigned long *cost)
{
    struct kdf_hash h;
    unsigned long before;
    enum kdf_status st;

    assert_int_equal(kdf_parse(hash, strlen(hash), &h, NULL), KDF_OK);
    before = kdf_test_row_verifies();
    *form = (enum kdf_form)99;
    st = kdf_verify_form(pw, strlen(pw), &h, p, NULL, 0, form);
    *cost = kdf_test_row_verifies() - before;
    return st;
}

/* Under nfkc every byte form of one password makes one string. */
static void
test_new_hashes(void **state)
{
    struct kdf_policy p;
    char a[256], b[256];

    (void)state;
    policy(&p, "nfkc");
    make(E_NFC, &p, a, sizeof a);
    make(E_NFD, &p, b, sizeof b);
    assert_string_equal(a, b);
    make("ABC", &p, a, sizeof a);
    make(FW_ABC, &p, b, sizeof b);
    assert_string_equal(a, b);
    make(HANGUL_GA, &p, a, sizeof a);
    make(JAMO_GA, &p, b, sizeof b);
    assert_string_equal(a, b);
    /* The entry points with no policy normalize too (the default). */
    {
        struct kdf_target t;
        pbkdf2_target(&t);
        assert_int_equal(kdf_hash_salt(E_NFD, 3, &t, salt, sizeof salt, b, sizeof b), KDF_OK);
        make(E_NFC, &p, a, sizeof a);
        assert_string_equal(a, b);
    }
    /* Not UTF-8: the bytes as given, as under normalize = no. */
    make("caf\xE9", &p, a, sizeof a);
    policy(&p, "no");
    make("caf\xE9", &p, b, sizeof b);
    assert_string_equal(a, b);
    /* No: the byte forms stay apart. */
    make(E_NFC, &p, a, sizeof a);
    make(E_NFD, &p, b, sizeof b);
    assert_string_not_equal(a, b);
}

/* A form longer than max.password is no password to hash. */
static void
test_new_hash_cap(void **state)
{
    struct kdf_policy p;
    struct kdf_target t;
    char err[128], out[256];

    (void)state;
    policy(&p, "nfkc");
    assert_int_equal(kdf_policy_set(&p, "max.password", "16", err, sizeof err), KDF_OK);
    pbkdf2_target(&t);
    assert_int_equal(kdf_hash_ex(LIGATURE, 3, &t, &p, salt, sizeof salt, out, sizeof out),
                     KDF_TOO_COSTLY);
    policy(&p, "no");
    assert_int_equal(kdf_policy_set(&p, "max.password", "16", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_hash_ex(LIGATURE, 3, &t, &p, salt, sizeof salt, out, sizeof out),
                     KDF_OK);
}

static void
test_verify_order(void **state)
{
    struct kdf_policy nfkc, raw;
    enum kdf_form form;
    unsigned long cost;
    char hash[256];

    (void)state;
    policy(&nfkc, "nfkc");
    policy(&raw, "no");

    /* ASCII: one verification, right or wrong. */
    make("correct horse", &nfkc, hash, sizeof hash);
    assert_int_equal(check("correct horse", hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_TYPED);
    assert_int_equal(cost, 1);
    assert_int_equal(check("wrong horse", hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 1);
    /* A wrong password already in NFKC: one; one whose form differs: two. */
    assert_int_equal(check(E_NFC, hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 1);
    assert_int_equal(check(E_NFD, hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 2);

    /* A new entry (NFKC) verifies with every byte form. */
    make(JAMO_GA, &nfkc, hash, sizeof hash);
    assert_int_equal(check(HANGUL_GA, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_TYPED);
    assert_int_equal(cost, 1);
    assert_int_equal(check(JAMO_GA, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_NFKC);
    assert_int_equal(cost, 2);
    make(FW_ABC, &nfkc, hash, sizeof hash);
    assert_int_equal(check("ABC", hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(check(FW_ABC, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_NFKC);
    /* Its form differs from every ASCII form only by the hash. */
    assert_int_equal(check("abc", hash, &nfkc, &form, &cost), KDF_MISMATCH);
}

/* Entries made from raw bytes before normalization (normalize = no, or an
 * older release). */
static void
test_old_entries(void **state)
{
    struct kdf_policy nfkc, raw;
    enum kdf_form form;
    unsigned long cost;
    char hash[256];

    (void)state;
    policy(&nfkc, "nfkc");
    policy(&raw, "no");

    /* From decomposed bytes: the same bytes verify as typed ... */
    make(E_NFD, &raw, hash, sizeof hash);
    assert_int_equal(check(E_NFD, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_TYPED);
    assert_int_equal(cost, 1);
    /* ... but composed input does not: it is its own NFKC form, and the
     * entry is of neither (the two-try order cannot reach NFD bytes). */
    assert_int_equal(check(E_NFC, hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 1);

    /* From composed bytes (most input methods): both forms verify, the
     * decomposed one through its NFKC form. */
    make(E_NFC, &raw, hash, sizeof hash);
    assert_int_equal(check(E_NFC, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_TYPED);
    assert_int_equal(check(E_NFD, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_NFKC);
    assert_int_equal(cost, 2);

    /* From full-width bytes: they verify as typed; plain ASCII does not
     * (the entry is not of the NFKC form), which is what a rehash on the
     * FW login fixes. */
    make(FW_ABC, &raw, hash, sizeof hash);
    assert_int_equal(check(FW_ABC, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_TYPED);
    assert_int_equal(check("ABC", hash, &nfkc, &form, &cost), KDF_MISMATCH);
}

/* normalize = no: one try of the bytes as given, new hashes of them. */
static void
test_normalize_no(void **state)
{
    struct kdf_policy raw;
    enum kdf_form form;
    unsigned long cost;
    char hash[256];

    (void)state;
    policy(&raw, "no");
    assert_int_equal(raw.normalize, 0);
    make(E_NFC, &raw, hash, sizeof hash);
    assert_int_equal(check(E_NFD, hash, &raw, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 1);
    assert_int_equal(check(E_NFC, hash, &raw, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_TYPED);
    make(JAMO_GA, &raw, hash, sizeof hash);
    assert_int_equal(check(HANGUL_GA, hash, &raw, &form, &cost), KDF_MISMATCH);
    assert_int_equal(check(JAMO_GA, hash, &raw, &form, &cost), KDF_OK);
}

static void
test_policy_key(void **state)
{
    struct kdf_policy p;
    char err[128];

    (void)state;
    kdf_policy_default(&p);
    assert_int_equal(p.normalize, 1);
    assert_int_equal(kdf_policy_set(&p, "normalize", "no", err, sizeof err), KDF_OK);
    assert_int_equal(p.normalize, 0);
    assert_int_equal(kdf_policy_set(&p, "normalize", "nfkc", err, sizeof err), KDF_OK);
    assert_int_equal(p.normalize, 1);
    assert_int_equal(kdf_policy_set(&p, "normalize", "nfc", err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "nfkc or no"));
    assert_int_equal(kdf_policy_set(&p, "normalize", "yes", err, sizeof err), KDF_MALFORMED);
    assert_int_equal(p.normalize, 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),        cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_caps),         cmocka_unit_test(test_new_hashes),
        cmocka_unit_test(test_new_hash_cap), cmocka_unit_test(test_verify_order),
        cmocka_unit_test(test_old_entries),  cmocka_unit_test(test_normalize_no),
        cmocka_unit_test(test_policy_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
