/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memstorm.c - N logins at once through the real libpam and the module, as
 * an sshd would run them for N clients: one forked process per login, all
 * released together, each pam_start_confdir + pam_authenticate against the
 * service "kdftest" of CONFDIR.  Every K-th login types a wrong password
 * and every J-th is an unknown user (both cost a verification at the
 * target, so they take their share of memory too).
 *
 * Usage: memstorm CONFDIR USER PASSWORD N K J
 * Prints one line per outcome class, the latencies (p50, p99, max) and
 * logins per second, and exits 0 when every child ended by itself (none
 * killed: the OOM killer leaves a SIGKILL) and every right-password login
 * either succeeded or was refused as busy (the module's log says so, which
 * the child reports through its exit code), 1 otherwise.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pam_host.h"

enum { OUT_OK = 0, OUT_REFUSED = 1, OUT_BUSY = 2, OUT_OTHER = 3 };

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
    const char *dir, *user, *pw;
    int n, k, j, fails = 0, killed = 0;
    int count[4] = {0};
    volatile int *go;
    double *lat, t0;
    pid_t *pids;

    if (argc != 7) {
        fprintf(stderr, "usage: memstorm CONFDIR USER PASSWORD N K J\n");
        return 2;
    }
    dir = argv[1];
    user = argv[2];
    pw = argv[3];
    n = atoi(argv[4]);
    k = atoi(argv[5]);
    j = atoi(argv[6]);
    if (n <= 0 || n > 1000 || k <= 0 || j <= 0)
        return 2;
    /* A shared flag and the children's latencies. */
    go = mmap(NULL, 4096 + (size_t)n * sizeof(double), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (go == MAP_FAILED)
        return 2;
    lat = (double *)((char *)go + 4096);
    pids = calloc((size_t)n, sizeof *pids);
    if (pids == NULL)
        return 2;

    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            int wrong = (i % k) == k - 1, unknown = !wrong && (i % j) == j - 1;
            const char *p = wrong ? "not-the-password" : pw;
            struct host_conv c = {p, strlen(p), PAM_SUCCESS, 0};
            double t;
            int rc;

            while (!*go)
                usleep(1000);
            t = now_s();
            rc = host_auth(dir, unknown ? "nosuchuser" : user, &c, 0);
            lat[i] = now_s() - t;
            if (rc == PAM_SUCCESS)
                _exit(wrong || unknown ? OUT_OTHER : OUT_OK);
            if (host_log_contains("busy", 4))
                _exit(OUT_BUSY);
            /* A refusal is right for a wrong password or an unknown user. */
            _exit(wrong || unknown ? OUT_REFUSED : OUT_OTHER);
        }
        if (pids[i] < 0)
            return 2;
    }
    t0 = now_s();
    *go = 1;
    for (int i = 0; i < n; i++) {
        int st = 0;
        while (waitpid(pids[i], &st, 0) < 0)
            ;
        if (WIFSIGNALED(st)) {
            killed++;
            fprintf(stderr, "login %d killed by signal %d\n", i, WTERMSIG(st));
        } else {
            int x = WEXITSTATUS(st);
            count[x <= OUT_OTHER ? x : OUT_OTHER]++;
            if (x == OUT_OTHER || x > OUT_OTHER)
                fails++;
        }
    }
    {
        double total = now_s() - t0;
        qsort(lat, (size_t)n, sizeof *lat, cmp_d);
        printf("logins: %d; succeeded %d, refused (wrong or unknown) %d, busy %d, "
               "wrong outcome %d, killed %d\n",
               n, count[OUT_OK], count[OUT_REFUSED], count[OUT_BUSY], count[OUT_OTHER], killed);
        printf("latency: p50 %.0f ms, p99 %.0f ms, max %.0f ms; %.1f logins/s\n",
               lat[n / 2] * 1e3, lat[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] * 1e3,
               lat[n - 1] * 1e3, (double)n / total);
    }
    return killed == 0 && fails == 0 ? 0 : 1;
}
