/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chkpwd_rate.c - kdfhash-chkpwd's rate limit (chkpwd_rate.h).
 *
 * A delay after a refusal alone is no limit: the caller owns the process
 * (same real uid), may SIGKILL it as soon as its verification is done and
 * may run any number at once.  So an attempt is accounted before it is
 * verified, in a file the caller cannot reach, and one uid's attempts are
 * serialised by a lock held across the verification and the delay:
 *
 *   lock the record of the real uid (flock(2), polled: never blocks for
 *   good, no alarm(), no signal handler);
 *   wait until the delay has passed since the attempt it records;
 *   write "attempt started at T" (before verifying: a helper killed
 *   mid-verification, or during the delay after it, stays accounted);
 *   verify; a success clears the record, a refusal leaves it.
 *
 * Parallel helpers of one uid queue on the lock; a killed one releases it,
 * but its attempt is already written, and the next waits out the delay
 * from that attempt.  At most one verification per delay, however driven.
 * Without a usable directory (degrade()) there is no record, but the
 * helpers still queue: on a lock of the shadow file, held across the
 * fixed delay and the verification, so the limit is then one verification
 * per delay for all callers together.
 *
 * Times are CLOCK_BOOTTIME (clock_gettime(2)): it cannot be set, so an
 * administrator's or NTP's clock step neither lifts nor stretches the
 * wait, and it runs on through a suspend.  It restarts at boot, which
 * clears the effect of every record; a record that lies in the future (an
 * earlier boot) costs at most one delay: every wait is capped at it.  The
 * write is not fdatasync()ed: a killed process loses nothing it wrote, and
 * a machine that crashes reboots, after which the record is void anyway.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "chkpwd_rate.h"

/* One fixed-width line, so that a rewrite never leaves a tail behind:
 * boot-time nanoseconds of the last refused-or-unfinished attempt, and how
 * many came in a row. */
#define REC_LEN 32
#define LOCK_POLL_MS 20

static int64_t
now_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Until the boot-time deadline, whatever signals arrive. */
static void
sleep_until(int64_t deadline)
{
    struct timespec ts = {(time_t)(deadline / 1000000000LL), (long)(deadline % 1000000000LL)};
    int e;

    while ((e = clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL)) == EINTR)
        ;
    if (e != 0) {
        /* A kernel without CLOCK_BOOTTIME timers: relative sleeps. */
        int64_t left;
        while ((left = deadline - now_ns()) > 0) {
            struct timespec rel = {(time_t)(left / 1000000000LL), (long)(left % 1000000000LL)};
            (void)nanosleep(&rel, NULL);
        }
    }
}

void
kdf_chkpwd_sleep_ms(unsigned delay_ms)
{
    sleep_until(now_ns() + (int64_t)delay_ms * 1000000LL);
}

/* Lock fd exclusively, polling every LOCK_POLL_MS for at most
 * lock_wait_ms: 0 locked, 1 still held by another after that, -1 error. */
static int
lock_polled(int fd, unsigned lock_wait_ms)
{
    int64_t start = now_ns();

    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        if (now_ns() - start >= (int64_t)lock_wait_ms * 1000000LL)
            return 1;
        kdf_chkpwd_sleep_ms(LOCK_POLL_MS);
    }
    return 0;
}

/* No record: every helper pays the delay before it verifies, one at a
 * time.  They queue on a lock of the file they verify against (lock_path,
 * the shadow file): the one file every helper can open with its
 * privileges (setuid root or setgid shadow), which the caller cannot open
 * and so cannot hold, and which needs no directory (the one that is
 * missing or unsafe here).  Nothing else takes flock(2) locks on it
 * (shadow-utils lock /etc/.pwd.lock with fcntl(2), which does not
 * interact), and the lock is held until exit, across the delay and the
 * verification, so that parallel helpers verify one per delay. */
static enum kdf_chkpwd_rate_begin
degrade(struct kdf_chkpwd_rate *r, const char *dir, const char *why, const char *lock_path,
        unsigned delay_ms, unsigned lock_wait_ms)
{
    int fd, got;

    syslog(LOG_ERR,
           "rate limit directory %s %s: no per-user record; every check waits %u ms first",
           dir, why, delay_ms);
    r->mode = KDF_RATE_DEGRADED;
    fd = open(lock_path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno != ENOENT) {
        syslog(LOG_ERR, "cannot open %s to queue the checks: %m", lock_path);
        return KDF_RATE_ERROR;
    }
    /* A missing file: nothing to verify against (the lookup says so), so
     * nothing to queue for; the delay is still paid. */
    if (fd >= 0) {
        got = lock_polled(fd, lock_wait_ms);
        if (got != 0) {
            if (got < 0)
                syslog(LOG_ERR, "cannot lock %s to queue the checks: %m", lock_path);
            else
                syslog(LOG_NOTICE, "other checks still queued after %u ms: refused",
                       lock_wait_ms);
            (void)close(fd);
            return got < 0 ? KDF_RATE_ERROR : KDF_RATE_BUSY;
        }
        r->fd = fd;
    }
    kdf_chkpwd_sleep_ms(delay_ms);
    return KDF_RATE_GO;
}

/* The directory, if it is one root owns and others cannot write; else -1
 * with *why set. */
static int
open_dir(const char *dir, const char **why)
{
    struct stat st;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (dfd < 0) {
        *why = errno == ENOENT ? "is missing" : "cannot be opened (or is a symbolic link)";
        return -1;
    }
    if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        *why = "cannot be examined";
    } else if (st.st_uid != 0) {
        *why = "is not owned by root";
    } else if (st.st_mode & S_IWOTH) {
        *why = "is writable by others";
    } else {
        return dfd;
    }
    (void)close(dfd);
    return -1;
}

static int
write_record(int fd, int64_t t, unsigned count)
{
    char buf[REC_LEN + 1];
    int n = snprintf(buf, sizeof buf, "%020lld %010u\n", (long long)t, count);

    if (n != REC_LEN)
        return -1;
    return pwrite(fd, buf, REC_LEN, 0) == REC_LEN ? 0 : -1;
}

/* The record's time and count; an empty file is no record, an unreadable
 * one counts as an attempt just now (so it costs the whole delay). */
static void
read_record(int fd, int64_t now, int64_t *t, unsigned *count)
{
    char buf[REC_LEN + 1];
    ssize_t n = pread(fd, buf, REC_LEN, 0);
    char *end;
    long long tt;
    unsigned long c;

    *t = 0;
    *count = 0;
    if (n == 0)
        return;
    if (n == REC_LEN && buf[REC_LEN - 1] == '\n') {
        buf[REC_LEN] = '\0';
        errno = 0;
        tt = strtoll(buf, &end, 10);
        if (errno == 0 && *end == ' ') {
            c = strtoul(end + 1, &end, 10);
            if (errno == 0 && *end == '\n' && c <= UINT32_MAX) {
                *t = tt;
                *count = (unsigned)c;
                return;
            }
        }
    }
    *t = now;
    *count = 1;
}

enum kdf_chkpwd_rate_begin
kdf_chkpwd_rate_begin(struct kdf_chkpwd_rate *r, const char *dir, const char *lock_path,
                      uid_t uid, unsigned delay_ms, unsigned lock_wait_ms)
{
    const int64_t delay = (int64_t)delay_ms * 1000000LL;
    const char *why = NULL;
    char name[24];
    struct stat st;
    int64_t t, now;
    unsigned count;
    int dfd, fd;
    mode_t old;

    r->mode = KDF_RATE_ON;
    r->fd = -1;
    r->count = 0;
    dfd = open_dir(dir, &why);
    if (dfd < 0)
        return degrade(r, dir, why, lock_path, delay_ms, lock_wait_ms);
    (void)snprintf(name, sizeof name, "%lu", (unsigned long)uid);
    /* The caller's umask must not make the record unusable to the next
     * helper (a setgid one opens it as the caller's euid). */
    old = umask(007);
    fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0660);
    (void)umask(old);
    (void)close(dfd);
    /* In a usable directory, a record that cannot be opened is no reason to
     * verify unaccounted: the caller can cause it (RLIMIT_NOFILE). */
    if (fd < 0) {
        syslog(LOG_ERR, "cannot open the rate limit record %s/%s: %m", dir, name);
        return KDF_RATE_ERROR;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        syslog(LOG_ERR, "rate limit record %s/%s is not a plain file", dir, name);
        (void)close(fd);
        return KDF_RATE_ERROR;
    }
    switch (lock_polled(fd, lock_wait_ms)) {
    case 0:
        break;
    case 1:
        syslog(LOG_NOTICE, "another check for uid %lu still runs after %u ms: refused",
               (unsigned long)uid, lock_wait_ms);
        (void)close(fd);
        return KDF_RATE_BUSY;
    default:
        syslog(LOG_ERR, "cannot lock the rate limit record %s/%s: %m", dir, name);
        (void)close(fd);
        return KDF_RATE_ERROR;
    }
    r->fd = fd;
    now = now_ns();
    read_record(fd, now, &t, &count);
    if (count > 0) {
        /* In the future: an earlier boot, or a file someone wrote.  Either
         * way the wait is never longer than one delay. */
        if (t > now || t < now - delay)
            t = t > now ? now : now - delay;
        if (t + delay > now)
            sleep_until(t + delay);
    }
    r->count = count < UINT32_MAX ? count + 1 : count;
    if (write_record(fd, now_ns(), r->count) != 0) {
        /* Not accounted: this attempt pays the whole delay before it is
         * verified instead (the lock still queues the others). */
        syslog(LOG_ERR, "cannot write the rate limit record %s/%s: %m", dir, name);
        kdf_chkpwd_sleep_ms(delay_ms);
    }
    return KDF_RATE_GO;
}

void
kdf_chkpwd_rate_end(struct kdf_chkpwd_rate *r, int ok)
{
    if (r->mode != KDF_RATE_ON || r->fd < 0)
        return;
    if (ok && write_record(r->fd, 0, 0) != 0)
        syslog(LOG_ERR, "cannot clear the rate limit record: %m");
}
