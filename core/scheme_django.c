/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_django.c - Django's password hasher strings for the schemes we
 * compute (django/contrib/auth/hashers.py; pbkdf2_sha256$ and pbkdf2_sha1$
 * are scheme_pbkdf2.c's own).  Each is "<algorithm>$..." with no leading
 * '$'; all are verified only: a login on one is rewritten to the policy's
 * target.
 *
 *   django-bcrypt         bcrypt$<bcrypt string>          plain bcrypt
 *   django-bcrypt-sha256  bcrypt_sha256$<bcrypt string>   bcrypt over
 *                         hex(SHA-256(password)): 64 bytes, every byte of the
 *                         password counts
 *   django-argon2         argon2<PHC string>  (argon2$argon2id$v=19$...):
 *                         argon2id (Django 3.1 on) or argon2i (before)
 *   django-scrypt         scrypt$N$salt$r$p$hash: N written in full, the
 *                         salt used as text, a 64-byte hash in padded
 *                         base64 (Django 4.0 on)
 *
 * The bcrypt strings are python3-bcrypt's: $2a$, $2b$ or $2y$, never $2x$
 * (it refuses that one).  Django hashes UTF-8 text, so crypt_blowfish's
 * $2a$ countermeasure (for 0xff bytes) never differs from OpenBSD's there.
 * The inner strings are read by the rows of their own schemes, so every
 * rule of theirs (canonical spelling, ranges) holds here too.
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "alg_scrypt.h"
#include "alg_sha.h"
#include "hstr.h"
#include "kdf_scheme.h"

#define DJ_SCRYPT_DK 64

/* s[plen..len) read by row, which must claim it. */
static enum kdf_status
inner_parse(const struct kdf_scheme_desc *row, const char *s, size_t len, size_t plen,
            struct kdf_hash *h, const char **why)
{
    size_t ip;

    if (!kdf_scheme_claims(row, s + plen, len - plen, &ip))
        return kdf_fail(why, KDF_MALFORMED, "django: not the string its algorithm names");
    return row->parse(s + plen, len - plen, ip, h, why);
}

/* ---- bcrypt$ and bcrypt_sha256$ ---- */

static const char *const djb_prefixes[] = {"bcrypt$", NULL};
static const char *const djbs_prefixes[] = {"bcrypt_sha256$", NULL};

/* Both bcrypt rows: the prefix, then python3-bcrypt's string. */
static enum kdf_status
djb_parse(const char *s, size_t len, size_t plen, struct kdf_hash *h, const char **why)
{
    enum kdf_status st = inner_parse(&kdf_row_bcrypt, s, len, plen, h, why);

    if (st == KDF_OK && h->bcrypt_minor == 'x')
        return kdf_fail(why, KDF_UNSUPPORTED, "django: bcrypt $2x$ (python3-bcrypt refuses it)");
    return st;
}

static enum kdf_status
djb_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    KDF_PUT(b, "bcrypt$");
    return kdf_row_bcrypt.encode(h, b);
}

static enum kdf_status
djbs_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    KDF_PUT(b, "bcrypt_sha256$");
    return kdf_row_bcrypt.encode(h, b);
}

static int
djb_alphabet(const struct kdf_hash *h, int digest)
{
    (void)h;
    (void)digest;
    return KDF_B64_BCRYPT;
}

static void
djb_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    kdf_row_bcrypt.describe(h, what, out, cap);
}

static enum kdf_status
djb_verify(const char *pw, size_t pw_len, const struct kdf_hash *h, const struct kdf_policy *pol,
           void *work, size_t work_sz)
{
    return kdf_row_bcrypt.verify(pw, pw_len, h, pol, work, work_sz);
}

/* bcrypt over the 64 lower-case hex digits of SHA-256(password). */
static enum kdf_status
djbs_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
            const struct kdf_policy *pol, void *work, size_t work_sz)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t d[32];
    char key[64];
    enum kdf_status st;

    if (pw == NULL && pw_len != 0)
        return KDF_RANGE;
    st = kdf_sha_digest(KDF_PRIM_SHA256, pw != NULL ? pw : "", pw_len, d, sizeof d);
    for (size_t i = 0; i < sizeof d; i++) {
        key[2 * i] = hex[d[i] >> 4];
        key[2 * i + 1] = hex[d[i] & 15];
    }
    if (st == KDF_OK)
        st = kdf_row_bcrypt.verify(key, sizeof key, h, pol, work, work_sz);
    kdf_wipe(d, sizeof d);
    kdf_wipe(key, sizeof key);
    return st;
}

const struct kdf_scheme_desc kdf_row_django_bcrypt = {
    .name = "django-bcrypt",
    .id = KDF_SCHEME_BCRYPT,
    .summary = "Django's bcrypt$ (BCryptPasswordHasher), verified only",
    .prefixes = djb_prefixes,
    .parse = djb_parse,
    .encode = djb_encode,
    .alphabet = djb_alphabet,
    .describe = djb_describe,
    .verify = djb_verify,
    .reads_whole = kdf_bcrypt_reads_whole,
    .over_caps = kdf_bcrypt_over_caps,
    .below_min = kdf_bcrypt_below_min,
    .cost_kind = KDF_COST_STEP,
    .pkeys = kdf_bcrypt_pkeys,
    .npkeys = KDF_BCRYPT_NPKEYS,
};

const struct kdf_scheme_desc kdf_row_django_bcrypt_sha256 = {
    .name = "django-bcrypt-sha256",
    .id = KDF_SCHEME_BCRYPT,
    .summary = "Django's bcrypt_sha256$ (SHA-256 hex pre-hash), verified only",
    .prefixes = djbs_prefixes,
    .parse = djb_parse,
    .encode = djbs_encode,
    .alphabet = djb_alphabet,
    .describe = djb_describe,
    .verify = djbs_verify,
    .over_caps = kdf_bcrypt_over_caps,
    .below_min = kdf_bcrypt_below_min,
    .cost_kind = KDF_COST_STEP,
    .pkeys = kdf_bcrypt_pkeys,
    .npkeys = KDF_BCRYPT_NPKEYS,
};

/* ---- argon2$argon2id$... ---- */

static const char *const dja_prefixes[] = {"argon2$", NULL};

/* The Argon2 row of h's variant: Django makes argon2id and argon2i. */
static const struct kdf_scheme_desc *
dja_inner(enum kdf_scheme s)
{
    return s == KDF_SCHEME_ARGON2I ? &kdf_row_argon2i : &kdf_row_argon2id;
}

static enum kdf_status
dja_parse(const char *s, size_t len, size_t plen, struct kdf_hash *h, const char **why)
{
    size_t ip;

    plen = 6; /* "argon2": the '$' starts the PHC string */
    if (kdf_scheme_claims(&kdf_row_argon2i, s + plen, len - plen, &ip))
        return kdf_row_argon2i.parse(s + plen, len - plen, ip, h, why);
    return inner_parse(&kdf_row_argon2id, s, len, plen, h, why);
}

static enum kdf_status
dja_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    if (h->scheme != KDF_SCHEME_ARGON2ID && h->scheme != KDF_SCHEME_ARGON2I)
        return KDF_RANGE;
    KDF_PUT(b, "argon2");
    return dja_inner(h->scheme)->encode(h, b);
}

static void
dja_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    dja_inner(h->scheme)->describe(h, what, out, cap);
}

static enum kdf_status
dja_verify(const char *pw, size_t pw_len, const struct kdf_hash *h, const struct kdf_policy *pol,
           void *work, size_t work_sz)
{
    return dja_inner(h->scheme)->verify(pw, pw_len, h, pol, work, work_sz);
}

const struct kdf_scheme_desc kdf_row_django_argon2 = {
    .name = "django-argon2",
    .id = KDF_SCHEME_ARGON2ID,
    .summary = "Django's argon2$argon2id$ and argon2$argon2i$, verified only",
    .prefixes = dja_prefixes,
    .parse = dja_parse,
    .encode = dja_encode,
    .alphabet = kdf_alphabet_std,
    .describe = dja_describe,
    .verify = dja_verify,
    .over_caps = kdf_argon2_over_caps,
    .flaw = kdf_argon2_flaw,
    .below_min = kdf_argon2_below_min,
    .cost_kind = KDF_COST_MEMORY,
    .pkeys = kdf_argon2_pkeys,
    .npkeys = KDF_ARGON2_NPKEYS,
};

/* ---- scrypt$N$salt$r$p$hash ---- */

static const char *const djs_prefixes[] = {"scrypt$", NULL};
extern const struct kdf_scheme_desc kdf_row_django_scrypt; /* below */

static enum kdf_status
djs_parse(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t n, r, p, ln = 0;
    size_t end;

    if (!kdf_dec_u32(s, len, &pos, &n) || n < 2 || (n & (n - 1)) != 0)
        return kdf_fail(why, KDF_MALFORMED, "django scrypt: N not a power of two from 2");
    while ((1u << ln) != n)
        ln++;
    if (!KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "django scrypt: '$' expected after N");
    pos++;
    end = kdf_field_end(s, len, pos);
    if (end == len || end - pos < 1 || end - pos > KDF_MAX_SALT ||
        !kdf_all_in(s + pos, end - pos, KDF_C_DJANGO))
        return kdf_fail(why, KDF_MALFORMED, "django scrypt: salt not 1..64 safe characters");
    h->salt = (struct kdf_span){s + pos, end - pos};
    h->salt_len = (uint32_t)(end - pos);
    pos = end + 1;
    if (!kdf_dec_u32(s, len, &pos, &r) || r < 1 || !KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "django scrypt: r not 1..2^32-1");
    pos++;
    if (!kdf_dec_u32(s, len, &pos, &p) || p < 1 || !KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "django scrypt: p not 1..2^32-1");
    /* RFC 7914 section 2: N < 2^(128 r / 8), p r < 2^30. */
    if ((uint64_t)ln >= 16u * (uint64_t)r || (uint64_t)r * p >= (1u << 30))
        return kdf_fail(why, KDF_MALFORMED, "django scrypt: parameters outside RFC 7914");
    if (!kdf_b64_field(s, pos + 1, len, KDF_B64_STD_PAD, DJ_SCRYPT_DK, DJ_SCRYPT_DK,
                       &h->digest, NULL))
        return kdf_fail(why, KDF_MALFORMED, "django scrypt: hash not padded base64 of 64 bytes");
    h->scheme = KDF_SCHEME_SCRYPT;
    h->format = KDF_FMT_DJANGO;
    h->cost = ln;
    h->block_size = r;
    h->lanes = p;
    h->dk_len = DJ_SCRYPT_DK;
    return KDF_OK;
}

static enum kdf_status
djs_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    if (h->cost < 1 || h->cost > 31)
        return KDF_RANGE;
    KDF_PUT(b, "scrypt$");
    kdf_put_u32(b, (uint32_t)1 << h->cost);
    KDF_PUT(b, "$");
    kdf_put_span(b, &h->salt);
    KDF_PUT(b, "$");
    kdf_put_u32(b, h->block_size);
    KDF_PUT(b, "$");
    kdf_put_u32(b, h->lanes);
    KDF_PUT(b, "$");
    kdf_put_span(b, &h->digest);
    return KDF_OK;
}

/* The salt is text, the hash padded base64. */
static int
djs_alphabet(const struct kdf_hash *h, int digest)
{
    (void)h;
    return digest ? KDF_B64_STD_PAD : -1;
}

static void
djs_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=django-scrypt ln=%u r=%u p=%u salt_len=%u digest_len=%u",
                 (unsigned)h->cost, (unsigned)h->block_size, (unsigned)h->lanes,
                 (unsigned)h->salt_len, (unsigned)h->dk_len);
    else
        snprintf(out, cap, "ln=%u,r=%u,p=%u", (unsigned)h->cost, (unsigned)h->block_size,
                 (unsigned)h->lanes);
}

static enum kdf_status
djs_verify(const char *pw, size_t pw_len, const struct kdf_hash *h, const struct kdf_policy *pol,
           void *work, size_t work_sz)
{
    uint8_t salt[KDF_MAX_SALT], want[KDF_MAX_DIGEST], got[DJ_SCRYPT_DK];
    size_t salt_len = 0, want_len = 0;
    enum kdf_status st;

    (void)work;
    (void)work_sz;
    if (h == NULL || pol == NULL || (pw == NULL && pw_len != 0))
        return KDF_RANGE;
    st = kdf_span_decode(&kdf_row_django_scrypt, h, 0, salt, sizeof salt, &salt_len);
    if (st == KDF_OK)
        st = kdf_span_decode(&kdf_row_django_scrypt, h, 1, want, sizeof want, &want_len);
    if (st == KDF_OK && want_len != DJ_SCRYPT_DK)
        st = KDF_MALFORMED;
    if (st == KDF_OK)
        st = kdf_scrypt((const uint8_t *)(pw != NULL ? pw : ""), pw_len, salt, salt_len,
                        h->cost, h->block_size, h->lanes, got, sizeof got, pol->max_memory_kib,
                        pol->memory_wait_ms, pol->mem_admin != 0);
    if (st == KDF_RANGE)
        st = KDF_MALFORMED; /* parameters no scrypt can take */
    if (st == KDF_OK)
        st = kdf_ct_eq(got, want, DJ_SCRYPT_DK) == 0 ? KDF_OK : KDF_MISMATCH;
    kdf_wipe(got, sizeof got);
    kdf_wipe(want, sizeof want);
    kdf_wipe(salt, sizeof salt);
    return st;
}

const struct kdf_scheme_desc kdf_row_django_scrypt = {
    .name = "django-scrypt",
    .id = KDF_SCHEME_SCRYPT,
    .summary = "Django's scrypt$N$salt$r$p$hash (ScryptPasswordHasher), verified only",
    .prefixes = djs_prefixes,
    .parse = djs_parse,
    .encode = djs_encode,
    .alphabet = djs_alphabet,
    .describe = djs_describe,
    .verify = djs_verify,
    .over_caps = kdf_scrypt_over_caps,
    .cost_kind = KDF_COST_STEP,
    .pkeys = kdf_scrypt_pkeys,
    .npkeys = KDF_SCRYPT_NPKEYS,
};
