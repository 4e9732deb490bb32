/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xcrypt_only.h - the accounts of the policy's xcrypt-only list and the
 * scheme their entries are kept on: one the system's libxcrypt verifies,
 * because sulogin, rescue media and unix_chkpwd read them without PAM.
 */
#ifndef KDF_PAM_XCRYPT_ONLY_H
#define KDF_PAM_XCRYPT_ONLY_H

#include "kdfhash.h"

/* Is user on pol's xcrypt-only list: by name, or as a member of a listed
 * @group (getgrouplist(3) on the user's passwd entry, primary group
 * included)?  1 yes, 0 no (a user without a passwd entry is in no group),
 * -1 the account database failed while a group was asked about: the caller
 * keeps the entry on libxcrypt, which never strands a rescue shell. */
int kdf_pam_xcrypt_only(const struct kdf_policy *pol, const char *user);

/* Make pol's target the libxcrypt target: the target itself when libxcrypt
 * verifies hashes of it, else yescrypt at libxcrypt's default cost.  Caps
 * and minimums stay.  Returns 1 when the target changed. */
int kdf_pam_xcrypt_target(struct kdf_policy *pol);

#endif /* KDF_PAM_XCRYPT_ONLY_H */
