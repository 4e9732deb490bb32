/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * history.c - the password history (/etc/security/opasswd, the file of
 * pam_unix's and pam_pwhistory's remember=N, "user:uid:count:h1,h2,...")
 * for the command line: each entry read (keys list and retire, disable),
 * and some entries dropped (keys retire --drop-history, disable --history
 * drop).  A ',' of an Argon2 or scrypt string is stored as ';'
 * (kdf_write_opasswd()): entries reach the callback with it turned back.
 *
 * The drop is the module writer's way (pam_module/write.c) in small: the
 * lock of the shadow-style file (/etc/.pwd.lock for /etc/shadow, which
 * passwd and pam_unix take, else "FILE.lock"), the file re-read under it, a
 * temp beside it with the owner, mode and extended attributes (the SELinux
 * label, ACLs) of the original before any data, fsync, rename only while
 * the file is still the one read, fsync of the directory.  Every line but
 * the changed ones is copied as it is; a user left without entries loses
 * the line (pam_unix drops it too when remember is off).  The CLI does not
 * link the module's library, whose writer only ever adds an entry.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "shadow_line.h"

#define HIST_FILE_MAX ((size_t)16 << 20) /* opasswd.c reads no larger one */
#define LOCK_WAIT_MS 5000

/* The whole file in a fresh buffer (+1 byte); *buf NULL when it does not
 * exist.  fd_out (may be NULL) keeps it open for a rewrite, which refuses
 * a symlink or a file with other links (the writer's rule); a reader takes
 * the file as pam_unix does.  CLI_OK or CLI_ERR (said). */
static int
read_history(const char *path, char **buf, size_t *len, int *fd_out, struct stat *st)
{
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
                            (fd_out != NULL ? O_NOFOLLOW : 0));

    *buf = NULL;
    *len = 0;
    if (fd < 0) {
        if (errno == ENOENT)
            return CLI_OK;
        cli_error("%s: %s", path, errno == ELOOP ? "a symlink, refused" : strerror(errno));
        return CLI_ERR;
    }
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || (fd_out != NULL && st->st_nlink != 1) ||
        (size_t)st->st_size > HIST_FILE_MAX) {
        cli_error("%s: not a regular file%s of at most %zu MiB", path,
                  fd_out != NULL ? " with one link" : "", HIST_FILE_MAX >> 20);
        close(fd);
        return CLI_ERR;
    }
    *buf = malloc((size_t)st->st_size + 1);
    if (*buf == NULL) {
        cli_error("out of memory");
        close(fd);
        return CLI_ERR;
    }
    while (n < (size_t)st->st_size) {
        ssize_t r = read(fd, *buf + n, (size_t)st->st_size - n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    (*buf)[n] = '\0';
    *len = n;
    if (fd_out != NULL)
        *fd_out = fd;
    else
        close(fd);
    return CLI_OK;
}

/* The fields of one history line [p, q) (q before any '\r'): user, and
 * the start of the entries (field 4); 0 when the line is not one. */
struct hline {
    const char *user, *uid, *list, *end;
    size_t ulen, uidlen;
};

static int
split_line(const char *p, const char *q, struct hline *h)
{
    const char *c1 = memchr(p, ':', (size_t)(q - p)), *c2, *c3;

    if (c1 == NULL || c1 == p || (c2 = memchr(c1 + 1, ':', (size_t)(q - c1 - 1))) == NULL ||
        (c3 = memchr(c2 + 1, ':', (size_t)(q - c2 - 1))) == NULL)
        return 0;
    h->user = p;
    h->ulen = (size_t)(c1 - p);
    h->uid = c1 + 1;
    h->uidlen = (size_t)(c2 - c1 - 1);
    h->list = c3 + 1;
    h->end = q;
    return 1;
}

/* Call fn for each entry of buf.  With out, the file without the entries
 * fn returned non-zero for is written there (at most 24 bytes a line more
 * than buf: a count may grow).  Returns the number of such entries. */
static unsigned long
walk(const char *buf, size_t len, cli_history_fn fn, void *ctx, char *out, size_t *out_len)
{
    char e[KDF_SHADOW_MAX_HASH + 1];
    unsigned long dropped = 0;
    size_t o = 0;

    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl != NULL ? (size_t)(nl - buf) : len, next = nl != NULL ? end + 1 : len;
        const char *q = buf + end;
        struct hline h;
        size_t kept_at, kept = 0, before = 0;

        if (q > buf + pos && q[-1] == '\r')
            q--;
        if (!split_line(buf + pos, q, &h)) {
            if (out != NULL) {
                memcpy(out + o, buf + pos, next - pos);
                o += next - pos;
            }
            pos = next;
            continue;
        }
        /* "user:uid:" then the count, written once the kept entries are
         * known. */
        kept_at = o;
        for (const char *p = h.list; p < h.end;) {
            const char *c = memchr(p, ',', (size_t)(h.end - p));
            size_t n = (size_t)((c != NULL ? c : h.end) - p);
            int drop = 0;

            if (n > 0 && n < sizeof e) {
                for (size_t i = 0; i < n; i++)
                    e[i] = p[i] == ';' ? ',' : p[i];
                e[n] = '\0';
                drop = fn(ctx, h.user, h.ulen, e, n);
                kdf_wipe(e, n);
            }
            if (n > 0) {
                before++;
                if (drop)
                    dropped++;
                else if (out != NULL) {
                    /* Room for the head is made below, by a move. */
                    if (kept++ > 0)
                        out[o++] = ',';
                    memcpy(out + o, p, n);
                    o += n;
                }
            }
            p = c != NULL ? c + 1 : h.end;
        }
        if (out != NULL) {
            if (kept == before) {
                /* Unchanged: the line as it was, byte for byte. */
                o = kept_at;
                memcpy(out + o, buf + pos, next - pos);
                o += next - pos;
            } else if (kept == 0) {
                o = kept_at;
            } else {
                char cnt[24];
                int cn = snprintf(cnt, sizeof cnt, "%zu", kept);
                size_t hn = h.ulen + 1 + h.uidlen + 1 + (size_t)cn + 1;

                memmove(out + kept_at + hn, out + kept_at, o - kept_at);
                memcpy(out + kept_at, h.user, h.ulen + 1 + h.uidlen + 1); /* "user:uid:" */
                memcpy(out + kept_at + h.ulen + 1 + h.uidlen + 1, cnt, (size_t)cn);
                out[kept_at + hn - 1] = ':';
                o += hn;
                memcpy(out + o, q, (size_t)(buf + next - q)); /* "\r\n", "\n" or "" */
                o += (size_t)(buf + next - q);
            }
        }
        pos = next;
    }
    if (out_len != NULL)
        *out_len = o;
    return dropped;
}

int
cli_history_each(const char *path, cli_history_fn fn, void *ctx, int *missing)
{
    struct stat st;
    char *buf;
    size_t len;

    if (read_history(path, &buf, &len, NULL, &st) != CLI_OK)
        return CLI_ERR;
    if (missing != NULL)
        *missing = buf == NULL;
    if (buf == NULL)
        return CLI_OK;
    (void)walk(buf, len, fn, ctx, NULL, NULL);
    kdf_wipe(buf, len);
    free(buf);
    return CLI_OK;
}

/* /etc/.pwd.lock for the files lckpwdf(3) covers (the directory is /etc's,
 * by device and inode), else "<path>.lock", *ours set. */
static const char *
lock_of(const char *path, char *buf, size_t cap, int *ours)
{
    const char *slash = strrchr(path, '/'), *base = slash != NULL ? slash + 1 : path;
    char dir[PATH_MAX];
    struct stat d, etc;

    *ours = 0;
    snprintf(dir, sizeof dir, "%.*s", slash == NULL ? 1 : slash == path ? 1 : (int)(slash - path),
             slash == NULL ? "." : path);
    if ((strcmp(base, "shadow") == 0 || strcmp(base, "passwd") == 0) && stat(dir, &d) == 0 &&
        stat("/etc", &etc) == 0 && d.st_dev == etc.st_dev && d.st_ino == etc.st_ino)
        return "/etc/.pwd.lock";
    if ((size_t)snprintf(buf, cap, "%s.lock", path) >= cap)
        return NULL;
    *ours = 1;
    return buf;
}

/* The OFD lock the module's writer takes (write.c lock_acquire()), polled
 * up to LOCK_WAIT_MS; the fd, or -1 (said). */
static int
lock_take(const char *lock_path, int ours)
{
    struct timespec nap = {0, 10 * 1000 * 1000};
    double end = cli_now_ms() + LOCK_WAIT_MS;

    for (;;) {
        struct flock fl;
        struct stat a, b;
        int fd = open(lock_path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
                                     O_NONBLOCK,
                      0600);

        if (fd < 0) {
            cli_error("lock %s: %s", lock_path, strerror(errno));
            return -1;
        }
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
            /* A lock file of ours removed by the holder we waited for is
             * no lock: open it again. */
            if (!ours || (fstat(fd, &a) == 0 && lstat(lock_path, &b) == 0 &&
                          a.st_dev == b.st_dev && a.st_ino == b.st_ino))
                return fd;
        } else if (errno != EAGAIN && errno != EACCES && errno != EINTR) {
            cli_error("lock %s: %s", lock_path, strerror(errno));
            close(fd);
            return -1;
        }
        close(fd);
        if (cli_now_ms() >= end) {
            cli_error("lock %s held by another process", lock_path);
            return -1;
        }
        nanosleep(&nap, NULL);
    }
}

/* The extended attributes of the original (the SELinux label, ACLs) onto
 * the temp; one it already has with the same value is left alone. */
static int
copy_xattrs(int from, int to)
{
    char names[4096], value[4096], have[4096];
    ssize_t len = flistxattr(from, names, sizeof names);

    if (len < 0)
        return errno == ENOTSUP ? 0 : -1;
    for (ssize_t i = 0; i < len;) {
        const char *n = names + i;
        ssize_t v = fgetxattr(from, n, value, sizeof value), h;

        i += (ssize_t)strlen(n) + 1;
        if (v < 0)
            return -1;
        h = fgetxattr(to, n, have, sizeof have);
        if (h == v && memcmp(have, value, (size_t)v) == 0)
            continue;
        if (fsetxattr(to, n, value, (size_t)v, 0) < 0)
            return -1;
    }
    return 0;
}

static int
write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* out[0..n) as path, whose open fd (and stat) are those read. */
static int
replace(const char *path, int fd, const struct stat *st, const char *out, size_t n)
{
    const char *slash = strrchr(path, '/'), *base = slash != NULL ? slash + 1 : path;
    char dir[PATH_MAX], tmp[NAME_MAX + 1];
    struct stat now;
    int dfd, tfd = -1;
    const char *why = NULL;

    snprintf(dir, sizeof dir, "%.*s", slash == NULL ? 1 : slash == path ? 1 : (int)(slash - path),
             slash == NULL ? "." : path);
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        cli_error("%s: %s", dir, strerror(errno));
        return CLI_ERR;
    }
    for (int tries = 0; tries < 16 && tfd < 0; tries++) {
        unsigned char r[8];

        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            break;
        if ((size_t)snprintf(tmp, sizeof tmp, ".%s.kdfhash-%02x%02x%02x%02x%02x%02x", base, r[0],
                             r[1], r[2], r[3], r[4], r[5]) >= sizeof tmp)
            break;
        tfd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                     0600);
        if (tfd < 0 && errno != EEXIST)
            break;
    }
    if (tfd < 0) {
        cli_error("%s: temp file: %s", dir, strerror(errno));
        close(dfd);
        return CLI_ERR;
    }
    /* Owner, mode and attributes before the first byte of data. */
    if (fchown(tfd, st->st_uid, st->st_gid) < 0 || fchmod(tfd, st->st_mode & 07777) < 0)
        why = "owner or mode";
    else if (copy_xattrs(fd, tfd) < 0)
        why = "extended attributes";
    else if (write_all(tfd, out, n) < 0 || fsync(tfd) < 0)
        why = "write";
    if (close(tfd) < 0 && why == NULL)
        why = "close";
    if (why == NULL && (fstatat(dfd, base, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
                        now.st_dev != st->st_dev || now.st_ino != st->st_ino))
        why = "file replaced meanwhile by a writer without the lock";
    if (why == NULL && renameat(dfd, tmp, dfd, base) < 0)
        why = "rename";
    if (why != NULL) {
        cli_error("%s: %s: %s; the file is unchanged", path, why, strerror(errno));
        (void)unlinkat(dfd, tmp, 0);
        close(dfd);
        return CLI_ERR;
    }
    (void)fsync(dfd);
    close(dfd);
    return CLI_OK;
}

int
cli_history_drop(const char *path, const char *lock_for, cli_history_fn drop, void *ctx,
                 unsigned long *dropped)
{
    char lock_buf[PATH_MAX], *buf = NULL, *out = NULL;
    const char *lock_path;
    size_t len = 0, olen = 0, cap;
    struct stat st;
    int ours, lfd, fd = -1, rc = CLI_OK;
    struct flock fl;

    *dropped = 0;
    lock_path = lock_of(lock_for, lock_buf, sizeof lock_buf, &ours);
    if (lock_path == NULL) {
        cli_error("%s: path too long", lock_for);
        return CLI_ERR;
    }
    lfd = lock_take(lock_path, ours);
    if (lfd < 0)
        return CLI_ERR;
    /* Re-read under the lock: what is dropped is what the file holds now. */
    if (read_history(path, &buf, &len, &fd, &st) != CLI_OK)
        rc = CLI_ERR;
    else if (buf != NULL) {
        /* A rewritten line may gain a longer count than it had (an empty
         * one): room for 24 more bytes a line. */
        cap = len + 24;
        for (size_t i = 0; i < len; i++)
            cap += buf[i] == '\n' ? 24 : 0;
        out = malloc(cap);
        if (out == NULL) {
            cli_error("out of memory");
            rc = CLI_ERR;
        } else {
            *dropped = walk(buf, len, drop, ctx, out, &olen);
            if (*dropped > 0)
                rc = replace(path, fd, &st, out, olen);
        }
    }
    if (out != NULL) {
        kdf_wipe(out, cap);
        free(out);
    }
    if (buf != NULL) {
        kdf_wipe(buf, len);
        free(buf);
    }
    if (fd >= 0)
        close(fd);
    if (ours)
        (void)unlink(lock_path);
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    (void)fcntl(lfd, F_OFD_SETLK, &fl);
    close(lfd);
    if (rc != CLI_OK)
        *dropped = 0;
    return rc;
}
