/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hstr_xcrypt_cost.h - what a crypt(3) setting asks of libxcrypt, read from
 * the string alone (hstr_xcrypt_cost.c).
 */
#ifndef KDF_HSTR_XCRYPT_COST_H
#define KDF_HSTR_XCRYPT_COST_H

#include "kdf_prelude.h"

/* Does the system's libxcrypt know the method of the hash s[0..n)
 * (crypt_checksalt(): OK, or LEGACY: weak but still verified)?  A string
 * without a leading '$' would be taken for a DES setting: 0. */
int kdf_xcrypt_knows(const char *s, size_t n);
/* What a crypt(3) setting asks of libxcrypt: iterations
 * of an iterated scheme, memory and memory traffic (KiB) of a memory-hard
 * one.  Returns 0 (costs filled, what names the scheme), 1 for a scheme of
 * fixed small cost, -1 for a setting of a costly scheme that does not
 * decode (callers fail closed). */
struct kdf_xcrypt_cost {
    uint64_t rounds, mem_kib, work_kib;
    /* scrypt/yescrypt: p, and the KiB of V (128 r N, scrypt's memory
     * parameter) and of B (128 r p); mem_kib is all libxcrypt maps. */
    uint64_t lanes, v_kib, b_kib;
    const char *what;
};
int kdf_xcrypt_cost(const char *s, size_t n, struct kdf_xcrypt_cost *c);
/* Memory and work (KiB passes) of scrypt-shaped parameters: yescrypt's
 * flavor (0 classic scrypt, 1 WORM, 2 and up RW), log2 N, r, p, t. */
void kdf_scrypt_like_cost(uint32_t flavor, uint32_t nlog2, uint64_t r, uint64_t p, uint64_t t,
                          struct kdf_xcrypt_cost *c);

#endif /* KDF_HSTR_XCRYPT_COST_H */
