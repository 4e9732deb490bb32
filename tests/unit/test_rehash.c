/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rehash.c - kdf_needs_rehash, kdf_check_caps and kdf_check_target
 * (core/api_rehash.c) on real hash strings parsed by kdf_parse().
 *
 * The salts and digests come from tests/vectors (passlib, argon2-cffi,
 * pyca bcrypt, libxcrypt); only the cost fields are substituted.  Expected
 * answers restate doc/DESIGN.md "Policy" by hand; the grids restate the
 * no-downgrade rule independently of the code, and a random property test
 * checks that generator and verifier share the caps.  The allocation
 * counter (testlib/alloc_count.h) is read around every call under test.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alloc_count.h"
#include "hex_common.h"
#include "kdfhash.h"

/* ---- hash strings with real salts and digests ---------------------------- */
#define BCRYPT_TAIL "ThDBn9h5HLJcSv5/8KaWfOOOQBxN4lAA8BvxJd8cGkBTHCyGwkgk2"
#define ARGON2_TAIL "c29tZXNhbHQ$KSleBEFIXKW3PQ79oIN6Dg"
#define P256_PASSLIB_TAIL "7YlR4Z/vtIY$FKRWWsFWcyaHDeEiTjlrjwUhE5edG95QEVikkqZgERU"
#define P512_PASSLIB_TAIL                                                                  \
    "PSZWD.69KhY$qTuMkaiTp.otVwIUzpAv/aNahhwc/Vujf1Ct2SsqvI7BbczoVIUodzATlkNbRWwtOvW4DQyFq5" \
    "Sgb5JQ4vcafQ"
#define P1_PASSLIB_TAIL "SYds0fU$UnQAe0BShmRN65xY9Rpnfq/Tlrs"
#define P256_PHC_TAIL "a2RmaGFzaC1yZWhhc2gxNg$8/oP3XGlmE43hAc7oA5zL7uDzHzmxSOrJVIhJBvTH7w"
#define P256_DJANGO_TAIL "kdfhashRehash$gHUQ9//C6VifvnmlbOXZMrpP+KEuHl6ue680SRxfpYU="
#define SHA512CRYPT                                                                        \
    "$6$Mkw6HywJPaTQNIgV$3lKFWacfi89oJhyzxyyjkI2FeKPUNDEuYLQggjumff2Dl6l.nsa6Tb7ceM7KT.s9Bm" \
    "BEoZ2CxdDXKxMJtJHzK1"
#define YESCRYPT "$y$j75$McEby5RRjJYYxPnKOyiY5/$9yY9rrc8xZaQ7rmw//l6sm16KrZMzxOXkn6hRW02Ht2"
#define YES_TAIL "$/cK89vL.8.c5fP3l5Nnht.$1WVnfYY/LXG4pSOn51JoLOd5wrMfOOL/NYYplx2EYT5"
#define SCRYPT_TAIL "PUXRFQVL1yTeSXfTydZux0$NWJXHeyZhakpcr5YSqTqLQux6ep1VtHUBq4.WSzOBt6"
#define MD5CRYPT "$1$krez7rD6$8gfCCLNnYjrC.5sMNlN/Z."

static char *
fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *
fmt(const char *f, ...)
{
    static char bufs[256][256]; /* rows hold many at once */
    static unsigned i;
    char *b = bufs[i++ % 256];
    va_list ap;

    va_start(ap, f);
    vsnprintf(b, sizeof bufs[0], f, ap);
    va_end(ap);
    return b;
}

static const char *
bcrypt_str(char minor, unsigned cost)
{
    return fmt("$2%c$%02u$" BCRYPT_TAIL, minor, cost);
}

static const char *
argon2_str(const char *type, unsigned v, uint32_t m, uint32_t t, uint32_t p)
{
    if (v == 0)
        return fmt("$%s$m=%u,t=%u,p=%u$" ARGON2_TAIL, type, m, t, p);
    return fmt("$%s$v=%u$m=%u,t=%u,p=%u$" ARGON2_TAIL, type, v, m, t, p);
}

static void
parse_ok(const char *s, struct kdf_hash *h)
{
    const char *why = NULL;
    if (kdf_parse(s, strlen(s), h, &why) != KDF_OK)
        fail_msg("kdf_parse refused '%s': %s", s, why ? why : "?");
}

/* ---- policies ------------------------------------------------------------ */
enum pol_id {
    P_DEFAULT,
    P_BCRYPT12,
    P_BCRYPT10,      /* target below min.bcrypt */
    P_PBKDF2,        /* pbkdf2-sha256 i=600000 */
    P_ACC_BCRYPT,    /* default target, bcrypt accepted */
    P_ACC_ARGON2I,   /* default target, argon2i accepted */
    P_ACC_SHA,       /* pbkdf2-sha256 target, sha1 and sha512 accepted */
    P_BCRYPT_ACC_ID, /* bcrypt target, argon2id accepted */
    P_LOW_ARGON2,    /* argon2id m=8192,t=1,p=1: below min.argon2 */
};

static void
make_policy(enum pol_id id, struct kdf_policy *p)
{
    char err[200];
    enum kdf_status st = KDF_OK;

    kdf_policy_default(p);
    /* The tables judge costs; the vectors' salts are as short as their
     * authors chose.  test_pbkdf2_lengths judges salts and digests. */
    *kdf_policy_bound(p, "min.pbkdf2-salt", 0) = 1;
    switch (id) {
    case P_DEFAULT:
        break;
    case P_BCRYPT12:
        st = kdf_policy_set(p, "target", "bcrypt cost=12", err, sizeof err);
        break;
    case P_BCRYPT10:
        st = kdf_policy_set(p, "target", "bcrypt cost=10", err, sizeof err);
        break;
    case P_PBKDF2:
        st = kdf_policy_set(p, "target", "pbkdf2-sha256 i=600000", err, sizeof err);
        break;
    case P_ACC_BCRYPT:
        st = kdf_policy_set(p, "accept", "bcrypt", err, sizeof err);
        break;
    case P_ACC_ARGON2I:
        st = kdf_policy_set(p, "accept", "argon2i", err, sizeof err);
        break;
    case P_ACC_SHA:
        st = kdf_policy_set(p, "target", "pbkdf2-sha256", err, sizeof err);
        if (st == KDF_OK)
            st = kdf_policy_set(p, "accept", "pbkdf2-sha1 pbkdf2-sha512", err, sizeof err);
        break;
    case P_BCRYPT_ACC_ID:
        st = kdf_policy_set(p, "target", "bcrypt", err, sizeof err);
        if (st == KDF_OK)
            st = kdf_policy_set(p, "accept", "argon2id", err, sizeof err);
        break;
    case P_LOW_ARGON2:
        st = kdf_policy_set(p, "target", "argon2id m=8192,t=1,p=1", err, sizeof err);
        break;
    }
    if (st != KDF_OK)
        fail_msg("policy %d: %s", (int)id, err);
}

struct rehash_row {
    const char *hash;
    enum pol_id pol;
    enum kdf_rehash want;
};

static void
test_rehash_table(void **state)
{
    const struct rehash_row rows[] = {
        /* empty, locked, legacy */
        {"", P_DEFAULT, KDF_REHASH_NO},
        {"!", P_DEFAULT, KDF_REHASH_NO},
        {"*", P_DEFAULT, KDF_REHASH_NO},
        {"!" SHA512CRYPT, P_DEFAULT, KDF_REHASH_NO},
        {"!$2b$12$" BCRYPT_TAIL, P_BCRYPT12, KDF_REHASH_NO},
        {SHA512CRYPT, P_DEFAULT, KDF_REHASH_LEGACY},
        {SHA512CRYPT, P_ACC_BCRYPT, KDF_REHASH_LEGACY},
        {YESCRYPT, P_BCRYPT12, KDF_REHASH_LEGACY},
        {MD5CRYPT, P_PBKDF2, KDF_REHASH_LEGACY},
        /* bcrypt */
        {bcrypt_str('x', 12), P_BCRYPT12, KDF_REHASH_BUGGY},
        {bcrypt_str('x', 31), P_BCRYPT12, KDF_REHASH_BUGGY},
        {bcrypt_str('x', 12), P_DEFAULT, KDF_REHASH_BUGGY},
        {bcrypt_str('x', 12), P_ACC_BCRYPT, KDF_REHASH_BUGGY},
        {bcrypt_str('b', 12), P_DEFAULT, KDF_REHASH_OTHER_SCHEME},
        {bcrypt_str('b', 16), P_DEFAULT, KDF_REHASH_OTHER_SCHEME},
        {bcrypt_str('b', 12), P_BCRYPT12, KDF_REHASH_NO},
        {bcrypt_str('a', 12), P_BCRYPT12, KDF_REHASH_NO},
        {bcrypt_str('y', 13), P_BCRYPT12, KDF_REHASH_NO},
        {bcrypt_str('b', 11), P_BCRYPT12, KDF_REHASH_TOO_CHEAP},
        {bcrypt_str('a', 4), P_BCRYPT12, KDF_REHASH_TOO_CHEAP},
        {bcrypt_str('b', 10), P_BCRYPT10, KDF_REHASH_NO}, /* target beats min */
        {bcrypt_str('b', 11), P_BCRYPT10, KDF_REHASH_NO},
        {bcrypt_str('b', 9), P_BCRYPT10, KDF_REHASH_TOO_CHEAP},
        {bcrypt_str('b', 12), P_ACC_BCRYPT, KDF_REHASH_NO},
        {bcrypt_str('b', 11), P_ACC_BCRYPT, KDF_REHASH_TOO_CHEAP},
        /* Argon2id against the default target m=65536,t=3,p=4 */
        {argon2_str("argon2id", 19, 65536, 3, 4), P_DEFAULT, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 65536, 3, 1), P_DEFAULT, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 262144, 3, 16), P_DEFAULT, KDF_REHASH_NO}, /* 4x */
        {argon2_str("argon2id", 19, 1048576, 16, 16), P_DEFAULT, KDF_REHASH_HEAVY},
        {argon2_str("argon2id", 19, 65536, 2, 4), P_DEFAULT, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2id", 19, 65535, 3, 4), P_DEFAULT, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2id", 19, 131072, 2, 1), P_DEFAULT, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 131072, 1, 1), P_DEFAULT, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2id", 19, 16384, 20, 1), P_DEFAULT, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2id", 19, 32768, 6, 1), P_DEFAULT, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2id", 19, 32768, 7, 1), P_DEFAULT, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 19456, 2, 1), P_DEFAULT, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2id", 19, 8, 1, 1), P_DEFAULT, KDF_REHASH_TOO_CHEAP},
        /* version 0x10, written or implied */
        {argon2_str("argon2id", 16, 65536, 3, 4), P_DEFAULT, KDF_REHASH_OLD_VERSION},
        {argon2_str("argon2id", 0, 65536, 3, 4), P_DEFAULT, KDF_REHASH_OLD_VERSION},
        {argon2_str("argon2i", 16, 65536, 3, 4), P_DEFAULT, KDF_REHASH_OLD_VERSION},
        {argon2_str("argon2id", 16, 65536, 3, 4), P_BCRYPT12, KDF_REHASH_OTHER_SCHEME},
        {argon2_str("argon2id", 16, 65536, 3, 4), P_BCRYPT_ACC_ID, KDF_REHASH_OLD_VERSION},
        /* other Argon2 types are other schemes */
        {argon2_str("argon2i", 19, 65536, 3, 4), P_DEFAULT, KDF_REHASH_OTHER_SCHEME},
        {argon2_str("argon2d", 19, 1048576, 16, 4), P_DEFAULT, KDF_REHASH_OTHER_SCHEME},
        {argon2_str("argon2i", 19, 65536, 3, 4), P_ACC_ARGON2I, KDF_REHASH_NO},
        {argon2_str("argon2i", 19, 19456, 2, 1), P_ACC_ARGON2I, KDF_REHASH_NO},
        {argon2_str("argon2i", 19, 19455, 2, 1), P_ACC_ARGON2I, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2i", 19, 65536, 1, 1), P_ACC_ARGON2I, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2d", 19, 65536, 3, 4), P_ACC_ARGON2I, KDF_REHASH_OTHER_SCHEME},
        {argon2_str("argon2id", 19, 65536, 3, 4), P_BCRYPT12, KDF_REHASH_OTHER_SCHEME},
        {argon2_str("argon2id", 19, 65536, 3, 4), P_BCRYPT_ACC_ID, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 8192, 3, 4), P_BCRYPT_ACC_ID, KDF_REHASH_TOO_CHEAP},
        /* a target below min.argon2: the target still wins (no downgrade) */
        {argon2_str("argon2id", 19, 8192, 1, 1), P_LOW_ARGON2, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 16384, 1, 1), P_LOW_ARGON2, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 4096, 4, 1), P_LOW_ARGON2, KDF_REHASH_NO},
        {argon2_str("argon2id", 19, 4096, 2, 1), P_LOW_ARGON2, KDF_REHASH_TOO_CHEAP},
        {argon2_str("argon2id", 19, 8191, 1, 1), P_LOW_ARGON2, KDF_REHASH_TOO_CHEAP},
        /* PBKDF2, every spelling */
        {"$pbkdf2-sha256$600000$" P256_PASSLIB_TAIL, P_DEFAULT, KDF_REHASH_OTHER_SCHEME},
        {"$pbkdf2-sha256$600000$" P256_PASSLIB_TAIL, P_PBKDF2, KDF_REHASH_NO},
        {"$pbkdf2-sha256$2400000$" P256_PASSLIB_TAIL, P_PBKDF2, KDF_REHASH_NO},
        {"$pbkdf2-sha256$4294967295$" P256_PASSLIB_TAIL, P_PBKDF2, KDF_REHASH_HEAVY},
        {"$pbkdf2-sha256$599999$" P256_PASSLIB_TAIL, P_PBKDF2, KDF_REHASH_TOO_CHEAP},
        {"$pbkdf2-sha256$i=600000,l=32$" P256_PHC_TAIL, P_PBKDF2, KDF_REHASH_NO},
        {"$pbkdf2-sha256$i=1000,l=32$" P256_PHC_TAIL, P_PBKDF2, KDF_REHASH_TOO_CHEAP},
        {"pbkdf2_sha256$600000$" P256_DJANGO_TAIL, P_PBKDF2, KDF_REHASH_NO},
        {"pbkdf2_sha256$10$" P256_DJANGO_TAIL, P_PBKDF2, KDF_REHASH_TOO_CHEAP},
        {"pbkdf2_sha256$600000$" P256_DJANGO_TAIL, P_DEFAULT, KDF_REHASH_OTHER_SCHEME},
        {"$pbkdf2-sha512$210000$" P512_PASSLIB_TAIL, P_PBKDF2, KDF_REHASH_OTHER_SCHEME},
        {"$pbkdf2-sha512$210000$" P512_PASSLIB_TAIL, P_ACC_SHA, KDF_REHASH_NO},
        {"$pbkdf2-sha512$209999$" P512_PASSLIB_TAIL, P_ACC_SHA, KDF_REHASH_TOO_CHEAP},
        {"$pbkdf2$1300000$" P1_PASSLIB_TAIL, P_ACC_SHA, KDF_REHASH_NO},
        {"$pbkdf2$1299999$" P1_PASSLIB_TAIL, P_ACC_SHA, KDF_REHASH_TOO_CHEAP},
        {"$pbkdf2$1300000$" P1_PASSLIB_TAIL, P_PBKDF2, KDF_REHASH_OTHER_SCHEME},
    };
    struct kdf_policy pol;
    struct kdf_hash h;

    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        enum kdf_rehash got;
        unsigned long allocs;
        make_policy(rows[i].pol, &pol);
        parse_ok(rows[i].hash, &h);
        allocs = alloc_count_allocs();
        got = kdf_needs_rehash(&h, &pol);
        assert_int_equal(alloc_count_allocs() - allocs, 0);
        if (got != rows[i].want)
            fail_msg("row %zu '%s' policy %d: got %s, want %s", i, rows[i].hash,
                     (int)rows[i].pol, kdf_rehash_reason(got),
                     kdf_rehash_reason(rows[i].want));
    }
    assert_int_equal(kdf_needs_rehash(NULL, &pol), KDF_REHASH_NO);
    assert_int_equal(kdf_needs_rehash(&h, NULL), KDF_REHASH_NO);
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_TOO_CHEAP), "too-cheap");
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_OTHER_SCHEME), "other-scheme");
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_BUGGY), "bcrypt-2x");
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_LEGACY), "legacy");
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_OLD_VERSION), "old-version");
}

/* The rule of api_rehash.c's header, restated: for the target's scheme a
 * hash at least the target in m and t is kept; strictly below in both is
 * rewritten; mixed is rewritten iff target m*t >= hash m*t or the hash is
 * below a minimum the target meets.  What is kept is heavy when its m*t is
 * more than 4 (heavy's default) times the target's. */
static void
test_argon2_grid(void **state)
{
    static const uint32_t ms[] = {8,     1024,   8192,   16384,   19455,     19456,
                                  32768, 65535,  65536,  65537,   131072,    262144,
                                  1048576, 4194304, 4294967295u};
    static const uint32_t ts[] = {1, 2, 3, 4, 5, 6, 16, 100, 4294967295u};
    static const struct {
        uint32_t m, t;
    } targets[] = {{65536, 3}, {19456, 2}, {8192, 1}, {262144, 1}, {1048576, 16},
                   {16384, 8}};
    struct kdf_policy pol;
    struct kdf_hash h;
    char text[80];
    unsigned n = 0;

    (void)state;
    for (size_t ti = 0; ti < sizeof targets / sizeof targets[0]; ti++) {
        kdf_policy_default(&pol);
        snprintf(text, sizeof text, "argon2id m=%u,t=%u,p=1", targets[ti].m, targets[ti].t);
        assert_int_equal(kdf_target_parse(text, &pol.target, NULL, 0), KDF_OK);
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
            for (size_t tj = 0; tj < sizeof ts / sizeof ts[0]; tj++) {
                uint32_t m = ms[mi], t = ts[tj], tm = targets[ti].m, tt = targets[ti].t;
                uint64_t hw = (uint64_t)m * t, tw = (uint64_t)tm * tt;
                uint32_t mm = kdf_policy_bound_get(&pol, "min.argon2", 0),
                         mt = kdf_policy_bound_get(&pol, "min.argon2", 1);
                int below_min = (m < mm && tm >= mm) || (t < mt && tt >= mt);
                enum kdf_rehash want, got;

                if (m >= tm && t >= tt)
                    want = KDF_REHASH_NO;
                else if (m < tm && t < tt)
                    want = KDF_REHASH_TOO_CHEAP;
                else
                    want = (below_min || tw >= hw) ? KDF_REHASH_TOO_CHEAP : KDF_REHASH_NO;
                if (want == KDF_REHASH_NO && hw > 4 * tw)
                    want = KDF_REHASH_HEAVY;
                parse_ok(argon2_str("argon2id", 19, m, t, 1), &h);
                got = kdf_needs_rehash(&h, &pol);
                if (got != want)
                    fail_msg("target m=%u t=%u, hash m=%u t=%u: got %s want %s", tm, tt, m,
                             t, kdf_rehash_reason(got), kdf_rehash_reason(want));
                /* The property itself, whatever the rule's details. */
                if (m >= tm && t >= tt)
                    assert_int_equal(got, hw > 4 * tw ? KDF_REHASH_HEAVY : KDF_REHASH_NO);
                if (m < tm && t < tt)
                    assert_int_not_equal(got, KDF_REHASH_NO);
                n++;
            }
        }
    }
    assert_int_equal(n, 6 * 15 * 9);
}

static void
test_bcrypt_pbkdf2_grid(void **state)
{
    static const uint32_t iters[] = {1,      2,       999,      1000,     209999,
                                     210000, 599999,  600000,   600001,   1300000,
                                     9999999, 10000000, 10000001, 4294967295u};
    static const char minors[] = {'a', 'b', 'y'};
    struct kdf_policy pol;
    struct kdf_hash h;
    char text[80];

    (void)state;
    for (unsigned tc = 4; tc <= 31; tc++) {
        kdf_policy_default(&pol);
        *kdf_policy_bound(&pol, "max.bcrypt", 0) = 31;
        snprintf(text, sizeof text, "bcrypt cost=%u", tc);
        assert_int_equal(kdf_target_parse(text, &pol.target, NULL, 0), KDF_OK);
        for (unsigned hc = 4; hc <= 31; hc++) {
            for (size_t mi = 0; mi < sizeof minors; mi++) {
                parse_ok(bcrypt_str(minors[mi], hc), &h);
                /* 2^hc > 4 * 2^tc: heavy. */
                assert_int_equal(kdf_needs_rehash(&h, &pol),
                                 hc > tc + 2 ? KDF_REHASH_HEAVY
                                 : hc >= tc  ? KDF_REHASH_NO
                                             : KDF_REHASH_TOO_CHEAP);
            }
            parse_ok(bcrypt_str('x', hc), &h);
            assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_BUGGY);
        }
    }
    for (size_t ti = 0; ti < sizeof iters / sizeof iters[0]; ti++) {
        kdf_policy_default(&pol);
        snprintf(text, sizeof text, "pbkdf2-sha256 i=%u", iters[ti]);
        assert_int_equal(kdf_target_parse(text, &pol.target, NULL, 0), KDF_OK);
        for (size_t hi = 0; hi < sizeof iters / sizeof iters[0]; hi++) {
            enum kdf_rehash want = (uint64_t)iters[hi] > 4ull * iters[ti] ? KDF_REHASH_HEAVY
                                   : iters[hi] >= iters[ti]                ? KDF_REHASH_NO
                                                                           : KDF_REHASH_TOO_CHEAP;
            parse_ok(fmt("$pbkdf2-sha256$%u$" P256_PASSLIB_TAIL, iters[hi]), &h);
            assert_int_equal(kdf_needs_rehash(&h, &pol), want);
            parse_ok(fmt("$pbkdf2-sha256$i=%u,l=32$" P256_PHC_TAIL, iters[hi]), &h);
            assert_int_equal(kdf_needs_rehash(&h, &pol), want);
            parse_ok(fmt("pbkdf2_sha256$%u$" P256_DJANGO_TAIL, iters[hi]), &h);
            assert_int_equal(kdf_needs_rehash(&h, &pol), want);
        }
    }
}

/* heavy = N (default 4): an entry of the target's own row whose work
 * (Argon2 m*t, bcrypt 2^cost, PBKDF2 iterations, scrypt N*r*p) is more
 * than N times the target's moves down to the target; anything else the
 * rules say first still wins, and no other row is judged heavy. */
#define SCRYPT_PASSLIB_TAIL "c2FsdA$ie174LS16vfNXmDxOruLx7sR44Qe1aFcHCtfw6SJDJo"
static void
test_heavy(void **state)
{
    static const struct {
        const char *target; /* NULL: the default */
        const char *set;    /* "key=value" or NULL */
        const char *hash;
        enum kdf_rehash want;
    } rows[] = {
        /* Argon2id against the default m=65536,t=3: work 196608. */
        {NULL, NULL, "$argon2id$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL, KDF_REHASH_HEAVY},
        {NULL, NULL, "$argon2id$v=19$m=262144,t=3,p=4$" ARGON2_TAIL, KDF_REHASH_NO},
        {NULL, NULL, "$argon2id$v=19$m=262145,t=3,p=4$" ARGON2_TAIL, KDF_REHASH_HEAVY},
        {NULL, NULL, "$argon2id$v=19$m=65536,t=12,p=1$" ARGON2_TAIL, KDF_REHASH_NO},
        {NULL, NULL, "$argon2id$v=19$m=65536,t=13,p=1$" ARGON2_TAIL, KDF_REHASH_HEAVY},
        {NULL, NULL, "$argon2id$v=19$m=131072,t=6,p=4$" ARGON2_TAIL, KDF_REHASH_NO},
        {NULL, "heavy=off", "$argon2id$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL, KDF_REHASH_NO},
        {NULL, "heavy=2", "$argon2id$v=19$m=131072,t=3,p=4$" ARGON2_TAIL, KDF_REHASH_NO},
        {NULL, "heavy=2", "$argon2id$v=19$m=131073,t=3,p=4$" ARGON2_TAIL, KDF_REHASH_HEAVY},
        {NULL, "heavy=1000", "$argon2id$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL,
         KDF_REHASH_NO},
        /* A flaw or too-cheap is said first. */
        {NULL, NULL, "$argon2id$v=16$m=1048576,t=16,p=4$" ARGON2_TAIL, KDF_REHASH_OLD_VERSION},
        {NULL, NULL, "$argon2id$v=19$m=4194304,t=1,p=4$" ARGON2_TAIL, KDF_REHASH_TOO_CHEAP},
        {"bcrypt cost=12", NULL, "$2x$15$" BCRYPT_TAIL, KDF_REHASH_BUGGY},
        /* Other rows, accepted or not, are never heavy: no common unit. */
        {NULL, NULL, "$argon2i$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL, KDF_REHASH_OTHER_SCHEME},
        {NULL, "accept=argon2i", "$argon2i$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL,
         KDF_REHASH_NO},
        {NULL, "accept=bcrypt", "$2b$16$" BCRYPT_TAIL, KDF_REHASH_NO},
        {"bcrypt cost=12", "accept=argon2id", "$argon2id$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL,
         KDF_REHASH_NO},
        {NULL, "migrate=yes", "$2b$16$" BCRYPT_TAIL, KDF_REHASH_OTHER_SCHEME},
        /* The pepper rule first: an unkeyed entry moves for it; a keyed
         * one at the pepper is judged heavy or not. */
        {NULL, "pepper=AAAA", "$argon2id$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL,
         KDF_REHASH_PEPPER},
        {NULL, "pepper=AAAA", "$argon2id$v=19$m=1048576,t=16,p=4,keyid=AAAA$" ARGON2_TAIL,
         KDF_REHASH_HEAVY},
        {NULL, "pepper=AAAA", "$argon2id$v=19$m=262144,t=3,p=4,keyid=AAAA$" ARGON2_TAIL,
         KDF_REHASH_NO},
        /* bcrypt against cost 12: 15 is 8x, 14 is 4x. */
        {"bcrypt cost=12", NULL, "$2b$15$" BCRYPT_TAIL, KDF_REHASH_HEAVY},
        {"bcrypt cost=12", NULL, "$2y$14$" BCRYPT_TAIL, KDF_REHASH_NO},
        {"bcrypt cost=12", "heavy=off", "$2b$15$" BCRYPT_TAIL, KDF_REHASH_NO},
        {"bcrypt cost=12", "heavy=8", "$2b$15$" BCRYPT_TAIL, KDF_REHASH_NO},
        /* PBKDF2-SHA256 against i=600000, every spelling of the row. */
        {"pbkdf2-sha256 i=600000", NULL, "$pbkdf2-sha256$2400000$" P256_PASSLIB_TAIL,
         KDF_REHASH_NO},
        {"pbkdf2-sha256 i=600000", NULL, "$pbkdf2-sha256$2400001$" P256_PASSLIB_TAIL,
         KDF_REHASH_HEAVY},
        {"pbkdf2-sha256 i=600000", NULL, "$pbkdf2-sha256$i=4800000,l=32$" P256_PHC_TAIL,
         KDF_REHASH_HEAVY},
        {"pbkdf2-sha256 i=600000", NULL, "pbkdf2_sha256$4800000$" P256_DJANGO_TAIL,
         KDF_REHASH_HEAVY},
        {"pbkdf2-sha256 i=600000", "heavy=off", "$pbkdf2-sha256$4800000$" P256_PASSLIB_TAIL,
         KDF_REHASH_NO},
        /* scrypt against ln=4,r=8,p=1: N r p. */
        {"scrypt ln=4,r=8,p=1", NULL, "$scrypt$ln=6,r=8,p=1$" SCRYPT_PASSLIB_TAIL,
         KDF_REHASH_NO},
        {"scrypt ln=4,r=8,p=1", NULL, "$scrypt$ln=7,r=8,p=1$" SCRYPT_PASSLIB_TAIL,
         KDF_REHASH_HEAVY},
        {"scrypt ln=4,r=8,p=1", NULL, "$scrypt$ln=4,r=8,p=5$" SCRYPT_PASSLIB_TAIL,
         KDF_REHASH_HEAVY},
        {"scrypt ln=4,r=8,p=1", NULL, "$scrypt$ln=4,r=32,p=1$" SCRYPT_PASSLIB_TAIL,
         KDF_REHASH_NO},
        /* The crypt(3) targets are left out (libxcrypt's own units). */
        {"yescrypt cost=1", NULL, "$y$j9T$sh0GpGVrmkW8CdKuvQAiW1$6ZTwLdpJzkiADMAgFf0N3gbG1UEfWE"
                                  "guTN0KbQG0IP3", KDF_REHASH_NO},
    };
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct kdf_policy p;
        struct kdf_hash h;
        char err[200], key[32];
        const char *eq;
        unsigned long allocs;
        enum kdf_rehash got;

        kdf_policy_default(&p);
        /* the vectors' salts, as in make_policy() */
        *kdf_policy_bound(&p, "min.pbkdf2-salt", 0) = 1;
        if (rows[i].target != NULL &&
            kdf_policy_set(&p, "target", rows[i].target, err, sizeof err) != KDF_OK)
            fail_msg("row %zu: target: %s", i, err);
        if (rows[i].set != NULL) {
            eq = strchr(rows[i].set, '=');
            snprintf(key, sizeof key, "%.*s", (int)(eq - rows[i].set), rows[i].set);
            if (kdf_policy_set(&p, key, eq + 1, err, sizeof err) != KDF_OK)
                fail_msg("row %zu: %s: %s", i, rows[i].set, err);
        }
        parse_ok(rows[i].hash, &h);
        allocs = alloc_count_allocs();
        got = kdf_needs_rehash(&h, &p);
        assert_int_equal(alloc_count_allocs() - allocs, 0);
        if (got != rows[i].want)
            fail_msg("row %zu '%s': got %s, want %s", i, rows[i].hash, kdf_rehash_reason(got),
                     kdf_rehash_reason(rows[i].want));
    }
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_HEAVY), "heavy");
}

struct caps_row {
    const char *hash;
    size_t pw_len;
    enum kdf_status want;
    const char *why; /* substring of the reason, NULL when OK */
};

static void
test_caps_table(void **state)
{
    const struct caps_row rows[] = {
        {"", 0, KDF_OK, NULL},
        {"!", 4096, KDF_OK, NULL},
        {"", 4097, KDF_TOO_COSTLY, "max.password"},
        {bcrypt_str('b', 16), 0, KDF_OK, NULL},
        {bcrypt_str('b', 16), 4096, KDF_OK, NULL},
        {bcrypt_str('b', 16), 4097, KDF_TOO_COSTLY, "max.password"},
        {bcrypt_str('b', 16), SIZE_MAX, KDF_TOO_COSTLY, "max.password"},
        {bcrypt_str('b', 17), 8, KDF_TOO_COSTLY, "max.bcrypt"},
        {bcrypt_str('x', 31), 8, KDF_TOO_COSTLY, "max.bcrypt"},
        /* the default max.argon2 = m=1048576,t=8,p=16 */
        {argon2_str("argon2id", 19, 1048576, 8, 16), 8, KDF_OK, NULL},
        {argon2_str("argon2id", 19, 1048576, 16, 16), 8, KDF_TOO_COSTLY, "argon2 t"},
        {argon2_str("argon2id", 19, 65536, 9, 1), 8, KDF_TOO_COSTLY, "argon2 t"},
        {argon2_str("argon2id", 19, 1048577, 1, 1), 8, KDF_TOO_COSTLY, "argon2 m"},
        {argon2_str("argon2id", 19, 4294967295u, 1, 1), 8, KDF_TOO_COSTLY, "argon2 m"},
        {argon2_str("argon2i", 19, 65536, 17, 1), 8, KDF_TOO_COSTLY, "argon2 t"},
        {argon2_str("argon2d", 16, 65536, 4294967295u, 1), 8, KDF_TOO_COSTLY, "argon2 t"},
        {argon2_str("argon2id", 0, 1024, 1, 17), 8, KDF_TOO_COSTLY, "argon2 p"},
        {argon2_str("argon2id", 19, 1024, 1, 128), 8, KDF_TOO_COSTLY, "argon2 p"},
        {"$pbkdf2-sha256$10000000$" P256_PASSLIB_TAIL, 8, KDF_OK, NULL},
        {"$pbkdf2-sha256$10000001$" P256_PASSLIB_TAIL, 8, KDF_TOO_COSTLY, "max.pbkdf2"},
        {"$pbkdf2-sha256$i=4294967295,l=32$" P256_PHC_TAIL, 8, KDF_TOO_COSTLY, "max.pbkdf2"},
        {"pbkdf2_sha256$4294967295$" P256_DJANGO_TAIL, 8, KDF_TOO_COSTLY, "max.pbkdf2"},
        {"$pbkdf2$10000001$" P1_PASSLIB_TAIL, 8, KDF_TOO_COSTLY, "max.pbkdf2"},
        {SHA512CRYPT, 8, KDF_OK, NULL},
        {YESCRYPT, 8, KDF_OK, NULL},
        {"$5$rounds=10000000$85OEun9lYmT/1gv8$jAeR9YqNJe9ZA2X9DiIkMGu/6uKW3D1OUb.mNpG7V3C", 8,
         KDF_OK, NULL},
        {"$5$rounds=10000001$85OEun9lYmT/1gv8$jAeR9YqNJe9ZA2X9DiIkMGu/6uKW3D1OUb.mNpG7V3C", 8,
         KDF_TOO_COSTLY, "rounds"},
        {"$6$rounds=999999999$85OEun9lYmT/1gv8$jAeR9YqNJe9ZA2X9DiIkMGu/6uKW3D1OUb.mNpG7V3C", 8,
         KDF_TOO_COSTLY, "rounds"},
        /* yescrypt / scrypt memory (mkpasswd -R 5, 11; one step more is 2 GiB) */
        {"$y$j9T" YES_TAIL, 8, KDF_OK, NULL},
        {"$y$jFT" YES_TAIL, 8, KDF_OK, NULL},          /* 1 GiB: at the cap */
        {"$y$jGT" YES_TAIL, 8, KDF_TOO_COSTLY, "memory"}, /* 2 GiB */
        {"$y$jFU" YES_TAIL, 8, KDF_TOO_COSTLY, "memory"}, /* r 33 */
        {"$y$jk.T" YES_TAIL, 8, KDF_TOO_COSTLY, "memory"}, /* N = 2^49, two characters */
        {"$gy$j9T" YES_TAIL, 8, KDF_OK, NULL},
        {"$gy$jGT" YES_TAIL, 8, KDF_TOO_COSTLY, "memory"},
        {"$7$CU..../...." SCRYPT_TAIL, 8, KDF_OK, NULL},      /* 64 MiB */
        {"$7$GU..../...." SCRYPT_TAIL, 8, KDF_OK, NULL},      /* 1 GiB */
        {"$7$HU..../...." SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "memory"},
        {"$7$C..0../...." SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "memory"}, /* r = 2^13 */
        /* Every other costly crypt(3) scheme (strings from passlib, costs
         * substituted): sha1-crypt, SunMD5 and BSDi rounds by max.pbkdf2. */
        {"$sha1$480000$abcdefgh$O1FteT.8iBPfT8DbK4mxuL4uZH0E", 8, KDF_OK, NULL},
        {"$sha1$10000000$abcdefgh$O1FteT.8iBPfT8DbK4mxuL4uZH0E", 8, KDF_OK, NULL},
        {"$sha1$10000001$abcdefgh$O1FteT.8iBPfT8DbK4mxuL4uZH0E", 8, KDF_TOO_COSTLY, "sha1-crypt"},
        {"$sha1$4294967295$abcdefgh$O1FteT.8iBPfT8DbK4mxuL4uZH0E", 8, KDF_TOO_COSTLY,
         "sha1-crypt"},
        {"$sha1$99999999999999999999999$abcdefgh$O1FteT.8iBPfT8DbK4mxuL4uZH0E", 8,
         KDF_TOO_COSTLY, "sha1-crypt"},
        {"$md5,rounds=5000$abcdefgh$$51scbQtvil3e5sN.NDL54/", 8, KDF_OK, NULL},
        {"$md5,rounds=4294967295$abcdefgh$$51scbQtvil3e5sN.NDL54/", 8, KDF_TOO_COSTLY,
         "SunMD5"},
        {"$md5$rounds=4294967295$abcdefgh$$51scbQtvil3e5sN.NDL54/", 8, KDF_TOO_COSTLY,
         "SunMD5"},
        {"_7C/.abcdYLHPKzdrSe.", 8, KDF_OK, NULL},           /* 5001 rounds */
        {"_zzzzabcdYLHPKzdrSe.", 8, KDF_TOO_COSTLY, "BSDi"}, /* 2^24 - 1 */
        /* scrypt: p multiplies the time (p = 2^24), and with a tiny N r
         * it is all the cost: N = 4, r = 1, p = 2^22 is 512 MiB of PBKDF2
         * output and seconds of SHA-256; p is capped as Argon2's lanes. */
        {"$7$CU......../" SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "p above"},
        {"$7$CU....1...." SCRYPT_TAIL, 8, KDF_OK, NULL}, /* p = 3 */
        {"$7$CU....E...." SCRYPT_TAIL, 8, KDF_OK, NULL}, /* p = 16 */
        {"$7$CU....F...." SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "p above"}, /* p = 17 */
        {"$7$0/.......E." SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "p above"},
        {"$7$0/.......2." SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "p above"}, /* p = 2^20 */
        /* 8 chains over 256 MiB each (4 GiB of traffic), then 16 (just over
         * the 8 GiB of m*t) and 16 over 544 MiB */
        {"$7$EU....6...." SCRYPT_TAIL, 8, KDF_OK, NULL},
        {"$7$EU....E...." SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "work"},
        {"$7$FW....E...." SCRYPT_TAIL, 8, KDF_TOO_COSTLY, "work"}, /* r = 34 */
        /* yescrypt: N = 2^35, r = 2^29 overflowed 64 bits before; r = 64
         * in two characters (32 MiB); p and t in the optional part. */
        {"$y$jWzSxvrD" YES_TAIL, 8, KDF_TOO_COSTLY, "memory"},
        {"$y$j9kD" YES_TAIL, 8, KDF_OK, NULL},
        {"$y$jFT" YES_TAIL, 8, KDF_OK, NULL},
        /* The optional part, encoded as libxcrypt's encode64_uint32: a
         * "have" bit mask (1 p, 2 t), then p (minimum 2) and t. */
        {"$y$jFT.y/vrC" YES_TAIL, 8, KDF_TOO_COSTLY, "p above"}, /* 1 GiB, p = 2^20 */
        {"$y$.0..y/vrC" YES_TAIL, 8, KDF_TOO_COSTLY, "p above"}, /* flavor 0, N = 8 */
        {"$y$jD..vrC" YES_TAIL, 8, KDF_TOO_COSTLY, "p above"},   /* 2^14 S-boxes */
        {"$y$jFT/y/vrD" YES_TAIL, 8, KDF_TOO_COSTLY, "work"}, /* 1 GiB, t = 2^20 */
        {"$y$j9T/." YES_TAIL, 8, KDF_OK, NULL},                /* 16 MiB, t = 1 */
        {"$y$j9T.0" YES_TAIL, 8, KDF_OK, NULL},                /* 16 MiB, p = 4 */
        {"$y$jFT.y" YES_TAIL, 8, KDF_TOO_COSTLY, "decode"}, /* p cut short */
    };
    struct kdf_policy pol;
    struct kdf_hash h;
    const char *why;

    (void)state;
    kdf_policy_default(&pol);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        enum kdf_status st;
        unsigned long allocs;
        parse_ok(rows[i].hash, &h);
        why = "unset";
        allocs = alloc_count_allocs();
        st = kdf_check_caps(&h, rows[i].pw_len, &pol, &why);
        assert_int_equal(alloc_count_allocs() - allocs, 0);
        if (st != rows[i].want)
            fail_msg("row %zu '%s': status %d", i, rows[i].hash, (int)st);
        if (rows[i].why == NULL)
            assert_null(why);
        else if (why == NULL || strstr(why, rows[i].why) == NULL)
            fail_msg("row %zu: reason '%s'", i, why ? why : "(null)");
        /* reason may be NULL */
        assert_int_equal(kdf_check_caps(&h, rows[i].pw_len, &pol, NULL), rows[i].want);
    }
    /* Caps follow the policy, not constants. */
    assert_int_equal(kdf_policy_set(&pol, "target", "bcrypt cost=10", NULL, 0), KDF_OK);
    assert_int_equal(kdf_policy_set(&pol, "max.bcrypt", "12", NULL, 0), KDF_OK);
    assert_int_equal(kdf_policy_set(&pol, "max.password", "72", NULL, 0), KDF_OK);
    parse_ok(bcrypt_str('b', 12), &h);
    assert_int_equal(kdf_check_caps(&h, 72, &pol, &why), KDF_OK);
    assert_int_equal(kdf_check_caps(&h, 73, &pol, &why), KDF_TOO_COSTLY);
    parse_ok(bcrypt_str('b', 13), &h);
    assert_int_equal(kdf_check_caps(&h, 1, &pol, &why), KDF_TOO_COSTLY);
    assert_int_equal(kdf_check_caps(NULL, 1, &pol, &why), KDF_RANGE);
    assert_int_equal(kdf_check_caps(&h, 1, NULL, &why), KDF_RANGE);
}

static void
test_check_target(void **state)
{
    struct kdf_policy pol;
    struct kdf_target t;
    const char *why;

    (void)state;
    kdf_policy_default(&pol);
    assert_int_equal(kdf_check_target(&pol.target, &pol, &why), KDF_OK);
    assert_null(why);
    /* bcrypt */
    assert_int_equal(kdf_target_parse("bcrypt cost=16", &t, NULL, 0), KDF_OK);
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_OK);
    t.cost = 17;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_TOO_COSTLY);
    assert_non_null(strstr(why, "max.bcrypt"));
    t.cost = 3;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t.cost = 32;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t.cost = 12;
    t.bcrypt_minor = 'x'; /* valid for known-answer tests; policies refuse it */
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_OK);
    t.bcrypt_minor = 'c';
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t.bcrypt_minor = 'b';
    t.salt_len = 15;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    /* Argon2 */
    t = pol.target;
    t.m_kib = 1048577;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_TOO_COSTLY);
    t.m_kib = 4294967295u;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_TOO_COSTLY);
    t = pol.target;
    t.cost = 17;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_TOO_COSTLY);
    t.cost = 0;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t = pol.target;
    t.lanes = 17;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_TOO_COSTLY);
    t.lanes = 0;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t = pol.target;
    t.m_kib = 31; /* < 8 * 4 */
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t = pol.target;
    t.version = 0x10;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_OK);
    t.version = 0x12;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t = pol.target;
    t.salt_len = 7;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t.salt_len = 65;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t = pol.target;
    t.dk_len = 3;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t.dk_len = 65;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    /* PBKDF2 */
    assert_int_equal(kdf_target_parse("pbkdf2-sha512 i=10000000", &t, NULL, 0), KDF_OK);
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_OK);
    t.cost = 10000001;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_TOO_COSTLY);
    t.cost = 0;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    t.cost = 1;
    t.format = KDF_FMT_NATIVE;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_RANGE);
    /* Not targets */
    t.scheme = KDF_SCHEME_LEGACY;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_UNSUPPORTED);
    t.scheme = KDF_SCHEME_LOCKED;
    assert_int_equal(kdf_check_target(&t, &pol, &why), KDF_UNSUPPORTED);
    assert_int_equal(kdf_check_target(NULL, &pol, &why), KDF_RANGE);
}

/* Shared caps: whatever target the generator accepts, the
 * verifier's caps accept the hash it would make, and whatever the verifier
 * refuses as over-cap, the generator refuses too.  10,000 random sets. */
static uint64_t g_rng = 0x9E3779B97F4A7C15u;
static uint32_t
rnd(uint32_t n)
{
    return (uint32_t)(xorshift64(&g_rng) % n);
}

static uint32_t
rnd_around(uint32_t cap)
{
    switch (rnd(4)) {
    case 0:
        return cap - 2 + rnd(5); /* right at the cap */
    case 1:
        return 1 + rnd(cap);
    case 2:
        return UINT32_MAX - rnd(3);
    default:
        return 1 + rnd(3 * cap);
    }
}

static void
test_generator_matches_verifier(void **state)
{
    static const char *const a2[] = {"argon2d", "argon2i", "argon2id"};
    struct kdf_policy pol;
    struct kdf_target t;
    struct kdf_hash h;
    unsigned ok = 0, over = 0;

    (void)state;
    kdf_policy_default(&pol);
    for (int i = 0; i < 10000; i++) {
        const char *s, *why = NULL;
        enum kdf_status ts, hs;
        unsigned kind = rnd(3);

        memset(&t, 0, sizeof t);
        if (kind == 0) {
            assert_int_equal(kdf_target_parse("bcrypt", &t, NULL, 0), KDF_OK);
            t.cost = 4 + rnd(28);
            s = bcrypt_str('b', t.cost);
        } else if (kind == 1) {
            assert_int_equal(kdf_target_parse(a2[rnd(3)], &t, NULL, 0), KDF_OK);
            t.lanes = 1 + rnd(20);
            t.cost = rnd_around(kdf_policy_bound_get(&pol, "max.memory-hard", 1));
            t.m_kib = rnd_around(kdf_policy_bound_get(&pol, "max.memory-hard", 0));
            if (t.m_kib < 8 * t.lanes)
                t.m_kib = 8 * t.lanes;
            s = argon2_str(kdf_scheme_name(t.scheme), 19, t.m_kib, t.cost, t.lanes);
        } else {
            assert_int_equal(kdf_target_parse("pbkdf2-sha256", &t, NULL, 0), KDF_OK);
            t.cost = rnd_around(kdf_policy_bound_get(&pol, "max.pbkdf2", 0));
            s = fmt("$pbkdf2-sha256$%u$" P256_PASSLIB_TAIL, t.cost);
        }
        ts = kdf_check_target(&t, &pol, &why);
        parse_ok(s, &h);
        hs = kdf_check_caps(&h, 8, &pol, &why);
        if (ts != hs)
            fail_msg("'%s': target %d, caps %d", s, (int)ts, (int)hs);
        ok += ts == KDF_OK;
        over += ts == KDF_TOO_COSTLY;
    }
    /* Both sides of the caps were exercised. */
    assert_true(ok > 1000);
    assert_true(over > 1000);
}

/* crypt(3) targets and migrate = yes.  The legacy strings were made by
 * mkpasswd(1) (whois), i.e. libxcrypt: yescrypt at costs 3, 5 and 7
 * ("j7T", "j9T", "jBT"), sha512crypt at its default 5000 rounds and at
 * 10000, md5crypt. */
#define Y3 "$y$j7T$JqsSXXKwbl1mPIm.f/8Ie0$6qM2kNKIHWHV5ocphjd0hxmOZJ1JV4Bjydbgx92AIy6"
#define Y5 "$y$j9T$sh0GpGVrmkW8CdKuvQAiW1$6ZTwLdpJzkiADMAgFf0N3gbG1UEfWEguTN0KbQG0IP3"
#define Y7 "$y$jBT$XJ8B/4zJCADkPfYQLp9iQ0$Rmgw/L/T/qAq7kU1PIdQVgZwZLg1b8KI4InJjcfmU3B"
#define S5000                                                                              \
    "$6$4L3O58/zi.6pnO4j$hjhEmcL5U51N8bp2DrW6KFfKBvO4Gys6RREOF57.O9eQDIY.wdocrs93GprcfUw4"  \
    "ytfEhorDWxMirlXmrkRAR."
#define S10000                                                                             \
    "$6$rounds=10000$97Jx1da2pJBVTbsO$osDZXS8QsJ5gsHX1kgXIVZlPx2wfiPdxWW5JzQ3cmJiEed/cVRs" \
    "WmWN0GtzJjcqP7xtBswVgkeBV3ODRKcXtH."
#define MD5C "$1$VQ3eKbdq$eMAJc7lneYX6kymkVysm9."

static void
test_crypt_targets_and_migrate(void **state)
{
    static const struct {
        const char *target;
        int migrate;
        const char *hash;
        enum kdf_rehash want;
    } rows[] = {
        /* The target's own crypt(3) scheme: its cost decides. */
        {"yescrypt", 0, Y5, KDF_REHASH_NO},
        {"yescrypt", 0, Y7, KDF_REHASH_NO},
        {"yescrypt", 0, Y3, KDF_REHASH_TOO_CHEAP},
        {"yescrypt cost=7", 0, Y5, KDF_REHASH_TOO_CHEAP},
        {"sha512crypt", 0, S5000, KDF_REHASH_NO},
        {"sha512crypt rounds=10000", 0, S5000, KDF_REHASH_TOO_CHEAP},
        {"sha512crypt rounds=10000", 0, S10000, KDF_REHASH_NO},
        /* Other crypt(3) schemes move to it: an upgrade. */
        {"yescrypt", 0, MD5C, KDF_REHASH_LEGACY},
        {"yescrypt", 0, S5000, KDF_REHASH_LEGACY},
        {"sha512crypt", 0, Y5, KDF_REHASH_LEGACY},
        /* Our own schemes stay without migrate (unless too cheap) ... */
        {"yescrypt", 0, "$argon2id$v=19$m=65536,t=3,p=4$" ARGON2_TAIL, KDF_REHASH_NO},
        {"yescrypt", 0, "$2b$12$" BCRYPT_TAIL, KDF_REHASH_NO},
        {"yescrypt", 0, "$2b$10$" BCRYPT_TAIL, KDF_REHASH_TOO_CHEAP},
        {"yescrypt", 0, "$2x$12$" BCRYPT_TAIL, KDF_REHASH_BUGGY},
        /* ... and move with it: a migration, even from a stronger one. */
        {"yescrypt", 1, "$argon2id$v=19$m=65536,t=3,p=4$" ARGON2_TAIL, KDF_REHASH_MIGRATE},
        {"yescrypt", 1, "$argon2id$v=19$m=1048576,t=16,p=4$" ARGON2_TAIL, KDF_REHASH_MIGRATE},
        {"yescrypt", 1, "$2b$12$" BCRYPT_TAIL, KDF_REHASH_MIGRATE},
        {"sha512crypt", 1, Y5, KDF_REHASH_LEGACY},
        {"yescrypt", 1, Y5, KDF_REHASH_NO},
        {"yescrypt", 1, Y3, KDF_REHASH_TOO_CHEAP},
        /* migrate with one of our targets: what the rules rewrite keeps
         * its reason; the target's own scheme at the target stays. */
        {"bcrypt cost=12", 1, "$argon2id$v=19$m=65536,t=3,p=4$" ARGON2_TAIL,
         KDF_REHASH_OTHER_SCHEME},
        {"bcrypt cost=12", 1, "$2b$12$" BCRYPT_TAIL, KDF_REHASH_NO},
        {"bcrypt cost=12", 1, "$2b$13$" BCRYPT_TAIL, KDF_REHASH_NO},
        {"argon2id m=65536,t=3,p=4", 1, "$argon2id$v=19$m=65536,t=3,p=4$" ARGON2_TAIL,
         KDF_REHASH_NO},
        {"argon2id m=65536,t=3,p=4", 1, "$argon2i$v=19$m=65536,t=3,p=4$" ARGON2_TAIL,
         KDF_REHASH_OTHER_SCHEME},
        {"argon2id m=65536,t=3,p=4", 1, "!$2b$12$" BCRYPT_TAIL, KDF_REHASH_NO},
        {"argon2id m=65536,t=3,p=4", 1, "", KDF_REHASH_NO},
    };
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct kdf_policy p;
        struct kdf_hash h;
        char err[200];
        enum kdf_rehash got;

        kdf_policy_default(&p);
        if (kdf_policy_set(&p, "target", rows[i].target, err, sizeof err) != KDF_OK ||
            kdf_policy_set(&p, "migrate", rows[i].migrate ? "yes" : "no", err, sizeof err) !=
                KDF_OK)
            fail_msg("row %zu: policy: %s", i, err);
        parse_ok(rows[i].hash, &h);
        got = kdf_needs_rehash(&h, &p);
        if (got != rows[i].want)
            fail_msg("row %zu (%s, migrate=%d, %.20s): got %s, want %s", i, rows[i].target,
                     rows[i].migrate, rows[i].hash, kdf_rehash_reason(got),
                     kdf_rehash_reason(rows[i].want));
    }
    /* An accepted scheme is kept by the rules and moved by migrate. */
    {
        struct kdf_policy p;
        struct kdf_hash h;
        char err[200];

        kdf_policy_default(&p);
        assert_int_equal(kdf_policy_set(&p, "target", "bcrypt cost=12", err, sizeof err), KDF_OK);
        assert_int_equal(kdf_policy_set(&p, "accept", "argon2id", err, sizeof err), KDF_OK);
        parse_ok("$argon2id$v=19$m=65536,t=3,p=4$" ARGON2_TAIL, &h);
        assert_int_equal(kdf_needs_rehash(&h, &p), KDF_REHASH_NO);
        assert_int_equal(kdf_policy_set(&p, "migrate", "yes", err, sizeof err), KDF_OK);
        assert_int_equal(kdf_needs_rehash(&h, &p), KDF_REHASH_MIGRATE);
    }
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_MIGRATE), "migration");
}

/* crypt(3) targets: text, bounds, and a hash libxcrypt itself verifies. */
static void
test_crypt_target_text(void **state)
{
    static const char *const bad[] = {
        "yescrypt cost=0",     "yescrypt cost=12",      "yescrypt rounds=5000",
        "sha512crypt cost=5",  "sha512crypt rounds=999", "sha512crypt rounds=1000000000",
        "sha256crypt rounds=", "yescrypt cost=5,cost=6",
    };
    struct kdf_target t;
    struct kdf_policy p;
    struct kdf_hash h;
    char err[200], txt[128], out[KDF_MAX_HASH_STR + 1];
    (void)state;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kdf_target_parse(bad[i], &t, err, sizeof err) == KDF_OK)
            fail_msg("accepted '%s'", bad[i]);
    assert_int_equal(kdf_target_parse("yescrypt", &t, err, sizeof err), KDF_OK);
    assert_int_equal(t.scheme, KDF_SCHEME_LEGACY);
    assert_int_equal(t.xcrypt, KDF_XCRYPT_YESCRYPT);
    assert_int_equal(t.cost, 5);
    assert_string_equal(kdf_target_name(&t), "yescrypt");
    assert_int_equal(kdf_target_format(&t, txt, sizeof txt), KDF_OK);
    assert_string_equal(txt, "yescrypt cost=5");
    assert_int_equal(kdf_target_parse("sha512crypt:rounds=6000", &t, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_target_format(&t, txt, sizeof txt), KDF_OK);
    assert_string_equal(txt, "sha512crypt rounds=6000");

    /* The rounds of sha-crypt targets are held to max.pbkdf2 like a
     * stored $6$. */
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_set(&p, "max.pbkdf2", "5000", err, sizeof err), KDF_OK);
    assert_int_not_equal(kdf_policy_set(&p, "target", "sha512crypt rounds=6000", err, sizeof err),
                         KDF_OK);

    /* Made through libxcrypt, read back by the parser and verified. */
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_set(&p, "target", "yescrypt cost=1", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_hash_ex("pw", 2, &p.target, &p, NULL, 0, out, sizeof out), KDF_OK);
    assert_true(strncmp(out, "$y$", 3) == 0);
    parse_ok(out, &h);
    assert_int_equal(h.scheme, KDF_SCHEME_LEGACY);
    assert_int_equal(kdf_verify_ex("pw", 2, &h, &p, NULL, 0), KDF_OK);
    assert_int_equal(kdf_verify_ex("pW", 2, &h, &p, NULL, 0), KDF_MISMATCH);
    assert_int_equal(kdf_needs_rehash(&h, &p), KDF_REHASH_NO);
    /* A password with a NUL inside cannot be given to crypt(3) whole. */
    assert_int_equal(kdf_hash_ex("p\0w", 3, &p.target, &p, NULL, 0, out, sizeof out),
                     KDF_RANGE);
    assert_int_equal(kdf_policy_set(&p, "migrate", "maybe", err, sizeof err), KDF_MALFORMED);
}

/* min.pbkdf2-len refuses short digests (a 1-byte digest lets one wrong
 * password in 256 in), min.pbkdf2-salt makes short salts outdated, and
 * targets below either are refused.  Strings from hashlib.pbkdf2_hmac. */
static void
test_pbkdf2_lengths(void **state)
{
    struct kdf_policy pol;
    struct kdf_hash h;
    struct kdf_target t;
    const char *why = NULL;
    char err[200], out[KDF_MAX_HASH_STR + 1];
    (void)state;

    kdf_policy_default(&pol);
    assert_int_equal(kdf_policy_bound_get(&pol, "min.pbkdf2-len", 0), 16);
    assert_int_equal(kdf_policy_bound_get(&pol, "min.pbkdf2-salt", 0), 8);
    /* 1-byte and 15-byte digests: refused before any work. */
    parse_ok("$pbkdf2-sha256$i=600000,l=1$a2RmaGFzaC1yZWhhc2gxNg$8w", &h);
    assert_int_equal(kdf_check_caps(&h, 8, &pol, &why), KDF_TOO_COSTLY);
    assert_non_null(strstr(why, "min.pbkdf2-len"));
    assert_int_equal(kdf_verify_ex("x", 1, &h, &pol, NULL, 0), KDF_TOO_COSTLY);
    parse_ok("$pbkdf2-sha256$i=600000,l=15$a2RmaGFzaC1yZWhhc2gxNg$8/oP3XGlmE43hAc7oA5z", &h);
    assert_int_equal(kdf_check_caps(&h, 8, &pol, &why), KDF_TOO_COSTLY);
    parse_ok("$pbkdf2-sha256$i=600000,l=16$a2RmaGFzaC1yZWhhc2gxNg$8/oP3XGlmE43hAc7oA5zLw", &h);
    assert_int_equal(kdf_check_caps(&h, 8, &pol, &why), KDF_OK);
    /* A 4-byte salt at the target's cost: outdated; 8 bytes: kept. */
    assert_int_equal(kdf_policy_set(&pol, "target", "pbkdf2-sha256 i=1000", err, sizeof err),
                     KDF_OK);
    parse_ok("$pbkdf2-sha256$i=1000,l=32$c2FsdA$8/oP3XGlmE43hAc7oA5zL7uDzHzmxSOrJVIhJBvTH7w", &h);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_TOO_CHEAP);
    parse_ok("$pbkdf2-sha256$i=1000,l=32$a2RmaGFzaC0$8/oP3XGlmE43hAc7oA5zL7uDzHzmxSOrJVIhJBvTH7w",
             &h);
    assert_int_equal(kdf_needs_rehash(&h, &pol), KDF_REHASH_NO);
    /* Targets below either minimum are configuration errors, in the
     * policy and in the hasher. */
    assert_int_not_equal(kdf_policy_set(&pol, "target", "pbkdf2-sha256 format=phc,len=1", err,
                                        sizeof err),
                         KDF_OK);
    assert_int_not_equal(kdf_policy_set(&pol, "target", "pbkdf2-sha256 salt=4", err, sizeof err),
                         KDF_OK);
    memset(&t, 0, sizeof t);
    t.scheme = KDF_SCHEME_PBKDF2_SHA256;
    t.format = KDF_FMT_PHC;
    t.cost = 1000;
    t.salt_len = 16;
    t.dk_len = 1;
    assert_int_equal(kdf_hash_ex("x", 1, &t, &pol, NULL, 0, out, sizeof out), KDF_RANGE);
    /* Both are policy keys. */
    assert_int_equal(kdf_policy_set(&pol, "min.pbkdf2-len", "1", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_set(&pol, "target", "pbkdf2-sha256 format=phc,len=1", err,
                                    sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&pol, "min.pbkdf2-salt", "65", err, sizeof err),
                     KDF_MALFORMED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rehash_table),
        cmocka_unit_test(test_heavy),
        cmocka_unit_test(test_pbkdf2_lengths),
        cmocka_unit_test(test_crypt_targets_and_migrate),
        cmocka_unit_test(test_crypt_target_text),
        cmocka_unit_test(test_argon2_grid),
        cmocka_unit_test(test_bcrypt_pbkdf2_grid),
        cmocka_unit_test(test_caps_table),
        cmocka_unit_test(test_check_target),
        cmocka_unit_test(test_generator_matches_verifier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
