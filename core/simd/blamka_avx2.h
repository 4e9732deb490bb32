/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blamka_avx2.h - BlaMka block function on AVX2 for argon2_fill.h.
 * Same result as blamka_ref.h.
 *
 * A ymm holds two 16-byte cells.  Row pass: a row's four vectors a, b, c,
 * d are its cells 0-1, 2-3, 4-5, 6-7, i.e. four plain loads; two rows are
 * mixed at once for ILP.  Column pass: two columns 2s, 2s+1 at once; the
 * vector "rows 2k, 2k+1 of column 2s" is the low lanes of the cells 2s-2s+1
 * registers of rows 2k and 2k+1 (vperm2i128), and the high lanes give
 * column 2s+1.  Sixteen ymm registers cannot hold the 32 of a block, so the
 * row pass output goes through a stack block; R = prev ^ ref waits in
 * `next` (XORed with the old block for version 0x13 later passes).
 */
#ifndef KDF_BLAMKA_AVX2_H
#define KDF_BLAMKA_AVX2_H

#include <immintrin.h>

#include "alg_argon2.h"

#define B2_INL static inline __attribute__((always_inline))
#if defined(__clang__)
#define B2_UNROLL _Pragma("clang loop unroll(full)")
#else
#define B2_UNROLL _Pragma("GCC unroll 16")
#endif
#define B2_SH(a, b, c, d) (((a) << 6) | ((b) << 4) | ((c) << 2) | (d))

B2_INL __m256i
b2_f(__m256i x, __m256i y)
{
    __m256i z = _mm256_mul_epu32(x, y);
    return _mm256_add_epi64(_mm256_add_epi64(x, y), _mm256_add_epi64(z, z));
}

/* Rotations right by 32 (dword swap), 24 and 16 (byte shuffles), 63. */
B2_INL __m256i
b2_ror32(__m256i x)
{
    return _mm256_shuffle_epi32(x, B2_SH(2, 3, 0, 1));
}
B2_INL __m256i
b2_ror24(__m256i x)
{
    const __m256i m =
        _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10, 3, 4, 5, 6,
                         7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);
    return _mm256_shuffle_epi8(x, m);
}
B2_INL __m256i
b2_ror16(__m256i x)
{
    const __m256i m =
        _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5,
                         6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
    return _mm256_shuffle_epi8(x, m);
}
B2_INL __m256i
b2_ror63(__m256i x)
{
    return _mm256_xor_si256(_mm256_srli_epi64(x, 63), _mm256_add_epi64(x, x));
}

B2_INL void
b2_g(__m256i *a, __m256i *b, __m256i *c, __m256i *d, int n)
{
    B2_UNROLL
    for (int j = 0; j < n; j++)
        a[j] = b2_f(a[j], b[j]);
    B2_UNROLL
    for (int j = 0; j < n; j++)
        d[j] = b2_ror32(_mm256_xor_si256(d[j], a[j]));
    B2_UNROLL
    for (int j = 0; j < n; j++)
        c[j] = b2_f(c[j], d[j]);
    B2_UNROLL
    for (int j = 0; j < n; j++)
        b[j] = b2_ror24(_mm256_xor_si256(b[j], c[j]));
    B2_UNROLL
    for (int j = 0; j < n; j++)
        a[j] = b2_f(a[j], b[j]);
    B2_UNROLL
    for (int j = 0; j < n; j++)
        d[j] = b2_ror16(_mm256_xor_si256(d[j], a[j]));
    B2_UNROLL
    for (int j = 0; j < n; j++)
        c[j] = b2_f(c[j], d[j]);
    B2_UNROLL
    for (int j = 0; j < n; j++)
        b[j] = b2_ror63(_mm256_xor_si256(b[j], c[j]));
}

/* P on n instances: columns, then diagonals (b, c, d rotated by 1, 2, 3). */
B2_INL void
b2_p(__m256i *a, __m256i *b, __m256i *c, __m256i *d, int n)
{
    b2_g(a, b, c, d, n);
    B2_UNROLL
    for (int j = 0; j < n; j++) {
        b[j] = _mm256_permute4x64_epi64(b[j], B2_SH(0, 3, 2, 1));
        c[j] = _mm256_permute4x64_epi64(c[j], B2_SH(1, 0, 3, 2));
        d[j] = _mm256_permute4x64_epi64(d[j], B2_SH(2, 1, 0, 3));
    }
    b2_g(a, b, c, d, n);
    B2_UNROLL
    for (int j = 0; j < n; j++) {
        b[j] = _mm256_permute4x64_epi64(b[j], B2_SH(2, 1, 0, 3));
        c[j] = _mm256_permute4x64_epi64(c[j], B2_SH(1, 0, 3, 2));
        d[j] = _mm256_permute4x64_epi64(d[j], B2_SH(0, 3, 2, 1));
    }
}

B2_INL void
blamka_fill_block(const struct kdf_argon2_block *prev, const struct kdf_argon2_block *ref,
                  struct kdf_argon2_block *next, int with_xor,
                  const struct kdf_argon2_hint *hint)
{
    struct kdf_argon2_block z;
    const __m256i *p = (const __m256i *)prev->v, *f = (const __m256i *)ref->v;
    __m256i *o = (__m256i *)next->v, *w = (__m256i *)z.v;

    /* Rows, two at a time: ymm 4r + s holds cells 2s, 2s+1 of row r. */
    B2_UNROLL
    for (int r = 0; r < 8; r += 2) {
        __m256i v[2][4];
        B2_UNROLL
        for (int h = 0; h < 2; h++) {
            B2_UNROLL
            for (int s = 0; s < 4; s++) {
                int k = 4 * (r + h) + s;
                v[h][s] =
                    _mm256_xor_si256(_mm256_load_si256(p + k), _mm256_load_si256(f + k));
            }
        }
        /* Every load of ref for these rows precedes the stores to next
         * (ref == next in the address generator). */
        B2_UNROLL
        for (int h = 0; h < 2; h++) {
            B2_UNROLL
            for (int s = 0; s < 4; s++) {
                int k = 4 * (r + h) + s;
                _mm256_store_si256(
                    o + k, with_xor ? _mm256_xor_si256(v[h][s], _mm256_load_si256(o + k))
                                    : v[h][s]);
            }
        }
        __m256i a[2] = {v[0][0], v[1][0]}, b[2] = {v[0][1], v[1][1]};
        __m256i c[2] = {v[0][2], v[1][2]}, d[2] = {v[0][3], v[1][3]};
        b2_p(a, b, c, d, 2);
        B2_UNROLL
        for (int h = 0; h < 2; h++) {
            _mm256_store_si256(w + 4 * (r + h), a[h]);
            _mm256_store_si256(w + 4 * (r + h) + 1, b[h]);
            _mm256_store_si256(w + 4 * (r + h) + 2, c[h]);
            _mm256_store_si256(w + 4 * (r + h) + 3, d[h]);
        }
    }
    /* Columns 2s and 2s+1 (instance 0 and 1). */
    B2_UNROLL
    for (int s = 0; s < 4; s++) {
        __m256i v[4][2]; /* [a,b,c,d][column] */
        B2_UNROLL
        for (int k = 0; k < 4; k++) {
            __m256i lo = _mm256_load_si256(w + 4 * (2 * k) + s);
            __m256i hi = _mm256_load_si256(w + 4 * (2 * k + 1) + s);
            v[k][0] = _mm256_permute2x128_si256(lo, hi, 0x20);
            v[k][1] = _mm256_permute2x128_si256(lo, hi, 0x31);
        }
        b2_p(v[0], v[1], v[2], v[3], 2);
        B2_UNROLL
        for (int k = 0; k < 4; k++) {
            __m256i lo = _mm256_permute2x128_si256(v[k][0], v[k][1], 0x20);
            __m256i hi = _mm256_permute2x128_si256(v[k][0], v[k][1], 0x31);
            int i0 = 4 * (2 * k) + s, i1 = 4 * (2 * k + 1) + s;
            _mm256_store_si256(o + i0, _mm256_xor_si256(lo, _mm256_load_si256(o + i0)));
            _mm256_store_si256(o + i1, _mm256_xor_si256(hi, _mm256_load_si256(o + i1)));
        }
        if (s == 0)
            kdf_argon2_hint_next(hint, next->v[0]); /* word 0 is final now */
    }
    kdf_wipe(&z, sizeof z);
}

#endif /* KDF_BLAMKA_AVX2_H */
