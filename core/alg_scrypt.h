/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_scrypt.h - scrypt (RFC 7914).  Not installed.
 */
#ifndef KDF_ALG_SCRYPT_H
#define KDF_ALG_SCRYPT_H

#include "kdf_prelude.h"

/* KiB that kdf_scrypt() maps for N = 2^ln, r, p. */
uint64_t kdf_scrypt_mem_kib(uint32_t ln, uint32_t r, uint32_t p);

/* scrypt(pw, salt, N = 2^ln, r, p) into out[out_len], out_len 1..64.
 * budget_kib/wait_ms/mem_admin: the machine-wide memory budget
 * (KDF_MEMGATE_*; kdf_memgate_take()). */
enum kdf_status kdf_scrypt(const uint8_t *pw, size_t pw_len, const uint8_t *salt,
                           size_t salt_len, uint32_t ln, uint32_t r, uint32_t p, uint8_t *out,
                           size_t out_len, uint32_t budget_kib, unsigned wait_ms,
                           int mem_admin);

#endif /* KDF_ALG_SCRYPT_H */
