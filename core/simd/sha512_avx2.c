/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha512_avx2.c - SHA-512 compression with the message schedule in vector
 * registers and the rounds in scalar BMI2 code (RORX: rotate without
 * touching flags or the source), built only with $(CFLAGS_BMI2AVX2) in
 * core/libkdf_bmi2avx2.la.
 *
 * Why it pays: in the portable code each of rounds 16..79 also computes one
 * schedule word (two sigma functions, about 12 ALU ops) on the same four
 * integer ports as the round itself (about 22 ops).  Here the schedule
 * W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] (FIPS 180-4 6.4.2) is
 * made two words per step in 128-bit lanes (W[t] and W[t+1] depend only on
 * words at least two back), W[t] + K[t] is stored once, and the scalar
 * rounds only load it, so the vector ports work in parallel with the rounds.
 * Two details carry most of the gain (one block, chained, timed against
 * OpenSSL's SHA512_Transform; the variant's figures against the portable
 * code are in doc/DESIGN.md "SIMD dispatch", and bench/bench_pbkdf2.c times
 * PBKDF2-SHA512 against OpenSSL's):
 *   - the schedule steps are woven between the rounds, 16 words ahead, as
 *     OpenSSL's sha512-x86_64 does.  Computed all up front, they sat in
 *     front of the rounds in the in-order dispatch and took back more than
 *     the whole gain;
 *   - the round adds are grouped so that the e -> e' chain is S1 plus one
 *     add (d + h + W + K + Ch is formed off that chain).
 */
#include "kdf_prelude.h"

#include <immintrin.h>

#include "alg_sha.h"

/* 64-bit rotate right in each lane (AVX2 has no vector rotate). */
#define VROR(x, n) _mm_or_si128(_mm_srli_epi64(x, n), _mm_slli_epi64(x, 64 - (n)))

static inline __m128i
vs0(__m128i x)
{
    return _mm_xor_si128(_mm_xor_si128(VROR(x, 1), VROR(x, 8)), _mm_srli_epi64(x, 7));
}

static inline __m128i
vs1(__m128i x)
{
    return _mm_xor_si128(_mm_xor_si128(VROR(x, 19), VROR(x, 61)), _mm_srli_epi64(x, 6));
}

#define S0(x) (kdf_rotr64(x, 28) ^ kdf_rotr64(x, 34) ^ kdf_rotr64(x, 39))
#define S1(x) (kdf_rotr64(x, 14) ^ kdf_rotr64(x, 18) ^ kdf_rotr64(x, 41))
#define CH(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define MAJ(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))

/* One round (FIPS 180-4 6.4.2 step 3), adds grouped for a short e chain. */
#define ROUND(a, b, c, d, e, f, g, h, wk)                                                \
    do {                                                                                 \
        uint64_t hw_ = (h) + (wk) + CH(e, f, g);                                         \
        uint64_t s1_ = S1(e);                                                            \
        uint64_t t2_ = S0(a) + MAJ(a, b, c);                                             \
        (d) = ((d) + hw_) + s1_;                                                         \
        (h) = (hw_ + t2_) + s1_;                                                         \
    } while (0)

#define KV(i) _mm_load_si128((const __m128i *)&kdf_sha512_k[2 * (i)])

/* Schedule step i (8 <= i < 40): W[2i], W[2i+1] into ring slot i & 7 and
 * W + K into wk.  i is a literal, so the ring indices are constants. */
#define SCHED2(i)                                                                        \
    do {                                                                                 \
        if ((i) < 40) {                                                                  \
            __m128i x15_ = _mm_alignr_epi8(w[((i) + 1) & 7], w[(i) & 7], 8);             \
            __m128i x7_ = _mm_alignr_epi8(w[((i) + 5) & 7], w[((i) + 4) & 7], 8);        \
            __m128i n_ = _mm_add_epi64(_mm_add_epi64(w[(i) & 7], vs0(x15_)),             \
                                       _mm_add_epi64(x7_, vs1(w[((i) + 7) & 7])));       \
            w[(i) & 7] = n_;                                                             \
            _mm_store_si128((__m128i *)&wk[2 * (i)], _mm_add_epi64(n_, KV(i)));          \
        }                                                                                \
    } while (0)

/* Rounds t..t+7 and, woven in, the schedule 16 words ahead (W[t+16..t+23]),
 * so the vector work is in the instruction stream next to the rounds that
 * run while it executes (OpenSSL's sha512-x86_64 does the same). */
#define ROUNDS8(t)                                                                       \
    do {                                                                                 \
        ROUND(a, b, c, d, e, f, g, h, wk[(t) + 0]);                                      \
        ROUND(h, a, b, c, d, e, f, g, wk[(t) + 1]);                                      \
        SCHED2((t) / 2 + 8);                                                             \
        ROUND(g, h, a, b, c, d, e, f, wk[(t) + 2]);                                      \
        ROUND(f, g, h, a, b, c, d, e, wk[(t) + 3]);                                      \
        SCHED2((t) / 2 + 9);                                                             \
        ROUND(e, f, g, h, a, b, c, d, wk[(t) + 4]);                                      \
        ROUND(d, e, f, g, h, a, b, c, wk[(t) + 5]);                                      \
        SCHED2((t) / 2 + 10);                                                            \
        ROUND(c, d, e, f, g, h, a, b, wk[(t) + 6]);                                      \
        ROUND(b, c, d, e, f, g, h, a, wk[(t) + 7]);                                      \
        SCHED2((t) / 2 + 11);                                                            \
    } while (0)

/* The 80 rounds of one block, with w[0..7] and wk[0..15] loaded: out =
 * in + rounds(in) (FIPS 180-4 6.4.2 steps 2-4).  Inlined into both users so
 * the eight working variables stay in registers. */
static inline __attribute__((always_inline)) void
rounds80(const uint64_t *in, uint64_t *out, __m128i *w, uint64_t *wk)
{
    uint64_t a = in[0], b = in[1], c = in[2], d = in[3];
    uint64_t e = in[4], f = in[5], g = in[6], h = in[7];

    ROUNDS8(0);
    ROUNDS8(8);
    ROUNDS8(16);
    ROUNDS8(24);
    ROUNDS8(32);
    ROUNDS8(40);
    ROUNDS8(48);
    ROUNDS8(56);
    ROUNDS8(64);
    ROUNDS8(72);
    out[0] = a + in[0];
    out[1] = b + in[1];
    out[2] = c + in[2];
    out[3] = d + in[3];
    out[4] = e + in[4];
    out[5] = f + in[5];
    out[6] = g + in[6];
    out[7] = h + in[7];
}

void
kdf_sha512_compress_avx2(void *state, const uint8_t *blocks, size_t nblocks)
{
    const __m128i bswap =
        _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    uint64_t *st = (uint64_t *)state;
    uint64_t wk[80] __attribute__((aligned(16)));

    while (nblocks-- > 0) {
        __m128i w[8]; /* ring: w[i & 7] holds W[2i], W[2i+1] */

        for (int i = 0; i < 8; i++) {
            w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * i)),
                                    bswap);
            _mm_store_si128((__m128i *)&wk[2 * i], _mm_add_epi64(w[i], KV(i)));
        }
        rounds80(st, st, w, wk);
        blocks += 128;
    }
    kdf_wipe(wk, sizeof wk); /* message-derived words */
}

/* ---- PBKDF2-HMAC-SHA512 iterations (RFC 8018 5.2 F) ----
 * Every block is the previous 64-byte digest, then W[8] = 2^63,
 * W[9..14] = 0, W[15] = (128 + 64) * 8 = 1536 bits: the digest words go
 * straight into the schedule registers (no big-endian store and reload),
 * and W + K for the padding words is computed once. */
void
kdf_sha512_pbkdf2_avx2(const void *ipad, const void *opad, const uint8_t *u, uint8_t *t,
                       uint32_t iterations)
{
    const uint64_t *ip = (const uint64_t *)ipad, *op = (const uint64_t *)opad;
    const __m128i pad4 = _mm_set_epi64x(0, (long long)0x8000000000000000ULL);
    const __m128i pad7 = _mm_set_epi64x(1536, 0);
    uint64_t wk[80] __attribute__((aligned(16)));
    uint64_t dg[8], acc[8];
    __m128i w[8];

    for (int i = 0; i < 8; i++) {
        dg[i] = kdf_load64_be(u + 8 * i);
        acc[i] = kdf_load64_be(t + 8 * i);
    }
    _mm_store_si128((__m128i *)&wk[8], _mm_add_epi64(pad4, KV(4)));
    _mm_store_si128((__m128i *)&wk[10], KV(5));
    _mm_store_si128((__m128i *)&wk[12], KV(6));
    _mm_store_si128((__m128i *)&wk[14], _mm_add_epi64(pad7, KV(7)));
    for (uint32_t j = 1; j < iterations; j++) {
        /* inner H(K^ipad || U_{j-1}), then outer: U_j.  One copy of the
         * rounds in the loop: two inlined copies (about 13 KB each) would
         * not fit the op cache together, and measured slower. */
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 4; i++) {
                w[i] = _mm_set_epi64x((long long)dg[2 * i + 1], (long long)dg[2 * i]);
                _mm_store_si128((__m128i *)&wk[2 * i], _mm_add_epi64(w[i], KV(i)));
            }
            w[4] = pad4;
            w[5] = w[6] = _mm_setzero_si128();
            w[7] = pad7;
            rounds80(k == 0 ? ip : op, dg, w, wk);
        }
        for (int i = 0; i < 8; i++)
            acc[i] ^= dg[i];
    }
    for (int i = 0; i < 8; i++)
        kdf_store64_be(t + 8 * i, acc[i]);
    kdf_wipe(wk, sizeof wk);
    kdf_wipe(dg, sizeof dg);
    kdf_wipe(acc, sizeof acc);
}
