/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pepper.c - keyed Argon2 (a pepper) in the core: the known answers of
 * the reference implementation with a secret (tests/vectors/argon2_keyed.inc,
 * libargon2's argon2_ctx()), the same strings made again by kdf_hash_ex()
 * from their parts, a missing, short or wrong key, the stolen-file case
 * (the keyed entry and the right password, verified without the key), the
 * policy's pepper and the rehash reason it brings.
 */
#include "kdf_prelude.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hex_common.h"

struct keyvec {
    const char *pw;
    size_t len;
    const char *keyhex, *keyid, *hash;
};
#define KDF_KEYVEC(p, l, k, id, h) {p, l, k, id, h},
static const struct keyvec vecs[] = {
#include "vectors/argon2_keyed.inc"
};

/* A keyring of one key, or none: what the PAM module's key store does
 * with files, here in memory.  calls counts the lookups. */
struct ring {
    const char *id;
    uint8_t key[KDF_KEY_MAX];
    size_t len;
    unsigned calls;
};

static enum kdf_status
ring_get(void *ctx, const struct kdf_key_request *rq, uint8_t *key, size_t *key_len)
{
    struct ring *r = ctx;

    r->calls++;
    /* The request carries the salt a TPM key needs. */
    assert_non_null(rq->salt);
    assert_true(rq->salt_len >= 8);
    if (r->id == NULL || strlen(r->id) != rq->id_len || memcmp(r->id, rq->id, rq->id_len) != 0)
        return KDF_NOKEY;
    /* The buffer holds KDF_KEY_MAX bytes: a ring that reports more (the
     * test of an over-long answer) copies no more than that. */
    memcpy(key, r->key, r->len < KDF_KEY_MAX ? r->len : KDF_KEY_MAX);
    *key_len = r->len;
    return KDF_OK;
}

static void
ring_of(struct ring *r, const struct keyvec *v)
{
    memset(r, 0, sizeof *r);
    r->id = v->keyid;
    r->len = (size_t)unhex(v->keyhex, r->key, sizeof r->key);
    assert_true(r->len >= KDF_KEY_MIN);
}

static void
policy_with(struct kdf_policy *pol, struct kdf_keyring *kr, struct ring *r)
{
    kdf_policy_default(pol);
    kr->get = ring_get;
    kr->ctx = r;
    pol->keys = kr;
}

static enum kdf_status
verify(const char *pw, size_t len, const char *hash, const struct kdf_policy *pol)
{
    struct kdf_hash h;
    enum kdf_status st = kdf_parse(hash, strlen(hash), &h, NULL);

    if (st != KDF_OK)
        return st;
    return kdf_verify_ex(pw, len, &h, pol, NULL, 0);
}

static void
test_known_answers(void **state)
{
    struct kdf_policy pol;
    struct kdf_keyring kr;
    struct ring r;
    (void)state;

    assert_true(KDF_ARRAY_LEN(vecs) >= 20);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct keyvec *v = &vecs[i];

        ring_of(&r, v);
        policy_with(&pol, &kr, &r);
        assert_int_equal(verify(v->pw, v->len, v->hash, &pol), KDF_OK);
        assert_int_equal(r.calls, 1);
        /* One bit of the key changed: the same string no longer verifies. */
        r.key[i % r.len] ^= 0x01;
        assert_int_equal(verify(v->pw, v->len, v->hash, &pol), KDF_MISMATCH);
        r.key[i % r.len] ^= 0x01;
        /* The wrong password with the right key. */
        assert_int_equal(verify("x", 1, v->hash, &pol), KDF_MISMATCH);
    }
}

/* The stolen file: the keyed entry with the right password, but without
 * the key (the keyid= removed, so that the core computes it unkeyed),
 * does not match; with keyid= kept and no keyring it is not even tried. */
static void
test_stolen_file(void **state)
{
    struct kdf_policy pol;
    (void)state;

    kdf_policy_default(&pol);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct keyvec *v = &vecs[i];
        char unkeyed[KDF_MAX_HASH_STR];
        const char *k = strstr(v->hash, ",keyid=");
        const char *end = k != NULL ? strchr(k + 1, '$') : NULL;

        assert_non_null(end);
        snprintf(unkeyed, sizeof unkeyed, "%.*s%s", (int)(k - v->hash), v->hash, end);
        assert_null(strstr(unkeyed, "keyid"));
        assert_int_equal(verify(v->pw, v->len, unkeyed, &pol), KDF_MISMATCH);
        assert_int_equal(verify(v->pw, v->len, v->hash, &pol), KDF_NOKEY);
        assert_int_equal(verify(v->pw, v->len, v->hash, NULL), KDF_NOKEY);
    }
}

/* A keyring that lacks the key, or hands back fewer than 256 bits or more
 * than KDF_KEY_MAX: never verified, never a fallback to no key. */
static void
test_missing_and_short_keys(void **state)
{
    const struct keyvec *v = &vecs[0];
    struct kdf_policy pol;
    struct kdf_keyring kr;
    struct ring r;
    (void)state;

    ring_of(&r, v);
    policy_with(&pol, &kr, &r);
    r.id = "Other123";
    assert_int_equal(verify(v->pw, v->len, v->hash, &pol), KDF_NOKEY);
    ring_of(&r, v);
    r.len = KDF_KEY_MIN - 1;
    assert_int_equal(verify(v->pw, v->len, v->hash, &pol), KDF_NOKEY);
    r.len = KDF_KEY_MAX + 1;
    assert_int_equal(verify(v->pw, v->len, v->hash, &pol), KDF_NOKEY);
    kr.get = NULL;
    assert_int_equal(verify(v->pw, v->len, v->hash, &pol), KDF_NOKEY);
    assert_non_null(strstr(kdf_status_str(KDF_NOKEY), "key"));
}

/* kdf_hash_ex() with the policy's pepper makes the very strings of the
 * reference: the same parameters, salt and key give the same bytes. */
static void
test_hash_keyed(void **state)
{
    struct kdf_policy pol;
    struct kdf_keyring kr;
    struct ring r;
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct keyvec *v = &vecs[i];
        struct kdf_hash h;
        struct kdf_target t;
        uint8_t salt[64], tag[64];
        size_t salt_len = 0, tag_len = 0;
        char out[KDF_MAX_HASH_STR];

        ring_of(&r, v);
        policy_with(&pol, &kr, &r);
        assert_int_equal(kdf_parse(v->hash, strlen(v->hash), &h, NULL), KDF_OK);
        assert_int_equal(kdf_decode_salt(&h, salt, sizeof salt, &salt_len), KDF_OK);
        assert_int_equal(kdf_decode_digest(&h, tag, sizeof tag, &tag_len), KDF_OK);
        memset(&t, 0, sizeof t);
        t.scheme = h.scheme;
        t.version = h.version;
        t.cost = h.cost;
        t.m_kib = h.m_kib;
        t.lanes = h.lanes;
        t.salt_len = (uint32_t)salt_len;
        t.dk_len = (uint32_t)tag_len;
        pol.target = t;
        memcpy(pol.pepper, v->keyid, strlen(v->keyid) + 1);
        assert_int_equal(kdf_hash_ex(v->pw, v->len, &t, &pol, salt, salt_len, out, sizeof out),
                         KDF_OK);
        assert_string_equal(out, v->hash);
        /* No key at hand: nothing is made, not even an unkeyed hash. */
        r.id = NULL;
        out[0] = 'x';
        assert_int_equal(kdf_hash_ex(v->pw, v->len, &t, &pol, salt, salt_len, out, sizeof out),
                         KDF_NOKEY);
        assert_null(strstr(out, "$argon2"));
    }
    /* A fresh salt: keyed, names the key, verifies with it only. */
    ring_of(&r, &vecs[0]);
    policy_with(&pol, &kr, &r);
    memcpy(pol.pepper, vecs[0].keyid, strlen(vecs[0].keyid) + 1);
    pol.target.m_kib = 64;
    pol.target.cost = 1;
    pol.target.lanes = 1;
    {
        char out[KDF_MAX_HASH_STR], want[32];

        assert_int_equal(kdf_hash_ex("pw", 2, &pol.target, &pol, NULL, 0, out, sizeof out),
                         KDF_OK);
        snprintf(want, sizeof want, ",keyid=%s$", vecs[0].keyid);
        assert_non_null(strstr(out, want));
        assert_int_equal(verify("pw", 2, out, &pol), KDF_OK);
        r.key[0] ^= 1;
        assert_int_equal(verify("pw", 2, out, &pol), KDF_MISMATCH);
    }
}

static void
test_keyid_grammar(void **state)
{
    (void)state;
    assert_true(kdf_keyid_valid("5ykChnXa", 8));
    assert_true(kdf_keyid_valid("AA", 2));        /* one byte */
    assert_true(kdf_keyid_valid("AAAAAAAAAAA", 11)); /* eight bytes */
    assert_false(kdf_keyid_valid("A", 1));
    assert_false(kdf_keyid_valid("AB", 2)); /* spare bits set: not canonical */
    assert_false(kdf_keyid_valid("AAAAAAAAAAAA", 12));
    assert_false(kdf_keyid_valid("ab/c", 4)); /* a path */
    assert_false(kdf_keyid_valid("ab+c", 4));
    assert_false(kdf_keyid_valid("ab.c", 4));
    assert_false(kdf_keyid_valid(NULL, 0));
}

/* A pepper goes with a target that can take a key only: the others are
 * refused before any work, never made unkeyed. */
static void
test_pepper_target(void **state)
{
    struct kdf_policy pol;
    struct kdf_keyring kr;
    struct ring r;
    const char *why = NULL;
    char out[KDF_MAX_HASH_STR], err[256];
    (void)state;

    ring_of(&r, &vecs[0]);
    policy_with(&pol, &kr, &r);
    memcpy(pol.pepper, vecs[0].keyid, strlen(vecs[0].keyid) + 1);
    assert_int_equal(kdf_check_target(&pol.target, &pol, &why), KDF_OK);
    assert_int_equal(kdf_policy_set(&pol, "target", "argon2i m=65536,t=3,p=4", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_check_target(&pol.target, &pol, &why), KDF_OK);
    for (const char *const *t = (const char *const[]){"bcrypt cost=4", "pbkdf2-sha256 i=1000",
                                                       "scrypt", NULL};
         *t != NULL; t++) {
        struct kdf_target tg;

        assert_int_equal(kdf_target_parse(*t, &tg, err, sizeof err), KDF_OK);
        why = NULL;
        assert_int_equal(kdf_check_target(&tg, &pol, &why), KDF_RANGE);
        assert_non_null(why);
        assert_non_null(strstr(why, "pepper"));
        assert_int_equal(kdf_hash_ex("pw", 2, &tg, &pol, NULL, 0, out, sizeof out), KDF_RANGE);
    }
}

static enum kdf_rehash
rehash_of(const char *hash, const struct kdf_policy *pol)
{
    struct kdf_hash h;

    assert_int_equal(kdf_parse(hash, strlen(hash), &h, NULL), KDF_OK);
    return kdf_needs_rehash(&h, pol);
}

static void
test_rehash(void **state)
{
    struct kdf_policy pol;
    char err[256];
    /* At the default target (m=65536,t=3,p=4), keyed and not. */
    const char *plain = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$"
                        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const char *keyed_a = "$argon2id$v=19$m=65536,t=3,p=4,keyid=5ykChnXa$c2FsdHNhbHRzYWx0c2FsdA$"
                          "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const char *keyed_b = "$argon2id$v=19$m=65536,t=3,p=4,keyid=GwDiJY9i$c2FsdHNhbHRzYWx0c2FsdA$"
                          "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const char *stronger = "$argon2id$v=19$m=262144,t=4,p=4$c2FsdHNhbHRzYWx0c2FsdA$"
                           "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    const char *bcrypt = "$2b$12$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";
    (void)state;

    kdf_policy_default(&pol);
    assert_int_equal(rehash_of(plain, &pol), KDF_REHASH_NO);
    assert_int_equal(rehash_of(keyed_a, &pol), KDF_REHASH_NO); /* no pepper: kept */
    memcpy(pol.pepper, "5ykChnXa", sizeof "5ykChnXa");
    assert_int_equal(rehash_of(plain, &pol), KDF_REHASH_PEPPER);
    assert_int_equal(rehash_of(stronger, &pol), KDF_REHASH_PEPPER);
    assert_int_equal(rehash_of(keyed_b, &pol), KDF_REHASH_PEPPER);
    assert_int_equal(rehash_of(keyed_a, &pol), KDF_REHASH_NO);
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_PEPPER), "pepper");
    /* An accepted scheme cannot carry the key: it moves too. */
    assert_int_equal(kdf_policy_set(&pol, "accept", "bcrypt", err, sizeof err), KDF_OK);
    assert_int_equal(rehash_of(bcrypt, &pol), KDF_REHASH_PEPPER);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_stolen_file),
        cmocka_unit_test(test_missing_and_short_keys),
        cmocka_unit_test(test_hash_keyed),
        cmocka_unit_test(test_keyid_grammar),
        cmocka_unit_test(test_pepper_target),
        cmocka_unit_test(test_rehash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
