/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha256_shani.c - SHA-256 compression with the x86 SHA extensions
 * (Intel SDM vol. 2: SHA256RNDS2, SHA256MSG1, SHA256MSG2), built only with
 * $(CFLAGS_SHANI) in core/libkdf_shani.la.
 *
 * Differs from the portable code only in representation: the state lives
 * in two registers as ABEF / CDGH (the layout SHA256RNDS2 wants), each
 * SHA256RNDS2 does two rounds, and the schedule for rounds 16..63 is made
 * four words at a time by MSG1/MSG2, four rounds ahead of its use
 * (FIPS 180-4 6.2.2).  The instruction sequence is Intel's published one
 * ("Intel SHA Extensions", Gulley et al., 2013).
 *
 * kdf_sha256_compress2_shani runs two independent states: one block's 32
 * SHA256RNDS2 are a single dependent chain, so issuing the other state's
 * rounds in between nearly doubles throughput (PBKDF2 output blocks).
 */
#include "kdf_prelude.h"

#include <immintrin.h>

#include "alg_sha.h"

#define KQ(q) _mm_load_si128((const __m128i *)&kdf_sha256_k[4 * (q)])

/* a b c d / e f g h  <->  ABEF / CDGH */
static inline void
load_state(const uint32_t *st, __m128i *abef, __m128i *cdgh)
{
    __m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)st), 0xB1); /* CDAB */
    __m128i u = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(st + 4)), 0x1B);
    *abef = _mm_alignr_epi8(t, u, 8);
    *cdgh = _mm_blend_epi16(u, t, 0xF0);
}

static inline void
store_state(uint32_t *st, __m128i abef, __m128i cdgh)
{
    __m128i t = _mm_shuffle_epi32(abef, 0x1B); /* FEBA */
    __m128i u = _mm_shuffle_epi32(cdgh, 0xB1); /* DCHG */
    _mm_storeu_si128((__m128i *)st, _mm_blend_epi16(t, u, 0xF0));
    _mm_storeu_si128((__m128i *)(st + 4), _mm_alignr_epi8(u, t, 8));
}

/* Rounds 4q..4q+3 of one state (S0 = ABEF, S1 = CDGH, M = the 4-word ring
 * of schedule vectors).  q is a literal, so the range tests fold away:
 * MSG2 finishes W[4q+4..] for q in 3..14, MSG1 starts W[4q+12..] for q in
 * 1..12 (Intel's sequence). */
#define QUAD(q, S0, S1, M)                                                               \
    do {                                                                                 \
        __m128i k_ = _mm_add_epi32(M[(q) & 3], KQ(q));                                   \
        S1 = _mm_sha256rnds2_epu32(S1, S0, k_);                                          \
        if ((q) >= 3 && (q) <= 14) {                                                     \
            __m128i t_ = _mm_alignr_epi8(M[(q) & 3], M[((q) + 3) & 3], 4);               \
            M[((q) + 1) & 3] = _mm_add_epi32(M[((q) + 1) & 3], t_);                      \
            M[((q) + 1) & 3] = _mm_sha256msg2_epu32(M[((q) + 1) & 3], M[(q) & 3]);       \
        }                                                                                \
        k_ = _mm_shuffle_epi32(k_, 0x0E);                                                \
        S0 = _mm_sha256rnds2_epu32(S0, S1, k_);                                          \
        if ((q) >= 1 && (q) <= 12)                                                       \
            M[((q) + 3) & 3] = _mm_sha256msg1_epu32(M[((q) + 3) & 3], M[(q) & 3]);       \
    } while (0)

#define ALL16(X)                                                                         \
    X(0);                                                                                \
    X(1);                                                                                \
    X(2);                                                                                \
    X(3);                                                                                \
    X(4);                                                                                \
    X(5);                                                                                \
    X(6);                                                                                \
    X(7);                                                                                \
    X(8);                                                                                \
    X(9);                                                                                \
    X(10);                                                                               \
    X(11);                                                                               \
    X(12);                                                                               \
    X(13);                                                                               \
    X(14);                                                                               \
    X(15)

void
kdf_sha256_compress_shani(void *state, const uint8_t *blocks, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    uint32_t *st = (uint32_t *)state;
    __m128i s0, s1;

    load_state(st, &s0, &s1);
    while (nblocks-- > 0) {
        __m128i save0 = s0, save1 = s1, m[4];
        for (int i = 0; i < 4; i++)
            m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * i)),
                                    bswap);
#define ONE(q) QUAD(q, s0, s1, m)
        ALL16(ONE);
#undef ONE
        s0 = _mm_add_epi32(s0, save0);
        s1 = _mm_add_epi32(s1, save1);
        blocks += 64;
    }
    store_state(st, s0, s1);
}

void
kdf_sha256_compress2_shani(void *state_a, const uint8_t *block_a, void *state_b,
                           const uint8_t *block_b)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i a0, a1, b0, b1, ma[4], mb[4];

    load_state((const uint32_t *)state_a, &a0, &a1);
    load_state((const uint32_t *)state_b, &b0, &b1);
    for (int i = 0; i < 4; i++) {
        ma[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block_a + 16 * i)),
                                 bswap);
        mb[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block_b + 16 * i)),
                                 bswap);
    }
    /* The two chains alternate quad by quad; the out-of-order core overlaps
     * them further.  The saved states are reloaded from memory at the end
     * rather than kept live, which leaves registers for the two rings. */
#define TWO(q)                                                                           \
    QUAD(q, a0, a1, ma);                                                                 \
    QUAD(q, b0, b1, mb)
    ALL16(TWO);
#undef TWO
    {
        __m128i sa0, sa1, sb0, sb1;
        load_state((const uint32_t *)state_a, &sa0, &sa1);
        load_state((const uint32_t *)state_b, &sb0, &sb1);
        store_state((uint32_t *)state_a, _mm_add_epi32(a0, sa0), _mm_add_epi32(a1, sa1));
        store_state((uint32_t *)state_b, _mm_add_epi32(b0, sb0), _mm_add_epi32(b1, sb1));
    }
}

/* ---- PBKDF2-HMAC-SHA256 iterations in registers (RFC 8018 5.2 F) ----
 *
 * Both blocks of an iteration are one digest followed by fixed padding:
 * message words W[0..7] = the previous digest, W[8] = 0x80000000,
 * W[9..14] = 0, W[15] = (64 + 32) * 8 = 768 bits.  The digest comes out of
 * the rounds as ABEF / CDGH plus the feed-forward; reordered to A..D / E..H
 * it *is* the vectors M0, M1 of the next block (the byte swap of a load
 * and of a store cancel), so nothing goes through memory.  T accumulates
 * in the same word form (XOR commutes with the byte order) and is stored
 * big-endian once at the end. */

/* ABEF / CDGH -> (A, B, C, D), (E, F, G, H) in lanes 0..3 */
static inline void
digest_words(__m128i abef, __m128i cdgh, __m128i *w0, __m128i *w1)
{
    __m128i t = _mm_shuffle_epi32(abef, 0x1B); /* FEBA */
    __m128i u = _mm_shuffle_epi32(cdgh, 0xB1); /* DCHG */
    *w0 = _mm_blend_epi16(t, u, 0xF0);
    *w1 = _mm_alignr_epi8(u, t, 8);
}

/* One padded block: state (S0, S1) from the pad state (P0, P1), message
 * (W0, W1, pad) ; on return W0, W1 hold the new digest words. */
#define PADDED_BLOCK(S0, S1, P0, P1, W0, W1, M)                                          \
    do {                                                                                 \
        S0 = P0;                                                                         \
        S1 = P1;                                                                         \
        M[0] = W0;                                                                       \
        M[1] = W1;                                                                       \
        M[2] = pad2;                                                                     \
        M[3] = pad3;                                                                     \
        ALL16(ONE_##M);                                                                  \
        digest_words(_mm_add_epi32(S0, P0), _mm_add_epi32(S1, P1), &W0, &W1);            \
    } while (0)

void
kdf_sha256_pbkdf2_shani(const void *ipad, const void *opad, const uint8_t *u, uint8_t *t,
                        uint32_t iterations)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    const __m128i pad2 = _mm_set_epi32(0, 0, 0, (int)0x80000000u);
    const __m128i pad3 = _mm_set_epi32(768, 0, 0, 0);
    __m128i i0, i1, o0, o1, s0, s1, m[4], w0, w1, t0, t1;

    load_state((const uint32_t *)ipad, &i0, &i1);
    load_state((const uint32_t *)opad, &o0, &o1);
    w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)u), bswap);
    w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(u + 16)), bswap);
    t0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t), bswap);
    t1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(t + 16)), bswap);
#define ONE_m(q) QUAD(q, s0, s1, m)
    for (uint32_t j = 1; j < iterations; j++) {
        PADDED_BLOCK(s0, s1, i0, i1, w0, w1, m); /* inner: H(K^ipad || U) */
        PADDED_BLOCK(s0, s1, o0, o1, w0, w1, m); /* outer: U_j */
        t0 = _mm_xor_si128(t0, w0);
        t1 = _mm_xor_si128(t1, w1);
    }
#undef ONE_m
    _mm_storeu_si128((__m128i *)t, _mm_shuffle_epi8(t0, bswap));
    _mm_storeu_si128((__m128i *)(t + 16), _mm_shuffle_epi8(t1, bswap));
}

void
kdf_sha256_pbkdf2x2_shani(const void *ipad, const void *opad, const uint8_t *u_a,
                          uint8_t *t_a, const uint8_t *u_b, uint8_t *t_b,
                          uint32_t iterations)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    const __m128i pad2 = _mm_set_epi32(0, 0, 0, (int)0x80000000u);
    const __m128i pad3 = _mm_set_epi32(768, 0, 0, 0);
    __m128i i0, i1, o0, o1;
    __m128i a0, a1, ma[4], wa0, wa1, ta0, ta1;
    __m128i b0, b1, mb[4], wb0, wb1, tb0, tb1;

    load_state((const uint32_t *)ipad, &i0, &i1);
    load_state((const uint32_t *)opad, &o0, &o1);
    wa0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)u_a), bswap);
    wa1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(u_a + 16)), bswap);
    wb0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)u_b), bswap);
    wb1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(u_b + 16)), bswap);
    ta0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t_a), bswap);
    ta1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(t_a + 16)), bswap);
    tb0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t_b), bswap);
    tb1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(t_b + 16)), bswap);
    /* the two chains alternate quad by quad, as in compress2 */
#define TWO(q)                                                                           \
    QUAD(q, a0, a1, ma);                                                                 \
    QUAD(q, b0, b1, mb)
#define BLOCK2(P0, P1)                                                                   \
    do {                                                                                 \
        a0 = b0 = P0;                                                                    \
        a1 = b1 = P1;                                                                    \
        ma[0] = wa0;                                                                     \
        ma[1] = wa1;                                                                     \
        mb[0] = wb0;                                                                     \
        mb[1] = wb1;                                                                     \
        ma[2] = mb[2] = pad2;                                                            \
        ma[3] = mb[3] = pad3;                                                            \
        ALL16(TWO);                                                                      \
        digest_words(_mm_add_epi32(a0, P0), _mm_add_epi32(a1, P1), &wa0, &wa1);          \
        digest_words(_mm_add_epi32(b0, P0), _mm_add_epi32(b1, P1), &wb0, &wb1);          \
    } while (0)
    for (uint32_t j = 1; j < iterations; j++) {
        BLOCK2(i0, i1);
        BLOCK2(o0, o1);
        ta0 = _mm_xor_si128(ta0, wa0);
        ta1 = _mm_xor_si128(ta1, wa1);
        tb0 = _mm_xor_si128(tb0, wb0);
        tb1 = _mm_xor_si128(tb1, wb1);
    }
#undef BLOCK2
#undef TWO
    _mm_storeu_si128((__m128i *)t_a, _mm_shuffle_epi8(ta0, bswap));
    _mm_storeu_si128((__m128i *)(t_a + 16), _mm_shuffle_epi8(ta1, bswap));
    _mm_storeu_si128((__m128i *)t_b, _mm_shuffle_epi8(tb0, bswap));
    _mm_storeu_si128((__m128i *)(t_b + 16), _mm_shuffle_epi8(tb1, bswap));
}
