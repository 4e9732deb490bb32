/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_argon2.c - one Argon2 computation (RFC 9106 section 3): parameter
 * checks, the work area, H0 and the first blocks, the passes over lanes on
 * threads, and the final hash.  The segment filler comes from the dispatch
 * table (alg_blamka.c); everything here is ISA-independent.
 *
 * Memory.  First-touch page faults on a fresh 64 MiB area cost more than the
 * whole computation, so a mapped work area is aligned to 2 MiB, marked
 * MADV_HUGEPAGE and populated in bulk (util_workarea.c); when the lanes leave a
 * CPU idle, a helper thread populates while the computation starts (see
 * map_work()).  A server may keep areas between calls instead (the pool of
 * util_workarea.c).  bench/bench_argon2.c measures the fault cost with and
 * without the hint.  Every block is wiped with explicit_bzero before
 * return, by the thread that filled it, and a mapped area is unmapped; a
 * caller's work area, and a kept one, is wiped, not released.
 *
 * Threads.  Lanes of one slice are independent (section 3.4), so slices are
 * the synchronisation points.  Up to `threads - 1` helper threads start
 * once per call; share k (lanes k, k + threads, ...) is theirs for every
 * slice, and all meet at a barrier after each slice.  A helper that cannot
 * be created leaves its share to the calling thread: the result never
 * depends on the thread count, and no thread outlives the call.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"
#if defined(KDF_TEST_HOOKS) || defined(KDF_CORE_BUILD)
#include "kdf_testing.h"
#endif
#include "util_memgate.h"
#include "util_workarea.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alg_blake2b.h"
#include "alg_argon2.h"

#define MAX_LANES 0xffffffu /* RFC 9106 section 3.1: p < 2^24 */

size_t
kdf_argon2_work_size(uint32_t m_kib, uint32_t lanes)
{
    if (lanes == 0 || lanes > MAX_LANES || m_kib < 8 * (uint64_t)lanes)
        return 0;
    /* m' = 4p * floor(m / 4p) blocks (section 3.2 step 4). */
    uint64_t blocks = (uint64_t)m_kib / (4 * (uint64_t)lanes) * 4 * lanes;
    uint64_t bytes = blocks * KDF_ARGON2_BLOCK_SIZE;
    if (bytes > SIZE_MAX)
        return 0;
    return (size_t)bytes;
}

/* ---- threads ---- */

/* pthread_create with every signal blocked in the new thread (it inherits
 * the creator's mask; the creator's own mask is put back at once).  A
 * process-directed signal of the host (sshd's SIGALRM for LoginGraceTime,
 * a SIGCHLD) then never lands on a core thread and never runs the host's
 * handler there: Argon2's threads are invisible to the host's signal
 * handling. */
static int
start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0)
        return -1;
    rc = pthread_create(t, NULL, fn, arg);
    (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc == 0 ? 0 : -1;
}

/* ---- the work area ---- */

struct work_area {
    void *map; /* what munmap gets, NULL for a caller's buffer */
    size_t map_len;
    void *mem; /* 64-byte aligned, `len` bytes */
    size_t len;
    pthread_t filler; /* background populate, see map_work() */
    int filling;
};

static void *
populate_thread(void *arg)
{
    struct work_area *w = arg;
    /* Only the kernel's populate: the first-touch fallback writes, and
     * would race with the computation.  Without it the computation takes
     * the faults itself. */
#ifdef MADV_POPULATE_WRITE
    (void)madvise(w->map, w->map_len, MADV_POPULATE_WRITE);
#else
    (void)w;
#endif
    return NULL;
}

/* How a mapped area gets its pages (the kernel zeroes every one, huge pages
 * too: bench/bench_argon2.c times it). */
enum populate_mode {
    POP_NOW,        /* here, before computing */
    POP_BACKGROUND, /* one lane thread: a helper thread populates while the
                       computation starts on the other CPU */
    POP_BY_LANES    /* several lane threads: each populates its own lanes
                       first (run_lanes), in parallel */
};

/* Map the work area (util_workarea.c).  A page the computation reaches before
 * the populate is simply faulted by it; release_work() joins the helper
 * before anything is wiped or unmapped. */
static enum kdf_status
map_work(struct work_area *w, size_t len, enum populate_mode mode)
{
    void *p;
    size_t body;

    if (kdf_area_map(len, &p, &body) != KDF_OK)
        return KDF_NOMEM;
    w->map = p;
    w->map_len = body;
    w->mem = p;
    w->len = len;
    if (mode == POP_BY_LANES)
        return KDF_OK;
    w->filling = mode == POP_BACKGROUND &&
                 start_thread(&w->filler, populate_thread, w) == 0;
    if (!w->filling && kdf_area_populate(p, body) != 0) {
        kdf_area_unmap(p, body);
        w->map = w->mem = NULL;
        return KDF_NOMEM;
    }
    return KDF_OK;
}

/* Join the populate helper and unmap.  The blocks were wiped already, by
 * the threads that filled them (fill_memory(), final_hash()); the rest of
 * a mapped area past `len` never held anything but the kernel's zeros. */
static void
release_work(struct work_area *w)
{
    if (w->filling)
        (void)pthread_join(w->filler, NULL);
    w->filling = 0;
    kdf_area_unmap(w->map, w->map_len);
    w->map = w->mem = NULL;
}

/* ---- H0, first blocks, final block (section 3.2) ---- */

static void
b2_le32(struct kdf_blake2b_state *s, uint64_t v)
{
    uint8_t b[4];
    kdf_store32_le(b, (uint32_t)v);
    kdf_blake2b_update(s, b, sizeof b);
}

static void
b2_field(struct kdf_blake2b_state *s, const uint8_t *p, size_t n)
{
    b2_le32(s, n);
    if (n > 0)
        kdf_blake2b_update(s, p, n);
}

/* H0 = H^64(LE32(p) || LE32(T) || LE32(m) || LE32(t) || LE32(v) || LE32(y)
 *           || len P || P || len S || S || len K || K || len X || X). */
static void
initial_hash(const struct kdf_argon2_args *a, size_t out_len,
             uint8_t h0[KDF_ARGON2_PREHASH_SEED])
{
    struct kdf_blake2b_state s;

    (void)kdf_blake2b_init(&s, KDF_ARGON2_PREHASH_DIGEST, NULL, 0);
    b2_le32(&s, a->lanes);
    b2_le32(&s, out_len);
    b2_le32(&s, a->m_kib);
    b2_le32(&s, a->t_cost);
    b2_le32(&s, a->version);
    b2_le32(&s, (uint32_t)a->type);
    b2_field(&s, a->pw, a->pw_len);
    b2_field(&s, a->salt, a->salt_len);
    b2_field(&s, a->secret, a->secret_len);
    b2_field(&s, a->ad, a->ad_len);
    kdf_blake2b_final(&s, h0);
}

static void
load_block(struct kdf_argon2_block *b, const uint8_t bytes[KDF_ARGON2_BLOCK_SIZE])
{
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
        b->v[k] = kdf_load64_le(bytes + 8 * k);
}

/* B[l][0] = H'^1024(H0 || LE32(0) || LE32(l)), B[l][1] likewise with 1.
 * Per lane, on the thread that fills the lane: pass 0 slice 0 references
 * only its own lane, so nothing else needs these blocks first. */
static void
first_blocks(const struct kdf_argon2_instance *in,
             const uint8_t h0[KDF_ARGON2_PREHASH_DIGEST], uint32_t l)
{
    uint8_t seed[KDF_ARGON2_PREHASH_SEED];
    uint8_t blk[KDF_ARGON2_BLOCK_SIZE];

    memcpy(seed, h0, KDF_ARGON2_PREHASH_DIGEST);
    kdf_store32_le(seed + KDF_ARGON2_PREHASH_DIGEST + 4, l);
    for (uint32_t j = 0; j < 2; j++) {
        kdf_store32_le(seed + KDF_ARGON2_PREHASH_DIGEST, j);
        (void)kdf_blake2b_long(blk, sizeof blk, seed, sizeof seed);
        load_block(&in->memory[(size_t)l * in->lane_length + j], blk);
    }
    kdf_wipe(seed, sizeof seed);
    kdf_wipe(blk, sizeof blk);
}

/* C = B[0][q-1] ^ ... ^ B[p-1][q-1]; tag = H'^T(C).  The last blocks
 * are the only ones fill_memory() left unwiped; wiped here once read. */
static void
final_hash(const struct kdf_argon2_instance *in, uint8_t *out, size_t out_len)
{
    struct kdf_argon2_block c;
    uint8_t bytes[KDF_ARGON2_BLOCK_SIZE];

    c = in->memory[in->lane_length - 1];
    for (uint32_t l = 1; l < in->lanes; l++) {
        const struct kdf_argon2_block *b =
            &in->memory[(size_t)l * in->lane_length + in->lane_length - 1];
        for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
            c.v[k] ^= b->v[k];
    }
    for (uint32_t l = 0; l < in->lanes; l++)
        kdf_wipe(&in->memory[(size_t)l * in->lane_length + in->lane_length - 1],
                 KDF_ARGON2_BLOCK_SIZE);
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
        kdf_store64_le(bytes + 8 * k, c.v[k]);
    (void)kdf_blake2b_long(out, out_len, bytes, sizeof bytes);
    kdf_wipe(&c, sizeof c);
    kdf_wipe(bytes, sizeof bytes);
}

/* ---- passes over the lanes ---- */

/* The lanes of one call and the threads that fill them.  Lanes are dealt
 * round-robin to `shares` shares (share k: lanes k, k + shares, ...); the
 * calling thread takes share 0 and every share whose helper thread could
 * not be started.  Helpers live for the whole call and meet at a barrier
 * after each slice (RFC 9106 section 3.4: slices are the only points where
 * lanes depend on each other).  A pthread_create per slice (12 of them for
 * t=3) costs far more than a wait at a barrier. */
struct lane_pool {
    const struct kdf_argon2_instance *in;
    kdf_argon2_fill_segment_fn fill;
    const uint8_t *h0;  /* H0 (64 bytes), read-only once the pool runs */
    uint32_t shares;    /* threads planned, the calling one included */
    int populate;       /* POP_BY_LANES: fault in each share's lanes first */
    pthread_mutex_t mu; /* the barrier's sleeping path */
    pthread_cond_t cv;
    atomic_uint arrived; /* arrivals in the current round */
    atomic_uint round;   /* completed rounds */
};

struct lane_share {
    struct lane_pool *pool;
    uint32_t first;
};

static void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint64_t
mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* How long a thread that finished its slice spins before it sleeps.  Lane
 * shares of one slice are equal work and usually finish within tens of
 * microseconds of each other, while a futex wake-up costs about as much
 * again (an inter-processor interrupt in a VM).  There are never more
 * threads than CPUs we may run on (usable_cpus()), so the spin takes no
 * CPU from a lane thread unless another process does. */
#define BARRIER_SPIN_NS 200000u

/* Arrive `weight` times (the calling thread also arrives for the shares
 * it runs in place of helpers that could not start) and wait for the
 * other threads. */
static void
pool_barrier(struct lane_pool *p, uint32_t weight)
{
    unsigned r = atomic_load_explicit(&p->round, memory_order_acquire);

    if (atomic_fetch_add_explicit(&p->arrived, weight, memory_order_acq_rel) + weight ==
        p->shares) {
        /* Last in: reset for the next round, then release the others.
         * Nobody can arrive again before seeing the new round, which is
         * published after the reset. */
        atomic_store_explicit(&p->arrived, 0, memory_order_relaxed);
        pthread_mutex_lock(&p->mu);
        atomic_store_explicit(&p->round, r + 1, memory_order_release);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        return;
    }
    uint64_t t0 = mono_ns();
    for (unsigned k = 1;; k++) {
        if (atomic_load_explicit(&p->round, memory_order_acquire) != r)
            return;
        cpu_relax();
        if ((k & 63) == 0 && mono_ns() - t0 > BARRIER_SPIN_NS)
            break;
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load_explicit(&p->round, memory_order_acquire) == r)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

/* Populate the memory of lane l (whole pages around it). */
static void
populate_lane(const struct kdf_argon2_instance *in, uint32_t l)
{
#ifdef MADV_POPULATE_WRITE
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t mask = (uintptr_t)(pg > 0 ? pg : 4096) - 1;
    uintptr_t a = (uintptr_t)&in->memory[(size_t)l * in->lane_length];
    uintptr_t b = a + (uintptr_t)in->lane_length * KDF_ARGON2_BLOCK_SIZE;
    a &= ~mask;
    b = (b + mask) & ~mask;
    (void)madvise((void *)a, (size_t)(b - a), MADV_POPULATE_WRITE); /* faults otherwise */
#else
    (void)in;
    (void)l;
#endif
}

/* Share `first` of one slice: its lanes in one fill call, so that the
 * walker can interleave them.  Before the first slice, the share's lanes
 * get their pages and their first two blocks. */
static void
run_share(const struct lane_pool *p, uint32_t first, uint32_t pass, uint32_t slice)
{
    const struct kdf_argon2_instance *in = p->in;

    if (first >= in->lanes)
        return;
    if (pass == 0 && slice == 0) {
        for (uint32_t l = first; l < in->lanes; l += p->shares) {
            if (p->populate)
                populate_lane(in, l);
            first_blocks(in, p->h0, l);
        }
    }
    uint32_t count = (in->lanes - first + p->shares - 1) / p->shares;
    struct kdf_argon2_position pos = {pass, first, slice, 0, p->shares, count};
    p->fill(in, pos);
}

/* After the last slice: wipe the share's lanes, all but their last
 * blocks, which the final hash still reads (final_hash() wipes those).
 * Each thread wipes what it filled, in parallel with the others. */
static void
wipe_share(const struct lane_pool *p, uint32_t first)
{
    const struct kdf_argon2_instance *in = p->in;

    for (uint32_t l = first; l < in->lanes; l += p->shares)
        kdf_wipe(&in->memory[(size_t)l * in->lane_length],
                 (size_t)(in->lane_length - 1) * KDF_ARGON2_BLOCK_SIZE);
}

static void *
lane_thread(void *arg)
{
    const struct lane_share *sh = arg;
    struct lane_pool *p = sh->pool;

    for (uint32_t pass = 0; pass < p->in->passes; pass++)
        for (uint32_t slice = 0; slice < KDF_ARGON2_SYNC_POINTS; slice++) {
            run_share(p, sh->first, pass, slice);
            pool_barrier(p, 1);
        }
    wipe_share(p, sh->first);
    return NULL;
}

/* The CPUs this process may run on: those online, and of those only the
 * ones in its affinity mask (a container's cpuset, taskset).  More lane
 * threads than that would only take turns on the same CPUs, and a thread
 * spinning at the slice barrier would hold up the one it waits for. */
static unsigned
usable_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cpus = n > 0 ? (unsigned)n : 1;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int allowed = CPU_COUNT(&set);
        if (allowed > 0 && (unsigned)allowed < cpus)
            cpus = (unsigned)allowed;
    }
#endif
    return cpus;
}

#define MAX_THREADS 64 /* beyond the policy cap of 16 with room to spare */

/* Every pass and slice, then the wipe of all blocks but the lanes' last. */
static void
fill_memory(const struct kdf_argon2_instance *in, kdf_argon2_fill_segment_fn fill,
            const uint8_t h0[KDF_ARGON2_PREHASH_DIGEST], int populate)
{
    struct lane_pool p = {.in = in, .fill = fill, .h0 = h0, .populate = populate};
    struct lane_share shares[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    uint32_t missing = 0; /* shares the calling thread runs for a helper */

    p.shares = in->threads;
    if (p.shares > 1) {
        pthread_mutex_init(&p.mu, NULL);
        pthread_cond_init(&p.cv, NULL);
        atomic_init(&p.arrived, 0);
        atomic_init(&p.round, 0);
    }
    for (uint32_t k = 1; k < p.shares; k++) {
        shares[k] = (struct lane_share){&p, k};
        started[k] = start_thread(&tid[k], lane_thread, &shares[k]) == 0;
        missing += !started[k];
    }
    for (uint32_t pass = 0; pass < in->passes; pass++)
        for (uint32_t slice = 0; slice < KDF_ARGON2_SYNC_POINTS; slice++) {
            run_share(&p, 0, pass, slice);
            for (uint32_t k = 1; k < p.shares; k++)
                if (!started[k])
                    run_share(&p, k, pass, slice);
            if (p.shares > 1)
                pool_barrier(&p, 1 + missing);
        }
    wipe_share(&p, 0);
    for (uint32_t k = 1; k < p.shares; k++) {
        if (started[k])
            (void)pthread_join(tid[k], NULL);
        else
            wipe_share(&p, k);
    }
    if (p.shares > 1) {
        pthread_cond_destroy(&p.cv);
        pthread_mutex_destroy(&p.mu);
    }
}

enum kdf_status
kdf_argon2_compute(const struct kdf_argon2_args *a, uint8_t *out, size_t out_len,
                   void *work, size_t work_sz)
{
    struct kdf_argon2_instance in;
    struct work_area w = {0};
    struct kdf_pool_slot *kept = NULL;
    enum populate_mode pop = POP_NOW;
    uint8_t h0[KDF_ARGON2_PREHASH_SEED];
    enum kdf_status st;
    size_t need;
    int gate = -1;

    if (a == NULL || out == NULL)
        return KDF_RANGE;
    /* RFC 9106 section 3.1 bounds. */
    if ((a->type != KDF_ARGON2_D && a->type != KDF_ARGON2_I &&
         a->type != KDF_ARGON2_ID) ||
        (a->version != 0x10 && a->version != 0x13) || a->t_cost == 0 || out_len < 4 ||
        out_len > UINT32_MAX || a->pw_len > UINT32_MAX || a->salt_len > UINT32_MAX ||
        a->secret_len > UINT32_MAX || a->ad_len > UINT32_MAX ||
        (a->pw == NULL && a->pw_len != 0) || (a->salt == NULL && a->salt_len != 0) ||
        (a->secret == NULL && a->secret_len != 0) || (a->ad == NULL && a->ad_len != 0))
        return KDF_RANGE;
    need = kdf_argon2_work_size(a->m_kib, a->lanes);
    if (need == 0) {
        /* Valid parameters whose area exceeds a 32-bit address space
         * (m near 4 TiB on armhf, i386): no memory, not a bad hash. */
        if (a->lanes != 0 && a->lanes <= MAX_LANES && a->m_kib >= 8 * (uint64_t)a->lanes)
            return KDF_NOMEM;
        return KDF_RANGE;
    }
    kdf_argon2_fill_segment_fn fill =
        (kdf_argon2_fill_segment_fn)kdf_dispatch_get(KDF_PRIM_BLAMKA);

    /* At most min(p, CPUs online and in our affinity mask, cap) threads. */
    uint32_t nt = a->lanes;
    unsigned cpus = usable_cpus();
    if (nt > cpus)
        nt = cpus;
    if (a->max_threads != 0 && nt > a->max_threads)
        nt = a->max_threads;
    if (nt > MAX_THREADS)
        nt = MAX_THREADS;
    if (nt == 0)
        nt = 1;

    if (work != NULL) {
        if (work_sz < need || ((uintptr_t)work & 63) != 0)
            return KDF_RANGE;
        w.mem = work;
        w.len = need;
    } else if ((kept = kdf_workpool_take(need, a->mem_budget_kib, a->mem_wait_ms,
                                         a->mem_admin != 0, &w.mem, &st)) != NULL) {
        /* A server's kept area (util_workarea.c): populated, all zeros, its
         * share of the budget held; wiped below as a caller's area is. */
        w.len = need;
    } else if (st != KDF_OK) {
        return st;
    } else {
        /* Overlap the populate with other work when the area is big
         * enough for it to matter (>= 4 MiB). */
        pop = need < ((size_t)4 << 20) ? POP_NOW
              : nt >= 2                ? POP_BY_LANES
              : cpus >= 2              ? POP_BACKGROUND
                                       : POP_NOW;
        /* The machine's budget first (util_memgate.c): wait for a share, or
         * refuse as busy, rather than map and risk the OOM killer. */
        st = kdf_memgate_take(need / 1024, a->mem_budget_kib, a->mem_wait_ms,
                              a->mem_admin != 0, &gate);
        if (st != KDF_OK)
            return st;
        st = map_work(&w, need, pop);
        if (st != KDF_OK) {
            kdf_memgate_give(gate);
            return st;
        }
    }

    memset(&in, 0, sizeof in);
    in.memory = (struct kdf_argon2_block *)w.mem;
    in.version = a->version;
    in.passes = a->t_cost;
    in.memory_blocks = (uint32_t)(need / KDF_ARGON2_BLOCK_SIZE);
    in.lanes = a->lanes;
    in.lane_length = in.memory_blocks / a->lanes;
    in.segment_length = in.lane_length / KDF_ARGON2_SYNC_POINTS;
    in.type = a->type;
    in.threads = nt;

    initial_hash(a, out_len, h0);
    fill_memory(&in, fill, h0, w.map != NULL && pop == POP_BY_LANES);
    kdf_wipe(h0, sizeof h0);
    final_hash(&in, out, out_len);
    release_work(&w);
    kdf_workpool_give(kept);
    kdf_memgate_give(gate);
    return KDF_OK;
}

/* The tests' and bench/'s entry point (kdf_testing.h). */
enum kdf_status
kdf_argon2_raw(const struct kdf_argon2_args *a, uint8_t *out, size_t out_len, void *work,
               size_t work_sz)
{
    struct kdf_argon2_args c;
    enum kdf_status st;

    if (a == NULL || out == NULL)
        return KDF_RANGE;
    if (a->type != KDF_ARGON2_D && a->type != KDF_ARGON2_I && a->type != KDF_ARGON2_ID)
        return KDF_UNSUPPORTED;
    c = *a;
    /* No policy here (tests, benchmarks): no machine-wide budget either. */
    c.mem_budget_kib = KDF_MEMGATE_OFF;
    c.mem_wait_ms = 0;
    st = kdf_argon2_compute(&c, out, out_len, work, work_sz);
    kdf_wipe(&c, sizeof c);
    return st;
}
