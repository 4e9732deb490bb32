/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lookup.c - stream a shadow-style file and find one user's field 2.
 *
 * Decisions (issue 5, design.md section 1):
 * - read(2) into our own bounded buffer, never stdio: CVE-2024-10041 was
 *   /etc/shadow bytes left behind in freed stdio buffers; ours is wiped with
 *   explicit_bzero before it is freed, on every path.
 * - The file is streamed, never read whole: memory stays at one line
 *   (KDF_LOOKUP_MAX_LINE) whatever the file size.  A longer line is skipped
 *   to its newline and never matched, so a huge line cannot hide or forge
 *   an entry.
 * - open(O_RDONLY|O_CLOEXEC|O_NOFOLLOW|O_NONBLOCK): the upgrade writer
 *   refuses symlinks (design.md section 6; shadow-utils commonio opens with
 *   O_NOFOLLOW too), so a symlinked shadow= is a configuration error we
 *   report (PAM_AUTHINFO_UNAVAIL) instead of verifying against a file we
 *   could never upgrade.  O_NONBLOCK keeps a FIFO from hanging the login;
 *   anything but a regular file is refused after fstat.
 * - Exact, length-checked match on field 1.  The whole file is always read
 *   (no early exit on the first match), so a duplicated name is detected and
 *   refused (KDF_LOOKUP_DUPLICATE -> PAM_AUTH_ERR): the writer refuses to
 *   upgrade duplicates too, and "first match wins" would let an appended
 *   line shadow nothing but confuse the admin.  Reading to the end also
 *   keeps the time independent of the entry's position in the file.
 * - Lines starting with '#' are comments; lines without ':' never match; a
 *   trailing '\r' (CRLF files) is not part of the last field.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdfhash.h"
#include "lookup.h"

#define BUF_CAP (KDF_LOOKUP_MAX_LINE + 1) /* a full line plus its newline */

int
kdf_lookup_name_ok(const char *user)
{
    size_t n;

    if (user == NULL)
        return 0;
    n = strnlen(user, KDF_LOOKUP_MAX_NAME + 1);
    if (n == 0 || n > KDF_LOOKUP_MAX_NAME)
        return 0;
    if (user[0] == '+' || user[0] == '-')
        return 0;
    return memchr(user, ':', n) == NULL && memchr(user, '\n', n) == NULL;
}

struct scan {
    const char *user;
    size_t user_len;
    struct kdf_lookup_entry *e;
    int matches;
    int bad_field;
};

/* One aging field: plain decimal days, else -1 (unset), as getspnam()
 * reads an empty field. */
static long
aging_field(const char *p, size_t n)
{
    long v = 0;

    if (n == 0 || n > 9)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* Fields 3 to 8 of the line (after field 2, which ends at rest). */
static void
parse_aging(const char *rest, size_t n, struct kdf_aging *a)
{
    long *f[6] = {&a->lastchg, &a->min, &a->max, &a->warn, &a->inact, &a->expire};
    size_t pos = 0;

    for (int i = 0; i < 6; i++)
        *f[i] = -1;
    for (int i = 0; i < 6 && pos < n; i++) {
        const char *c = memchr(rest + pos, ':', n - pos);
        size_t e = c != NULL ? (size_t)(c - rest) : n;

        *f[i] = aging_field(rest + pos, e - pos);
        if (c == NULL)
            break;
        pos = e + 1;
    }
}

static void
consider_line(struct scan *s, const char *line, size_t n)
{
    const char *colon, *f2, *end;
    size_t f2_len;

    if (n > 0 && line[n - 1] == '\r')
        n--;
    if (n == 0 || line[0] == '#')
        return;
    colon = memchr(line, ':', n);
    if (colon == NULL || (size_t)(colon - line) != s->user_len ||
        memcmp(line, s->user, s->user_len) != 0)
        return;

    s->matches++;
    if (s->matches > 1)
        return;
    f2 = colon + 1;
    end = memchr(f2, ':', n - (size_t)(f2 - line));
    f2_len = end != NULL ? (size_t)(end - f2) : n - (size_t)(f2 - line);
    if (f2_len > KDF_LOOKUP_MAX_FIELD || memchr(f2, '\0', f2_len) != NULL) {
        s->bad_field = 1;
        return;
    }
    memcpy(s->e->hash, f2, f2_len);
    s->e->hash[f2_len] = '\0';
    s->e->hash_len = f2_len;
    if (end != NULL)
        parse_aging(end + 1, n - (size_t)(end + 1 - line), &s->e->aging);
    else
        parse_aging("", 0, &s->e->aging);
}

/* Feed every complete line of the file to consider_line(). */
static int
scan_fd(int fd, char *buf, struct scan *s, struct kdf_lookup_entry *e)
{
    size_t len = 0;
    int skipping = 0, eof = 0;

    for (;;) {
        size_t start = 0;
        const char *nl;

        while ((nl = memchr(buf + start, '\n', len - start)) != NULL) {
            size_t line_len = (size_t)(nl - (buf + start));
            if (!skipping)
                consider_line(s, buf + start, line_len);
            skipping = 0;
            start += line_len + 1;
        }
        if (eof) {
            /* A last line without a final newline still counts. */
            if (!skipping && start < len)
                consider_line(s, buf + start, len - start);
            return 0;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
        if (len == BUF_CAP) {
            /* A line longer than the buffer: drop it up to its newline. */
            skipping = 1;
            len = 0;
        }
        for (;;) {
            ssize_t r = read(fd, buf + len, BUF_CAP - len);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                e->err = errno;
                e->what = "read";
                return -1;
            }
            if (r == 0)
                eof = 1;
            len += (size_t)r;
            break;
        }
    }
}

enum kdf_lookup_status
kdf_lookup_user(const char *path, const char *user, struct kdf_lookup_entry *e)
{
    struct scan s;
    struct stat st;
    char *buf;
    int fd, rc;

    memset(e, 0, sizeof *e);
    parse_aging("", 0, &e->aging); /* all unset: 0 would force a change */
    if (!kdf_lookup_name_ok(user))
        return KDF_LOOKUP_NOT_FOUND;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        e->err = errno;
        e->what = "open";
        return KDF_LOOKUP_UNAVAIL;
    }
    if (fstat(fd, &st) != 0) {
        e->err = errno;
        e->what = "fstat";
        close(fd);
        return KDF_LOOKUP_UNAVAIL;
    }
    if (!S_ISREG(st.st_mode)) {
        e->err = 0;
        e->what = "not a regular file";
        close(fd);
        return KDF_LOOKUP_UNAVAIL;
    }
    buf = malloc(BUF_CAP);
    if (buf == NULL) {
        close(fd);
        return KDF_LOOKUP_NOMEM;
    }

    memset(&s, 0, sizeof s);
    s.user = user;
    s.user_len = strlen(user);
    s.e = e;
    rc = scan_fd(fd, buf, &s, e);
    kdf_wipe(buf, BUF_CAP);
    free(buf);
    close(fd);

    if (rc != 0) {
        kdf_wipe(e->hash, sizeof e->hash);
        e->hash_len = 0;
        return KDF_LOOKUP_UNAVAIL;
    }
    if (s.matches == 0)
        return KDF_LOOKUP_NOT_FOUND;
    if (s.matches > 1 || s.bad_field) {
        kdf_wipe(e->hash, sizeof e->hash);
        e->hash_len = 0;
        return s.matches > 1 ? KDF_LOOKUP_DUPLICATE : KDF_LOOKUP_BAD_FIELD;
    }
    return KDF_LOOKUP_FOUND;
}

const char *
kdf_lookup_status_str(enum kdf_lookup_status st)
{
    switch (st) {
    case KDF_LOOKUP_FOUND:
        return "found";
    case KDF_LOOKUP_NOT_FOUND:
        return "no such user";
    case KDF_LOOKUP_UNAVAIL:
        return "file unavailable";
    case KDF_LOOKUP_DUPLICATE:
        return "duplicate entries for the user";
    case KDF_LOOKUP_BAD_FIELD:
        return "password field too long or holding a NUL byte";
    case KDF_LOOKUP_NOMEM:
        return "out of memory";
    }
    return "unknown";
}
