/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write.c - atomic, loss-free rewrite of field 2 (and, for a password
 * change, field 3) of one line of a shadow-style file, or of several at
 * once (kdf_write_hashes(), for kdfhash wrap), and the new hash both of
 * its callers write (kdf_pam_new_hash()).  Why this order and
 * these locks: doc/DESIGN.md, "Writing a new hash: the file writer and the
 * exec hook".  The steps, in this order:
 *   1. lock: an OFD lock (F_OFD_SETLK) on /etc/.pwd.lock (lckpwdf's file,
 *      for /etc/shadow however the path spells it) or PATH.lock, retried
 *      with short sleeps up to a bound; no alarm();
 *   2. re-read under the lock (O_NOFOLLOW, regular file, nlink == 1), find
 *      the user's one line as the lookup does (kdf_shadow_find()), and
 *      compare-and-swap on the exact verified hash;
 *   3. sweep our own stale temps (only a killed writer of ours leaves one);
 *   4. a temp in the same directory (unpredictable name, O_EXCL|O_NOFOLLOW,
 *      0600, owner, mode, label, ACLs and xattrs copied before any data),
 *      write all, fsync, close; "PATH-" gets the previous content the same
 *      way; rename over the target, fsync the directory;
 *   5. unlock, removing PATH.lock first, on every outcome.
 * Invariants: every byte outside the rewritten fields of that one line is
 * copied verbatim (comments, CRLF, NIS lines, NUL and non-UTF-8 bytes,
 * over-long lines, no final newline); a failure before the rename leaves
 * the file as it was; no lock is held while a user is prompted; no signal
 * disposition, mask, umask, rlimit or timer of the host is touched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_SELINUX
#include <selinux/selinux.h>
#endif

#include "kdfhash.h"
#include "shadow_line.h"
#include "spawn.h"
#include "write.h"

/* The file we are willing to hold in memory. */
#define WRITE_FILE_MAX ((size_t)64 << 20)
/* Temps are ".<base>.kdfhash-" followed by WRITE_RAND_LEN random characters. */
#define WRITE_TMP_INFIX ".kdfhash-"
#define WRITE_RAND_LEN 12

static const char write_alnum[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* Shared with the exec hook (upgrade_exec.c). */
const char *
kdf_write_status_str(enum kdf_write_status st)
{
    switch (st) {
    case KDF_WRITE_OK:
        return "ok";
    case KDF_WRITE_CAS_FAILED:
        return "entry changed (compare-and-swap failed)";
    case KDF_WRITE_NOT_FOUND:
        return "no unique entry for the user";
    case KDF_WRITE_LOCK_BUSY:
        return "lock busy";
    case KDF_WRITE_REFUSED:
        return "refused";
    case KDF_WRITE_IO_ERROR:
        return "I/O error";
    case KDF_WRITE_HOOK_FAILED:
        return "hook failed";
    }
    return "unknown status";
}

/* "<what>: <strerror(e)>" without the thread-unsafe strerror(). */
static void
set_errno(char *err, size_t cap, const char *what, int e)
{
    errno = e;
    kdf_errf(err, cap, "%s: %m", what);
}

/* 1 when we hold fd's lock on the file that is still lock_path: a lock
 * file of ours is removed by its holder (lock_release), so a waiter that
 * opened it before the removal holds a lock on a name nobody else sees
 * any more and must open it again. */
static int
lock_is_current(int fd, const char *lock_path)
{
    struct stat a, b;

    return fstat(fd, &a) == 0 && lstat(lock_path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Take the OFD write lock on the whole lock file, polling F_OFD_SETLK: the
 * blocking F_OFD_SETLKW has no timeout and alarm() is not ours to use.
 * ours: the file is the writer's own PATH.lock, removed after use. */
static enum kdf_write_status
lock_acquire(const char *lock_path, int ours, unsigned wait_ms, int *fd_out, char *err,
             size_t cap)
{
    unsigned long long deadline = kdf_pam_now_ms() + wait_ms;
    unsigned nap = 1;
    int fd = -1;

    for (;;) {
        struct flock fl;
        unsigned long long now;

        /* lckpwdf: open(O_WRONLY|O_CREAT|O_CLOEXEC, 0600).  O_NOFOLLOW and
         * O_NONBLOCK so that a planted symlink or FIFO cannot redirect or
         * hang us. */
        if (fd < 0) {
            fd = open(lock_path,
                      O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
            if (fd < 0) {
                set_errno(err, cap, "open lock file", errno);
                return KDF_WRITE_IO_ERROR;
            }
        }
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET; /* l_start = l_len = 0: the whole file */
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
            if (!ours || lock_is_current(fd, lock_path)) {
                *fd_out = fd;
                return KDF_WRITE_OK;
            }
            close(fd); /* removed by the holder we waited for: open it again */
            fd = -1;
            if (kdf_pam_now_ms() < deadline)
                continue;
            kdf_errf(err, cap, "lock held by another process (waited %u ms)", wait_ms);
            return KDF_WRITE_LOCK_BUSY;
        }
        if (errno != EINTR && errno != EAGAIN && errno != EACCES) {
            set_errno(err, cap, "lock", errno);
            close(fd);
            return KDF_WRITE_IO_ERROR;
        }
        now = kdf_pam_now_ms();
        if (now >= deadline) {
            close(fd);
            kdf_errf(err, cap, "lock held by another process (waited %u ms)", wait_ms);
            return KDF_WRITE_LOCK_BUSY;
        }
        kdf_pam_sleep_ms((unsigned)(deadline - now < nap ? deadline - now : nap));
        nap = nap < 16 ? nap * 2 : 20;
    }
}

/* ours: lock_path is the writer's own PATH.lock, removed while still held
 * (a waiter then sees it gone and opens a new one, lock_is_current), so
 * that no empty lock file stays behind whatever the outcome. */
static void
lock_release(int fd, const char *lock_path, int ours)
{
    struct flock fl;

    if (ours)
        (void)unlink(lock_path);
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    /* Closing the last fd of the description would release it too; the
     * explicit unlock makes the order (after the directory fsync) visible. */
    (void)fcntl(fd, F_OFD_SETLK, &fl);
    close(fd);
}

/* Read the whole file (at most WRITE_FILE_MAX bytes) into a fresh buffer. */
static enum kdf_write_status
read_all(int fd, size_t hint, char **out, size_t *out_len, char *err, size_t cap)
{
    size_t bcap = hint + 1 > 4096 ? hint + 1 : 4096, len = 0;
    char *buf = malloc(bcap);

    if (buf == NULL) {
        kdf_errf(err, cap, "out of memory reading the file");
        return KDF_WRITE_IO_ERROR;
    }
    for (;;) {
        ssize_t r;

        if (len == bcap) {
            size_t ncap = bcap * 2 > WRITE_FILE_MAX + 1 ? WRITE_FILE_MAX + 1 : bcap * 2;
            char *nb;

            if (ncap <= bcap) {
                kdf_wipe(buf, len);
                free(buf);
                kdf_errf(err, cap, "file larger than %zu MiB", WRITE_FILE_MAX >> 20);
                return KDF_WRITE_REFUSED;
            }
            nb = malloc(ncap);
            if (nb == NULL) {
                kdf_wipe(buf, len);
                free(buf);
                kdf_errf(err, cap, "out of memory reading the file");
                return KDF_WRITE_IO_ERROR;
            }
            memcpy(nb, buf, len);
            kdf_wipe(buf, len);
            free(buf);
            buf = nb;
            bcap = ncap;
        }
        r = read(fd, buf + len, bcap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            kdf_wipe(buf, len);
            free(buf);
            set_errno(err, cap, "read", e);
            return KDF_WRITE_IO_ERROR;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (len > WRITE_FILE_MAX) {
            kdf_wipe(buf, len);
            free(buf);
            kdf_errf(err, cap, "file larger than %zu MiB", WRITE_FILE_MAX >> 20);
            return KDF_WRITE_REFUSED;
        }
    }
    *out = buf;
    *out_len = len;
    return KDF_WRITE_OK;
}

/* Remove ".<base>.kdfhash-XXXXXXXXXXXX" temps left by a writer killed before
 * its rename: they would pile up, each a copy of the file.  Called with the lock
 * held, so none of them belongs to a live writer using the same lock.  Best
 * effort: a temp we cannot remove is 0600 (or the target's mode) anyway. */
static void
sweep_stale_temps(int dirfd, const char *base)
{
    size_t blen = strlen(base), ilen = strlen(WRITE_TMP_INFIX);
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d;
    struct dirent *de;

    if (fd < 0)
        return;
    d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;

        if (strlen(n) != 1 + blen + ilen + WRITE_RAND_LEN || n[0] != '.' ||
            memcmp(n + 1, base, blen) != 0 || memcmp(n + 1 + blen, WRITE_TMP_INFIX, ilen) != 0 ||
            strspn(n + 1 + blen + ilen, write_alnum) != WRITE_RAND_LEN)
            continue;
        if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
            continue;
        (void)unlinkat(dirfd, n, 0);
    }
    closedir(d);
}

/* mkstemp in the same directory, but through openat() on the directory we
 * hold and with a getrandom() name (shadow-maint f8732b17: unpredictable temp
 * names), O_EXCL|O_NOFOLLOW, mode 0600 (umask can only narrow it). */
static int
create_temp(int dirfd, const char *base, char *name, size_t name_cap)
{
    for (int tries = 0; tries < 32; tries++) {
        unsigned char rnd[WRITE_RAND_LEN];
        char sfx[WRITE_RAND_LEN + 1];
        int fd;

        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            return -1;
        for (size_t i = 0; i < WRITE_RAND_LEN; i++)
            sfx[i] = write_alnum[rnd[i] % (sizeof write_alnum - 1)];
        sfx[WRITE_RAND_LEN] = '\0';
        if ((size_t)snprintf(name, name_cap, ".%s%s%s", base, WRITE_TMP_INFIX, sfx) >= name_cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fd = openat(dirfd, name,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

/* write() until done: short writes continue, EINTR retries. */
static int
write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Copy the SELinux label of the original onto the temp (pam_unix and
 * shadow-utils do the same through setfscreatecon); with SELinux enabled a
 * failure is an error, without it there is nothing to copy. */
static int
copy_label(int from_fd, int to_fd, char *err, size_t cap)
{
#ifdef HAVE_SELINUX
    char *con = NULL;

    if (is_selinux_enabled() <= 0)
        return 0;
    if (fgetfilecon(from_fd, &con) < 0) {
        set_errno(err, cap, "fgetfilecon", errno);
        return -1;
    }
    if (fsetfilecon(to_fd, con) < 0) {
        int e = errno;
        freecon(con);
        set_errno(err, cap, "fsetfilecon", e);
        return -1;
    }
    freecon(con);
#else
    (void)from_fd;
    (void)to_fd;
    (void)err;
    (void)cap;
#endif
    return 0;
}

/* Copy every extended attribute of the original onto the temp: POSIX ACLs
 * (system.posix_acl_access), IMA/EVM or admin tags, whatever an admin or
 * a security module put on /etc/shadow.  The SELinux label has its own
 * copy (copy_label), which knows when SELinux is off.  A failure is an
 * error: a rewrite that silently dropped an ACL could open the file to
 * someone, or close it to a service that reads it. */
static int
copy_xattrs(int from_fd, int to_fd, char *err, size_t cap)
{
    char names[4096], value[4096];
    ssize_t len = flistxattr(from_fd, names, sizeof names);

    if (len < 0) {
        if (errno == ENOTSUP)
            return 0; /* a file system without them: nothing to copy */
        set_errno(err, cap, "flistxattr", errno);
        return -1;
    }
    for (ssize_t i = 0; i < len;) {
        const char *n = names + i;
        ssize_t v;

        i += (ssize_t)strlen(n) + 1;
        if (strcmp(n, "security.selinux") == 0)
            continue;
        v = fgetxattr(from_fd, n, value, sizeof value);
        if (v < 0 || fsetxattr(to_fd, n, value, (size_t)v, 0) < 0) {
            kdf_errf(err, cap, "copy extended attribute %.64s: %s", n,
                     v < 0 ? "cannot read it" : "cannot set it");
            return -1;
        }
    }
    return 0;
}

/* One replaced span of the original: bytes [s, e) become txt. */
struct edit {
    size_t s, e;
    const char *txt;
};

/* Write buf with the edits applied (in order, non-overlapping) into a new
 * temp beside name and rename it over name: step 4 of the header comment.
 * same_ino: the inode name must still have (a writer that ignores the lock
 * may have replaced the file since we read it: renaming over its version
 * would revert it); NULL for the backup, which may not exist yet.  On
 * failure the temp is gone again. */
static enum kdf_write_status
write_replace(int dirfd, const char *name, int orig_fd, const struct stat *st,
              const struct stat *same_ino, const char *buf, size_t len,
              const struct edit *ed, size_t n_ed, char *err, size_t cap)
{
    char tmp[NAME_MAX + 1];
    struct stat now;
    size_t pos = 0;
    int tfd = create_temp(dirfd, name, tmp, sizeof tmp);

    if (tfd < 0) {
        set_errno(err, cap, "create temp file", errno);
        return KDF_WRITE_IO_ERROR;
    }
    /* Owner and mode before the first byte of data: the temp is never more
     * readable than the target (shadow-utils fmkstemp_set_perms). */
    if (fchown(tfd, st->st_uid, st->st_gid) < 0) {
        set_errno(err, cap, "fchown temp file", errno);
        goto fail;
    }
    if (fchmod(tfd, st->st_mode & 0777) < 0) {
        set_errno(err, cap, "fchmod temp file", errno);
        goto fail;
    }
    /* orig_fd -1: a file created by this write (the history file's first
     * entry), with nothing to copy. */
    if (orig_fd >= 0 &&
        (copy_label(orig_fd, tfd, err, cap) < 0 || copy_xattrs(orig_fd, tfd, err, cap) < 0))
        goto fail;
    for (size_t i = 0; i < n_ed; i++) {
        if (write_all(tfd, buf + pos, ed[i].s - pos) < 0 ||
            write_all(tfd, ed[i].txt, strlen(ed[i].txt)) < 0) {
            set_errno(err, cap, "write temp file", errno);
            goto fail;
        }
        pos = ed[i].e;
    }
    if (write_all(tfd, buf + pos, len - pos) < 0) {
        set_errno(err, cap, "write temp file", errno);
        goto fail;
    }
    if (fsync(tfd) < 0) {
        set_errno(err, cap, "fsync temp file", errno);
        goto fail;
    }
    {
        int r = close(tfd);
        tfd = -1; /* the fd is gone on Linux whatever close() returned */
        if (r < 0) {
            set_errno(err, cap, "close temp file", errno);
            goto fail;
        }
    }
    if (same_ino != NULL &&
        (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
         now.st_dev != same_ino->st_dev || now.st_ino != same_ino->st_ino)) {
        kdf_errf(err, cap, "file replaced during the update by a writer without the lock");
        goto fail;
    }
    if (renameat(dirfd, tmp, dirfd, name) < 0) {
        set_errno(err, cap, "rename temp file", errno);
        goto fail;
    }
    /* The rename is done and visible; a failed directory fsync only means
     * it may not survive a power loss (then the next login redoes it). */
    if (fsync(dirfd) < 0)
        set_errno(err, cap, "warning: fsync directory", errno);
    return KDF_WRITE_OK;
fail:
    if (tfd >= 0)
        close(tfd);
    (void)unlinkat(dirfd, tmp, 0);
    return KDF_WRITE_IO_ERROR;
}

/* "PATH-" holds the content before the last write, as every shadow-utils
 * write leaves it (commonio.c create_backup()): an admin's first way back
 * from a bad edit.  Same owner, mode and label as the file itself; written
 * atomically, so a crash leaves the old backup or the new one.  ed: the
 * edits a batch with KDF_BACKUP_NEW applies to buf (NULL: buf as it is). */
static enum kdf_write_status
refresh_backup(int dirfd, const char *base, int orig_fd, const struct stat *st,
               const char *buf, size_t len, const struct edit *ed, size_t n_ed, char *err,
               size_t cap)
{
    char bname[NAME_MAX + 1];

    if ((size_t)snprintf(bname, sizeof bname, "%s-", base) >= sizeof bname) {
        kdf_errf(err, cap, "backup name too long");
        return KDF_WRITE_REFUSED;
    }
    sweep_stale_temps(dirfd, bname);
    return write_replace(dirfd, bname, orig_fd, st, NULL, buf, len, ed, n_ed, err, cap);
}

/* Split path into an open directory fd and its last component. */
static enum kdf_write_status
open_dir(const char *path, int *dirfd, const char **base, char *err, size_t cap)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];

    if (slash == NULL) {
        *base = path;
        snprintf(dir, sizeof dir, ".");
    } else {
        size_t dl = (size_t)(slash - path);
        *base = slash + 1;
        if (dl >= sizeof dir) {
            kdf_errf(err, cap, "path too long");
            return KDF_WRITE_REFUSED;
        }
        memcpy(dir, path, dl);
        dir[dl] = '\0';
        if (dl == 0)
            snprintf(dir, sizeof dir, "/");
    }
    if (**base == '\0' || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0 ||
        strlen(*base) + 2 + strlen(WRITE_TMP_INFIX) + WRITE_RAND_LEN > NAME_MAX) {
        kdf_errf(err, cap, "not a file name");
        return KDF_WRITE_REFUSED;
    }
    *dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*dirfd < 0) {
        set_errno(err, cap, "open directory", errno);
        return KDF_WRITE_IO_ERROR;
    }
    return KDF_WRITE_OK;
}

/* Open base (in dirfd) for a rewrite and read it all into *buf: a file
 * that exists, regular, with one link, at most WRITE_FILE_MAX.  On failure
 * *fd may be open: the caller closes it. */
static enum kdf_write_status
open_existing(int dirfd, const char *base, int *fd, struct stat *st, char **buf, size_t *len,
              char *err, size_t cap)
{
    *fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (*fd < 0) {
        int e = errno;

        set_errno(err, cap, e == ELOOP ? "refusing a symlink" : "open", e);
        return e == ELOOP ? KDF_WRITE_REFUSED : KDF_WRITE_IO_ERROR;
    }
    if (fstat(*fd, st) < 0) {
        set_errno(err, cap, "fstat", errno);
        return KDF_WRITE_IO_ERROR;
    }
    if (!S_ISREG(st->st_mode) || st->st_nlink != 1) {
        kdf_errf(err, cap, S_ISREG(st->st_mode) ? "refusing a file with %lu hard links"
                                               : "not a regular file (mode %lo)",
                S_ISREG(st->st_mode) ? (unsigned long)st->st_nlink
                                     : (unsigned long)st->st_mode);
        return KDF_WRITE_REFUSED;
    }
    if ((unsigned long long)st->st_size > WRITE_FILE_MAX) {
        kdf_errf(err, cap, "file larger than %zu MiB", WRITE_FILE_MAX >> 20);
        return KDF_WRITE_REFUSED;
    }
    return read_all(*fd, (size_t)st->st_size, buf, len, err, cap);
}

/* The file base of dirfd opened and read whole into *buf (NULL, *len 0 when
 * it does not exist yet: *st then describes the file to create, the
 * caller's, 0600).  A symlink, a second link or a file over
 * WRITE_FILE_MAX is refused.  On failure *fd may be open: the caller
 * closes it. */
static enum kdf_write_status
open_or_new(int dirfd, const char *base, int *fd, struct stat *st, char **buf, size_t *len,
            char *err, size_t cap)
{
    *fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (*fd < 0 && errno != ENOENT) {
        int e = errno;

        set_errno(err, cap, e == ELOOP ? "refusing a symlink" : "open", e);
        return e == ELOOP ? KDF_WRITE_REFUSED : KDF_WRITE_IO_ERROR;
    }
    if (*fd < 0) {
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFREG | 0600;
        st->st_uid = geteuid();
        st->st_gid = getegid();
        return KDF_WRITE_OK;
    }
    if (fstat(*fd, st) < 0) {
        set_errno(err, cap, "fstat", errno);
        return KDF_WRITE_IO_ERROR;
    }
    if (!S_ISREG(st->st_mode) || st->st_nlink != 1 ||
        (unsigned long long)st->st_size > WRITE_FILE_MAX) {
        kdf_errf(err, cap, "not a regular file with one link, or too large");
        return KDF_WRITE_REFUSED;
    }
    return read_all(*fd, (size_t)st->st_size, buf, len, err, cap);
}

/* 1 when path names one of the files lckpwdf(3) covers, however it is
 * spelled: "/etc//shadow", "/etc/./shadow", "/etc/../etc/shadow", a
 * symlink to /etc or a bind mount of it.  Decided by the directory's
 * (st_dev, st_ino) against /etc's and the last component, which the writer
 * never follows (a symlink there is refused when the file is opened). */
static int
is_pwd_db(const char *path)
{
    static const char *const db[] = {"passwd", "shadow", "group", "gshadow"};
    const char *slash = strrchr(path, '/'), *base = slash != NULL ? slash + 1 : path;
    char dir[PATH_MAX];
    struct stat d, etc;
    int known = 0;

    for (size_t i = 0; i < sizeof db / sizeof db[0]; i++)
        known |= strcmp(base, db[i]) == 0;
    if (!known)
        return 0;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        return 0;
    return stat(dir, &d) == 0 && stat("/etc", &etc) == 0 && d.st_dev == etc.st_dev &&
           d.st_ino == etc.st_ino;
}

/* The lock of a shadow-style file: glibc lckpwdf's /etc/.pwd.lock for the
 * files it covers, which passwd, chpasswd, useradd, usermod and pam_unix
 * take (shadow-utils' commonio_lock() takes it before its own
 * "/etc/shadow.lock", a file holding the locker's PID, which this writer
 * never creates); "<path>.lock" for any other file, *ours set: the
 * writer's own, removed after each use.  NULL when the name does not fit. */
static const char *
default_lock(const char *path, char *buf, size_t cap, int *ours)
{
    *ours = 0;
    if (is_pwd_db(path))
        return "/etc/.pwd.lock";
    if ((size_t)snprintf(buf, cap, "%s.lock", path) >= cap)
        return NULL;
    *ours = 1;
    return buf;
}

/* The hash the writer is given: made, read back and checked here. */
enum kdf_status
kdf_pam_new_hash(const struct kdf_policy *pol, const char *pw, size_t pw_len, char *out,
                 size_t cap, const char **why)
{
    struct kdf_hash nh;
    enum kdf_status st;

    *why = NULL;
    /* Under the loaded policy: a conf that raises a cap or max.threads
     * applies to the new hash as it does to verification. */
    st = kdf_hash_ex(pw, pw_len, &pol->target, pol, NULL, 0, out, cap);
    if (st == KDF_OK)
        st = kdf_parse(out, strlen(out), &nh, why);
    if (st == KDF_OK)
        st = kdf_verify_ex(pw, pw_len, &nh, pol, NULL, 0);
    /* The writer would refuse it too: fail here, before anything is stored. */
    if (st == KDF_OK && !kdf_shadow_hash_ok(out)) {
        *why = "bad characters";
        st = KDF_INTERNAL;
    }
    kdf_wipe(&nh, sizeof nh);
    if (st != KDF_OK)
        kdf_wipe(out, cap);
    return st;
}

enum kdf_write_status
kdf_write_hash(const char *path, const char *lock_path, const char *user,
               const char *old_hash, const char *new_hash, unsigned lock_wait_ms, char *err,
               size_t err_cap)
{
    return kdf_write_entry(path, lock_path, user, old_hash, new_hash, -1, lock_wait_ms, err,
                           err_cap);
}

enum kdf_write_status
kdf_write_entry(const char *path, const char *lock_path, const char *user,
                const char *old_hash, const char *new_hash, long lastchg,
                unsigned lock_wait_ms, char *err, size_t err_cap)
{
    char lock_buf[PATH_MAX];
    char day[24];
    struct edit ed[2];
    size_t n_ed = 1;
    struct kdf_shadow_line line;
    const char *base;
    char *buf = NULL;
    size_t len = 0, f2s = 0, f2e = 0, n;
    int lock_fd = -1, dirfd = -1, fd = -1, ours = 0;
    struct stat st;
    enum kdf_write_status rc;

    kdf_errf(err, err_cap, "%s", "");
    if (path == NULL || user == NULL || old_hash == NULL || new_hash == NULL) {
        kdf_errf(err, err_cap, "missing argument");
        return KDF_WRITE_REFUSED;
    }
    if (!kdf_shadow_hash_ok(new_hash)) {
        kdf_errf(err, err_cap, "new hash rejected (empty, too long, locked or bad byte)");
        return KDF_WRITE_REFUSED;
    }
    if (!kdf_shadow_name_ok(user)) {
        kdf_errf(err, err_cap, "not a valid user name");
        return KDF_WRITE_NOT_FOUND;
    }
    if (lock_path == NULL &&
        (lock_path = default_lock(path, lock_buf, sizeof lock_buf, &ours)) == NULL) {
        kdf_errf(err, err_cap, "path too long");
        return KDF_WRITE_REFUSED;
    }

    rc = lock_acquire(lock_path, ours, lock_wait_ms, &lock_fd, err, err_cap);
    if (rc != KDF_WRITE_OK)
        return rc;
    rc = open_dir(path, &dirfd, &base, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out;
    rc = open_existing(dirfd, base, &fd, &st, &buf, &len, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out;

    n = kdf_shadow_find(buf, len, user, strlen(user), &line);
    if (n != 1) {
        rc = KDF_WRITE_NOT_FOUND;
        kdf_errf(err, err_cap, n == 0 ? "user not in the file" : "user name on several lines");
        goto out;
    }
    f2s = (size_t)(line.field[1].ptr - buf);
    f2e = f2s + line.field[1].len;
    /* Compare-and-swap: write only if the stored field is still the exact
     * string that was verified. */
    if (f2e - f2s != strlen(old_hash) || kdf_ct_eq(buf + f2s, old_hash, f2e - f2s) != 0) {
        rc = KDF_WRITE_CAS_FAILED;
        kdf_errf(err, err_cap, "stored hash changed since it was verified");
        goto out;
    }
    ed[0].s = f2s;
    ed[0].e = f2e;
    ed[0].txt = new_hash;
    /* A two-field "user:hash" line has no field 3 to update. */
    if (lastchg >= 0 && line.nfields >= 3) {
        size_t f3s = (size_t)(line.field[2].ptr - buf), f3e = f3s + line.field[2].len;

        snprintf(day, sizeof day, "%ld", lastchg);
        if (f3e - f3s != strlen(day) || memcmp(buf + f3s, day, f3e - f3s) != 0) {
            ed[1].s = f3s;
            ed[1].e = f3e;
            ed[1].txt = day;
            n_ed = 2;
        }
    }
    if (n_ed == 1 && strcmp(old_hash, new_hash) == 0) {
        rc = KDF_WRITE_OK; /* nothing to change: no rewrite */
        goto out;
    }
    sweep_stale_temps(dirfd, base);
    rc = refresh_backup(dirfd, base, fd, &st, buf, len, NULL, 0, err, err_cap);
    if (rc == KDF_WRITE_OK)
        rc = write_replace(dirfd, base, fd, &st, &st, buf, len, ed, n_ed, err, err_cap);
out:
    if (buf != NULL) {
        kdf_wipe(buf, len); /* every hash of the file */
        free(buf);
    }
    if (fd >= 0)
        close(fd);
    if (dirfd >= 0)
        close(dirfd);
    lock_release(lock_fd, lock_path, ours);
    return rc;
}

/* ---- a batch of entries: kdf_write_hashes() ---------------------------- */

/* A change's lines in the file, and field 2 [s, e) of the first. */
struct batch_found {
    size_t lines, s, e;
};

/* A new hash of a batch: what kdf_shadow_hash_ok() takes, after exactly
 * as many lock markers ('!') as old_hash has (kdfhash wrap wraps a locked
 * "!hash" into "!wrapped"), so that a batch never locks or unlocks an
 * account. */
static int
batch_hash_ok(const char *old_hash, const char *new_hash)
{
    size_t k = strspn(new_hash, "!");

    return k == strspn(old_hash, "!") && strlen(new_hash) <= KDF_SHADOW_MAX_HASH &&
           kdf_shadow_hash_ok(new_hash + k);
}

/* qsort: the changes by user name. */
static int
change_cmp(const void *a, const void *b)
{
    const struct kdf_write_change *x = *(const struct kdf_write_change *const *)a;
    const struct kdf_write_change *y = *(const struct kdf_write_change *const *)b;

    return strcmp(x->user, y->user);
}

/* bsearch: a field 1 against a change's user, in strcmp()'s order. */
static int
field_change_cmp(const void *key, const void *elem)
{
    const struct kdf_span *f = key;
    const char *u = (*(const struct kdf_write_change *const *)elem)->user;
    size_t ul = strlen(u);
    int c = memcmp(f->ptr, u, f->len < ul ? f->len : ul);

    if (c != 0)
        return c;
    return f->len < ul ? -1 : f->len > ul;
}

/* qsort: edits in file order, as write_replace() applies them. */
static int
edit_cmp(const void *a, const void *b)
{
    const struct edit *x = a, *y = b;

    return x->s < y->s ? -1 : x->s > y->s;
}

/* 1 unless "PATH-" is already a copy of buf with the file's owner and mode
 * (write_replace() gives it those): missing, not a regular file, other
 * bytes, another owner or mode. */
static int
backup_differs(int dirfd, const char *base, const struct stat *st, const char *buf,
               size_t len)
{
    char bname[NAME_MAX + 1], why[64];
    struct stat bs;
    char *b = NULL;
    size_t bl = 0;
    int fd, differs = 1;

    if ((size_t)snprintf(bname, sizeof bname, "%s-", base) >= sizeof bname)
        return 1; /* refresh_backup() says why */
    fd = openat(dirfd, bname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return 1;
    if (fstat(fd, &bs) == 0 && S_ISREG(bs.st_mode) && (size_t)bs.st_size == len &&
        bs.st_uid == st->st_uid && bs.st_gid == st->st_gid &&
        (bs.st_mode & 07777) == (st->st_mode & 0777) &&
        read_all(fd, len, &b, &bl, why, sizeof why) == KDF_WRITE_OK) {
        differs = bl != len || memcmp(b, buf, len) != 0;
        kdf_wipe(b, bl);
        free(b);
    }
    close(fd);
    return differs;
}

/* Before the lock: every field there, a known backup mode, each new hash
 * one batch_hash_ok() takes.  REFUSED (the whole batch) or OK. */
static enum kdf_write_status
batch_check(const struct kdf_write_change *ch, size_t n, enum kdf_write_backup backup,
            char *err, size_t cap)
{
    if ((ch == NULL && n > 0) || (backup != KDF_BACKUP_PREVIOUS && backup != KDF_BACKUP_NEW &&
                                  backup != KDF_BACKUP_NONE)) {
        kdf_errf(err, cap, "missing argument");
        return KDF_WRITE_REFUSED;
    }
    for (size_t i = 0; i < n; i++) {
        if (ch[i].user == NULL || ch[i].old_hash == NULL || ch[i].new_hash == NULL) {
            kdf_errf(err, cap, "missing argument (entry %zu)", i);
            return KDF_WRITE_REFUSED;
        }
        if (!batch_hash_ok(ch[i].old_hash, ch[i].new_hash)) {
            kdf_errf(err, cap,
                     "new hash of entry %zu rejected (empty, too long, lock marker or bad byte)",
                     i);
            return KDF_WRITE_REFUSED;
        }
    }
    return KDF_WRITE_OK;
}

/* by_user[0, *nu): the changes whose name kdf_write_entry() would look
 * up, sorted by it; the others have no entry (res[i]).  A user twice in
 * the batch is refused. */
static enum kdf_write_status
batch_index(struct kdf_write_change *ch, size_t n, struct kdf_write_change **by_user,
            size_t *nu, enum kdf_write_status *res, char *err, size_t cap)
{
    *nu = 0;
    for (size_t i = 0; i < n; i++) {
        if (kdf_shadow_name_ok(ch[i].user))
            by_user[(*nu)++] = &ch[i];
        else
            res[i] = KDF_WRITE_NOT_FOUND;
    }
    qsort(by_user, *nu, sizeof *by_user, change_cmp);
    for (size_t j = 1; j < *nu; j++) {
        if (strcmp(by_user[j - 1]->user, by_user[j]->user) == 0) {
            kdf_errf(err, cap, "a user twice in the batch");
            return KDF_WRITE_REFUSED;
        }
    }
    return KDF_WRITE_OK;
}

/* The edits of the batch on buf into ed[], in file order, and res[i] of
 * each indexed change.  One pass over the file finds every user's lines
 * as kdf_shadow_find() would, one user at a time; fo[i]: change i's
 * lines, and field 2 of the first.  Returns the number of edits. */
static size_t
batch_edits(const char *buf, size_t len, struct kdf_write_change *ch,
            struct kdf_write_change *const *by_user, size_t nu, struct batch_found *fo,
            enum kdf_write_status *res, struct edit *ed)
{
    struct kdf_shadow_line l;
    size_t pos = 0, n_ed = 0;

    while (kdf_shadow_next(buf, len, &pos, &l)) {
        struct kdf_write_change *const *hit;
        size_t i;

        if (l.kind != KDF_SHADOW_ENTRY)
            continue;
        hit = bsearch(&l.field[0], by_user, nu, sizeof *by_user, field_change_cmp);
        if (hit == NULL || !kdf_shadow_is(&l, (*hit)->user, strlen((*hit)->user)))
            continue;
        i = (size_t)(*hit - ch);
        if (fo[i].lines++ == 0) {
            fo[i].s = (size_t)(l.field[1].ptr - buf);
            fo[i].e = fo[i].s + l.field[1].len;
        }
    }
    for (size_t j = 0; j < nu; j++) {
        size_t i = (size_t)(by_user[j] - ch), hl = strlen(ch[i].old_hash);

        if (fo[i].lines != 1) {
            res[i] = KDF_WRITE_NOT_FOUND; /* none, or not unique */
            continue;
        }
        /* Compare-and-swap, each entry on its own. */
        if (fo[i].e - fo[i].s != hl || kdf_ct_eq(buf + fo[i].s, ch[i].old_hash, hl) != 0) {
            res[i] = KDF_WRITE_CAS_FAILED;
            continue;
        }
        res[i] = KDF_WRITE_OK;
        if (strcmp(ch[i].old_hash, ch[i].new_hash) != 0) {
            ed[n_ed].s = fo[i].s;
            ed[n_ed].e = fo[i].e;
            ed[n_ed].txt = ch[i].new_hash;
            n_ed++;
        }
    }
    qsort(ed, n_ed, sizeof *ed, edit_cmp);
    return n_ed;
}

/* Under the lock: the edits written in one rename, with the backup the
 * mode asks for. */
static enum kdf_write_status
batch_commit(int dirfd, const char *base, int fd, const struct stat *st, const char *buf,
             size_t len, const struct edit *ed, size_t n_ed, enum kdf_write_backup backup,
             char *err, size_t cap)
{
    enum kdf_write_status rc = KDF_WRITE_OK;
    char why[200];

    if (n_ed == 0) {
        /* Nothing to change: no rewrite.  A NEW backup is still made a
         * copy of the file when it is not one, so that a rerun cleans the
         * old hashes out of a backup left by a run killed between its
         * rename and the backup's, or by an earlier PREVIOUS write. */
        if (backup == KDF_BACKUP_NEW && backup_differs(dirfd, base, st, buf, len))
            rc = refresh_backup(dirfd, base, fd, st, buf, len, NULL, 0, err, cap);
        return rc;
    }
    sweep_stale_temps(dirfd, base);
    if (backup == KDF_BACKUP_PREVIOUS)
        rc = refresh_backup(dirfd, base, fd, st, buf, len, NULL, 0, err, cap);
    if (rc == KDF_WRITE_OK)
        rc = write_replace(dirfd, base, fd, st, st, buf, len, ed, n_ed, err, cap);
    /* The NEW backup after the file: it never holds what the file did not.
     * The file is rewritten by now, so a failure here is a warning (a
     * rerun makes the backup again, above). */
    if (rc == KDF_WRITE_OK && backup == KDF_BACKUP_NEW &&
        refresh_backup(dirfd, base, fd, st, buf, len, ed, n_ed, why, sizeof why) !=
            KDF_WRITE_OK)
        kdf_errf(err, cap, "warning: backup not refreshed: %s", why);
    return rc;
}

enum kdf_write_status
kdf_write_hashes(const char *path, const char *lock_path, struct kdf_write_change *ch,
                 size_t n, enum kdf_write_backup backup, unsigned lock_wait_ms, char *err,
                 size_t err_cap)
{
    char lock_buf[PATH_MAX];
    struct batch_found *fo = NULL;
    struct kdf_write_change **by_user = NULL;
    enum kdf_write_status *res = NULL;
    struct edit *ed = NULL;
    const char *base;
    char *buf = NULL;
    size_t len = 0, nu = 0, n_ed;
    int lock_fd = -1, dirfd = -1, fd = -1, ours = 0;
    struct stat st;
    enum kdf_write_status rc;

    kdf_errf(err, err_cap, "%s", "");
    if (path == NULL) {
        kdf_errf(err, err_cap, "missing argument");
        return KDF_WRITE_REFUSED;
    }
    rc = batch_check(ch, n, backup, err, err_cap);
    if (rc != KDF_WRITE_OK)
        return rc;
    fo = calloc(n + 1, sizeof *fo);
    res = calloc(n + 1, sizeof *res);
    by_user = calloc(n + 1, sizeof *by_user);
    ed = calloc(n + 1, sizeof *ed);
    if (fo == NULL || res == NULL || by_user == NULL || ed == NULL) {
        rc = KDF_WRITE_IO_ERROR;
        kdf_errf(err, err_cap, "out of memory");
        goto out_nolock;
    }
    rc = batch_index(ch, n, by_user, &nu, res, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out_nolock;
    if (lock_path == NULL &&
        (lock_path = default_lock(path, lock_buf, sizeof lock_buf, &ours)) == NULL) {
        rc = KDF_WRITE_REFUSED;
        kdf_errf(err, err_cap, "path too long");
        goto out_nolock;
    }

    rc = lock_acquire(lock_path, ours, lock_wait_ms, &lock_fd, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out_nolock;
    rc = open_dir(path, &dirfd, &base, err, err_cap);
    if (rc == KDF_WRITE_OK)
        rc = open_existing(dirfd, base, &fd, &st, &buf, &len, err, err_cap);
    if (rc == KDF_WRITE_OK) {
        n_ed = batch_edits(buf, len, ch, by_user, nu, fo, res, ed);
        rc = batch_commit(dirfd, base, fd, &st, buf, len, ed, n_ed, backup, err, err_cap);
    }
    if (buf != NULL) {
        kdf_wipe(buf, len); /* every hash of the file */
        free(buf);
    }
    if (fd >= 0)
        close(fd);
    if (dirfd >= 0)
        close(dirfd);
    lock_release(lock_fd, lock_path, ours);
out_nolock:
    if (rc == KDF_WRITE_OK)
        for (size_t i = 0; i < n; i++)
            ch[i].st = res[i];
    free(fo);
    free(res);
    free(by_user);
    free(ed);
    return rc;
}

/* ---- the password history (opasswd) ----------------------------------- */

/* The user's new line of the history file, by pam_unix's rules
 * (save_old_password() in passverify.c): the count of the stored line plus
 * one, the oldest entries dropped until at most howmany are left with the
 * new one, the uid kept; "user:uid:1:hash" for a first entry.  line, len:
 * the old line without its '\n' (NULL: none).  Returns a malloc'd string
 * with the '\n', or NULL (out of memory). */
static char *
history_line(const char *line, size_t len, const char *user, unsigned long uid,
             const char *entry, unsigned howmany)
{
    const char *f[4] = {NULL, NULL, NULL, NULL}, *end = line + len, *list = NULL;
    size_t fl[4] = {0, 0, 0, 0}, list_len = 0, n;
    unsigned long npas = 0;
    char *out;

    if (line != NULL) {
        const char *p = line;

        for (int i = 0; i < 4 && p <= end; i++) {
            const char *q = i < 3 ? memchr(p, ':', (size_t)(end - p)) : NULL;

            f[i] = p;
            fl[i] = (size_t)((q != NULL ? q : end) - p);
            if (q == NULL)
                break;
            p = q + 1;
        }
    }
    if (f[3] != NULL && fl[3] > 0 && fl[2] > 0 && fl[2] <= 6 &&
        strspn(f[2], "0123456789") >= fl[2]) {
        /* pam_unix trusts the count: "count + 1" entries, the oldest
         * dropped while that is more than howmany. */
        for (size_t i = 0; i < fl[2]; i++)
            npas = npas * 10 + (unsigned long)(f[2][i] - '0');
        npas++;
        list = f[3];
        list_len = fl[3];
        while (npas > howmany && list != NULL) {
            const char *comma = memchr(list, ',', list_len);

            if (comma == NULL) {
                list = NULL;
                list_len = 0;
            } else {
                list_len -= (size_t)(comma + 1 - list);
                list = comma + 1;
            }
            npas--;
        }
    } else {
        npas = 1; /* no line, or one pam_unix could not read either: start over */
    }
    if (list == NULL)
        npas = 1;
    /* The uid stays what the line says (pam_unix keeps it too). */
    n = strlen(user) + 24 + list_len + 1 + strlen(entry) + 3 + (f[1] != NULL ? fl[1] : 0);
    out = malloc(n);
    if (out == NULL)
        return NULL;
    if (f[1] != NULL && fl[1] > 0)
        snprintf(out, n, "%s:%.*s:%lu:%.*s%s%s\n", user, (int)fl[1], f[1], npas,
                 (int)list_len, list != NULL ? list : "", list != NULL ? "," : "", entry);
    else
        snprintf(out, n, "%s:%lu:%lu:%.*s%s%s\n", user, uid, npas, (int)list_len,
                 list != NULL ? list : "", list != NULL ? "," : "", entry);
    return out;
}

/* The user's line of the history file: "user:" at the start of a line.
 * 1 and [*ls, *le) (without the '\n') when there is one, else 0. */
static int
history_find(const char *buf, size_t len, const char *user, size_t *ls, size_t *le)
{
    size_t ul = strlen(user);

    for (size_t pos = 0; pos < len;) {
        const char *e = memchr(buf + pos, '\n', len - pos);
        size_t end = e != NULL ? (size_t)(e - buf) : len;

        if (end - pos > ul && memcmp(buf + pos, user, ul) == 0 && buf[pos + ul] == ':') {
            *ls = pos;
            *le = end;
            return 1;
        }
        pos = end + 1;
    }
    return 0;
}

/* A hash as the history stores it, into out[cap]: ',' separates the
 * entries, so the one ',' a hash may hold (the parameters of Argon2 and
 * scrypt strings) is stored as ';', which no hash string has
 * (kdf_opasswd_entry() turns it back).  0 when it cannot be: it holds a
 * ';' or does not fit. */
static int
history_spell(const char *hash, char *out, size_t cap)
{
    size_t hl = strlen(hash);

    if (hl >= cap || strchr(hash, ';') != NULL)
        return 0;
    for (size_t i = 0; i <= hl; i++)
        out[i] = hash[i] == ',' ? ';' : hash[i];
    return 1;
}

enum kdf_write_status
kdf_write_opasswd(const char *path, const char *lock_for, const char *user,
                  unsigned long uid, const char *old_hash, unsigned howmany,
                  unsigned lock_wait_ms, char *err, size_t err_cap)
{
    char lock_buf[PATH_MAX];
    char entry[KDF_SHADOW_MAX_HASH + 1];
    const char *lock_path, *base;
    char *buf = NULL, *nl = NULL;
    size_t len = 0, ls = 0, le = 0;
    int lock_fd = -1, dirfd = -1, fd = -1, found = 0, ours = 0;
    struct stat st;
    struct edit ed;
    enum kdf_write_status rc;

    kdf_errf(err, err_cap, "%s", "");
    if (path == NULL || lock_for == NULL || user == NULL || old_hash == NULL ||
        !kdf_shadow_name_ok(user)) {
        kdf_errf(err, err_cap, "missing argument");
        return KDF_WRITE_REFUSED;
    }
    if (!kdf_shadow_hash_ok(old_hash) || !history_spell(old_hash, entry, sizeof entry)) {
        kdf_errf(err, err_cap, "old hash not storable");
        return KDF_WRITE_REFUSED;
    }
    if ((lock_path = default_lock(lock_for, lock_buf, sizeof lock_buf, &ours)) == NULL) {
        kdf_errf(err, err_cap, "path too long");
        return KDF_WRITE_REFUSED;
    }
    rc = lock_acquire(lock_path, ours, lock_wait_ms, &lock_fd, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out_nolock;
    rc = open_dir(path, &dirfd, &base, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out;
    /* No history yet: created root's, 0600, as pam_pwhistory does. */
    rc = open_or_new(dirfd, base, &fd, &st, &buf, &len, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out;
    /* Every byte of the file but the user's line is copied as it is. */
    found = history_find(buf, len, user, &ls, &le);
    if (howmany == 0 && !found) {
        rc = KDF_WRITE_OK; /* nothing kept, nothing to forget */
        goto out;
    }
    if (howmany == 0) {
        /* pam_unix drops the line of a user whose history is off. */
        ed.s = ls;
        ed.e = le < len ? le + 1 : le;
        ed.txt = "";
    } else {
        nl = history_line(found ? buf + ls : NULL, found ? le - ls : 0, user, uid, entry,
                          howmany);
        if (nl == NULL) {
            rc = KDF_WRITE_IO_ERROR;
            kdf_errf(err, err_cap, "out of memory");
            goto out;
        }
        if (found) {
            ed.s = ls;
            ed.e = le < len ? le + 1 : le;
        } else {
            ed.s = ed.e = len;
            /* A last line without '\n' keeps its bytes and gets one. */
            if (len > 0 && buf[len - 1] != '\n') {
                memmove(nl + 1, nl, strlen(nl) + 1);
                nl[0] = '\n';
            }
        }
        ed.txt = nl;
    }
    rc = write_replace(dirfd, base, fd, &st, fd >= 0 ? &st : NULL, buf != NULL ? buf : "", len,
                       &ed, 1, err, err_cap);
out:
    lock_release(lock_fd, lock_path, ours);
out_nolock:
    if (nl != NULL) {
        kdf_wipe(nl, strlen(nl));
        free(nl);
    }
    if (buf != NULL) {
        kdf_wipe(buf, len);
        free(buf);
    }
    if (fd >= 0)
        close(fd);
    if (dirfd >= 0)
        close(dirfd);
    kdf_wipe(entry, sizeof entry);
    return rc;
}

/* ---- a batch of history entries: kdf_write_opasswd_replace() ---------- */

/* The changes of a history batch, both sides in the history's spelling
 * (news[i] NULL: dropped).  line[i]: 1 + the offset of the user's line
 * once found, 0 before, SIZE_MAX for a name no line can have. */
struct hist_batch {
    size_t n, splen;
    char *sp, **olds, **news;
    size_t *line;
    enum kdf_write_status *res;
};

static void
hist_batch_free(struct hist_batch *hb)
{
    if (hb->sp != NULL) {
        kdf_wipe(hb->sp, hb->splen);
        free(hb->sp);
    }
    free(hb->olds);
    free(hb->news);
    free(hb->line);
    free(hb->res);
}

/* Check and spell the batch (before the lock).  REFUSED: a missing field,
 * a new hash the history may not store, an old one it cannot hold. */
static enum kdf_write_status
hist_batch_init(struct hist_batch *hb, const struct kdf_write_change *ch, size_t n, char *err,
                size_t cap)
{
    size_t off = 0;

    memset(hb, 0, sizeof *hb);
    hb->n = n;
    hb->splen = 1;
    for (size_t i = 0; i < n; i++) {
        if (ch[i].user == NULL || ch[i].old_hash == NULL) {
            kdf_errf(err, cap, "missing argument (entry %zu)", i);
            return KDF_WRITE_REFUSED;
        }
        if (ch[i].new_hash != NULL && !kdf_shadow_hash_ok(ch[i].new_hash)) {
            kdf_errf(err, cap,
                     "new hash of entry %zu rejected (empty, too long, lock marker or bad byte)",
                     i);
            return KDF_WRITE_REFUSED;
        }
        hb->splen += strlen(ch[i].old_hash) + 1 +
                     (ch[i].new_hash != NULL ? strlen(ch[i].new_hash) + 1 : 0);
    }
    hb->sp = malloc(hb->splen);
    hb->olds = calloc(n + 1, sizeof *hb->olds);
    hb->news = calloc(n + 1, sizeof *hb->news);
    hb->line = calloc(n + 1, sizeof *hb->line);
    hb->res = calloc(n + 1, sizeof *hb->res);
    if (hb->sp == NULL || hb->olds == NULL || hb->news == NULL || hb->line == NULL ||
        hb->res == NULL) {
        kdf_errf(err, cap, "out of memory");
        return KDF_WRITE_IO_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        hb->olds[i] = hb->sp + off;
        if (!history_spell(ch[i].old_hash, hb->olds[i], hb->splen - off)) {
            kdf_errf(err, cap, "old hash of entry %zu not storable", i);
            return KDF_WRITE_REFUSED;
        }
        off += strlen(hb->olds[i]) + 1;
        if (ch[i].new_hash != NULL) {
            hb->news[i] = hb->sp + off;
            if (!history_spell(ch[i].new_hash, hb->news[i], hb->splen - off)) {
                kdf_errf(err, cap, "new hash of entry %zu not storable", i);
                return KDF_WRITE_REFUSED;
            }
            off += strlen(hb->news[i]) + 1;
        }
        hb->res[i] = KDF_WRITE_NOT_FOUND;
        hb->line[i] = kdf_shadow_name_ok(ch[i].user) ? 0 : SIZE_MAX;
    }
    return KDF_WRITE_OK;
}

/* The first change on the line mark whose old entry is [e, e + el); n
 * when none. */
static size_t
history_match(const struct hist_batch *hb, const char *e, size_t el, size_t mark)
{
    for (size_t i = 0; i < hb->n; i++)
        if (hb->line[i] == mark && strlen(hb->olds[i]) == el &&
            kdf_ct_eq(hb->olds[i], e, el) == 0)
            return i;
    return hb->n;
}

/* The entries list [list, q) of the line mark with its changes applied:
 * an entry a change names becomes the change's new entry, or is dropped
 * when it has none (res[i] = KDF_WRITE_OK either way); every other entry
 * and ',' is kept as it is, except that a line that loses an entry loses
 * its empty ones too, as cli/history.c rebuilds a line (pam_unix skips
 * them).  *txt NULL: no change named an entry.  Else *txt, malloc'd: the
 * list, or with a drop "count:list" for the span from the count field
 * on, count the entries left (*left; 0: the line is to go). */
static enum kdf_write_status
history_rebuild(struct hist_batch *hb, const char *list, const char *q, size_t mark,
                char **txt, int *drop, size_t *left)
{
    size_t need = 1, o = 0, kept = 0;
    char *out = NULL, *cnt;

    *txt = NULL;
    *drop = 0;
    *left = 0;
    for (int pass = 0; pass < 2; pass++) {
        int any = 0;

        for (const char *p = list;;) {
            const char *c = memchr(p, ',', (size_t)(q - p)), *e = c != NULL ? c : q;
            size_t el = (size_t)(e - p), i = el > 0 ? history_match(hb, p, el, mark) : hb->n;
            const char *t = i < hb->n ? hb->news[i] : p;
            size_t tl = i < hb->n ? (t != NULL ? strlen(t) : 0) : el;

            if (pass == 0) {
                if (i < hb->n) {
                    hb->res[i] = KDF_WRITE_OK;
                    *drop |= t == NULL;
                    any = 1;
                }
                need += tl + 1;
            } else if (t != NULL && (el > 0 || !*drop)) {
                if (kept++ > 0)
                    out[o++] = ',';
                memcpy(out + o, t, tl);
                o += tl;
                (*left)++; /* with a drop, only non-empty entries get here */
            }
            if (c == NULL)
                break;
            p = c + 1;
        }
        if (pass == 0 && !any)
            return KDF_WRITE_OK;
        if (pass == 0 && (out = malloc(need)) == NULL)
            return KDF_WRITE_IO_ERROR;
    }
    out[o] = '\0';
    if (!*drop) {
        *txt = out;
        return KDF_WRITE_OK;
    }
    cnt = malloc(o + 24);
    if (cnt != NULL)
        snprintf(cnt, o + 24, "%zu:%s", *left, out);
    kdf_wipe(out, o);
    free(out);
    *txt = cnt;
    return cnt != NULL ? KDF_WRITE_OK : KDF_WRITE_IO_ERROR;
}

/* The edit of the history line [pos, end) (end: its '\n' or the file's
 * end, next: past it) when it is the first line of a user of the batch
 * (as history_find() takes it) and a change names one of its entries:
 * *ed set, *txt the text to free.  A user's line found, a change of the
 * user whose entry is not in it changed meanwhile. */
static enum kdf_write_status
history_line_edit(struct hist_batch *hb, const struct kdf_write_change *ch, const char *buf,
                  size_t pos, size_t end, size_t next, struct edit *ed, char **txt)
{
    const char *q = buf + end, *c1, *c2 = NULL, *c3 = NULL;
    size_t left = 0, ul;
    int mine = 0, drop = 0;
    enum kdf_write_status rc;

    *txt = NULL;
    if (q > buf + pos && q[-1] == '\r')
        q--;
    c1 = memchr(buf + pos, ':', (size_t)(q - (buf + pos)));
    if (c1 == NULL)
        return KDF_WRITE_OK;
    ul = (size_t)(c1 - (buf + pos));
    for (size_t i = 0; i < hb->n; i++) {
        if (hb->line[i] == 0 && strlen(ch[i].user) == ul &&
            memcmp(ch[i].user, buf + pos, ul) == 0) {
            hb->line[i] = pos + 1;
            hb->res[i] = KDF_WRITE_CAS_FAILED;
            mine = 1;
        }
    }
    if (mine)
        c2 = memchr(c1 + 1, ':', (size_t)(q - (c1 + 1)));
    if (c2 != NULL)
        c3 = memchr(c2 + 1, ':', (size_t)(q - (c2 + 1)));
    if (c3 == NULL)
        return KDF_WRITE_OK; /* no entries to change */
    rc = history_rebuild(hb, c3 + 1, q, pos + 1, txt, &drop, &left);
    if (rc != KDF_WRITE_OK || *txt == NULL)
        return rc;
    if (drop && left == 0) {
        ed->s = pos; /* no entry left: the line goes, '\n' and all */
        ed->e = next;
        ed->txt = "";
    } else {
        ed->s = (size_t)((drop ? c2 : c3) + 1 - buf);
        ed->e = (size_t)(q - buf);
        ed->txt = *txt;
    }
    return KDF_WRITE_OK;
}

enum kdf_write_status
kdf_write_opasswd_replace(const char *path, const char *lock_for, struct kdf_write_change *ch,
                          size_t n, unsigned lock_wait_ms, char *err, size_t err_cap)
{
    char lock_buf[PATH_MAX];
    const char *lock_path = NULL, *base;
    char *buf = NULL, **txts = NULL;
    size_t len = 0, n_ed = 0;
    struct edit *ed = NULL;
    struct hist_batch hb;
    int lock_fd = -1, dirfd = -1, fd = -1, ours = 0;
    struct stat st;
    enum kdf_write_status rc;

    kdf_errf(err, err_cap, "%s", "");
    memset(&hb, 0, sizeof hb);
    if (path == NULL || lock_for == NULL || (ch == NULL && n > 0)) {
        kdf_errf(err, err_cap, "missing argument");
        return KDF_WRITE_REFUSED;
    }
    rc = hist_batch_init(&hb, ch, n, err, err_cap);
    txts = calloc(n + 1, sizeof *txts);
    ed = calloc(n + 1, sizeof *ed);
    if (rc == KDF_WRITE_OK && (txts == NULL || ed == NULL)) {
        rc = KDF_WRITE_IO_ERROR;
        kdf_errf(err, err_cap, "out of memory");
    }
    if (rc == KDF_WRITE_OK &&
        (lock_path = default_lock(lock_for, lock_buf, sizeof lock_buf, &ours)) == NULL) {
        rc = KDF_WRITE_REFUSED;
        kdf_errf(err, err_cap, "path too long");
    }
    if (rc != KDF_WRITE_OK)
        goto out_nolock;
    rc = lock_acquire(lock_path, ours, lock_wait_ms, &lock_fd, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out_nolock;
    rc = open_dir(path, &dirfd, &base, err, err_cap);
    if (rc == KDF_WRITE_OK)
        rc = open_or_new(dirfd, base, &fd, &st, &buf, &len, err, err_cap);
    /* fd < 0: no history, every entry not found, nothing created.  Every
     * line but the changed ones is copied as it is. */
    for (size_t pos = 0; rc == KDF_WRITE_OK && fd >= 0 && pos < len;) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl != NULL ? (size_t)(nl - buf) : len, next = nl != NULL ? end + 1 : len;

        rc = history_line_edit(&hb, ch, buf, pos, end, next, &ed[n_ed], &txts[n_ed]);
        if (rc != KDF_WRITE_OK)
            kdf_errf(err, err_cap, "out of memory");
        else if (txts[n_ed] != NULL)
            n_ed++;
        pos = next;
    }
    if (rc == KDF_WRITE_OK && n_ed > 0) {
        sweep_stale_temps(dirfd, base);
        rc = write_replace(dirfd, base, fd, &st, &st, buf, len, ed, n_ed, err, err_cap);
    }
    lock_release(lock_fd, lock_path, ours);
out_nolock:
    if (rc == KDF_WRITE_OK)
        for (size_t i = 0; i < n; i++)
            ch[i].st = hb.res[i];
    for (size_t i = 0; txts != NULL && i < n_ed; i++) {
        kdf_wipe(txts[i], strlen(txts[i]));
        free(txts[i]);
    }
    if (buf != NULL) {
        kdf_wipe(buf, len);
        free(buf);
    }
    if (fd >= 0)
        close(fd);
    if (dirfd >= 0)
        close(dirfd);
    hist_batch_free(&hb);
    free(txts);
    free(ed);
    return rc;
}

/* ---- whole lines: the offline cache ----------------------------------- */

/* line is user's entry and one line of printable ASCII: "user:hash" or
 * "user:hash:more", the hash one kdf_shadow_hash_ok() takes. */
static int
line_ok(const char *user, const char *line)
{
    size_t ul = strlen(user), n = strlen(line);
    char hash[KDF_SHADOW_MAX_HASH + 1];
    const char *h, *c;

    if (n > KDF_SHADOW_MAX_LINE || strncmp(line, user, ul) != 0 || line[ul] != ':')
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
            return 0;
    h = line + ul + 1;
    c = strchr(h, ':');
    n = c != NULL ? (size_t)(c - h) : strlen(h);
    if (n == 0 || n > KDF_SHADOW_MAX_HASH)
        return 0;
    memcpy(hash, h, n);
    hash[n] = '\0';
    return kdf_shadow_hash_ok(hash);
}

/* The edits of kdf_write_line() on the lines of user in buf, into ed[]:
 * the first becomes repl (NULL: dropped), the others are dropped.
 * Returns their number. */
static size_t
user_line_edits(const char *buf, size_t len, const char *user, char *repl, struct edit *ed)
{
    struct kdf_shadow_line l;
    size_t pos = 0, n_ed = 0;

    for (;;) {
        size_t s = pos;

        if (!kdf_shadow_next(buf != NULL ? buf : "", len, &pos, &l))
            break;
        if (!kdf_shadow_is(&l, user, strlen(user)))
            continue;
        ed[n_ed].s = s;
        ed[n_ed].e = pos; /* with its '\n', when it has one */
        ed[n_ed].txt = repl != NULL && n_ed == 0 ? repl : "";
        if (ed[n_ed].txt == repl && pos == len && (len == 0 || buf[len - 1] != '\n'))
            repl[strlen(repl) - 1] = '\0'; /* a last line without '\n' stays so */
        n_ed++;
    }
    return n_ed;
}

enum kdf_write_status
kdf_write_line(const char *path, const char *user, const char *line, unsigned lock_wait_ms,
               char *err, size_t err_cap)
{
    char lock_buf[PATH_MAX];
    const char *lock_path, *base;
    char *buf = NULL, *repl = NULL;
    size_t len = 0, pos = 0, n_ed = 0, nmatch = 0;
    int lock_fd = -1, dirfd = -1, fd = -1, ours = 0;
    struct kdf_shadow_line l;
    struct edit *ed = NULL;
    struct stat st;
    enum kdf_write_status rc;

    kdf_errf(err, err_cap, "%s", "");
    if (path == NULL || user == NULL || !kdf_shadow_name_ok(user)) {
        kdf_errf(err, err_cap, "missing argument or not a valid user name");
        return KDF_WRITE_REFUSED;
    }
    if (line != NULL && !line_ok(user, line)) {
        kdf_errf(err, err_cap, "new line rejected (not the user's, bad hash or bad byte)");
        return KDF_WRITE_REFUSED;
    }
    if ((size_t)snprintf(lock_buf, sizeof lock_buf, "%s.lock", path) >= sizeof lock_buf) {
        kdf_errf(err, err_cap, "path too long");
        return KDF_WRITE_REFUSED;
    }
    lock_path = lock_buf;
    ours = 1;
    rc = lock_acquire(lock_path, ours, lock_wait_ms, &lock_fd, err, err_cap);
    if (rc != KDF_WRITE_OK)
        return rc;
    rc = open_dir(path, &dirfd, &base, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out;
    rc = open_or_new(dirfd, base, &fd, &st, &buf, &len, err, err_cap);
    if (rc != KDF_WRITE_OK)
        goto out;
    while (kdf_shadow_next(buf != NULL ? buf : "", len, &pos, &l))
        nmatch += kdf_shadow_is(&l, user, strlen(user)) ? 1u : 0u;
    if (line == NULL && nmatch == 0) {
        rc = KDF_WRITE_OK; /* nothing to forget */
        goto out;
    }
    ed = calloc(nmatch + 1, sizeof *ed);
    repl = line != NULL ? malloc(strlen(line) + 3) : NULL;
    if (ed == NULL || (line != NULL && repl == NULL)) {
        rc = KDF_WRITE_IO_ERROR;
        kdf_errf(err, err_cap, "out of memory");
        goto out;
    }
    if (repl != NULL)
        snprintf(repl, strlen(line) + 3, "%s\n", line);
    n_ed = user_line_edits(buf, len, user, repl, ed);
    if (n_ed == 1 && repl != NULL && ed[0].e - ed[0].s == strlen(repl) &&
        memcmp(buf + ed[0].s, repl, strlen(repl)) == 0) {
        rc = KDF_WRITE_OK; /* the same line: no rewrite */
        goto out;
    }
    if (n_ed == 0) {
        /* Appended; a last line without '\n' keeps its bytes and gets one. */
        ed[0].s = ed[0].e = len;
        if (len > 0 && buf[len - 1] != '\n') {
            memmove(repl + 1, repl, strlen(repl) + 1);
            repl[0] = '\n';
        }
        ed[0].txt = repl;
        n_ed = 1;
    }
    sweep_stale_temps(dirfd, base);
    rc = write_replace(dirfd, base, fd, &st, fd >= 0 ? &st : NULL, buf != NULL ? buf : "", len,
                       ed, n_ed, err, err_cap);
out:
    if (repl != NULL) {
        kdf_wipe(repl, strlen(repl));
        free(repl);
    }
    free(ed);
    if (buf != NULL) {
        kdf_wipe(buf, len);
        free(buf);
    }
    if (fd >= 0)
        close(fd);
    if (dirfd >= 0)
        close(dirfd);
    lock_release(lock_fd, lock_path, ours);
    return rc;
}
