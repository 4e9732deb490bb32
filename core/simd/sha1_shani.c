/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sha1_shani.c - SHA-1 compression with the x86 SHA extensions
 * (Intel SDM vol. 2: SHA1RNDS4, SHA1NEXTE, SHA1MSG1, SHA1MSG2), built only
 * with $(CFLAGS_SHANI) in core/libkdf_shani.la.
 *
 * Differs from the portable code in representation: A..D sit in one
 * register (A in the top lane), E rides in the top lane of a second one and
 * is folded in by SHA1NEXTE; each SHA1RNDS4 does four rounds with the round
 * function and constant of stage q/5 (FIPS 180-4 4.1.1, 4.2.1); the schedule
 * W[t] = ROTL1(W[t-3]^W[t-8]^W[t-14]^W[t-16]) is produced four words at a
 * time by MSG1, a XOR and MSG2 (Intel's published sequence, Gulley et al.).
 * kdf_sha1_compress2_shani interleaves two independent states (PBKDF2
 * output blocks T_i, T_i+1), as in sha256_shani.c.
 */
#include "kdf_prelude.h"

#include <immintrin.h>

#include "alg_sha.h"

/* Rounds 4q..4q+3 of one state: ABCD, E[2] (alternating E registers),
 * M[4] the ring of schedule vectors.  q is a literal. */
#define QUAD(q, ABCD, E, M)                                                              \
    do {                                                                                 \
        if ((q) == 0)                                                                    \
            E[0] = _mm_add_epi32(E[0], M[0]);                                            \
        else                                                                             \
            E[(q) & 1] = _mm_sha1nexte_epu32(E[(q) & 1], M[(q) & 3]);                    \
        E[((q) + 1) & 1] = ABCD;                                                         \
        if ((q) >= 3 && (q) <= 18)                                                       \
            M[((q) + 1) & 3] = _mm_sha1msg2_epu32(M[((q) + 1) & 3], M[(q) & 3]);         \
        ABCD = _mm_sha1rnds4_epu32(ABCD, E[(q) & 1], (q) / 5);                           \
        if ((q) >= 1 && (q) <= 16)                                                       \
            M[((q) + 3) & 3] = _mm_sha1msg1_epu32(M[((q) + 3) & 3], M[(q) & 3]);         \
        if ((q) >= 2 && (q) <= 17)                                                       \
            M[((q) + 2) & 3] = _mm_xor_si128(M[((q) + 2) & 3], M[(q) & 3]);              \
    } while (0)

#define ALL20(X)                                                                         \
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
    X(15);                                                                               \
    X(16);                                                                               \
    X(17);                                                                               \
    X(18);                                                                               \
    X(19)

/* Whole-register byte reversal: message word 0 lands in the top lane. */
#define BSWAP_ALL() _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL)

static inline __m128i
load_abcd(const uint32_t *st)
{
    return _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)st), 0x1B);
}

void
kdf_sha1_compress_shani(void *state, const uint8_t *blocks, size_t nblocks)
{
    const __m128i bswap = BSWAP_ALL();
    uint32_t *st = (uint32_t *)state;
    __m128i abcd = load_abcd(st);
    __m128i e0 = _mm_set_epi32((int)st[4], 0, 0, 0);

    while (nblocks-- > 0) {
        __m128i abcd_save = abcd, e_save = e0, m[4], e[2];
        for (int i = 0; i < 4; i++)
            m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * i)),
                                    bswap);
        e[0] = e0;
        e[1] = _mm_setzero_si128();
#define ONE(q) QUAD(q, abcd, e, m)
        ALL20(ONE);
#undef ONE
        e0 = _mm_sha1nexte_epu32(e[0], e_save);
        abcd = _mm_add_epi32(abcd, abcd_save);
        blocks += 64;
    }
    _mm_storeu_si128((__m128i *)st, _mm_shuffle_epi32(abcd, 0x1B));
    st[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

void
kdf_sha1_compress2_shani(void *state_a, const uint8_t *block_a, void *state_b,
                         const uint8_t *block_b)
{
    const __m128i bswap = BSWAP_ALL();
    uint32_t *sa = (uint32_t *)state_a, *sb = (uint32_t *)state_b;
    __m128i abcd_a = load_abcd(sa), abcd_b = load_abcd(sb);
    __m128i ea[2], eb[2], ma[4], mb[4];

    ea[0] = _mm_set_epi32((int)sa[4], 0, 0, 0);
    eb[0] = _mm_set_epi32((int)sb[4], 0, 0, 0);
    ea[1] = eb[1] = _mm_setzero_si128();
    for (int i = 0; i < 4; i++) {
        ma[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block_a + 16 * i)),
                                 bswap);
        mb[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block_b + 16 * i)),
                                 bswap);
    }
#define TWO(q)                                                                           \
    QUAD(q, abcd_a, ea, ma);                                                             \
    QUAD(q, abcd_b, eb, mb)
    ALL20(TWO);
#undef TWO
    /* Feed-forward from the states still in memory (fewer live registers). */
    ea[0] = _mm_sha1nexte_epu32(ea[0], _mm_set_epi32((int)sa[4], 0, 0, 0));
    eb[0] = _mm_sha1nexte_epu32(eb[0], _mm_set_epi32((int)sb[4], 0, 0, 0));
    abcd_a = _mm_add_epi32(abcd_a, load_abcd(sa));
    abcd_b = _mm_add_epi32(abcd_b, load_abcd(sb));
    _mm_storeu_si128((__m128i *)sa, _mm_shuffle_epi32(abcd_a, 0x1B));
    sa[4] = (uint32_t)_mm_extract_epi32(ea[0], 3);
    _mm_storeu_si128((__m128i *)sb, _mm_shuffle_epi32(abcd_b, 0x1B));
    sb[4] = (uint32_t)_mm_extract_epi32(eb[0], 3);
}

/* ---- PBKDF2-HMAC-SHA1 iterations in registers (RFC 8018 5.2 F) ----
 *
 * As in sha256_shani.c: every block is the previous 20-byte digest and
 * fixed padding (W[5] = 0x80000000, W[15] = (64 + 20) * 8 = 672 bits).
 * After the feed-forward, ABCD (A in the top lane) is already the message
 * vector M0 of the next block, and E sits in the top lane of its register
 * with zeros below (the pad states' E registers are zero there), so
 * M1 = E | W[5]; nothing goes through memory.  T accumulates in the same
 * form; only the top lane of the E accumulator is meaningful. */

#define PAD1() _mm_set_epi32(0, (int)0x80000000u, 0, 0)
#define PAD3() _mm_set_epi32(0, 0, 0, 672)

/* One padded block from pad state (PA, PE); (W0, W1) in, new digest out. */
#define SHA1_PADDED(ABCD, E, M, PA, PE, W0, W1)                                          \
    do {                                                                                 \
        ABCD = PA;                                                                       \
        E[0] = PE;                                                                       \
        E[1] = _mm_setzero_si128();                                                      \
        M[0] = W0;                                                                       \
        M[1] = W1;                                                                       \
        M[2] = _mm_setzero_si128();                                                      \
        M[3] = PAD3();                                                                   \
        ALL20(ONE_##M);                                                                  \
        W0 = _mm_add_epi32(ABCD, PA);                                                    \
        W1 = _mm_or_si128(_mm_sha1nexte_epu32(E[0], PE), PAD1());                        \
    } while (0)

static inline void
load_pads(const void *ipad, const void *opad, __m128i *ia, __m128i *ie, __m128i *oa,
          __m128i *oe)
{
    const uint32_t *ip = (const uint32_t *)ipad, *op = (const uint32_t *)opad;
    *ia = load_abcd(ip);
    *oa = load_abcd(op);
    *ie = _mm_set_epi32((int)ip[4], 0, 0, 0);
    *oe = _mm_set_epi32((int)op[4], 0, 0, 0);
}

static inline void
load_words(const uint8_t *p, __m128i *w0, __m128i *w1)
{
    *w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), BSWAP_ALL());
    *w1 = _mm_or_si128(_mm_set_epi32((int)kdf_load32_be(p + 16), 0, 0, 0), PAD1());
}

static inline void
store_words(uint8_t *p, __m128i w0, __m128i w1)
{
    _mm_storeu_si128((__m128i *)p, _mm_shuffle_epi8(w0, BSWAP_ALL()));
    kdf_store32_be(p + 16, (uint32_t)_mm_extract_epi32(w1, 3));
}

void
kdf_sha1_pbkdf2_shani(const void *ipad, const void *opad, const uint8_t *u, uint8_t *t,
                      uint32_t iterations)
{
    __m128i ia, ie, oa, oe, abcd, e[2], m[4], w0, w1, t0, t1;

    load_pads(ipad, opad, &ia, &ie, &oa, &oe);
    load_words(u, &w0, &w1);
    load_words(t, &t0, &t1);
#define ONE_m(q) QUAD(q, abcd, e, m)
    for (uint32_t j = 1; j < iterations; j++) {
        SHA1_PADDED(abcd, e, m, ia, ie, w0, w1); /* inner */
        SHA1_PADDED(abcd, e, m, oa, oe, w0, w1); /* outer: U_j */
        t0 = _mm_xor_si128(t0, w0);
        t1 = _mm_xor_si128(t1, w1);
    }
#undef ONE_m
    store_words(t, t0, t1);
}

void
kdf_sha1_pbkdf2x2_shani(const void *ipad, const void *opad, const uint8_t *u_a,
                        uint8_t *t_a, const uint8_t *u_b, uint8_t *t_b, uint32_t iterations)
{
    __m128i ia, ie, oa, oe;
    __m128i aa, ea[2], ma[4], wa0, wa1, ta0, ta1;
    __m128i ab, eb[2], mb[4], wb0, wb1, tb0, tb1;

    load_pads(ipad, opad, &ia, &ie, &oa, &oe);
    load_words(u_a, &wa0, &wa1);
    load_words(t_a, &ta0, &ta1);
    load_words(u_b, &wb0, &wb1);
    load_words(t_b, &tb0, &tb1);
#define TWO(q)                                                                           \
    QUAD(q, aa, ea, ma);                                                                 \
    QUAD(q, ab, eb, mb)
#define BLOCK2(PA, PE)                                                                   \
    do {                                                                                 \
        aa = ab = PA;                                                                    \
        ea[0] = eb[0] = PE;                                                              \
        ea[1] = eb[1] = _mm_setzero_si128();                                             \
        ma[0] = wa0;                                                                     \
        ma[1] = wa1;                                                                     \
        mb[0] = wb0;                                                                     \
        mb[1] = wb1;                                                                     \
        ma[2] = mb[2] = _mm_setzero_si128();                                             \
        ma[3] = mb[3] = PAD3();                                                          \
        ALL20(TWO);                                                                      \
        wa0 = _mm_add_epi32(aa, PA);                                                     \
        wb0 = _mm_add_epi32(ab, PA);                                                     \
        wa1 = _mm_or_si128(_mm_sha1nexte_epu32(ea[0], PE), PAD1());                      \
        wb1 = _mm_or_si128(_mm_sha1nexte_epu32(eb[0], PE), PAD1());                      \
    } while (0)
    for (uint32_t j = 1; j < iterations; j++) {
        BLOCK2(ia, ie);
        BLOCK2(oa, oe);
        ta0 = _mm_xor_si128(ta0, wa0);
        ta1 = _mm_xor_si128(ta1, wa1);
        tb0 = _mm_xor_si128(tb0, wb0);
        tb1 = _mm_xor_si128(tb1, wb1);
    }
#undef BLOCK2
#undef TWO
    store_words(t_a, ta0, ta1);
    store_words(t_b, tb0, tb1);
}
