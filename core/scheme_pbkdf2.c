/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_pbkdf2.c - PBKDF2 hash strings: their grammar, verify, make, the
 * policy's view of them and their three rows.  Three spellings share one
 * derivation (RFC 8018 section 5.2):
 *
 *   passlib  $pbkdf2[-sha256|-sha512]$R$ab64-salt$ab64-checksum
 *            salt = decoded bytes; checksum = exactly the digest size
 *            (passlib's HasRawChecksum refuses any other length)
 *   PHC      $pbkdf2[-shaN]$i=N,l=L$b64-salt$b64-hash
 *            salt = decoded bytes; we always write l= on output, because
 *            readers disagree on the default (RustCrypto's pbkdf2 crate
 *            takes 32 whatever the hash)
 *   Django   pbkdf2_sha256$N$salt-text$padded-b64   (also pbkdf2_sha1)
 *            salt = the text itself, as Django's PBKDF2PasswordHasher uses
 *            it; hash = the digest size
 *
 * api_kdf.c has parsed the string and applied the policy caps (iterations,
 * password length) before verify runs.
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "alg_sha.h"
#include "hstr.h"
#include "kdf_scheme.h"

extern const struct kdf_scheme_desc kdf_row_pbkdf2_sha1, kdf_row_pbkdf2_sha256,
    kdf_row_pbkdf2_sha512;

static const struct kdf_scheme_desc *
pbkdf2_row(enum kdf_scheme s)
{
    return s == KDF_SCHEME_PBKDF2_SHA1     ? &kdf_row_pbkdf2_sha1
           : s == KDF_SCHEME_PBKDF2_SHA256 ? &kdf_row_pbkdf2_sha256
                                           : &kdf_row_pbkdf2_sha512;
}

/* The hash function's place in the tables of spellings below. */
static int
pbkdf2_index(enum kdf_scheme s)
{
    return s == KDF_SCHEME_PBKDF2_SHA1 ? 0 : s == KDF_SCHEME_PBKDF2_SHA256 ? 1 : 2;
}

static size_t
digest_size(enum kdf_scheme sc)
{
    switch (sc) {
    case KDF_SCHEME_PBKDF2_SHA1:
        return KDF_SHA1_LEN;
    case KDF_SCHEME_PBKDF2_SHA256:
        return KDF_SHA256_LEN;
    case KDF_SCHEME_PBKDF2_SHA512:
        return KDF_SHA512_LEN;
    default:
        return 0;
    }
}

/* ---- grammar ---- */

/* passlib ($pbkdf2[-shaN]$R$ab64$ab64) or PHC ($pbkdf2[-shaN]$i=N[,l=L]$b64$b64). */
static enum kdf_status
pbkdf2_parse(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t iter, l = 0, n;
    size_t end;
    int phc = KDF_HAS("i=");

    h->scheme = s[7] == '$' ? KDF_SCHEME_PBKDF2_SHA1
                : s[11] == '2' ? KDF_SCHEME_PBKDF2_SHA256
                               : KDF_SCHEME_PBKDF2_SHA512;
    if (phc)
        pos += 2;
    if (!kdf_dec_u32(s, len, &pos, &iter) || iter < 1)
        return kdf_fail(why, KDF_MALFORMED, "pbkdf2: iterations not 1..2^32-1");
    if (phc && KDF_HAS(",l=")) {
        pos += 3;
        if (!kdf_dec_u32(s, len, &pos, &l) || l < 1 || l > KDF_MAX_DIGEST)
            return kdf_fail(why, KDF_MALFORMED, "pbkdf2: l not 1..64");
        h->flags |= KDF_HF_PHC_L_PRESENT;
    }
    if (!KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "pbkdf2: '$' expected after iterations");
    pos++;
    end = kdf_field_end(s, len, pos);
    if (end == len)
        return kdf_fail(why, KDF_MALFORMED, "pbkdf2: checksum missing");
    if (phc) {
        h->format = KDF_FMT_PHC;
        if (!kdf_b64_field(s, pos, end, KDF_B64_STD, 1, KDF_MAX_SALT, &h->salt, &n))
            return kdf_fail(why, KDF_MALFORMED, "pbkdf2: salt not 1..64 bytes of base64");
        h->salt_len = n;
        if (!kdf_b64_field(s, end + 1, len, KDF_B64_STD, 1, KDF_MAX_DIGEST, &h->digest, &n))
            return kdf_fail(why, KDF_MALFORMED, "pbkdf2: hash not 1..64 bytes of base64");
        if (l != 0 && n != l)
            return kdf_fail(why, KDF_MALFORMED, "pbkdf2: hash length differs from l");
    } else {
        /* passlib: salt may be empty (its salt_size minimum is 0). */
        h->format = KDF_FMT_PASSLIB;
        if (!kdf_b64_field(s, pos, end, KDF_B64_AB64, 0, KDF_MAX_SALT, &h->salt, &n))
            return kdf_fail(why, KDF_MALFORMED, "pbkdf2: salt not 0..64 bytes of ab64");
        h->salt_len = n;
        n = (uint32_t)digest_size(h->scheme);
        if (!kdf_b64_field(s, end + 1, len, KDF_B64_AB64, n, n, &h->digest, NULL))
            return kdf_fail(why, KDF_MALFORMED, "pbkdf2: checksum not ab64 of digest size");
    }
    h->dk_len = n;
    h->cost = iter;
    return KDF_OK;
}

/* Django: pbkdf2_shaN$N$salt-text$padded-b64.  Every "pbkdf2_" string is
 * claimed, so that another hash function is "unsupported", not junk. */
static int
django_claim(const char *s, size_t len, size_t *plen)
{
    *plen = 7;
    return kdf_has(s, len, 0, "pbkdf2_", 7);
}

static enum kdf_status
django_parse(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t iter, n;
    size_t end;

    if (KDF_HAS("sha256$"))
        h->scheme = KDF_SCHEME_PBKDF2_SHA256;
    else if (KDF_HAS("sha1$"))
        h->scheme = KDF_SCHEME_PBKDF2_SHA1;
    else
        return kdf_fail(why, KDF_UNSUPPORTED, "django: unknown hash function");
    pos += h->scheme == KDF_SCHEME_PBKDF2_SHA1 ? 5 : 7;
    if (!kdf_dec_u32(s, len, &pos, &iter) || iter < 1)
        return kdf_fail(why, KDF_MALFORMED, "django: iterations not 1..2^32-1");
    if (!KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "django: '$' expected after iterations");
    pos++;
    end = kdf_field_end(s, len, pos);
    if (end == len)
        return kdf_fail(why, KDF_MALFORMED, "django: hash missing");
    /* The salt is used as text (Django's get_random_string: alphanumerics);
     * control bytes, ':' and '$' would break the shadow line or the grammar. */
    if (end - pos < 1 || end - pos > KDF_MAX_SALT ||
        !kdf_all_in(s + pos, end - pos, KDF_C_DJANGO))
        return kdf_fail(why, KDF_MALFORMED, "django: salt not 1..64 safe characters");
    h->salt = (struct kdf_span){s + pos, end - pos};
    h->salt_len = (uint32_t)(end - pos);
    n = (uint32_t)digest_size(h->scheme);
    if (!kdf_b64_field(s, end + 1, len, KDF_B64_STD_PAD, n, n, &h->digest, NULL))
        return kdf_fail(why, KDF_MALFORMED, "django: hash not padded base64 of digest size");
    h->format = KDF_FMT_DJANGO;
    h->dk_len = n;
    h->cost = iter;
    return KDF_OK;
}

static enum kdf_status
any_parse(const char *s, size_t len, size_t plen, struct kdf_hash *h, const char **why)
{
    return s[0] == '$' ? pbkdf2_parse(s, len, plen, h, why)
                       : django_parse(s, len, plen, h, why);
}

static enum kdf_status
pbkdf2_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    static const char *const suffix[3][2] = {
        {"", "_sha1"}, {"-sha256", "_sha256"}, {"-sha512", NULL}};
    int dj = h->format == KDF_FMT_DJANGO;
    const char *suf = suffix[pbkdf2_index(h->scheme)][dj];

    if (suf == NULL) /* Django has no SHA-512 hasher */
        return KDF_RANGE;
    if (dj) {
        KDF_PUT(b, "pbkdf2");
        kdf_put(b, suf, strlen(suf));
        KDF_PUT(b, "$");
    } else if (h->format == KDF_FMT_PASSLIB || h->format == KDF_FMT_PHC) {
        KDF_PUT(b, "$pbkdf2");
        kdf_put(b, suf, strlen(suf));
        if (h->format == KDF_FMT_PHC)
            KDF_PUT(b, "$i=");
        else
            KDF_PUT(b, "$");
    } else {
        return KDF_RANGE;
    }
    kdf_put_u32(b, h->cost);
    if (h->format == KDF_FMT_PHC && (h->flags & KDF_HF_PHC_L_PRESENT)) {
        KDF_PUT(b, ",l=");
        kdf_put_u32(b, h->dk_len);
    }
    kdf_put_salt_digest(b, h);
    return KDF_OK;
}

static int
pbkdf2_alphabet(const struct kdf_hash *h, int digest)
{
    switch (h->format) {
    case KDF_FMT_PASSLIB:
        return KDF_B64_AB64;
    case KDF_FMT_PHC:
        return KDF_B64_STD;
    case KDF_FMT_DJANGO:
        return digest ? KDF_B64_STD_PAD : -1; /* the salt is text */
    default:
        return -2;
    }
}

static enum kdf_status
pbkdf2_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
              const struct kdf_policy *pol, void *work, size_t work_sz)
{
    uint8_t salt[KDF_MAX_SALT], want[KDF_MAX_DIGEST], dk[KDF_MAX_DIGEST];
    const uint8_t *s = salt;
    size_t s_len = 0, d_len = 0;
    enum kdf_status st;

    (void)pol;
    (void)work;
    (void)work_sz;
    if (digest_size(h->scheme) == 0)
        return KDF_UNSUPPORTED;
    switch (h->format) {
    case KDF_FMT_PASSLIB:
    case KDF_FMT_PHC:
        st = kdf_span_decode(pbkdf2_row(h->scheme), h, 0, salt, sizeof salt, &s_len);
        if (st != KDF_OK)
            return st == KDF_RANGE ? KDF_MALFORMED : st;
        break;
    case KDF_FMT_DJANGO:
        /* Django hashes the salt text as it stands (no decoding). */
        s = (const uint8_t *)h->salt.ptr;
        s_len = h->salt.len;
        break;
    default:
        return KDF_UNSUPPORTED;
    }
    st = kdf_span_decode(pbkdf2_row(h->scheme), h, 1, want, sizeof want, &d_len);
    if (st != KDF_OK)
        return st == KDF_RANGE ? KDF_MALFORMED : st;
    if (d_len == 0 || h->cost == 0)
        return KDF_MALFORMED;

    st = kdf_pbkdf2(h->scheme, (const uint8_t *)pw, pw_len, s, s_len, h->cost, dk, d_len);
    if (st == KDF_OK)
        st = kdf_ct_eq(dk, want, d_len) == 0 ? KDF_OK : KDF_MISMATCH;
    else if (st == KDF_RANGE)
        st = KDF_MALFORMED;
    kdf_wipe(dk, sizeof dk);
    kdf_wipe(want, sizeof want);
    kdf_wipe(salt, sizeof salt);
    return st;
}

/* Django salts are text from [A-Za-z0-9] (get_random_string, 22 characters
 * for 128 bits since Django 3.2).  We turn the caller's random salt bytes
 * into such text without bias: read them as one big-endian integer and
 * write it in base 62 with exactly n digits, n the least with
 * 62^n >= 256^len (16 bytes -> 22 characters), so distinct salts give
 * distinct texts.  Returns n, or 0 when the text would exceed cap. */
static size_t
django_salt_text(const uint8_t *salt, size_t len, char *out, size_t cap)
{
    static const char digits[] =
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    uint8_t num[KDF_MAX_SALT];
    size_t n = 0;
    double bits = 8.0 * (double)len, have = 0.0;

    /* n = ceil(8 len / log2 62); log2 62 is irrational, so no rounding tie */
    while (have < bits) {
        have += 5.954196310386876;
        n++;
    }
    if (len > sizeof num || n == 0 || n > cap)
        return 0;
    memcpy(num, salt, len);
    /* Long division by 62, least significant digit first. */
    for (size_t i = n; i-- > 0;) {
        unsigned rem = 0;
        for (size_t j = 0; j < len; j++) {
            unsigned cur = (rem << 8) | num[j];
            num[j] = (uint8_t)(cur / 62);
            rem = cur % 62;
        }
        out[i] = digits[rem];
    }
    kdf_wipe(num, sizeof num);
    return n;
}

static void
pbkdf2_fill(const struct kdf_target *t, struct kdf_hash *h)
{
    h->scheme = t->scheme;
    h->format = t->format == KDF_FMT_NATIVE ? KDF_FMT_PASSLIB : t->format;
    h->cost = t->cost;
    h->dk_len = t->dk_len != 0 ? t->dk_len : (uint32_t)digest_size(t->scheme);
    h->salt_len = t->salt_len;
    /* PHC: always written, since readers disagree on the default l. */
    if (h->format == KDF_FMT_PHC)
        h->flags |= KDF_HF_PHC_L_PRESENT;
}

static enum kdf_status
pbkdf2_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
            const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
            size_t cap)
{
    uint8_t dk[KDF_MAX_DIGEST];
    char text[KDF_MAX_SALT];
    const uint8_t *s = salt;
    size_t s_len = salt_len, dl;
    enum kdf_format fmt = t->format == KDF_FMT_NATIVE ? KDF_FMT_PASSLIB : t->format;
    enum kdf_status st;

    (void)pol;
    dl = digest_size(t->scheme);
    if (dl == 0)
        return KDF_UNSUPPORTED;
    if (t->dk_len != 0) {
        /* passlib and Django fix the checksum at the digest size. */
        if (t->dk_len > KDF_MAX_DIGEST || (fmt != KDF_FMT_PHC && t->dk_len != dl))
            return KDF_RANGE;
        dl = t->dk_len;
    }
    if (t->cost == 0 || salt_len > KDF_MAX_SALT || (fmt == KDF_FMT_PHC && salt_len == 0))
        return KDF_RANGE; /* the PHC grammar wants a salt */
    if (fmt == KDF_FMT_DJANGO) {
        if (t->scheme == KDF_SCHEME_PBKDF2_SHA512)
            return KDF_UNSUPPORTED; /* Django has no PBKDF2-SHA512 hasher */
        s_len = django_salt_text(salt, salt_len, text, sizeof text);
        if (s_len == 0)
            return KDF_RANGE;
        s = (const uint8_t *)text; /* Django hashes the text */
    }
    st = kdf_pbkdf2(t->scheme, (const uint8_t *)pw, pw_len, s, s_len, t->cost, dk, dl);
    if (st == KDF_OK)
        st = kdf_spell(pbkdf2_row(t->scheme), t, s, s_len, dk, dl, out, cap);
    kdf_wipe(dk, sizeof dk);
    return st;
}

static void
pbkdf2_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    static const char *const fmts[] = {"native", "passlib", "phc", "django"};
    const char *f = (unsigned)h->format < 4 ? fmts[h->format] : "native";

    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=%s format=%s iterations=%u salt_len=%u digest_len=%u",
                 pbkdf2_row(h->scheme)->name, f, (unsigned)h->cost, (unsigned)h->salt_len,
                 (unsigned)h->dk_len);
    else if (what == KDF_DESC_PARAMS)
        snprintf(out, cap, "format=%s,i=%u", f, (unsigned)h->cost);
    else
        snprintf(out, cap, "i=%u", (unsigned)h->cost);
}

/* ---- policy ---- */
/* PBKDF2's digest and salt, whatever the hash function: 128-bit digests;
 * 64-bit salts, RFC 8018 section 4.1's minimum.  The strings choose both:
 * an entry with a shorter digest is refused (a 1-byte digest matches one
 * wrong password in 256), one with a shorter salt is outdated, and targets
 * below either are refused.  One pair for the three hash functions, in
 * the slots of the first; slot 0 of each is its min.pbkdf2-<hash>. */
#define PBKDF2_MIN_ITER 0
static const struct kdf_pkey pbkdf2_min_len =
    KDF_PKEY_BOUND("min.pbkdf2-len", KDF_PR_MIN, KDF_TF_LEN, KDF_SCHEME_PBKDF2_SHA1, 1, 1,
                   KDF_MAX_DIGEST, 16);
static const struct kdf_pkey pbkdf2_min_salt =
    KDF_PKEY_BOUND("min.pbkdf2-salt", KDF_PR_MIN, KDF_TF_SALT, KDF_SCHEME_PBKDF2_SHA1, 2, 1,
                   KDF_MAX_SALT, 8);

/* A salt below min.pbkdf2-salt is rewritten whatever the costs: a fresh
 * hash gets a full-length salt. */
static enum kdf_rehash
pbkdf2_flaw(const struct kdf_hash *h, const struct kdf_policy *pol, int accepted)
{
    (void)accepted;
    return h->salt_len < kdf_pol_bound(pol, &pbkdf2_min_salt, 0) ? KDF_REHASH_TOO_CHEAP
                                                                 : KDF_REHASH_NO;
}

static const char *
pbkdf2_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    if (h->cost > kdf_pol_bound(pol, &kdf_pkey_max_iterations, 0))
        return "pbkdf2 iterations above max.pbkdf2";
    /* A 1-byte digest matches one wrong password in 256. */
    if (h->dk_len < kdf_pol_bound(pol, &pbkdf2_min_len, 0))
        return "pbkdf2 digest shorter than min.pbkdf2-len";
    return NULL;
}

static int
pbkdf2_below_min(const struct kdf_hash *h, const struct kdf_policy *pol,
                 const struct kdf_target *tg)
{
    (void)tg;
    return h->cost < pol->bound[h->scheme][PBKDF2_MIN_ITER];
}

static enum kdf_rehash
pbkdf2_vs_target(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    return h->cost >= pol->target.cost ? KDF_REHASH_NO : KDF_REHASH_TOO_CHEAP;
}

/* Iterations: a row is one hash function, so they compare as they are. */
static uint64_t
pbkdf2_work(const struct kdf_hash *h)
{
    return h->cost;
}

static const char *
pbkdf2_target_check(const struct kdf_target *t, const struct kdf_policy *pol,
                    const char **over)
{
    uint32_t size = (uint32_t)digest_size(t->scheme);

    if (t->format != KDF_FMT_PASSLIB && t->format != KDF_FMT_PHC &&
        t->format != KDF_FMT_DJANGO)
        return "pbkdf2 format must be passlib, phc or django";
    if (t->cost < 1)
        return "pbkdf2 iterations below 1";
    if (t->salt_len < 1 || t->salt_len > KDF_MAX_SALT)
        return "pbkdf2 salt outside 1..64 bytes";
    if (t->dk_len < 1 || t->dk_len > KDF_MAX_DIGEST)
        return "pbkdf2 length outside 1..64 bytes";
    /* passlib and Django verify a fixed-size checksum (the hash size). */
    if (t->format != KDF_FMT_PHC && t->dk_len != size)
        return "pbkdf2 len must be the digest size for format passlib or django "
               "(use format=phc)";
    if (t->dk_len < kdf_pol_bound(pol, &pbkdf2_min_len, 0))
        return "pbkdf2 length below min.pbkdf2-len";
    if (t->salt_len < kdf_pol_bound(pol, &pbkdf2_min_salt, 0))
        return "pbkdf2 salt below min.pbkdf2-salt";
    if (t->cost > kdf_pol_bound(pol, &kdf_pkey_max_iterations, 0))
        *over = "pbkdf2 iterations above max.pbkdf2";
    return NULL;
}

static const struct kdf_tword pbkdf2_formats[] = {
    {"passlib", KDF_FMT_PASSLIB}, {"phc", KDF_FMT_PHC}, {"django", KDF_FMT_DJANGO}, {NULL, 0}};
static const struct kdf_tkey pbkdf2_keys[] = {
    {"i", KDF_TF_COST, 1, UINT32_MAX, 0, NULL},
    {"format", KDF_TF_FORMAT, 0, 0, 0, pbkdf2_formats},
    {"salt", KDF_TF_SALT, 1, KDF_MAX_SALT, 0, NULL},
    {"len", KDF_TF_LEN, 1, KDF_MAX_DIGEST, 0, NULL},
};

/* Iterations: OWASP Password Storage Cheat Sheet (2023); these are also
 * the default minimums (min.pbkdf2-*), in slot PBKDF2_MIN_ITER of the
 * row's own family. */
#define PBKDF2_ROW(row, nm, id_, idx, iter, size, rec, fips_, base, claimer, what, ...)   \
    static const char *const row##_prefixes[] = {__VA_ARGS__, NULL};                     \
    static const struct kdf_pkey row##_min = KDF_PKEY_BOUND(                             \
        "min." nm, KDF_PR_COST_MIN, KDF_TF_COST, id_, PBKDF2_MIN_ITER, 1, UINT32_MAX, iter); \
    static const struct kdf_pkey *const row##_pkeys[] = {                                \
        &row##_min, &kdf_pkey_max_iterations, &pbkdf2_min_len, &pbkdf2_min_salt};         \
    const struct kdf_scheme_desc row = {                                                 \
        .name = nm,                                                                      \
        .id = id_,                                                                       \
        .summary = what,                                                                 \
        .prefixes = row##_prefixes,                                                      \
        .claim = claimer,                                                                \
        .claim_prefix = "pbkdf2_",                                                       \
        .parse = any_parse,                                                              \
        .encode = pbkdf2_encode,                                                         \
        .alphabet = pbkdf2_alphabet,                                                     \
        .describe = pbkdf2_describe,                                                     \
        .verify = pbkdf2_verify,                                                         \
        .hash = pbkdf2_hash,                                                             \
        .fill = pbkdf2_fill,                                                             \
        .over_caps = pbkdf2_over_caps,                                                   \
        .flaw = pbkdf2_flaw,                                                             \
        .below_min = pbkdf2_below_min,                                                   \
        .vs_target = pbkdf2_vs_target,                                                   \
        .work = pbkdf2_work,                                                             \
        .defaults = {.scheme = id_, .format = KDF_FMT_PASSLIB, .cost = iter,             \
                     .salt_len = 16, .dk_len = size},                                    \
        .cost_kind = KDF_COST_LINEAR,                                                    \
        .recommended = rec,                                                              \
        .fips = fips_,                                                                   \
        .keys = pbkdf2_keys,                                                             \
        .nkeys = KDF_ARRAY_LEN(pbkdf2_keys),                                             \
        .target_check = pbkdf2_target_check,                                             \
        .pkeys = row##_pkeys,                                                            \
        .npkeys = KDF_ARRAY_LEN(row##_pkeys),                                            \
        .ds_family = "KDF-PBKDF2",                                                       \
        .ds_base = base,                                                                 \
    }

PBKDF2_ROW(kdf_row_pbkdf2_sha1, "pbkdf2-sha1", KDF_SCHEME_PBKDF2_SHA1, 0, 1300000, 20, 0, 0, 0,
           django_claim, "PBKDF2-HMAC-SHA1: passlib, PHC, Django (pbkdf2_sha1)",
           "$pbkdf2$");
PBKDF2_ROW(kdf_row_pbkdf2_sha256, "pbkdf2-sha256", KDF_SCHEME_PBKDF2_SHA256, 1, 600000, 32, 1, 1, 0,
           django_claim, "PBKDF2-HMAC-SHA256: passlib, PHC, Django (pbkdf2_sha256)",
           "$pbkdf2-sha256$");
PBKDF2_ROW(kdf_row_pbkdf2_sha512, "pbkdf2-sha512", KDF_SCHEME_PBKDF2_SHA512, 2, 210000, 64, 1, 1, 1,
           django_claim, "PBKDF2-HMAC-SHA512: passlib, PHC", "$pbkdf2-sha512$");
