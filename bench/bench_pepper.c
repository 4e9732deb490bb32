/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_pepper.c - what a key costs a login: the verification of an entry
 * keyed with a key read from its file (the key store, as the module reads
 * it at each login) against the same entry unkeyed, at the shipped target
 * (Argon2id m=65536,t=3,p=4) or the one given, alternated run by run in
 * one process and reported as the ratio of the medians.  With -T TCTI, a
 * key held by that TPM too ("swtpm:port=2321": make bench-tpm starts one),
 * asked in this process; with -H PROG as well, through PROG
 * (kdfhash-tpm-hmac), the child the module and the helper start for each
 * TPM key, which is what a login pays.
 *
 *   bench_pepper [-n RUNS] [-m KIB] [-t T] [-p P] [-T TCTI [-H PROG]]
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
#include "tpm_client.h"

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
    const char *tcti = NULL, *helper = NULL;
    char tpm_id[KDF_KEYID_CAP], tpm_hash[KDF_MAX_HASH_STR + 1];
    struct kdf_policy tpm_pol, child_pol;
    struct kdf_keystore child_ks;
    struct kdf_pam_tpm child = {NULL, KDF_TPM_TIMEOUT_MS};
    struct kdf_tpm_access child_access = {kdf_pam_tpm_secret, &child};
    double *tk, *tp, *tt = NULL, *tc = NULL;
    int opt;

    while ((opt = getopt(argc, argv, "n:m:t:p:T:H:")) != -1) {
        if (opt == 'n')
            n = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 'm')
            m = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 't')
            t = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 'H')
            helper = optarg;
        else if (opt == 'p')
            p = (unsigned)strtoul(optarg, NULL, 10);
        else if (opt == 'T')
            tcti = optarg;
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
    kdf_keystore_init(&ks, path, &kdf_tpm_here);
    pol.keys = &ks.ring;
    memcpy(pol.pepper, id, strlen(id) + 1);
    if (kdf_hash_ex(pw, strlen(pw), &pol.target, &pol, NULL, 0, keyed, sizeof keyed) != KDF_OK ||
        kdf_hash_ex(pw, strlen(pw), &plain_pol.target, &plain_pol, NULL, 0, plain,
                    sizeof plain) != KDF_OK) {
        fprintf(stderr, "bench_pepper: cannot make the hashes\n");
        return 1;
    }
    if (tcti != NULL) {
        uint32_t handle = 0;

        if (kdf_tpm_new_key(tcti, &handle, err, sizeof err) != KDF_OK ||
            kdf_keystore_new_tpm(path, (gid_t)-1, handle, tcti, tpm_id, err, sizeof err) !=
                KDF_OK) {
            fprintf(stderr, "bench_pepper: TPM %s: %s\n", tcti, err);
            return 1;
        }
        tpm_pol = pol;
        memcpy(tpm_pol.pepper, tpm_id, strlen(tpm_id) + 1);
        if (kdf_hash_ex(pw, strlen(pw), &tpm_pol.target, &tpm_pol, NULL, 0, tpm_hash,
                        sizeof tpm_hash) != KDF_OK) {
            fprintf(stderr, "bench_pepper: cannot make the TPM-keyed hash\n");
            return 1;
        }
        tt = calloc(n, sizeof *tt);
        if (helper != NULL) {
            child.prog = helper;
            child_pol = tpm_pol;
            kdf_keystore_init(&child_ks, path, &child_access);
            child_pol.keys = &child_ks.ring;
            tc = calloc(n, sizeof *tc);
            if (tc == NULL)
                return 1;
        }
    }
    tk = calloc(n, sizeof *tk);
    tp = calloc(n, sizeof *tp);
    if (tk == NULL || tp == NULL || (tcti != NULL && tt == NULL))
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
        if (tt != NULL)
            tt[i] = time_verify(pw, tpm_hash, &tpm_pol);
        if (tc != NULL)
            tc[i] = time_verify(pw, tpm_hash, &child_pol);
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
    if (tt != NULL) {
        qsort(tt, n, sizeof *tt, bench_cmp_double);
        printf("| keyed (TPM key, %s, in process) | %.2f | %.2f |\n", tcti, tt[n / 2] * 1e3,
               tt[0] * 1e3);
        printf("ratio TPM-keyed (in process) / unkeyed: %.3f (median), added %.3f ms\n",
               tt[n / 2] / tp[n / 2], (tt[n / 2] - tp[n / 2]) * 1e3);
        if (tc != NULL) {
            qsort(tc, n, sizeof *tc, bench_cmp_double);
            printf("| keyed (TPM key, through %s, as a login) | %.2f | %.2f |\n", helper,
                   tc[n / 2] * 1e3, tc[0] * 1e3);
            printf("ratio TPM-keyed (login) / unkeyed: %.3f (median), added %.3f ms\n",
                   tc[n / 2] / tp[n / 2], (tc[n / 2] - tp[n / 2]) * 1e3);
            free(tc);
        }
        snprintf(err, sizeof err, "%s/%s", path, tpm_id);
        unlink(err);
        free(tt);
    }
    snprintf(err, sizeof err, "%s/%s", path, id);
    unlink(err);
    rmdir(path);
    rmdir(dir);
    free(tk);
    free(tp);
    return 0;
}
