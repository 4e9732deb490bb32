/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf_internal.h - first include of every core .c file (libxcrypt's
 * crypt-port.h role): config, the public API, assertions, the dispatch
 * tables and small helpers shared by the core.  Not installed.
 */
#ifndef KDF_INTERNAL_H
#define KDF_INTERNAL_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <string.h>

#include "kdfhash.h"

/* Asserts only in test builds (--enable-debug); untrusted input always gets
 * a status code instead. */
#ifdef KDF_TESTING
#include <assert.h>
#define KDF_ASSERT(x) assert(x)
#else
#define KDF_ASSERT(x) ((void)0)
#endif

#define KDF_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KDF_HIDDEN __attribute__((visibility("hidden")))

/* Scheme families, for the core, the CLI and the module (one copy). */
static inline int
kdf_scheme_is_argon2(enum kdf_scheme s)
{
    return s == KDF_SCHEME_ARGON2D || s == KDF_SCHEME_ARGON2I || s == KDF_SCHEME_ARGON2ID;
}
static inline int
kdf_scheme_is_pbkdf2(enum kdf_scheme s)
{
    return s == KDF_SCHEME_PBKDF2_SHA1 || s == KDF_SCHEME_PBKDF2_SHA256 ||
           s == KDF_SCHEME_PBKDF2_SHA512;
}

/* vsnprintf into err when err != NULL and cap > 0: the short, secret-free
 * reason that the policy parser, the target parser and the PAM module's
 * upgrade writer and helpers hand back (ct.c). */
KDF_HIDDEN void kdf_errf(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- little/big-endian loads and stores (no alignment assumed) ---- */
static inline uint32_t
kdf_load32_le(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
           ((uint32_t)b[3] << 24);
}
static inline uint64_t
kdf_load64_le(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint64_t)kdf_load32_le(b) | ((uint64_t)kdf_load32_le(b + 4) << 32);
}
static inline void
kdf_store32_le(void *p, uint32_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}
static inline void
kdf_store64_le(void *p, uint64_t v)
{
    kdf_store32_le(p, (uint32_t)v);
    kdf_store32_le((uint8_t *)p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t
kdf_load32_be(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) |
           (uint32_t)b[3];
}
static inline uint64_t
kdf_load64_be(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return ((uint64_t)kdf_load32_be(b) << 32) | (uint64_t)kdf_load32_be(b + 4);
}
static inline void
kdf_store32_be(void *p, uint32_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}
static inline void
kdf_store64_be(void *p, uint64_t v)
{
    kdf_store32_be(p, (uint32_t)(v >> 32));
    kdf_store32_be((uint8_t *)p + 4, (uint32_t)v);
}
static inline uint32_t
kdf_rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}
static inline uint32_t
kdf_rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> ((32 - n) & 31));
}
static inline uint64_t
kdf_rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << ((64 - n) & 63));
}

/* ---- dispatch (dispatch.c) ----
 * Each primitive with variants exports a best-first table of these.  The
 * pick happens once under pthread_once: the first row whose `needs` are all
 * in (detected & compiled-in) and whose self-test passes wins; the last row
 * is always the portable one (needs == 0).  fn is cast to the primitive's own
 * function type by its owner. */
typedef void (*kdf_generic_fn)(void);
struct kdf_impl_desc {
    const char *name;            /* "portable", "shani", "ssse3", "avx2", ... */
    uint32_t needs;              /* KDF_CPU_* bits */
    kdf_generic_fn fn;           /* the variant's entry point */
    int (*selftest)(kdf_generic_fn fn); /* 0 = ok; may be NULL */
};

/* Tables, defined by the primitives' files. */
extern const struct kdf_impl_desc kdf_sha1_impls[];
extern const size_t kdf_sha1_nimpls;
extern const struct kdf_impl_desc kdf_sha256_impls[];
extern const size_t kdf_sha256_nimpls;
extern const struct kdf_impl_desc kdf_sha512_impls[];
extern const size_t kdf_sha512_nimpls;
extern const struct kdf_impl_desc kdf_blamka_impls[];
extern const size_t kdf_blamka_nimpls;

/* The chosen entry point of primitive p (picks on first use). */
kdf_generic_fn kdf_dispatch_get(enum kdf_prim p);

/* Test hook: pretend the CPU has only the features in mask (ANDed with the
 * real ones) and re-pick every primitive.  Not exported from the module. */
void kdf_dispatch_force_mask(uint32_t mask);
/* Test hook: use exactly row `index` of p's table (must be usable). */
enum kdf_status kdf_dispatch_force_index(enum kdf_prim p, size_t index);


/* ---- schemes: one verify and one hash entry per family ----
 * h has been parsed and checked against the caps by kdf.c before these run;
 * each compares decoded digest bytes with kdf_ct_eq() and wipes every
 * secret it made on every return path. */
enum kdf_status kdf_bcrypt_verify(const char *pw, size_t pw_len, const struct kdf_hash *h);
enum kdf_status kdf_bcrypt_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                                const uint8_t *salt, size_t salt_len, char *out,
                                size_t cap);
enum kdf_status kdf_pbkdf2_verify(const char *pw, size_t pw_len, const struct kdf_hash *h);
enum kdf_status kdf_pbkdf2_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                                const uint8_t *salt, size_t salt_len, char *out,
                                size_t cap);
enum kdf_status kdf_argon2_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
                                  const struct kdf_policy *pol, void *work,
                                  size_t work_sz);
enum kdf_status kdf_argon2_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                                const struct kdf_policy *pol, const uint8_t *salt,
                                size_t salt_len, char *out, size_t cap);
/* Legacy crypt(3) schemes through libxcrypt's crypt_rn(). */
enum kdf_status kdf_legacy_verify(const char *pw, size_t pw_len, const struct kdf_hash *h);
/* crypt(3) targets through libxcrypt (scheme_legacy.c): the prefix of each,
 * its setting for a given salt (crypt_gensalt_rn), and a whole new hash. */
const char *kdf_xcrypt_prefix(enum kdf_xcrypt x);
/* What a crypt(3) setting asks of libxcrypt (xcrypt_cost.c): iterations
 * of an iterated scheme, memory and memory traffic (KiB) of a memory-hard
 * one.  Returns 0 (costs filled, what names the scheme), 1 for a scheme of
 * fixed small cost, -1 for a setting of a costly scheme that does not
 * decode (callers fail closed). */
struct kdf_xcrypt_cost {
    uint64_t rounds, mem_kib, work_kib;
    const char *what;
};
int kdf_xcrypt_cost(const char *s, size_t n, struct kdf_xcrypt_cost *c);
/* The machine-wide memory budget (memgate.c): take need_kib before mapping
 * an area (*fd_out is the holding descriptor, -1 when not gated), give it
 * back after.  KDF_BUSY when the budget stayed full for wait_ms. */
enum kdf_status kdf_memgate_take(uint64_t need_kib, uint32_t budget_kib, unsigned wait_ms,
                                 int *fd_out);
void kdf_memgate_give(int fd);
/* Tests only: another lock file than /run/kdfhash.memgate (NULL: back). */
void kdf_memgate_set_path(const char *path);
/* The "auto" budget in MiB: half the memory cgroup's limit or the RAM. */
uint64_t kdf_memgate_auto_mib(void);
/* Bounds of a crypt(3) target's cost and salt (target.c). */
enum kdf_status kdf_xcrypt_check(const struct kdf_target *t, const char **why);
enum kdf_status kdf_xcrypt_setting(const struct kdf_target *t, const uint8_t *salt,
                                   size_t salt_len, char *out, size_t cap);
enum kdf_status kdf_legacy_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                                const uint8_t *salt, size_t salt_len, char *out,
                                size_t out_cap);

/* ---- base64 internals (b64.c) ---- */
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
