/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * new_hash.h - the one way the module makes a new hash (new_hash.c),
 * shared by the upgrade at login and by password changes.
 */
#ifndef KDF_PAM_NEW_HASH_H
#define KDF_PAM_NEW_HASH_H

#include <stddef.h>

#include "kdfhash.h"

/*
 * A new hash of pw at pol's target, into out[cap]: hashed, parsed back and
 * verified against pw (a miscompiled or broken kernel must never write an
 * entry the password does not open), and fit for field 2 of a
 * colon-separated line (not empty, no lock marker, no ':' or line break).
 * KDF_OK, or the failing status; *why gets a short static reason.
 */
enum kdf_status kdf_pam_new_hash(const struct kdf_policy *pol, const char *pw,
                                 size_t pw_len, char *out, size_t cap, const char **why);

#endif /* KDF_PAM_NEW_HASH_H */
