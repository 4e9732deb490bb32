/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_workpool.c - what a directory server's kept work areas (core/
 * util_workarea.c, kdf_workpool_set()) do to a cheap bind while expensive ones
 * run: a cheap client verifies an entry at the directory profile's target
 * (Argon2id m=19456,t=2,p=1) one after another while two expensive
 * clients verify entries at m=262144,t=16 (within the shipped caps) in a
 * loop, first with the pool off (workareas=0), then with two slots kept at
 * the target's size, alternated in one process.  Reported: the cheap
 * client's median and p99 latency in each, and the ratio of the p99s,
 * which must be at most 2 (exit 1 otherwise): a kept area must never make
 * a cheap bind wait for an expensive one.  Against the pool directly, not
 * through 389-ds (bench/ds_bind.sh measures binds through the plugin).
 *
 *   bench_workpool [-n CHEAP_RUNS] [-m EXPENSIVE_KIB] [-t EXPENSIVE_T]
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "kdfhash.h"

#define CHEAP_M 19456u
#define SLOTS 2

static struct kdf_policy g_pol;
static atomic_int g_stop;

static int
verify(const char *hash)
{
    struct kdf_hash h;

    return kdf_parse(hash, strlen(hash), &h, NULL) == KDF_OK &&
           kdf_verify_ex("pw", 2, &h, &g_pol, NULL, 0) == KDF_OK;
}

static void *
expensive(void *arg)
{
    while (!atomic_load(&g_stop))
        if (!verify(arg)) {
            fprintf(stderr, "bench_workpool: an expensive verification failed\n");
            exit(2);
        }
    return NULL;
}

/* The cheap client's p99 (and median) in ms over n verifications, with two
 * expensive clients running. */
static double
cheap_p99(const char *cheap, const char *dear, int n, double *median)
{
    double *lat = calloc((size_t)n, sizeof *lat);
    pthread_t th[2];
    double p99;

    if (lat == NULL)
        exit(2);
    atomic_store(&g_stop, 0);
    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, expensive, (void *)dear) != 0)
            exit(2);
    usleep(200000); /* both are computing */
    for (int i = 0; i < n; i++) {
        double t0 = bench_now();
        if (!verify(cheap)) {
            fprintf(stderr, "bench_workpool: a cheap verification failed\n");
            exit(2);
        }
        lat[i] = (bench_now() - t0) * 1e3;
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    qsort(lat, (size_t)n, sizeof *lat, bench_cmp_double);
    *median = lat[n / 2];
    p99 = lat[(size_t)((n - 1) * 99 / 100)];
    free(lat);
    return p99;
}

int
main(int argc, char **argv)
{
    char cheap[KDF_MAX_HASH_STR + 1], dear[KDF_MAX_HASH_STR + 1], spec[96], err[128];
    struct kdf_target tc, tx;
    unsigned m = 262144, t = 16;
    int n = 100, opt;
    double off_p99, on_p99, off_med, on_med, ratio;

    while ((opt = getopt(argc, argv, "n:m:t:")) != -1) {
        switch (opt) {
        case 'n':
            n = atoi(optarg);
            break;
        case 'm':
            m = (unsigned)strtoul(optarg, NULL, 10);
            break;
        case 't':
            t = (unsigned)strtoul(optarg, NULL, 10);
            break;
        default:
            fprintf(stderr, "usage: bench_workpool [-n CHEAP_RUNS] [-m KIB] [-t T]\n");
            return 2;
        }
    }
    if (n < 1)
        n = 1;
    kdf_policy_default(&g_pol);
    {
        uint32_t *cap_m = kdf_policy_bound(&g_pol, "max.memory-hard", 0),
                 *cap_t = kdf_policy_bound(&g_pol, "max.memory-hard", 1);

        *cap_m = m > *cap_m ? m : *cap_m;
        *cap_t = t > *cap_t ? t : *cap_t;
    }

    snprintf(spec, sizeof spec, "argon2id m=%u,t=2,p=1", CHEAP_M);
    if (kdf_target_parse(spec, &tc, err, sizeof err) != KDF_OK ||
        kdf_hash("pw", 2, &tc, cheap, sizeof cheap) != KDF_OK)
        return 2;
    snprintf(spec, sizeof spec, "argon2id m=%u,t=%u,p=1", m, t);
    if (kdf_target_parse(spec, &tx, err, sizeof err) != KDF_OK ||
        kdf_hash("pw", 2, &tx, dear, sizeof dear) != KDF_OK) {
        fprintf(stderr, "bench_workpool: cannot hash at %s: %s\n", spec, err);
        return 2;
    }
    kdf_workpool_set(0, 0);
    off_p99 = cheap_p99(cheap, dear, n, &off_med);
    kdf_workpool_set(SLOTS, CHEAP_M);
    on_p99 = cheap_p99(cheap, dear, n, &on_med);
    kdf_workpool_set(0, 0);
    ratio = on_p99 / off_p99;
    printf("cheap m=%u,t=2 beside two m=%u,t=%u, %d runs each:\n", CHEAP_M, m, t, n);
    printf("  workareas=0: median %.1f ms, p99 %.1f ms\n", off_med, off_p99);
    printf("  workareas=%d: median %.1f ms, p99 %.1f ms\n", SLOTS, on_med, on_p99);
    printf("  p99 ratio (kept / none): %.2f (at most 2)\n", ratio);
    return ratio <= 2.0 ? 0 : 1;
}
