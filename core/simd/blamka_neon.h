/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blamka_neon.h - BlaMka block function on AArch64 Advanced SIMD for
 * argon2_fill.h.  Same result as blamka_ref.h, same layout as
 * blamka_ssse3.h (one 16-byte cell per register, a, b, c, d as register
 * pairs); only the instructions differ:
 *   32x32->64 multiply   vmull_u32 of the narrowed halves (vmovn_u64)
 *   rotate right by 32   vrev64q_u32
 *   rotate by 24/16/63   shift left, then shift-right-and-insert (vsri)
 *   palignr by 8 bytes   vextq_u64
 * NEON is mandatory on AArch64, so this is the only vector row there.
 */
#ifndef KDF_BLAMKA_NEON_H
#define KDF_BLAMKA_NEON_H

#include <arm_neon.h>

#include "alg_argon2.h"

#define BN_INL static inline __attribute__((always_inline))
#if defined(__clang__)
#define BN_UNROLL _Pragma("clang loop unroll(full)")
#else
#define BN_UNROLL _Pragma("GCC unroll 16")
#endif

BN_INL uint64x2_t
bn_f(uint64x2_t x, uint64x2_t y)
{
    uint64x2_t z = vmull_u32(vmovn_u64(x), vmovn_u64(y));
    return vaddq_u64(vaddq_u64(x, y), vaddq_u64(z, z));
}
BN_INL uint64x2_t
bn_ror32(uint64x2_t x)
{
    return vreinterpretq_u64_u32(vrev64q_u32(vreinterpretq_u32_u64(x)));
}
BN_INL uint64x2_t
bn_ror24(uint64x2_t x)
{
    return vsriq_n_u64(vshlq_n_u64(x, 40), x, 24);
}
BN_INL uint64x2_t
bn_ror16(uint64x2_t x)
{
    return vsriq_n_u64(vshlq_n_u64(x, 48), x, 16);
}
BN_INL uint64x2_t
bn_ror63(uint64x2_t x)
{
    return vsriq_n_u64(vshlq_n_u64(x, 1), x, 63);
}

/* GB on the two halves: v[0..7] = a.lo a.hi b.lo b.hi c.lo c.hi d.lo d.hi */
BN_INL void
bn_g(uint64x2_t v[8])
{
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[h] = bn_f(v[h], v[2 + h]);
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[6 + h] = bn_ror32(veorq_u64(v[6 + h], v[h]));
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[4 + h] = bn_f(v[4 + h], v[6 + h]);
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[2 + h] = bn_ror24(veorq_u64(v[2 + h], v[4 + h]));
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[h] = bn_f(v[h], v[2 + h]);
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[6 + h] = bn_ror16(veorq_u64(v[6 + h], v[h]));
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[4 + h] = bn_f(v[4 + h], v[6 + h]);
    BN_UNROLL
    for (int h = 0; h < 2; h++)
        v[2 + h] = bn_ror63(veorq_u64(v[2 + h], v[4 + h]));
}

BN_INL void
bn_p(uint64x2_t v[8])
{
    uint64x2_t t0, t1;

    bn_g(v);
    /* b' = (w5 w6)(w7 w4), c' = (w10 w11)(w8 w9), d' = (w15 w12)(w13 w14) */
    t0 = vextq_u64(v[2], v[3], 1);
    t1 = vextq_u64(v[3], v[2], 1);
    v[2] = t0;
    v[3] = t1;
    t0 = v[4];
    v[4] = v[5];
    v[5] = t0;
    t0 = vextq_u64(v[7], v[6], 1);
    t1 = vextq_u64(v[6], v[7], 1);
    v[6] = t0;
    v[7] = t1;
    bn_g(v);
    t0 = vextq_u64(v[3], v[2], 1);
    t1 = vextq_u64(v[2], v[3], 1);
    v[2] = t0;
    v[3] = t1;
    t0 = v[4];
    v[4] = v[5];
    v[5] = t0;
    t0 = vextq_u64(v[6], v[7], 1);
    t1 = vextq_u64(v[7], v[6], 1);
    v[6] = t0;
    v[7] = t1;
}

BN_INL void
blamka_fill_block(const struct kdf_argon2_block *prev, const struct kdf_argon2_block *ref,
                  struct kdf_argon2_block *next, int with_xor,
                  const struct kdf_argon2_hint *hint)
{
    struct kdf_argon2_block z;
    const uint64_t *p = prev->v, *f = ref->v;
    uint64_t *o = next->v, *w = z.v;

    BN_UNROLL

    for (int r = 0; r < 8; r++) {
        uint64x2_t v[8];
        BN_UNROLL
        for (int k = 0; k < 8; k++)
            v[k] =
                veorq_u64(vld1q_u64(p + 16 * r + 2 * k), vld1q_u64(f + 16 * r + 2 * k));
        BN_UNROLL
        for (int k = 0; k < 8; k++)
            vst1q_u64(o + 16 * r + 2 * k,
                      with_xor ? veorq_u64(v[k], vld1q_u64(o + 16 * r + 2 * k)) : v[k]);
        bn_p(v);
        BN_UNROLL
        for (int k = 0; k < 8; k++)
            vst1q_u64(w + 16 * r + 2 * k, v[k]);
    }
    BN_UNROLL
    for (int c = 0; c < 8; c++) {
        uint64x2_t v[8];
        BN_UNROLL
        for (int k = 0; k < 8; k++)
            v[k] = vld1q_u64(w + 16 * k + 2 * c);
        bn_p(v);
        BN_UNROLL
        for (int k = 0; k < 8; k++)
            vst1q_u64(o + 16 * k + 2 * c, veorq_u64(v[k], vld1q_u64(o + 16 * k + 2 * c)));
        if (c == 0)
            kdf_argon2_hint_next(hint, next->v[0]); /* word 0 is final now */
    }
    kdf_wipe(&z, sizeof z);
}

#endif /* KDF_BLAMKA_NEON_H */
