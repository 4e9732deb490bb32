/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fips_gate.h - profile = fips in the PAM module (fips_gate.c).
 */
#ifndef KDF_PAM_FIPS_GATE_H
#define KDF_PAM_FIPS_GATE_H

#include <security/pam_modules.h>

#include "kdfhash.h"

/* Under profile = fips, run the self-tests once per process: 0 when they
 * pass, else PAM_IGNORE after one LOG_CRIT line (the module refuses its
 * algorithms and the next module decides: never a lockout).  Without the
 * profile, one LOG_NOTICE per process when the file fips_enabled (the
 * kernel's switch; NULL: not asked) reads 1; then 0. */
int kdf_pam_fips_gate(pam_handle_t *pamh, const struct kdf_policy *pol,
                      const char *fips_enabled);

#endif /* KDF_PAM_FIPS_GATE_H */
