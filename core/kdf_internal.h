/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf_internal.h - the registry of the core's internal entry points:
 * crypt(3) through libxcrypt, the memory gate, base64 internals and
 * getrandom.  Includes the prelude and the variant tables.  Not installed;
 * pam_module/ and cli/ include only kdfhash.h.
 */
#ifndef KDF_INTERNAL_H
#define KDF_INTERNAL_H

#include "kdf_prelude.h"
#include "kdf_dispatch.h"
#if defined(KDF_TEST_HOOKS) || defined(KDF_CORE_BUILD)
#include "kdf_testing.h"
#endif

/* Legacy crypt(3) schemes through libxcrypt's crypt_rn(). */
enum kdf_status kdf_legacy_verify(const char *pw, size_t pw_len, const struct kdf_hash *h);
/* Does the system's libxcrypt know the method of the hash s[0..n)
 * (crypt_checksalt(): OK, or LEGACY: weak but still verified)?  A string
 * without a leading '$' would be taken for a DES setting: 0. */
int kdf_xcrypt_knows(const char *s, size_t n);
/* What a crypt(3) setting asks of libxcrypt (hstr_xcrypt_cost.c): iterations
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
/* The machine-wide memory budget (util_memgate.c): take need_kib before mapping
 * an area (*fd_out is the holding descriptor, -1 when not gated), give it
 * back after.  KDF_BUSY when the budget (or the caller's real uid's share
 * of it, or the pool all capped uids share unless admin: kdf_policy's
 * mem_admin) stayed full for wait_ms; KDF_OVER_BUDGET at once when need_kib
 * is more than the whole budget. */
enum kdf_status kdf_memgate_take(uint64_t need_kib, uint32_t budget_kib, unsigned wait_ms,
                                 int admin, int *fd_out);
void kdf_memgate_give(int fd);
/* Areas for memory-hard work (util_workarea.c): map len bytes (2 MiB aligned,
 * huge page hint, not yet populated; *map_len is what unmap gets), get its
 * pages (-1 when the kernel cannot give them), unmap. */
enum kdf_status kdf_area_map(size_t len, void **mem, size_t *map_len);
int kdf_area_populate(void *p, size_t len);
void kdf_area_unmap(void *mem, size_t map_len);
/* A kept area of at least need bytes, populated and all zeros, from the
 * pool (kdf_workpool_set()); NULL with *st KDF_OK when the pool is off,
 * full or keeps no area that large (map one then: never a wait), NULL with
 * *st the budget's refusal or KDF_NOMEM.  admin: kdf_memgate_take()'s. */
struct kdf_pool_slot;
struct kdf_pool_slot *kdf_workpool_take(size_t need, uint32_t budget_kib, unsigned wait_ms,
                                        int admin, void **mem, enum kdf_status *st);
/* Back to the pool, every block the verification wrote wiped already. */
void kdf_workpool_give(struct kdf_pool_slot *s);
/* The "auto" budget in MiB: half the memory cgroup's limit or the RAM. */
uint64_t kdf_memgate_auto_mib(void);
/* A policy's budget (KDF_MEMGATE_AUTO, _OFF or KiB) in KiB, 0 for none:
 * how kdf_memgate_take() reads it, for the pool's bound on kept areas. */
uint64_t kdf_memgate_budget_kib(uint32_t budget_kib);
enum kdf_status kdf_xcrypt_setting(const struct kdf_target *t, const uint8_t *salt,
                                   size_t salt_len, char *out, size_t cap);
enum kdf_status kdf_legacy_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                                const uint8_t *salt, size_t salt_len, char *out,
                                size_t out_cap);

/* ---- base64 internals (util_b64.c) ---- */
/* Strict validation without decoding: alphabet, length, canonical spare
 * bits; *out_len gets the decoded length.  What kdf_parse() runs. */
enum kdf_status kdf_b64_check(enum kdf_b64 alpha, const char *in, size_t in_len,
                              size_t *out_len);
/* bcrypt alphabet and length only (the spare low bits of the last character
 * are not looked at; kdf_parse() requires them to be zero).  1 when valid. */
int kdf_b64_bcrypt_valid(const char *in, size_t in_len);
/* Decode bcrypt base64 ignoring those spare bits (salt 22 -> 16 bytes,
 * digest 31 -> 23 bytes). */
enum kdf_status kdf_b64_bcrypt_decode_lenient(const char *in, size_t in_len,
                                              uint8_t *out, size_t cap,
                                              size_t *out_len);

/* ---- misc ---- */
/* Fill buf with random bytes from getrandom(); KDF_INTERNAL on failure. */
enum kdf_status kdf_random(void *buf, size_t n);

#endif /* KDF_INTERNAL_H */
