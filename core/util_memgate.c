/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_memgate.c - the machine-wide budget of memory-hard work, shared by
 * every process that can open the budget file (why, and what it means for
 * logins: doc/DESIGN.md, "Policy", its "Memory budget").
 *
 * A share is an open-file-description write lock (F_OFD_SETLK) on bytes
 * of the file (the layout is below).  Invariants this file keeps:
 *   - a request is taken whole or not at all (no partial hold survives a
 *     try), and the kernel frees a dead holder's locks;
 *   - no lock is held while sleeping, only shares, so a stopped process
 *     keeps nothing others must pass;
 *   - a waiter tries only while no live claim began before its own (first
 *     come, first served); a claim lapses by itself (stale heartbeat or
 *     deadline passed), and a torn record fails its check word;
 *   - the requests of a real uid other than the file's owner hold at most
 *     a quarter of the budget, those of all such uids half (an admin's:
 *     its quarter only), so root's hosts always have the rest;
 *   - a request above the whole budget is KDF_OVER_BUDGET at once, a busy
 *     one KDF_BUSY after its wait: never a success.
 * Times come from CLOCK_MONOTONIC, which all processes of one time
 * namespace share.
 */
#include "kdf_prelude.h"
#include "util_memgate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef KDF_MEMGATE_PATH
#define KDF_MEMGATE_PATH "/run/kdfhash.memgate"
#endif
/* Where things are in the file (offsets; locks and data are apart):
 *   data [0, NSLOTS * SLOT_SIZE)      the waiters' claim records;
 *   locks [0, budget)                 the budget, one byte per MiB;
 *   lock SLOTS_AT + i                 owns claim slot i;
 *   locks UID_AT + ruid * UID_STRIDE  a real uid's share (a quarter of it);
 *   locks [COMMON_AT, + budget / 2)   the common pool of the capped uids.
 * A budget is at most BUDGET_MAX MiB (16 TiB), so no range overlaps the
 * next.  32-bit targets get a 64-bit off_t from configure
 * (AC_SYS_LARGEFILE). */
_Static_assert(sizeof(off_t) >= 8, "the memory gate needs a 64-bit off_t");
#define BUDGET_MAX (((uint64_t)1 << 24) - 1)
#define NSLOTS 128
#define SLOT_SIZE 40
#define SLOTS_AT (((off_t)1 << 40) + 4096)
#define UID_AT ((off_t)1 << 41)
#define UID_STRIDE ((off_t)1 << 24)
#define COMMON_AT (((off_t)1 << 40) + ((off_t)1 << 30))
/* A claim whose heartbeat is older than this is a stopped or dead waiter's.
 * Long enough that a running waiter on a loaded machine is rarely taken
 * for one (a poll is due every 2-9 ms); short enough that a stopped one
 * delays the queue by a fraction of max.memory-wait. */
#define STALE_MS 200u
#define CLAIM_MAGIC 0x6b64666d67617465ull /* "kdfmgate" */

/* A claim as stored, in this machine's byte order: only processes of this
 * machine read it. */
struct claim {
    uint64_t check; /* claim_check() of the rest: a torn read fails it */
    uint64_t units; /* MiB wanted */
    uint64_t since; /* ms: when this request began to wait */
    uint64_t beat;  /* ms: its last try */
    uint64_t until; /* ms: its deadline, after which it is gone */
};
_Static_assert(sizeof(struct claim) == SLOT_SIZE, "a claim fills its slot");

/* Atomic: a directory server's plugin may name another file on a
 * reconfiguration while its worker threads verify (the string itself is
 * the caller's to keep alive, kdfhash.h). */
static _Atomic(const char *) g_path = KDF_MEMGATE_PATH;

void
kdf_memgate_set_path(const char *path)
{
    atomic_store_explicit(&g_path, path != NULL ? path : KDF_MEMGATE_PATH,
                          memory_order_release);
}

static unsigned long long
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

static int
lock_range(int fd, short type, int cmd, off_t start, off_t len, struct flock *out)
{
    struct flock fl;

    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = start;
    fl.l_len = len;
    if (fcntl(fd, cmd, &fl) != 0)
        return -1;
    if (out != NULL)
        *out = fl;
    return 0;
}

/* Hold units bytes of [base, base + span), or none: 1 taken, 0 not now,
 * -1 error. */
static int
try_take(int fd, off_t base, uint64_t units, uint64_t span)
{
    uint64_t pos = 0, got = 0;

    while (got < units && pos < span) {
        uint64_t want = units - got, len = want < span - pos ? want : span - pos;
        struct flock c;

        if (lock_range(fd, F_WRLCK, F_OFD_SETLK, base + (off_t)pos, (off_t)len, NULL) == 0) {
            got += len;
            pos += len;
            continue;
        }
        if (errno != EAGAIN && errno != EACCES && errno != EINTR)
            return -1;
        /* Someone holds part of [pos, pos+len): skip past what they hold,
         * or take the free part before it. */
        if (lock_range(fd, F_WRLCK, F_OFD_GETLK, base + (off_t)pos, (off_t)len, &c) != 0)
            return -1;
        if (c.l_type == F_UNLCK)
            continue; /* freed meanwhile: try again */
        if ((uint64_t)(c.l_start - base) > pos) {
            uint64_t free_len = (uint64_t)(c.l_start - base) - pos;
            if (lock_range(fd, F_WRLCK, F_OFD_SETLK, base + (off_t)pos, (off_t)free_len,
                           NULL) == 0) {
                got += free_len;
                pos += free_len;
            }
            /* Taken meanwhile: the next round looks again. */
            continue;
        }
        pos = c.l_len == 0 ? span : (uint64_t)(c.l_start - base) + (uint64_t)c.l_len;
    }
    if (got >= units)
        return 1;
    (void)lock_range(fd, F_UNLCK, F_OFD_SETLK, base, (off_t)span, NULL);
    return 0;
}

/* "auto": half of what this process's memory cgroup may use (v2
 * memory.max, v1 memory.limit_in_bytes), or of the machine's memory. */
static uint64_t
read_u64_file(const char *path)
{
    char b[64];
    FILE *f = fopen(path, "re");
    unsigned long long v = 0;

    if (f == NULL)
        return 0;
    if (fgets(b, sizeof b, f) == NULL || sscanf(b, "%llu", &v) != 1)
        v = 0;
    fclose(f);
    return v;
}

static uint64_t
cgroup_limit_bytes(void)
{
    char line[512], path[768];
    FILE *f = fopen("/proc/self/cgroup", "re");
    uint64_t lim = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *nl = strchr(line, '\n'), *c1 = strchr(line, ':'), *c2;
        uint64_t v = 0;

        if (nl != NULL)
            *nl = '\0';
        if (c1 == NULL || (c2 = strchr(c1 + 1, ':')) == NULL)
            continue;
        if (strncmp(line, "0::", 3) == 0) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", c2 + 1);
            v = read_u64_file(path); /* "max" reads as 0: no limit */
        } else if (strncmp(c1 + 1, "memory:", 7) == 0) {
            snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes",
                     c2 + 1);
            v = read_u64_file(path);
        }
        /* v1 says "no limit" with a number near 2^63. */
        if (v != 0 && v < ((uint64_t)1 << 60) && (lim == 0 || v < lim))
            lim = v;
    }
    fclose(f);
    return lim;
}

uint64_t
kdf_memgate_auto_mib(void)
{
    uint64_t lim = cgroup_limit_bytes();
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;

    if (lim == 0 || (phys != 0 && phys < lim))
        lim = phys;
    return lim / 2 >> 20;
}

uint64_t
kdf_memgate_budget_kib(uint32_t budget_kib)
{
    if (budget_kib == KDF_MEMGATE_OFF)
        return 0;
    return budget_kib == KDF_MEMGATE_AUTO ? kdf_memgate_auto_mib() << 10 : budget_kib;
}

uint64_t
kdf_policy_memory_kib(const struct kdf_policy *pol)
{
    return pol != NULL ? kdf_memgate_budget_kib(pol->max_memory_kib) : 0;
}

static uint64_t
claim_check(const struct claim *c)
{
    /* Not a MAC (only root's processes can write the file): a torn mix of
     * two records must not pass for one. */
    uint64_t h = CLAIM_MAGIC;

    h = (h ^ c->units) * 0x100000001b3ull;
    h = (h ^ c->since) * 0x100000001b3ull;
    h = (h ^ c->beat) * 0x100000001b3ull;
    h = (h ^ c->until) * 0x100000001b3ull;
    return h | 1; /* never 0, the value of an empty slot */
}

/* One request on its way through kdf_memgate_take(). */
struct req {
    int fd;
    int slot;           /* its claim slot, -1 while it has none */
    uint64_t units;     /* MiB */
    uint64_t since;     /* ms, when it began (to wait) */
    uint64_t until;     /* ms, its deadline */
    int capped;         /* its real uid is held to a share */
    off_t uid_at;       /* that share's range */
    uint64_t share;     /* and its length (MiB) */
    uint64_t pool;      /* the common pool's length (MiB) */
    int pooled;         /* capped and held to the common pool too */
};

/* Slots read at a time: 1280 bytes of stack, for hosts with small
 * threads, and four reads for all of them on every try of every waiter. */
#define SLOTS_PER_READ 32

/* Is a live claim ahead of r, i.e. began waiting before it did? */
static int
someone_ahead(const struct req *r, uint64_t now)
{
    unsigned char raw[SLOTS_PER_READ * SLOT_SIZE];

    for (int first = 0; first < NSLOTS; first += SLOTS_PER_READ) {
        ssize_t n = pread(r->fd, raw, sizeof raw, (off_t)first * SLOT_SIZE);

        if (n <= 0)
            return 0; /* nothing written there yet (a new file is empty) */
        memset(raw + n, 0, sizeof raw - (size_t)n);
        for (int k = 0; k < SLOTS_PER_READ; k++) {
            int i = first + k;
            struct claim c;

            memcpy(&c, raw + (size_t)k * SLOT_SIZE, sizeof c);
            if (i == r->slot || c.check == 0 || c.check != claim_check(&c))
                continue;
            /* Stale (stopped, dead, past its deadline), or from a clock
             * this process does not share (another time namespace): not a
             * claim. */
            if (c.beat + STALE_MS <= now || c.until <= now || c.beat > now + STALE_MS)
                continue;
            if (c.since < r->since || (c.since == r->since && (r->slot < 0 || i < r->slot)))
                return 1;
        }
        if ((size_t)n < sizeof raw)
            break; /* the end of the file: no slot beyond was ever used */
    }
    return 0;
}

static void
claim_write(const struct req *r, uint64_t now)
{
    unsigned char raw[SLOT_SIZE];
    struct claim c;

    memset(&c, 0, sizeof c);
    c.units = r->units;
    c.since = r->since;
    c.beat = now;
    c.until = r->until;
    c.check = claim_check(&c);
    memset(raw, 0, sizeof raw);
    memcpy(raw, &c, sizeof c);
    /* A failed write only costs this request its place in the queue. */
    (void)!pwrite(r->fd, raw, sizeof raw, (off_t)r->slot * SLOT_SIZE);
}

/* Publish or refresh r's claim; without a free slot it waits unqueued. */
static void
claim(struct req *r, uint64_t now)
{
    if (r->slot < 0) {
        unsigned start = 0;

        if (getrandom(&start, sizeof start, GRND_NONBLOCK) < 0)
            start = (unsigned)now;
        for (unsigned k = 0; k < NSLOTS && r->slot < 0; k++) {
            unsigned i = (start + k) % NSLOTS;

            if (lock_range(r->fd, F_WRLCK, F_OFD_SETLK, SLOTS_AT + (off_t)i, 1, NULL) == 0)
                r->slot = (int)i;
        }
        if (r->slot < 0)
            return;
    }
    claim_write(r, now);
}

static void
unclaim(struct req *r)
{
    unsigned char raw[SLOT_SIZE];

    if (r->slot < 0)
        return;
    memset(raw, 0, sizeof raw);
    (void)!pwrite(r->fd, raw, sizeof raw, (off_t)r->slot * SLOT_SIZE);
    (void)lock_range(r->fd, F_UNLCK, F_OFD_SETLK, SLOTS_AT + (off_t)r->slot, 1, NULL);
    r->slot = -1;
}

/* Give back what r holds of its uid's share and of the common pool. */
static void
uid_release(const struct req *r)
{
    if (!r->capped)
        return;
    (void)lock_range(r->fd, F_UNLCK, F_OFD_SETLK, r->uid_at, (off_t)r->share, NULL);
    if (r->pooled)
        (void)lock_range(r->fd, F_UNLCK, F_OFD_SETLK, COMMON_AT, (off_t)r->pool, NULL);
}

/* Does r's uid have room for it in its share, and in the common pool?
 * Taken when take is set. */
static int
uid_room(const struct req *r, int take)
{
    /* A request larger than the share (or the pool) takes all of it: it
     * may run alone. */
    uint64_t want = r->units < r->share ? r->units : r->share;
    uint64_t want_pool = r->units < r->pool ? r->units : r->pool;
    int got;

    if (!r->capped)
        return 1;
    got = try_take(r->fd, r->uid_at, want, r->share);
    if (got == 1 && r->pooled) {
        got = try_take(r->fd, COMMON_AT, want_pool, r->pool);
        if (got != 1)
            (void)lock_range(r->fd, F_UNLCK, F_OFD_SETLK, r->uid_at, (off_t)r->share, NULL);
    }
    if (got == 1 && !take)
        uid_release(r);
    return got;
}

enum kdf_status
kdf_memgate_take(uint64_t need_kib, uint32_t budget_kib, unsigned wait_ms, int admin,
                 int *fd_out)
{
    uint64_t budget;
    struct req r;
    struct stat sb;
    uid_t ruid = getuid();

    *fd_out = -1;
    budget = kdf_memgate_budget_kib(budget_kib) / 1024;
    if (budget == 0)
        return KDF_OK; /* nothing known to budget against */
    if (budget > BUDGET_MAX)
        budget = BUDGET_MAX;
    memset(&r, 0, sizeof r);
    r.slot = -1;
    r.units = (need_kib + 1023) / 1024;
    if (r.units > budget)
        return KDF_OVER_BUDGET; /* could never fit: refuse at once, do not wait */
    r.fd = open(atomic_load_explicit(&g_path, memory_order_acquire), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    if (r.fd < 0)
        return KDF_OK; /* not a participant (see the header comment) */
    if (fstat(r.fd, &sb) == 0 && sb.st_uid != ruid) {
        r.capped = 1;
        r.uid_at = UID_AT + (off_t)ruid * UID_STRIDE;
        r.share = budget / 4 > 0 ? budget / 4 : 1;
        r.pool = budget / 2 > 0 ? budget / 2 : 1;
        r.pooled = !admin;
    }
    r.since = now_ms();
    r.until = r.since + wait_ms;
    for (;;) {
        unsigned short jitter = 0;
        uint64_t now = now_ms();
        struct timespec nap;
        int room, got;

        if (!someone_ahead(&r, now)) {
            room = uid_room(&r, 1);
            if (room < 0)
                break; /* locking does not work here: do not gate */
            got = room == 1 ? try_take(r.fd, 0, r.units, budget) : 0;
            if (got < 0)
                break;
            if (got == 1) {
                unclaim(&r); /* the shares stay held by r.fd */
                *fd_out = r.fd;
                return KDF_OK;
            }
            if (room == 1)
                uid_release(&r);
        } else {
            room = uid_room(&r, 0);
            if (room < 0)
                break;
        }
        /* Queue only for what others may give back, never for the uid's
         * own share or the common pool (see the header comment). */
        if (room == 1)
            claim(&r, now);
        else
            unclaim(&r);
        now = now_ms();
        if (now >= r.until) {
            unclaim(&r);
            close(r.fd);
            return KDF_BUSY;
        }
        /* 2-9 ms, jittered so that waiters do not retry in lockstep. */
        if (getrandom(&jitter, sizeof jitter, GRND_NONBLOCK) < 0)
            jitter = (unsigned short)now;
        nap.tv_sec = 0;
        nap.tv_nsec = (long)(2 + jitter % 8) * 1000000L;
        if (r.until - now < 10)
            nap.tv_nsec = (long)(r.until - now) * 1000000L;
        nanosleep(&nap, NULL);
    }
    unclaim(&r);
    close(r.fd);
    return KDF_OK;
}

void
kdf_memgate_give(int fd)
{
    if (fd >= 0)
        close(fd); /* drops every lock of this description */
}
