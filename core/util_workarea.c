/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_workarea.c - memory for memory-hard work: mapping an area (2 MiB
 * aligned, MADV_HUGEPAGE), getting its pages (MADV_POPULATE_WRITE, or a
 * touch per page), and the pool of areas a long-lived server keeps between
 * verifications (kdf_workpool_set(); why a pool of slots and how it meets
 * the budget: doc/DESIGN.md, "Work areas kept between binds").
 *
 * Invariants of the pool:
 *   - taking from it never waits: with every slot busy, or a request larger
 *     than the kept size (keep_kib), the caller maps its own area;
 *   - an area comes back only wiped (alg_argon2.c wipes every block it
 *     wrote), so the pool keeps zeros;
 *   - an idle kept area holds no share of the budget, and the areas one
 *     process keeps add up to at most max.memory (beyond, it is unmapped);
 *   - only a server that asks gets a pool: never a PAM module's host.
 */
#include "kdf_prelude.h"
#if defined(KDF_TEST_HOOKS) || defined(KDF_CORE_BUILD)
#include "kdf_testing.h"
#endif
#include "util_memgate.h"
#include "util_workarea.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_2M ((size_t)2 << 20)

enum kdf_status
kdf_area_map(size_t len, void **mem, size_t *map_len)
{
    /* Over-map by 2 MiB so that the area starts on a huge page boundary,
     * and round the length up to whole huge pages. */
    size_t body = (len + HUGE_2M - 1) & ~(HUGE_2M - 1);
    size_t span = body + HUGE_2M;
    uint8_t *base, *p;

    if (len == 0 || body < len || span < body)
        return KDF_NOMEM;
    base = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return KDF_NOMEM;
    p = (uint8_t *)(((uintptr_t)base + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
    /* Trim the unaligned head and the unused tail. */
    if (p > base)
        (void)munmap(base, (size_t)(p - base));
    if (base + span > p + body)
        (void)munmap(p + body, (size_t)(base + span - (p + body)));
#ifdef MADV_HUGEPAGE
    (void)madvise(p, body, MADV_HUGEPAGE); /* a hint: ignore failure */
#endif
    *mem = p;
    *map_len = body;
    return KDF_OK;
}

int
kdf_area_populate(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
        return 0;
    if (errno == ENOMEM || errno == EFAULT)
        return -1;
#endif
    /* Older kernels: first touch, one write per base page (a huge page
     * faults once at its first byte; the other writes are then cheap). */
    long pg = sysconf(_SC_PAGESIZE);
    size_t step = pg > 0 ? (size_t)pg : 4096;
    for (size_t off = 0; off < len; off += step)
        ((volatile uint8_t *)p)[off] = 0;
    return 0;
}

void
kdf_area_unmap(void *mem, size_t map_len)
{
    if (mem != NULL)
        (void)munmap(mem, map_len);
}

/* ---- the pool ---- */

struct kdf_pool_slot {
    atomic_int busy;   /* 0 free, 1 taken by one verification */
    void *mem;         /* NULL: nothing kept */
    size_t map_len;    /* what munmap gets */
    size_t paid;       /* the area's usable bytes: the largest request it serves */
    int gate;          /* while in use: the memgate descriptor of its share, or -1 */
    unsigned gen;      /* g_gen when mapped */
    uint64_t cap;      /* while in use: the budget in bytes, UINT64_MAX for none */
};

static struct kdf_pool_slot g_slot[KDF_WORKPOOL_MAX];
static atomic_uint g_slots; /* slots in service */
static atomic_uint g_gen;   /* bumped by every kdf_workpool_set() */
static atomic_ullong g_keep;  /* bytes: the largest area kept (KDF_WORKPOOL_KEEP_ANY: any) */
static atomic_ullong g_reused, g_mapped, g_missed, g_large;
static atomic_ullong g_kept; /* bytes of all slots' areas, in use or not */

/* Unmap the slot's area (its share, if any, is given back apart). */
static void
slot_release(struct kdf_pool_slot *s)
{
    if (s->mem != NULL) {
        kdf_area_unmap(s->mem, s->map_len);
        atomic_fetch_sub(&g_kept, (unsigned long long)s->paid);
    }
    s->mem = NULL;
    s->map_len = s->paid = 0;
}

/* Only ever after kdf_workpool_take() set s->gate (a static slot's 0 is
 * never given). */
static void
share_give(struct kdf_pool_slot *s)
{
    kdf_memgate_give(s->gate);
    s->gate = -1;
}

/* The budget in bytes, as util_memgate.c reads it; UINT64_MAX for none. */
static uint64_t
budget_bytes(uint32_t budget_kib)
{
    uint64_t kib = kdf_memgate_budget_kib(budget_kib);

    return kib == 0 ? UINT64_MAX : kib * 1024;
}

/* Try to take slot i (0 when another verification has it). */
static int
slot_try(struct kdf_pool_slot *s)
{
    int free_ = 0;
    return atomic_compare_exchange_strong_explicit(&s->busy, &free_, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

static void
slot_free(struct kdf_pool_slot *s)
{
    atomic_store_explicit(&s->busy, 0, memory_order_release);
}

void
kdf_workpool_set(unsigned slots, uint32_t keep_kib)
{
    if (slots == KDF_WORKPOOL_CPUS) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        slots = n > 0 ? (unsigned)n : 1;
    }
    if (slots > KDF_WORKPOOL_MAX)
        slots = KDF_WORKPOOL_MAX;
    /* Areas of the old generation are given back: those free now, and
     * those in use, with their computation's share, when they come back
     * (kdf_workpool_give()). */
    atomic_fetch_add(&g_gen, 1);
    atomic_store(&g_keep, keep_kib == KDF_WORKPOOL_KEEP_ANY ? UINT64_MAX
                                                            : (unsigned long long)keep_kib * 1024);
    atomic_store(&g_slots, slots);
    for (unsigned i = 0; i < KDF_WORKPOOL_MAX; i++) {
        if (!slot_try(&g_slot[i]))
            continue;
        slot_release(&g_slot[i]);
        slot_free(&g_slot[i]);
    }
}

/* A free slot among the first n: one that keeps a large enough area of
 * generation gen first, else any. */
static struct kdf_pool_slot *
scan(unsigned n, size_t need, unsigned gen)
{
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < n; i++) {
            struct kdf_pool_slot *c = &g_slot[i];
            if (atomic_load_explicit(&c->busy, memory_order_relaxed) || !slot_try(c))
                continue;
            if (pass == 1 || (c->mem != NULL && c->paid >= need && c->gen == gen))
                return c;
            slot_free(c);
        }
    return NULL;
}

struct kdf_pool_slot *
kdf_workpool_take(size_t need, uint32_t budget_kib, unsigned wait_ms, int admin, void **mem,
                  enum kdf_status *st)
{
    unsigned n = atomic_load(&g_slots), gen = atomic_load(&g_gen);
    struct kdf_pool_slot *s = NULL;

    *st = KDF_OK;
    if (n == 0)
        return NULL;
    /* Larger than what the server keeps: its own area, never a slot's. */
    if ((unsigned long long)need > atomic_load(&g_keep)) {
        atomic_fetch_add_explicit(&g_large, 1, memory_order_relaxed);
        return NULL;
    }
    /* Every slot in use: its own area now, never a wait (header). */
    s = scan(n, need, gen);
    if (s == NULL) {
        atomic_fetch_add_explicit(&g_missed, 1, memory_order_relaxed);
        return NULL;
    }
    /* This computation's share of the budget, as for a fresh area. */
    int fd = -1;
    *st = kdf_memgate_take(need / 1024, budget_kib, wait_ms, admin, &fd);
    if (*st != KDF_OK) {
        slot_free(s);
        return NULL;
    }
    s->gate = fd;
    s->cap = budget_bytes(budget_kib);
    if (s->mem != NULL && s->paid >= need && s->gen == gen) {
        atomic_fetch_add_explicit(&g_reused, 1, memory_order_relaxed);
        *mem = s->mem;
        return s;
    }
    slot_release(s);
    if (kdf_area_map(need, &s->mem, &s->map_len) != KDF_OK) {
        s->mem = NULL;
        *st = KDF_NOMEM;
    } else if (kdf_area_populate(s->mem, s->map_len) != 0) {
        kdf_area_unmap(s->mem, s->map_len);
        s->mem = NULL;
        *st = KDF_NOMEM;
    }
    if (*st != KDF_OK) {
        share_give(s);
        slot_free(s);
        return NULL;
    }
    s->paid = need;
    s->gen = gen;
    atomic_fetch_add(&g_kept, (unsigned long long)need);
    atomic_fetch_add_explicit(&g_mapped, 1, memory_order_relaxed);
    *mem = s->mem;
    return s;
}

void
kdf_workpool_give(struct kdf_pool_slot *s)
{
    if (s == NULL)
        return;
    /* Out of service since it was taken, larger than what is kept now (a
     * kdf_workpool_set() meanwhile), or more kept than the budget allows:
     * give the area back now. */
    if (s->gen != atomic_load(&g_gen) || (size_t)(s - g_slot) >= atomic_load(&g_slots) ||
        (unsigned long long)s->paid > atomic_load(&g_keep) || atomic_load(&g_kept) > s->cap)
        slot_release(s);
    share_give(s);
    slot_free(s);
}

void
kdf_workpool_stats(struct kdf_workpool_stats *out)
{
    unsigned n = atomic_load(&g_slots);

    out->slots = n;
    out->reused = atomic_load(&g_reused);
    out->mapped = atomic_load(&g_mapped);
    out->missed = atomic_load(&g_missed);
    out->large = atomic_load(&g_large);
    out->kept_kib = atomic_load(&g_kept) / 1024;
}

int
kdf_workpool_peek(unsigned i, const void **mem, size_t *len)
{
    if (i >= KDF_WORKPOOL_MAX || !slot_try(&g_slot[i]))
        return -1;
    *mem = g_slot[i].mem;
    *len = g_slot[i].paid;
    slot_free(&g_slot[i]);
    return *mem != NULL ? 0 : -1;
}
