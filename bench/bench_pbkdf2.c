/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_pbkdf2.c - PBKDF2-HMAC, ours per variant against OpenSSL's
 * PKCS5_PBKDF2_HMAC measured in the same run; the targets:
 *
 *   PBKDF2-SHA512   210,000 iterations, 64 B   ours <= 0.75x OpenSSL
 *   PBKDF2-SHA256   600,000 iterations, 32 B   ours <= 0.55x
 *   PBKDF2-SHA256   600,000 iterations, 64 B   ours <= 0.35x (interleaved blocks)
 *   PBKDF2-SHA512     1,000 iterations and PBKDF2-SHA1 100,000: no target
 *
 * Each figure is the best of N runs (default 5) of one derivation, the peer
 * and our variants alternating run by run; the ratio is ours / OpenSSL.  Also printed: heap allocations per kdf_verify of a
 * PBKDF2 string (ours, counted by wrapping malloc at link time) and per
 * PKCS5_PBKDF2_HMAC call (OpenSSL, through CRYPTO_set_mem_functions).
 *
 *   bench_pbkdf2 [--quick] [--reps N] [--only NAME]
 * --quick divides the iteration counts by 100 and runs once: a smoke run;
 * --only keeps the cases whose hash name contains NAME ("sha512").
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "alg_sha.h"
#include "alloc_count.h"
#include "bench_common.h"

/* ---- allocation counters: ours by testlib/alloc_count.h, OpenSSL's
 * through its memory hooks (its calls happen inside libcrypto.so, which
 * the linker does not wrap) ---- */
static volatile unsigned long g_ossl;
static volatile unsigned int g_counting;

static void *
ossl_malloc(size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    g_ossl += g_counting;
    return __real_malloc(n);
}
static void *
ossl_realloc(void *p, size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    g_ossl += g_counting;
    return __real_realloc(p, n);
}
static void
ossl_free(void *p, const char *file, int line)
{
    (void)file;
    (void)line;
    __real_free(p);
}

struct bcase {
    enum kdf_scheme md;
    enum kdf_prim prim;
    uint32_t iter;
    size_t dk_len;
    double target; /* 0: none */
};

static const struct bcase cases[] = {
    {KDF_SCHEME_PBKDF2_SHA512, KDF_PRIM_SHA512, 1000, 64, 0},
    {KDF_SCHEME_PBKDF2_SHA512, KDF_PRIM_SHA512, 210000, 64, 0.75},
    {KDF_SCHEME_PBKDF2_SHA256, KDF_PRIM_SHA256, 600000, 32, 0.55},
    {KDF_SCHEME_PBKDF2_SHA256, KDF_PRIM_SHA256, 600000, 64, 0.35},
    {KDF_SCHEME_PBKDF2_SHA1, KDF_PRIM_SHA1, 100000, 20, 0},
};

static const uint8_t PW[] = "correct horse battery staple";
static const uint8_t SALT[16] = {0x73, 0x61, 0x6c, 0x74, 0x01, 0x02, 0x03, 0x04,
                                 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c};

static double
time_ossl(const struct bcase *c, uint32_t iter, int reps, uint8_t *out)
{
    const EVP_MD *md = c->md == KDF_SCHEME_PBKDF2_SHA1     ? EVP_sha1()
                       : c->md == KDF_SCHEME_PBKDF2_SHA256 ? EVP_sha256()
                                                           : EVP_sha512();
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        if (PKCS5_PBKDF2_HMAC((const char *)PW, sizeof PW - 1, SALT, sizeof SALT, (int)iter,
                              md, (int)c->dk_len, out) != 1) {
            fprintf(stderr, "PKCS5_PBKDF2_HMAC failed\n");
            exit(1);
        }
        double t = bench_now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static double
time_ours(const struct bcase *c, uint32_t iter, int reps, uint8_t *out)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        if (kdf_pbkdf2(c->md, PW, sizeof PW - 1, SALT, sizeof SALT, iter, out, c->dk_len) !=
            KDF_OK) {
            fprintf(stderr, "kdf_pbkdf2 failed\n");
            exit(1);
        }
        double t = bench_now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void
alloc_figures(void)
{
    /* passlib pbkdf2_sha256, 1000 iterations (from tests/vectors/pbkdf2.inc) */
    static const char h[] =
        "$pbkdf2-sha256$1000$i5KZi.cNbw$17GJ8w/wQ6.D9aTfQduY7LiX3aBHV9V9LcvQskKjGoE";
    uint8_t out[64];
    enum kdf_status st;

    unsigned long ours = alloc_count_allocs();

    st = kdf_verify("", 0, h, sizeof h - 1);
    ours = alloc_count_allocs() - ours;
    g_ossl = 0;
    g_counting = 1;
    PKCS5_PBKDF2_HMAC("", 0, SALT, sizeof SALT, 1000, EVP_sha256(), 32, out);
    g_counting = 0;
    printf("\nHeap allocations per call (PBKDF2-SHA256, 1,000 iterations): kdf_verify %lu "
           "(status %s); OpenSSL PKCS5_PBKDF2_HMAC %lu\n",
           ours, kdf_status_str(st), g_ossl);
}

int
main(int argc, char **argv)
{
    int quick = 0, reps = 5, fails = 0;
    const char *filter = NULL;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            filter = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [--reps N] [--only sha512]\n", argv[0]);
            return 2;
        }
    }
    if (quick)
        reps = 1;
    if (reps < 1)
        reps = 1;
    /* before OpenSSL allocates anything */
    CRYPTO_set_mem_functions(ossl_malloc, ossl_realloc, ossl_free);

    printf("PBKDF2-HMAC, best of %d run(s)%s; ratio = ours / OpenSSL %s (same run)\n\n", reps,
           quick ? ", --quick: iterations / 100" : "", OpenSSL_version(OPENSSL_VERSION));
    printf("| hash | iterations | dkLen | OpenSSL ms | variant | ours ms | ratio | target |\n");
    printf("|---|---:|---:|---:|---|---:|---:|---|\n");
    for (size_t ci = 0; ci < KDF_ARRAY_LEN(cases); ci++) {
        const struct bcase *c = &cases[ci];
        uint32_t iter = quick ? (c->iter / 100 ? c->iter / 100 : 1) : c->iter;
        uint8_t a[64], b[64];
        const char *names[8];
        int usable[8];
        double best[8], tp = 1e30;
        size_t n = kdf_impl_list(c->prim, names, usable, 8);

        if (filter != NULL && strstr(kdf_scheme_name(c->md), filter) == NULL)
            continue;
        /* Peer and variants alternate run by run, so a burst of load on the
         * shared machine hits them alike; each keeps its best. */
        for (size_t v = 0; v < n && v < 8; v++)
            best[v] = 1e30;
        for (int r = 0; r < reps; r++) {
            double t = time_ossl(c, iter, 1, b);
            if (t < tp)
                tp = t;
            for (size_t v = 0; v < n && v < 8; v++) {
                if (!usable[v] || kdf_dispatch_force_index(c->prim, v) != KDF_OK)
                    continue;
                t = time_ours(c, iter, 1, a);
                if (t < best[v])
                    best[v] = t;
                if (memcmp(a, b, c->dk_len) != 0) {
                    printf("MISMATCH with OpenSSL for %s/%s\n", kdf_scheme_name(c->md),
                           names[v]);
                    fails++;
                }
            }
        }
        for (size_t v = 0; v < n && v < 8; v++) {
            char tgt[40] = "-";
            if (!usable[v]) {
                printf("| %s | %u | %zu | %.2f | %s | n/a (CPU lacks it) | | |\n",
                       kdf_scheme_name(c->md), iter, c->dk_len, tp * 1e3, names[v]);
                continue;
            }
            double ratio = best[v] / tp;
            if (c->target > 0 && v == 0)
                snprintf(tgt, sizeof tgt, "<= %.2f %s", c->target,
                         ratio <= c->target ? "met" : "MISSED");
            else if (c->target > 0)
                snprintf(tgt, sizeof tgt, "(<= %.2f for the best)", c->target);
            printf("| %s | %u | %zu | %.2f | %s | %.2f | %.3f | %s |\n",
                   kdf_scheme_name(c->md), iter, c->dk_len, tp * 1e3, names[v],
                   best[v] * 1e3, ratio, tgt);
        }
        kdf_dispatch_force_mask(~0u);
    }
    alloc_figures();
    return fails ? 1 : 0;
}
