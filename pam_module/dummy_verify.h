/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dummy_verify.h - the verification that unknown, locked, empty, malformed
 * and over-cap entries cost, shared by the module's login and password
 * change, the verdict (verdict.c) and kdfhash-chkpwd, so that the reply
 * time does not tell such an entry from a wrong password.
 */
#ifndef KDF_PAM_DUMMY_VERIFY_H
#define KDF_PAM_DUMMY_VERIFY_H

#include <stddef.h>

#include "kdfhash.h"

/* One verification of pw against the target's dummy (kdf_dummy_hash())
 * under pol, result ignored: what a refusal without an entry costs.  With
 * a pepper the dummy is keyed with it, as an entry at the target is (the
 * keyring is asked, a TPM key's child runs); when that key cannot be had,
 * the unkeyed dummy runs instead, so the cost stays one verification. */
void kdf_pam_dummy_verify(const struct kdf_policy *pol, const char *pw, size_t pw_len);

#endif /* KDF_PAM_DUMMY_VERIFY_H */
