/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * calibrate_rate.c - `kdfhash calibrate --rate R [--cores N]`: the Argon2id
 * target of a directory server that must verify R binds per second on N
 * CPUs (389-ds-kdfhash(8), DIRECTORY PROFILE).
 *
 * One lane (p=1), so that one bind takes one CPU and N CPUs serve N binds
 * at once; two passes, and as much memory as the time per bind allows (RFC
 * 9106 section 4 prefers memory to passes, and OWASP's Argon2id rows hold
 * m*t about constant).  The time per bind is what N CPUs can give R binds
 * at HEADROOM of their capacity:
 *
 *     budget_ms = 1000 * N * HEADROOM / R
 *
 * HEADROOM is 0.7: a server whose CPUs are all busy queues every bind
 * without bound at the smallest burst, and the server has other work
 * (searches, replication, the LDAP protocol itself).  The floor is
 * min.argon2 (OWASP's minimum, the directory profile of kdfhash.h, unless
 * the policy says otherwise): when even that takes longer than the budget,
 * the floor is printed with the rate this machine can keep at it, never a
 * weaker target.
 *
 * Times are measured as the server's plugin runs them: one thread, in a
 * work area kept between hashes (kdf_workpool_set()), so not paying for
 * fresh pages the server does not pay for either.
 *
 * The server keeps one work area per CPU, so N areas must fit in the
 * policy's max.memory (auto read as the memory gate reads it: half of the
 * machine's or the memory cgroup's memory): the budget caps m at budget /
 * N, and one that cannot hold N areas of the floor is refused (exit 1).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "cli.h"

#define HEADROOM 0.7
#define T_PASSES 2u
#define M_STEP 1024u /* KiB: targets in whole MiB */

static double
measure(const struct kdf_policy *pol, const struct kdf_target *t)
{
    /* Best of three: other processes only ever add time. */
    return cli_time_hash(pol, t, 3);
}

/* m * budget / ms, in whole MiB, within [lo, hi]. */
static uint32_t
scale(uint32_t m, double budget, double ms, uint32_t lo, uint32_t hi)
{
    double want = (double)m * budget / ms;
    uint32_t out = want >= (double)hi ? hi : (uint32_t)want / M_STEP * M_STEP;
    return out < lo ? lo : out;
}

/* The range of m for cores work areas under pol into [*m_floor, *m_cap]
 * (the floor min.argon2's, t raised to its t), capped by max.memory-hard,
 * max_mem (0: none) and a share of max.memory per CPU.  CLI_OK, CLI_ERR
 * when max_mem is below the floor, CLI_NO when max.memory cannot hold a
 * floor's work area for each CPU (said). */
static int
m_bounds(const struct kdf_policy *pol, struct kdf_target *t, uint32_t cores, uint32_t max_mem,
         uint32_t *m_floor, uint32_t *m_cap)
{
    /* The budget in KiB (auto resolved here), 0 for off. */
    uint64_t total = kdf_policy_memory_kib(pol);
    int known = total != 0;
    uint64_t per_cpu = known ? total / cores : 0;

    *m_floor = kdf_policy_bound_get(pol, "min.argon2", 0);
    if (*m_floor < 8)
        *m_floor = 8;
    if (kdf_policy_bound_get(pol, "min.argon2", 1) > T_PASSES)
        t->cost = kdf_policy_bound_get(pol, "min.argon2", 1);
    *m_cap = kdf_policy_bound_get(pol, "max.memory-hard", 0);
    if (max_mem != 0 && max_mem < *m_cap)
        *m_cap = max_mem;
    if (*m_cap < *m_floor) {
        cli_error("calibrate: --max-memory %u KiB is below min.argon2 m=%u",
                  (unsigned)*m_cap, (unsigned)*m_floor);
        return CLI_ERR;
    }
    if (known && per_cpu < *m_floor) {
        cli_error("calibrate: max.memory (%llu KiB%s) cannot hold one work area of "
                  "min.argon2 (m=%u KiB) for each of %u CPUs (%llu KiB): raise max.memory, "
                  "or plan fewer CPUs (--cores)",
                  (unsigned long long)total,
                  pol->max_memory_kib == KDF_MEMGATE_AUTO ? ", auto" : "", (unsigned)*m_floor,
                  (unsigned)cores,
                  (unsigned long long)*m_floor * cores);
        return CLI_NO;
    }
    if (known && per_cpu < *m_cap)
        *m_cap = per_cpu / M_STEP * M_STEP >= *m_floor ? (uint32_t)(per_cpu / M_STEP * M_STEP)
                                                       : (uint32_t)per_cpu;
    return CLI_OK;
}

/* Time is about linear in m at fixed t: scale *t's m to the budget in
 * whole MiB within [m_floor, m_cap], then down again from each measurement
 * that says too slow (a few tries; *t, the floor, which fits, is the
 * fallback).  *t and *ms (its time) become the best that fits.  CLI_OK, or
 * CLI_ERR when a hash failed (said). */
static int
search_m(const struct kdf_policy *pol, struct kdf_target *t, double *ms, double budget,
         uint32_t m_floor, uint32_t m_cap)
{
    struct kdf_target best = *t;
    double best_ms = *ms;
    uint32_t m = scale(t->m_kib, budget, *ms, m_floor, m_cap);

    for (int tries = 0; tries < 4 && m > best.m_kib; tries++) {
        struct kdf_target next = *t;
        next.m_kib = m;
        double nms = measure(pol, &next);
        if (nms < 0)
            return CLI_ERR;
        if (nms <= budget) {
            best = next;
            best_ms = nms;
            break;
        }
        uint32_t lower = scale(m, budget, nms, m_floor, m_cap);
        m = lower < m ? lower : m - M_STEP;
    }
    *t = best;
    *ms = best_ms;
    return CLI_OK;
}

int
cli_calibrate_rate(const struct kdf_policy *pol_in, uint32_t rate, uint32_t cores,
                   uint32_t max_mem, int json)
{
    struct kdf_policy pol = *pol_in;
    struct kdf_target t;
    char err[160], text[160];
    double budget = 1000.0 * cores * HEADROOM / rate, ms, floor_ms;
    uint32_t m_floor, m_cap;
    /* The budget in KiB (auto resolved here), 0 for off. */
    uint64_t total = kdf_policy_memory_kib(&pol);
    int known = total != 0;
    int at_floor = 0, rc;

    if (kdf_target_parse(KDF_DIRECTORY_TARGET, &t, err, sizeof err) != KDF_OK) {
        cli_error("calibrate: %s", err);
        return CLI_ERR;
    }
    pol.max_threads = 1; /* p=1 anyway: one CPU per bind */
    rc = m_bounds(&pol, &t, cores, max_mem, &m_floor, &m_cap);
    if (rc != CLI_OK)
        return rc;
    kdf_workpool_set(1, KDF_WORKPOOL_KEEP_ANY);
    t.m_kib = m_floor;
    floor_ms = ms = measure(&pol, &t);
    if (ms < 0)
        goto fail;
    if (ms > budget) {
        at_floor = 1;
    } else if (search_m(&pol, &t, &ms, budget, m_floor, m_cap) != CLI_OK) {
        goto fail;
    }
    kdf_workpool_set(0, 0);
    if (kdf_check_target(&t, &pol, NULL) != KDF_OK ||
        kdf_target_format(&t, text, sizeof text) != KDF_OK) {
        cli_error("calibrate: no Argon2id target within the policy's caps");
        return CLI_ERR;
    }
    /* What N CPUs keep at the printed target, at full load and at the
     * headroom the budget planned for. */
    double full = 1000.0 * cores / ms;
    uint64_t kept_kib = (uint64_t)t.m_kib * cores;

    if (json) {
        printf("{\"rate\": %u, \"cores\": %u, \"headroom\": %.2f, \"budget_ms\": %.1f, "
               "\"floor_ms\": %.1f, \"ms\": %.1f, \"m_kib\": %u, \"t\": %u, \"lanes\": 1, "
               "\"binds_per_s_full\": %.1f, \"at_floor\": %s, \"kept_kib\": %llu, "
               "\"max_memory\": ",
               (unsigned)rate, (unsigned)cores, HEADROOM, budget, floor_ms, ms,
               (unsigned)t.m_kib, (unsigned)t.cost, full, at_floor ? "true" : "false",
               (unsigned long long)kept_kib);
        if (known)
            printf("%llu", (unsigned long long)total);
        else
            printf("\"off\"");
        printf(", \"within_max_memory\": %s, \"target\": \"%s\"}\n",
               !known ? "null" : kept_kib <= total ? "true" : "false", text);
        return CLI_OK;
    }
    printf("# kdfhash calibrate: %u binds/s on %u CPUs, one CPU per bind (p=1), at %.0f%%"
           " of their capacity:\n# at most %.1f ms per bind (%s %s)\n",
           (unsigned)rate, (unsigned)cores, HEADROOM * 100, budget,
           kdf_prim_name(KDF_PRIM_BLAMKA), kdf_impl_name(KDF_PRIM_BLAMKA));
    printf("# %-34s %10s %14s\n", "parameters", "ms", "binds/s (all)");
    printf("# %-34s %10.1f %14.1f\n", strchr(text, ' ') ? strchr(text, ' ') + 1 : text, ms,
           full);
    if (at_floor)
        printf("# min.argon2 (m=%u KiB, t=%u) already takes %.1f ms: these CPUs keep about"
               " %.0f binds/s\n# at it (%.0f at %.0f%%), not %u; add CPUs or servers, the"
               " target does not go below it\n",
               (unsigned)t.m_kib, (unsigned)t.cost, ms, full, full * HEADROOM,
               HEADROOM * 100, (unsigned)rate);
    printf("# the server keeps one work area per CPU: %llu MiB, ", (unsigned long long)(kept_kib / 1024));
    if (known)
        printf("within max.memory (%llu MiB%s)\n", (unsigned long long)(total / 1024),
               pol.max_memory_kib == KDF_MEMGATE_AUTO ? ", auto" : "");
    else
        printf("and max.memory = off sets no budget\n");
    printf("target = %s\n", text);
    return CLI_OK;
fail:
    kdf_workpool_set(0, 0);
    return CLI_ERR;
}
