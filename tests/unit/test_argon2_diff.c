/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_argon2_diff.c - differential test against the reference Argon2
 * (Debian libargon2, phc-winner-argon2 20171227; test-only dependency).
 *
 * 240 random parameter sets: m 8p..4096 KiB, t 1..4, p 1..8, all three
 * types, both versions, every salt length 8..64 and every tag length
 * 4..64 bytes (in turn), random passwords
 * 0..128 bytes, and for a third of them a secret and associated data.
 * Each must give the same tag as argon2_ctx(), and (when there is no
 * secret/AD, which the PHC string cannot carry) the same encoded string as
 * argon2_hash(); then our verifier accepts libargon2's string and refuses
 * it for a flipped password.  A few extra sets use tags of 65..200 bytes
 * (H' with several BLAKE2b blocks).  Every set runs on the dispatched
 * variant; the first 24 also on each other usable variant.
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <argon2.h>
#include <cmocka.h>

#include "alg_argon2.h"
#include "hex_common.h"

/* `make check`: 240 sets up to 4 MiB with a fixed seed.  The soak tier
 * (tests/soak/soak_argon2.sh) passes --sets, --max-m and a fresh --seed. */
static unsigned long g_sets = 240;
static uint32_t g_max_m = 4096;

static uint64_t g_rng = 0x13198a2e03707344ULL;

static uint64_t
rnd64(void)
{
    return splitmix64(&g_rng);
}

static uint32_t
rnd_in(uint32_t lo, uint32_t hi)
{
    return lo + (uint32_t)(rnd64() % ((uint64_t)hi - lo + 1));
}

static void
rnd_bytes(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd64();
}

static const enum kdf_scheme our_type[3] = {KDF_SCHEME_ARGON2D, KDF_SCHEME_ARGON2I,
                                            KDF_SCHEME_ARGON2ID};

struct set {
    int type;
    uint32_t version, t, m, p, tag_len;
    size_t pw_len, salt_len, secret_len, ad_len;
    uint8_t pw[128], salt[64], secret[32], ad[32];
};

/* n >= 0 walks salt lengths 8..64 and tag lengths 4..64 in turn, so 240
 * sets cover every allowed length; n < 0 draws them at random. */
static void
make_set(struct set *s, uint32_t max_tag, long n)
{
    memset(s, 0, sizeof *s);
    s->type = (int)rnd_in(0, 2);
    s->version = rnd_in(0, 1) ? 0x13 : 0x10;
    s->t = rnd_in(1, 4);
    s->p = rnd_in(1, 8);
    s->m = rnd_in(8 * s->p, g_max_m < 8 * s->p ? 8 * s->p : g_max_m);
    if (rnd_in(0, 3) == 0) /* small m is where the edge cases are */
        s->m = rnd_in(8 * s->p, 8 * s->p + 40);
    s->tag_len = n >= 0 ? 4 + (uint32_t)(n % 61) : rnd_in(4, max_tag);
    s->salt_len = n >= 0 ? 8 + (size_t)(n % 57) : rnd_in(8, 64);
    s->pw_len = rnd_in(0, 128);
    rnd_bytes(s->pw, s->pw_len);
    rnd_bytes(s->salt, s->salt_len);
    if (rnd_in(0, 2) == 0) {
        s->secret_len = rnd_in(0, 32);
        s->ad_len = rnd_in(0, 32);
        rnd_bytes(s->secret, s->secret_len);
        rnd_bytes(s->ad, s->ad_len);
    }
}

static void
check_tag(struct set *s, size_t n, const char *variant)
{
    uint8_t ours[256], theirs[256];
    argon2_context c;

    memset(&c, 0, sizeof c);
    c.out = theirs;
    c.outlen = s->tag_len;
    c.pwd = s->pw_len ? s->pw : NULL;
    c.pwdlen = (uint32_t)s->pw_len;
    c.salt = s->salt;
    c.saltlen = (uint32_t)s->salt_len;
    c.secret = s->secret_len ? s->secret : NULL;
    c.secretlen = (uint32_t)s->secret_len;
    c.ad = s->ad_len ? s->ad : NULL;
    c.adlen = (uint32_t)s->ad_len;
    c.t_cost = s->t;
    c.m_cost = s->m;
    c.lanes = s->p;
    /* The reference on one thread: its tag does not depend on the thread
     * count (RFC 9106 section 3.4), and libargon2 starts a thread per lane
     * and slice, which under qemu-user (make check-cross) made this test
     * grow to gigabytes and run for twenty minutes.  Our side still runs
     * on 0 to 3 threads (max_threads below). */
    c.threads = 1;
    c.version = s->version;
    assert_int_equal(argon2_ctx(&c, (argon2_type)s->type), ARGON2_OK);

    /* libargon2's argon2_type numbers are RFC 9106's y, as ours are. */
    struct kdf_argon2_args kp = {.type = (enum kdf_argon2_type)s->type,
                                 .version = s->version,
                                 .t_cost = s->t,
                                 .m_kib = s->m,
                                 .lanes = s->p,
                                 .max_threads = (uint32_t)rnd_in(0, 3),
                                 .pw = s->pw,
                                 .pw_len = s->pw_len,
                                 .salt = s->salt,
                                 .salt_len = s->salt_len,
                                 .secret = s->secret,
                                 .secret_len = s->secret_len,
                                 .ad = s->ad,
                                 .ad_len = s->ad_len};
    assert_int_equal(kdf_argon2_raw(&kp, ours, s->tag_len, NULL, 0), KDF_OK);
    if (memcmp(ours, theirs, s->tag_len) != 0)
        fail_msg("set %zu (%s): type %d v=%#x t=%u m=%u p=%u salt %zu tag %u pw %zu "
                 "secret %zu ad %zu: tags differ",
                 n, variant, s->type, s->version, s->t, s->m, s->p, s->salt_len,
                 s->tag_len, s->pw_len, s->secret_len, s->ad_len);
}

static void
check_encoded(struct set *s, size_t n)
{
    char theirs[512], ours[KDF_MAX_HASH_STR + 1];
    uint8_t raw[64];

    assert_int_equal(argon2_hash(s->t, s->m, s->p, s->pw, s->pw_len, s->salt, s->salt_len,
                                 raw, s->tag_len, theirs, sizeof theirs,
                                 (argon2_type)s->type, (argon2_version)s->version),
                     ARGON2_OK);
    struct kdf_target t = {
        our_type[s->type],     KDF_FMT_NATIVE, 0, s->version, s->t, s->m, s->p,
        (uint32_t)s->salt_len, s->tag_len, KDF_XCRYPT_NONE, 0, {0}};
    assert_int_equal(kdf_hash_salt((const char *)s->pw, s->pw_len, &t, s->salt,
                                   s->salt_len, ours, sizeof ours),
                     KDF_OK);
    if (strcmp(ours, theirs) != 0)
        fail_msg("set %zu: encoded strings differ:\n ours   %s\n theirs %s", n, ours,
                 theirs);
    assert_int_equal(kdf_verify((const char *)s->pw, s->pw_len, theirs, strlen(theirs)),
                     KDF_OK);
    s->pw[0] ^= 0x80;
    assert_int_equal(kdf_verify((const char *)s->pw, s->pw_len ? s->pw_len : 1, theirs,
                                strlen(theirs)),
                     KDF_MISMATCH);
    s->pw[0] ^= 0x80;
}

static void
test_random_sets(void **state)
{
    struct set s;
    size_t encoded = 0;
    (void)state;

    for (size_t n = 0; n < g_sets; n++) {
        make_set(&s, 64, (long)n);
        check_tag(&s, n, kdf_impl_name(KDF_PRIM_BLAMKA));
        if (s.secret_len == 0 && s.ad_len == 0) {
            check_encoded(&s, n);
            encoded++;
        }
    }
    print_message("%lu sets agree on the tag, %zu on the encoded string too\n", g_sets,
                  encoded);
    assert_true(encoded >= g_sets / 2);
}

static void
test_long_tags(void **state)
{
    struct set s;
    (void)state;
    for (size_t n = 0; n < 12; n++) {
        make_set(&s, 200, -1);
        s.tag_len = rnd_in(65, 200);
        check_tag(&s, n, "long tag");
    }
}

static void
test_every_variant(void **state)
{
    const char *names[8];
    int usable[8];
    size_t rows = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, 8);
    struct set s;
    (void)state;

    for (size_t i = 0; i < rows; i++) {
        if (!usable[i]) {
            print_message("variant %s: not supported by this CPU, skipped\n", names[i]);
            continue;
        }
        assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLAMKA, i), KDF_OK);
        for (size_t n = 0; n < 24; n++) {
            make_set(&s, 64, -1);
            check_tag(&s, n, names[i]);
        }
    }
    kdf_dispatch_force_mask(~0u);
}

int
main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--sets") == 0)
            g_sets = strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--max-m") == 0)
            g_max_m = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--seed") == 0)
            g_rng = strtoull(argv[i + 1], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--sets N] [--max-m KiB] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_sets),
        cmocka_unit_test(test_long_tags),
        cmocka_unit_test(test_every_variant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
