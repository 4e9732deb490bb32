/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lookup.c - stream a shadow-style file and find one user's field 2.
 *
 * - The file is streamed by kdf_shadow_read_fd() (accounts/shadow_read.c,
 *   the reader `kdfhash audit` uses too): read(2) into one bounded buffer,
 *   never stdio (CVE-2024-10041 was /etc/shadow bytes left behind in freed
 *   stdio buffers), wiped before it is freed on every path.  Memory stays
 *   at one line (KDF_SHADOW_MAX_LINE) whatever the file size; a longer line
 *   reads as OVERLONG and is never matched, so a huge line cannot hide or
 *   forge an entry.
 * - open(O_RDONLY|O_CLOEXEC|O_NOFOLLOW|O_NONBLOCK): the upgrade writer
 *   refuses symlinks (shadow-utils commonio opens with O_NOFOLLOW too), so
 *   a symlinked shadow= is a configuration error we report
 *   (PAM_AUTHINFO_UNAVAIL) instead of verifying against a file we could
 *   never upgrade.  O_NONBLOCK keeps a FIFO from hanging the login;
 *   anything but a regular file is refused after fstat.
 * - Which line is the user's is kdf_shadow_split()'s reading, the one the
 *   writer and `kdfhash audit` use too.  The whole file is always read (no
 *   early exit on the first match), so a duplicated name is detected and
 *   refused (KDF_LOOKUP_DUPLICATE -> PAM_AUTH_ERR), as the writer refuses
 *   to rewrite it; reading to the end also keeps the time independent of
 *   the entry's position in the file.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdfhash.h"
#include "lookup.h"
#include "shadow_line.h"

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

static void
aging_unset(struct kdf_aging *a)
{
    a->lastchg = a->min = a->max = a->warn = a->inact = a->expire = -1;
}

/* Fields 3 to 8 of the line; an absent one is unset. */
static void
parse_aging(const struct kdf_shadow_line *l, struct kdf_aging *a)
{
    long *f[6] = {&a->lastchg, &a->min, &a->max, &a->warn, &a->inact, &a->expire};

    for (unsigned i = 0; i < 6; i++)
        *f[i] = 2 + i < l->nfields ? aging_field(l->field[2 + i].ptr, l->field[2 + i].len) : -1;
}

/* One line of the file (kdf_shadow_line_fn). */
static void
consider_line(void *arg, unsigned long lineno, const struct kdf_shadow_line *l)
{
    struct scan *s = arg;
    const struct kdf_span *f2 = &l->field[1];

    (void)lineno;
    if (!kdf_shadow_is(l, s->user, s->user_len))
        return;
    s->matches++;
    if (s->matches > 1)
        return;
    if (!kdf_shadow_field_ok(f2)) {
        s->bad_field = 1;
        return;
    }
    memcpy(s->e->hash, f2->ptr, f2->len);
    s->e->hash[f2->len] = '\0';
    s->e->hash_len = f2->len;
    parse_aging(l, &s->e->aging);
}

enum kdf_lookup_status
kdf_lookup_user(const char *path, const char *user, struct kdf_lookup_entry *e)
{
    struct scan s;
    struct stat st;
    enum kdf_shadow_read rs;
    int fd;

    memset(e, 0, sizeof *e);
    aging_unset(&e->aging); /* 0 would force a change */
    if (!kdf_shadow_name_ok(user))
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

    memset(&s, 0, sizeof s);
    s.user = user;
    s.user_len = strlen(user);
    s.e = e;
    rs = kdf_shadow_read_fd(fd, consider_line, &s);
    if (rs == KDF_SHADOW_READ_ERR) {
        e->err = errno;
        e->what = "read";
    }
    close(fd);

    if (rs == KDF_SHADOW_READ_NOMEM)
        return KDF_LOOKUP_NOMEM;
    if (rs != KDF_SHADOW_READ_OK) {
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
