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

#include "kdfhash.h"
#include "kdfhash_cpu.h"

/* Test hook: pretend the CPU has only the features in mask (ANDed with the
 * real ones) and re-pick every primitive.  Not exported from the module. */
void kdf_dispatch_force_mask(uint32_t mask);
/* Test hook: use exactly row `index` of p's table (must be usable). */
enum kdf_status kdf_dispatch_force_index(enum kdf_prim p, size_t index);

/* Raw Argon2 (RFC 9106) with optional secret (pepper) and associated data,
 * on the arguments the core's schemes fill (struct kdf_argon2_args: include
 * alg_argon2.h to fill one).  Outside any policy, so outside the
 * machine-wide budget too: mem_budget_kib and mem_wait_ms are not read.
 * max_threads 0 is automatic; a type other than KDF_ARGON2_D/I/ID is
 * KDF_UNSUPPORTED.  work may be NULL (mapped internally). */
struct kdf_argon2_args;
enum kdf_status kdf_argon2_raw(const struct kdf_argon2_args *a, uint8_t *out,
                               size_t out_len, void *work, size_t work_sz) KDF_WUR;

/* What slot i of the work pool (kdf_workpool_set()) keeps while it is
 * free: 0 and its area and size, -1 when it is in use or keeps nothing.
 * For tests that read a kept area back (it must be all zeros). */
int kdf_workpool_peek(unsigned i, const void **mem, size_t *len);

/* How many verifications the scheme rows have run in this process (every
 * thread): a verify under normalize = nfkc runs one or two. */
unsigned long kdf_test_row_verifies(void);

/* The known answers of kdf_selftest(), row i (NULL past the last), for
 * tests/unit/test_selftest.c to hold against tests/vectors/selftest.inc. */
struct kdf_kat {
    const char *group;    /* "sha256", "hmac-sha512", "pbkdf2-sha256" */
    int kind;             /* hash, HMAC, PBKDF2 (api_selftest.c) */
    const char *msg;      /* the message, or PBKDF2's password */
    size_t key_len;       /* HMAC: the key is bytes 00 01 .. key_len-1 */
    const char *salt_hex; /* PBKDF2 */
    uint32_t iterations;  /* PBKDF2 */
    unsigned out_bits;
    const char *want_hex;
};
const struct kdf_kat *kdf_selftest_kat(size_t i);
/* Test hook: make self-test group (kdf_selftest_name()) fail, NULL for
 * none; forgets what kdf_selftest_once() answered. */
void kdf_selftest_force_fail(const char *group);

#endif /* KDF_TESTING_H */
