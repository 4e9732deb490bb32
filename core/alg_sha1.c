/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_sha1.c - SHA-1 compression (FIPS 180-4 section 6.1), portable C, and
 * its variant table.
 *
 * SHA-1 is here only for PBKDF2-HMAC-SHA1 (passlib "$pbkdf2$", Django
 * "pbkdf2_sha1", RFC 6070): HMAC-SHA1 does not depend on SHA-1's collision
 * resistance (RFC 2104 section 6, RFC 6151 for the MD5 analogue).
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"

#include "alg_sha.h"

/* FIPS 180-4 section 4.1.1 f_t and section 4.2.1 K_t, per 20-round stage;
 * Ch and Maj in their cheaper equivalent forms. */
#define F0(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define F1(b, c, d) ((b) ^ (c) ^ (d))
#define F2(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))
#define K0 0x5a827999u
#define K1 0x6ed9eba1u
#define K2 0x8f1bbcdcu
#define K3 0xca62c1d6u

/* W[t] = ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) in a ring of 16. */
#define W_(t)                                                                            \
    (W[(t) & 15] = kdf_rotl32(W[((t) - 3) & 15] ^ W[((t) - 8) & 15] ^                   \
                                  W[((t) - 14) & 15] ^ W[(t) & 15],                      \
                              1))

/* One round: the five roles rotate by argument order (e += ..., b = ROTL30). */
#define R(a, b, c, d, e, f, k, w)                                                        \
    do {                                                                                 \
        (e) += kdf_rotl32(a, 5) + f(b, c, d) + (k) + (w);                                \
        (b) = kdf_rotl32(b, 30);                                                         \
    } while (0)

#define R5(t, f, k, WX)                                                                  \
    do {                                                                                 \
        R(a, b, c, d, e, f, k, WX(t + 0));                                               \
        R(e, a, b, c, d, f, k, WX(t + 1));                                               \
        R(d, e, a, b, c, f, k, WX(t + 2));                                               \
        R(c, d, e, a, b, f, k, WX(t + 3));                                               \
        R(b, c, d, e, a, f, k, WX(t + 4));                                               \
    } while (0)

#define WL(t) (W[(t)])

void
kdf_sha1_compress_portable(void *state, const uint8_t *blocks, size_t nblocks)
{
    uint32_t *st = (uint32_t *)state;
    uint32_t W[16];

    while (nblocks-- > 0) {
        uint32_t a = st[0], b = st[1], c = st[2], d = st[3], e = st[4];

        for (int t = 0; t < 16; t++)
            W[t] = kdf_load32_be(blocks + 4 * t);
        R5(0, F0, K0, WL);
        R5(5, F0, K0, WL);
        R5(10, F0, K0, WL);
        R(a, b, c, d, e, F0, K0, W[15]);
        R(e, a, b, c, d, F0, K0, W_(16));
        R(d, e, a, b, c, F0, K0, W_(17));
        R(c, d, e, a, b, F0, K0, W_(18));
        R(b, c, d, e, a, F0, K0, W_(19));
        for (int t = 20; t < 40; t += 5)
            R5(t, F1, K1, W_);
        for (int t = 40; t < 60; t += 5)
            R5(t, F2, K2, W_);
        for (int t = 60; t < 80; t += 5)
            R5(t, F1, K3, W_);
        st[0] += a;
        st[1] += b;
        st[2] += c;
        st[3] += d;
        st[4] += e;
        blocks += 64;
    }
    kdf_wipe(W, sizeof W);
}

/* Self-test: "abc" padded, from the IV, gives the FIPS 180-4 example
 * a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d (NIST "SHA1.pdf"). */
static int
selftest1(const struct kdf_impl_desc *row)
{
    static const uint32_t want[5] = {0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c,
                                     0x9cd0d89d};
    return kdf_sha_row_selftest(row, kdf_sha1_iv, sizeof want, 64, want);
}

#ifdef HAVE_SHANI
static const struct kdf_sha_more sha1_shani = {
    kdf_sha1_compress2_shani, kdf_sha1_pbkdf2_shani, kdf_sha1_pbkdf2x2_shani};
#endif

#define ROW(name, needs, f, more) {name, needs, (kdf_generic_fn)(f), more, selftest1, 0}

/* Best first; portable last. */
static const struct kdf_impl_desc sha1_rows[] = {
#ifdef HAVE_SHANI
    ROW("shani", KDF_CPU_SHANI, kdf_sha1_compress_shani, &sha1_shani),
#endif
#ifdef HAVE_ARMSHA2
    ROW("armv8", KDF_CPU_ARMSHA1, kdf_sha1_compress_armv8, NULL),
#endif
    ROW("portable", 0, kdf_sha1_compress_portable, NULL),
};
struct kdf_dispatch_table kdf_sha1_table = KDF_DISPATCH_TABLE("sha1", sha1_rows);

kdf_compress2_fn *
kdf_sha1_compress2_of(kdf_compress_fn *fn)
{
    const struct kdf_sha_more *m = kdf_sha_more_of(&kdf_sha1_table, fn);
    return m != NULL ? m->compress2 : NULL;
}

void
kdf_sha1_loops_of(kdf_compress_fn *fn, kdf_pbkdf2_loop_fn **loop1,
                  kdf_pbkdf2_loop2_fn **loop2)
{
    const struct kdf_sha_more *m = kdf_sha_more_of(&kdf_sha1_table, fn);
    *loop1 = m != NULL ? m->loop1 : NULL;
    *loop2 = m != NULL ? m->loop2 : NULL;
}
