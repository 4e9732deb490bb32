/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_scrypt.c - scrypt (RFC 7914) in passlib's spelling,
 *     $scrypt$ln=L,r=R,p=P$salt$checksum
 * with N = 2^L, standard base64 without padding, a 32-byte checksum
 * (passlib's checksum_size) and a salt of 0..64 bytes.  Hashes imported
 * from Python web applications verify, and are rehashed at login like any
 * other scheme that is not the target; scrypt may also be the target.
 * Its memory (128 r N bytes) and memory traffic (times p) are capped like
 * Argon2's, before any work.
 */
#include "kdf_prelude.h"
#include "hstr_xcrypt_cost.h"

#include <stdio.h>

#include "alg_scrypt.h"
#include "hstr.h"
#include "kdf_scheme.h"

#define SCRYPT_DK 32

static enum kdf_status
scrypt_parse(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t ln, r, p, n;
    size_t end;

    /* Fixed order ln, r, p: passlib writes them so. */
    if (!KDF_HAS("ln="))
        return kdf_fail(why, KDF_MALFORMED, "scrypt: ln= expected");
    pos += 3;
    if (!kdf_dec_u32(s, len, &pos, &ln) || ln < 1 || ln > 31)
        return kdf_fail(why, KDF_MALFORMED, "scrypt: ln not 1..31");
    if (!KDF_HAS(",r="))
        return kdf_fail(why, KDF_MALFORMED, "scrypt: ,r= expected");
    pos += 3;
    if (!kdf_dec_u32(s, len, &pos, &r) || r < 1)
        return kdf_fail(why, KDF_MALFORMED, "scrypt: bad r");
    if (!KDF_HAS(",p="))
        return kdf_fail(why, KDF_MALFORMED, "scrypt: ,p= expected");
    pos += 3;
    if (!kdf_dec_u32(s, len, &pos, &p) || p < 1)
        return kdf_fail(why, KDF_MALFORMED, "scrypt: bad p");
    /* RFC 7914 section 2: N < 2^(128 r / 8), p r < 2^30. */
    if ((uint64_t)ln >= 16u * (uint64_t)r || (uint64_t)r * p >= (1u << 30))
        return kdf_fail(why, KDF_MALFORMED, "scrypt: parameters outside RFC 7914");
    if (!KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "scrypt: '$' expected after parameters");
    pos++;
    end = kdf_field_end(s, len, pos);
    if (end == len)
        return kdf_fail(why, KDF_MALFORMED, "scrypt: checksum missing");
    if (!kdf_b64_field(s, pos, end, KDF_B64_STD, 0, KDF_MAX_SALT, &h->salt, &n))
        return kdf_fail(why, KDF_MALFORMED, "scrypt: salt not 0..64 bytes of base64");
    h->salt_len = n;
    if (!kdf_b64_field(s, end + 1, len, KDF_B64_STD, SCRYPT_DK, SCRYPT_DK, &h->digest, NULL))
        return kdf_fail(why, KDF_MALFORMED, "scrypt: checksum not 32 bytes of base64");
    h->scheme = KDF_SCHEME_SCRYPT;
    h->dk_len = SCRYPT_DK;
    h->cost = ln;
    h->block_size = r;
    h->lanes = p;
    return KDF_OK;
}

static enum kdf_status
scrypt_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    KDF_PUT(b, "$scrypt$ln=");
    kdf_put_u32(b, h->cost);
    KDF_PUT(b, ",r=");
    kdf_put_u32(b, h->block_size);
    KDF_PUT(b, ",p=");
    kdf_put_u32(b, h->lanes);
    kdf_put_salt_digest(b, h);
    return KDF_OK;
}

static enum kdf_status
scrypt_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
              const struct kdf_policy *pol, void *work, size_t work_sz)
{
    uint8_t salt[KDF_MAX_SALT], want[KDF_MAX_DIGEST], got[SCRYPT_DK];
    size_t salt_len = 0, want_len = 0;
    enum kdf_status st;

    (void)work;
    (void)work_sz;
    st = kdf_span_decode(&kdf_row_scrypt, h, 0, salt, sizeof salt, &salt_len);
    if (st == KDF_OK)
        st = kdf_span_decode(&kdf_row_scrypt, h, 1, want, sizeof want, &want_len);
    if (st == KDF_OK && want_len != SCRYPT_DK)
        st = KDF_MALFORMED;
    if (st == KDF_OK)
        st = kdf_scrypt((const uint8_t *)pw, pw_len, salt, salt_len, h->cost, h->block_size,
                        h->lanes, got, sizeof got, pol->max_memory_kib, pol->memory_wait_ms,
                        pol->mem_admin != 0);
    if (st == KDF_RANGE)
        st = KDF_MALFORMED; /* parameters no scrypt can take */
    if (st == KDF_OK)
        st = kdf_ct_eq(got, want, SCRYPT_DK) == 0 ? KDF_OK : KDF_MISMATCH;
    kdf_wipe(got, sizeof got);
    kdf_wipe(want, sizeof want);
    kdf_wipe(salt, sizeof salt);
    return st;
}

static void
scrypt_fill(const struct kdf_target *t, struct kdf_hash *h)
{
    h->scheme = KDF_SCHEME_SCRYPT;
    h->cost = t->cost;
    h->block_size = t->block_size;
    h->lanes = t->lanes;
    h->salt_len = t->salt_len;
    h->dk_len = SCRYPT_DK;
}

static enum kdf_status
scrypt_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
            const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
            size_t cap)
{
    uint8_t dk[SCRYPT_DK];
    enum kdf_status st;

    if (t == NULL || out == NULL || cap == 0 || salt_len > KDF_MAX_SALT)
        return KDF_RANGE;
    out[0] = '\0';
    st = kdf_scrypt((const uint8_t *)pw, pw_len, salt, salt_len, t->cost, t->block_size,
                    t->lanes, dk, sizeof dk, pol != NULL ? pol->max_memory_kib : KDF_MEMGATE_AUTO,
                    pol != NULL ? pol->memory_wait_ms : 0, pol != NULL && pol->mem_admin != 0);
    if (st == KDF_OK)
        st = kdf_spell(&kdf_row_scrypt, t, salt, salt_len, dk, sizeof dk, out, cap);
    kdf_wipe(dk, sizeof dk);
    return st;
}

static void
scrypt_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=scrypt ln=%u r=%u p=%u salt_len=%u digest_len=%u",
                 (unsigned)h->cost, (unsigned)h->block_size, (unsigned)h->lanes,
                 (unsigned)h->salt_len, (unsigned)h->dk_len);
    else
        snprintf(out, cap, "ln=%u,r=%u,p=%u", (unsigned)h->cost, (unsigned)h->block_size,
                 (unsigned)h->lanes);
}

/* ---- policy: memory and traffic like Argon2's caps ---- */
static const char *
caps_of(uint32_t ln, uint32_t r, uint32_t p, const struct kdf_policy *pol)
{
    struct kdf_xcrypt_cost c;

    /* p chains run one after the other, and B (128 r p bytes) is made and
     * hashed by PBKDF2: with a tiny N r, p alone is seconds and MiB. */
    kdf_scrypt_like_cost(0, ln, r, p, 0, &c);
    return kdf_scrypt_like_over_caps(&c, pol, "scrypt p above max.memory-hard p",
                                     "scrypt memory above max.memory-hard m",
                                     "scrypt work (p) above max.memory-hard m*t");
}

const char *
kdf_scrypt_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    return caps_of(h->cost, h->block_size, h->lanes, pol);
}

/* At the target when at least its memory (r N) and its traffic (r N p). */
static enum kdf_rehash
scrypt_vs_target(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    const struct kdf_target *tg = &pol->target;
    uint64_t hm = (uint64_t)h->block_size << h->cost, tm = (uint64_t)tg->block_size << tg->cost;

    return hm >= tm && hm * h->lanes >= tm * tg->lanes ? KDF_REHASH_NO : KDF_REHASH_TOO_CHEAP;
}

/* N r p: p chains of 2 N r block mixes each (saturating: the parser
 * bounds ln, r and p, not their product). */
static uint64_t
scrypt_work(const struct kdf_hash *h)
{
    uint64_t nr;

    if (h->cost >= 64 || h->block_size > (UINT64_MAX >> h->cost))
        return UINT64_MAX;
    nr = (uint64_t)h->block_size << h->cost;
    return h->lanes != 0 && nr > UINT64_MAX / h->lanes ? UINT64_MAX : nr * h->lanes;
}

static const char *
scrypt_target_check(const struct kdf_target *t, const struct kdf_policy *pol,
                    const char **over)
{
    if (t->cost < 1 || t->cost > 31)
        return "scrypt ln outside 1..31";
    if (t->block_size < 1 || t->lanes < 1)
        return "scrypt r and p must be at least 1";
    if ((uint64_t)t->cost >= 16u * (uint64_t)t->block_size ||
        (uint64_t)t->block_size * t->lanes >= (1u << 30))
        return "scrypt parameters outside RFC 7914 (ln < 16 r, r p < 2^30)";
    if (t->salt_len < 8 || t->salt_len > KDF_MAX_SALT)
        return "scrypt salt outside 8..64 bytes";
    if (t->dk_len != SCRYPT_DK && t->dk_len != 0)
        return "scrypt checksum is 32 bytes";
    *over = caps_of(t->cost, t->block_size, t->lanes, pol);
    return NULL;
}

static const struct kdf_tkey scrypt_keys[] = {
    {"ln", KDF_TF_COST, 1, 31, 0, NULL},
    {"r", KDF_TF_BLOCK, 1, UINT32_MAX, 0, NULL},
    {"p", KDF_TF_P, 1, UINT32_MAX, 0, NULL},
    {"salt", KDF_TF_SALT, 8, KDF_MAX_SALT, 0, NULL},
};

static const char *const scrypt_prefixes[] = {"$scrypt$", NULL};

/* scrypt's memory and work are capped by the memory-hard caps. */
const struct kdf_pkey *const kdf_scrypt_pkeys[KDF_SCRYPT_NPKEYS] = {&kdf_pkey_max_memhard};

static uint64_t
scrypt_mem_kib(const struct kdf_target *t)
{
    return kdf_scrypt_mem_kib(t->cost, t->block_size, t->lanes);
}

/* Defaults: passlib's (ln=16, r=8, p=1: 64 MiB), 16-byte salt. */
const struct kdf_scheme_desc kdf_row_scrypt = {
    .name = "scrypt",
    .id = KDF_SCHEME_SCRYPT,
    .summary = "scrypt (RFC 7914), passlib's $scrypt$ln=,r=,p=$ form",
    .prefixes = scrypt_prefixes,
    .parse = scrypt_parse,
    .encode = scrypt_encode,
    .alphabet = kdf_alphabet_std,
    .describe = scrypt_describe,
    .verify = scrypt_verify,
    .hash = scrypt_hash,
    .fill = scrypt_fill,
    .over_caps = kdf_scrypt_over_caps,
    .vs_target = scrypt_vs_target,
    .work = scrypt_work,
    .defaults = {.scheme = KDF_SCHEME_SCRYPT, .cost = 16, .block_size = 8, .lanes = 1,
                 .salt_len = 16, .dk_len = SCRYPT_DK},
    .cost_kind = KDF_COST_STEP,
    .keys = scrypt_keys,
    .nkeys = KDF_ARRAY_LEN(scrypt_keys),
    .target_check = scrypt_target_check,
    .mem_kib = scrypt_mem_kib,
    .pkeys = kdf_scrypt_pkeys,
    .npkeys = KDF_SCRYPT_NPKEYS,
};
