/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blamka_ref.h - portable BlaMka block function (RFC 9106 section 3.5/3.6)
 * for the "template by include" walker in argon2_fill.h.
 *
 * G(X, Y): R = X ^ Y viewed as an 8x8 matrix of 16-byte registers; the
 * permutation P (eight BlaMka GB mixes, the BLAKE2b round with the
 * multiplications of section 3.6) runs over each row, then each column,
 * giving Z; the result is Z ^ R.  Every vector variant must give the same
 * bytes as this one (tests/test_simd.c).
 */
#ifndef KDF_BLAMKA_REF_H
#define KDF_BLAMKA_REF_H

#include "argon2_core.h"

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

#define BLAMKA_GB(a, b, c, d)                                                      \
    do {                                                                           \
        a = blamka_fba(a, b);                                                      \
        d = blamka_rotr(d ^ a, 32);                                                \
        c = blamka_fba(c, d);                                                      \
        b = blamka_rotr(b ^ c, 24);                                                \
        a = blamka_fba(a, b);                                                      \
        d = blamka_rotr(d ^ a, 16);                                                \
        c = blamka_fba(c, d);                                                      \
        b = blamka_rotr(b ^ c, 63);                                                \
    } while (0)

/* P on 16 words given by index: columns of the 4x4 word matrix, then its
 * diagonals (RFC 9106 section 3.6). */
static inline void
blamka_p(uint64_t *z, const unsigned idx[16])
{
    uint64_t v[16];

    for (int k = 0; k < 16; k++)
        v[k] = z[idx[k]];
    BLAMKA_GB(v[0], v[4], v[8], v[12]);
    BLAMKA_GB(v[1], v[5], v[9], v[13]);
    BLAMKA_GB(v[2], v[6], v[10], v[14]);
    BLAMKA_GB(v[3], v[7], v[11], v[15]);
    BLAMKA_GB(v[0], v[5], v[10], v[15]);
    BLAMKA_GB(v[1], v[6], v[11], v[12]);
    BLAMKA_GB(v[2], v[7], v[8], v[13]);
    BLAMKA_GB(v[3], v[4], v[9], v[14]);
    for (int k = 0; k < 16; k++)
        z[idx[k]] = v[k];
}

static inline void
blamka_fill_block(const struct kdf_argon2_block *prev, const struct kdf_argon2_block *ref,
                  struct kdf_argon2_block *next, int with_xor,
                  const struct kdf_argon2_hint *hint)
{
    uint64_t r[KDF_ARGON2_QWORDS], z[KDF_ARGON2_QWORDS];
    unsigned idx[16];

    for (int k = 0; k < KDF_ARGON2_QWORDS; k++) {
        r[k] = prev->v[k] ^ ref->v[k];
        z[k] = r[k];
    }
    if (with_xor)
        for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
            r[k] ^= next->v[k];
    /* Rows: register i of row j is words 16j + 2i, 16j + 2i + 1. */
    for (unsigned j = 0; j < 8; j++) {
        for (unsigned k = 0; k < 16; k++)
            idx[k] = 16 * j + k;
        blamka_p(z, idx);
    }
    /* Columns: column i is register i of every row. */
    for (unsigned i = 0; i < 8; i++) {
        for (unsigned k = 0; k < 8; k++) {
            idx[2 * k] = 16 * k + 2 * i;
            idx[2 * k + 1] = 16 * k + 2 * i + 1;
        }
        blamka_p(z, idx);
    }
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
        next->v[k] = z[k] ^ r[k];
    kdf_argon2_hint_next(hint, next->v[0]);
    /* r and z are as secret as the memory they came from. */
    kdf_wipe(r, sizeof r);
    kdf_wipe(z, sizeof z);
}

#endif /* KDF_BLAMKA_REF_H */
