/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chauthtok.h - the password group of pam_kdfhash (chauthtok.c), and the
 * one way the module makes a new hash, shared with the upgrade at login.
 */
#ifndef KDF_PAM_CHAUTHTOK_H
#define KDF_PAM_CHAUTHTOK_H

#include <stddef.h>

#include <security/pam_modules.h>

#include "kdfhash.h"
#include "options.h"

/*
 * A new hash of pw at pol's target, into out[cap]: hashed, parsed back and
 * verified against pw (a miscompiled or broken kernel must never write an
 * entry the password does not open), and fit for field 2 of a
 * colon-separated line (not empty, no lock marker, no ':' or line break).
 * KDF_OK, or the failing status; *why gets a short static reason.
 */
enum kdf_status kdf_pam_new_hash(const struct kdf_policy *pol, const char *pw,
                                 size_t pw_len, char *out, size_t cap, const char **why);

/* pam_sm_chauthtok() after the options, the policy and the user name. */
int kdf_pam_chauthtok(pam_handle_t *pamh, int flags, const struct kdf_pam_options *o,
                      const struct kdf_policy *pol, const char *user);

#endif /* KDF_PAM_CHAUTHTOK_H */
