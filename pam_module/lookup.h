/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lookup.h - find one user's stored hash in a shadow-style file.
 */
#ifndef KDF_PAM_LOOKUP_H
#define KDF_PAM_LOOKUP_H

#include <stddef.h>

#include "kdfhash.h"
#include "shadow_line.h"

/* The bounds of the shared shadow-line reading (shadow_line.h): a longer line
 * is skipped, never matched; a longer field 2 is KDF_LOOKUP_BAD_FIELD (no
 * hash string we accept is anywhere near it); a longer name is unknown. */
#define KDF_LOOKUP_MAX_LINE KDF_SHADOW_MAX_LINE
#define KDF_LOOKUP_MAX_FIELD KDF_SHADOW_MAX_HASH
#define KDF_LOOKUP_MAX_NAME KDF_SHADOW_MAX_NAME

enum kdf_lookup_status {
    KDF_LOOKUP_FOUND = 0, /* e->hash holds field 2 of the user's line */
    KDF_LOOKUP_NOT_FOUND, /* no line for that name */
    KDF_LOOKUP_UNAVAIL,   /* the file cannot be opened or read (e->err) */
    KDF_LOOKUP_DUPLICATE, /* two or more lines for that name */
    KDF_LOOKUP_BAD_FIELD, /* field 2 too long or holding a NUL byte */
    KDF_LOOKUP_NOMEM
};

/* The aging fields of shadow(5), in days; -1 where the field is empty (or
 * not a plain decimal number, which shadow-utils also reads as "unset"). */
struct kdf_aging {
    long lastchg; /* field 3: day of the last change; 0 forces a change */
    long min;     /* field 4: days before a change is allowed */
    long max;     /* field 5: days after which a change is required */
    long warn;    /* field 6 */
    long inact;   /* field 7: days after max during which a change still works */
    long expire;  /* field 8: day the account expires */
};

struct kdf_lookup_entry {
    char hash[KDF_LOOKUP_MAX_FIELD + 1]; /* NUL-terminated copy of field 2 */
    size_t hash_len;
    struct kdf_aging aging;
    int err;          /* errno of the failure for KDF_LOOKUP_UNAVAIL */
    const char *what; /* "open", "read", "not a regular file", ... */
};

/* Stream path line by line (bounded buffer, read(2) only, wiped) and copy
 * field 2 of user's entry as kdf_shadow_split() reads it.  A name that
 * fails kdf_shadow_name_ok() is never found.  The caller wipes e->hash
 * when done. */
enum kdf_lookup_status kdf_lookup_user(const char *path, const char *user,
                                       struct kdf_lookup_entry *e);

/* Short static name of a status, for logs. */
const char *kdf_lookup_status_str(enum kdf_lookup_status st);

#endif /* KDF_PAM_LOOKUP_H */
