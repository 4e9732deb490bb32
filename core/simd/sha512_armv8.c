/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha512_armv8.c - SHA-512 compression with the ARMv8.2 SHA-512
 * instructions (Arm ARM: SHA512H, SHA512H2, SHA512SU0, SHA512SU1), built
 * only with $(CFLAGS_ARMSHA512) in core/libkdf_armsha512.la.
 *
 * The state lives in pairs of words (ab, cd, ef, gh) plus one spare
 * register; each double round (one SHA512H + SHA512H2) moves the pairs one
 * place, so the five registers rotate with a period of five double rounds
 * and are back in place after the 40 of a block.  The instruction order is
 * the one of the Linux kernel's sha512-ce-core.S.  The schedule of words
 * 16..79 is made two at a time, eight double rounds ahead of its use.
 */
#include "kdf_prelude.h"

#include <arm_neon.h>

#include "alg_sha.h"

/* Which register holds which pair in double round i % 5. */
static const uint8_t g_rot[5][5] = {
    {0, 1, 2, 3, 4}, {3, 0, 4, 2, 1}, {2, 3, 1, 4, 0}, {4, 2, 0, 1, 3}, {1, 4, 3, 0, 2},
};

void
kdf_sha512_compress_armv8(void *state, const uint8_t *blocks, size_t nblocks)
{
    uint64_t *st = (uint64_t *)state;
    uint64x2_t s0[4];

    for (int i = 0; i < 4; i++)
        s0[i] = vld1q_u64(st + 2 * i);
    for (; nblocks > 0; nblocks--, blocks += 128) {
        uint64x2_t s[5], m[8];

        for (int i = 0; i < 4; i++)
            s[i] = s0[i];
        s[4] = vdupq_n_u64(0);
        for (int i = 0; i < 8; i++)
            m[i] = vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(blocks + 16 * i)));
        for (int i = 0; i < 40; i++) {
            const uint8_t *r = g_rot[i % 5];
            int in0 = i & 7, in1 = (i + 1) & 7, in2 = (i + 7) & 7, in3 = (i + 4) & 7,
                in4 = (i + 5) & 7;
            uint64x2_t wk = vaddq_u64(vld1q_u64(&kdf_sha512_k[2 * i]), m[in0]);
            uint64x2_t fg = vextq_u64(s[r[2]], s[r[3]], 1);
            uint64x2_t de = vextq_u64(s[r[1]], s[r[2]], 1);
            uint64x2_t x = vextq_u64(m[in3], m[in4], 1);

            s[r[3]] = vaddq_u64(s[r[3]], vextq_u64(wk, wk, 1));
            if (i < 32)
                m[in0] = vsha512su0q_u64(m[in0], m[in1]);
            s[r[3]] = vsha512hq_u64(s[r[3]], fg, de);
            if (i < 32)
                m[in0] = vsha512su1q_u64(m[in0], m[in2], x);
            s[r[4]] = vaddq_u64(s[r[1]], s[r[3]]);
            s[r[3]] = vsha512h2q_u64(s[r[3]], s[r[1]], s[r[0]]);
        }
        for (int i = 0; i < 4; i++)
            s0[i] = vaddq_u64(s0[i], s[i]);
    }
    for (int i = 0; i < 4; i++)
        vst1q_u64(st + 2 * i, s0[i]);
}
