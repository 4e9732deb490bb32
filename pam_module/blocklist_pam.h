/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blocklist_pam.h - the compromised-password list in the PAM module
 * (blocklist_pam.c): refused at a change, a change required after a login.
 */
#ifndef KDF_PAM_BLOCKLIST_H
#define KDF_PAM_BLOCKLIST_H

#include <stddef.h>
#include <security/pam_modules.h>

#include "kdfhash.h"

/* pam_pwquality's words for a refused password (its "BAD PASSWORD: "). */
#define KDF_PAM_BLOCKLIST_LISTED                                                         \
    "BAD PASSWORD: it appears in a list of compromised passwords; choose another one"

/* At a password change, new_pw against pol->blocklist: NULL when it may be
 * used, else the remark the change is refused with.  Root (iamroot) is
 * warned (unless quiet) and may go on, as pam_pwquality without
 * enforce_for_root.  A list that cannot be used is logged LOG_ERR and the
 * change allowed, or refused under blocklist-missing = refuse (root's
 * change still goes through). */
const char *kdf_pam_blocklist_refuse(pam_handle_t *pamh, const struct kdf_policy *pol,
                                     const char *user, const char *new_pw, int iamroot,
                                     int quiet);

/* After a successful login only (it never changes the result): when pw is
 * listed, log LOG_NOTICE and mark the handle, so that the account group
 * asks for a change.  A list that cannot be used is logged LOG_ERR. */
void kdf_pam_blocklist_login(pam_handle_t *pamh, const struct kdf_policy *pol,
                             const char *user, const char *pw, size_t len);

/* The account group: 1 when this handle's login was marked (the user is
 * told, unless quiet), else 0. */
int kdf_pam_blocklist_marked(pam_handle_t *pamh, int quiet);

#endif /* KDF_PAM_BLOCKLIST_H */
