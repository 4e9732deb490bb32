/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blamka_avx512f.h - BlaMka block function on AVX-512F for argon2_fill.h.
 * Same result as blamka_ref.h; only the data layout differs.
 *
 * The whole 1 KiB block lives in 16 zmm registers for both passes.  View
 * the block as an 8x8 matrix of 16-byte cells M[row][col].  One P instance
 * works on four 256-bit vectors a, b, c, d (cells 0-1, 2-3, 4-5, 6-7 of a
 * row, or rows 0-1, 2-3, 4-5, 6-7 of a column), so a zmm carries two
 * instances side by side and the four vectors of eight instances fill the
 * 16 registers:
 *   row pass     X[q][s] = [ M[2q][2s] M[2q][2s+1] | M[2q+1][2s] M[2q+1][2s+1] ]
 *   column pass  Y[s][q] = [ M[2q][2s] M[2q+1][2s] | M[2q][2s+1] M[2q+1][2s+1] ]
 * so the column layout is the row layout with the register grid transposed
 * (free: it is only which variable we call a, b, c, d) and the middle two
 * cells of each register swapped (one vshufi64x2).  There is no store or
 * reload between the passes; prev ^ ref (the R of RFC 9106 section 3.5)
 * waits in `next` itself, which the final XOR reads back from L1.
 */
#ifndef KDF_BLAMKA_AVX512F_H
#define KDF_BLAMKA_AVX512F_H

#include <immintrin.h>

#include "alg_argon2.h"

/* Every loop below must be unrolled so that the arrays become registers;
 * -O2 alone leaves them in memory. */
#if defined(__clang__)
#define B5_UNROLL _Pragma("clang loop unroll(full)")
#else
#define B5_UNROLL _Pragma("GCC unroll 16")
#endif
#define B5_SH(a, b, c, d) (((a) << 6) | ((b) << 4) | ((c) << 2) | (d))

/* x + y + 2 * lo32(x) * lo32(y), per 64-bit lane (RFC 9106 section 3.6) */
static inline __attribute__((always_inline)) __m512i
b5_f(__m512i x, __m512i y)
{
    __m512i z = _mm512_mul_epu32(x, y);
    return _mm512_add_epi64(_mm512_add_epi64(x, y), _mm512_add_epi64(z, z));
}

/* GB on n register groups at once (n independent chains for ILP). */
static inline __attribute__((always_inline)) void
b5_g(__m512i *a, __m512i *b, __m512i *c, __m512i *d, int n)
{
    B5_UNROLL
    for (int j = 0; j < n; j++)
        a[j] = b5_f(a[j], b[j]);
    B5_UNROLL
    for (int j = 0; j < n; j++)
        d[j] = _mm512_ror_epi64(_mm512_xor_si512(d[j], a[j]), 32);
    B5_UNROLL
    for (int j = 0; j < n; j++)
        c[j] = b5_f(c[j], d[j]);
    B5_UNROLL
    for (int j = 0; j < n; j++)
        b[j] = _mm512_ror_epi64(_mm512_xor_si512(b[j], c[j]), 24);
    B5_UNROLL
    for (int j = 0; j < n; j++)
        a[j] = b5_f(a[j], b[j]);
    B5_UNROLL
    for (int j = 0; j < n; j++)
        d[j] = _mm512_ror_epi64(_mm512_xor_si512(d[j], a[j]), 16);
    B5_UNROLL
    for (int j = 0; j < n; j++)
        c[j] = b5_f(c[j], d[j]);
    B5_UNROLL
    for (int j = 0; j < n; j++)
        b[j] = _mm512_ror_epi64(_mm512_xor_si512(b[j], c[j]), 63);
}

/* P on 2n instances: columns of each 4x4 word matrix, then diagonals.
 * vpermq within 256-bit halves rotates b, c, d by 1, 2, 3 words. */
static inline __attribute__((always_inline)) void
b5_p(__m512i *a, __m512i *b, __m512i *c, __m512i *d, int n)
{
    b5_g(a, b, c, d, n);
    B5_UNROLL
    for (int j = 0; j < n; j++) {
        b[j] = _mm512_permutex_epi64(b[j], B5_SH(0, 3, 2, 1));
        c[j] = _mm512_permutex_epi64(c[j], B5_SH(1, 0, 3, 2));
        d[j] = _mm512_permutex_epi64(d[j], B5_SH(2, 1, 0, 3));
    }
    b5_g(a, b, c, d, n);
    B5_UNROLL
    for (int j = 0; j < n; j++) {
        b[j] = _mm512_permutex_epi64(b[j], B5_SH(2, 1, 0, 3));
        c[j] = _mm512_permutex_epi64(c[j], B5_SH(1, 0, 3, 2));
        d[j] = _mm512_permutex_epi64(d[j], B5_SH(0, 3, 2, 1));
    }
}

static inline __attribute__((always_inline)) void
blamka_fill_block(const struct kdf_argon2_block *prev, const struct kdf_argon2_block *ref,
                  struct kdf_argon2_block *next, int with_xor,
                  const struct kdf_argon2_hint *hint)
{
    __m512i n[16], x[4][4], t[4][4];
    __m512i *out = (__m512i *)next->v;

    /* R = prev ^ ref, natural layout: n[2r], n[2r+1] = cells 0-3, 4-7 of
     * row r.  All of prev and ref is read before next is written. */
    B5_UNROLL
    for (int k = 0; k < 16; k++)
        n[k] = _mm512_xor_si512(_mm512_load_si512((const void *)(prev->v + 8 * k)),
                                _mm512_load_si512((const void *)(ref->v + 8 * k)));
    B5_UNROLL
    for (int k = 0; k < 16; k++)
        _mm512_store_si512((void *)(out + k),
                           with_xor ? _mm512_xor_si512(n[k], _mm512_load_si512(out + k))
                                    : n[k]);
    /* To the row layout: pair the 256-bit halves of rows 2q and 2q+1. */
    B5_UNROLL
    for (int q = 0; q < 4; q++) {
        x[q][0] = _mm512_shuffle_i64x2(n[4 * q], n[4 * q + 2], B5_SH(1, 0, 1, 0));
        x[q][1] = _mm512_shuffle_i64x2(n[4 * q], n[4 * q + 2], B5_SH(3, 2, 3, 2));
        x[q][2] = _mm512_shuffle_i64x2(n[4 * q + 1], n[4 * q + 3], B5_SH(1, 0, 1, 0));
        x[q][3] = _mm512_shuffle_i64x2(n[4 * q + 1], n[4 * q + 3], B5_SH(3, 2, 3, 2));
    }
    /* Row pass: a, b, c, d of rows 2q, 2q+1 are x[q][0..3]. */
    B5_UNROLL
    for (int s = 0; s < 4; s++) {
        B5_UNROLL
        for (int q = 0; q < 4; q++)
            t[s][q] = x[q][s];
    }
    b5_p(t[0], t[1], t[2], t[3], 4);
    /* Column pass: a, b, c, d of columns 2s, 2s+1 are x[0..3][s] with the
     * middle cells swapped. */
    B5_UNROLL
    for (int s = 0; s < 4; s++) {
        B5_UNROLL
        for (int q = 0; q < 4; q++)
            x[q][s] = _mm512_shuffle_i64x2(t[s][q], t[s][q], B5_SH(3, 1, 2, 0));
    }
    if (hint == NULL) {
        b5_p(x[0], x[1], x[2], x[3], 4);
    } else {
        /* Columns 0-1 first: word 0 of the output is word 0 of their a
         * register XOR word 0 of R (or R ^ old next, stored in next).
         * Prefetch the next reference block, then do columns 2-7 while
         * it arrives.  The single P is latency-bound, but the other three
         * are independent and overlap with it out of order. */
        __m512i a1[1] = {x[0][0]}, b1[1] = {x[1][0]}, c1[1] = {x[2][0]},
                d1[1] = {x[3][0]};
        b5_p(a1, b1, c1, d1, 1);
        x[0][0] = a1[0];
        x[1][0] = b1[0];
        x[2][0] = c1[0];
        x[3][0] = d1[0];
        kdf_argon2_hint_next(
            hint,
            (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(x[0][0])) ^ next->v[0]);
        __m512i a3[3] = {x[0][1], x[0][2], x[0][3]}, b3[3] = {x[1][1], x[1][2], x[1][3]},
                c3[3] = {x[2][1], x[2][2], x[2][3]}, d3[3] = {x[3][1], x[3][2], x[3][3]};
        b5_p(a3, b3, c3, d3, 3);
        B5_UNROLL
        for (int s = 1; s < 4; s++) {
            x[0][s] = a3[s - 1];
            x[1][s] = b3[s - 1];
            x[2][s] = c3[s - 1];
            x[3][s] = d3[s - 1];
        }
    }
    /* Back to rows (the swap is its own inverse), then natural order, and
     * XOR into next, which holds R (or R ^ old next). */
    B5_UNROLL
    for (int q = 0; q < 4; q++) {
        B5_UNROLL
        for (int s = 0; s < 4; s++)
            t[q][s] = _mm512_shuffle_i64x2(x[q][s], x[q][s], B5_SH(3, 1, 2, 0));
    }
    B5_UNROLL
    for (int q = 0; q < 4; q++) {
        n[4 * q] = _mm512_shuffle_i64x2(t[q][0], t[q][1], B5_SH(1, 0, 1, 0));
        n[4 * q + 2] = _mm512_shuffle_i64x2(t[q][0], t[q][1], B5_SH(3, 2, 3, 2));
        n[4 * q + 1] = _mm512_shuffle_i64x2(t[q][2], t[q][3], B5_SH(1, 0, 1, 0));
        n[4 * q + 3] = _mm512_shuffle_i64x2(t[q][2], t[q][3], B5_SH(3, 2, 3, 2));
    }
    B5_UNROLL
    for (int k = 0; k < 16; k++)
        _mm512_store_si512((void *)(out + k),
                           _mm512_xor_si512(n[k], _mm512_load_si512(out + k)));
}

#endif /* KDF_BLAMKA_AVX512F_H */
