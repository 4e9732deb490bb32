/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha1_armv8.c - SHA-1 compression with the ARMv8 Cryptography Extensions
 * (Arm ARM: SHA1C, SHA1P, SHA1M, SHA1H, SHA1SU0, SHA1SU1), built only with
 * $(CFLAGS_ARMSHA2) in core/libkdf_armsha2.la.
 *
 * ABCD stays in one register and E in a scalar; each SHA1C/P/M does four
 * rounds with the choice, parity and majority functions of FIPS 180-4
 * section 4.1.1, and the schedule of words 16..79 is made four at a time.
 */
#include "kdf_prelude.h"

#include <arm_neon.h>

#include "alg_sha.h"

void
kdf_sha1_compress_armv8(void *state, const uint8_t *blocks, size_t nblocks)
{
    static const uint32_t k[4] = {0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6};
    uint32_t *st = (uint32_t *)state;
    uint32x4_t abcd = vld1q_u32(st);
    uint32_t e = st[4];

    for (; nblocks > 0; nblocks--, blocks += 64) {
        uint32x4_t abcd0 = abcd, w[4];
        uint32_t e0 = e;

        for (int i = 0; i < 4; i++)
            w[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 16 * i)));
        for (int g = 0; g < 20; g++) {
            uint32x4_t wk = vaddq_u32(w[g & 3], vdupq_n_u32(k[g / 5]));
            uint32_t e1 = vsha1h_u32(vgetq_lane_u32(abcd, 0));

            if (g < 5)
                abcd = vsha1cq_u32(abcd, e, wk);
            else if (g < 10 || g >= 15)
                abcd = vsha1pq_u32(abcd, e, wk);
            else
                abcd = vsha1mq_u32(abcd, e, wk);
            e = e1;
            /* Words of group g + 4 from groups g .. g + 3. */
            if (g < 16)
                w[g & 3] = vsha1su1q_u32(vsha1su0q_u32(w[g & 3], w[(g + 1) & 3], w[(g + 2) & 3]),
                                         w[(g + 3) & 3]);
        }
        abcd = vaddq_u32(abcd, abcd0);
        e += e0;
    }
    vst1q_u32(st, abcd);
    st[4] = e;
}
