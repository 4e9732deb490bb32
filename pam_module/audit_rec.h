/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_rec.h - one Linux audit record for each write of a password entry
 * that the module (an upgrade at login, a password change, the exec hook)
 * or `kdfhash wrap` makes, so that a watch on /etc/shadow sees each of its
 * writes explained (pam_kdfhash(8), AUDIT RECORDS).  Written through
 * libaudit once the write's outcome is known; without libaudit, on a
 * kernel without audit or in a process that may not write records,
 * nothing, silently and at once.  Scheme names only, never a hash.  No
 * PAM dependency (the CLI uses it too).
 */
#ifndef KDF_PAM_AUDIT_REC_H
#define KDF_PAM_AUDIT_REC_H

#include <stddef.h>

#include "write.h"

/* The op= of the record, and its type: USER_CHAUTHTOK for a password
 * change (as libpam's and passwd's own records), USER_MGMT for the rest,
 * which changes how a password is stored, never which password it is. */
enum kdf_audit_op {
    KDF_AUDIT_UPGRADE,     /* kdfhash-upgrade: a login rewrote the entry */
    KDF_AUDIT_MIGRATE,     /* kdfhash-migrate: the same to a weaker scheme (migrate = yes) */
    KDF_AUDIT_CHAUTHTOK,   /* kdfhash-chauthtok: a password change */
    KDF_AUDIT_WRAP,        /* kdfhash-wrap: kdfhash wrap, one entry */
    KDF_AUDIT_WRAP_HISTORY /* kdfhash-wrap-history: one entry of the history file */
};

struct kdf_audit_rec {
    enum kdf_audit_op op;
    const char *user;
    const char *old_scheme; /* kdf_hash_scheme_name(), kdf_audit_scheme_of() */
    const char *new_scheme; /* kdf_target_name(); NULL: none (a history entry dropped) */
    const char *reason;     /* why it was rewritten (kdf_rehash_reason()); NULL: none */
    const char *rule;       /* the rule that chose the target ("xcrypt-only"); NULL */
    const char *via;        /* "hook": the exec hook stored it; NULL: the file writer */
    const char *history;    /* "added": the old entry joined the history; NULL */
    const char *rhost;      /* PAM_RHOST; NULL: none */
    const char *tty;        /* PAM_TTY; NULL: libaudit looks at fds 0-2 */
};

/* A descriptor for kdf_audit_log(); -1: no records here (no libaudit, no
 * audit in the kernel); -2: err says why not.  Either is a descriptor
 * that kdf_audit_log() and kdf_audit_close() take and ignore. */
int kdf_audit_open(char *err, size_t err_cap);
/* One record of r for a write that ended in st (res=success for
 * KDF_WRITE_OK, else res=failed with error=...).  0 when written or when
 * fd is -1 or nobody may be told (no audit daemon's kernel, no
 * CAP_AUDIT_WRITE); -1 with err set otherwise. */
int kdf_audit_log(int fd, const struct kdf_audit_rec *r, enum kdf_write_status st, char *err,
                  size_t err_cap);
void kdf_audit_close(int fd);
/* open, log, close: the module's one record per write. */
int kdf_audit_once(const struct kdf_audit_rec *r, enum kdf_write_status st, char *err,
                   size_t err_cap);

/* The scheme name of a stored field (kdf_hash_scheme_name()) for a
 * record: that of the hash behind any lock markers ('!'), "locked" for a
 * marker alone, "empty", or "unknown" for what does not parse. */
const char *kdf_audit_scheme_of(const char *field);

#endif /* KDF_PAM_AUDIT_REC_H */
