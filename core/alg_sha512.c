/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_sha512.c - SHA-512 compression (FIPS 180-4 section 6.4), portable C,
 * and its variant table.
 *
 * Same shape as alg_sha256.c: role rotation by macro argument order, the
 * schedule in a 16-word ring.  SHA-512 has no SHA-NI on the x86-64 CPUs we
 * target; the other variant is an AVX2 message schedule with BMI2 rounds
 * (core/simd/sha512_avx2.c), faster than this code where it is picked (its
 * figures against this code: doc/DESIGN.md "SIMD dispatch").  SHA-384
 * (section 6.5) is SHA-512 from other initial values, cut to 48 bytes:
 * kdf_md_bind_sha384() in alg_hmac.c, beside the binding it changes.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"

#include "alg_sha.h"

#define S0(x) (kdf_rotr64(x, 28) ^ kdf_rotr64(x, 34) ^ kdf_rotr64(x, 39))
#define S1(x) (kdf_rotr64(x, 14) ^ kdf_rotr64(x, 18) ^ kdf_rotr64(x, 41))
#define s0(x) (kdf_rotr64(x, 1) ^ kdf_rotr64(x, 8) ^ ((x) >> 7))
#define s1(x) (kdf_rotr64(x, 19) ^ kdf_rotr64(x, 61) ^ ((x) >> 6))
#define CH(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define MAJ(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))

/* One round; the adds are grouped so the e -> e' chain is S1 plus one add
 * (see core/simd/sha512_avx2.c). */
#define ROUND(a, b, c, d, e, f, g, h, k, w)                                              \
    do {                                                                                 \
        uint64_t hw_ = (h) + (k) + (w) + CH(e, f, g);                                    \
        uint64_t s1_ = S1(e);                                                            \
        uint64_t t2_ = S0(a) + MAJ(a, b, c);                                             \
        (d) = ((d) + hw_) + s1_;                                                         \
        (h) = (hw_ + t2_) + s1_;                                                         \
    } while (0)

#define SCHED(W, t)                                                                      \
    ((W)[(t) & 15] += s1((W)[((t) - 2) & 15]) + (W)[((t) - 7) & 15] +                   \
                      s0((W)[((t) - 15) & 15]))

void
kdf_sha512_compress_portable(void *state, const uint8_t *blocks, size_t nblocks)
{
    uint64_t *st = (uint64_t *)state;
    uint64_t W[16];

    while (nblocks-- > 0) {
        uint64_t a = st[0], b = st[1], c = st[2], d = st[3];
        uint64_t e = st[4], f = st[5], g = st[6], h = st[7];

        for (int t = 0; t < 16; t++)
            W[t] = kdf_load64_be(blocks + 8 * t);
        /* Fully unrolled: constant ring indices keep W in registers and
         * save the loop overhead. */
#if defined(__clang__)
#pragma unroll
#elif defined(__GNUC__)
#pragma GCC unroll 10
#endif
        for (int t = 0; t < 80; t += 8) {
            if (t >= 16) {
                for (int j = 0; j < 8; j++)
                    SCHED(W, t + j);
            }
            ROUND(a, b, c, d, e, f, g, h, kdf_sha512_k[t + 0], W[(t + 0) & 15]);
            ROUND(h, a, b, c, d, e, f, g, kdf_sha512_k[t + 1], W[(t + 1) & 15]);
            ROUND(g, h, a, b, c, d, e, f, kdf_sha512_k[t + 2], W[(t + 2) & 15]);
            ROUND(f, g, h, a, b, c, d, e, kdf_sha512_k[t + 3], W[(t + 3) & 15]);
            ROUND(e, f, g, h, a, b, c, d, kdf_sha512_k[t + 4], W[(t + 4) & 15]);
            ROUND(d, e, f, g, h, a, b, c, kdf_sha512_k[t + 5], W[(t + 5) & 15]);
            ROUND(c, d, e, f, g, h, a, b, kdf_sha512_k[t + 6], W[(t + 6) & 15]);
            ROUND(b, c, d, e, f, g, h, a, kdf_sha512_k[t + 7], W[(t + 7) & 15]);
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
    kdf_wipe(W, sizeof W);
}

/* Self-test: the padded block of "abc" from the IV gives the FIPS 180-4
 * example digest ddaf35a1 93617aba ... a54ca49f (NIST "SHA512.pdf"). */
static int
selftest512(const struct kdf_impl_desc *row)
{
    static const uint64_t want[8] = {
        0xddaf35a193617abaULL, 0xcc417349ae204131ULL, 0x12e6fa4e89a97ea2ULL,
        0x0a9eeee64b55d39aULL, 0x2192992a274fc1a8ULL, 0x36ba3c23a3feebbdULL,
        0x454d4423643ce80eULL, 0x2a9ac94fa54ca49fULL};
    return kdf_sha_row_selftest(row, kdf_sha512_iv, sizeof want, 128, want);
}

/* No variant interleaves two SHA-512 states (PBKDF2-SHA512 hashes usually
 * have one 64-byte output block, so there is nothing to pair). */
#ifdef HAVE_BMI2AVX2
static const struct kdf_sha_more sha512_avx2 = {NULL, kdf_sha512_pbkdf2_avx2, NULL};
#endif

#define ROW(name, needs, f, more) {name, needs, (kdf_generic_fn)(f), more, selftest512, 0}

/* Best first; portable last. */
static const struct kdf_impl_desc sha512_rows[] = {
#ifdef HAVE_BMI2AVX2
    ROW("avx2", KDF_CPU_AVX2 | KDF_CPU_BMI2, kdf_sha512_compress_avx2, &sha512_avx2),
#endif
#ifdef HAVE_ARMSHA512
    ROW("armv8", KDF_CPU_ARMSHA512, kdf_sha512_compress_armv8, NULL),
#endif
    ROW("portable", 0, kdf_sha512_compress_portable, NULL),
};
struct kdf_dispatch_table kdf_sha512_table = KDF_DISPATCH_TABLE("sha512", sha512_rows);

kdf_compress2_fn *
kdf_sha512_compress2_of(kdf_compress_fn *fn)
{
    const struct kdf_sha_more *m = kdf_sha_more_of(&kdf_sha512_table, fn);
    return m != NULL ? m->compress2 : NULL;
}

void
kdf_sha512_loops_of(kdf_compress_fn *fn, kdf_pbkdf2_loop_fn **loop1,
                    kdf_pbkdf2_loop2_fn **loop2)
{
    const struct kdf_sha_more *m = kdf_sha_more_of(&kdf_sha512_table, fn);
    *loop1 = m != NULL ? m->loop1 : NULL;
    *loop2 = m != NULL ? m->loop2 : NULL;
}
