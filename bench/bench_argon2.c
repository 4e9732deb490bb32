/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_argon2.c - Argon2 against libsodium and libargon2 (the reference) in
 * the same run, with the pieces that explain the totals: the memory
 * bandwidth of this machine (the floor), the page-fault cost of a fresh
 * work area with and without MADV_HUGEPAGE, and the BlaMka block time of
 * each variant.  Prints markdown tables; ratios are ours / peer (lower is
 * better).  --quick: fewer repetitions (a smoke run); --reps N.
 *
 * --floor M T P: one line of JSON instead, the medians of the core's
 * Argon2id m=M,t=T,p=P in an area kept between calls as a server keeps it
 * (warm_ms: the computation alone, the least a bind of that value can
 * cost) and in an area mapped for each call (fresh_ms: with one CPU idle,
 * its pages come from a helper thread there, so this is latency, not the
 * CPU it costs), for bench/ds_bind.sh.
 *
 * Ours and the peer of a row run in pairs, back to back and in alternating
 * order, and the ratio is the median of the per-pair ratios: on a shared
 * VM the memory system's speed drifts by 10-20% over seconds, and a ratio
 * of two medians taken seconds apart inherits that drift.
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#ifdef BENCH_WITH_SODIUM
#include <sodium.h>
#endif
#ifdef BENCH_WITH_ARGON2
#include <argon2.h>
#endif

#include "alg_argon2.h"
#include "bench_common.h"

static int g_reps = 11;

static double
timed(int (*fn)(void *), void *arg)
{
    double a = bench_now();
    if (fn(arg) != 0) {
        fprintf(stderr, "bench: a run failed\n");
        exit(1);
    }
    return bench_now() - a;
}

static double
median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof t[0], bench_cmp_double);
    return t[n / 2];
}

/* Median of g_reps runs of fn, in seconds; one untimed warm-up first (the
 * first touch of fresh host memory in a VM costs far more than later). */
static double
median_time(int (*fn)(void *), void *arg)
{
    double t[64];
    int n = g_reps < 64 ? g_reps : 64;
    (void)timed(fn, arg);
    for (int i = 0; i < n; i++)
        t[i] = timed(fn, arg);
    return median(t, n);
}

struct paired {
    double a, b;  /* medians, seconds */
    double ratio; /* median of the per-pair a / b */
};

/* g_reps pairs of runs of a and b, back to back, the order alternating
 * (after one untimed warm-up of each). */
static struct paired
paired_time(int (*fa)(void *), void *aa, int (*fb)(void *), void *ab)
{
    double ta[64], tb[64], r[64];
    int n = g_reps < 64 ? g_reps : 64;
    struct paired out;

    (void)timed(fa, aa);
    (void)timed(fb, ab);
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0) {
            ta[i] = timed(fa, aa);
            tb[i] = timed(fb, ab);
        } else {
            tb[i] = timed(fb, ab);
            ta[i] = timed(fa, aa);
        }
        r[i] = ta[i] / tb[i];
    }
    out.a = median(ta, n);
    out.b = median(tb, n);
    out.ratio = median(r, n);
    return out;
}

/* ---- the runs ---- */

struct run {
    enum kdf_argon2_type type; /* ours only: the peers run Argon2id */
    uint32_t m, t, p, threads;
    const char *encoded; /* for the verify peers */
};

static const uint8_t g_salt[16] = "somesaltsomesalt";
static const char g_pw[] = "correct horse battery staple";

static int
run_ours(void *arg)
{
    const struct run *r = arg;
    uint8_t out[32];
    struct kdf_argon2_args p = {.type = r->type,
                                .version = 0x13,
                                .t_cost = r->t,
                                .m_kib = r->m,
                                .lanes = r->p,
                                .max_threads = r->threads,
                                .pw = (const uint8_t *)g_pw,
                                .pw_len = strlen(g_pw),
                                .salt = g_salt,
                                .salt_len = 16};
    return kdf_argon2_raw(&p, out, 32, NULL, 0) != KDF_OK;
}

static int
run_ours_verify(void *arg)
{
    const struct run *r = arg;
    return kdf_verify(g_pw, strlen(g_pw), r->encoded, strlen(r->encoded)) != KDF_OK;
}

#ifdef BENCH_WITH_SODIUM
static int
run_sodium(void *arg)
{
    const struct run *r = arg;
    uint8_t out[32];
    return crypto_pwhash(out, 32, g_pw, strlen(g_pw), g_salt, r->t, (size_t)r->m * 1024,
                         crypto_pwhash_ALG_ARGON2ID13);
}
static int
run_sodium_verify(void *arg)
{
    const struct run *r = arg;
    return crypto_pwhash_str_verify(r->encoded, g_pw, strlen(g_pw));
}
#endif

#ifdef BENCH_WITH_ARGON2
static int
run_argon2(void *arg)
{
    const struct run *r = arg;
    uint8_t out[32];
    return argon2id_hash_raw(r->t, r->m, r->p, g_pw, strlen(g_pw), g_salt, 16, out, 32);
}
#endif

/* ---- the floor: memory bandwidth and page faults ---- */

static double
bandwidth_gbs(size_t len)
{
    uint8_t *a = malloc(len), *b = malloc(len);
    double best = 0;
    if (a == NULL || b == NULL)
        exit(1);
    memset(a, 1, len);
    memset(b, 2, len);
    for (int i = 0; i < g_reps; i++) {
        double t0 = bench_now();
        memcpy(b, a, len);
        double t1 = bench_now();
        a[i] ^= b[len - 1 - (size_t)i];
        double gbs = 2.0 * (double)len / (t1 - t0) / 1e9; /* read + write */
        if (gbs > best)
            best = gbs;
    }
    free(a);
    free(b);
    return best;
}

/* Map len bytes, optionally hint huge pages, fault every page; returns the
 * seconds spent faulting, and whether THP backed it (AnonHugePages > 0 is
 * not read: the time tells). */
static double
fault_time(size_t len, int huge, int bulk)
{
    size_t h = (size_t)2 << 20;
    uint8_t *base =
        mmap(NULL, len + h, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        exit(1);
    uint8_t *p = (uint8_t *)(((uintptr_t)base + h - 1) & ~(uintptr_t)(h - 1));
    if (huge)
        (void)madvise(p, len, MADV_HUGEPAGE);
    double t0 = bench_now();
#ifdef MADV_POPULATE_WRITE
    if (bulk && madvise(p, len, MADV_POPULATE_WRITE) == 0)
        bulk = 2;
#endif
    if (bulk != 2)
        for (size_t o = 0; o < len; o += 4096)
            ((volatile uint8_t *)p)[o] = 1;
    double t1 = bench_now();
    munmap(base, len + h);
    return t1 - t0;
}

static double
median_fault(size_t len, int huge, int bulk)
{
    double t[64];
    int n = g_reps < 64 ? g_reps : 64;
    (void)fault_time(len, huge, bulk);
    for (int i = 0; i < n; i++)
        t[i] = fault_time(len, huge, bulk);
    return median(t, n);
}

/* The latency floor of data-dependent addressing.  In Argon2d and the
 * last 5/6 of Argon2id, block j's reference is known only from word 0 of
 * block j-1 (RFC 9106 section 3.4.2), so with one lane the blocks form a
 * chain of dependent 1 KiB reads.  This chases such a chain over 64 MiB of
 * huge pages in a random cyclic order, reading all 16 lines of each block
 * before the next address is known: nanoseconds per block, with no
 * computation at all. */
static double
block_chase_ns(size_t len)
{
    size_t nb = len / 1024, h = (size_t)2 << 20;
    uint8_t *base =
        mmap(NULL, len + h, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint32_t *perm = malloc(nb * sizeof *perm);
    uint64_t x = 0x9e3779b97f4a7c15u, cur, acc = 0;
    double best = 1e9;

    if (base == MAP_FAILED || perm == NULL)
        exit(1);
    uint8_t *p = (uint8_t *)(((uintptr_t)base + h - 1) & ~(uintptr_t)(h - 1));
    (void)madvise(p, len, MADV_HUGEPAGE);
    memset(p, 0, len);
    for (size_t i = 0; i < nb; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = nb - 1; i > 0; i--) { /* Fisher-Yates on xorshift64 */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = (size_t)(x % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < nb; i++) /* word 0 ^ word 127 = next block */
        ((uint64_t *)(p + (size_t)perm[i] * 1024))[0] = perm[(i + 1) % nb];
    for (int rep = 0; rep < 3; rep++) {
        size_t steps = nb * 2;
        cur = perm[0];
        double t0 = bench_now();
        for (size_t s = 0; s < steps; s++) {
            const volatile uint64_t *b = (const volatile uint64_t *)(p + cur * 1024);
            uint64_t all = 0;
            for (int k = 0; k < 128; k += 8) /* one word per line */
                all ^= b[k];
            cur = all ^ b[127];
        }
        double ns = (bench_now() - t0) * 1e9 / (double)steps;
        acc ^= cur;
        if (ns < best)
            best = ns;
    }
    munmap(base, len + h);
    free(perm);
    return acc == ~(uint64_t)0 ? 0 : best; /* uses acc */
}

/* ---- per-variant block time ---- */

static void
block_time(kdf_argon2_fill_block_fn fb, double *ns, double *cyc)
{
    static struct kdf_argon2_block a, b, c;
    int n = g_reps * 20000;
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++) {
        a.v[k] = UINT64_C(0x0123456789abcdef) * ((uint64_t)k + 1);
        b.v[k] = ~a.v[k];
        c.v[k] = (uint64_t)k;
    }
    fb(&a, &b, &c, 1);
#if defined(__x86_64__)
    uint64_t c0 = __rdtsc();
#endif
    double t0 = bench_now();
    for (int i = 0; i < n; i++) {
        fb(&a, &b, &c, 1);
        fb(&c, &a, &b, 1);
    }
    double t1 = bench_now();
#if defined(__x86_64__)
    *cyc = (double)(__rdtsc() - c0) / (2.0 * n);
#else
    *cyc = 0;
#endif
    *ns = (t1 - t0) * 1e9 / (2.0 * n);
}

/* CPU seconds of the process so far, every thread: user + system, and
 * the system part. */
static void
cpu_now(double *all, double *sys)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    *sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    *all = *sys + (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
}

static int
floor_json(const char *m, const char *t, const char *p)
{
    struct run r = {KDF_ARGON2_ID, (uint32_t)strtoul(m, NULL, 10),
                    (uint32_t)strtoul(t, NULL, 10), (uint32_t)strtoul(p, NULL, 10), 0, NULL};

    if (kdf_argon2_work_size(r.m, r.p) == 0 || r.t == 0) {
        fprintf(stderr, "bench: bad parameters for --floor\n");
        return 2;
    }
    /* Warm: the area a server keeps (kdf_workpool_set()), mapped and
     * populated once, at median_time()'s untimed warm-up run. */
    double w0, w1, ws0, ws1, f0, f1, fs0, fs1;
    kdf_workpool_set(1, KDF_WORKPOOL_KEEP_ANY);
    cpu_now(&w0, &ws0);
    double warm = median_time(run_ours, &r);
    cpu_now(&w1, &ws1);
    kdf_workpool_set(0, 0);
    cpu_now(&f0, &fs0);
    double fresh = median_time(run_ours, &r);
    cpu_now(&f1, &fs1);
    /* CPU per call, every thread of the process: user + system. */
    int calls = 1 + (g_reps < 64 ? g_reps : 64);
    printf("{\"warm_ms\": %.3f, \"fresh_ms\": %.3f, \"warm_cpu_ms\": %.3f, "
           "\"fresh_cpu_ms\": %.3f, \"fresh_sys_ms\": %.3f, \"variant\": \"%s\"}\n",
           warm * 1e3, fresh * 1e3, (w1 - w0) * 1e3 / calls, (f1 - f0) * 1e3 / calls,
           (fs1 - fs0) * 1e3 / calls,
           kdf_impl_name(KDF_PRIM_BLAMKA));
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--floor") == 0) {
        g_reps = 21;
        return floor_json(argv[2], argv[3], argv[4]);
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            g_reps = 3;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            g_reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--quick] [--reps N]\n", argv[0]);
            return 2;
        }
    }
    if (g_reps < 1)
        g_reps = 1;
#ifdef BENCH_WITH_SODIUM
    if (sodium_init() < 0)
        return 1;
#endif
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf(
        "# Argon2id: kdfhash vs libsodium vs libargon2 (median of %d, %ld CPUs, BlaMka "
        "variant %s)\n\n",
        g_reps, cpus, kdf_impl_name(KDF_PRIM_BLAMKA));

    /* The floor. */
    double bw = bandwidth_gbs((size_t)64 << 20);
    size_t len = (size_t)64 << 20;
    double f4k = median_fault(len, 0, 0), fhuge = median_fault(len, 1, 0),
           fbulk = median_fault(len, 1, 1);
    /* Argon2 m=64 MiB, t=3 moves about (2t + t - 1) * m bytes: each pass
     * reads a reference block and writes a block, passes after the first
     * also read the old block (version 0x13). */
    double floor_s = (double)len * (2 * 3 + 2) / (bw * 1e9);
    printf("## Memory (64 MiB)\n\n| what | value |\n|---|---|\n");
    printf("| memcpy bandwidth (read+write) | %.1f GB/s |\n", bw);
    printf("| floor for m=65536,t=3 (8 x 64 MiB moved) | %.1f ms |\n", floor_s * 1e3);
    printf("| fault 64 MiB, 4 KiB first touch | %.1f ms (%.2f us/page) |\n", f4k * 1e3,
           f4k * 1e6 / (double)(len / 4096));
    printf("| fault 64 MiB, MADV_HUGEPAGE + first touch | %.1f ms |\n", fhuge * 1e3);
    printf("| fault 64 MiB, MADV_HUGEPAGE + MADV_POPULATE_WRITE (ours) | %.1f ms |\n",
           fbulk * 1e3);
    /* The floor of one lane: data-dependent blocks wait for memory. */
    double chase = block_chase_ns(len);
    /* Argon2d: every block's reference comes from the block before it. */
    struct run rd = {KDF_ARGON2_D, 65536, 3, 1, 0, NULL};
    double od = median_time(run_ours, &rd);
    printf("| dependent 1 KiB block reads, random chain over 64 MiB | %.0f ns/block |\n",
           chase);
    printf("| ours, argon2d m=65536,t=3,p=1 (every block data-dependent) | %.0f ns/block "
           "(%.1f ms) |\n\n",
           od * 1e9 / (65536.0 * 3), od * 1e3);

    /* Issue rows. */
    printf("## Targets\n\n| case | ours ms | peer | peer ms | ratio (median of "
           "pairs) | target |\n|---|---|---|---|---|---|\n");
    struct run r1 = {KDF_ARGON2_ID, 65536, 3, 1, 0, NULL};
#ifdef BENCH_WITH_SODIUM
    struct paired p1 = paired_time(run_ours, &r1, run_sodium, &r1);
    printf("| argon2id m=65536,t=3,p=1 | %.1f | libsodium crypto_pwhash | %.1f | %.2f | "
           "<= 0.5 |\n",
           p1.a * 1e3, p1.b * 1e3, p1.ratio);
#else
    printf("| argon2id m=65536,t=3,p=1 | %.1f | (no libsodium) | - | - | <= 0.5 |\n",
           median_time(run_ours, &r1) * 1e3);
#endif
    struct run r2 = {KDF_ARGON2_ID, 19456, 2, 1, 0, NULL};
    struct paired best2 = {0, 0, 0};
    const char *who2 = NULL;
#ifdef BENCH_WITH_SODIUM
    best2 = paired_time(run_ours, &r2, run_sodium, &r2);
    who2 = "libsodium";
#endif
#ifdef BENCH_WITH_ARGON2
    struct paired a2 = paired_time(run_ours, &r2, run_argon2, &r2);
    if (who2 == NULL || a2.b < best2.b) {
        best2 = a2;
        who2 = "libargon2";
    }
#endif
    if (who2 != NULL)
        printf("| argon2id m=19456,t=2,p=1 (OWASP) | %.1f | faster of "
               "libsodium/libargon2 (%s) | %.1f | %.2f | <= 0.6 |\n",
               best2.a * 1e3, who2, best2.b * 1e3, best2.ratio);
    char enc[256];
    struct kdf_target tg = {.scheme = KDF_SCHEME_ARGON2ID,
                            .format = KDF_FMT_NATIVE,
                            .version = 0x13,
                            .cost = 3,
                            .m_kib = 65536,
                            .lanes = 4,
                            .salt_len = 16,
                            .dk_len = 32};
    if (kdf_hash_salt(g_pw, strlen(g_pw), &tg, g_salt, 16, enc, sizeof enc) != KDF_OK)
        return 1;
    struct run r3 = {KDF_ARGON2_ID, 65536, 3, 4, 0, enc},
               r3one = {KDF_ARGON2_ID, 65536, 3, 4, 1, enc};
#ifdef BENCH_WITH_SODIUM
    struct paired p3 = paired_time(run_ours_verify, &r3, run_sodium_verify, &r3);
    printf(
        "| argon2id m=65536,t=3,p=4 verify | %.1f | libsodium crypto_pwhash_str_verify | "
        "%.1f | %.2f | <= 0.4 |\n",
        p3.a * 1e3, p3.b * 1e3, p3.ratio);
#endif
    struct paired p3one = paired_time(run_ours_verify, &r3, run_ours, &r3one);
    printf("| argon2id m=65536,t=3,p=4 verify (%ld threads) | %.1f | ours, one thread | "
           "%.1f | %.2f | <= 0.6 |\n\n",
           cpus < 4 ? cpus : 4, p3one.a * 1e3, p3one.b * 1e3, p3one.ratio);

    /* Per variant. */
    const char *names[8];
    int usable[8];
    size_t nv = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, 8);
    double port_blk = 0, port_hash = 0;
    printf("## Per BlaMka variant (argon2id m=65536,t=3,p=1)\n\n"
           "| variant | ns/block | cycles/block (TSC) | hash ms | vs portable |\n"
           "|---|---|---|---|---|\n");
    for (size_t i = nv; i-- > 0;) { /* portable first, it is the yardstick */
        double ns, cyc, h;
        if (!usable[i]) {
            printf("| %s | not supported by this CPU | | | |\n", names[i]);
            continue;
        }
        if (kdf_dispatch_force_index(KDF_PRIM_BLAMKA, i) != KDF_OK)
            return 1;
        block_time(kdf_blamka_block_impl(i), &ns, &cyc);
        h = median_time(run_ours, &r1);
        if (port_blk == 0) {
            port_blk = ns;
            port_hash = h;
        }
        printf("| %s | %.1f | %.0f | %.1f | block %.2fx, hash %.2fx |\n", names[i], ns,
               cyc, h * 1e3, ns / port_blk, h / port_hash);
    }
    kdf_dispatch_force_mask(~0u);
    return 0;
}
