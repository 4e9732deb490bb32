/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * faultinject.c - an LD_PRELOAD shim that fails the Nth call of one libc
 * function with a chosen errno, so that every failure of the upgrade
 * writer's system calls can be tried (the shadow-utils test suite uses the
 * same kind of shims).
 *
 * Wrapped: open open64 openat openat64 mkstemp mkostemp fchown fchmod write
 * fsync fdatasync close rename renameat renameat2 fcntl fcntl64.  Each call
 * goes to the next definition (dlsym(RTLD_NEXT)); only while armed are calls
 * counted and one of them failed.  Control from the program under test
 * (found with dlsym(RTLD_DEFAULT), so the program also runs without the shim):
 *   fi_setup(func, nth, err, mode)  fail call number nth (1-based) of func
 *       with errno err; mode 0 once, 1 that call and every later one
 *       ("sticky"), 2 a short write (half the bytes, at least 1) instead
 *       of a failure.  func NULL: count only.
 *   fi_arm(on)                      start/stop counting and injecting
 *   fi_calls(func)                  calls of func since fi_setup
 *   fi_fired()                      how many calls were failed or shortened
 * Also from the environment (FI_FUNC, FI_NTH, FI_ERRNO, FI_MODE; armed from
 * the start) for programs that do not know about the shim.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Exported control interface (prototypes here: this file is its own header). */
void fi_setup(const char *func, unsigned long nth, int err, int mode);
void fi_arm(int on);
unsigned long fi_calls(const char *func);
unsigned long fi_fired(void);

enum {
    F_OPEN,
    F_OPENAT,
    F_MKSTEMP,
    F_FCHOWN,
    F_FCHMOD,
    F_WRITE,
    F_FSYNC,
    F_CLOSE,
    F_RENAME,
    F_FCNTL,
    F_COUNT
};
/* Aliases count as one function: open64 is open, renameat2 is rename... */
static const char *const fi_names[F_COUNT] = {"open",   "openat", "mkstemp", "fchown",
                                              "fchmod", "write",  "fsync",   "close",
                                              "rename", "fcntl"};

static int fi_armed;
static int fi_target = -1;
static unsigned long fi_nth;
static int fi_errno;
static int fi_mode;
static unsigned long fi_count[F_COUNT];
static unsigned long fi_fired_n;

static int
fi_index(const char *func)
{
    for (int i = 0; i < F_COUNT; i++)
        if (func != NULL && strcmp(func, fi_names[i]) == 0)
            return i;
    return -1;
}

void
fi_setup(const char *func, unsigned long nth, int err, int mode)
{
    fi_target = fi_index(func);
    fi_nth = nth;
    fi_errno = err;
    fi_mode = mode;
    memset(fi_count, 0, sizeof fi_count);
    fi_fired_n = 0;
}

void
fi_arm(int on)
{
    fi_armed = on;
}

unsigned long
fi_calls(const char *func)
{
    int i = fi_index(func);
    return i < 0 ? 0 : fi_count[i];
}

unsigned long
fi_fired(void)
{
    return fi_fired_n;
}

__attribute__((constructor)) static void
fi_from_env(void)
{
    const char *f = getenv("FI_FUNC");
    if (f == NULL)
        return;
    fi_setup(f, strtoul(getenv("FI_NTH") ? getenv("FI_NTH") : "1", NULL, 10),
             atoi(getenv("FI_ERRNO") ? getenv("FI_ERRNO") : "5"),
             atoi(getenv("FI_MODE") ? getenv("FI_MODE") : "0"));
    fi_arm(1);
}

/* 0: pass the call on; 1: fail it with fi_errno; 2: shorten it (write). */
static int
fi_check(int which)
{
    unsigned long n;

    if (!fi_armed)
        return 0;
    n = ++fi_count[which];
    if (which != fi_target || n < fi_nth || (n > fi_nth && fi_mode != 1))
        return 0;
    fi_fired_n++;
    return fi_mode == 2 ? 2 : 1;
}

#define NEXT(type, name) ((type)dlsym(RTLD_NEXT, name))
#define FAIL_IF(which)                                                                 \
    do {                                                                               \
        if (fi_check(which) == 1) {                                                    \
            errno = fi_errno;                                                          \
            return -1;                                                                 \
        }                                                                              \
    } while (0)

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static mode_t
open_mode(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int
open(const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;
    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    FAIL_IF(F_OPEN);
    return NEXT(open_fn, "open")(path, flags, m);
}

int
open64(const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;
    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    FAIL_IF(F_OPEN);
    return NEXT(open_fn, "open64")(path, flags, m);
}

int
openat(int dfd, const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;
    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    FAIL_IF(F_OPENAT);
    return NEXT(openat_fn, "openat")(dfd, path, flags, m);
}

int
openat64(int dfd, const char *path, int flags, ...)
{
    va_list ap;
    mode_t m;
    va_start(ap, flags);
    m = open_mode(flags, ap);
    va_end(ap);
    FAIL_IF(F_OPENAT);
    return NEXT(openat_fn, "openat64")(dfd, path, flags, m);
}

int
mkstemp(char *tmpl)
{
    FAIL_IF(F_MKSTEMP);
    return NEXT(int (*)(char *), "mkstemp")(tmpl);
}

int
mkostemp(char *tmpl, int flags)
{
    FAIL_IF(F_MKSTEMP);
    return NEXT(int (*)(char *, int), "mkostemp")(tmpl, flags);
}

int
fchown(int fd, uid_t u, gid_t g)
{
    FAIL_IF(F_FCHOWN);
    return NEXT(int (*)(int, uid_t, gid_t), "fchown")(fd, u, g);
}

int
fchmod(int fd, mode_t m)
{
    FAIL_IF(F_FCHMOD);
    return NEXT(int (*)(int, mode_t), "fchmod")(fd, m);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
    int r = fi_check(F_WRITE);
    if (r == 1) {
        errno = fi_errno;
        return -1;
    }
    if (r == 2 && n > 1)
        n /= 2; /* a short write: the caller must carry on */
    return NEXT(ssize_t (*)(int, const void *, size_t), "write")(fd, buf, n);
}

int
fsync(int fd)
{
    FAIL_IF(F_FSYNC);
    return NEXT(int (*)(int), "fsync")(fd);
}

int
fdatasync(int fd)
{
    FAIL_IF(F_FSYNC);
    return NEXT(int (*)(int), "fdatasync")(fd);
}

int
close(int fd)
{
    /* Linux releases the fd even when close() reports an error; do so too,
     * so that an injected failure does not leak the descriptor. */
    int r = NEXT(int (*)(int), "close")(fd);
    if (fi_check(F_CLOSE) == 1) {
        errno = fi_errno;
        return -1;
    }
    return r;
}

int
rename(const char *a, const char *b)
{
    FAIL_IF(F_RENAME);
    return NEXT(int (*)(const char *, const char *), "rename")(a, b);
}

int
renameat(int da, const char *a, int db, const char *b)
{
    FAIL_IF(F_RENAME);
    return NEXT(int (*)(int, const char *, int, const char *), "renameat")(da, a, db, b);
}

int
renameat2(int da, const char *a, int db, const char *b, unsigned flags)
{
    FAIL_IF(F_RENAME);
    return NEXT(int (*)(int, const char *, int, const char *, unsigned), "renameat2")(da, a, db,
                                                                                     b, flags);
}

/* fcntl's third argument is an int or a pointer; pass it on as a pointer
 * (both travel in the same register on the Linux ABIs we support). */
int
fcntl(int fd, int cmd, ...)
{
    va_list ap;
    void *arg;
    va_start(ap, cmd);
    arg = va_arg(ap, void *);
    va_end(ap);
    FAIL_IF(F_FCNTL);
    return NEXT(int (*)(int, int, ...), "fcntl")(fd, cmd, arg);
}

int
fcntl64(int fd, int cmd, ...)
{
    va_list ap;
    void *arg;
    va_start(ap, cmd);
    arg = va_arg(ap, void *);
    va_end(ap);
    FAIL_IF(F_FCNTL);
    return NEXT(int (*)(int, int, ...), "fcntl64")(fd, cmd, arg);
}
