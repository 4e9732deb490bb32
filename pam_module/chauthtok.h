/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chauthtok.h - the password group of pam_kdfhash (chauthtok.c).
 */
#ifndef KDF_PAM_CHAUTHTOK_H
#define KDF_PAM_CHAUTHTOK_H

#include <stddef.h>

#include <security/pam_modules.h>

#include "kdfhash.h"
#include "options.h"

/* pam_sm_chauthtok() after the options, the policy and the user name. */
int kdf_pam_chauthtok(pam_handle_t *pamh, int flags, const struct kdf_pam_options *o,
                      const struct kdf_policy *pol, const char *user);

#endif /* KDF_PAM_CHAUTHTOK_H */
