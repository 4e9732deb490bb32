/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_pepper.c - what a key costs a login: the verification of an entry
 * keyed with a key read from its file (the key store, as the module reads
 * it at each login) against the same entry unkeyed, at the shipped target
 * (Argon2id m=65536,t=3,p=4) or the one given, alternated run by run in
 * one process and reported as the ratio of the medians.
 *
 *   bench_pepper [-n RUNS] [-m KIB] [-t T] [-p P]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_common.h"
#include "kdfhash.h"
#include "keystore.h"

static double
time_verify(const char *pw, const char *hash, const struct kdf_policy *pol)
{
    struct kdf_hash h;
    double t0 = bench_now();

    if (kdf_parse(hash, strlen(hash), &h, NULL) != KDF_OK ||
        kdf_verify_ex(pw, strlen(pw), &h, pol, NULL, 0) != KDF_OK) {
        fprintf(stderr, "bench_pepper: verification failed\n");
        exit(1);
    }
    return bench_now() - t0;
}

int
main(int argc, char **argv)
{
    static const char pw[] = "correct horse battery staple";
    char dir[] = "/tmp/bench_pepper.XXXXXX", path[128], id[KDF_KEYID_CAP];
    char keyed[KDF_MAX_HASH_STR + 1], plain[KDF_MAX_HASH_STR + 1], err[256];
    struct kdf_policy pol, plain_pol;
    struct kdf_keystore ks;
    unsigned n = 11, m = 65536, t = 3, p = 4;
    double *tk, *tp;
    int opt;

    while ((opt = getopt(argc, argv, "n:m:t:p:")) != -1) {
        if (opt == 'n')
            n = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 'm')
            m = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 't')
            t = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 'p')
            p = (unsigned)strtoul(optarg, NULL, 10);
        else {
            fprintf(stderr, "usage: bench_pepper [-n RUNS] [-m KIB] [-t T] [-p P]\n");
            return 2;
        }
    }
    if (n < 3)
        n = 3;
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/keys", dir);
    if (kdf_keystore_new(path, (gid_t)-1, id, err, sizeof err) != KDF_OK) {
        fprintf(stderr, "bench_pepper: %s\n", err);
        return 1;
    }
    kdf_policy_default(&pol);
    pol.target.m_kib = m;
    pol.target.cost = t;
    pol.target.lanes = p;
    pol.max_memory_kib = KDF_MEMGATE_OFF;
    plain_pol = pol;
    kdf_keystore_init(&ks, path);
    pol.keys = &ks.ring;
    memcpy(pol.pepper, id, strlen(id) + 1);
    if (kdf_hash_ex(pw, strlen(pw), &pol.target, &pol, NULL, 0, keyed, sizeof keyed) != KDF_OK ||
        kdf_hash_ex(pw, strlen(pw), &plain_pol.target, &plain_pol, NULL, 0, plain,
                    sizeof plain) != KDF_OK) {
        fprintf(stderr, "bench_pepper: cannot make the hashes\n");
        return 1;
    }
    tk = calloc(n, sizeof *tk);
    tp = calloc(n, sizeof *tp);
    if (tk == NULL || tp == NULL)
        return 1;
    (void)time_verify(pw, plain, &plain_pol); /* warm-up */
    for (unsigned i = 0; i < n; i++) {
        if (i % 2 == 0) {
            tk[i] = time_verify(pw, keyed, &pol);
            tp[i] = time_verify(pw, plain, &plain_pol);
        } else {
            tp[i] = time_verify(pw, plain, &plain_pol);
            tk[i] = time_verify(pw, keyed, &pol);
        }
    }
    qsort(tk, n, sizeof *tk, bench_cmp_double);
    qsort(tp, n, sizeof *tp, bench_cmp_double);
    printf("keyed login, key from its file, vs unkeyed (argon2id m=%u,t=%u,p=%u, %u runs "
           "each, alternated)\n",
           m, t, p, n);
    printf("| entry | median ms | min ms |\n|---|---|---|\n");
    printf("| unkeyed | %.2f | %.2f |\n", tp[n / 2] * 1e3, tp[0] * 1e3);
    printf("| keyed (file key) | %.2f | %.2f |\n", tk[n / 2] * 1e3, tk[0] * 1e3);
    printf("ratio keyed / unkeyed: %.3f (median), added %.3f ms\n", tk[n / 2] / tp[n / 2],
           (tk[n / 2] - tp[n / 2]) * 1e3);
    snprintf(err, sizeof err, "%s/%s", path, id);
    unlink(err);
    rmdir(path);
    rmdir(dir);
    free(tk);
    free(tp);
    return 0;
}
