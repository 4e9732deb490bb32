/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_argon2.c - Argon2 (RFC 9106) through the public API, for every
 * BlaMka variant this CPU runs.
 *
 * Expected values are never our own output:
 *  - RFC 9106 section 5.1-5.3 (Argon2d/i/id v=0x13 with secret and
 *    associated data, m=32 t=3 p=4, tag 32);
 *  - the reference implementation's src/test.c (phc-winner-argon2), which
 *    holds the v=0x10 vectors and more v=0x13 ones (the m=256 rows on
 *    every variant, the m=65536 rows on the dispatched one);
 *  - tests/vectors/argon2.inc and argon2_argon2cli.inc (argon2-cffi and
 *    the Debian argon2 CLI, from tests/vectors/gen-vectors.py).
 * Also: lanes > threads, the caller's work area, KDF_RANGE and KDF_NOMEM.
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "san_detect.h"

#include "alg_argon2.h"
#include "hex_common.h"

/* Run fn once per BlaMka variant this CPU supports, forced by index. */
static void
each_variant(void (*fn)(const char *name))
{
    const char *names[16];
    int usable[16];
    size_t n = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, 16);
    size_t ran = 0;

    assert_true(n >= 1 && n <= 16);
    for (size_t i = 0; i < n; i++) {
        if (!usable[i]) {
            print_message("variant %s: not supported by this CPU, skipped\n", names[i]);
            continue;
        }
        assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLAMKA, i), KDF_OK);
        assert_string_equal(kdf_impl_name(KDF_PRIM_BLAMKA), names[i]);
        fn(names[i]);
        ran++;
    }
    kdf_dispatch_force_mask(~0u); /* back to the normal pick */
    assert_true(ran >= 1);
}

/* ---- RFC 9106 section 5 ---- */

static const struct {
    enum kdf_argon2_type type;
    const char *name, *tag;
} rfc9106[] = {
    {KDF_ARGON2_D, "argon2d",
     "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb"},
    {KDF_ARGON2_I, "argon2i",
     "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8"},
    {KDF_ARGON2_ID, "argon2id",
     "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"},
};

static void
rfc_params(struct kdf_argon2_args *p, enum kdf_argon2_type type, const uint8_t pw[32],
           uint8_t salt[16], uint8_t secret[8], uint8_t ad[12])
{
    memset(salt, 2, 16);
    memset(secret, 3, 8);
    memset(ad, 4, 12);
    *p = (struct kdf_argon2_args){.type = type,
                                  .version = 0x13,
                                  .t_cost = 3,
                                  .m_kib = 32,
                                  .lanes = 4,
                                  .pw = pw,
                                  .pw_len = 32,
                                  .salt = salt,
                                  .salt_len = 16,
                                  .secret = secret,
                                  .secret_len = 8,
                                  .ad = ad,
                                  .ad_len = 12};
}

static void
rfc_one_variant(const char *name)
{
    uint8_t pw[32], salt[16], secret[8], ad[12], out[32], want[32];
    struct kdf_argon2_args p;

    memset(pw, 1, sizeof pw);
    for (size_t r = 0; r < 3; r++) {
        rfc_params(&p, rfc9106[r].type, pw, salt, secret, ad);
        unhex(rfc9106[r].tag, want, sizeof want);
        for (uint32_t th = 0; th <= 4; th++) { /* automatic, then 1..4 threads */
            p.max_threads = th;
            memset(out, 0, sizeof out);
            assert_int_equal(kdf_argon2_raw(&p, out, sizeof out, NULL, 0), KDF_OK);
            if (memcmp(out, want, sizeof out) != 0)
                fail_msg("RFC 9106 %s, variant %s, threads %u", rfc9106[r].name, name,
                         th);
        }
        /* Each input matters: secret, AD, password. */
        p.secret_len = 7;
        assert_int_equal(kdf_argon2_raw(&p, out, sizeof out, NULL, 0), KDF_OK);
        assert_memory_not_equal(out, want, sizeof out);
        p.secret_len = 8;
        p.ad_len = 11;
        assert_int_equal(kdf_argon2_raw(&p, out, sizeof out, NULL, 0), KDF_OK);
        assert_memory_not_equal(out, want, sizeof out);
        p.ad_len = 12;
        pw[31] ^= 1;
        assert_int_equal(kdf_argon2_raw(&p, out, sizeof out, NULL, 0), KDF_OK);
        assert_memory_not_equal(out, want, sizeof out);
        pw[31] ^= 1;
    }
}

static void
test_rfc9106(void **state)
{
    (void)state;
    each_variant(rfc_one_variant);
}

/* ---- phc-winner-argon2 src/test.c: salt "somesalt" (or "diffsalt"),
 * tag 32, m = 2^m_log KiB.  The m=2^18 and 2^20 rows are left out to keep
 * `make check` fast. ---- */
static const struct {
    enum kdf_argon2_type type;
    uint32_t version, t, m_log, p;
    const char *pw, *salt, *hex, *mcf;
} refvec[] = {
    {KDF_ARGON2_I, 0x10, 2, 16, 1, "password", "somesalt",
     "f6c4db4a54e2a370627aff3db6176b94a2a209a62c8e36152711802f7b30c694",
     "$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ"},
    {KDF_ARGON2_I, 0x10, 2, 8, 1, "password", "somesalt",
     "fd4dd83d762c49bdeaf57c47bdcd0c2f1babf863fdeb490df63ede9975fccf06",
     "$argon2i$m=256,t=2,p=1$c29tZXNhbHQ$/U3YPXYsSb3q9XxHvc0MLxur+GP960kN9j7emXX8zwY"},
    {KDF_ARGON2_I, 0x10, 2, 8, 2, "password", "somesalt",
     "b6c11560a6a9d61eac706b79a2f97d68b4463aa3ad87e00c07e2b01e90c564fb",
     "$argon2i$m=256,t=2,p=2$c29tZXNhbHQ$tsEVYKap1h6scGt5ovl9aLRGOqOth+AMB+KwHpDFZPs"},
    {KDF_ARGON2_I, 0x10, 1, 16, 1, "password", "somesalt",
     "81630552b8f3b1f48cdb1992c4c678643d490b2b5eb4ff6c4b3438b5621724b2",
     "$argon2i$m=65536,t=1,p=1$c29tZXNhbHQ$gWMFUrjzsfSM2xmSxMZ4ZD1JCytetP9sSzQ4tWIXJLI"},
    {KDF_ARGON2_I, 0x10, 2, 16, 1, "differentpassword", "somesalt",
     "e9c902074b6754531a3a0be519e5baf404b30ce69b3f01ac3bf21229960109a3",
     "$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$6ckCB0tnVFMaOgvlGeW69ASzDOabPwGsO/ISKZYBCaM"},
    {KDF_ARGON2_I, 0x10, 2, 16, 1, "password", "diffsalt",
     "79a103b90fe8aef8570cb31fc8b22259778916f8336b7bdac3892569d4f1c497",
     "$argon2i$m=65536,t=2,p=1$ZGlmZnNhbHQ$eaEDuQ/orvhXDLMfyLIiWXeJFvgza3vaw4kladTxxJc"},
    {KDF_ARGON2_I, 0x13, 2, 16, 1, "password", "somesalt",
     "c1628832147d9720c5bd1cfd61367078729f6dfb6f8fea9ff98158e0d7816ed0",
     "$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+"
     "YFY4NeBbtA"},
    {KDF_ARGON2_I, 0x13, 2, 8, 2, "password", "somesalt",
     "4ff5ce2769a1d7f4c8a491df09d41a9fbe90e5eb02155a13e4c01e20cd4eab61",
     "$argon2i$v=19$m=256,t=2,p=2$c29tZXNhbHQ$T/XOJ2mh1/"
     "TIpJHfCdQan76Q5esCFVoT5MAeIM1Oq2E"},
    {KDF_ARGON2_I, 0x13, 4, 16, 1, "password", "somesalt",
     "aaa953d58af3706ce3df1aefd4a64a84e31d7f54175231f1285259f88174ce5b",
     "$argon2i$v=19$m=65536,t=4,p=1$c29tZXNhbHQ$qqlT1YrzcGzj3xrv1KZKhOMdf1QXUjHxKFJZ+"
     "IF0zls"},
    {KDF_ARGON2_ID, 0x13, 2, 16, 1, "password", "somesalt",
     "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7",
     "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$"
     "CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"},
    {KDF_ARGON2_ID, 0x13, 2, 8, 1, "password", "somesalt",
     "9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe",
     "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/"
     "4"},
    {KDF_ARGON2_ID, 0x13, 2, 8, 2, "password", "somesalt",
     "6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037",
     "$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/"
     "5U52iv1cDc"},
    {KDF_ARGON2_ID, 0x13, 1, 16, 1, "password", "somesalt",
     "f6a5adc1ba723dddef9b5ac1d464e180fcd9dffc9d1cbf76cca2fed795d9ca98",
     "$argon2id$v=19$m=65536,t=1,p=1$c29tZXNhbHQ$9qWtwbpyPd3vm1rB1GThgPzZ3/"
     "ydHL92zKL+15XZypg"},
};

static int g_big_rows; /* the m=65536 rows: only on the dispatched variant */

static void
refvec_one_variant(const char *name)
{
    uint8_t out[32], want[32];

    for (size_t r = 0; r < sizeof refvec / sizeof refvec[0]; r++) {
        if (refvec[r].m_log > 8 && !g_big_rows)
            continue;
        const char *pw = refvec[r].pw;
        struct kdf_argon2_args p = {.type = refvec[r].type,
                                    .version = refvec[r].version,
                                    .t_cost = refvec[r].t,
                                    .m_kib = 1u << refvec[r].m_log,
                                    .lanes = refvec[r].p,
                                    .pw = (const uint8_t *)pw,
                                    .pw_len = strlen(pw),
                                    .salt = (const uint8_t *)refvec[r].salt,
                                    .salt_len = strlen(refvec[r].salt)};

        unhex(refvec[r].hex, want, sizeof want);
        assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_OK);
        if (memcmp(out, want, 32) != 0)
            fail_msg("reference vector %zu, variant %s", r, name);
        /* The same through the string (a missing v= reads as 0x10). */
        assert_int_equal(kdf_verify(pw, strlen(pw), refvec[r].mcf, strlen(refvec[r].mcf)),
                         KDF_OK);
        assert_int_equal(kdf_verify("passwore", 8, refvec[r].mcf, strlen(refvec[r].mcf)),
                         KDF_MISMATCH);
    }
}

static void
test_reference_vectors(void **state)
{
    (void)state;
    /* Every variant: the m=256 rows (v=0x10 and v=0x13, p=1 and 2).  The
     * 64 MiB rows once, on the variant the dispatcher picked, to keep the
     * binary fast under ASan. */
    each_variant(refvec_one_variant);
    g_big_rows = 1;
    refvec_one_variant(kdf_impl_name(KDF_PRIM_BLAMKA));
    g_big_rows = 0;
}

/* ---- generated rows from independent implementations ---- */
static const struct {
    const char *pw;
    size_t len;
    const char *hash;
} rows[] = {
#define KDF_VEC(pw, len, hash) {pw, len, hash},
#include "vectors/argon2.inc"
#include "vectors/argon2_argon2cli.inc"
#undef KDF_VEC
};

static void
rows_one_variant(const char *name)
{
    char flipped[512];

    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        size_t n = rows[r].len;
        enum kdf_status st =
            kdf_verify(rows[r].pw, n, rows[r].hash, strlen(rows[r].hash));
        if (st != KDF_OK)
            fail_msg("row %zu (%s), variant %s: %s", r, rows[r].hash, name,
                     kdf_status_str(st));
        assert_true(n < sizeof flipped);
        memcpy(flipped, rows[r].pw, n);
        if (n == 0)
            flipped[n++] = 'x';
        else
            flipped[n - 1] ^= 1;
        assert_int_equal(kdf_verify(flipped, n, rows[r].hash, strlen(rows[r].hash)),
                         KDF_MISMATCH);
    }
}

static void
test_vector_rows(void **state)
{
    (void)state;
    assert_true(sizeof rows / sizeof rows[0] >= 100);
    each_variant(rows_one_variant);
}

/* ---- lanes, threads, memory ---- */

static void
test_lanes_more_than_threads(void **state)
{
    uint8_t salt[16] = "0123456789abcdef", ref[32], out[32];
    (void)state;
    /* p = 7 lanes on 1..8 threads and automatic: one result. */
    struct kdf_argon2_args p = {.type = KDF_ARGON2_ID,
                                .version = 0x13,
                                .t_cost = 2,
                                .m_kib = 7 * 8 * 3,
                                .lanes = 7,
                                .max_threads = 1,
                                .pw = (const uint8_t *)"pw",
                                .pw_len = 2,
                                .salt = salt,
                                .salt_len = 16};
    assert_int_equal(kdf_argon2_raw(&p, ref, 32, NULL, 0), KDF_OK);
    for (uint32_t th = 0; th <= 8; th++) {
        p.max_threads = th;
        assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_OK);
        assert_memory_equal(out, ref, 32);
    }
    /* And the argon2 CLI row with p=4 (argon2_argon2cli.inc) under a
     * policy that allows one thread only. */
    const char *h =
        "$argon2id$v=19$m=256,t=2,p=4$MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY$"
        "fNXF7/GGSadlD2Coln7SyWVfkHE0xMDgzacLqmhzMP059CqYrpKIX/4MpTwIXaVKFpOty/"
        "zLoUxcnWTGXHOK9g";
    struct kdf_hash hh;
    struct kdf_policy pol;
    kdf_policy_default(&pol);
    pol.max_threads = 1;
    assert_int_equal(kdf_parse(h, strlen(h), &hh, NULL), KDF_OK);
    assert_int_equal(kdf_verify_ex("\377\243x", 3, &hh, &pol, NULL, 0), KDF_OK);
    pol.max_threads = 3;
    assert_int_equal(kdf_verify_ex("\377\243x", 3, &hh, &pol, NULL, 0), KDF_OK);
}

/* Areas of 4 MiB and more are populated in the background (one thread) or
 * by the lane threads, and each lane thread wipes its own lanes: same tags for
 * every thread count and for a caller's area.  Known answers from the
 * Debian argon2 CLI (argon2 somesaltsomesalt -id -t 1 -k 8192 -p 4 and
 * -d -t 2 -k 6144 -p 3 -v 10, password "password"). */
static void
test_big_area_paths(void **state)
{
    static const struct {
        enum kdf_argon2_type type;
        uint32_t v, t, m, p;
        const char *hex;
    } big[] = {
        {KDF_ARGON2_ID, 0x13, 1, 8192, 4,
         "613223da44e6bb61f6401ba9adb961a5a3d50c36f68b2dc209c9e11bc57666ac"},
        {KDF_ARGON2_D, 0x10, 2, 6144, 3,
         "b83127125f5f9c26ecbbb9bfd8405ff65683152e4bb56fc2a593adc71ec5bab1"},
    };
    uint8_t out[32], want[32];
    uint8_t *area = aligned_alloc(64, (size_t)8192 * 1024);
    (void)state;

    assert_non_null(area);
    for (size_t r = 0; r < sizeof big / sizeof big[0]; r++) {
        struct kdf_argon2_args p = {.type = big[r].type,
                                    .version = big[r].v,
                                    .t_cost = big[r].t,
                                    .m_kib = big[r].m,
                                    .lanes = big[r].p,
                                    .pw = (const uint8_t *)"password",
                                    .pw_len = 8,
                                    .salt = (const uint8_t *)"somesaltsomesalt",
                                    .salt_len = 16};
        unhex(big[r].hex, want, sizeof want);
        for (uint32_t th = 0; th <= 4; th++) {
            p.max_threads = th;
            memset(out, 0, sizeof out);
            assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_OK);
            if (memcmp(out, want, 32) != 0)
                fail_msg("big area row %zu, %u threads", r, th);
            assert_int_equal(kdf_argon2_raw(&p, out, 32, area, (size_t)8192 * 1024),
                             KDF_OK);
            assert_memory_equal(out, want, 32);
        }
    }
    free(area);
}

static void
test_caller_work_area(void **state)
{
    uint8_t salt[8] = "somesalt", out[32], want[32];
    const char *mcf = "$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$"
                      "bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc";
    struct kdf_argon2_args p = {.type = KDF_ARGON2_ID,
                                .version = 0x13,
                                .t_cost = 2,
                                .m_kib = 256,
                                .lanes = 2,
                                .pw = (const uint8_t *)"password",
                                .pw_len = 8,
                                .salt = salt,
                                .salt_len = 8};
    struct kdf_hash h;
    uint8_t *raw = aligned_alloc(64, 256 * 1024 + 64);
    (void)state;

    assert_non_null(raw);
    unhex("6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037", want, 32);
    memset(raw, 0x5a, 256 * 1024 + 64);
    assert_int_equal(kdf_argon2_raw(&p, out, 32, raw, 256 * 1024), KDF_OK);
    assert_memory_equal(out, want, 32);
    /* Wiped before return. */
    for (size_t i = 0; i < 256 * 1024; i += 997)
        assert_int_equal(raw[i], 0);
    /* Too small, misaligned. */
    assert_int_equal(kdf_argon2_raw(&p, out, 32, raw, 256 * 1024 - 1), KDF_RANGE);
    assert_int_equal(kdf_argon2_raw(&p, out, 32, raw + 8, 256 * 1024), KDF_RANGE);
    /* Through kdf_verify_ex. */
    assert_int_equal(kdf_parse(mcf, strlen(mcf), &h, NULL), KDF_OK);
    assert_int_equal(kdf_verify_ex("password", 8, &h, NULL, raw, 256 * 1024), KDF_OK);
    assert_int_equal(kdf_verify_ex("passwore", 8, &h, NULL, raw, 256 * 1024),
                     KDF_MISMATCH);
    assert_int_equal(kdf_verify_ex("password", 8, &h, NULL, raw, 255 * 1024), KDF_RANGE);
    assert_int_equal(kdf_verify_ex("password", 8, &h, NULL, raw + 32, 256 * 1024),
                     KDF_RANGE);
    /* m' = 4p * floor(m / 4p): m=259, p=2 uses 256 blocks; 256 KiB is enough. */
    p.m_kib = 259;
    assert_int_equal(kdf_argon2_raw(&p, out, 32, raw, 256 * 1024), KDF_OK);
    free(raw);
}

static void
test_bad_parameters(void **state)
{
    uint8_t salt[8] = "somesalt", out[64];
    struct kdf_argon2_args p = {.type = KDF_ARGON2_ID,
                                .version = 0x13,
                                .t_cost = 1,
                                .m_kib = 64,
                                .lanes = 1,
                                .pw = (const uint8_t *)"pw",
                                .pw_len = 2,
                                .salt = salt,
                                .salt_len = 8};
    (void)state;

    assert_int_equal(kdf_argon2_raw(&p, out, 4, NULL, 0), KDF_OK);
    assert_int_equal(kdf_argon2_raw(&p, out, 3, NULL, 0), KDF_RANGE); /* T >= 4 */
    p.t_cost = 0;
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_RANGE);
    p.t_cost = 1;
    p.lanes = 9; /* m < 8p */
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_RANGE);
    p.lanes = 0;
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_RANGE);
    p.lanes = 1;
    p.version = 0x11;
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_RANGE);
    p.version = 0x13;
    p.type = (enum kdf_argon2_type)3; /* no Argon2 */
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_UNSUPPORTED);
    p.type = KDF_ARGON2_D;
    p.pw = NULL;
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_RANGE);
    p.pw_len = 0;
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_OK);
    assert_int_equal(kdf_argon2_raw(NULL, out, 32, NULL, 0), KDF_RANGE);
    assert_int_equal(kdf_argon2_raw(&p, NULL, 32, NULL, 0), KDF_RANGE);
}

static void
test_nomem(void **state)
{
    uint8_t salt[8] = "somesalt", out[32];
    (void)state;
    /* 4 TiB cannot be mapped here (overcommit heuristic, RAM << 4 TiB). */
    struct kdf_argon2_args p = {.type = KDF_ARGON2_ID,
                                .version = 0x13,
                                .t_cost = 1,
                                .m_kib = 0xfffffff0u,
                                .lanes = 1,
                                .pw = (const uint8_t *)"pw",
                                .pw_len = 2,
                                .salt = salt,
                                .salt_len = 8};
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = 0;
    if (f != NULL) {
        if (fscanf(f, "%d", &mode) != 1)
            mode = 0;
        fclose(f);
    }
    if (mode != 1)
        assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_NOMEM);
    else
        print_message("overcommit_memory=1: the 4 TiB case is not tested\n");

#if defined(__SANITIZE_ADDRESS__)
    print_message("ASan reserves the address space: RLIMIT_AS case skipped\n");
#else
    if (kdf_test_emulated()) {
        print_message("%s: RLIMIT_AS case skipped\n", KDF_EMULATED_WHY);
        return;
    }
    if (RUNNING_ON_VALGRIND) {
        /* valgrind's own heap lives in the same address space. */
        print_message("valgrind shares the address space: RLIMIT_AS case skipped\n");
        return;
    }
    /* A modest m under RLIMIT_AS in a child: KDF_NOMEM, never a crash. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {64u << 20, 64u << 20};
        struct kdf_argon2_args q = p;
        q.m_kib = 128 * 1024;
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(3);
        enum kdf_status st = kdf_argon2_raw(&q, out, 32, NULL, 0);
        _exit(st == KDF_NOMEM ? 0 : 2);
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
#endif
}

/* Thread creation fails (a seccomp filter makes clone/clone3 return
 * EAGAIN in a child): the lanes must then run in the calling thread, with
 * the same result and no crash. */
#if defined(__x86_64__) && defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static int
deny_threads(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAGAIN),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

static void *
idle_thread(void *arg)
{
    return arg;
}
#endif

static void
test_thread_fallback(void **state)
{
    (void)state;
#if defined(__x86_64__) && defined(__linux__)
    const char *h =
        "$argon2id$v=19$m=256,t=2,p=4$MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY$"
        "fNXF7/GGSadlD2Coln7SyWVfkHE0xMDgzacLqmhzMP059CqYrpKIX/4MpTwIXaVKFpOty/"
        "zLoUxcnWTGXHOK9g";
    struct kdf_hash hh;
    assert_int_equal(kdf_parse(h, strlen(h), &hh, NULL), KDF_OK);
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        print_message("one CPU online: no lane threads to deny\n");
        skip();
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct kdf_policy pol;
        pthread_t t;
        kdf_policy_default(&pol);
        pol.max_threads = 4;
        if (deny_threads() != 0)
            _exit(3);
        if (pthread_create(&t, NULL, idle_thread, NULL) == 0)
            _exit(4); /* the filter did not take */
        enum kdf_status st = kdf_verify_ex("\377\243x", 3, &hh, &pol, NULL, 0);
        if (st != KDF_OK)
            _exit(2);
        st = kdf_verify_ex("\377\243y", 3, &hh, &pol, NULL, 0);
        _exit(st == KDF_MISMATCH ? 0 : 5);
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
#else
    print_message("seccomp thread denial is written for x86-64 Linux only\n");
    skip();
#endif
}

static void
test_hash_roundtrip(void **state)
{
    static const enum kdf_scheme types[3] = {KDF_SCHEME_ARGON2D, KDF_SCHEME_ARGON2I,
                                             KDF_SCHEME_ARGON2ID};
    char out[KDF_MAX_HASH_STR + 1];
    (void)state;

    for (int i = 0; i < 3; i++) {
        for (uint32_t v = 0x10; v <= 0x13; v += 3) {
            struct kdf_target t = {types[i], KDF_FMT_NATIVE, 0, v, 2, 64, 2, 16, 32, KDF_XCRYPT_NONE, 0, {0}};
            struct kdf_hash h;
            assert_int_equal(kdf_hash("hunter2", 7, &t, out, sizeof out), KDF_OK);
            assert_int_equal(kdf_parse(out, strlen(out), &h, NULL), KDF_OK);
            assert_int_equal(h.scheme, types[i]);
            assert_int_equal(h.version, v);
            assert_int_equal(h.m_kib, 64);
            assert_int_equal(h.dk_len, 32);
            assert_int_equal(kdf_verify("hunter2", 7, out, strlen(out)), KDF_OK);
            assert_int_equal(kdf_verify("hunter3", 7, out, strlen(out)), KDF_MISMATCH);
        }
    }
    /* A known answer through kdf_hash_salt: argon2_argon2cli.inc's
     * "password" / "saltsalt" m=64 t=2 p=1 row. */
    struct kdf_target t = {KDF_SCHEME_ARGON2ID, KDF_FMT_NATIVE, 0, 0x13, 2, 64, 1, 8, 32, KDF_XCRYPT_NONE, 0, {0}};
    const char *want = "$argon2id$v=19$m=64,t=2,p=1$c2FsdHNhbHQ$"
                       "50UD97y0OOTVN7ca0lAiIkxAFbJoO8IYMkpI3Oo6akY";
    assert_int_equal(
        kdf_hash_salt("password", 8, &t, (const uint8_t *)"saltsalt", 8, out, sizeof out),
        KDF_OK);
    assert_string_equal(out, want);
    assert_int_equal(kdf_hash_salt("password", 8, &t, (const uint8_t *)"saltsalt", 8, out,
                                   strlen(want)),
                     KDF_RANGE);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_vectors),
        cmocka_unit_test(test_rfc9106),
        cmocka_unit_test(test_vector_rows),
        cmocka_unit_test(test_lanes_more_than_threads),
        cmocka_unit_test(test_big_area_paths),
        cmocka_unit_test(test_caller_work_area),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_nomem),
        cmocka_unit_test(test_thread_fallback),
        cmocka_unit_test(test_hash_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
