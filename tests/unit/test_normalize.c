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
 *     else the NFD form when that differs, and says which matched; the
 *     cost depends on the password alone: ASCII and passwords with nothing
 *     to compose or decompose cost one verification, others two, right or
 *     wrong (counted with kdf_test_row_verifies());
 *   - entries made from raw bytes before normalization: composed and
 *     decomposed both verify with either spelling; what does not (a
 *     full-width entry with plain ASCII), kdf_reads_whole_form() and
 *     kdf_form_outdated() (which matches rehash the entry);
 *   - length rules in characters (kdf_password_length(), min.length,
 *     max.length);
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
#define ZHE "\xD0\xB6" /* U+0436: nothing to compose or decompose */

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
    /* A wrong password with nothing to compose or decompose: one; one
     * whose NFKC form differs, or in NFKC with a decomposition: two. */
    assert_int_equal(check(ZHE, hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 1);
    assert_int_equal(check(E_NFC, hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 2);
    assert_int_equal(check(E_NFD, hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 2);
    assert_int_equal(check(HANGUL_GA, hash, &nfkc, &form, &cost), KDF_MISMATCH);
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
    /* ... and composed input through its NFD form: composed input is its
     * own NFKC form, so the second try is the decomposed spelling. */
    assert_int_equal(check(E_NFC, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_NFD);
    assert_int_equal(cost, 2);
    assert_int_equal(check("caf" E_NFC, hash, &nfkc, &form, &cost), KDF_MISMATCH);
    assert_int_equal(cost, 2);
    /* Conjoining jamo are Hangul's decomposed spelling. */
    make(JAMO_GA, &raw, hash, sizeof hash);
    assert_int_equal(check(HANGUL_GA, hash, &nfkc, &form, &cost), KDF_OK);
    assert_int_equal(form, KDF_FORM_NFD);

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

/* After a match in another form, is that form's every byte read?  bcrypt
 * reads 72 bytes: a form longer than that never upgrades. */
static void
test_reads_whole_form(void **state)
{
    struct kdf_policy nfkc;
    struct kdf_target t;
    struct kdf_hash h;
    char hash[256], pw[80];

    (void)state;
    policy(&nfkc, "nfkc");
    assert_int_equal(kdf_target_parse("bcrypt cost=4", &t, NULL, 0), KDF_OK);
    assert_int_equal(kdf_hash_ex("caf" E_NFC, 5, &t, &nfkc, salt, sizeof salt, hash,
                                 sizeof hash), KDF_OK);
    assert_int_equal(kdf_parse(hash, strlen(hash), &h, NULL), KDF_OK);
    assert_int_equal(kdf_reads_whole_form("caf" E_NFD, 6, &h, &nfkc, KDF_FORM_NFKC), 1);
    assert_int_equal(kdf_reads_whole_form("caf" E_NFC, 5, &h, &nfkc, KDF_FORM_NFD), 1);
    assert_int_equal(kdf_reads_whole_form("caf" E_NFC, 5, &h, &nfkc, KDF_FORM_TYPED), 1);
    /* Asked for a form the password does not have: no. */
    assert_int_equal(kdf_reads_whole_form("cafe", 4, &h, &nfkc, KDF_FORM_NFKC), 0);
    /* a...a + "é": its NFD form is one byte longer; bcrypt stops at 72. */
    for (size_t typed = 70; typed <= 72; typed++) {
        memset(pw, 'a', sizeof pw);
        memcpy(pw + typed - 2, E_NFC, 2);
        assert_int_equal(kdf_reads_whole_form(pw, typed, &h, &nfkc, KDF_FORM_NFD),
                         typed + 1 <= KDF_BCRYPT_MAX_PW);
    }
}

/* Which matches leave an entry outdated: those not of the NFKC form.  A
 * decomposed login on an NFKC entry matches in the NFKC form and must not
 * rewrite the entry at every login. */
static void
test_form_outdated(void **state)
{
    struct kdf_policy nfkc, raw;

    (void)state;
    policy(&nfkc, "nfkc");
    policy(&raw, "no");
    assert_int_equal(kdf_form_outdated("abc", 3, KDF_FORM_TYPED, &nfkc), 0);
    assert_int_equal(kdf_form_outdated(E_NFC, 2, KDF_FORM_TYPED, &nfkc), 0);
    assert_int_equal(kdf_form_outdated(E_NFD, 3, KDF_FORM_TYPED, &nfkc), 1);
    assert_int_equal(kdf_form_outdated(FW_ABC, 9, KDF_FORM_TYPED, &nfkc), 1);
    assert_int_equal(kdf_form_outdated(E_NFD, 3, KDF_FORM_NFKC, &nfkc), 0);
    assert_int_equal(kdf_form_outdated(E_NFC, 2, KDF_FORM_NFD, &nfkc), 1);
    assert_int_equal(kdf_form_outdated("caf\xE9", 4, KDF_FORM_TYPED, &nfkc), 0);
    assert_int_equal(kdf_form_outdated(E_NFD, 3, KDF_FORM_TYPED, &raw), 0);
    assert_int_equal(kdf_form_outdated(E_NFC, 2, KDF_FORM_NFD, &raw), 0);
}

/* Length rules count characters: code points of the form hashed. */
static void
test_length(void **state)
{
    struct kdf_policy nfkc, raw;
    char err[128];

    (void)state;
    policy(&nfkc, "nfkc");
    policy(&raw, "no");
    assert_int_equal(kdf_password_length("", 0, &nfkc), 0);
    assert_int_equal(kdf_password_length("correct horse", 13, &nfkc), 13);
    assert_int_equal(kdf_password_length("caf" E_NFC, 5, &nfkc), 4);
    assert_int_equal(kdf_password_length("caf" E_NFD, 6, &nfkc), 4);
    assert_int_equal(kdf_password_length("caf" E_NFD, 6, &raw), 5);
    assert_int_equal(kdf_password_length(JAMO_GA, 6, &nfkc), 1);
    assert_int_equal(kdf_password_length(JAMO_GA, 6, &raw), 2);
    assert_int_equal(kdf_password_length(FW_ABC, 9, &nfkc), 3);
    assert_int_equal(kdf_password_length(LIGATURE, 3, &nfkc), 18); /* 18 letters and spaces */
    assert_int_equal(kdf_password_length("caf\xE9", 4, &nfkc), 4); /* not UTF-8: bytes */
    assert_int_equal(kdf_policy_set(&nfkc, "max.password", "16", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_password_length(LIGATURE, 3, &nfkc), (size_t)-1);
    /* The keys: defaults, and a maximum under 64 is refused. */
    assert_int_equal(raw.min_length, 6);
    assert_int_equal(raw.max_length, 1024);
    assert_int_equal(kdf_policy_set(&raw, "min.length", "15", err, sizeof err), KDF_OK);
    assert_int_equal(raw.min_length, 15);
    assert_int_equal(kdf_policy_set(&raw, "max.length", "64", err, sizeof err), KDF_OK);
    assert_int_not_equal(kdf_policy_set(&raw, "max.length", "63", err, sizeof err), KDF_OK);
    /* profile = sp800-63b raises the minimum to 15, never lowers it. */
    assert_int_equal(kdf_policy_min_length(&raw), 15);
    raw.min_length = 6;
    assert_int_equal(kdf_policy_min_length(&raw), 6);
    raw.profile = KDF_PROFILE_SP800_63B;
    assert_int_equal(kdf_policy_min_length(&raw), KDF_SP800_63B_MIN_LENGTH);
    raw.min_length = 20;
    assert_int_equal(kdf_policy_min_length(&raw), 20);
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
        cmocka_unit_test(test_policy_key),   cmocka_unit_test(test_reads_whole_form),
        cmocka_unit_test(test_length),       cmocka_unit_test(test_form_outdated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
