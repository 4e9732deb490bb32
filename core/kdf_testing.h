/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf_testing.h - entry points that exist for the tests and bench/ only:
 * forcing a variant row, another memory-gate lock file, raw Argon2 with a
 * secret and associated data.  Not part of the product's API: the PAM
 * module exports only pam_sm_* (pam_kdfhash.map), and product code
 * (pam_module/, cli/) may not include this header.
 */
#ifndef KDF_TESTING_H
#define KDF_TESTING_H

#if !defined(KDF_TEST_HOOKS) && !defined(KDF_CORE_BUILD)
#error "kdf_testing.h is for tests and bench/ (build with -DKDF_TEST_HOOKS)"
#endif

#include <sys/types.h>

#include "kdfhash.h"

/* Test hook: the owner kdf_policy_load() trusts, instead of root, so that
 * a test run by an ordinary user can load the files it writes. */
void kdf_policy_test_owner(uid_t uid);

/* Test hook: pretend the CPU has only the features in mask (ANDed with the
 * real ones) and re-pick every primitive.  Not exported from the module. */
void kdf_dispatch_force_mask(uint32_t mask);
/* Test hook: use exactly row `index` of p's table (must be usable). */
enum kdf_status kdf_dispatch_force_index(enum kdf_prim p, size_t index);

/* Raw Argon2 (RFC 9106) with optional secret (pepper) and associated data.
 * type is KDF_SCHEME_ARGON2D/I/ID.  work may be NULL (mapped internally). */
struct kdf_argon2_params {
    enum kdf_scheme type;
    uint32_t version, t_cost, m_kib, lanes, threads; /* threads 0: automatic */
    const uint8_t *salt;
    size_t salt_len;
    const uint8_t *secret;
    size_t secret_len;
    const uint8_t *ad;
    size_t ad_len;
};
enum kdf_status kdf_argon2_raw(const struct kdf_argon2_params *p, const uint8_t *pw,
                               size_t pw_len, uint8_t *out, size_t out_len, void *work,
                               size_t work_sz) KDF_WUR;

#endif /* KDF_TESTING_H */
