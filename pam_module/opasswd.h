/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * opasswd.h - reading the password history that pam_unix's and
 * pam_pwhistory's remember=N keep in /etc/security/opasswd (the writer is
 * kdf_write_opasswd() in write.h).
 */
#ifndef KDF_PAM_OPASSWD_H
#define KDF_PAM_OPASSWD_H

#include <stddef.h>

#include "kdfhash.h"

enum kdf_opasswd_result {
    KDF_OPW_NEW = 0, /* pw matches no stored entry (or there is no history) */
    KDF_OPW_REUSED,  /* pw verifies against one of the user's stored entries */
    KDF_OPW_ERROR,   /* the file exists but cannot be read: err says why */
    KDF_OPW_NOKEY    /* an entry is keyed and its key cannot be had (missing or
                      * refused), so pw may be that one: err names the file and
                      * the key ID; the keyring's own record (the key file and
                      * why) is the caller's to add */
};

/*
 * Check pw against every entry of user's line of the history file path:
 * the module's own schemes through the core, crypt(3) ones (pam_unix's
 * $1$ entries, pam_pwhistory's copies of the shadow field) through
 * libxcrypt, all under pol's caps.  pw NULL: only count the entries.
 * *n_entries (may be NULL) gets the number of entries on the user's line.
 * A missing file is no history (KDF_OPW_NEW); any other failure to read
 * it is KDF_OPW_ERROR, which pam_unix also refuses the change for.  The
 * entries are checked in order until one matches (KDF_OPW_REUSED) or one
 * cannot be verified for its key (KDF_OPW_NOKEY).
 */
enum kdf_opasswd_result kdf_opasswd_check(const char *path, const char *user,
                                          const struct kdf_policy *pol, const char *pw,
                                          unsigned *n_entries, char *err, size_t err_cap);

#endif /* KDF_PAM_OPASSWD_H */
