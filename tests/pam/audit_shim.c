/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_shim.c - an LD_PRELOAD shim for tests/pam/test_pam_audit.sh, with
 * two roles, each on only when its variables are set:
 *
 *   KDF_AUDIT_SHIM_LOG=FILE  the stand-in for the kernel's audit where it
 *       is off: each user message that libaudit sends on its netlink
 *       socket (sendto) is appended to FILE as auditd writes a record
 *       ("type=NAME msg=audit(T:N): pid= uid= auid= ses= msg='TEXT'"),
 *       then sent on unchanged, so libaudit gets the kernel's answer as
 *       ever.  TEXT is libaudit's own, byte for byte.
 *   KDF_AUDIT_SHIM_RACE_LOCK=PATH, _FROM=F, _TO=T  a lost compare-and-swap:
 *       when the process first opens PATH (the writer's lock file), F is
 *       renamed over T, as another writer would have rewritten the entry
 *       just before the lock was had.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef NETLINK_AUDIT
#define NETLINK_AUDIT 9
#endif

#define NEXT(type, name) ((type)dlsym(RTLD_NEXT, name))

/* ---- the stand-in recorder ---------------------------------------------- */

static void
read_id(const char *path, char *out, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, cap - 1) : -1;

    if (fd >= 0)
        close(fd);
    if (n <= 0)
        n = snprintf(out, cap, "4294967295");
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
}

static const char *
type_name(int type, char *buf, size_t cap)
{
    /* libaudit is in the process: it sent the message. */
    const char *(*name)(int) = NEXT(const char *(*)(int), "audit_msg_type_to_name");
    const char *n = name != NULL ? name(type) : NULL;

    if (n != NULL)
        return n;
    snprintf(buf, cap, "UNKNOWN[%d]", type);
    return buf;
}

static void
record(const void *buf, size_t len)
{
    static unsigned serial;
    const char *log = getenv("KDF_AUDIT_SHIM_LOG");
    const struct nlmsghdr *nh = buf;
    char line[10240], auid[16], ses[16], tn[32];
    struct timespec ts;
    size_t tlen;
    int n, fd;

    if (log == NULL || len < NLMSG_HDRLEN || nh->nlmsg_len > len)
        return;
    if (!((nh->nlmsg_type >= 1100 && nh->nlmsg_type <= 1199) ||
          (nh->nlmsg_type >= 2100 && nh->nlmsg_type <= 2999)))
        return;
    tlen = strnlen((const char *)NLMSG_DATA(nh), nh->nlmsg_len - NLMSG_HDRLEN);
    read_id("/proc/self/loginuid", auid, sizeof auid);
    read_id("/proc/self/sessionid", ses, sizeof ses);
    clock_gettime(CLOCK_REALTIME, &ts);
    n = snprintf(line, sizeof line,
                 "type=%s msg=audit(%lld.%03ld:%u): pid=%ld uid=%lu auid=%s ses=%s msg='%.*s'\n",
                 type_name(nh->nlmsg_type, tn, sizeof tn), (long long)ts.tv_sec,
                 ts.tv_nsec / 1000000, (unsigned)(getpid() % 100000) * 1000 + ++serial,
                 (long)getpid(), (unsigned long)getuid(), auid, ses, (int)tlen,
                 (const char *)NLMSG_DATA(nh));
    if (n <= 0 || (size_t)n >= sizeof line)
        return;
    fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n)
        (void)0; /* a short record fails the test that reads it */
    close(fd);
}

static int
is_audit_socket(int fd)
{
    int v = 0;
    socklen_t l = sizeof v;

    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) != 0 || v != AF_NETLINK)
        return 0;
    l = sizeof v;
    return getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l) == 0 && v == NETLINK_AUDIT;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
               socklen_t tolen);

ssize_t
sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
       socklen_t tolen)
{
    typedef ssize_t (*fn)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);

    if (getenv("KDF_AUDIT_SHIM_LOG") != NULL && is_audit_socket(fd))
        record(buf, len);
    return NEXT(fn, "sendto")(fd, buf, len, flags, to, tolen);
}

/* ---- the lost compare-and-swap ------------------------------------------ */

static void
race(const char *path)
{
    static int done;
    const char *lock = getenv("KDF_AUDIT_SHIM_RACE_LOCK");
    const char *from = getenv("KDF_AUDIT_SHIM_RACE_FROM");
    const char *to = getenv("KDF_AUDIT_SHIM_RACE_TO");

    if (done || lock == NULL || from == NULL || to == NULL || path == NULL ||
        strcmp(path, lock) != 0)
        return;
    done = 1;
    if (rename(from, to) != 0)
        perror("audit_shim: rename");
}

static mode_t
open_mode(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dfd, const char *path, int flags, ...);
int openat64(int dfd, const char *path, int flags, ...);

int
open(const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;

    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    race(path);
    return NEXT(int (*)(const char *, int, ...), "open")(path, flags, m);
}

int
open64(const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;

    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    race(path);
    return NEXT(int (*)(const char *, int, ...), "open64")(path, flags, m);
}

int
openat(int dfd, const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;

    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    race(path);
    return NEXT(int (*)(int, const char *, int, ...), "openat")(dfd, path, flags, m);
}

int
openat64(int dfd, const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;

    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    race(path);
    return NEXT(int (*)(int, const char *, int, ...), "openat64")(dfd, path, flags, m);
}
