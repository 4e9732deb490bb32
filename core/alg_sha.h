/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_sha.h - SHA-1, SHA-256, SHA-512 (FIPS 180-4), HMAC (RFC 2104) and the
 * PBKDF2 core (RFC 8018 section 5.2): internal interfaces of the core.
 *
 * Every compression function, whatever the hash and the ISA, has the one
 * signature kdf_compress_fn: (state, blocks, nblocks).  The state is the
 * hash's chaining value in its natural word order (a, b, c, ...): uint32_t[5]
 * for SHA-1, uint32_t[8] for SHA-256, uint64_t[8] for SHA-512; blocks are
 * nblocks * block_len bytes, read big-endian.  A shared signature lets HMAC
 * and PBKDF2 be written once for the three hashes (libxcrypt keeps one
 * PBKDF2 per hash; we keep one loop and three compression tables).
 *
 * kdf_compress2_fn runs two independent states, one block each, through the
 * rounds together: the rounds of one block are a single dependent chain
 * (SHA-NI sha256rnds2 has a latency of several cycles and a throughput of one
 * or two per cycle), so a second independent chain fills the idle slots.
 * PBKDF2 uses it when dkLen spans several output blocks, which RFC 8018
 * computes independently (T_1, T_2, ...).
 */
#ifndef KDF_ALG_SHA_H
#define KDF_ALG_SHA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kdf_dispatch.h"

#define KDF_SHA1_LEN 20
#define KDF_SHA256_LEN 32
#define KDF_SHA384_LEN 48
#define KDF_SHA512_LEN 64
#define KDF_SHA_MAX_LEN 64
#define KDF_SHA_MAX_BLOCK 128

typedef void kdf_compress_fn(void *state, const uint8_t *blocks, size_t nblocks);
typedef void kdf_compress2_fn(void *state_a, const uint8_t *block_a, void *state_b,
                              const uint8_t *block_b);

/*
 * PBKDF2 iterations 2..c of one output block run inside one variant
 * (RFC 8018 5.2, function F): from the HMAC pad states (natural word order)
 * and U_1 (digest bytes), XOR U_2 .. U_c into t (digest bytes).  A variant
 * that has them keeps the chaining values and the message words in
 * registers across iterations: the digest of one compression is the first
 * message words of the next, with no store, reload or byte swap between.
 * The two-chain form interleaves two output blocks, as kdf_compress2_fn.
 */
typedef void kdf_pbkdf2_loop_fn(const void *ipad, const void *opad, const uint8_t *u,
                                uint8_t *t, uint32_t iterations);
typedef void kdf_pbkdf2_loop2_fn(const void *ipad, const void *opad, const uint8_t *u_a,
                                 uint8_t *t_a, const uint8_t *u_b, uint8_t *t_b,
                                 uint32_t iterations);

/* Chaining values large enough for any of the three hashes; 16-byte aligned
 * so SIMD variants may load them directly. */
union kdf_sha_state {
    uint32_t w32[16];
    uint64_t w64[8];
};

/* FIPS 180-4 constants, each defined once (alg_sha_consts.c) and read by the
 * portable and the SIMD variants alike: plain const data, so sharing it
 * across the -m flagged convenience libraries is safe (a non-static inline
 * function would not be: the linker could keep the copy compiled with
 * -mavx2 for every caller).  The K tables are 16-byte aligned for aligned
 * vector loads. */
extern const uint32_t kdf_sha256_k[64] __attribute__((aligned(16), visibility("hidden")));
extern const uint64_t kdf_sha512_k[80] __attribute__((aligned(16), visibility("hidden")));
extern const uint32_t kdf_sha1_iv[5] __attribute__((visibility("hidden")));
extern const uint32_t kdf_sha256_iv[8] __attribute__((visibility("hidden")));
extern const uint64_t kdf_sha512_iv[8] __attribute__((visibility("hidden")));

/* ---- the variants: one row each in kdf_sha1/256/512_table ----
 * A row's fn is its kdf_compress_fn; its `more` points to a struct
 * kdf_sha_more with the variant's other entry points (NULL: none). */
struct kdf_sha_more {
    kdf_compress2_fn *compress2; /* may be NULL */
    kdf_pbkdf2_loop_fn *loop1;   /* may be NULL */
    kdf_pbkdf2_loop2_fn *loop2;  /* may be NULL */
};

kdf_compress_fn kdf_sha1_compress_portable;
kdf_compress_fn kdf_sha256_compress_portable;
kdf_compress_fn kdf_sha512_compress_portable;
#ifdef HAVE_SHANI
kdf_compress_fn kdf_sha1_compress_shani;
kdf_compress2_fn kdf_sha1_compress2_shani;
kdf_pbkdf2_loop_fn kdf_sha1_pbkdf2_shani;
kdf_pbkdf2_loop2_fn kdf_sha1_pbkdf2x2_shani;
kdf_compress_fn kdf_sha256_compress_shani;
kdf_compress2_fn kdf_sha256_compress2_shani;
kdf_pbkdf2_loop_fn kdf_sha256_pbkdf2_shani;
kdf_pbkdf2_loop2_fn kdf_sha256_pbkdf2x2_shani;
#endif
#ifdef HAVE_BMI2AVX2
kdf_compress_fn kdf_sha512_compress_avx2;
kdf_pbkdf2_loop_fn kdf_sha512_pbkdf2_avx2;
#endif
#ifdef HAVE_ARMSHA2
kdf_compress_fn kdf_sha1_compress_armv8;
kdf_compress_fn kdf_sha256_compress_armv8;
#endif
#ifdef HAVE_ARMSHA512
kdf_compress_fn kdf_sha512_compress_armv8;
#endif

/* The extra entry points of the row whose compression function is fn, or
 * NULL (no such row, or a row with none). */
static inline const struct kdf_sha_more *
kdf_sha_more_of(const struct kdf_dispatch_table *t, kdf_compress_fn *fn)
{
    for (size_t i = 0; i < t->nrows; i++)
        if ((kdf_compress_fn *)t->rows[i].fn == fn)
            return (const struct kdf_sha_more *)t->rows[i].more;
    return NULL;
}

/* The two-state partner of a compression function (same row), or NULL when
 * the variant has none (the caller then runs two compressions). */
kdf_compress2_fn *kdf_sha1_compress2_of(kdf_compress_fn *fn);
kdf_compress2_fn *kdf_sha256_compress2_of(kdf_compress_fn *fn);
kdf_compress2_fn *kdf_sha512_compress2_of(kdf_compress_fn *fn);
/* The fused PBKDF2 loops of a row (both NULL when it has none). */
void kdf_sha1_loops_of(kdf_compress_fn *fn, kdf_pbkdf2_loop_fn **loop1,
                       kdf_pbkdf2_loop2_fn **loop2);
void kdf_sha256_loops_of(kdf_compress_fn *fn, kdf_pbkdf2_loop_fn **loop1,
                         kdf_pbkdf2_loop2_fn **loop2);
void kdf_sha512_loops_of(kdf_compress_fn *fn, kdf_pbkdf2_loop_fn **loop1,
                         kdf_pbkdf2_loop2_fn **loop2);

/* Self-test shared by the three tables: one compression of the padded
 * block of "abc" from iv must give want (state_len bytes), and so must both
 * states of the row's compress2 when it has one.  0 = ok. */
static inline int
kdf_sha_row_selftest(const struct kdf_impl_desc *row, const void *iv, size_t state_len,
                     size_t block_len, const void *want)
{
    const struct kdf_sha_more *more = (const struct kdf_sha_more *)row->more;
    union kdf_sha_state a, b;
    uint8_t blk[KDF_SHA_MAX_BLOCK] = {'a', 'b', 'c', 0x80};
    int bad;

    blk[block_len - 1] = 24; /* the length in bits */
    memcpy(&a, iv, state_len);
    ((kdf_compress_fn *)row->fn)(&a, blk, 1);
    bad = memcmp(&a, want, state_len) != 0;
    if (more != NULL && more->compress2 != NULL) {
        memcpy(&a, iv, state_len);
        memcpy(&b, iv, state_len);
        more->compress2(&a, blk, &b, blk);
        bad |= memcmp(&a, want, state_len) != 0 || memcmp(&b, want, state_len) != 0;
    }
    return bad;
}

/* ---- one hash, bound to the dispatched variant ---- */
struct kdf_md {
    enum kdf_prim hash;   /* KDF_PRIM_SHA1, _SHA256 or _SHA512 */
    size_t block_len;     /* 64 or 128 */
    size_t digest_len;    /* 20, 32 or 64 */
    size_t state_len;     /* bytes of chaining value: 20, 32 or 64 */
    int wide;             /* SHA-512: 64-bit words and a 128-bit length */
    const void *iv;       /* FIPS 180-4 section 5.3 initial hash value */
    kdf_compress_fn *compress;
    kdf_compress2_fn *compress2; /* may be NULL */
    kdf_pbkdf2_loop_fn *loop1;   /* may be NULL */
    kdf_pbkdf2_loop2_fn *loop2;  /* may be NULL */
};

/* Bind md to a hash (KDF_PRIM_SHA1/256/512: the algorithms name hashes as
 * dispatch does, never by a scheme; doc/DESIGN.md "Layers of the core") and
 * to the variant dispatch picked: one dispatch lookup per call, so the
 * caller binds once per PBKDF2 computation, never per block.
 * KDF_UNSUPPORTED for any other primitive. */
enum kdf_status kdf_md_bind(struct kdf_md *md, enum kdf_prim hash);

/* Bind md to SHA-384 (FIPS 180-4 section 6.5): SHA-512's variant with
 * SHA-384's initial value and a 48-byte digest, for streaming digests
 * (kdf_md_init/update/final) only: HMAC and PBKDF2 never use it. */
enum kdf_status kdf_md_bind_sha384(struct kdf_md *md);

/* Store the digest of a finished state big-endian (FIPS 180-4 6.x.2 step 4). */
void kdf_md_state_bytes(const struct kdf_md *md, const union kdf_sha_state *st,
                        uint8_t *out);

/* ---- streaming hash (tests, HMAC keys, the first PBKDF2 iteration) ---- */
struct kdf_md_ctx {
    const struct kdf_md *md;
    union kdf_sha_state st;
    uint8_t buf[KDF_SHA_MAX_BLOCK];
    size_t buf_len;
    uint64_t total; /* bytes hashed so far (2^64 bytes is out of reach) */
};

void kdf_md_init(struct kdf_md_ctx *c, const struct kdf_md *md);
/* Start from a precomputed state that has absorbed `absorbed` bytes (whole
 * blocks): the HMAC ipad/opad states. */
void kdf_md_init_from(struct kdf_md_ctx *c, const struct kdf_md *md,
                      const union kdf_sha_state *st, uint64_t absorbed);
void kdf_md_update(struct kdf_md_ctx *c, const void *data, size_t len);
/* Writes md->digest_len bytes and wipes the context. */
void kdf_md_final(struct kdf_md_ctx *c, uint8_t *out);

/* One-shot hash (tests, the CLI). */
enum kdf_status kdf_sha_digest(enum kdf_prim hash, const void *data, size_t len,
                               uint8_t *out, size_t out_len);

/* ---- HMAC (RFC 2104) with the pads absorbed once ---- */
struct kdf_hmac_key {
    const struct kdf_md *md;
    union kdf_sha_state ipad; /* H state after (K xor ipad), one block */
    union kdf_sha_state opad; /* H state after (K xor opad), one block */
};

void kdf_hmac_key_init(struct kdf_hmac_key *k, const struct kdf_md *md, const uint8_t *key,
                       size_t key_len);
/* HMAC(K, a || b): b may be NULL with b_len 0.  Writes md->digest_len bytes. */
void kdf_hmac2(const struct kdf_hmac_key *k, const void *a, size_t a_len, const void *b,
               size_t b_len, uint8_t *out);
/* One-shot HMAC (tests, RFC 4231). */
enum kdf_status kdf_hmac(enum kdf_prim hash, const uint8_t *key, size_t key_len,
                         const void *msg, size_t msg_len, uint8_t *out, size_t out_len);

/* ---- PBKDF2 with an explicitly bound md (tests force variants) ---- */
enum kdf_status kdf_pbkdf2_md(const struct kdf_md *md, const uint8_t *pw, size_t pw_len,
                              const uint8_t *salt, size_t salt_len, uint32_t iterations,
                              uint8_t *out, size_t out_len);

#endif /* KDF_ALG_SHA_H */
