/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha256_armv8.c - SHA-256 compression with the ARMv8 Cryptography
 * Extensions (Arm ARM: SHA256H, SHA256H2, SHA256SU0, SHA256SU1), built only
 * with $(CFLAGS_ARMSHA2) in core/libkdf_armsha2.la.
 *
 * The state stays in two registers, ABCD and EFGH, in the natural word
 * order; each SHA256H/SHA256H2 pair does four rounds, and the schedule of
 * words 16..63 is made four at a time, four rounds ahead of its use
 * (FIPS 180-4 section 6.2.2).
 */
#include "kdf_prelude.h"

#include <arm_neon.h>

#include "alg_sha.h"

void
kdf_sha256_compress_armv8(void *state, const uint8_t *blocks, size_t nblocks)
{
    uint32_t *st = (uint32_t *)state;
    uint32x4_t abcd = vld1q_u32(st), efgh = vld1q_u32(st + 4);

    for (; nblocks > 0; nblocks--, blocks += 64) {
        uint32x4_t abcd0 = abcd, efgh0 = efgh, w[4];

        for (int i = 0; i < 4; i++)
            w[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(blocks + 16 * i)));
        for (int g = 0; g < 16; g++) {
            uint32x4_t wk = vaddq_u32(w[g & 3], vld1q_u32(&kdf_sha256_k[4 * g]));
            uint32x4_t a = abcd;

            /* Words of group g + 4 from groups g .. g + 3. */
            if (g < 12)
                w[g & 3] = vsha256su1q_u32(vsha256su0q_u32(w[g & 3], w[(g + 1) & 3]),
                                           w[(g + 2) & 3], w[(g + 3) & 3]);
            abcd = vsha256hq_u32(abcd, efgh, wk);
            efgh = vsha256h2q_u32(efgh, a, wk);
        }
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
    }
    vst1q_u32(st, abcd);
    vst1q_u32(st + 4, efgh);
}
