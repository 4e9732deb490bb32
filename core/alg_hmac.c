/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_hmac.c - the three hashes behind one descriptor, streaming
 * (FIPS 180-4 section 5.1 padding), and HMAC (RFC 2104) with the ipad/opad
 * blocks absorbed once per key.
 *
 * The streaming code serves one-shot digests, long HMAC keys and the first
 * PBKDF2 iteration (salt || INT(i)); the PBKDF2 iterations themselves do not
 * come through here (alg_pbkdf2.c compresses pre-padded blocks directly).
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"

#include "alg_sha.h"

/* The three hashes, by the primitive dispatch knows them as: their
 * constants, and how to find a variant's optional entry points. */
static const struct md_row {
    size_t block_len, digest_len; /* digest = chaining value for all three */
    int wide;
    const void *iv;
    kdf_compress2_fn *(*compress2_of)(kdf_compress_fn *fn);
    void (*loops_of)(kdf_compress_fn *fn, kdf_pbkdf2_loop_fn **loop1,
                     kdf_pbkdf2_loop2_fn **loop2);
} md_rows[] = {
    [KDF_PRIM_SHA1] = {64, KDF_SHA1_LEN, 0, kdf_sha1_iv, kdf_sha1_compress2_of,
                       kdf_sha1_loops_of},
    [KDF_PRIM_SHA256] = {64, KDF_SHA256_LEN, 0, kdf_sha256_iv, kdf_sha256_compress2_of,
                         kdf_sha256_loops_of},
    [KDF_PRIM_SHA512] = {128, KDF_SHA512_LEN, 1, kdf_sha512_iv, kdf_sha512_compress2_of,
                         kdf_sha512_loops_of},
};

enum kdf_status
kdf_md_bind(struct kdf_md *md, enum kdf_prim hash)
{
    const struct md_row *row;
    kdf_compress_fn *fn;

    memset(md, 0, sizeof *md);
    if ((size_t)hash >= KDF_ARRAY_LEN(md_rows) || md_rows[hash].iv == NULL)
        return KDF_UNSUPPORTED;
    row = &md_rows[hash];
    fn = (kdf_compress_fn *)kdf_dispatch_get(hash);
    md->hash = hash;
    md->block_len = row->block_len;
    md->digest_len = md->state_len = row->digest_len;
    md->wide = row->wide;
    md->iv = row->iv;
    md->compress = fn;
    md->compress2 = row->compress2_of(fn);
    row->loops_of(fn, &md->loop1, &md->loop2);
    return KDF_OK;
}

void
kdf_md_state_bytes(const struct kdf_md *md, const union kdf_sha_state *st, uint8_t *out)
{
    if (md->wide) {
        for (size_t i = 0; i < md->digest_len / 8; i++)
            kdf_store64_be(out + 8 * i, st->w64[i]);
    } else {
        for (size_t i = 0; i < md->digest_len / 4; i++)
            kdf_store32_be(out + 4 * i, st->w32[i]);
    }
}

void
kdf_md_init(struct kdf_md_ctx *c, const struct kdf_md *md)
{
    memset(c, 0, sizeof *c);
    c->md = md;
    memcpy(&c->st, md->iv, md->state_len);
}

void
kdf_md_init_from(struct kdf_md_ctx *c, const struct kdf_md *md,
                 const union kdf_sha_state *st, uint64_t absorbed)
{
    c->md = md;
    c->st = *st;
    c->buf_len = 0;
    c->total = absorbed;
}

void
kdf_md_update(struct kdf_md_ctx *c, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    const size_t bl = c->md->block_len;

    if (len == 0)
        return;
    c->total += len;
    if (c->buf_len > 0) {
        size_t take = bl - c->buf_len;
        if (take > len)
            take = len;
        memcpy(c->buf + c->buf_len, p, take);
        c->buf_len += take;
        p += take;
        len -= take;
        if (c->buf_len < bl)
            return;
        c->md->compress(&c->st, c->buf, 1);
        c->buf_len = 0;
    }
    if (len >= bl) {
        size_t n = len / bl;
        c->md->compress(&c->st, p, n);
        p += n * bl;
        len -= n * bl;
    }
    if (len > 0) {
        memcpy(c->buf, p, len);
        c->buf_len = len;
    }
}

/* FIPS 180-4 5.1.1 / 5.1.2: append 0x80, zeros, and the message length in
 * bits as a 64-bit (SHA-1/256) or 128-bit (SHA-512) big-endian integer. */
void
kdf_md_final(struct kdf_md_ctx *c, uint8_t *out)
{
    const size_t bl = c->md->block_len;
    const size_t lenf = c->md->wide ? 16 : 8;
    const uint64_t bits = c->total << 3; /* high bits of the 128-bit length: 0 */

    c->buf[c->buf_len++] = 0x80;
    if (c->buf_len > bl - lenf) {
        memset(c->buf + c->buf_len, 0, bl - c->buf_len);
        c->md->compress(&c->st, c->buf, 1);
        c->buf_len = 0;
    }
    memset(c->buf + c->buf_len, 0, bl - c->buf_len);
    kdf_store64_be(c->buf + bl - 8, bits);
    c->md->compress(&c->st, c->buf, 1);
    kdf_md_state_bytes(c->md, &c->st, out);
    kdf_wipe(c, sizeof *c);
}

enum kdf_status
kdf_sha_digest(enum kdf_prim hash, const void *data, size_t len, uint8_t *out,
               size_t out_len)
{
    struct kdf_md md;
    struct kdf_md_ctx c;

    if (kdf_md_bind(&md, hash) != KDF_OK)
        return KDF_UNSUPPORTED;
    if (out == NULL || out_len < md.digest_len || (data == NULL && len != 0))
        return KDF_RANGE;
    kdf_md_init(&c, &md);
    kdf_md_update(&c, data, len);
    kdf_md_final(&c, out);
    return KDF_OK;
}

enum kdf_status
kdf_sha1(const void *data, size_t len, uint8_t out[20])
{
    return kdf_sha_digest(KDF_PRIM_SHA1, data, len, out, KDF_SHA1_LEN);
}

/* RFC 2104 section 2: K longer than B is replaced by H(K); K is then padded
 * with zeros to B bytes, and the states after absorbing (K ^ 0x36..) and
 * (K ^ 0x5c..) are all a key contributes to any HMAC under it. */
void
kdf_hmac_key_init(struct kdf_hmac_key *k, const struct kdf_md *md, const uint8_t *key,
                  size_t key_len)
{
    uint8_t blk[KDF_SHA_MAX_BLOCK];
    const size_t bl = md->block_len;

    memset(blk, 0, sizeof blk);
    if (key_len > bl) {
        struct kdf_md_ctx c;
        kdf_md_init(&c, md);
        kdf_md_update(&c, key, key_len);
        kdf_md_final(&c, blk); /* wipes c */
    } else if (key_len > 0) {
        memcpy(blk, key, key_len);
    }
    k->md = md;
    memset(&k->ipad, 0, sizeof k->ipad);
    memset(&k->opad, 0, sizeof k->opad);
    memcpy(&k->ipad, md->iv, md->state_len);
    memcpy(&k->opad, md->iv, md->state_len);
    for (size_t i = 0; i < bl; i++)
        blk[i] ^= 0x36;
    md->compress(&k->ipad, blk, 1);
    for (size_t i = 0; i < bl; i++)
        blk[i] ^= 0x36 ^ 0x5c;
    md->compress(&k->opad, blk, 1);
    kdf_wipe(blk, sizeof blk);
}

void
kdf_hmac2(const struct kdf_hmac_key *k, const void *a, size_t a_len, const void *b,
          size_t b_len, uint8_t *out)
{
    const struct kdf_md *md = k->md;
    struct kdf_md_ctx c;
    uint8_t inner[KDF_SHA_MAX_LEN];

    kdf_md_init_from(&c, md, &k->ipad, md->block_len);
    kdf_md_update(&c, a, a_len);
    kdf_md_update(&c, b, b_len);
    kdf_md_final(&c, inner);
    kdf_md_init_from(&c, md, &k->opad, md->block_len);
    kdf_md_update(&c, inner, md->digest_len);
    kdf_md_final(&c, out);
    kdf_wipe(inner, sizeof inner);
}

enum kdf_status
kdf_hmac(enum kdf_prim hash, const uint8_t *key, size_t key_len, const void *msg,
         size_t msg_len, uint8_t *out, size_t out_len)
{
    struct kdf_md md;
    struct kdf_hmac_key k;

    if (kdf_md_bind(&md, hash) != KDF_OK)
        return KDF_UNSUPPORTED;
    if (out == NULL || out_len < md.digest_len || (key == NULL && key_len != 0) ||
        (msg == NULL && msg_len != 0))
        return KDF_RANGE;
    kdf_hmac_key_init(&k, &md, key, key_len);
    kdf_hmac2(&k, msg, msg_len, NULL, 0, out);
    kdf_wipe(&k, sizeof k);
    return KDF_OK;
}

/* FIPS 180-4 section 5.3.4. */
static const uint64_t sha384_iv[8] = {
    0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL, 0x9159015a3070dd17ULL,
    0x152fecd8f70e5939ULL, 0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
    0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL};

enum kdf_status
kdf_md_bind_sha384(struct kdf_md *md)
{
    enum kdf_status st = kdf_md_bind(md, KDF_PRIM_SHA512);

    if (st != KDF_OK)
        return st;
    /* The state stays SHA-512's eight words; only six are output. */
    md->iv = sha384_iv;
    md->digest_len = KDF_SHA384_LEN;
    /* The fused PBKDF2 loops assume SHA-512's output. */
    md->loop1 = NULL;
    md->loop2 = NULL;
    md->compress2 = NULL;
    return KDF_OK;
}
