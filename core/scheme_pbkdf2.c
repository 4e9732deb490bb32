/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_pbkdf2.c - PBKDF2 hash strings: verify and make (design.md
 * section 2).  Three spellings share one derivation:
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
 * kdf.c has parsed the string and applied the policy caps (iterations,
 * password length) before kdf_pbkdf2_verify runs.
 */
#include "kdf_internal.h"

#include "alg_sha.h"

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

enum kdf_status
kdf_pbkdf2_verify(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    uint8_t salt[KDF_MAX_SALT], want[KDF_MAX_DIGEST], dk[KDF_MAX_DIGEST];
    const uint8_t *s = salt;
    size_t s_len = 0, d_len = 0;
    enum kdf_status st;

    if (digest_size(h->scheme) == 0)
        return KDF_UNSUPPORTED;
    switch (h->format) {
    case KDF_FMT_PASSLIB:
    case KDF_FMT_PHC:
        st = kdf_decode_salt(h, salt, sizeof salt, &s_len);
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
    st = kdf_decode_digest(h, want, sizeof want, &d_len);
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

enum kdf_status
kdf_pbkdf2_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                const uint8_t *salt, size_t salt_len, char *out, size_t cap)
{
    uint8_t dk[KDF_MAX_DIGEST];
    char salt_enc[KDF_MAX_HASH_STR], dig_enc[KDF_MAX_HASH_STR];
    const uint8_t *s = salt;
    size_t s_len = salt_len, dl, n, out_len = 0;
    enum kdf_format fmt = t->format == KDF_FMT_NATIVE ? KDF_FMT_PASSLIB : t->format;
    enum kdf_b64 alpha;
    struct kdf_hash h, chk;
    enum kdf_status st;

    dl = digest_size(t->scheme);
    if (dl == 0)
        return KDF_UNSUPPORTED;
    if (t->dk_len != 0) {
        /* passlib and Django fix the checksum at the digest size. */
        if (t->dk_len > KDF_MAX_DIGEST || (fmt != KDF_FMT_PHC && t->dk_len != dl))
            return KDF_RANGE;
        dl = t->dk_len;
    }
    if (t->cost == 0 || salt_len > KDF_MAX_SALT)
        return KDF_RANGE;

    memset(&h, 0, sizeof h);
    h.scheme = t->scheme;
    h.format = fmt;
    h.cost = t->cost;
    h.dk_len = (uint32_t)dl;
    switch (fmt) {
    case KDF_FMT_PASSLIB:
    case KDF_FMT_PHC:
        alpha = fmt == KDF_FMT_PASSLIB ? KDF_B64_AB64 : KDF_B64_STD;
        if (fmt == KDF_FMT_PHC && salt_len == 0)
            return KDF_RANGE; /* the PHC grammar wants a salt */
        st = kdf_b64_encode(alpha, salt, salt_len, salt_enc, sizeof salt_enc, &n);
        if (st != KDF_OK)
            return st;
        h.salt_len = (uint32_t)salt_len;
        if (fmt == KDF_FMT_PHC)
            h.flags |= KDF_HF_PHC_L_PRESENT;
        break;
    case KDF_FMT_DJANGO:
        if (t->scheme == KDF_SCHEME_PBKDF2_SHA512)
            return KDF_UNSUPPORTED; /* Django has no PBKDF2-SHA512 hasher */
        n = django_salt_text(salt, salt_len, salt_enc, KDF_MAX_SALT);
        if (n == 0)
            return KDF_RANGE;
        s = (const uint8_t *)salt_enc;
        s_len = n;
        h.salt_len = (uint32_t)n;
        alpha = KDF_B64_STD_PAD;
        break;
    default:
        return KDF_UNSUPPORTED;
    }
    h.salt = (struct kdf_span){salt_enc, n};

    st = kdf_pbkdf2(t->scheme, (const uint8_t *)pw, pw_len, s, s_len, t->cost, dk, dl);
    if (st == KDF_OK)
        st = kdf_b64_encode(alpha, dk, dl, dig_enc, sizeof dig_enc, &n);
    kdf_wipe(dk, sizeof dk);
    if (st != KDF_OK)
        return st;
    h.digest = (struct kdf_span){dig_enc, n};
    st = kdf_encode(&h, out, cap, &out_len);
    if (st != KDF_OK)
        return st;

    /* What we emit must be what we (and the parser's canonical form) read. */
    if (kdf_parse(out, out_len, &chk, NULL) != KDF_OK || chk.scheme != h.scheme ||
        chk.format != h.format || chk.cost != h.cost || chk.dk_len != h.dk_len) {
        kdf_wipe(out, cap);
        return KDF_INTERNAL;
    }
    return KDF_OK;
}
