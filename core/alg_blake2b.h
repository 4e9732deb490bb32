/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_blake2b.h - BLAKE2b (RFC 7693), keyed and with any output length from
 * 1 to 64 bytes, plus H', the variable-length hash of Argon2 (RFC 9106
 * section 3.3).  Scalar on purpose: BLAKE2b runs a handful of times per
 * Argon2 call; the SIMD work pays in BlaMka.
 */
#ifndef KDF_ALG_BLAKE2B_H
#define KDF_ALG_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define KDF_BLAKE2B_BLOCKBYTES 128
#define KDF_BLAKE2B_OUTBYTES 64
#define KDF_BLAKE2B_KEYBYTES 64

struct kdf_blake2b_state {
    uint64_t h[8];
    uint64_t t[2]; /* byte counter, 128 bits (RFC 7693 section 3.3) */
    uint8_t buf[KDF_BLAKE2B_BLOCKBYTES];
    size_t buflen;
    size_t outlen;
};

/* outlen 1..64, keylen 0..64 (key may be NULL when keylen is 0).
 * Returns 0, or -1 on a bad length (the state is then unusable). */
int kdf_blake2b_init(struct kdf_blake2b_state *s, size_t outlen, const void *key,
                     size_t keylen);
void kdf_blake2b_update(struct kdf_blake2b_state *s, const void *in, size_t inlen);
/* Writes s->outlen bytes and wipes the state. */
void kdf_blake2b_final(struct kdf_blake2b_state *s, uint8_t *out);
/* One-shot; returns 0 or -1 on a bad length. */
int kdf_blake2b(uint8_t *out, size_t outlen, const void *in, size_t inlen,
                const void *key, size_t keylen);

/* H'^T(in) of RFC 9106 section 3.3: any outlen >= 1 (Argon2 uses 4..2^32-1
 * for the tag and 1024 for the first blocks).  Returns 0 or -1. */
int kdf_blake2b_long(uint8_t *out, size_t outlen, const void *in, size_t inlen);

#endif /* KDF_ALG_BLAKE2B_H */
