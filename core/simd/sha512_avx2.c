/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha512_avx2.c - SHA-512 compression with the message schedule in vector
 * registers and the rounds in scalar BMI2 code (RORX: rotate without
 * touching flags or the source), built only with $(CFLAGS_BMI2AVX2) in
 * core/libkdf_bmi2avx2.la.
 *
 * Why it pays: in the portable code each of rounds 16..79 also computes one
 * schedule word (two sigma functions, about 12 ALU ops) on the same four
 * integer ports as the round itself (about 20 ops).  Here the schedule
 * W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] (FIPS 180-4 6.4.2) is
 * made two words per step in 128-bit lanes (W[t] and W[t+1] depend only on
 * words at least two back), W[t] + K[t] is stored once, and the scalar
 * rounds only load it; the vector ports work in parallel with the rounds.
 * The round code is the portable one (alg_sha512.c), recompiled for BMI2.
 */
#include "kdf_internal.h"

#include <immintrin.h>

#include "alg_sha.h"

static const uint64_t K512[80] __attribute__((aligned(16))) = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL,
    0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL,
    0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL,
    0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
    0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL,
    0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL, 0x2de92c6f592b0275ULL,
    0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL,
    0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
    0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL,
    0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL,
    0x92722c851482353bULL, 0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL,
    0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
    0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL,
    0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL,
    0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL,
    0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL,
    0xc67178f2e372532bULL, 0xca273eceea26619cULL, 0xd186b8c721c0c207ULL,
    0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL,
    0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
    0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL,
    0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};

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

#define ROUND(a, b, c, d, e, f, g, h, wk)                                                \
    do {                                                                                 \
        uint64_t t1_ = (h) + S1(e) + CH(e, f, g) + (wk);                                 \
        uint64_t t2_ = S0(a) + MAJ(a, b, c);                                             \
        (d) += t1_;                                                                      \
        (h) = t1_ + t2_;                                                                 \
    } while (0)

void
kdf_sha512_compress_avx2(void *state, const uint8_t *blocks, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    uint64_t *st = (uint64_t *)state;
    uint64_t wk[80] __attribute__((aligned(16)));

    while (nblocks-- > 0) {
        uint64_t a = st[0], b = st[1], c = st[2], d = st[3];
        uint64_t e = st[4], f = st[5], g = st[6], h = st[7];
        __m128i w[8]; /* ring: w[i & 7] holds W[2i], W[2i+1] */

        for (int i = 0; i < 8; i++) {
            w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * i)),
                                    bswap);
            _mm_store_si128((__m128i *)&wk[2 * i],
                            _mm_add_epi64(w[i], _mm_load_si128((const __m128i *)&K512[2 * i])));
        }
        for (int i = 8; i < 40; i++) {
            /* W[2i-16..], W[2i-15..] (straddles), W[2i-7..] (straddles), W[2i-2..] */
            __m128i w16 = w[i & 7], w14 = w[(i + 1) & 7];
            __m128i w8 = w[(i + 4) & 7], w6 = w[(i + 5) & 7], w2 = w[(i + 7) & 7];
            __m128i x15 = _mm_alignr_epi8(w14, w16, 8), x7 = _mm_alignr_epi8(w6, w8, 8);
            __m128i n = _mm_add_epi64(_mm_add_epi64(w16, vs0(x15)),
                                      _mm_add_epi64(x7, vs1(w2)));
            w[i & 7] = n;
            _mm_store_si128((__m128i *)&wk[2 * i],
                            _mm_add_epi64(n, _mm_load_si128((const __m128i *)&K512[2 * i])));
        }
        for (int t = 0; t < 80; t += 8) {
            ROUND(a, b, c, d, e, f, g, h, wk[t + 0]);
            ROUND(h, a, b, c, d, e, f, g, wk[t + 1]);
            ROUND(g, h, a, b, c, d, e, f, wk[t + 2]);
            ROUND(f, g, h, a, b, c, d, e, wk[t + 3]);
            ROUND(e, f, g, h, a, b, c, d, wk[t + 4]);
            ROUND(d, e, f, g, h, a, b, c, wk[t + 5]);
            ROUND(c, d, e, f, g, h, a, b, wk[t + 6]);
            ROUND(b, c, d, e, f, g, h, a, wk[t + 7]);
        }
        st[0] += a;
        st[1] += b;
        st[2] += c;
        st[3] += d;
        st[4] += e;
        st[5] += f;
        st[6] += g;
        st[7] += h;
        blocks += 128;
    }
    kdf_wipe(wk, sizeof wk); /* message-derived words */
}
