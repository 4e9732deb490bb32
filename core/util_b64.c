/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_b64.c - the three base64 alphabets of the hash strings we accept
 * (doc/DESIGN.md "Hash strings"), strict decoders and encoders into caller
 * buffers.
 *
 *   KDF_B64_BCRYPT   ./A-Za-z0-9        bcrypt (crypt_blowfish BF_itoa64)
 *   KDF_B64_STD      A-Za-z0-9+/        RFC 4648 section 4, PHC: no padding
 *   KDF_B64_AB64     A-Za-z0-9./        passlib "adapted base64": '.' for '+'
 *   KDF_B64_STD_PAD  A-Za-z0-9+/ and =  RFC 4648 section 4 with padding (Django)
 *
 * All four use the RFC 4648 bit order (the first character carries the top
 * six bits of the first byte); only the alphabets differ.  Unlike the
 * little-endian "hash64" of $1$/$5$/$6$, which we never decode ourselves.
 *
 * "Strict" means canonical: exactly one spelling per byte string.  A length
 * of 4k+1 characters cannot come from any byte string (RFC 4648 section 4),
 * and the unused low bits of the last character must be zero (RFC 4648
 * section 3.5: decoders MAY reject non-zero pad bits; the Argon2 reference
 * decoder does).  bcrypt is the exception, see kdf_b64_bcrypt_valid().
 *
 * Decoding is a table lookup per character: the value (0..63) or 0x80 for a
 * character outside the alphabet.  ORing the looked-up values of a whole
 * string and testing 0x80 once keeps the inner loop branch-free, which is
 * what lets kdf_parse() beat crypt_checksalt() on long Argon2 strings.
 */
#include "kdf_prelude.h"
#include "util_b64.h"

#define BAD 0x80

/* Value of character c in each alphabet, as constant expressions so that the
 * 256-entry tables below are built by the compiler, not by hand. */
#define V_STD(c)                                                                         \
    ((c) >= 'A' && (c) <= 'Z'   ? (c) - 'A'                                              \
     : (c) >= 'a' && (c) <= 'z' ? (c) - 'a' + 26                                         \
     : (c) >= '0' && (c) <= '9' ? (c) - '0' + 52                                         \
     : (c) == '+'               ? 62                                                     \
     : (c) == '/'               ? 63                                                     \
                                : BAD)
#define V_AB64(c) ((c) == '.' ? 62 : (c) == '+' ? BAD : V_STD(c))
#define V_BCRYPT(c)                                                                      \
    ((c) == '.'                 ? 0                                                      \
     : (c) == '/'               ? 1                                                      \
     : (c) >= 'A' && (c) <= 'Z' ? (c) - 'A' + 2                                          \
     : (c) >= 'a' && (c) <= 'z' ? (c) - 'a' + 28                                         \
     : (c) >= '0' && (c) <= '9' ? (c) - '0' + 54                                         \
                                : BAD)
/* The casts keep clang's -Wconstant-conversion quiet about the branches of
 * the ?: chains that are not taken for a given c. */
#define R4(F, b)                                                                         \
    (uint8_t) F((b)), (uint8_t)F((b) + 1), (uint8_t)F((b) + 2), (uint8_t)F((b) + 3)
#define R16(F, b) R4(F, b), R4(F, (b) + 4), R4(F, (b) + 8), R4(F, (b) + 12)
#define R64(F, b) R16(F, b), R16(F, (b) + 16), R16(F, (b) + 32), R16(F, (b) + 48)
#define TABLE(F)                                                                         \
    {                                                                                    \
        R64(F, 0), R64(F, 64), R64(F, 128), R64(F, 192)                                  \
    }

static const uint8_t dec_std[256] = TABLE(V_STD);
static const uint8_t dec_ab64[256] = TABLE(V_AB64);
static const uint8_t dec_bcrypt[256] = TABLE(V_BCRYPT);

static const char enc_std[64] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char enc_ab64[64] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./";
static const char enc_bcrypt[64] =
    "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static const uint8_t *
dec_table(enum kdf_b64 alpha)
{
    switch (alpha) {
    case KDF_B64_BCRYPT:
        return dec_bcrypt;
    case KDF_B64_STD:
    case KDF_B64_STD_PAD:
        return dec_std;
    case KDF_B64_AB64:
        return dec_ab64;
    }
    return NULL;
}

static const char *
enc_table(enum kdf_b64 alpha)
{
    switch (alpha) {
    case KDF_B64_BCRYPT:
        return enc_bcrypt;
    case KDF_B64_STD:
    case KDF_B64_STD_PAD:
        return enc_std;
    case KDF_B64_AB64:
        return enc_ab64;
    }
    return NULL;
}

/* OR of the table values of in[0..n): has BAD set iff one is not in the
 * alphabet.  Four at a time, no early exit: inputs are at most 512 bytes. */
static uint8_t
scan(const uint8_t *tab, const char *in, size_t n)
{
    const unsigned char *p = (const unsigned char *)in;
    uint8_t acc = 0;
    size_t i = 0;

    for (; i + 4 <= n; i += 4)
        acc |= (uint8_t)(tab[p[i]] | tab[p[i + 1]] | tab[p[i + 2]] | tab[p[i + 3]]);
    for (; i < n; i++)
        acc |= tab[p[i]];
    return acc;
}

/* Bytes decoded from n characters of an unpadded string (n % 4 != 1). */
static size_t
dec_len(size_t n)
{
    return n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
}

/* The padded form: strip at most two '=' from a multiple-of-4 string.  The
 * remaining characters must then be a valid unpadded length whose padding
 * is exactly what was stripped ("Zg==" yes, "Zg=" or "Zm8==" no). */
static enum kdf_status
strip_pad(const char *in, size_t *n)
{
    size_t len = *n, pad = 0;

    if (len % 4 != 0)
        return KDF_MALFORMED;
    while (pad < 2 && len > 0 && in[len - 1] == '=') {
        len--;
        pad++;
    }
    /* A third '=' stays in the string and fails the alphabet scan. */
    *n = len;
    return KDF_OK;
}

enum kdf_status
kdf_b64_check(enum kdf_b64 alpha, const char *in, size_t in_len, size_t *out_len)
{
    const uint8_t *tab = dec_table(alpha);
    size_t n = in_len;
    uint8_t last;

    if (tab == NULL || (in == NULL && in_len != 0))
        return KDF_RANGE;
    if (alpha == KDF_B64_STD_PAD && strip_pad(in, &n) != KDF_OK)
        return KDF_MALFORMED;
    if (n % 4 == 1)
        return KDF_MALFORMED;
    if (scan(tab, in, n) & BAD)
        return KDF_MALFORMED;
    if (n % 4 != 0) {
        /* 2 characters carry 1 byte + 4 spare bits, 3 carry 2 + 2 spare. */
        last = tab[(unsigned char)in[n - 1]];
        if (last & (n % 4 == 2 ? 0x0f : 0x03))
            return KDF_MALFORMED;
    }
    if (out_len != NULL)
        *out_len = dec_len(n);
    return KDF_OK;
}

/* A keyid is the PHC string's keyid= (unpadded standard base64 of 1 to 8
 * bytes, the limits of the Argon2 reference's encoder), narrowed to
 * letters and digits so that it is also a file name and a policy word. */
int
kdf_keyid_valid(const char *id, size_t n)
{
    size_t bytes = 0;

    if (id == NULL || n < 2 || n >= KDF_KEYID_CAP)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') ||
              (id[i] >= '0' && id[i] <= '9')))
            return 0;
    return kdf_b64_check(KDF_B64_STD, id, n, &bytes) == KDF_OK && bytes >= 1 && bytes <= 8;
}

int
kdf_b64_bcrypt_valid(const char *in, size_t in_len)
{
    /* Alphabet and length only, as crypt_blowfish's BF_decode reads it: the
     * spare low bits of the last character are not looked at.  kdf_parse()
     * has already refused a bcrypt string whose spare bits are not zero
     * (see parse_bcrypt), so for parsed hashes this decode is exact. */
    return in_len % 4 != 1 && !(scan(dec_bcrypt, in, in_len) & BAD);
}

/* Decode n characters (already validated) of table tab into out. */
static void
decode(const uint8_t *tab, const char *in, size_t n, uint8_t *out)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t i = 0, o = 0;
    uint32_t v;

    for (; i + 4 <= n; i += 4, o += 3) {
        v = ((uint32_t)tab[p[i]] << 18) | ((uint32_t)tab[p[i + 1]] << 12) |
            ((uint32_t)tab[p[i + 2]] << 6) | tab[p[i + 3]];
        out[o] = (uint8_t)(v >> 16);
        out[o + 1] = (uint8_t)(v >> 8);
        out[o + 2] = (uint8_t)v;
    }
    if (n - i >= 2) {
        v = ((uint32_t)tab[p[i]] << 18) | ((uint32_t)tab[p[i + 1]] << 12);
        if (n - i == 3)
            v |= (uint32_t)tab[p[i + 2]] << 6;
        out[o++] = (uint8_t)(v >> 16);
        if (n - i == 3)
            out[o] = (uint8_t)(v >> 8);
    }
}

enum kdf_status
kdf_b64_decode(enum kdf_b64 alpha, const char *in, size_t in_len, uint8_t *out,
               size_t cap, size_t *out_len)
{
    size_t n = in_len, need;
    enum kdf_status st;

    if (out_len != NULL)
        *out_len = 0;
    st = kdf_b64_check(alpha, in, in_len, &need);
    if (st != KDF_OK)
        return st;
    if (need > cap || (out == NULL && need != 0))
        return KDF_RANGE;
    if (alpha == KDF_B64_STD_PAD)
        (void)strip_pad(in, &n);
    decode(dec_table(alpha), in, n, out);
    if (out_len != NULL)
        *out_len = need;
    return KDF_OK;
}

enum kdf_status
kdf_b64_bcrypt_decode_lenient(const char *in, size_t in_len, uint8_t *out, size_t cap,
                              size_t *out_len)
{
    size_t need;

    if (out_len != NULL)
        *out_len = 0;
    if (in == NULL && in_len != 0)
        return KDF_RANGE;
    if (!kdf_b64_bcrypt_valid(in, in_len))
        return KDF_MALFORMED;
    need = dec_len(in_len);
    if (need > cap || (out == NULL && need != 0))
        return KDF_RANGE;
    /* The spare bits of the last character fall off the shifts in decode(). */
    decode(dec_bcrypt, in, in_len, out);
    if (out_len != NULL)
        *out_len = need;
    return KDF_OK;
}

size_t
kdf_b64_encoded_len(enum kdf_b64 alpha, size_t n)
{
    if (alpha == KDF_B64_STD_PAD)
        return (n + 2) / 3 * 4;
    return n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0);
}

enum kdf_status
kdf_b64_encode(enum kdf_b64 alpha, const uint8_t *in, size_t in_len, char *out,
               size_t cap, size_t *out_len)
{
    const char *tab = enc_table(alpha);
    size_t need, i = 0, o = 0;
    uint32_t v;

    if (out_len != NULL)
        *out_len = 0;
    if (tab == NULL || out == NULL || (in == NULL && in_len != 0))
        return KDF_RANGE;
    /* Guard the length arithmetic before it can wrap. */
    if (in_len > (SIZE_MAX - 4) / 4 * 3)
        return KDF_RANGE;
    need = kdf_b64_encoded_len(alpha, in_len);
    if (need >= cap) {
        if (cap > 0)
            out[0] = '\0';
        return KDF_RANGE;
    }
    for (; i + 3 <= in_len; i += 3, o += 4) {
        v = ((uint32_t)in[i] << 16) | ((uint32_t)in[i + 1] << 8) | in[i + 2];
        out[o] = tab[v >> 18];
        out[o + 1] = tab[(v >> 12) & 63];
        out[o + 2] = tab[(v >> 6) & 63];
        out[o + 3] = tab[v & 63];
    }
    if (i < in_len) {
        /* RFC 4648 section 4: the spare bits of the last group are zero. */
        v = (uint32_t)in[i] << 16;
        if (in_len - i == 2)
            v |= (uint32_t)in[i + 1] << 8;
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        if (in_len - i == 2)
            out[o++] = tab[(v >> 6) & 63];
        else if (alpha == KDF_B64_STD_PAD)
            out[o++] = '=';
        if (alpha == KDF_B64_STD_PAD)
            out[o++] = '=';
    }
    out[o] = '\0';
    if (out_len != NULL)
        *out_len = o;
    return KDF_OK;
}
