/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_scrypt.c - the scrypt scheme end to end: RFC 7914 section 12's test
 * vectors for the function, passlib's strings (tests/vectors/scrypt.inc,
 * cross-checked there with hashlib.scrypt) for the scheme, the grammar's
 * refusals, the caps before any work, the rehash rules and the target.
 */
#include "kdf_prelude.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "alg_scrypt.h"
#include "hex_common.h"

struct vec {
    const char *pw;
    size_t len;
    const char *hash;
};
#define KDF_VEC(p, l, h) {p, l, h},
static const struct vec vecs[] = {
#include "vectors/scrypt.inc"
};

/* RFC 7914 section 12 (the two that take at most 16 MiB). */
static void
test_rfc7914(void **state)
{
    static const struct {
        const char *pw, *salt;
        uint32_t ln, r, p;
        const char *hex;
    } rfc[] = {
        {"", "", 4, 1, 1,
         "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
         "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"},
        {"password", "NaCl", 10, 8, 16,
         "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
         "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"},
    };
    uint8_t out[64], want[64];
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(rfc); i++) {
        assert_int_equal(unhex(rfc[i].hex, want, sizeof want), 64);
        assert_int_equal(kdf_scrypt((const uint8_t *)rfc[i].pw, strlen(rfc[i].pw),
                                    (const uint8_t *)rfc[i].salt, strlen(rfc[i].salt),
                                    rfc[i].ln, rfc[i].r, rfc[i].p, out, sizeof out,
                                    KDF_MEMGATE_OFF, 0, 0),
                         KDF_OK);
        assert_memory_equal(out, want, 64);
    }
    /* Outside RFC 7914 section 2: N >= 2^(16 r), r p >= 2^30, no output. */
    assert_int_equal(kdf_scrypt((const uint8_t *)"x", 1, NULL, 0, 16, 1, 1, out, 32,
                                KDF_MEMGATE_OFF, 0, 0),
                     KDF_RANGE);
    assert_int_equal(kdf_scrypt((const uint8_t *)"x", 1, NULL, 0, 4, 1u << 15, 1u << 15, out,
                                32, KDF_MEMGATE_OFF, 0, 0),
                     KDF_RANGE);
    assert_int_equal(kdf_scrypt((const uint8_t *)"x", 1, NULL, 0, 4, 1, 1, out, 0,
                                KDF_MEMGATE_OFF, 0, 0),
                     KDF_RANGE);
}

/* Every passlib string verifies, a changed password does not, the parse
 * round-trips, and hashing again with the same salt gives the same string. */
static void
test_passlib_vectors(void **state)
{
    char out[KDF_MAX_HASH_STR + 1], wrong[512];
    (void)state;

    assert_true(KDF_ARRAY_LEN(vecs) >= 20);
    for (size_t i = 0; i < KDF_ARRAY_LEN(vecs); i++) {
        const struct vec *v = &vecs[i];
        struct kdf_hash h;
        struct kdf_target t;
        uint8_t salt[KDF_MAX_SALT];
        size_t n = 0, sl = 0;

        assert_int_equal(kdf_parse(v->hash, strlen(v->hash), &h, NULL), KDF_OK);
        assert_int_equal(h.scheme, KDF_SCHEME_SCRYPT);
        assert_int_equal(kdf_encode(&h, out, sizeof out, &n), KDF_OK);
        assert_string_equal(out, v->hash);
        assert_int_equal(kdf_verify(v->pw, v->len, v->hash, strlen(v->hash)), KDF_OK);
        assert_true(v->len < sizeof wrong);
        memcpy(wrong, v->pw, v->len);
        wrong[v->len] = 'x';
        assert_int_equal(kdf_verify(wrong, v->len + 1, v->hash, strlen(v->hash)),
                         KDF_MISMATCH);
        /* The same salt and parameters through kdf_hash_salt(). */
        assert_int_equal(kdf_decode_salt(&h, salt, sizeof salt, &sl), KDF_OK);
        if (sl < 8)
            continue; /* targets want 8 bytes of salt; passlib allows fewer */
        memset(&t, 0, sizeof t);
        t.scheme = KDF_SCHEME_SCRYPT;
        t.cost = h.cost;
        t.block_size = h.block_size;
        t.lanes = h.lanes;
        t.salt_len = (uint32_t)sl;
        t.dk_len = 32;
        assert_int_equal(kdf_hash_salt(v->pw, v->len, &t, salt, sl, out, sizeof out), KDF_OK);
        assert_string_equal(out, v->hash);
    }
}

static void
test_grammar(void **state)
{
    static const struct {
        const char *s;
        enum kdf_status st;
    } bad[] = {
        {"$scrypt$ln=4,r=8,p=1$c2FsdA$", KDF_MALFORMED},
        {"$scrypt$ln=4,r=8$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$r=8,ln=4,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=04,r=8,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=0,r=8,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=32,r=8,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=16,r=1,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=4,r=0,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=4,r=8,p=0$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=4,r=65536,p=16384$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo",
         KDF_MALFORMED},
        {"$scrypt$ln=4,r=8,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJ", KDF_MALFORMED},
        {"$scrypt$ln=4,r=8,p=1$c2FsdA=$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo", KDF_MALFORMED},
        {"$scrypt$ln=4,r=8,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo$", KDF_MALFORMED},
        {"$scrypt$ln=4,r=8,p=1,x=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo",
         KDF_MALFORMED},
    };
    struct kdf_hash h;
    const char *why = NULL;
    (void)state;

    for (size_t i = 0; i < KDF_ARRAY_LEN(bad); i++) {
        enum kdf_status st = kdf_parse(bad[i].s, strlen(bad[i].s), &h, &why);
        if (st != bad[i].st)
            fail_msg("'%s': %s (%s)", bad[i].s, kdf_status_str(st), why ? why : "-");
        assert_non_null(why);
    }
}

/* Memory and traffic against max.argon2's m and m*t, before any work: a
 * 2^31 r=2^20 entry is refused at once, not mapped. */
static void
test_caps(void **state)
{
    const char *huge = "$scrypt$ln=31,r=1048576,p=1$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo";
    const char *wide = "$scrypt$ln=14,r=8,p=4000$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo";
    /* N = 4, r = 1, p = 2^22: 512 MiB of PBKDF2 output, seconds of work */
    const char *tiny_n = "$scrypt$ln=2,r=1,p=4194304$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo";
    /* 16 chains over 576 MiB */
    const char *long_ = "$scrypt$ln=19,r=9,p=16$c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo";
    struct kdf_policy pol;
    struct kdf_hash h;
    struct kdf_target t;
    const char *why = NULL;
    (void)state;

    kdf_policy_default(&pol);
    assert_int_equal(kdf_parse(huge, strlen(huge), &h, NULL), KDF_OK);
    assert_int_equal(kdf_check_caps(&h, 1, &pol, &why), KDF_TOO_COSTLY);
    assert_non_null(strstr(why, "scrypt memory"));
    assert_int_equal(kdf_verify_ex("x", 1, &h, &pol, NULL, 0), KDF_TOO_COSTLY);
    assert_int_equal(kdf_parse(wide, strlen(wide), &h, NULL), KDF_OK);
    assert_int_equal(kdf_check_caps(&h, 1, &pol, &why), KDF_TOO_COSTLY);
    assert_non_null(strstr(why, "scrypt p above"));
    assert_int_equal(kdf_parse(tiny_n, strlen(tiny_n), &h, NULL), KDF_OK);
    assert_int_equal(kdf_check_caps(&h, 1, &pol, &why), KDF_TOO_COSTLY);
    assert_non_null(strstr(why, "scrypt p above"));
    assert_int_equal(kdf_verify_ex("x", 1, &h, &pol, NULL, 0), KDF_TOO_COSTLY);
    assert_int_equal(kdf_parse(long_, strlen(long_), &h, NULL), KDF_OK);
    assert_int_equal(kdf_check_caps(&h, 1, &pol, &why), KDF_TOO_COSTLY);
    assert_non_null(strstr(why, "scrypt work"));
    /* The same caps for a target. */
    assert_int_equal(kdf_target_parse("scrypt ln=20,r=8,p=1", &t, NULL, 0), KDF_OK);
    *kdf_policy_bound(&pol, "max.memory-hard", 0) = 65536;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_TOO_COSTLY);
}

/* Not the target: rewritten at login; the target: judged by memory and
 * traffic, never rewritten to something weaker. */
static void
test_rehash(void **state)
{
    struct kdf_policy pol;
    struct kdf_hash h;
    char buf[KDF_MAX_HASH_STR + 1];
    (void)state;

    kdf_policy_default(&pol);
    assert_int_equal(kdf_parse(vecs[0].hash, strlen(vecs[0].hash), &h, NULL), KDF_OK);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_OTHER_SCHEME);
    assert_int_equal(kdf_policy_set(&pol, "accept", "scrypt", NULL, 0), KDF_OK);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_NO);
    assert_int_equal(kdf_policy_set(&pol, "target", "scrypt ln=4,r=8,p=1", NULL, 0), KDF_OK);
    {
        const char *low = "$scrypt$ln=3,r=8,p=1$c2FsdHNhbHQ$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo";
        const char *high = "$scrypt$ln=5,r=8,p=1$c2FsdHNhbHQ$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo";
        const char *narrow = "$scrypt$ln=5,r=2,p=1$c2FsdHNhbHQ$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo";
        assert_int_equal(kdf_parse(low, strlen(low), &h, NULL), KDF_OK);
        assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_TOO_CHEAP);
        assert_int_equal(kdf_parse(high, strlen(high), &h, NULL), KDF_OK);
        assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_NO);
        assert_int_equal(kdf_parse(narrow, strlen(narrow), &h, NULL), KDF_OK);
        assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_TOO_CHEAP);
    }
    /* The module's timing dummy for a scrypt target parses as scrypt. */
    assert_int_equal(kdf_dummy_hash(&pol.target, buf, sizeof buf, &h), KDF_OK);
    assert_int_equal(h.scheme, KDF_SCHEME_SCRYPT);
    assert_int_equal(h.cost, 4);
    assert_int_equal(kdf_verify_ex("pw", 2, &h, &pol, NULL, 0), KDF_MISMATCH);
    /* A new hash at the target verifies and is at the target. */
    assert_int_equal(kdf_hash_ex("pw", 2, &pol.target, &pol, NULL, 0, buf, sizeof buf), KDF_OK);
    assert_int_equal(kdf_verify("pw", 2, buf, strlen(buf)), KDF_OK);
    assert_int_equal(kdf_parse(buf, strlen(buf), &h, NULL), KDF_OK);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_NO);
    kdf_hash_describe(&h, KDF_DESC_PARAMS, buf, sizeof buf);
    assert_string_equal(buf, "ln=4,r=8,p=1");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc7914),      cmocka_unit_test(test_passlib_vectors),
        cmocka_unit_test(test_grammar),      cmocka_unit_test(test_caps),
        cmocka_unit_test(test_rehash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
