/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ds_value.c - kdf_ds_value_string() (core/api_ds_value.c): every
 * 389-ds userPassword value of tests/vectors/ldap_sha.inc (each accepted by
 * 389-ds's own pwdhash) maps to a core string that verifies its password
 * and not another; the exact strings of each kind of name; names in any
 * case; the refusals, each with a reason.
 */
#include "kdf_prelude.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct vec {
    const char *pw;
    size_t len;
    const char *value;
};
#define KDF_DSVEC(p, l, v) {p, l, v},
static const struct vec vecs[] = {
#include "vectors/ldap_sha.inc"
};
#undef KDF_DSVEC

static enum kdf_status
map(const char *v, char *out, size_t cap, const char **why)
{
    size_t n = 12345;
    enum kdf_status st = kdf_ds_value_string(v, strlen(v), out, cap, &n, why);

    if (st == KDF_OK)
        assert_int_equal(n, strlen(out));
    else
        assert_int_equal(n, 0);
    return st;
}

static void
test_vectors(void **state)
{
    struct kdf_policy pol;
    (void)state;

    kdf_policy_default(&pol);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct vec *v = &vecs[i];
        char out[KDF_MAX_HASH_STR + 1], wrong[200];
        const char *why = NULL;
        struct kdf_hash h;

        if (map(v->value, out, sizeof out, &why) != KDF_OK)
            fail_msg("vector %zu (%s): %s", i, v->value, why);
        if (kdf_parse(out, strlen(out), &h, &why) != KDF_OK)
            fail_msg("vector %zu (%s -> %s): %s", i, v->value, out, why);
        if (kdf_verify_ex(v->pw, v->len, &h, &pol, NULL, 0) != KDF_OK)
            fail_msg("vector %zu (%s -> %s) does not verify", i, v->value, out);
        memcpy(wrong, v->pw, v->len);
        wrong[v->len] = 'x';
        assert_int_equal(kdf_verify_ex(wrong, v->len + 1, &h, &pol, NULL, 0), KDF_MISMATCH);
        /* The LDAP SHA values are their own strings; {crypt} is its body. */
        if (strncmp(v->value, "{S", 2) == 0)
            assert_string_equal(out, v->value);
        if (strncmp(v->value, "{crypt}", 7) == 0)
            assert_string_equal(out, v->value + 7);
    }
}

static void
test_strings(void **state)
{
    static const struct {
        const char *value, *want;
    } m[] = {
        /* 389-ds 2.3's pwdhash: standard base64 with padding, into ab64. */
        {"{PBKDF2-SHA256}10000$32BGo9Qp8KnBRQrpALhwXZN2b78FduaV$n56meZbxW9TMfGQxidUiO6TBTq+3lEwHX3eHJIKgEVw=",
         "$pbkdf2-sha256$10000$32BGo9Qp8KnBRQrpALhwXZN2b78FduaV$n56meZbxW9TMfGQxidUiO6TBTq.3lEwHX3eHJIKgEVw"},
        {"{PBKDF2-SHA1}10000$HgSrs221Ym5UCl4Gjdu8FRwDzfOhhHL6$qbCvOVEIq2N2n7w3zWpFdWuyLL4=",
         "$pbkdf2$10000$HgSrs221Ym5UCl4Gjdu8FRwDzfOhhHL6$qbCvOVEIq2N2n7w3zWpFdWuyLL4"},
        {"{PBKDF2-SHA512}10000$/t6owGcli5QdD9ckCbhSI8gVBFk5d5vx$UCJ9yDshYam2XxUfniIYNZpyumVxgGmPU5ZkWCwhAb4B3eRc5iCrrXtJLPqtP2U53pLpD4cxfCc/pFj8wZ68rQ==",
         "$pbkdf2-sha512$10000$/t6owGcli5QdD9ckCbhSI8gVBFk5d5vx$UCJ9yDshYam2XxUfniIYNZpyumVxgGmPU5ZkWCwhAb4B3eRc5iCrrXtJLPqtP2U53pLpD4cxfCc/pFj8wZ68rQ"},
        /* OpenLDAP's ab64 as it is; {PBKDF2} is SHA-1, any case. */
        {"{PBKDF2}10000$IlfapjA351LuDSwYC0IQ8Q$saHqQTuYnjJN/tmAndT.8mJt.6w",
         "$pbkdf2$10000$IlfapjA351LuDSwYC0IQ8Q$saHqQTuYnjJN/tmAndT.8mJt.6w"},
        {"{pbkdf2-sha256}10000$henZGfPWw79Cs8ORDeVNrQ$1dTJy73v6n3bnTmTZFghxHXHLsAzKaAy8SksDfZBPIw",
         "$pbkdf2-sha256$10000$henZGfPWw79Cs8ORDeVNrQ$1dTJy73v6n3bnTmTZFghxHXHLsAzKaAy8SksDfZBPIw"},
        /* KDF-PBKDF2: a digit body's head by the digest's length... */
        {"{KDF-PBKDF2}10000$IlfapjA351LuDSwYC0IQ8Q$saHqQTuYnjJN/tmAndT.8mJt.6w",
         "$pbkdf2$10000$IlfapjA351LuDSwYC0IQ8Q$saHqQTuYnjJN/tmAndT.8mJt.6w"},
        {"{KDF-PBKDF2}10000$henZGfPWw79Cs8ORDeVNrQ$1dTJy73v6n3bnTmTZFghxHXHLsAzKaAy8SksDfZBPIw",
         "$pbkdf2-sha256$10000$henZGfPWw79Cs8ORDeVNrQ$1dTJy73v6n3bnTmTZFghxHXHLsAzKaAy8SksDfZBPIw"},
        {"{kdf-pbkdf2}1$c2FsdA$UCJ9yDshYam2XxUfniIYNZpyumVxgGmPU5ZkWCwhAb4B3eRc5iCrrXtJLPqtP2U53pLpD4cxfCc/pFj8wZ68rQ",
         "$pbkdf2-sha512$1$c2FsdA$UCJ9yDshYam2XxUfniIYNZpyumVxgGmPU5ZkWCwhAb4B3eRc5iCrrXtJLPqtP2U53pLpD4cxfCc/pFj8wZ68rQ"},
        /* ...another body as it is. */
        {"{KDF-PBKDF2}$pbkdf2-sha512$1$c2FsdA$x", "$pbkdf2-sha512$1$c2FsdA$x"},
        {"{ARGON2}$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA", "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA"},
        {"{bcrypt}$2b$04$abc", "$2b$04$abc"},
        {"{crypt}68UDoGQi3hIJs", "68UDoGQi3hIJs"},
        {"{CRYPT-SHA512}$6$Ga$x", "$6$Ga$x"},
        {"{GOST_YESCRYPT}$gy$j9T$abc", "$gy$j9T$abc"},
        /* The LDAP SHA names in upper case, the body untouched. */
        {"{ssha}ufw00FaLWIYjd7ph5XF2vAqqC+RxP6vIHQBaSg==", "{SSHA}ufw00FaLWIYjd7ph5XF2vAqqC+RxP6vIHQBaSg=="},
        {"{Sha512}abc", "{SHA512}abc"},
    };
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(m); i++) {
        char out[KDF_MAX_HASH_STR + 1];
        const char *why = NULL;

        if (map(m[i].value, out, sizeof out, &why) != KDF_OK)
            fail_msg("%s: %s", m[i].value, why);
        assert_string_equal(out, m[i].want);
    }
}

static void
test_refused(void **state)
{
    static const struct {
        const char *value;
        enum kdf_status st;
    } r[] = {
        {"{MD5}X03MO1qnZdYdgyfeuILPmQ==", KDF_UNSUPPORTED},
        {"{smd5}iLGUK0Dg7myAvhaZmSC1xy8dKTs=", KDF_UNSUPPORTED},
        {"{PBKDF2_SHA256}AAAgAAyVD7Ow", KDF_UNSUPPORTED},
        {"{CLEAR}password", KDF_UNSUPPORTED},
        {"{NS-MTA-MD5}abc", KDF_UNSUPPORTED},
        {"{FOO}bar", KDF_UNSUPPORTED},
        {"{CRYPT-}x", KDF_UNSUPPORTED},
        {"", KDF_MALFORMED},
        {"password", KDF_MALFORMED},
        {"{SSHA", KDF_MALFORMED},
        {"{}abc", KDF_MALFORMED},
        {"{S SHA}abc", KDF_MALFORMED},
        {"{SSHA\n}abc", KDF_MALFORMED},
        {"{ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ}x", KDF_MALFORMED},
        /* No body: it would be the core's empty entry. */
        {"{crypt}", KDF_MALFORMED},
        {"{SSHA}", KDF_MALFORMED},
        /* PBKDF2 bodies that are not <iterations>$<salt>$<hash>. */
        {"{PBKDF2-SHA256}x$abcd$abcd", KDF_MALFORMED},
        {"{PBKDF2-SHA256}$pbkdf2-sha256$1$abcd$abcd", KDF_MALFORMED},
        {"{PBKDF2-SHA256}1000$abcd", KDF_MALFORMED},
        {"{PBKDF2-SHA256}1000$abcd$ab$cd", KDF_MALFORMED},
        /* A field that mixes ab64 and base64, or pads wrongly. */
        {"{PBKDF2-SHA1}1000$ab.+$abcd", KDF_MALFORMED},
        {"{PBKDF2-SHA1}1000$ab.c$abc.=", KDF_MALFORMED},
        {"{PBKDF2-SHA1}1000$ab=$abcd", KDF_MALFORMED},
        {"{PBKDF2-SHA1}1000$a===$abcd", KDF_MALFORMED},
        /* KDF-PBKDF2: a 16-byte hash is no PBKDF2 row's. */
        {"{KDF-PBKDF2}1000$c2FsdA$AAAAAAAAAAAAAAAAAAAAAA", KDF_MALFORMED},
    };
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(r); i++) {
        char out[KDF_MAX_HASH_STR + 1];
        const char *why = NULL;

        memset(out, 'z', sizeof out);
        if (map(r[i].value, out, sizeof out, &why) != r[i].st)
            fail_msg("%s: not refused as expected (%s)", r[i].value, why);
        assert_non_null(why);
        assert_string_equal(out, "");
    }
}

static void
test_range(void **state)
{
    static const char v[] = "{SSHA}ufw00FaLWIYjd7ph5XF2vAqqC+RxP6vIHQBaSg==";
    char out[sizeof v];
    const char *why = NULL;
    size_t n = 0;
    (void)state;

    /* Exactly the string and its NUL fits; one byte less does not. */
    assert_int_equal(kdf_ds_value_string(v, sizeof v - 1, out, sizeof v, &n, &why), KDF_OK);
    assert_int_equal(n, sizeof v - 1);
    assert_int_equal(kdf_ds_value_string(v, sizeof v - 1, out, sizeof v - 1, &n, &why),
                     KDF_RANGE);
    assert_string_equal(out, "");
    assert_non_null(why);
    assert_int_equal(kdf_ds_value_string(NULL, 0, out, sizeof out, &n, &why), KDF_RANGE);
    assert_int_equal(kdf_ds_value_string(v, sizeof v - 1, NULL, 0, &n, NULL), KDF_RANGE);
    /* Only v[0..len) is read: a value cut before its '}' has no name. */
    assert_int_equal(kdf_ds_value_string(v, 5, out, sizeof out, &n, &why), KDF_MALFORMED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
