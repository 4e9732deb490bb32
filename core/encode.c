/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * encode.c - kdf_encode(): a parsed hash back to its string, and the
 * decoders of a parsed hash's salt and digest into caller buffers.
 *
 * kdf_encode() writes the canonical spelling from the fields and the spans
 * that kdf_parse() recorded, so for every accepted input the output is
 * byte-identical to it (the round-trip property that test_parse and the
 * fuzz target check).  It is also how the schemes can spell a new hash:
 * fill the fields, point the spans at freshly encoded base64, encode.
 * No printf: nothing here may allocate, and a decimal is ten lines.
 */
#include "kdf_internal.h"

/* An output buffer that records overflow instead of writing past cap - 1
 * (the last byte is kept for the NUL). */
struct obuf {
    char *p;
    size_t cap, n;
    int over;
};

static void
put(struct obuf *b, const char *s, size_t n)
{
    if (b->over || n >= b->cap - b->n) {
        b->over = 1;
        return;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void
put_u32(struct obuf *b, uint32_t v)
{
    char tmp[10];
    size_t i = sizeof tmp;

    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(b, tmp + i, sizeof tmp - i);
}

static int
span_ok(const struct kdf_span *sp)
{
    return (sp->ptr != NULL || sp->len == 0) && sp->len <= KDF_MAX_HASH_STR;
}

static const char *
pbkdf2_suffix(enum kdf_scheme sc, int django)
{
    switch (sc) {
    case KDF_SCHEME_PBKDF2_SHA1:
        return django ? "_sha1" : "";
    case KDF_SCHEME_PBKDF2_SHA256:
        return django ? "_sha256" : "-sha256";
    default:
        return django ? NULL : "-sha512"; /* Django has no SHA-512 hasher */
    }
}

static enum kdf_status
encode_into(const struct kdf_hash *h, struct obuf *b)
{
    char two[2];
    const char *suf;

    switch (h->scheme) {
    case KDF_SCHEME_EMPTY:
        return KDF_OK;
    case KDF_SCHEME_LOCKED:
    case KDF_SCHEME_LEGACY:
        /* Opaque to us: what was stored is what is written back. */
        put(b, h->whole.ptr, h->whole.len);
        return KDF_OK;
    case KDF_SCHEME_BCRYPT:
        if ((h->bcrypt_minor != 'a' && h->bcrypt_minor != 'b' && h->bcrypt_minor != 'x' &&
             h->bcrypt_minor != 'y') ||
            h->cost > 99)
            return KDF_RANGE;
        put(b, "$2", 2);
        put(b, &h->bcrypt_minor, 1);
        two[0] = (char)('0' + h->cost / 10);
        two[1] = (char)('0' + h->cost % 10);
        put(b, "$", 1);
        put(b, two, 2);
        put(b, "$", 1);
        put(b, h->salt.ptr, h->salt.len);
        put(b, h->digest.ptr, h->digest.len);
        return KDF_OK;
    case KDF_SCHEME_ARGON2D:
    case KDF_SCHEME_ARGON2I:
    case KDF_SCHEME_ARGON2ID:
        put(b,
            h->scheme == KDF_SCHEME_ARGON2ID  ? "$argon2id"
            : h->scheme == KDF_SCHEME_ARGON2I ? "$argon2i"
                                              : "$argon2d",
            h->scheme == KDF_SCHEME_ARGON2ID ? 9 : 8);
        /* The version is written when it was (round trip) and always when it
         * is not the default 0x10 a missing "v=" stands for.  0x10 and 0x13
         * are written as the decimals 16 and 19. */
        if ((h->flags & KDF_HF_ARGON2_V_PRESENT) || h->version != 0x10) {
            put(b, "$v=", 3);
            put_u32(b, h->version);
        }
        put(b, "$m=", 3);
        put_u32(b, h->m_kib);
        put(b, ",t=", 3);
        put_u32(b, h->cost);
        put(b, ",p=", 3);
        put_u32(b, h->lanes);
        if (h->keyid.len != 0) {
            put(b, ",keyid=", 7);
            put(b, h->keyid.ptr, h->keyid.len);
        }
        if (h->data.len != 0) {
            put(b, ",data=", 6);
            put(b, h->data.ptr, h->data.len);
        }
        break;
    case KDF_SCHEME_PBKDF2_SHA1:
    case KDF_SCHEME_PBKDF2_SHA256:
    case KDF_SCHEME_PBKDF2_SHA512:
        suf = pbkdf2_suffix(h->scheme, h->format == KDF_FMT_DJANGO);
        if (suf == NULL)
            return KDF_RANGE;
        if (h->format == KDF_FMT_DJANGO) {
            put(b, "pbkdf2", 6);
            put(b, suf, strlen(suf));
            put(b, "$", 1);
        } else if (h->format == KDF_FMT_PASSLIB || h->format == KDF_FMT_PHC) {
            put(b, "$pbkdf2", 7);
            put(b, suf, strlen(suf));
            put(b, h->format == KDF_FMT_PHC ? "$i=" : "$",
                h->format == KDF_FMT_PHC ? 3 : 1);
        } else {
            return KDF_RANGE;
        }
        put_u32(b, h->cost);
        if (h->format == KDF_FMT_PHC && (h->flags & KDF_HF_PHC_L_PRESENT)) {
            put(b, ",l=", 3);
            put_u32(b, h->dk_len);
        }
        break;
    default:
        return KDF_RANGE;
    }
    /* Argon2 and PBKDF2 end alike: $salt$digest */
    put(b, "$", 1);
    put(b, h->salt.ptr, h->salt.len);
    put(b, "$", 1);
    put(b, h->digest.ptr, h->digest.len);
    return KDF_OK;
}

enum kdf_status
kdf_encode(const struct kdf_hash *h, char *out, size_t cap, size_t *out_len)
{
    struct obuf b = {out, cap, 0, 0};
    enum kdf_status st;

    if (out_len != NULL)
        *out_len = 0;
    if (out == NULL || cap == 0)
        return KDF_RANGE;
    out[0] = '\0';
    if (h == NULL || !span_ok(&h->salt) || !span_ok(&h->digest) || !span_ok(&h->keyid) ||
        !span_ok(&h->data) || !span_ok(&h->whole) ||
        ((h->scheme == KDF_SCHEME_LOCKED || h->scheme == KDF_SCHEME_LEGACY) &&
         h->whole.len == 0))
        return KDF_RANGE;
    st = encode_into(h, &b);
    if (st == KDF_OK && b.over)
        st = KDF_RANGE;
    if (st != KDF_OK) {
        out[0] = '\0';
        return st;
    }
    out[b.n] = '\0';
    if (out_len != NULL)
        *out_len = b.n;
    return KDF_OK;
}

/* Which alphabet a parsed hash's salt (or digest) is spelt in; -1: text or
 * nothing to decode. */
static int
alphabet_of(const struct kdf_hash *h, int digest)
{
    switch (h->scheme) {
    case KDF_SCHEME_BCRYPT:
        return KDF_B64_BCRYPT;
    case KDF_SCHEME_ARGON2D:
    case KDF_SCHEME_ARGON2I:
    case KDF_SCHEME_ARGON2ID:
        return KDF_B64_STD;
    case KDF_SCHEME_PBKDF2_SHA1:
    case KDF_SCHEME_PBKDF2_SHA256:
    case KDF_SCHEME_PBKDF2_SHA512:
        switch (h->format) {
        case KDF_FMT_PASSLIB:
            return KDF_B64_AB64;
        case KDF_FMT_PHC:
            return KDF_B64_STD;
        case KDF_FMT_DJANGO:
            return digest ? KDF_B64_STD_PAD : -1;
        default:
            return -2;
        }
    default:
        return -2;
    }
}

static enum kdf_status
decode_span(const struct kdf_hash *h, int digest, uint8_t *out, size_t cap,
            size_t *out_len)
{
    const struct kdf_span *sp;
    int a;

    if (out_len != NULL)
        *out_len = 0;
    if (h == NULL || (out == NULL && cap != 0))
        return KDF_RANGE;
    sp = digest ? &h->digest : &h->salt;
    if (!span_ok(sp))
        return KDF_RANGE;
    a = alphabet_of(h, digest);
    if (a == -2)
        return KDF_UNSUPPORTED; /* empty, locked, legacy: nothing of ours */
    if (a == -1) {
        /* Django uses the salt text itself as the PBKDF2 salt. */
        if (sp->len > cap)
            return KDF_RANGE;
        if (sp->len != 0)
            memcpy(out, sp->ptr, sp->len);
        if (out_len != NULL)
            *out_len = sp->len;
        return KDF_OK;
    }
    if (a == KDF_B64_BCRYPT)
        return kdf_b64_bcrypt_decode_lenient(sp->ptr, sp->len, out, cap, out_len);
    return kdf_b64_decode((enum kdf_b64)a, sp->ptr, sp->len, out, cap, out_len);
}

enum kdf_status
kdf_decode_salt(const struct kdf_hash *h, uint8_t *out, size_t cap, size_t *out_len)
{
    return decode_span(h, 0, out, cap, out_len);
}

enum kdf_status
kdf_decode_digest(const struct kdf_hash *h, uint8_t *out, size_t cap, size_t *out_len)
{
    return decode_span(h, 1, out, cap, out_len);
}
