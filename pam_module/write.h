/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write.h - the one writer of the module's files (write.c, doc/DESIGN.md
 * "Writing a new hash: the file writer and the exec hook"): the atomic,
 * loss-free rewrite of one line of a shadow-style file, for the upgrade
 * at login and for a password change, and of the password history, and
 * the making of the new hash it is given.  No PAM dependency.  Its status is also the exec hook's (upgrade.h).
 */
#ifndef KDF_PAM_WRITE_H
#define KDF_PAM_WRITE_H

#include <stddef.h>

#include "kdfhash.h"

/*
 * The one way the module makes the hash it writes, for the upgrade at
 * login and a password change: pw at pol's target, into out[cap]: hashed,
 * parsed back and verified against pw (a miscompiled or broken kernel must never write an
 * entry the password does not open), and fit for field 2 of a
 * colon-separated line (not empty, no lock marker, no ':' or line break).
 * KDF_OK, or the failing status; *why gets a short static reason.
 */
enum kdf_status kdf_pam_new_hash(const struct kdf_policy *pol, const char *pw,
                                 size_t pw_len, char *out, size_t cap, const char **why);

enum kdf_write_status {
    KDF_WRITE_OK = 0,     /* field 2 of the user's line now holds new_hash */
    KDF_WRITE_CAS_FAILED, /* the stored hash is no longer old_hash: nothing written */
    KDF_WRITE_NOT_FOUND,  /* no (unique) line for the user: nothing written */
    KDF_WRITE_LOCK_BUSY,  /* the lock was not had within the bounded wait */
    KDF_WRITE_REFUSED,    /* symlink, nlink > 1, not a regular file, bad new hash */
    KDF_WRITE_IO_ERROR,   /* any syscall failure; the file is unchanged */
    KDF_WRITE_HOOK_FAILED /* exec hook: non-zero exit, signal or timeout */
};
const char *kdf_write_status_str(enum kdf_write_status st);
/* Atomic, loss-free rewrite of field 2 of user's line in path, the
 * upgrade at login (doc/DESIGN.md "Writing a new hash: the file writer and
 * the exec hook").  lock_path NULL:
 * "/etc/.pwd.lock" when path is /etc/shadow (or /etc/passwd, /etc/group,
 * /etc/gshadow) by whatever spelling, else "<path>.lock", removed after
 * use.  lock_wait_ms bounds the wait for the lock.  err gets a short
 * reason without secrets. */
enum kdf_write_status kdf_write_hash(const char *path, const char *lock_path,
                                     const char *user, const char *old_hash,
                                     const char *new_hash, unsigned lock_wait_ms,
                                     char *err, size_t err_cap);
/* The same writer for a password change: field 2 becomes new_hash and,
 * when lastchg >= 0 and the line has a field 3, field 3 becomes lastchg
 * (days since the epoch), in one rename under the same lock and
 * compare-and-swap.  Every write also refreshes "PATH-" with the previous
 * content, as shadow-utils does. */
enum kdf_write_status kdf_write_entry(const char *path, const char *lock_path,
                                      const char *user, const char *old_hash,
                                      const char *new_hash, long lastchg,
                                      unsigned lock_wait_ms, char *err, size_t err_cap);
/* Add old_hash to user's line of the password history file path (pam_unix's
 * and pam_pwhistory's /etc/security/opasswd, "user:uid:count:h1,h2,..."),
 * keeping the last howmany entries (howmany 0: the line is dropped), by
 * pam_unix's rules; a user without a line gets "user:uid:1:old_hash".
 * Under the lock of the shadow-style file lock_for (as kdf_write_entry()
 * takes it), by an atomic rewrite that copies every other line as it is;
 * a missing file is created 0600.  A ',' of old_hash is stored as ';'. */
enum kdf_write_status kdf_write_opasswd(const char *path, const char *lock_for,
                                        const char *user, unsigned long uid,
                                        const char *old_hash, unsigned howmany,
                                        unsigned lock_wait_ms, char *err, size_t err_cap);

/* One entry of a batch (kdf_write_hashes(), kdf_write_opasswd_replace()):
 * user's old_hash becomes new_hash (NULL: dropped, history only); st is
 * set to what became of it: KDF_WRITE_OK, KDF_WRITE_CAS_FAILED (the
 * stored hash is no longer old_hash: left as it is) or
 * KDF_WRITE_NOT_FOUND. */
struct kdf_write_change {
    const char *user;
    const char *old_hash;
    const char *new_hash;
    enum kdf_write_status st;
};
/* What a batch rewrite leaves in "PATH-": the content before it, as
 * shadow-utils and kdf_write_entry() do (PREVIOUS); the content after it
 * (NEW), so that no hash the batch replaced lives on in the backup; or
 * nothing is written to it (NONE). */
enum kdf_write_backup { KDF_BACKUP_PREVIOUS = 0, KDF_BACKUP_NEW, KDF_BACKUP_NONE };
/* kdf_write_hash() for n entries at once: one lock, one atomic rewrite
 * (temporary file, fsync, rename, fsync of the directory), each entry
 * compared and swapped on its own (ch[i].st).  A new hash keeps exactly
 * the old one's '!' lock markers: a batch never locks or unlocks.  With
 * KDF_BACKUP_NEW, "PATH-" is written after the rename; a failure there is
 * KDF_WRITE_OK with a warning in err.  The lock is held for the
 * rewrite only, never while hashes are made.  KDF_WRITE_OK when the file
 * was rewritten or nothing had to change; an error status (lock, I/O,
 * refusal) leaves the file as it was and every ch[i].st unset. */
enum kdf_write_status kdf_write_hashes(const char *path, const char *lock_path,
                                       struct kdf_write_change *ch, size_t n,
                                       enum kdf_write_backup backup, unsigned lock_wait_ms,
                                       char *err, size_t err_cap);
/* The same for the password history file path (opasswd, under the lock
 * of lock_for as kdf_write_opasswd() takes it): in user's line, the
 * history entry old_hash becomes new_hash, or is dropped when new_hash is
 * NULL (the count field follows).  Every other byte is copied as it is. */
enum kdf_write_status kdf_write_opasswd_replace(const char *path, const char *lock_for,
                                                struct kdf_write_change *ch, size_t n,
                                                unsigned lock_wait_ms, char *err,
                                                size_t err_cap);

/* Add, replace or delete user's whole line of a root-only file of
 * "user:..." lines, the offline cache (cache.c): line (without its '\n')
 * NULL deletes every line of user; else the first line of user becomes
 * line, any further line of user is dropped, and line is appended when
 * there was none.  line must be user's ("user:" + a field 2 that
 * kdf_shadow_hash_ok() takes + optional ":..." fields), one line of
 * printable ASCII.  Under "<path>.lock" (removed after use), by the same
 * atomic rewrite, every other byte copied as it is; a missing file is
 * created 0600.  No "PATH-" backup: a dropped line must not live on in
 * one.  KDF_WRITE_OK also when nothing had to change (then no rewrite). */
enum kdf_write_status kdf_write_line(const char *path, const char *user, const char *line,
                                     unsigned lock_wait_ms, char *err, size_t err_cap);

#endif /* KDF_PAM_WRITE_H */
