/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memgate.c - admission control for memory-hard work across every process
 * of the machine: the module in each sshd and su, the helper, the CLI.
 *
 * One Argon2 verification at the default target maps 64 MiB; 100 logins at
 * once (sshd lets an unauthenticated client hold that many connections)
 * want 6.4 GiB, and on a small machine the kernel's OOM killer then picks
 * whatever process it likes.  So an Argon2 area is mapped only after its
 * size has been taken from a machine-wide budget, and given back after.
 *
 * The budget is a file (KDF_MEMGATE_PATH) whose byte k stands for MiB k of
 * the budget.  Taking m MiB is holding write locks on m bytes below the
 * budget; the locks are open-file-description locks (fcntl F_OFD_SETLK):
 *   - the kernel drops them when the holder exits or is killed, so a
 *     crashed holder's share comes back by itself (no pid files);
 *   - each acquisition opens the file anew, so two threads of one process
 *     (a directory server's workers) count separately;
 *   - nothing waits in the kernel: a request that does not fit tries again
 *     every few milliseconds, with jitter, until its deadline, then answers
 *     KDF_BUSY (refused, never killed, never a success).
 * The whole request is taken or nothing: a partial hold is released before
 * the next try, so two large requests cannot deadlock each other.
 *
 * Fairness: a request takes its share only while it holds the turnstile, a
 * lock on one byte far above any budget.  A request that does not fit keeps
 * the turnstile while it waits, so later requests, small ones included,
 * cannot pass it: a 1 GiB verification is not starved by a stream of 64
 * MiB ones.  The waiters behind it are served in no particular order (they
 * poll), each within its own deadline; a holder that dies drops the
 * turnstile with the rest.
 *
 * Who takes part: whoever can open the file read-write, i.e. root (the
 * module in a root host, where logins happen) once it has created it.  A
 * process that cannot open it (a user's CLI, a screen locker's helper
 * after its privilege drop) is not gated; its memory is its own user's.
 */
#include "kdf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#ifndef KDF_MEMGATE_PATH
#define KDF_MEMGATE_PATH "/run/kdfhash.memgate"
#endif
/* The turnstile's byte: above any budget (in MiB) a policy can name.
 * 32-bit targets get a 64-bit off_t from configure (AC_SYS_LARGEFILE). */
_Static_assert(sizeof(off_t) >= 8, "the memory gate needs a 64-bit off_t");
#define TURNSTILE ((off_t)1 << 40)

static const char *g_path = KDF_MEMGATE_PATH;

void
kdf_memgate_set_path(const char *path)
{
    g_path = path != NULL ? path : KDF_MEMGATE_PATH;
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

/* Hold units bytes below budget, or none: 1 taken, 0 not now, -1 error. */
static int
try_take(int fd, uint64_t units, uint64_t budget)
{
    uint64_t pos = 0, got = 0;

    while (got < units && pos < budget) {
        uint64_t want = units - got, len = want < budget - pos ? want : budget - pos;
        struct flock c;

        if (lock_range(fd, F_WRLCK, F_OFD_SETLK, (off_t)pos, (off_t)len, NULL) == 0) {
            got += len;
            pos += len;
            continue;
        }
        if (errno != EAGAIN && errno != EACCES && errno != EINTR)
            return -1;
        /* Someone holds part of [pos, pos+len): skip past what they hold,
         * or take the free part before it. */
        if (lock_range(fd, F_WRLCK, F_OFD_GETLK, (off_t)pos, (off_t)len, &c) != 0)
            return -1;
        if (c.l_type == F_UNLCK)
            continue; /* freed meanwhile: try again */
        if ((uint64_t)c.l_start > pos) {
            uint64_t free_len = (uint64_t)c.l_start - pos;
            if (lock_range(fd, F_WRLCK, F_OFD_SETLK, (off_t)pos, (off_t)free_len, NULL) == 0) {
                got += free_len;
                pos += free_len;
            }
            /* Taken meanwhile: the next round looks again. */
            continue;
        }
        pos = c.l_len == 0 ? budget : (uint64_t)c.l_start + (uint64_t)c.l_len;
    }
    if (got >= units)
        return 1;
    (void)lock_range(fd, F_UNLCK, F_OFD_SETLK, 0, (off_t)budget, NULL);
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

enum kdf_status
kdf_memgate_take(uint64_t need_kib, uint32_t budget_kib, unsigned wait_ms, int *fd_out)
{
    uint64_t units = (need_kib + 1023) / 1024, budget;
    unsigned long long deadline;
    int fd, r, turnstile = 0;

    *fd_out = -1;
    if (budget_kib == KDF_MEMGATE_OFF)
        return KDF_OK;
    budget = budget_kib == KDF_MEMGATE_AUTO ? kdf_memgate_auto_mib() : budget_kib / 1024;
    if (budget == 0)
        return KDF_OK; /* nothing known to budget against */
    if (units > budget)
        return KDF_BUSY; /* could never fit: refuse at once */
    fd = open(g_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    if (fd < 0)
        return KDF_OK; /* not a participant (see the header comment) */
    deadline = now_ms() + wait_ms;
    for (;;) {
        unsigned short jitter = 0;
        unsigned long long now;
        struct timespec nap;

        if (!turnstile) {
            if (lock_range(fd, F_WRLCK, F_OFD_SETLK, TURNSTILE, 1, NULL) == 0)
                turnstile = 1;
            else if (errno != EAGAIN && errno != EACCES && errno != EINTR)
                break; /* locking does not work here: do not gate */
        }
        if (turnstile) {
            r = try_take(fd, units, budget);
            if (r == 1) {
                /* Let the next one in; the share stays held. */
                (void)lock_range(fd, F_UNLCK, F_OFD_SETLK, TURNSTILE, 1, NULL);
                *fd_out = fd;
                return KDF_OK;
            }
            if (r < 0)
                break;
        }
        now = now_ms();
        if (now >= deadline) {
            close(fd);
            return KDF_BUSY;
        }
        /* 2-9 ms, jittered so that waiters do not retry in lockstep. */
        if (getrandom(&jitter, sizeof jitter, GRND_NONBLOCK) < 0)
            jitter = (unsigned short)now;
        nap.tv_sec = 0;
        nap.tv_nsec = (long)(2 + jitter % 8) * 1000000L;
        if (deadline - now < 10)
            nap.tv_nsec = (long)(deadline - now) * 1000000L;
        nanosleep(&nap, NULL);
    }
    close(fd);
    return KDF_OK;
}

void
kdf_memgate_give(int fd)
{
    if (fd >= 0)
        close(fd); /* drops every lock of this description */
}
