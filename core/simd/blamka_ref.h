/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blamka_ref.h - portable BlaMka block function (RFC 9106 section 3.5/3.6)
 * for the "template by include" walker in argon2_fill.h.
 *
 * G(X, Y): R = X ^ Y viewed as an 8x8 matrix of 16-byte registers; the
 * permutation P (eight BlaMka GB mixes, the BLAKE2b round with the
 * multiplications of section 3.6) runs over each row, then each column,
 * giving Z; the result is Z ^ R.  Every vector variant must give the same
 * bytes as this one (tests/unit/test_simd.c).
 */
#ifndef KDF_BLAMKA_REF_H
#define KDF_BLAMKA_REF_H

#include "alg_argon2.h"

/* GB's "a + b + 2 * trunc(a) * trunc(b)" (RFC 9106 section 3.6). */
static inline uint64_t
blamka_fba(uint64_t x, uint64_t y)
{
    return x + y + 2 * ((x & 0xffffffffULL) * (y & 0xffffffffULL));
}

static inline uint64_t
blamka_rotr(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

#define BLAMKA_GB(a, b, c, d)                                                            \
    do {                                                                                 \
        a = blamka_fba(a, b);                                                            \
        d = blamka_rotr(d ^ a, 32);                                                      \
        c = blamka_fba(c, d);                                                            \
        b = blamka_rotr(b ^ c, 24);                                                      \
        a = blamka_fba(a, b);                                                            \
        d = blamka_rotr(d ^ a, 16);                                                      \
        c = blamka_fba(c, d);                                                            \
        b = blamka_rotr(b ^ c, 63);                                                      \
    } while (0)

/* P on 16 words (lvalues): columns of the 4x4 word matrix, then its
 * diagonals (RFC 9106 section 3.6).  A macro on the words themselves, so
 * the compiler keeps them in registers. */
#define BLAMKA_P(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15)   \
    do {                                                                                 \
        BLAMKA_GB(v0, v4, v8, v12);                                                      \
        BLAMKA_GB(v1, v5, v9, v13);                                                      \
        BLAMKA_GB(v2, v6, v10, v14);                                                     \
        BLAMKA_GB(v3, v7, v11, v15);                                                     \
        BLAMKA_GB(v0, v5, v10, v15);                                                     \
        BLAMKA_GB(v1, v6, v11, v12);                                                     \
        BLAMKA_GB(v2, v7, v8, v13);                                                      \
        BLAMKA_GB(v3, v4, v9, v14);                                                      \
    } while (0)

static inline void
blamka_fill_block(const struct kdf_argon2_block *prev, const struct kdf_argon2_block *ref,
                  struct kdf_argon2_block *next, int with_xor,
                  const struct kdf_argon2_hint *hint)
{
    uint64_t r[KDF_ARGON2_QWORDS], z[KDF_ARGON2_QWORDS];

    for (int k = 0; k < KDF_ARGON2_QWORDS; k++) {
        r[k] = prev->v[k] ^ ref->v[k];
        z[k] = r[k];
    }
    if (with_xor)
        for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
            r[k] ^= next->v[k];
    /* Rows: row j is words 16j .. 16j + 15. */
    for (unsigned j = 0; j < 8; j++) {
        uint64_t *w = z + 16 * j;
        BLAMKA_P(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11],
                 w[12], w[13], w[14], w[15]);
    }
    /* Columns: column i is words 2i, 2i + 1 of every row. */
    for (unsigned i = 0; i < 8; i++) {
        uint64_t *w = z + 2 * i;
        BLAMKA_P(w[0], w[1], w[16], w[17], w[32], w[33], w[48], w[49], w[64], w[65],
                 w[80], w[81], w[96], w[97], w[112], w[113]);
    }
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
        next->v[k] = z[k] ^ r[k];
    kdf_argon2_hint_next(hint, next->v[0]);
    /* r and z are as secret as the memory they came from. */
    kdf_wipe(r, sizeof r);
    kdf_wipe(z, sizeof z);
}

#endif /* KDF_BLAMKA_REF_H */
