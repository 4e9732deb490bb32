/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blamka_ssse3.h - BlaMka block function on SSSE3 for argon2_fill.h.
 * Same result as blamka_ref.h.
 *
 * An xmm is one 16-byte cell, so each of a, b, c, d of a P instance is a
 * register pair (lo, hi).  The diagonal step rotates b and d by one word
 * across their pair with palignr and swaps the halves of c (a renaming).
 * Rows and columns are then both plain loads of eight cells; only the row
 * pass output goes through a stack block.
 */
#ifndef KDF_BLAMKA_SSSE3_H
#define KDF_BLAMKA_SSSE3_H

#include <tmmintrin.h>

#include "alg_argon2.h"

#define B1_INL static inline __attribute__((always_inline))
#if defined(__clang__)
#define B1_UNROLL _Pragma("clang loop unroll(full)")
#else
#define B1_UNROLL _Pragma("GCC unroll 16")
#endif

B1_INL __m128i
b1_f(__m128i x, __m128i y)
{
    __m128i z = _mm_mul_epu32(x, y);
    return _mm_add_epi64(_mm_add_epi64(x, y), _mm_add_epi64(z, z));
}
B1_INL __m128i
b1_ror32(__m128i x)
{
    return _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}
B1_INL __m128i
b1_ror24(__m128i x)
{
    return _mm_shuffle_epi8(
        x, _mm_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10));
}
B1_INL __m128i
b1_ror16(__m128i x)
{
    return _mm_shuffle_epi8(
        x, _mm_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9));
}
B1_INL __m128i
b1_ror63(__m128i x)
{
    return _mm_xor_si128(_mm_srli_epi64(x, 63), _mm_add_epi64(x, x));
}

/* GB on the two halves: v[0..7] = a.lo a.hi b.lo b.hi c.lo c.hi d.lo d.hi */
B1_INL void
b1_g(__m128i v[8])
{
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[h] = b1_f(v[h], v[2 + h]);
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[6 + h] = b1_ror32(_mm_xor_si128(v[6 + h], v[h]));
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[4 + h] = b1_f(v[4 + h], v[6 + h]);
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[2 + h] = b1_ror24(_mm_xor_si128(v[2 + h], v[4 + h]));
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[h] = b1_f(v[h], v[2 + h]);
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[6 + h] = b1_ror16(_mm_xor_si128(v[6 + h], v[h]));
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[4 + h] = b1_f(v[4 + h], v[6 + h]);
    B1_UNROLL
    for (int h = 0; h < 2; h++)
        v[2 + h] = b1_ror63(_mm_xor_si128(v[2 + h], v[4 + h]));
}

B1_INL void
b1_p(__m128i v[8])
{
    __m128i t0, t1;

    b1_g(v);
    /* b' = (w5 w6)(w7 w4), c' = (w10 w11)(w8 w9), d' = (w15 w12)(w13 w14) */
    t0 = _mm_alignr_epi8(v[3], v[2], 8);
    t1 = _mm_alignr_epi8(v[2], v[3], 8);
    v[2] = t0;
    v[3] = t1;
    t0 = v[4];
    v[4] = v[5];
    v[5] = t0;
    t0 = _mm_alignr_epi8(v[6], v[7], 8);
    t1 = _mm_alignr_epi8(v[7], v[6], 8);
    v[6] = t0;
    v[7] = t1;
    b1_g(v);
    t0 = _mm_alignr_epi8(v[2], v[3], 8);
    t1 = _mm_alignr_epi8(v[3], v[2], 8);
    v[2] = t0;
    v[3] = t1;
    t0 = v[4];
    v[4] = v[5];
    v[5] = t0;
    t0 = _mm_alignr_epi8(v[7], v[6], 8);
    t1 = _mm_alignr_epi8(v[6], v[7], 8);
    v[6] = t0;
    v[7] = t1;
}

B1_INL void
blamka_fill_block(const struct kdf_argon2_block *prev, const struct kdf_argon2_block *ref,
                  struct kdf_argon2_block *next, int with_xor,
                  const struct kdf_argon2_hint *hint)
{
    struct kdf_argon2_block z;
    const __m128i *p = (const __m128i *)prev->v, *f = (const __m128i *)ref->v;
    __m128i *o = (__m128i *)next->v, *w = (__m128i *)z.v;

    /* Row r: cells 8r .. 8r+7. */
    B1_UNROLL
    for (int r = 0; r < 8; r++) {
        __m128i v[8];
        B1_UNROLL
        for (int k = 0; k < 8; k++)
            v[k] = _mm_xor_si128(_mm_load_si128(p + 8 * r + k),
                                 _mm_load_si128(f + 8 * r + k));
        B1_UNROLL
        for (int k = 0; k < 8; k++)
            _mm_store_si128(o + 8 * r + k,
                            with_xor ? _mm_xor_si128(v[k], _mm_load_si128(o + 8 * r + k))
                                     : v[k]);
        b1_p(v);
        B1_UNROLL
        for (int k = 0; k < 8; k++)
            _mm_store_si128(w + 8 * r + k, v[k]);
    }
    /* Column c: cell c of every row. */
    B1_UNROLL
    for (int c = 0; c < 8; c++) {
        __m128i v[8];
        B1_UNROLL
        for (int k = 0; k < 8; k++)
            v[k] = _mm_load_si128(w + 8 * k + c);
        b1_p(v);
        B1_UNROLL
        for (int k = 0; k < 8; k++)
            _mm_store_si128(o + 8 * k + c,
                            _mm_xor_si128(v[k], _mm_load_si128(o + 8 * k + c)));
        if (c == 0)
            kdf_argon2_hint_next(hint, next->v[0]); /* word 0 is final now */
    }
    kdf_wipe(&z, sizeof z);
}

#endif /* KDF_BLAMKA_SSSE3_H */
