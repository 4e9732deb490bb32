/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policy_load.h - the policy that the module arguments select
 * (policy_load.c), its keyring, and the target choices that depend on it.
 */
#ifndef KDF_PAM_POLICY_LOAD_H
#define KDF_PAM_POLICY_LOAD_H

#include "kdfhash.h"
#include "options.h"

/* The log line's tail of every degraded run. */
#define KDF_PAM_DEGRADED "verifying with the built-in defaults; no upgrade"

/*
 * The effective policy: defaults, then the conf file (a missing default conf
 * is fine, a missing explicit one is not), then the overrides in order.
 * Returns KDF_OK, or the failing status with a reason in err (no secrets:
 * conf paths, line numbers and key names only) and pol reset to the
 * built-in defaults, kdf_policy_default(): the degraded mode, in which the
 * caller verifies but never upgrades.  A bad argument (o->n_bad) is
 * degraded too: the defaults, KDF_RANGE and its reason in err.
 */
enum kdf_status kdf_pam_load_policy(const struct kdf_pam_options *o,
                                    struct kdf_policy *pol, char *err, size_t err_cap);

/* The target of password changes while degraded: yescrypt at libxcrypt's
 * default cost, the scheme pam_unix, libxcrypt and this module all read,
 * needing no policy to be right (pol keeps its caps). */
void kdf_pam_degraded_target(struct kdf_policy *pol);

/* Give pol the keyring of o->keystore over o->keys_dir (o must outlive the
 * calls that use pol). */
void kdf_pam_attach_keys(struct kdf_pam_options *o, struct kdf_policy *pol);

/* After KDF_NOKEY: "key ID: DIR/ID: why", or a fixed text when no key was
 * read (no keyring). */
const char *kdf_pam_key_error(const struct kdf_pam_options *o);

/* Does the system's libxcrypt (so pam_unix, sulogin, unix_chkpwd) verify
 * hashes of pol's target?  crypt(3) targets and bcrypt: yes; Argon2,
 * PBKDF2, passlib's scrypt: no.  Asked of a hash of the target, by
 * libxcrypt's own crypt_checksalt(). */
int kdf_pam_xcrypt_reads_target(const struct kdf_policy *pol);

#endif /* KDF_PAM_POLICY_LOAD_H */
