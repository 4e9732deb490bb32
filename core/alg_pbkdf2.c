/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_pbkdf2.c - PBKDF2-HMAC (RFC 8018 section 5.2) over SHA-1/256/512.
 *
 *   T_i = U_1 ^ U_2 ^ ... ^ U_c,  U_1 = PRF(P, S || INT(i)),  U_j = PRF(P, U_{j-1})
 *
 * Where the time goes: with PRF = HMAC-H, every U_j is
 * H(K^opad || H(K^ipad || U_{j-1})).  The two pad blocks are the same for
 * every iteration, so their states are computed once (kdf_hmac_key_init),
 * and what remains per iteration is exactly two compressions:
 *
 *   inner: state = ipad state; compress(U_{j-1} || 0x80 || 0.. || len)
 *   outer: state = opad state; compress(inner digest || 0x80 || 0.. || len)
 *
 * The message lengths are always B + hLen bytes (one pad block plus one
 * digest), so each of the two blocks gets its padding and length field
 * written once, before the loop; the loop only overwrites the first hLen
 * bytes with the new digest.  No update/final, no buffer management, no
 * allocation (OpenSSL 3's PKCS5_PBKDF2_HMAC runs HMAC_Init/Update/Final per
 * iteration, which is where its time goes beyond the compressions).
 *
 * Output blocks T_1, T_2, ... are independent chains: when the variant has a
 * two-state compression (SHA-NI), two of them run through the rounds
 * together, which hides the latency of each chain behind the other.
 *
 * A variant may also supply the whole loop (kdf_pbkdf2_loop_fn: SHA-1 and
 * SHA-256 with SHA-NI), which keeps the states and message words in registers from
 * one compression to the next; the generic loop below is the reference.
 */
#include "kdf_prelude.h"

#include "alg_sha.h"

/* The working set of one output block T_i; all of it is secret. */
struct chain {
    union kdf_sha_state st;
    uint8_t u[KDF_SHA_MAX_BLOCK];   /* U_{j-1}, pre-padded: the inner block */
    uint8_t mid[KDF_SHA_MAX_BLOCK]; /* inner digest, pre-padded: the outer block */
    uint8_t t[KDF_SHA_MAX_LEN];     /* T_i accumulated */
};

/* Store the first `n` state words big-endian; inlined so the loop keeps no
 * call beyond the compressions. */
static inline void
put_digest(const struct kdf_md *md, const union kdf_sha_state *st, uint8_t *out)
{
    if (md->wide) {
        for (size_t i = 0; i < KDF_SHA512_LEN / 8; i++)
            kdf_store64_be(out + 8 * i, st->w64[i]);
    } else {
        for (size_t i = 0; i < md->digest_len / 4; i++)
            kdf_store32_be(out + 4 * i, st->w32[i]);
    }
}

/* Write 0x80, zeros and the bit length of (one block + one digest) after
 * the digest position of blk (FIPS 180-4 5.1.1 / 5.1.2). */
static void
prepad(const struct kdf_md *md, uint8_t *blk)
{
    const size_t bl = md->block_len, dl = md->digest_len;

    memset(blk + dl, 0, bl - dl);
    blk[dl] = 0x80;
    kdf_store64_be(blk + bl - 8, (uint64_t)(bl + dl) * 8);
}

/* U_1 = HMAC(P, S || INT(i)) (RFC 8018 5.2 step 3), and T_i = U_1. */
static void
chain_start(struct chain *c, const struct kdf_hmac_key *k, const uint8_t *salt,
            size_t salt_len, uint32_t i)
{
    const struct kdf_md *md = k->md;
    uint8_t be_i[4];

    kdf_store32_be(be_i, i);
    prepad(md, c->u);
    prepad(md, c->mid);
    kdf_hmac2(k, salt, salt_len, be_i, 4, c->u);
    memcpy(c->t, c->u, md->digest_len);
}

static inline void
xor_into(uint8_t *t, const uint8_t *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        t[i] ^= u[i];
}

/* Iterations 2..c of one chain: two compressions each. */
static void
chain_run1(struct chain *c, const struct kdf_hmac_key *k, uint32_t iterations)
{
    const struct kdf_md *md = k->md;
    kdf_compress_fn *const compress = md->compress;
    const size_t dl = md->digest_len;

    if (md->loop1 != NULL) {
        md->loop1(&k->ipad, &k->opad, c->u, c->t, iterations);
        return;
    }
    for (uint32_t j = 1; j < iterations; j++) {
        c->st = k->ipad;
        compress(&c->st, c->u, 1);
        put_digest(md, &c->st, c->mid);
        c->st = k->opad;
        compress(&c->st, c->mid, 1);
        put_digest(md, &c->st, c->u);
        xor_into(c->t, c->u, dl);
    }
}

/* Iterations 2..c of two independent chains, interleaved in the rounds. */
static void
chain_run2(struct chain *a, struct chain *b, const struct kdf_hmac_key *k,
           uint32_t iterations)
{
    const struct kdf_md *md = k->md;
    kdf_compress2_fn *const compress2 = md->compress2;
    const size_t dl = md->digest_len;

    if (md->loop2 != NULL) {
        md->loop2(&k->ipad, &k->opad, a->u, a->t, b->u, b->t, iterations);
        return;
    }
    for (uint32_t j = 1; j < iterations; j++) {
        a->st = k->ipad;
        b->st = k->ipad;
        compress2(&a->st, a->u, &b->st, b->u);
        put_digest(md, &a->st, a->mid);
        put_digest(md, &b->st, b->mid);
        a->st = k->opad;
        b->st = k->opad;
        compress2(&a->st, a->mid, &b->st, b->mid);
        put_digest(md, &a->st, a->u);
        put_digest(md, &b->st, b->u);
        xor_into(a->t, a->u, dl);
        xor_into(b->t, b->u, dl);
    }
}

/*
 * Overwrite the stack below the caller's frame, where the compressions ran.
 * Their working variables (a..h, and the AVX2 SHA-512 loop's vector
 * spills) start from the HMAC pad states, which are password-equivalent,
 * and C cannot wipe a callee's spill slots; tests/unit/test_secrets_stack.c found
 * ipad/opad windows there after a verify (portable SHA-1/256, AVX2 SHA-512).
 * The deepest frames below kdf_pbkdf2_md() take well under 4 KiB.  noinline
 * and a volatile function pointer so the buffer really is on the stack.
 */
#define PBKDF2_BURN_BYTES 4096

static __attribute__((noinline)) void
burn_stack(void)
{
    uint8_t buf[PBKDF2_BURN_BYTES];

    kdf_wipe(buf, sizeof buf);
}

static void (*volatile burn_stack_fn)(void) = burn_stack;

enum kdf_status
kdf_pbkdf2_md(const struct kdf_md *md, const uint8_t *pw, size_t pw_len,
              const uint8_t *salt, size_t salt_len, uint32_t iterations, uint8_t *out,
              size_t out_len)
{
    struct kdf_hmac_key k;
    struct chain c[2];
    const size_t dl = md->digest_len;
    size_t nblocks, done = 0;
    uint32_t i = 1;

    if (iterations == 0 || out == NULL || out_len == 0 || (pw == NULL && pw_len != 0) ||
        (salt == NULL && salt_len != 0))
        return KDF_RANGE;
    /* RFC 8018 5.2 step 1: dkLen > (2^32 - 1) * hLen is "derived key too long" */
    nblocks = out_len / dl + (out_len % dl != 0);
    if (nblocks > 0xffffffffu)
        return KDF_RANGE;

    kdf_hmac_key_init(&k, md, pw, pw_len);
    while (done < out_len) {
        size_t left = out_len - done;
        if ((md->compress2 != NULL || md->loop2 != NULL) && left > dl) {
            size_t n2 = left - dl < dl ? left - dl : dl;
            chain_start(&c[0], &k, salt, salt_len, i);
            chain_start(&c[1], &k, salt, salt_len, i + 1);
            chain_run2(&c[0], &c[1], &k, iterations);
            memcpy(out + done, c[0].t, dl);
            memcpy(out + done + dl, c[1].t, n2);
            done += dl + n2;
            i += 2;
        } else {
            size_t n1 = left < dl ? left : dl;
            chain_start(&c[0], &k, salt, salt_len, i);
            chain_run1(&c[0], &k, iterations);
            memcpy(out + done, c[0].t, n1);
            done += n1;
            i += 1;
        }
    }
    kdf_wipe(c, sizeof c);
    kdf_wipe(&k, sizeof k);
    burn_stack_fn();
    return KDF_OK;
}

/* The public entry point (kdfhash.h) names PBKDF2's hash by the scheme of
 * that name; below it, the hash is a primitive (kdf_md_bind()). */
static const struct {
    enum kdf_scheme scheme;
    enum kdf_prim hash;
} pbkdf2_hashes[] = {
    {KDF_SCHEME_PBKDF2_SHA1, KDF_PRIM_SHA1},
    {KDF_SCHEME_PBKDF2_SHA256, KDF_PRIM_SHA256},
    {KDF_SCHEME_PBKDF2_SHA512, KDF_PRIM_SHA512},
};

enum kdf_status
kdf_pbkdf2(enum kdf_scheme md_id, const uint8_t *pw, size_t pw_len, const uint8_t *salt,
           size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len)
{
    struct kdf_md md;
    size_t i = 0;

    while (i < KDF_ARRAY_LEN(pbkdf2_hashes) && pbkdf2_hashes[i].scheme != md_id)
        i++;
    /* One dispatch lookup per call, none per block or iteration. */
    if (i == KDF_ARRAY_LEN(pbkdf2_hashes) ||
        kdf_md_bind(&md, pbkdf2_hashes[i].hash) != KDF_OK)
        return KDF_UNSUPPORTED;
    return kdf_pbkdf2_md(&md, pw, pw_len, salt, salt_len, iterations, out, out_len);
}
