/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_timing.c - user-enumeration timing of pam_kdfhash.so (reliability.md
 * test 11, the "N" tier: run by tests/soak_pam_timing.sh from
 * `make check-soak`, never by `make check`).
 *
 * Classes, interleaved in a fresh random order every round: an unknown user;
 * an existing user with a wrong password (the reference); a locked entry
 * ("!" + a hash at the target); an empty field without nullok; an outdated
 * entry (PBKDF2, 1000 rounds) with a wrong password.  The entries at the
 * target are made by the module itself (one upgrade login of a PBKDF2
 * entry), so they cost exactly what the policy target costs.
 *
 * Pass: Welch |t| < 4.5 (TVLA threshold) and median difference < 2% against
 * "existing, wrong" for unknown, locked and empty.  The outdated class is
 * reported, not judged: its cost is the stored hash's, by design (the
 * module verifies what is stored; it equalises only the cases where no
 * real verification happens).
 *
 * Usage: pam_timing [-n PER_CLASS] [-t TARGET]   (defaults 200, the policy
 * default target argon2id m=65536,t=3,p=4).  Prints a markdown table.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "pam_host.h"

#define PW "S3cret-p4ss!"
#define WRONG "S3cret-p4ss?" /* same length as PW */

enum hash_id {
#define PAM_HASH(id, h) H_##id,
#include "pam_hashes.inc"
#undef PAM_HASH
    H_COUNT
};
static const char *const g_hash[] = {
#define PAM_HASH(id, h) h,
#include "pam_hashes.inc"
#undef PAM_HASH
};

enum { C_WRONG, C_UNKNOWN, C_LOCKED, C_EMPTY, C_OUTDATED, NCLASS };
static const char *const g_class_name[NCLASS] = {
    "existing, wrong password", "unknown user", "locked (!hash)",
    "empty field, no nullok", "outdated (PBKDF2 1000), wrong"};
static const char *const g_class_user[NCLASS] = {"alice", "nosuchuser", "locked", "empty",
                                                 "olduser"};

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct stats {
    double mean, var, median;
};

static struct stats
stats_of(double *v, size_t n)
{
    struct stats s = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        s.mean += v[i];
    s.mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        s.var += (v[i] - s.mean) * (v[i] - s.mean);
    s.var /= (double)(n > 1 ? n - 1 : 1);
    qsort(v, n, sizeof v[0], cmp_double);
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return s;
}

static double
welch_t(struct stats a, struct stats b, size_t n)
{
    double se = sqrt(a.var / (double)n + b.var / (double)n);
    return se > 0 ? (a.mean - b.mean) / se : 0;
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The entry of user in file (field 2), into out. */
static int
field2(const char *file, const char *user, char *out, size_t cap)
{
    char *b = host_read(file, NULL), *p = strstr(b, user);
    size_t n;
    int rc = -1;

    if (p != NULL && p[strlen(user)] == ':') {
        p += strlen(user) + 1;
        n = strcspn(p, ":\n");
        if (n < cap) {
            memcpy(out, p, n);
            out[n] = '\0';
            rc = 0;
        }
    }
    free(b);
    return rc;
}

int
main(int argc, char **argv)
{
    const char *target = NULL;
    size_t per = 200;
    char *dir, shadow[600], conf[600], line[2048], text[4096], th[1024];
    const char *lines[1] = {line};
    double *samples[NCLASS];
    struct stats st[NCLASS];
    int opt, fail = 0;

    while ((opt = getopt(argc, argv, "n:t:")) != -1) {
        if (opt == 'n')
            per = strtoul(optarg, NULL, 10);
        else if (opt == 't')
            target = optarg;
        else {
            fprintf(stderr, "usage: %s [-n PER_CLASS] [-t TARGET]\n", argv[0]);
            return 2;
        }
    }
    if (per < 2)
        per = 2;

    dir = host_tmpdir();
    snprintf(shadow, sizeof shadow, "%s/shadow", dir);
    snprintf(conf, sizeof conf, "%s/kdfhash.conf", dir);
    host_write(conf, "", 0);
    snprintf(text, sizeof text, "alice:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    host_write(shadow, text, strlen(text));

    /* One upgrade login turns alice's entry into a hash at the target. */
    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s upgrade=file %s%s",
             shadow, conf, target ? "target=" : "", target ? target : "");
    host_service(dir, lines, 1);
    {
        struct host_conv c = {PW, strlen(PW), PAM_SUCCESS, 0};
        if (host_auth(dir, "alice", &c, 0) != PAM_SUCCESS ||
            field2(shadow, "alice", th, sizeof th) != 0 ||
            strncmp(th, g_hash[H_pbk256], strlen(g_hash[H_pbk256])) == 0) {
            fprintf(stderr, "pam_timing: could not make a target hash\n");
            return 99;
        }
    }
    snprintf(text, sizeof text,
             "alice:%s:19000:0:99999:7:::\nlocked:!%s:19000:0:99999:7:::\n"
             "empty::19000:0:99999:7:::\nolduser:%s:19000:0:99999:7:::\n",
             th, th, g_hash[H_pbk256]);
    host_write(shadow, text, strlen(text));
    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s upgrade=off %s%s",
             shadow, conf, target ? "target=" : "", target ? target : "");
    host_service(dir, lines, 1);

    for (int c = 0; c < NCLASS; c++)
        samples[c] = calloc(per, sizeof(double));
    for (size_t r = 0; r < per; r++) {
        int order[NCLASS];
        unsigned char rnd[NCLASS];
        for (int c = 0; c < NCLASS; c++)
            order[c] = c;
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            return 99;
        for (int c = NCLASS - 1; c > 0; c--) { /* Fisher-Yates */
            int j = rnd[c] % (c + 1), t = order[c];
            order[c] = order[j];
            order[j] = t;
        }
        for (int k = 0; k < NCLASS; k++) {
            int c = order[k];
            const char *pw = c == C_EMPTY ? "" : WRONG;
            struct host_conv conv = {pw, strlen(pw), PAM_SUCCESS, 0};
            double t0 = now_ms();
            int rc = host_auth(dir, g_class_user[c], &conv, 0);
            samples[c][r] = now_ms() - t0;
            if (rc == PAM_SUCCESS) {
                fprintf(stderr, "pam_timing: %s authenticated?\n", g_class_name[c]);
                return 1;
            }
        }
    }

    printf("| class (%zu logins each, target %s) | mean ms | median ms | median vs "
           "reference | Welch t |\n|---|---|---|---|---|\n",
           per, target ? target : "default");
    for (int c = 0; c < NCLASS; c++)
        st[c] = stats_of(samples[c], per);
    for (int c = 0; c < NCLASS; c++) {
        double t = welch_t(st[c], st[C_WRONG], per);
        double d = (st[c].median - st[C_WRONG].median) / st[C_WRONG].median * 100.0;
        int judged = c == C_UNKNOWN || c == C_LOCKED || c == C_EMPTY;
        int bad = judged && (fabs(t) >= 4.5 || fabs(d) >= 2.0);
        if (c == C_WRONG)
            printf("| %s | %.2f | %.2f | reference | |\n", g_class_name[c], st[c].mean,
                   st[c].median);
        else
            printf("| %s | %.2f | %.2f | %+.1f%% | %.2f%s |\n", g_class_name[c],
                   st[c].mean, st[c].median, d, t,
                   bad      ? " FAIL"
                   : judged ? ""
                            : " (not judged)");
        fail |= bad;
    }
    for (int c = 0; c < NCLASS; c++)
        free(samples[c]);
    host_rmtree(dir);
    free(dir);
    return fail ? 1 : 0;
}
