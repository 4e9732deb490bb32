/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_sha256.c - SHA-256 compression (FIPS 180-4 section 6.2), portable C,
 * and its variant table.
 *
 * The portable function keeps the eight working variables in locals and
 * rotates their roles by macro argument order instead of moving values, so
 * eight rounds are one loop body; the message schedule is a 16-word ring
 * (FIPS 180-4 6.2.2 step 1 computed on the fly), which keeps it in
 * registers.  With -O2 this is within a few percent of OpenSSL's generic C.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"

#include "alg_sha.h"

#define S0(x) (kdf_rotr32(x, 2) ^ kdf_rotr32(x, 13) ^ kdf_rotr32(x, 22))
#define S1(x) (kdf_rotr32(x, 6) ^ kdf_rotr32(x, 11) ^ kdf_rotr32(x, 25))
#define s0(x) (kdf_rotr32(x, 7) ^ kdf_rotr32(x, 18) ^ ((x) >> 3))
#define s1(x) (kdf_rotr32(x, 17) ^ kdf_rotr32(x, 19) ^ ((x) >> 10))
/* Ch and Maj in their cheaper equivalent forms (same truth tables). */
#define CH(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define MAJ(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))

/* One round; the roles of a..h rotate through the argument order. */
#define ROUND(a, b, c, d, e, f, g, h, k, w)                                              \
    do {                                                                                 \
        uint32_t t1_ = (h) + S1(e) + CH(e, f, g) + (k) + (w);                            \
        uint32_t t2_ = S0(a) + MAJ(a, b, c);                                             \
        (d) += t1_;                                                                      \
        (h) = t1_ + t2_;                                                                 \
    } while (0)

/* W[t] for t >= 16 in a ring of 16: W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] */
#define SCHED(W, t)                                                                      \
    ((W)[(t) & 15] += s1((W)[((t) - 2) & 15]) + (W)[((t) - 7) & 15] +                   \
                      s0((W)[((t) - 15) & 15]))

void
kdf_sha256_compress_portable(void *state, const uint8_t *blocks, size_t nblocks)
{
    uint32_t *st = (uint32_t *)state;
    uint32_t W[16];

    while (nblocks-- > 0) {
        uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
        uint32_t e = st[4], f = st[5], g = st[6], h = st[7];

        for (int t = 0; t < 16; t++)
            W[t] = kdf_load32_be(blocks + 4 * t);
        for (int t = 0; t < 64; t += 8) {
            if (t >= 16) {
                for (int j = 0; j < 8; j++)
                    SCHED(W, t + j);
            }
            ROUND(a, b, c, d, e, f, g, h, kdf_sha256_k[t + 0], W[(t + 0) & 15]);
            ROUND(h, a, b, c, d, e, f, g, kdf_sha256_k[t + 1], W[(t + 1) & 15]);
            ROUND(g, h, a, b, c, d, e, f, kdf_sha256_k[t + 2], W[(t + 2) & 15]);
            ROUND(f, g, h, a, b, c, d, e, kdf_sha256_k[t + 3], W[(t + 3) & 15]);
            ROUND(e, f, g, h, a, b, c, d, kdf_sha256_k[t + 4], W[(t + 4) & 15]);
            ROUND(d, e, f, g, h, a, b, c, kdf_sha256_k[t + 5], W[(t + 5) & 15]);
            ROUND(c, d, e, f, g, h, a, b, kdf_sha256_k[t + 6], W[(t + 6) & 15]);
            ROUND(b, c, d, e, f, g, h, a, kdf_sha256_k[t + 7], W[(t + 7) & 15]);
        }
        st[0] += a;
        st[1] += b;
        st[2] += c;
        st[3] += d;
        st[4] += e;
        st[5] += f;
        st[6] += g;
        st[7] += h;
        blocks += 64;
    }
    /* W held message words: the HMAC key block or a PBKDF2 U value. */
    kdf_wipe(W, sizeof W);
}

/* Self-test: one compression of the padded block of "abc" from the IV must
 * give the FIPS 180-4 example digest (NIST example "SHA256.pdf"):
 * ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad. */
static int
selftest256(const struct kdf_impl_desc *row)
{
    static const uint32_t want[8] = {0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223,
                                     0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad};
    return kdf_sha_row_selftest(row, kdf_sha256_iv, sizeof want, 64, want);
}

#ifdef HAVE_SHANI
static const struct kdf_sha_more sha256_shani = {
    kdf_sha256_compress2_shani, kdf_sha256_pbkdf2_shani, kdf_sha256_pbkdf2x2_shani};
#endif

#define ROW(name, needs, f, more) {name, needs, (kdf_generic_fn)(f), more, selftest256, 0}

/* Best first; portable last. */
static const struct kdf_impl_desc sha256_rows[] = {
#ifdef HAVE_SHANI
    ROW("shani", KDF_CPU_SHANI, kdf_sha256_compress_shani, &sha256_shani),
#endif
#ifdef HAVE_ARMSHA2
    ROW("armv8", KDF_CPU_ARMSHA2, kdf_sha256_compress_armv8, NULL),
#endif
    ROW("portable", 0, kdf_sha256_compress_portable, NULL),
};
struct kdf_dispatch_table kdf_sha256_table = KDF_DISPATCH_TABLE("sha256", sha256_rows);

kdf_compress2_fn *
kdf_sha256_compress2_of(kdf_compress_fn *fn)
{
    const struct kdf_sha_more *m = kdf_sha_more_of(&kdf_sha256_table, fn);
    return m != NULL ? m->compress2 : NULL;
}

void
kdf_sha256_loops_of(kdf_compress_fn *fn, kdf_pbkdf2_loop_fn **loop1,
                    kdf_pbkdf2_loop2_fn **loop2)
{
    const struct kdf_sha_more *m = kdf_sha_more_of(&kdf_sha256_table, fn);
    *loop1 = m != NULL ? m->loop1 : NULL;
    *loop2 = m != NULL ? m->loop2 : NULL;
}
