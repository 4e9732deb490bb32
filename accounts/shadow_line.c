/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shadow_line.c - the one reading of a shadow-style line (shadow(5)) that
 * the PAM module's lookup, its writer and `kdfhash audit` share, and the
 * checks of a user name and of a new hash before either meets such a file
 * (shadow_read.c streams a file through it).
 *
 * A user's entry is the line whose field 1 is exactly the name.  What is
 * never an entry, for anyone: a comment ('#' first), a line without ':',
 * and a line over KDF_SHADOW_MAX_LINE, which a bounded reader cannot see
 * whole.  One '\r' before the '\n' belongs to the line end.  Any reader
 * that takes these rules finds the same line the writer rewrites.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "shadow_line.h"

/* Fields 1 to 8 end at the next ':'; field 9 runs to the line end. */
static void
split_fields(struct kdf_shadow_line *l, const char *p, size_t n)
{
    size_t pos = 0;

    l->nfields = 0;
    for (;;) {
        const char *c = l->nfields + 1 < KDF_SHADOW_FIELDS ? memchr(p + pos, ':', n - pos)
                                                         : NULL;
        size_t e = c != NULL ? (size_t)(c - p) : n;

        l->field[l->nfields].ptr = p + pos;
        l->field[l->nfields].len = e - pos;
        l->nfields++;
        if (c == NULL)
            break;
        pos = e + 1;
    }
}

void
kdf_shadow_split(const char *line, size_t len, struct kdf_shadow_line *l)
{
    size_t n = len;

    if (n > 0 && line[n - 1] == '\r')
        n--;
    l->text.ptr = line;
    l->text.len = n;
    l->nfields = 0;
    for (unsigned i = 0; i < KDF_SHADOW_FIELDS; i++) {
        l->field[i].ptr = line + n;
        l->field[i].len = 0;
    }
    if (len > KDF_SHADOW_MAX_LINE) {
        const char *c = memchr(line, ':', KDF_SHADOW_MAX_LINE);

        l->kind = KDF_SHADOW_OVERLONG;
        if (c != NULL) {
            l->field[0].ptr = line;
            l->field[0].len = (size_t)(c - line);
            l->nfields = 1;
        }
        return;
    }
    if (n == 0) {
        l->kind = KDF_SHADOW_BLANK;
        return;
    }
    if (line[0] == '#') {
        l->kind = KDF_SHADOW_COMMENT;
        return;
    }
    if (memchr(line, ':', n) == NULL) {
        l->kind = KDF_SHADOW_NO_COLON;
        return;
    }
    l->kind = KDF_SHADOW_ENTRY;
    split_fields(l, line, n);
}

int
kdf_shadow_next(const char *buf, size_t len, size_t *pos, struct kdf_shadow_line *l)
{
    const char *start, *nl;
    size_t n;

    if (*pos >= len)
        return 0;
    start = buf + *pos;
    nl = memchr(start, '\n', len - *pos);
    n = nl != NULL ? (size_t)(nl - start) : len - *pos;
    kdf_shadow_split(start, n, l);
    *pos += n + (nl != NULL);
    return 1;
}

int
kdf_shadow_is(const struct kdf_shadow_line *l, const char *name, size_t name_len)
{
    return l->kind == KDF_SHADOW_ENTRY && l->field[0].len == name_len &&
           memcmp(l->field[0].ptr, name, name_len) == 0;
}

size_t
kdf_shadow_find(const char *buf, size_t len, const char *name, size_t name_len,
                struct kdf_shadow_line *first)
{
    struct kdf_shadow_line l;
    size_t pos = 0, count = 0;

    while (kdf_shadow_next(buf, len, &pos, &l)) {
        if (!kdf_shadow_is(&l, name, name_len))
            continue;
        if (count++ == 0 && first != NULL)
            *first = l;
    }
    return count;
}

int
kdf_shadow_name_span_ok(const char *p, size_t len)
{
    if (p == NULL || len == 0 || len > KDF_SHADOW_MAX_NAME)
        return 0;
    if (p[0] == '+' || p[0] == '-' || p[0] == '#')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (p[i] == ':' || p[i] == '\n' || p[i] == '\r' || p[i] == '\0')
            return 0;
    return 1;
}

int
kdf_shadow_name_ok(const char *name)
{
    if (name == NULL)
        return 0;
    return kdf_shadow_name_span_ok(name, strnlen(name, KDF_SHADOW_MAX_NAME + 1));
}

int
kdf_shadow_hash_ok(const char *hash)
{
    size_t n;

    if (hash == NULL)
        return 0;
    n = strnlen(hash, KDF_SHADOW_MAX_HASH + 1);
    if (n == 0 || n > KDF_SHADOW_MAX_HASH || hash[0] == '!' || hash[0] == '*')
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)hash[i];
        if (c <= 0x20 || c >= 0x7f || c == ':')
            return 0;
    }
    return 1;
}

int
kdf_shadow_field_ok(const struct kdf_span *f)
{
    return f->len <= KDF_SHADOW_MAX_HASH && memchr(f->ptr, '\0', f->len) == NULL;
}
