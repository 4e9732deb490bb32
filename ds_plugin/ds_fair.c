/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_fair.c - fair service under a storm of wrong passwords.
 *
 * Every bind of a storm is a full verification: 64 connections binding
 * wrong passwords take every CPU, and a correct user's bind waits behind
 * them (145 binds/s alone, 3 beside such a storm, in a trial).  389-ds
 * calls compare with the password and the stored value only, so the gate
 * keys on the value: its SipHash-2-4 (a 64-bit keyed hash made for hash
 * tables, the key drawn once per process, so that nobody can aim values
 * at one bucket), in a fixed table of recent failures.  SipHash here, not
 * the core's BLAKE2b: the plugin reaches the core through kdfhash.h only.
 * A value that failed within the window is suspect; its verifications run
 * one at a time and, with every other suspect value's, within a share of
 * the CPUs; a bind that cannot get a place within a short, bounded wait is
 * refused unverified.  Values without a recent failure never wait here, so the
 * storm keeps at most the share and the rest of the machine serves them.
 *
 * Not suspect for being in flight alone: a service account binding on
 * many connections at once would otherwise be serialised, and refused
 * past the wait, which 389-ds counts as a failed bind (passwordLockout).
 * The first burst against a value runs unguarded, until one failure.
 *
 * The table holds tags, never values; a lost record (its bucket full of
 * values that are busier or failed more recently) only makes that value
 * unsuspected again: fairness degrades, answers never change.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <errno.h>
#include <slapi-plugin.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* The defaults, in one place (389-ds-kdfhash(8), WRONG-PASSWORD STORMS). */
#define FAIR_WAIT_MS 1000  /* worker threads are the server's: short */
#define FAIR_WINDOW_S 60
#define FAIR_WAITERS_PER_SHARE 4
#define FAIR_LOG_EVERY_S 10 /* one line of counts per interval at most */
#define FAIR_MAX 1024       /* the upper bound of share, waiters */
#define FAIR_MAX_WAIT_MS 10000
#define FAIR_MAX_WINDOW_S 86400

#define WAYS 4
#define MAX_LOG2 9 /* 512 buckets of 4: 2048 values, 48 KiB */

struct slot {
    uint64_t tag;       /* 0: empty */
    uint64_t fail_ns;   /* the last failure (CLOCK_MONOTONIC) */
    uint32_t fails;     /* failures since the last match; 0: none */
    uint16_t inflight;  /* a suspect verification of it runs */
    uint16_t waiting;   /* binds waiting for it: the slot stays theirs */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_once_t once;
    int ready;  /* key drawn, cond on the monotonic clock */
    uint8_t key[16];
    struct kds_fair_conf conf;
    int configured;
    unsigned running, waiting, buckets;
    unsigned long refused_full, refused_wait;
    uint64_t log_ns;
    struct slot slots[(1u << MAX_LOG2) * WAYS];
} g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .once = PTHREAD_ONCE_INIT,
    .buckets = 1u << MAX_LOG2,
};

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                       \
    do {                                                               \
        v0 += v1, v1 = ROTL(v1, 13), v1 ^= v0, v0 = ROTL(v0, 32);      \
        v2 += v3, v3 = ROTL(v3, 16), v3 ^= v2;                         \
        v0 += v3, v3 = ROTL(v3, 21), v3 ^= v0;                         \
        v2 += v1, v1 = ROTL(v1, 17), v1 ^= v2, v2 = ROTL(v2, 32);      \
    } while (0)

static uint64_t
le64(const uint8_t *p, size_t n)
{
    uint64_t v = 0;

    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}

/* SipHash-2-4 (Aumasson and Bernstein, 2012), as its reference code. */
uint64_t
kds_fair_siphash(const uint8_t key[16], const void *in, size_t len)
{
    const uint8_t *p = in;
    uint64_t k0 = le64(key, 8), k1 = le64(key + 8, 8), m;
    uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
    uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
    size_t left = len;

    for (; left >= 8; p += 8, left -= 8) {
        m = le64(p, 8);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    m = le64(p, left) | (uint64_t)(len & 0xff) << 56;
    v3 ^= m;
    SIPROUND;
    SIPROUND;
    v0 ^= m;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
init_once(void)
{
    pthread_condattr_t a;
    size_t got = 0;

    if (pthread_condattr_init(&a) != 0)
        return;
    if (pthread_condattr_setclock(&a, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&g.cond, &a) != 0) {
        pthread_condattr_destroy(&a);
        return;
    }
    pthread_condattr_destroy(&a);
    while (got < sizeof g.key) {
        ssize_t r = getrandom(g.key + got, sizeof g.key - got, 0);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got == sizeof g.key)
        g.ready = 1;
    else
        slapi_log_error(SLAPI_LOG_ERR, KDS_LOG,
                      "no random key for the storm gate: wrong-password storms are not "
                      "gated\n");
}

void
kds_fair_defaults(struct kds_fair_conf *fc)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    fc->share = cpus >= 2 ? (unsigned)(cpus < 2 * FAIR_MAX ? cpus / 2 : FAIR_MAX) : 1;
    fc->waiters = 0; /* FAIR_WAITERS_PER_SHARE times the share */
    fc->wait_ms = FAIR_WAIT_MS;
    fc->window_s = FAIR_WINDOW_S;
}

static int
number(const char *v, unsigned max, unsigned *out)
{
    unsigned long n = 0;

    if (*v == '\0' || (v[0] == '0' && v[1] != '\0'))
        return -1;
    for (; *v != '\0'; v++)
        if (*v < '0' || *v > '9' || (n = n * 10 + (unsigned long)(*v - '0')) > max)
            return -1;
    *out = (unsigned)n;
    return 0;
}

int
kds_fair_arg(struct kds_fair_conf *fc, const char *key, const char *val, char *err,
             size_t cap)
{
    if (strcmp(key, "storm.share") == 0) {
        if (strcmp(val, "off") == 0)
            fc->share = 0;
        else if (number(val, FAIR_MAX, &fc->share) != 0 || fc->share == 0) {
            snprintf(err, cap, "storm.share must be 1..%u or off", FAIR_MAX);
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "storm.waiters") == 0) {
        if (number(val, FAIR_MAX, &fc->waiters) != 0 || fc->waiters == 0) {
            snprintf(err, cap, "storm.waiters must be 1..%u", FAIR_MAX);
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "storm.wait") == 0) {
        if (number(val, FAIR_MAX_WAIT_MS, &fc->wait_ms) != 0) {
            snprintf(err, cap, "storm.wait must be 0..%u (milliseconds)", FAIR_MAX_WAIT_MS);
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "storm.window") == 0) {
        if (number(val, FAIR_MAX_WINDOW_S, &fc->window_s) != 0 || fc->window_s == 0) {
            snprintf(err, cap, "storm.window must be 1..%u (seconds)", FAIR_MAX_WINDOW_S);
            return -1;
        }
        return 0;
    }
    return 1;
}

/* Under the lock; fc NULL: the defaults. */
static void
set_conf(const struct kds_fair_conf *fc)
{
    if (fc != NULL)
        g.conf = *fc;
    else
        kds_fair_defaults(&g.conf);
    if (g.conf.waiters == 0)
        g.conf.waiters = g.conf.share * FAIR_WAITERS_PER_SHARE;
    g.configured = 1;
}

void
kds_fair_configure(const struct kds_fair_conf *fc)
{
    pthread_once(&g.once, init_once);
    pthread_mutex_lock(&g.lock);
    set_conf(fc);
    pthread_mutex_unlock(&g.lock);
    if (g.ready)
        pthread_cond_broadcast(&g.cond);
}

void
kds_fair_reset(unsigned buckets_log2)
{
    pthread_once(&g.once, init_once);
    pthread_mutex_lock(&g.lock);
    memset(g.slots, 0, sizeof g.slots);
    g.buckets = 1u << (buckets_log2 < MAX_LOG2 ? buckets_log2 : MAX_LOG2);
    g.refused_full = g.refused_wait = 0;
    g.log_ns = 0;
    pthread_mutex_unlock(&g.lock);
}

static struct slot *
bucket(uint64_t tag)
{
    return &g.slots[(size_t)((tag >> 32) & (g.buckets - 1)) * WAYS];
}

static struct slot *
find(uint64_t tag)
{
    struct slot *b = bucket(tag);

    for (unsigned i = 0; i < WAYS; i++)
        if (b[i].tag == tag)
            return &b[i];
    return NULL;
}

static int
recent(const struct slot *s, uint64_t now)
{
    return s->fails > 0 && now - s->fail_ns < (uint64_t)g.conf.window_s * 1000000000u;
}

/* A slot for a new failure: an empty or stale one, else the one whose
 * last failure is oldest among those nobody holds; NULL when all are held
 * (the failure goes unrecorded). */
static struct slot *
claim(uint64_t tag, uint64_t now)
{
    struct slot *b = bucket(tag), *pick = NULL;

    for (unsigned i = 0; i < WAYS; i++) {
        struct slot *s = &b[i];

        if (s->inflight || s->waiting)
            continue;
        if (s->tag == 0 || !recent(s, now)) {
            pick = s;
            break;
        }
        if (pick == NULL || s->fail_ns < pick->fail_ns)
            pick = s;
    }
    if (pick != NULL) {
        memset(pick, 0, sizeof *pick);
        pick->tag = tag;
    }
    return pick;
}

/* Under the lock: whether a line is due, and its counts (then reset). */
struct said {
    unsigned long full, waited;
    unsigned share, wait_ms;
};

static int
refusals_due(uint64_t now, struct said *out)
{
    if (g.refused_full + g.refused_wait == 0 ||
        (g.log_ns != 0 && now - g.log_ns < (uint64_t)FAIR_LOG_EVERY_S * 1000000000u))
        return 0;
    out->full = g.refused_full;
    out->waited = g.refused_wait;
    out->share = g.conf.share;
    out->wait_ms = g.conf.wait_ms;
    g.log_ns = now;
    g.refused_full = g.refused_wait = 0;
    return 1;
}

/* Outside the lock: the log may wait on its file. */
static void
say_refusals(const struct said *n)
{
    slapi_log_error(SLAPI_LOG_WARNING, KDS_LOG,
                  "storm gate: %lu binds of values that failed recently refused unverified "
                  "(%lu with the share of %u and its waiters full, %lu after waiting %u ms); "
                  "see WRONG-PASSWORD STORMS in 389-ds-kdfhash(8)\n",
                  n->full + n->waited, n->full, n->share, n->waited, n->wait_ms);
}

int
kds_fair_enter(const char *stored, size_t len, struct kds_fair_ticket *t)
{
    struct slot *s;
    struct timespec until;
    struct said said;
    uint64_t now, end;
    int timed_out = 0, due;

    memset(t, 0, sizeof *t);
    pthread_once(&g.once, init_once);
    if (!g.ready)
        return 0;
    t->tag = kds_fair_siphash(g.key, stored, len);
    t->tag |= t->tag == 0;

    pthread_mutex_lock(&g.lock);
    if (!g.configured)
        set_conf(NULL);
    now = now_ns();
    s = find(t->tag);
    if (g.conf.share == 0 || s == NULL || (!recent(s, now) && !s->inflight)) {
        pthread_mutex_unlock(&g.lock);
        return 0;
    }
    t->suspect = 1;
    if (s->inflight || g.running >= g.conf.share) {
        if (g.waiting >= g.conf.waiters || g.conf.wait_ms == 0) {
            g.refused_full++;
            goto refuse;
        }
        end = now + (uint64_t)g.conf.wait_ms * 1000000u;
        until.tv_sec = (time_t)(end / 1000000000u);
        until.tv_nsec = (long)(end % 1000000000u);
        s->waiting++;
        g.waiting++;
        kds_stat_add(KDS_ST_STORM_WAITS);
        while ((s->inflight || g.running >= g.conf.share) && !timed_out)
            timed_out = pthread_cond_timedwait(&g.cond, &g.lock, &until) == ETIMEDOUT;
        s->waiting--;
        g.waiting--;
        if (s->inflight || g.running >= g.conf.share) {
            g.refused_wait++;
            now = now_ns();
            goto refuse;
        }
    }
    s->inflight = 1;
    g.running++;
    t->gated = 1;
    t->slot = (unsigned)(s - g.slots);
    pthread_mutex_unlock(&g.lock);
    return 0;

refuse:
    /* A refusal is a failed bind to the client and to passwordLockout:
     * it keeps the value suspect as long as the storm goes on. */
    s->fail_ns = now;
    if (s->fails < UINT32_MAX)
        s->fails++;
    due = refusals_due(now, &said);
    pthread_mutex_unlock(&g.lock);
    if (due)
        say_refusals(&said);
    return 1;
}

void
kds_fair_leave(const struct kds_fair_ticket *t, enum kds_fair_outcome o)
{
    struct slot *s;
    uint64_t now;

    if (t->tag == 0)
        return;
    pthread_mutex_lock(&g.lock);
    now = now_ns();
    if (t->gated) {
        g.slots[t->slot].inflight = 0;
        g.running--;
    }
    s = t->gated ? &g.slots[t->slot] : find(t->tag);
    if (o == KDS_FAIR_MATCH && s != NULL) {
        s->fails = 0;
        s->fail_ns = 0;
        if (!s->inflight && !s->waiting)
            s->tag = 0;
    } else if (o == KDS_FAIR_FAIL) {
        if (s == NULL)
            s = claim(t->tag, now);
        if (s != NULL) {
            s->fail_ns = now;
            if (s->fails < UINT32_MAX)
                s->fails++;
        }
    }
    pthread_mutex_unlock(&g.lock);
    if (t->gated)
        pthread_cond_broadcast(&g.cond);
}
