/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shadow_line.h - shadow-style lines (shadow(5)): one reading of
 * "name:hash:lastchg:min:max:warn:inactive:expire:reserved" for the PAM
 * module's lookup, its writer and `kdfhash audit`, so that all three see
 * the same entry for a user.
 *
 * Account files are not the core's business (doc/DESIGN.md "Layers of the
 * core"): this is accounts/, a convenience library that pam_module/, cli/
 * and the tests link, above the core (it uses kdfhash.h only).  No
 * allocation: spans point into the caller's buffer.
 */
#ifndef KDF_SHADOW_LINE_H
#define KDF_SHADOW_LINE_H

#include <stddef.h>

#include "kdfhash.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A line longer than this (without its '\n'; a CR counts) is never an entry:
 * a reader with a bounded buffer cannot see it whole. */
#define KDF_SHADOW_MAX_LINE ((size_t)65536)
/* Longest user name looked up or written. */
#define KDF_SHADOW_MAX_NAME ((size_t)256)
/* Longest field 2 read or written (KDF_MAX_HASH_STR is far below). */
#define KDF_SHADOW_MAX_HASH ((size_t)1024)
/* name, hash, lastchg, min, max, warn, inactive, expire, reserved */
#define KDF_SHADOW_FIELDS 9

enum kdf_shadow_kind {
    KDF_SHADOW_ENTRY = 0, /* holds a ':': field 1 may name an account */
    KDF_SHADOW_BLANK,     /* nothing before the line end */
    KDF_SHADOW_COMMENT,   /* first byte '#' */
    KDF_SHADOW_NO_COLON,  /* text without any ':' */
    KDF_SHADOW_OVERLONG   /* over KDF_SHADOW_MAX_LINE */
};

struct kdf_shadow_line {
    enum kdf_shadow_kind kind;
    /* The line without its '\n' and without one '\r' just before it (CRLF
     * files, or a last line ending in CR): the CR is never part of a field. */
    struct kdf_span text;
    /* ENTRY: fields 1 to nfields split at ':' (2 <= nfields <= 9); field 9
     * runs to the line end, further ':' included.  OVERLONG: field 1 only
     * (nfields 1) when a ':' comes within the bound, for reports.  Absent
     * fields are empty spans at the end of text. */
    struct kdf_span field[KDF_SHADOW_FIELDS];
    unsigned nfields;
};

/* Split one line (without its '\n'; len may exceed KDF_SHADOW_MAX_LINE, e.g.
 * a reader's cut prefix of a longer line, which then is OVERLONG). */
void kdf_shadow_split(const char *line, size_t len, struct kdf_shadow_line *l);
/* Iterate over the lines of buf[0, len): *pos starts at 0; returns 1 and
 * fills l with the line at *pos (moving *pos past its '\n'), 0 at the end.
 * A last line without '\n' is a line; a final '\n' starts none. */
int kdf_shadow_next(const char *buf, size_t len, size_t *pos, struct kdf_shadow_line *l);
/* Is l the entry of this user name (an ENTRY whose field 1 is exactly it)?
 * Meant for names that passed kdf_shadow_name_ok(). */
int kdf_shadow_is(const struct kdf_shadow_line *l, const char *name, size_t name_len);
/* How many lines of buf are the entry of name; *first (may be NULL) gets
 * the first of them.  Anything but 1 means: no entry to read or rewrite. */
size_t kdf_shadow_find(const char *buf, size_t len, const char *name, size_t name_len,
                       struct kdf_shadow_line *first);

/* A user name we look up or rewrite: 1 to KDF_SHADOW_MAX_NAME bytes, no
 * ':', '\n', '\r' or NUL (field and line injection), not starting with '+'
 * or '-' (NIS compat lines) or '#' (comments).  Anything else is an
 * unknown user.  The _span form checks a field 1 read from a file. */
int kdf_shadow_name_ok(const char *name);
int kdf_shadow_name_span_ok(const char *p, size_t len);
/* A new hash we may write into field 2: 1 to KDF_SHADOW_MAX_HASH bytes of
 * printable ASCII without space or ':' (so no line break, CR or NUL), not
 * starting with '!' or '*' (lock markers are the admin's). */
int kdf_shadow_hash_ok(const char *hash);
/* A field 2 read from a file that may be handed on as a hash: at most
 * KDF_SHADOW_MAX_HASH bytes and no NUL (a C string of it would end early;
 * no hash string we accept holds one).  An entry whose field 2 fails this
 * is refused without being parsed, by the lookup and the audit alike. */
int kdf_shadow_field_ok(const struct kdf_span *f);

/* ---- streaming a file (shadow_read.c) ---- */

/* Called for every line of the file, in order; lineno counts from 1 and l
 * is the line as kdf_shadow_split() reads it.  A line over
 * KDF_SHADOW_MAX_LINE comes once, cut to its first KDF_SHADOW_MAX_LINE + 1
 * bytes (so OVERLONG, with field 1 when a ':' comes within the bound); a
 * last line without '\n' is a line. */
typedef void kdf_shadow_line_fn(void *arg, unsigned long lineno,
                                const struct kdf_shadow_line *l);

enum kdf_shadow_read {
    KDF_SHADOW_READ_OK = 0,
    KDF_SHADOW_READ_ERR,  /* read(2) failed: errno says why */
    KDF_SHADOW_READ_NOMEM /* no line buffer: nothing was read */
};

/* Stream fd to its end and hand every line to fn.  read(2) only, into one
 * buffer of KDF_SHADOW_MAX_LINE + 1 bytes whatever the file's size, wiped
 * before it is freed on every path; EINTR is retried.  fd stays open.  On
 * KDF_SHADOW_READ_ERR fn may have seen the lines before the failure. */
enum kdf_shadow_read kdf_shadow_read_fd(int fd, kdf_shadow_line_fn *fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif /* KDF_SHADOW_LINE_H */
