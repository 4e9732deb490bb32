/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_blake2b.c - BLAKE2b per RFC 7693 and Argon2's H' (RFC 9106 3.3).
 *
 * Written from the RFC text.  Only the sequential mode is needed: the
 * parameter block reduces to its first word (digest length, key length,
 * fanout 1, depth 1; RFC 7693 section 2.5), salt and personalisation stay
 * zero.  Every buffer that saw key or message bytes is wiped before return.
 */
#include "kdf_prelude.h"

#include "alg_blake2b.h"

/* RFC 7693 section 2.6: the SHA-512 initial values. */
static const uint64_t blake2b_iv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
    0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
    0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

/* RFC 7693 section 2.7: message word schedule; rounds 10 and 11 reuse
 * rows 0 and 1. */
static const uint8_t blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

/* The mixing function G of RFC 7693 section 3.1 (R1..R4 = 32, 24, 16, 63). */
#define B2B_G(v, a, b, c, d, x, y)                                                       \
    do {                                                                                 \
        v[a] = v[a] + v[b] + (x);                                                        \
        v[d] = kdf_rotr64(v[d] ^ v[a], 32);                                              \
        v[c] = v[c] + v[d];                                                              \
        v[b] = kdf_rotr64(v[b] ^ v[c], 24);                                              \
        v[a] = v[a] + v[b] + (y);                                                        \
        v[d] = kdf_rotr64(v[d] ^ v[a], 16);                                              \
        v[c] = v[c] + v[d];                                                              \
        v[b] = kdf_rotr64(v[b] ^ v[c], 63);                                              \
    } while (0)

/* The compression function F of RFC 7693 section 3.2. */
static void
blake2b_compress(struct kdf_blake2b_state *s, const uint8_t block[KDF_BLAKE2B_BLOCKBYTES],
                 int last)
{
    uint64_t m[16], v[16];

    for (int i = 0; i < 16; i++)
        m[i] = kdf_load64_le(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = blake2b_iv[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last)
        v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *sg = blake2b_sigma[r];
        B2B_G(v, 0, 4, 8, 12, m[sg[0]], m[sg[1]]);
        B2B_G(v, 1, 5, 9, 13, m[sg[2]], m[sg[3]]);
        B2B_G(v, 2, 6, 10, 14, m[sg[4]], m[sg[5]]);
        B2B_G(v, 3, 7, 11, 15, m[sg[6]], m[sg[7]]);
        B2B_G(v, 0, 5, 10, 15, m[sg[8]], m[sg[9]]);
        B2B_G(v, 1, 6, 11, 12, m[sg[10]], m[sg[11]]);
        B2B_G(v, 2, 7, 8, 13, m[sg[12]], m[sg[13]]);
        B2B_G(v, 3, 4, 9, 14, m[sg[14]], m[sg[15]]);
    }
    for (int i = 0; i < 8; i++)
        s->h[i] ^= v[i] ^ v[i + 8];
    kdf_wipe(m, sizeof m);
    kdf_wipe(v, sizeof v);
}

static void
blake2b_count(struct kdf_blake2b_state *s, uint64_t inc)
{
    s->t[0] += inc;
    if (s->t[0] < inc)
        s->t[1]++;
}

int
kdf_blake2b_init(struct kdf_blake2b_state *s, size_t outlen, const void *key,
                 size_t keylen)
{
    memset(s, 0, sizeof *s);
    if (outlen == 0 || outlen > KDF_BLAKE2B_OUTBYTES || keylen > KDF_BLAKE2B_KEYBYTES ||
        (key == NULL && keylen != 0))
        return -1;
    for (int i = 0; i < 8; i++)
        s->h[i] = blake2b_iv[i];
    /* Parameter block word 0: digest length, key length, fanout 1, depth 1. */
    s->h[0] ^= 0x01010000ULL ^ ((uint64_t)keylen << 8) ^ (uint64_t)outlen;
    s->outlen = outlen;
    if (keylen > 0) {
        /* RFC 7693 section 3.3: the key, zero-padded, is the first block. */
        uint8_t blk[KDF_BLAKE2B_BLOCKBYTES] = {0};
        memcpy(blk, key, keylen);
        kdf_blake2b_update(s, blk, sizeof blk);
        kdf_wipe(blk, sizeof blk);
    }
    return 0;
}

void
kdf_blake2b_update(struct kdf_blake2b_state *s, const void *in, size_t inlen)
{
    const uint8_t *p = (const uint8_t *)in;

    if (inlen == 0)
        return;
    /* The last block must go through the final compression, so a full
     * buffer is compressed only once more input is known to follow. */
    size_t fill = KDF_BLAKE2B_BLOCKBYTES - s->buflen;
    if (inlen > fill) {
        memcpy(s->buf + s->buflen, p, fill);
        blake2b_count(s, KDF_BLAKE2B_BLOCKBYTES);
        blake2b_compress(s, s->buf, 0);
        s->buflen = 0;
        p += fill;
        inlen -= fill;
        while (inlen > KDF_BLAKE2B_BLOCKBYTES) {
            blake2b_count(s, KDF_BLAKE2B_BLOCKBYTES);
            blake2b_compress(s, p, 0);
            p += KDF_BLAKE2B_BLOCKBYTES;
            inlen -= KDF_BLAKE2B_BLOCKBYTES;
        }
    }
    memcpy(s->buf + s->buflen, p, inlen);
    s->buflen += inlen;
}

void
kdf_blake2b_final(struct kdf_blake2b_state *s, uint8_t *out)
{
    uint8_t full[KDF_BLAKE2B_OUTBYTES];

    blake2b_count(s, s->buflen);
    memset(s->buf + s->buflen, 0, KDF_BLAKE2B_BLOCKBYTES - s->buflen);
    blake2b_compress(s, s->buf, 1);
    for (int i = 0; i < 8; i++)
        kdf_store64_le(full + 8 * i, s->h[i]);
    memcpy(out, full, s->outlen);
    kdf_wipe(full, sizeof full);
    kdf_wipe(s, sizeof *s);
}

int
kdf_blake2b(uint8_t *out, size_t outlen, const void *in, size_t inlen, const void *key,
            size_t keylen)
{
    struct kdf_blake2b_state s;

    if (out == NULL || (in == NULL && inlen != 0) ||
        kdf_blake2b_init(&s, outlen, key, keylen) != 0) {
        kdf_wipe(&s, sizeof s);
        return -1;
    }
    kdf_blake2b_update(&s, in, inlen);
    kdf_blake2b_final(&s, out);
    return 0;
}

int
kdf_blake2b_long(uint8_t *out, size_t outlen, const void *in, size_t inlen)
{
    struct kdf_blake2b_state s;
    uint8_t v[KDF_BLAKE2B_OUTBYTES];
    uint8_t len_le[4];

    if (out == NULL || outlen == 0 || outlen > UINT32_MAX || (in == NULL && inlen != 0))
        return -1;
    kdf_store32_le(len_le, (uint32_t)outlen);
    /* T <= 64: H^T(LE32(T) || X).  Otherwise V1 = H^64(LE32(T) || X), each
     * V_i = H^64(V_{i-1}) contributes its first 32 bytes, and the last
     * V_{r+1} = H^{T-32r}(V_r) is taken whole (RFC 9106 section 3.3). */
    if (kdf_blake2b_init(&s, outlen < 64 ? outlen : 64, NULL, 0) != 0)
        return -1;
    kdf_blake2b_update(&s, len_le, sizeof len_le);
    kdf_blake2b_update(&s, in, inlen);
    if (outlen <= 64) {
        kdf_blake2b_final(&s, out);
        return 0;
    }
    kdf_blake2b_final(&s, v);
    memcpy(out, v, 32);
    out += 32;
    outlen -= 32;
    while (outlen > 64) {
        (void)kdf_blake2b(v, 64, v, 64, NULL, 0);
        memcpy(out, v, 32);
        out += 32;
        outlen -= 32;
    }
    (void)kdf_blake2b(v, outlen, v, 64, NULL, 0);
    memcpy(out, v, outlen);
    kdf_wipe(v, sizeof v);
    return 0;
}
