/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ldap_sha.c - the LDAP SHA row (core/scheme_ldap_sha.c): 389-ds's and
 * passlib's {SHA*} and {SSHA*} values verify (tests/vectors/ldap_sha.inc,
 * each accepted by 389-ds's pwdhash), a wrong password does not, the
 * string round-trips, its joined salt and digest decode apart, it is
 * always outdated and never a target, and broken spellings are refused
 * with a reason.  With SHA-384 on NIST's examples.
 */
#include "kdf_prelude.h"
#include "kdf_scheme.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alg_sha.h"
#include "hex_common.h"

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

static int
is_sha_value(const char *v)
{
    return strncmp(v, "{SHA", 4) == 0 || strncmp(v, "{SSHA", 5) == 0;
}

/* FIPS 180-4 SHA-384 examples (NIST "SHA384.pdf", and the empty message). */
static void
test_sha384(void **state)
{
    static const struct {
        const char *msg, *hex;
    } kat[] = {
        {"", "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"},
        {"abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039"},
    };
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(kat); i++) {
        uint8_t want[KDF_SHA384_LEN], got[KDF_SHA512_LEN];
        struct kdf_md md;
        struct kdf_md_ctx c;
        size_t n = strlen(kat[i].msg);

        assert_int_equal(unhex(kat[i].hex, want, sizeof want), KDF_SHA384_LEN);
        assert_int_equal(kdf_md_bind_sha384(&md), KDF_OK);
        assert_int_equal(md.digest_len, KDF_SHA384_LEN);
        memset(got, 0xa5, sizeof got);
        /* In two pieces: the streaming path, not one block. */
        kdf_md_init(&c, &md);
        kdf_md_update(&c, kat[i].msg, n / 2);
        kdf_md_update(&c, kat[i].msg + n / 2, n - n / 2);
        kdf_md_final(&c, got);
        assert_memory_equal(got, want, sizeof want);
        /* Nothing written past 48 bytes. */
        assert_int_equal(got[KDF_SHA384_LEN], 0xa5);
    }
}

static void
test_vectors(void **state)
{
    struct kdf_policy pol;
    size_t n_sha = 0;
    (void)state;

    kdf_policy_default(&pol);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct vec *v = &vecs[i];
        char enc[KDF_MAX_HASH_STR + 1], b64[KDF_MAX_HASH_STR + 1], wrong[200];
        uint8_t salt[KDF_MAX_SALT], dig[KDF_MAX_DIGEST], blob[KDF_MAX_SALT + KDF_MAX_DIGEST];
        size_t sn = 0, dn = 0, en = 0;
        const char *why = NULL, *body;
        struct kdf_hash h;

        if (!is_sha_value(v->value))
            continue;
        n_sha++;
        if (kdf_parse(v->value, strlen(v->value), &h, &why) != KDF_OK)
            fail_msg("vector %zu (%s): %s", i, v->value, why);
        assert_int_equal(h.scheme, KDF_SCHEME_LDAP_SHA);
        assert_string_equal(kdf_hash_scheme_name(&h), "ldap-sha");
        if (kdf_verify_ex(v->pw, v->len, &h, &pol, NULL, 0) != KDF_OK)
            fail_msg("vector %zu (%s) does not verify", i, v->value);
        assert_true(v->len < sizeof wrong);
        memcpy(wrong, v->pw, v->len);
        wrong[v->len] = 'x';
        assert_int_equal(kdf_verify_ex(wrong, v->len + 1, &h, &pol, NULL, 0), KDF_MISMATCH);
        if (v->len > 0) {
            wrong[0] = (char)(wrong[0] ^ 1);
            assert_int_equal(kdf_verify_ex(wrong, v->len, &h, &pol, NULL, 0), KDF_MISMATCH);
        }
        assert_int_equal(kdf_encode(&h, enc, sizeof enc, &en), KDF_OK);
        assert_string_equal(enc, v->value);
        /* The joined blob splits at the digest length: digest || salt
         * encodes back to the body. */
        assert_int_equal(kdf_decode_digest(&h, dig, sizeof dig, &dn), KDF_OK);
        assert_int_equal(dn, h.dk_len);
        assert_int_equal(kdf_decode_salt(&h, salt, sizeof salt, &sn), KDF_OK);
        assert_int_equal(sn, h.salt_len);
        assert_int_equal(sn == 0, strncmp(v->value, "{SHA", 4) == 0);
        memcpy(blob, dig, dn);
        memcpy(blob + dn, salt, sn);
        assert_int_equal(kdf_b64_encode(KDF_B64_STD_PAD, blob, dn + sn, b64, sizeof b64, &en),
                         KDF_OK);
        body = strchr(v->value, '}') + 1;
        assert_string_equal(b64, body);
        /* Never a scheme of pam_unix's, of a directory family, or FIPS's. */
        assert_int_equal(kdf_hash_crypt_reads(&h), 0);
        assert_null(kdf_hash_ds_family(&h));
        assert_int_equal(kdf_hash_fips_approved(&h), 0);
    }
    /* Every form: {SHA}, {SSHA}, {SSHA256}, {SSHA512}, {SHA256},
     * {SHA384}, {SHA512}, {SSHA384} for each password. */
    assert_true(n_sha >= 5 * 8);
}

/* Outdated whatever the policy: not the target, on the accept list, under
 * a crypt(3) target; and never a target. */
static void
test_policy(void **state)
{
    static const char v[] = "{SSHA}SIDxyraqcjOXTN2fvS0P1ziuCx/mQ70Xy3C6xQ==";
    struct kdf_policy pol;
    struct kdf_target t;
    struct kdf_hash h;
    char err[200];
    (void)state;

    assert_int_equal(kdf_parse(v, sizeof v - 1, &h, NULL), KDF_OK);
    kdf_policy_default(&pol);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_LEGACY);
    assert_int_equal(kdf_policy_set(&pol, "accept", "ldap-sha", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_LEGACY);
    kdf_policy_default(&pol);
    assert_int_equal(kdf_target_parse("sha512crypt", &pol.target, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_LEGACY);

    err[0] = '\0';
    assert_int_not_equal(kdf_target_parse("ldap-sha", &t, err, sizeof err), KDF_OK);
    assert_non_null(strstr(err, "never written"));
    memset(&t, 0, sizeof t);
    t.scheme = KDF_SCHEME_LDAP_SHA;
    t.dk_len = 20;
    t.salt_len = 8;
    {
        char out[KDF_MAX_HASH_STR + 1];
        const char *why = NULL;
        assert_int_not_equal(kdf_hash(("pw"), 2, &t, out, sizeof out), KDF_OK);
        assert_int_not_equal(kdf_check_target(&t, &pol, &why), KDF_OK);
        assert_non_null(why);
    }
}

static void
test_malformed(void **state)
{
    static const char *const bad[] = {
        "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g",          /* padding missing */
        "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9h=",         /* trailing bits not zero */
        "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n",       /* 389-ds's stray newline */
        "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=W6ph",     /* digest and salt */
        "{SHA} W6ph5Mm5Pz8GgiULbPgzG37mj9g=",        /* space */
        "{SHA}W6ph5Mm5Pz8Ggi.LbPgzG37mj9g=",         /* not base64 */
        "{SHA256}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",      /* SHA-1's length */
        "{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",        /* no salt */
        "{SSHA}",                                    /* nothing */
        "{SHA}",
        "{SSHA512}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        "AAAAAAAAAAAA", /* 64-byte digest, 65-byte salt */
        "{ssha}ufw00FaLWIYjd7ph5XF2vAqqC+RxP6vIHQBaSg==", /* 389-ds writes upper case */
        "{Sha}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
        "{MD5}X03MO1qnZdYdgyfeuILPmQ==",
        "{SHA1}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
    };
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(bad); i++) {
        struct kdf_hash h;
        const char *why = NULL;
        enum kdf_status st = kdf_parse(bad[i], strlen(bad[i]), &h, &why);

        if (st == KDF_OK)
            fail_msg("accepted: %s", bad[i]);
        assert_true(st == KDF_MALFORMED || st == KDF_UNSUPPORTED);
        assert_non_null(why);
    }
    /* The 64-byte salt is the longest accepted. */
    {
        static const char ok[] =
            "{SSHA512}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
            "AAAAAAAAAAA=";
        struct kdf_hash h;
        assert_int_equal(kdf_parse(ok, sizeof ok - 1, &h, NULL), KDF_OK);
        assert_int_equal(h.salt_len, 64);
        assert_int_equal(h.dk_len, 64);
    }
}

/* The row's hash() with a given salt (what kdf_wrap_inner_hash() calls)
 * makes the vectors again, and describes them. */
static void
test_hash_again(void **state)
{
    const struct kdf_scheme_desc *row = kdf_scheme_row(KDF_SCHEME_LDAP_SHA);
    (void)state;

    assert_non_null(row);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct vec *v = &vecs[i];
        uint8_t salt[KDF_MAX_SALT];
        char out[KDF_MAX_HASH_STR + 1], d[160];
        struct kdf_target t = row->defaults;
        struct kdf_hash h;
        size_t sn = 0;

        if (!is_sha_value(v->value))
            continue;
        assert_int_equal(kdf_parse(v->value, strlen(v->value), &h, NULL), KDF_OK);
        assert_int_equal(kdf_decode_salt(&h, salt, sizeof salt, &sn), KDF_OK);
        t.dk_len = h.dk_len;
        t.salt_len = (uint32_t)sn;
        assert_int_equal(row->hash(v->pw, v->len, &t, NULL, salt, sn, out, sizeof out), KDF_OK);
        assert_string_equal(out, v->value);
        kdf_hash_describe(&h, KDF_DESC_FIELDS, d, sizeof d);
        assert_non_null(strstr(d, "scheme=ldap-sha"));
        {
            char form[32];
            snprintf(form, sizeof form, "form=%.*s ",
                     (int)(strchr(v->value, '}') + 1 - v->value), v->value);
            assert_non_null(strstr(d, form));
        }
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha384),    cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_policy),    cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_hash_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
