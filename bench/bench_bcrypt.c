/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_bcrypt.c - bcrypt verify latency against libxcrypt's crypt_rn()
 * measured in the same run, heap allocations per verify, the cost of the
 * post-hash self-test, and concurrent verifies on threads.
 *
 * Both sides do a whole verify: ours is kdf_verify() (parse, bcrypt, self-
 * test, constant-time compare); libxcrypt's is crypt_rn() on the stored
 * string (its bcrypt and its own self-test) plus a strcmp.  Runs alternate
 * between the two so that frequency drift and neighbours hit both alike;
 * the figure is the median of N, and the ratio is ours / libxcrypt.
 *
 * The first two rows are the verify as deployed (the Blowfish row this CPU
 * gets); the "core" rows force each row of the Blowfish table and run the core
 * alone against the same crypt_rn() verify.
 *
 * Usage: bench_bcrypt [--quick] [--reps N] [--latency-only]
 *   --quick         5 runs at cost 10, 2 at cost 12, one verify per thread
 *   --reps N        N runs at cost 10 (default 21), N/3 + 1 at cost 12
 *   --latency-only  the first table only (the ratios to libxcrypt), for
 *                   repeated runs: the thread section takes most of the time
 */
#include "kdf_prelude.h"

#include "alg_blowfish.h"

#include <crypt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Allocation counter (testlib/alloc_count.h): calls from our core are
 * counted, libcrypt.so's are not. */
#include "alloc_count.h"
#include "bench_common.h"

static const char bench_pw[] = "correct horse battery staple";


/* Nearest-rank percentile of a sorted array. */
static double
pct(const double *v, size_t n, unsigned p)
{
    size_t r = (n * p + 99) / 100;
    return v[r == 0 ? 0 : r - 1];
}

/* The stored string both sides verify, made by libxcrypt. */
static int
make_hash(unsigned cost, char *out, size_t cap, struct crypt_data *cd)
{
    char setting[32];
    const char *r;
    snprintf(setting, sizeof setting, "$2b$%02u$kdfhashBenchSaltSalt..", cost);
    r = crypt_rn(bench_pw, setting, cd, (int)sizeof *cd);
    if (r == NULL || strlen(r) >= cap)
        return -1;
    memcpy(out, r, strlen(r) + 1);
    return 0;
}

static int
ours_verify(const char *hash)
{
    return kdf_verify(bench_pw, strlen(bench_pw), hash, strlen(hash)) == KDF_OK;
}

static int
xcrypt_verify(const char *hash, struct crypt_data *cd)
{
    const char *r = crypt_rn(bench_pw, hash, cd, (int)sizeof *cd);
    return r != NULL && strcmp(r, hash) == 0;
}

/* ---- section 1: latency against crypt_rn() ---- */

static double
now_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One side of a comparison: ours (kdf_verify, or the core alone on the
 * Blowfish row forced, when variant >= 0) or libxcrypt's verify. */
struct side {
    int xcrypt;
    int variant;
    const char *hash;
    unsigned cost;
    struct crypt_data *cd;
    struct kdf_bf_ctx *ctx;
};

static int
run_side(const struct side *sd)
{
    static const uint32_t salt[4] = {0x01234567, 0x89abcdef, 0xfedcba98, 0x76543210};
    uint32_t out[6];

    if (sd->xcrypt)
        return xcrypt_verify(sd->hash, sd->cd);
    if (sd->variant >= 0) {
        kdf_bf_bcrypt(sd->ctx, bench_pw, 0, salt, sd->cost, out);
        return 1;
    }
    return ours_verify(sd->hash);
}

/*
 * reps alternating runs of ours and libxcrypt (the first side changes every
 * run), after one warm-up each.  Prints the medians of wall time and the
 * ratio of the medians, for wall time and for thread CPU time: on a busy
 * machine the CPU-time ratio is the one that still means something.
 */
static int
compare(const char *label, struct side *ours, struct side *peer, unsigned reps)
{
    double *w[2], *c[2];
    int bad = 0;

    for (int k = 0; k < 2; k++) {
        w[k] = calloc(reps, sizeof(double));
        c[k] = calloc(reps, sizeof(double));
    }
    if (w[0] == NULL || w[1] == NULL || c[0] == NULL || c[1] == NULL)
        bad = 1;
    bad |= !run_side(ours);
    bad |= !run_side(peer);
    for (unsigned i = 0; i < reps && !bad; i++) {
        for (int j = 0; j < 2; j++) {
            int k = (int)((i + (unsigned)j) & 1); /* 0 = ours, 1 = peer */
            double w0 = bench_now(), c0 = now_cpu();
            bad |= !run_side(k == 0 ? ours : peer);
            c[k][i] = now_cpu() - c0;
            w[k][i] = bench_now() - w0;
        }
    }
    if (!bad) {
        for (int k = 0; k < 2; k++) {
            qsort(w[k], reps, sizeof(double), bench_cmp_double);
            qsort(c[k], reps, sizeof(double), bench_cmp_double);
        }
        printf("| %s | %u | %.2f | %.2f | **%.3f** | %.3f |\n", label, reps,
               pct(w[0], reps, 50) * 1e3, pct(w[1], reps, 50) * 1e3,
               pct(w[0], reps, 50) / pct(w[1], reps, 50),
               pct(c[0], reps, 50) / pct(c[1], reps, 50));
    }
    for (int k = 0; k < 2; k++) {
        free(w[k]);
        free(c[k]);
    }
    return bad ? -1 : 0;
}

static int
bench_latency(unsigned cost, unsigned reps, struct crypt_data *cd)
{
    char hash[128], label[64];
    struct side ours = {0, -1, hash, cost, cd, NULL},
                peer = {1, -1, hash, cost, cd, NULL};

    if (make_hash(cost, hash, sizeof hash, cd) != 0)
        return -1;
    snprintf(label, sizeof label, "verify $2b$ cost %u", cost);
    return compare(label, &ours, &peer, reps);
}

/* The core alone, per row of the Blowfish table (row v, forced by name),
 * against the same crypt_rn() verify: what each variant is worth here. */
static int
bench_variant(int v, const char *name, int usable, unsigned cost, unsigned reps,
              struct crypt_data *cd)
{
    char hash[128], label[64];
    struct kdf_bf_ctx *ctx;
    struct side ours = {0, v, hash, cost, cd, NULL}, peer = {1, -1, hash, cost, cd, NULL};
    int rc;

    snprintf(label, sizeof label, "core only, %s variant, cost %u", name, cost);
    if (!usable || kdf_impl_force(name) != KDF_OK) {
        printf("| %s | not usable on this CPU or build | | | | |\n", label);
        return 0;
    }
    ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL || make_hash(cost, hash, sizeof hash, cd) != 0) {
        free(ctx);
        return -1;
    }
    ours.ctx = ctx;
    rc = compare(label, &ours, &peer, reps);
    kdf_wipe(ctx, sizeof *ctx);
    free(ctx);
    return rc;
}

/* ---- section 2: allocations per verify, self-test share ---- */
static int
bench_allocs_selftest(struct crypt_data *cd, unsigned reps)
{
    char hash[128];
    unsigned long before;
    struct kdf_bf_ctx *ctx;
    uint32_t salt[4] = {1, 2, 3, 4}, out[6];
    double t0, t_self, t_full;
    int bad = 0;

    if (make_hash(4, hash, sizeof hash, cd) != 0)
        return -1;
    bad |= !ours_verify(hash);
    before = alloc_count_allocs();
    for (int i = 0; i < 100; i++)
        bad |= !ours_verify(hash);
    printf("| heap allocations per verify (kdf_verify, bcrypt, 100 verifies) | %.2f |\n",
           (double)(alloc_count_allocs() - before) / 100.0);

    /* The self-test is one cost-0 run of the same code: time it against a
     * cost-10 run of the same code. */
    ctx = mmap(NULL, sizeof *ctx, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
               0);
    if (ctx == MAP_FAILED)
        return -1;
    t0 = bench_now();
    for (unsigned i = 0; i < 200 * reps; i++)
        kdf_bf_bcrypt(ctx, "selftest", 0, salt, 0, out);
    t_self = (bench_now() - t0) / (200.0 * reps);
    t0 = bench_now();
    for (unsigned i = 0; i < reps; i++)
        kdf_bf_bcrypt(ctx, "selftest", 0, salt, 10, out);
    t_full = (bench_now() - t0) / reps;
    kdf_wipe(ctx, sizeof *ctx);
    munmap(ctx, sizeof *ctx);
    printf(
        "| post-hash self-test (cost 0) / cost-10 hash | %.3f%% (%.1f us / %.2f ms) |\n",
        100.0 * t_self / t_full, t_self * 1e6, t_full * 1e3);
    return bad ? -1 : 0;
}

/* ---- section 3: concurrent verifies ---- */
struct conc {
    pthread_barrier_t *bar;
    const char *hash;
    unsigned per;
    double *lat; /* per entries */
    double *t_end;
    int xcrypt; /* run crypt_rn() instead of kdf_verify() */
    int bad;
    double cpu; /* this thread's CPU time over its verifies */
};

static void *
conc_main(void *p)
{
    struct conc *c = p;
    struct crypt_data *cd = c->xcrypt ? calloc(1, sizeof *cd) : NULL;

    if (c->xcrypt && cd == NULL)
        c->bad = 1;
    pthread_barrier_wait(c->bar);
    c->cpu = now_cpu();
    for (unsigned i = 0; i < c->per && !c->bad; i++) {
        double t0 = bench_now();
        c->bad |= c->xcrypt ? !xcrypt_verify(c->hash, cd) : !ours_verify(c->hash);
        c->lat[i] = bench_now() - t0;
    }
    c->cpu = now_cpu() - c->cpu;
    *c->t_end = bench_now();
    free(cd);
    return NULL;
}

/* nthr threads released together, per verifies each; fills the total
 * wall time, p50/p99 latency, throughput, CPU time per verify and the
 * parallelism reached (all threads' CPU time / wall time).  If nothing
 * serialises, CPU per verify stays flat as threads grow and parallelism
 * reaches the cores that are free. */
struct conc_res {
    double total, p50, p99, tput, cpu_per, par;
};

static int
run_concurrency(unsigned nthr, unsigned per, const char *hash, int xcrypt,
                struct conc_res *res)
{
    pthread_t *th = calloc(nthr, sizeof *th);
    struct conc *cs = calloc(nthr, sizeof *cs);
    double *lat = calloc((size_t)nthr * per, sizeof *lat);
    double *ends = calloc(nthr, sizeof *ends);
    pthread_barrier_t bar;
    double t0, t1 = 0;
    size_t n = (size_t)nthr * per;
    int bad = 0;

    if (th == NULL || cs == NULL || lat == NULL || ends == NULL ||
        pthread_barrier_init(&bar, NULL, nthr + 1) != 0) {
        free(th);
        free(cs);
        free(lat);
        free(ends);
        return -1;
    }
    for (unsigned i = 0; i < nthr; i++) {
        cs[i] = (struct conc){&bar,     hash,   per, lat + (size_t)i * per,
                              &ends[i], xcrypt, 0,   0.0};
        if (pthread_create(&th[i], NULL, conc_main, &cs[i]) != 0)
            return -1;
    }
    t0 = bench_now();
    pthread_barrier_wait(&bar);
    for (unsigned i = 0; i < nthr; i++) {
        pthread_join(th[i], NULL);
        bad |= cs[i].bad;
        if (ends[i] > t1)
            t1 = ends[i];
    }
    pthread_barrier_destroy(&bar);
    qsort(lat, n, sizeof *lat, bench_cmp_double);
    res->cpu_per = 0;
    for (unsigned i = 0; i < nthr; i++)
        res->cpu_per += cs[i].cpu;
    res->par = res->cpu_per / (t1 - t0);
    res->cpu_per /= (double)n;
    res->total = t1 - t0;
    res->p50 = pct(lat, n, 50);
    res->p99 = pct(lat, n, 99);
    res->tput = (double)n / (t1 - t0);
    free(th);
    free(cs);
    free(lat);
    free(ends);
    return bad ? -1 : 0;
}

static int
bench_concurrency(unsigned nthr, unsigned per, const char *hash, double *base_tput)
{
    struct conc_res o, x;

    if (run_concurrency(nthr, per, hash, 0, &o) != 0 ||
        run_concurrency(nthr, per, hash, 1, &x) != 0)
        return -1;
    if (*base_tput == 0)
        *base_tput = o.tput;
    printf("| %u | %u | %.3f | %.1f | %.1f | %.1f | %.2fx | %.1f | %.2f | %.1f | %.1f | "
           "%.2f "
           "| **%.3f** |\n",
           nthr, nthr * per, o.total, o.p50 * 1e3, o.p99 * 1e3, o.tput,
           o.tput / *base_tput, o.cpu_per * 1e3, o.par, x.p50 * 1e3, x.tput, x.par,
           o.tput / x.tput);
    return 0;
}

int
main(int argc, char **argv)
{
    static const unsigned threads[] = {1, 2, 10, 100};
    struct crypt_data *cd = calloc(1, sizeof *cd);
    unsigned reps10 = 21, reps12 = 7, per = 3;
    int quick = 0, latency_only = 0, rc = 0;
    char hash10[128];
    double base = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps10 = (unsigned)strtoul(argv[++i], NULL, 10);
            reps12 = reps10 / 3 + 1;
        } else if (strcmp(argv[i], "--latency-only") == 0) {
            latency_only = 1;
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: %s [--quick] [--reps N] [--latency-only]\n", argv[0]);
            return help ? 0 : 2;
        }
    }
    if (quick) {
        reps10 = 5;
        reps12 = 2;
        per = 1;
    }
    if (cd == NULL || reps10 == 0)
        return 1;

    printf("## bcrypt: kdfhash vs libxcrypt crypt_rn() (%ld CPUs online)\n\n",
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("| case | runs | ours median ms | libxcrypt median ms | ratio, wall | "
           "ratio, CPU time |\n|---|---|---|---|---|---|\n");
    rc |= bench_latency(10, reps10, cd);
    rc |= bench_latency(12, reps12, cd);
    {
        const char *names[8], *picked = kdf_impl_name(KDF_PRIM_BLOWFISH);
        int usable[8];
        size_t n = kdf_impl_list(KDF_PRIM_BLOWFISH, names, usable, 8);
        for (size_t v = 0; v < n && v < 8; v++)
            rc |= bench_variant((int)v, names[v], usable[v], 10, reps10, cd);
        /* Back to the automatic pick for the sections below. */
        if (kdf_impl_force(picked) != KDF_OK)
            rc = 1;
    }

    if (latency_only) {
        free(cd);
        if (rc != 0)
            fprintf(stderr, "bench_bcrypt: a verify failed\n");
        return rc != 0;
    }

    printf("\n| measure | value |\n|---|---|\n");
    rc |= bench_allocs_selftest(cd, quick ? 2 : 5);

    printf("\n### concurrent cost-10 verifies (threads released together, %u each; "
           "crypt_rn() run the same way right after)\n\n",
           per);
    printf(
        "| threads | verifies | total s | p50 ms | p99 ms | verifies/s | "
        "throughput vs 1 thread | CPU ms per verify | parallelism | libxcrypt p50 ms | "
        "libxcrypt verifies/s | libxcrypt parallelism | throughput ours/libxcrypt "
        "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    if (make_hash(10, hash10, sizeof hash10, cd) != 0)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < sizeof threads / sizeof threads[0]; i++)
        rc |= bench_concurrency(threads[i], per, hash10, &base);

    free(cd);
    if (rc != 0) {
        fprintf(stderr, "bench_bcrypt: a verify failed\n");
        return 1;
    }
    return 0;
}
