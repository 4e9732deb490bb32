/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_wrap.c - wrapped entries (core/scheme_wrapped.c): a legacy hash
 * hashed again at the target verifies the password the legacy hash did,
 * holds no legacy digest, is always outdated, and refuses what cannot be
 * wrapped.  Legacy hashes: the committed vectors of libxcrypt, passlib and
 * python3-bcrypt (the .inc files of tests/vectors).
 */
#include "kdf_prelude.h"
#include "kdf_scheme.h"

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
static const struct vec vecs[] = {
#include "vectors/legacy.inc"
#include "vectors/bcrypt.inc"
#include "vectors/pbkdf2.inc"
};
#undef KDF_VEC
/* 389-ds's values: the LDAP SHA ones are hash strings of the core. */
#define KDF_DSVEC(p, l, v) {p, l, v},
static const struct vec ds_vecs[] = {
#include "vectors/ldap_sha.inc"
};
#undef KDF_DSVEC

/* A cheap Argon2id target: the test is of the wrapping, not of Argon2. */
#define CHEAP "argon2id m=256,t=1,p=1"

static void
cheap_policy(struct kdf_policy *pol)
{
    char err[128];

    kdf_policy_default(pol);
    assert_int_equal(kdf_target_parse(CHEAP, &pol->target, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_set(pol, "min.argon2", "m=256,t=1,p=1", err, sizeof err),
                     KDF_OK);
}

static enum kdf_status
verify_str(const char *pw, size_t len, const char *s, const struct kdf_policy *pol)
{
    struct kdf_hash h;
    enum kdf_status st = kdf_parse(s, strlen(s), &h, NULL);

    return st != KDF_OK ? st : kdf_verify_ex(pw, len, &h, pol, NULL, 0);
}

/* The legacy digest: the last '$' field, or DES's last 11 characters. */
static const char *
legacy_digest(const char *s)
{
    const char *d = strrchr(s, '$');

    return d != NULL ? d + 1 : s + strlen(s) - 11;
}

/* Every vector of a scheme that libxcrypt or the core makes wraps; the
 * result parses as wrapped, verifies the right password (not a wrong one),
 * holds no copy of the legacy digest, is outdated as "wrapped", and reads
 * back byte for byte. */
static void
test_vectors(void **state)
{
    struct kdf_policy pol;
    size_t wrapped = 0, refused = 0, mismatches = 0;
    (void)state;

    cheap_policy(&pol);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct vec *v = &vecs[i];
        char out[KDF_MAX_HASH_STR + 1], enc[KDF_MAX_HASH_STR + 1], wrong[600];
        const char *why = NULL, *dig;
        struct kdf_hash h, in;
        size_t en = 0;
        enum kdf_status st;

        st = kdf_wrap(v->hash, strlen(v->hash), &pol.target, &pol, out, sizeof out, &why);
        if (st != KDF_OK) {
            /* What may be refused: settings that cannot stand alone, and
             * entries whose wrapped form would pass KDF_MAX_HASH_STR. */
            if (st != KDF_UNSUPPORTED && !(st == KDF_RANGE && strlen(v->hash) > 300))
                fail_msg("vector %zu (%s): %s", i, v->hash, why);
            assert_non_null(why);
            refused++;
            continue;
        }
        wrapped++;
        assert_int_equal(strncmp(out, "$kdfw$", 6), 0);
        assert_int_equal(kdf_parse(out, strlen(out), &h, NULL), KDF_OK);
        assert_int_equal(h.scheme, KDF_SCHEME_WRAPPED);
        assert_string_equal(kdf_hash_scheme_name(&h), "wrapped");
        assert_int_equal(kdf_encode(&h, enc, sizeof enc, &en), KDF_OK);
        assert_string_equal(enc, out);
        assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_WRAPPED);
        assert_int_equal(kdf_hash_crypt_reads(&h), 0);
        dig = legacy_digest(v->hash);
        if (strlen(dig) >= 8)
            assert_null(strstr(out, dig));
        assert_int_equal(kdf_wrapped_parts(&h, &in, NULL), KDF_OK);
        {
            struct kdf_hash orig;
            assert_int_equal(kdf_parse(v->hash, strlen(v->hash), &orig, NULL), KDF_OK);
            assert_string_equal(kdf_hash_scheme_name(&in), kdf_hash_scheme_name(&orig));
        }
        if (verify_str(v->pw, v->len, out, &pol) != KDF_OK)
            fail_msg("vector %zu (%s) does not verify wrapped", i, v->hash);
        /* The first byte changed, or one added to the empty password: the
         * wrapped entry answers as the legacy one does (a mismatch, but for
         * $2x$'s sign-extension bug, under which both match). */
        memcpy(wrong, v->pw, v->len);
        if (v->len == 0)
            wrong[0] = 'Z';
        else
            wrong[0] = (char)(wrong[0] ^ 1);
        if (verify_str(wrong, v->len == 0 ? 1 : v->len, out, &pol) !=
            verify_str(wrong, v->len == 0 ? 1 : v->len, v->hash, &pol))
            fail_msg("vector %zu (%s): a wrong password answers otherwise", i, v->hash);
        if (strncmp(v->hash, "$2x$", 4) != 0 &&
            verify_str(wrong, v->len == 0 ? 1 : v->len, out, &pol) != KDF_MISMATCH)
            fail_msg("vector %zu (%s): a wrong password verifies", i, v->hash);
        mismatches++;
    }
    print_message("wrapped %zu vectors, %zu refused, %zu compared\n", wrapped, refused,
                  mismatches);
    assert_true(wrapped >= 250);
}

/* The kinds an old /etc/shadow holds all wrap: md5crypt, DES, BSDi,
 * sha256crypt, sha512crypt, cost-5 bcrypt, PBKDF2 (passlib and Django). */
static void
test_kinds(void **state)
{
    static const struct {
        const char *pw, *hash;
    } k[] = {
        {"password1234", "$1$saltsalt$Esf4UW8VH5Hye.hp7EKud."},
        {"password1234", "abJnggxhB/yWI"},
        {"password1234", "_J9..efghozhWZW6RBiA"},
    };
    static const char *const prefixes[] = {"$1$", "$5$", "$6$", "$2a$05$", "$2b$",
                                           "$pbkdf2-sha256$", "$pbkdf2$"};
    struct kdf_policy pol;
    (void)state;

    cheap_policy(&pol);
    for (size_t i = 0; i < KDF_ARRAY_LEN(k); i++) {
        char out[KDF_MAX_HASH_STR + 1];
        const char *why = NULL;

        assert_int_equal(kdf_wrap(k[i].hash, strlen(k[i].hash), &pol.target, &pol, out,
                                  sizeof out, &why),
                         KDF_OK);
        assert_int_equal(verify_str(k[i].pw, strlen(k[i].pw), out, &pol), KDF_OK);
        assert_int_equal(verify_str("Password1234", 12, out, &pol), KDF_MISMATCH);
    }
    for (size_t p = 0; p < KDF_ARRAY_LEN(prefixes); p++) {
        int seen = 0;
        for (size_t i = 0; i < KDF_ARRAY_LEN(vecs) && !seen; i++) {
            char out[KDF_MAX_HASH_STR + 1];
            const char *why = NULL;

            if (strncmp(vecs[i].hash, prefixes[p], strlen(prefixes[p])) != 0)
                continue;
            if (kdf_wrap(vecs[i].hash, strlen(vecs[i].hash), &pol.target, &pol, out,
                         sizeof out, &why) != KDF_OK)
                fail_msg("%s: %s", vecs[i].hash, why);
            seen = 1;
        }
        if (!seen)
            print_message("no vector of %s here\n", prefixes[p]);
    }
}

/* The DES family never reads a whole password (8 bytes, 7 bits each):
 * a wrapped DES entry is never unwrapped at a login, as a direct one is
 * never upgraded.  md5crypt reads every byte: unwrapped. */
static void
test_reads_whole(void **state)
{
    struct kdf_policy pol;
    char des[KDF_MAX_HASH_STR + 1], md5[KDF_MAX_HASH_STR + 1];
    struct kdf_hash h;
    const char *why = NULL;
    (void)state;

    cheap_policy(&pol);
    assert_int_equal(kdf_wrap("abJnggxhB/yWI", 13, &pol.target, &pol, des, sizeof des, &why),
                     KDF_OK);
    assert_int_equal(kdf_wrap("$1$saltsalt$Esf4UW8VH5Hye.hp7EKud.", 34, &pol.target, &pol,
                              md5, sizeof md5, &why),
                     KDF_OK);
    assert_int_equal(kdf_parse(des, strlen(des), &h, NULL), KDF_OK);
    assert_int_equal(verify_str("password12XX", 12, des, &pol), KDF_OK); /* DES reads 8 */
    assert_int_equal(kdf_reads_whole_password("password1234", 12, &h), 0);
    assert_int_equal(kdf_parse(md5, strlen(md5), &h, NULL), KDF_OK);
    assert_int_equal(kdf_reads_whole_password("password1234", 12, &h), 1);
}

/* What cannot be wrapped is refused with a reason, never half done. */
static void
test_refusals(void **state)
{
    static const char md5[] = "$1$saltsalt$Esf4UW8VH5Hye.hp7EKud.";
    struct kdf_policy pol;
    struct kdf_target t;
    char out[KDF_MAX_HASH_STR + 1], twice[KDF_MAX_HASH_STR + 1], err[128];
    const char *why;
    (void)state;

    cheap_policy(&pol);
    why = NULL;
    assert_int_equal(kdf_wrap("!$1$x$y", 7, &pol.target, &pol, out, sizeof out, &why), KDF_RANGE);
    assert_non_null(why);
    assert_int_equal(kdf_wrap("", 0, &pol.target, &pol, out, sizeof out, &why), KDF_RANGE);
    assert_int_equal(kdf_wrap(md5, sizeof md5 - 1, &pol.target, &pol, out, sizeof out, &why),
                     KDF_OK);
    why = NULL;
    assert_int_equal(kdf_wrap(out, strlen(out), &pol.target, &pol, twice, sizeof twice, &why),
                     KDF_UNSUPPORTED);
    assert_string_equal(why, "already wrapped");
    /* bcrypt reads 72 bytes of its input: not an outer hash. */
    assert_int_equal(kdf_target_parse("bcrypt cost=4", &t, err, sizeof err), KDF_OK);
    why = NULL;
    assert_int_equal(kdf_wrap("$6$saltsalt$" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                              12 + 86, &t, &pol, out, sizeof out, &why),
                     KDF_UNSUPPORTED);
    assert_non_null(why);
    /* A libxcrypt target has no outer hash of ours. */
    assert_int_equal(kdf_target_parse("yescrypt", &t, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_wrap(md5, sizeof md5 - 1, &t, &pol, out, sizeof out, &why),
                     KDF_UNSUPPORTED);
    /* Too small a buffer: KDF_RANGE, nothing written. */
    assert_int_equal(kdf_wrap(md5, sizeof md5 - 1, &pol.target, &pol, out, 40, &why), KDF_RANGE);
    assert_int_equal(out[0], '\0');
}

/* The parser holds the format to its one spelling: a non-zero inner
 * digest (a legacy digest left in), a length that does not end the inner
 * hash, a second wrap, an outer of libxcrypt's. */
static void
test_parse_strict(void **state)
{
    static const char md5[] = "$1$saltsalt$Esf4UW8VH5Hye.hp7EKud.";
    struct kdf_policy pol;
    char out[KDF_MAX_HASH_STR + 1], bad[KDF_MAX_HASH_STR + 64];
    struct kdf_hash h;
    const char *why = NULL, *inner;
    (void)state;

    cheap_policy(&pol);
    assert_int_equal(kdf_wrap(md5, sizeof md5 - 1, &pol.target, &pol, out, sizeof out, &why),
                     KDF_OK);
    inner = strstr(out, "$1$saltsalt$");
    assert_non_null(inner);
    assert_int_equal(strncmp(out, "$kdfw$34$$1$saltsalt$......................$argon2id$", 53),
                     0);
    /* The legacy digest put back into the inner hash. */
    snprintf(bad, sizeof bad, "%s", out);
    memcpy(bad + (inner - out) + 12, "Esf4UW8VH5Hye.hp7EKud.", 22);
    assert_int_equal(kdf_parse(bad, strlen(bad), &h, &why), KDF_MALFORMED);
    /* A length one short or long, or with a leading zero. */
    snprintf(bad, sizeof bad, "$kdfw$33$%s", out + 9);
    assert_int_equal(kdf_parse(bad, strlen(bad), &h, &why), KDF_MALFORMED);
    snprintf(bad, sizeof bad, "$kdfw$35$%s", out + 9);
    assert_int_equal(kdf_parse(bad, strlen(bad), &h, &why), KDF_MALFORMED);
    snprintf(bad, sizeof bad, "$kdfw$034$%s", out + 9);
    assert_int_equal(kdf_parse(bad, strlen(bad), &h, &why), KDF_MALFORMED);
    /* An outer of libxcrypt's. */
    snprintf(bad, sizeof bad, "$kdfw$34$$1$saltsalt$......................%s", md5);
    assert_int_equal(kdf_parse(bad, strlen(bad), &h, &why), KDF_MALFORMED);
    /* Cut anywhere before the outer hash's digest: never a parse. */
    for (size_t n = 0; n < (size_t)(strrchr(out, '$') - out); n++)
        assert_int_not_equal(kdf_parse(out, n, &h, NULL) == KDF_OK && h.scheme ==
                                 KDF_SCHEME_WRAPPED,
                             1);
}

/* Under a pepper the outer hash is keyed: it verifies with the key and
 * not without it.  Under profile = fips the outer is PBKDF2. */
static enum kdf_status
one_key(void *ctx, const struct kdf_key_request *rq, uint8_t *key, size_t *key_len)
{
    (void)ctx;
    if (rq->id_len != 4 || memcmp(rq->id, "key1", 4) != 0)
        return KDF_NOKEY;
    memset(key, 0x5a, 32);
    *key_len = 32;
    return KDF_OK;
}

static void
test_keyed_and_fips(void **state)
{
    static const char md5[] = "$1$saltsalt$Esf4UW8VH5Hye.hp7EKud.";
    struct kdf_keyring kr = {one_key, NULL};
    struct kdf_policy pol;
    struct kdf_target t;
    char out[KDF_MAX_HASH_STR + 1], err[128];
    const char *why = NULL;
    (void)state;

    cheap_policy(&pol);
    pol.keys = &kr;
    memcpy(pol.pepper, "key1", 5);
    assert_int_equal(kdf_wrap(md5, sizeof md5 - 1, &pol.target, &pol, out, sizeof out, &why),
                     KDF_OK);
    assert_non_null(strstr(out, "keyid=key1"));
    assert_int_equal(verify_str("password1234", 12, out, &pol), KDF_OK);
    pol.keys = NULL;
    assert_int_equal(verify_str("password1234", 12, out, &pol), KDF_NOKEY);

    kdf_policy_default(&pol);
    assert_int_equal(kdf_target_parse("pbkdf2-sha512 i=1000,salt=16,len=64", &t, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_wrap(md5, sizeof md5 - 1, &t, &pol, out, sizeof out, &why), KDF_OK);
    assert_non_null(strstr(out, "$pbkdf2-sha512$"));
    assert_int_equal(verify_str("password1234", 12, out, &pol), KDF_OK);
    assert_int_equal(verify_str("password123", 11, out, &pol), KDF_MISMATCH);
}

/* 389-ds's {SHA*} and {SSHA*} values wrap: the wrapped entry verifies
 * the password (and not a wrong one), its inner setting is the value with
 * the digest's bits zero and the salt's kept, and no character run of the
 * value's blob long enough to hold a digest survives. */
static void
test_ldap_sha(void **state)
{
    struct kdf_policy pol;
    size_t wrapped = 0;
    (void)state;

    cheap_policy(&pol);
    for (size_t i = 0; i < KDF_ARRAY_LEN(ds_vecs); i++) {
        const struct vec *v = &ds_vecs[i];
        char out[KDF_MAX_HASH_STR + 1], wrong[200];
        uint8_t s1[KDF_MAX_SALT], s2[KDF_MAX_SALT], d[KDF_MAX_DIGEST];
        size_t n1 = 0, n2 = 0, dn = 0;
        const char *why = NULL;
        struct kdf_hash h, in, orig;

        if (strncmp(v->hash, "{SHA", 4) != 0 && strncmp(v->hash, "{SSHA", 5) != 0)
            continue;
        if (kdf_wrap(v->hash, strlen(v->hash), &pol.target, &pol, out, sizeof out, &why) !=
            KDF_OK)
            fail_msg("vector %zu (%s): %s", i, v->hash, why);
        wrapped++;
        assert_int_equal(kdf_parse(out, strlen(out), &h, NULL), KDF_OK);
        assert_int_equal(h.scheme, KDF_SCHEME_WRAPPED);
        assert_int_equal(kdf_wrapped_parts(&h, &in, NULL), KDF_OK);
        assert_string_equal(kdf_hash_scheme_name(&in), "ldap-sha");
        assert_int_equal(kdf_parse(v->hash, strlen(v->hash), &orig, NULL), KDF_OK);
        assert_int_equal(kdf_decode_salt(&orig, s1, sizeof s1, &n1), KDF_OK);
        assert_int_equal(kdf_decode_salt(&in, s2, sizeof s2, &n2), KDF_OK);
        assert_int_equal(n1, n2);
        assert_memory_equal(s1, s2, n1);
        assert_int_equal(kdf_decode_digest(&in, d, sizeof d, &dn), KDF_OK);
        assert_int_equal(dn, orig.dk_len);
        for (size_t k = 0; k < dn; k++)
            assert_int_equal(d[k], 0);
        /* The first 20 characters of the blob are digest bits alone. */
        {
            char run[21];
            memcpy(run, strchr(v->hash, '}') + 1, 20);
            run[20] = '\0';
            assert_null(strstr(out, run));
        }
        assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_WRAPPED);
        assert_int_equal(verify_str(v->pw, v->len, out, &pol), KDF_OK);
        memcpy(wrong, v->pw, v->len);
        wrong[v->len] = 'x';
        assert_int_equal(verify_str(wrong, v->len + 1, out, &pol), KDF_MISMATCH);
    }
    assert_true(wrapped >= 5 * 8);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),     cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_reads_whole), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_parse_strict), cmocka_unit_test(test_keyed_and_fips),
        cmocka_unit_test(test_ldap_sha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
