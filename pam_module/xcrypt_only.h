/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xcrypt_only.h - the accounts of the policy's xcrypt-only list and the
 * scheme their entries are kept on: one the system's libxcrypt verifies,
 * because sulogin, rescue media and unix_chkpwd read them without PAM.
 */
#ifndef KDF_PAM_XCRYPT_ONLY_H
#define KDF_PAM_XCRYPT_ONLY_H

#include <sys/types.h>

#include "kdfhash.h"

/* Is user on a normalised policy list (user names, @group names; the
 * form kdf_policy_set() keeps): by name, or as a member of a listed @group
 * (getgrouplist(3) on the user's passwd entry, primary group included)?
 * 1 yes, 0 no (a user without a passwd entry is in no group), -1 the
 * account database failed while a group was asked about: the caller picks
 * its fail-safe answer. */
int kdf_pam_in_list(const char *list, const char *user);

/* kdf_pam_in_list() of pol's xcrypt-only list; on -1 the caller keeps the
 * entry on libxcrypt, which never strands a rescue shell. */
int kdf_pam_xcrypt_only(const struct kdf_policy *pol, const char *user);

/* Is user one of pol's admins?  As kdf_pam_in_list(), except that a name
 * the account database says it does not have (ENOENT included, which
 * glibc also answers while an NSS service such as sss is down) is no
 * member: the default list names groups (@wheel, @admin) that most hosts
 * lack, and counting that as a failure would make every user an admin. */
int kdf_pam_admin(const struct kdf_policy *pol, const char *user);

/* The admins' rule for keyed hashes: an administrator's entry never depends
 * on a key file, so for one of pol's admins (or one whose groups cannot be
 * read: fail-safe) the pepper is cleared in *pol.  Asked only when pol has
 * a pepper.  kdf_pam_admin()'s answer (1, -1) when it was cleared, else 0;
 * the callers log as fits them. */
int kdf_pam_admin_unkeyed(struct kdf_policy *pol, const char *user);

/* Is uid root, or the uid of one of pol's admins (kdf_pam_admin() of its
 * passwd entry's name)?  1 yes; 0 no, and whenever a lookup fails. */
int kdf_pam_admin_uid(const struct kdf_policy *pol, uid_t uid);

/* Make pol's target the libxcrypt target: the target itself when libxcrypt
 * verifies hashes of it, else yescrypt at libxcrypt's default cost, and
 * hash the password as typed (normalize = no), outside profile = fips.  Caps and minimums stay.
 * Returns 1 when the target changed. */
int kdf_pam_xcrypt_target(struct kdf_policy *pol);

#endif /* KDF_PAM_XCRYPT_ONLY_H */
