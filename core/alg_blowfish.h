/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_blowfish.h - Blowfish (Schneier 1993) and the EksBlowfish key setup of
 * bcrypt (Provos and Mazieres, "A Future-Adaptable Password Scheme", 1999),
 * with crypt_blowfish/libxcrypt's handling of 8-bit passwords.
 *
 * The primitive knows nothing about hash strings: scheme_bcrypt.c decodes
 * the salt, prepares the key, and encodes the output.
 */
#ifndef KDF_ALG_BLOWFISH_H
#define KDF_ALG_BLOWFISH_H

#include <stdint.h>

/* 16 rounds, so P has 18 words; the key schedule consumes 18 words = 72
 * bytes of key material, hence bcrypt's 72-byte password limit. */
#define KDF_BF_ROUNDS 16
#define KDF_BF_PWORDS (KDF_BF_ROUNDS + 2)
#define KDF_BF_KEY_BYTES (KDF_BF_PWORDS * 4)

/* The cipher state: P and the four S-boxes in one object so that the round
 * function addresses everything from one base register.  4168 bytes,
 * secret: wipe it. */
struct kdf_bf_state {
    uint32_t P[KDF_BF_PWORDS];
    uint32_t S[4][256];
};

/* Everything secret one bcrypt computation holds: the state and the
 * expanded key that EksBlowfish XORs into P 2^cost times.  The caller owns
 * it (on its stack) and wipes it. */
struct kdf_bf_ctx {
    struct kdf_bf_state st;
    uint32_t key[KDF_BF_PWORDS];
};

/* Key-setup flags, per bcrypt minor (libxcrypt's flags_by_subtype):
 *   $2b$, $2y$: 0                      correct 8-bit handling
 *   $2a$:       KDF_BF_FLAG_SAFETY     correct, plus the countermeasure
 *   $2x$:       KDF_BF_FLAG_BUG        the sign-extension bug kept */
#define KDF_BF_FLAG_BUG 1u
#define KDF_BF_FLAG_SAFETY 2u

/*
 * Turn the key into the 18 words EksBlowfish uses.  key must be
 * NUL-terminated; the bytes are taken cyclically *including* the NUL (after
 * the NUL the cycle restarts at key[0]) until 72 bytes have been used, so at
 * most 72 bytes of key are ever read (a key of 72 or more bytes is simply
 * cut there and its NUL is never reached).
 * expanded[] receives the key words; initial[] receives P0 XOR key words
 * (with the $2a$ safety bit applied when flags says so).
 */
void kdf_bf_set_key(const char *key, uint32_t expanded[KDF_BF_PWORDS],
                    uint32_t initial[KDF_BF_PWORDS], unsigned flags);

/*
 * bcrypt's core: EksBlowfishSetup(2^log_rounds, salt, key), then encrypt
 * "OrpheanBeholderScryDoubt" 64 times.  salt[] is the 16-byte salt as four
 * big-endian words; out[] receives the six ciphertext words (the caller
 * serialises them big-endian and keeps 23 of the 24 bytes).  log_rounds is
 * 0..31 (0 only for the self-tests; the hash strings allow 4..31).  ctx is
 * scratch: its contents are secret afterwards.  No allocation, no globals
 * written: safe to call from any number of threads.
 */
void kdf_bf_bcrypt(struct kdf_bf_ctx *ctx, const char *key, unsigned flags,
                   const uint32_t salt[4], uint32_t log_rounds, uint32_t out[6]);

/*
 * kdf_bf_bcrypt() runs the row in use of kdf_blowfish_table (KDF_PRIM_BLOWFISH:
 * "bmi1" on x86-64 CPUs with BMI1, passed over on Intel's, then "portable",
 * which on x86-64 is a round in inline assembly).  The variants differ only
 * in how the round extracts its index bytes and how one ExpandKey chains its
 * blocks (alg_blowfish.c); the results are identical.  Tests and the bench pick one with kdf_dispatch_force_index()
 * or kdf_impl_force(), like any other primitive.  A row's fn is a
 * kdf_bf_eks_fn with kdf_bf_bcrypt()'s contract.
 */
typedef void kdf_bf_eks_fn(struct kdf_bf_ctx *ctx, const char *key, unsigned flags,
                           const uint32_t salt[4], uint32_t log_rounds, uint32_t out[6]);

#endif /* KDF_ALG_BLOWFISH_H */
