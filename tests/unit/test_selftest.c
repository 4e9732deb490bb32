/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_selftest.c - the FIPS-aligned profile's core parts: the known
 * answers compiled into api_selftest.c are tests/vectors/selftest.inc's,
 * one for one; kdf_selftest() passes, and fails naming the group a test
 * hook breaks (kdf_selftest_once() too, and forgets it once mended); the
 * profile key reads default, fips, sp800-63b and both; and profile = fips
 * refuses, at load and as a module override, every target but PBKDF2-SHA-256
 * or -512, a salt under 16 bytes, a key under 14 and a pepper, each with a
 * reason that names the profile and the rule.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdfhash.h"
#include "kdf_testing.h"

struct inc_row {
    const char *group, *msg, *salt_hex, *want_hex;
    size_t key_len;
    uint32_t iterations;
    unsigned out_bits;
};

#define ST_HASH(g, m, w) {g, m, NULL, w, 0, 0, (unsigned)(sizeof(w) - 1) * 4},
#define ST_HMAC(g, k, m, w) {g, m, NULL, w, k, 0, (unsigned)(sizeof(w) - 1) * 4},
#define ST_PBKDF2(g, pw, s, it, bits, w) {g, pw, s, w, 0, it, bits},
static const struct inc_row g_inc[] = {
#include "vectors/selftest.inc"
};
#define N_INC (sizeof g_inc / sizeof g_inc[0])

static int
str_eq(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Every compiled-in answer is the data file's, and the other way round. */
static void
test_vectors_match_data(void **state)
{
    size_t n = 0;
    const struct kdf_kat *k;

    (void)state;
    for (; (k = kdf_selftest_kat(n)) != NULL; n++) {
        const struct inc_row *r = NULL;

        for (size_t i = 0; i < N_INC && r == NULL; i++)
            if (strcmp(g_inc[i].group, k->group) == 0 && strcmp(g_inc[i].msg, k->msg) == 0)
                r = &g_inc[i];
        if (r == NULL)
            fail_msg("compiled-in vector %s '%s' is not in selftest.inc", k->group, k->msg);
        assert_true(str_eq(r->salt_hex, k->salt_hex));
        assert_string_equal(r->want_hex, k->want_hex);
        assert_int_equal(r->key_len, k->key_len);
        assert_int_equal(r->iterations, k->iterations);
        assert_int_equal(r->out_bits, k->out_bits);
    }
    assert_int_equal(n, N_INC);
    /* Every group has at least one vector. */
    for (size_t g = 0; kdf_selftest_name(g) != NULL; g++) {
        int found = 0;

        for (size_t i = 0; (k = kdf_selftest_kat(i)) != NULL; i++)
            found |= strcmp(k->group, kdf_selftest_name(g)) == 0;
        if (!found)
            fail_msg("self-test group %s has no vector", kdf_selftest_name(g));
    }
}

static void
test_selftest_passes(void **state)
{
    const char *failed = "x";

    (void)state;
    assert_int_equal(kdf_selftest(&failed), KDF_OK);
    assert_null(failed);
    assert_int_equal(kdf_selftest_once(&failed), KDF_OK);
    assert_null(failed);
    assert_int_equal(kdf_selftest(NULL), KDF_OK);
}

/* Each group, broken by the hook, fails and is named. */
static void
test_selftest_forced_failure(void **state)
{
    const char *g, *failed;

    (void)state;
    for (size_t i = 0; (g = kdf_selftest_name(i)) != NULL; i++) {
        kdf_selftest_force_fail(g);
        failed = NULL;
        assert_int_equal(kdf_selftest(&failed), KDF_INTERNAL);
        assert_non_null(failed);
        assert_string_equal(failed, g);
        failed = NULL;
        assert_int_equal(kdf_selftest_once(&failed), KDF_INTERNAL);
        assert_string_equal(failed, g);
        /* Once answered, the answer stays until the hook forgets it. */
        assert_int_equal(kdf_selftest_once(NULL), KDF_INTERNAL);
    }
    kdf_selftest_force_fail(NULL);
    assert_int_equal(kdf_selftest_once(&failed), KDF_OK);
    assert_int_equal(kdf_selftest(NULL), KDF_OK);
}

/* Every entry point under fips runs the self-tests first and, after a
 * failure, refuses its algorithms; other profiles never ask. */
static void
test_entry_points_gated(void **state)
{
    struct kdf_policy fips, plain;
    struct kdf_target t;
    struct kdf_hash h;
    char err[256], hash[256];
    static const uint8_t salt[16] = "0123456789abcdef";

    (void)state;
    kdf_policy_default(&plain);
    kdf_policy_default(&fips);
    assert_int_equal(kdf_policy_set(&fips, "target", "pbkdf2-sha512 i=210000", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&fips, "profile", "fips", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_target_parse("pbkdf2-sha512 i=1000", &t, NULL, 0), KDF_OK);
    assert_int_equal(kdf_hash_ex("pw", 2, &t, &plain, salt, sizeof salt, hash, sizeof hash),
                     KDF_OK);
    assert_int_equal(kdf_parse(hash, strlen(hash), &h, NULL), KDF_OK);
    kdf_selftest_force_fail(kdf_selftest_name(0));
    assert_int_equal(kdf_verify_ex("pw", 2, &h, &fips, NULL, 0), KDF_INTERNAL);
    assert_int_equal(kdf_hash_ex("pw", 2, &fips.target, &fips, salt, sizeof salt, hash,
                                 sizeof hash), KDF_INTERNAL);
    assert_int_equal(kdf_verify_ex("pw", 2, &h, &plain, NULL, 0), KDF_OK);
    kdf_selftest_force_fail(NULL);
    assert_int_equal(kdf_verify_ex("pw", 2, &h, &fips, NULL, 0), KDF_OK);
}

/* Under fips what NIST does not approve is outdated (not-fips-approved),
 * even a scheme accept = keeps, and so is PBKDF2 with a salt or a digest
 * under SP 800-132's sizes; without fips the same entries are kept. */
static void
test_fips_rehash(void **state)
{
    static const struct {
        const char *target;
        size_t salt_len;
        enum kdf_rehash want;
    } rows[] = {
        {"pbkdf2-sha512 i=1000", 16, KDF_REHASH_NO},
        {"pbkdf2-sha256 i=1000", 16, KDF_REHASH_NO},
        {"pbkdf2-sha512 i=1000,salt=8", 8, KDF_REHASH_FIPS},
        {"pbkdf2-sha256 i=1000,format=phc,len=12", 16, KDF_REHASH_FIPS},
        {"argon2id m=256,t=1,p=1", 16, KDF_REHASH_FIPS},
    };
    static const uint8_t salt[16] = "0123456789abcdef";
    struct kdf_policy fips, plain;
    char err[256], hash[256];

    (void)state;
    kdf_policy_default(&plain);
    assert_int_equal(kdf_policy_set(&plain, "min.pbkdf2-salt", "8", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_set(&plain, "min.pbkdf2-len", "12", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_set(&plain, "min.pbkdf2-sha512", "1000", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&plain, "min.pbkdf2-sha256", "1000", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&plain, "min.argon2", "m=8,t=1,p=1", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&plain, "accept", "argon2id,pbkdf2-sha256", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&plain, "target", "pbkdf2-sha512 i=1000", err, sizeof err),
                     KDF_OK);
    fips = plain;
    assert_int_equal(kdf_policy_set(&fips, "profile", "fips", err, sizeof err), KDF_OK);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct kdf_target t;
        struct kdf_hash h;

        assert_int_equal(kdf_target_parse(rows[i].target, &t, NULL, 0), KDF_OK);
        assert_int_equal(kdf_hash_ex("pw", 2, &t, &plain, salt, rows[i].salt_len, hash,
                                     sizeof hash), KDF_OK);
        assert_int_equal(kdf_parse(hash, strlen(hash), &h, NULL), KDF_OK);
        if (kdf_needs_rehash(&h, &fips) != rows[i].want)
            fail_msg("%s under fips: %s", rows[i].target,
                     kdf_rehash_reason(kdf_needs_rehash(&h, &fips)));
        assert_int_equal(kdf_needs_rehash(&h, &plain), KDF_REHASH_NO);
    }
    assert_string_equal(kdf_rehash_reason(KDF_REHASH_FIPS), "not-fips-approved");
}

/* ---- profile ------------------------------------------------------------- */

static char g_dir[] = "/tmp/kdf-selftest-XXXXXX";

static enum kdf_status
load_text(const char *text, struct kdf_policy *p, char *err, size_t cap)
{
    char path[64];
    FILE *f;
    enum kdf_status st;

    snprintf(path, sizeof path, "%s/t.conf", g_dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
    chmod(path, 0644);
    kdf_policy_default(p);
    st = kdf_policy_load(p, path, 0, err, cap);
    unlink(path);
    return st;
}

static void
test_profile_values(void **state)
{
    static const struct {
        const char *v;
        uint32_t bits;
    } ok[] = {{"default", 0},
              {"sp800-63b", KDF_PROFILE_SP800_63B},
              {"fips,sp800-63b", KDF_PROFILE_FIPS | KDF_PROFILE_SP800_63B},
              {"sp800-63b, fips", KDF_PROFILE_FIPS | KDF_PROFILE_SP800_63B}};
    static const char *const bad[] = {"fips,fips", "FIPS", "none", "fips,default", ","};
    struct kdf_policy p;
    char err[256], text[128];

    (void)state;
    kdf_policy_default(&p);
    assert_int_equal(p.profile, 0);
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        snprintf(text, sizeof text, "target = pbkdf2-sha512\nblocklist = /x\nprofile = %s\n",
                 ok[i].v);
        assert_int_equal(load_text(text, &p, err, sizeof err), KDF_OK);
        assert_int_equal(p.profile, ok[i].bits);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "profile = %s\n", bad[i]);
        assert_int_equal(load_text(text, &p, err, sizeof err), KDF_MALFORMED);
        assert_non_null(strstr(err, "t.conf:1: must be default, fips"));
    }
}

/* The test: fips refuses an Argon2 target at load and accepts
 * PBKDF2-SHA-512; and every other rule, each with its reason. */
static void
test_fips_load(void **state)
{
    static const struct {
        const char *text, *why;
    } refused[] = {
        {"profile = fips\n", "t.conf:1: profile = fips: target argon2id is not FIPS-approved"},
        {"profile = fips\ntarget = argon2id m=65536,t=3,p=4\n",
         "t.conf:2: profile = fips: target argon2id is not FIPS-approved"},
        {"target = bcrypt cost=12\nprofile = fips\n", "target bcrypt is not FIPS-approved"},
        {"target = pbkdf2-sha1 i=1300000\nprofile = fips\n",
         "target pbkdf2-sha1 is not FIPS-approved"},
        {"target = scrypt\nblocklist = /x\nprofile = fips,sp800-63b\n",
         "is not FIPS-approved"},
        /* sp800-63b without the list the standard requires. */
        {"profile = sp800-63b\n", "t.conf:1: profile = sp800-63b: needs blocklist = PATH"},
        {"profile = fips\ntarget = pbkdf2-sha256 salt=8\nmin.pbkdf2-salt = 8\n",
         "profile = fips: target salt of 8 bytes, below 16 (128 bits)"},
        {"profile = fips\ntarget = pbkdf2-sha512 format=phc,len=13\nmin.pbkdf2-len = 13\n",
         "profile = fips: target len of 13 bytes, below 14 (112 bits)"},
        {"profile = fips\ntarget = pbkdf2-sha512\npepper = AAAA\n",
         "profile = fips: pepper is set"},
        {"profile = fips\ntarget = pbkdf2-sha512 i=1000\n", "below the policy's own"},
    };
    struct kdf_policy p;
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        err[0] = '\0';
        assert_int_not_equal(load_text(refused[i].text, &p, err, sizeof err), KDF_OK);
        if (strstr(err, refused[i].why) == NULL)
            fail_msg("'%s': got '%s', want '%s'", refused[i].text, err, refused[i].why);
    }
    assert_int_equal(load_text("profile = fips\ntarget = pbkdf2-sha512\n", &p, err, sizeof err),
                     KDF_OK);
    assert_int_equal(p.profile, KDF_PROFILE_FIPS);
    assert_int_equal(p.target.scheme, KDF_SCHEME_PBKDF2_SHA512);
    assert_int_equal(load_text("target = pbkdf2-sha256 i=600000,format=phc,len=14\n"
                               "min.pbkdf2-len = 14\n"
                               "profile = fips\n",
                               &p, err, sizeof err),
                     KDF_OK);
    /* Without fips, the same Argon2 target loads. */
    assert_int_equal(load_text("profile = sp800-63b\nblocklist = /x\n", &p, err, sizeof err),
                     KDF_OK);
}

/* A module override is held to the same rules, all or nothing. */
static void
test_fips_override(void **state)
{
    struct kdf_policy p;
    char err[256];

    (void)state;
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_set(&p, "profile", "fips", err, sizeof err), KDF_UNSUPPORTED);
    assert_non_null(strstr(err, "profile: profile = fips: target argon2id"));
    assert_int_equal(p.profile, 0);
    assert_int_equal(kdf_policy_set(&p, "target", "pbkdf2-sha256", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_set(&p, "profile", "fips", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_set(&p, "target", "bcrypt", err, sizeof err), KDF_UNSUPPORTED);
    assert_int_equal(p.target.scheme, KDF_SCHEME_PBKDF2_SHA256);
}

static int
setup(void **state)
{
    (void)state;
    return mkdtemp(g_dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
    (void)state;
    return rmdir(g_dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors_match_data),
        cmocka_unit_test(test_selftest_passes),
        cmocka_unit_test(test_selftest_forced_failure),
        cmocka_unit_test(test_entry_points_gated),
        cmocka_unit_test(test_fips_rehash),
        cmocka_unit_test(test_profile_values),
        cmocka_unit_test(test_fips_load),
        cmocka_unit_test(test_fips_override),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
