/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parse.c - kdf_parse(): the zero-allocation parser of every hash string of
 * design.md section 2.
 *
 * Rules that hold for every form:
 *   - Only s[0..len) is read: every comparison checks the remaining length
 *     first, nothing calls strlen, and a NUL byte is just a bad character.
 *   - Canonical spelling only: exact lengths and alphabets, decimals without
 *     sign or leading zeros and at most 2^32-1, strict base64 (b64.c), fixed
 *     parameter order, nothing trailing.  kdf_encode() rebuilds the input
 *     byte for byte from what is recorded here.
 *   - Broken strings are KDF_MALFORMED, well-formed strings of a scheme or
 *     variant we do not implement are KDF_UNSUPPORTED; either way *reason is
 *     a short static string that never contains input bytes (it is logged).
 *   - Costs are only range-checked against the specs here; policy caps are
 *     kdf_check_caps()'s job.
 */
#include "kdf_internal.h"

#include <stddef.h>

/* The scanners below are small and called with constant lengths: inlined,
 * gcc unrolls them as clang does unprompted. */
#if defined(__GNUC__)
#define KDF_INLINE static inline __attribute__((always_inline))
#else
#define KDF_INLINE static inline
#endif

/* Character classes, built as constant expressions (see b64.c). */
#define C_CRYPT64 0x1u /* ./0-9A-Za-z: DES, BSDi, bcrypt */
#define C_DJANGO 0x2u  /* Django salt text: A-Za-z0-9 and ./+-_ */
#define C_LEGACY 0x4u  /* libxcrypt's check_badsalt_chars() complement */
#define IS_ALNUM(c)                                                                      \
    (((c) >= '0' && (c) <= '9') || ((c) >= 'A' && (c) <= 'Z') ||                         \
     ((c) >= 'a' && (c) <= 'z'))
#define CLS(c)                                                                           \
    ((IS_ALNUM(c) || (c) == '.' || (c) == '/' ? C_CRYPT64 : 0u) |                        \
     (IS_ALNUM(c) || (c) == '.' || (c) == '/' || (c) == '+' || (c) == '-' || (c) == '_'  \
          ? C_DJANGO                                                                     \
          : 0u) |                                                                        \
     ((c) > 0x20 && (c) < 0x7f && (c) != ':' && (c) != ';' && (c) != '!' &&              \
              (c) != '*' && (c) != '\\'                                                  \
          ? C_LEGACY                                                                     \
          : 0u))
#define R4(b) CLS((b)), CLS((b) + 1), CLS((b) + 2), CLS((b) + 3)
#define R16(b) R4(b), R4((b) + 4), R4((b) + 8), R4((b) + 12)
#define R64(b) R16(b), R16((b) + 16), R16((b) + 32), R16((b) + 48)
static const uint8_t cls[256] = {R64(0), R64(64), R64(128), R64(192)};

/* 1 when every byte of s[0..n) has class bit c. */
KDF_INLINE int
all_in(const char *s, size_t n, unsigned c)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned acc = c;
    size_t i = 0;

    /* Four lookups per step, one AND chain: load-bound, not latency-bound. */
    for (; i + 4 <= n; i += 4)
        acc &= (unsigned)(cls[p[i]] & cls[p[i + 1]] & cls[p[i + 2]] & cls[p[i + 3]]);
    for (; i < n; i++)
        acc &= cls[p[i]];
    return acc != 0;
}

/* 1 when every byte of s[0..n) is in the crypt64 / bcrypt alphabet
 * [./0-9A-Za-z].  Eight bytes per step with word arithmetic (SWAR, no ISA
 * flags).  With the top bit of every byte forced on, y - c*L keeps a byte's
 * top bit exactly when that byte is >= c, and no borrow crosses a byte
 * because c < 0x80.  Letters are one range once bit 0x20 is cleared
 * ('a'..'z' -> 'A'..'Z'); "./0-9" is 0x2e..0x39.  bcrypt's hot loop: 53 of
 * its 60 bytes. */
KDF_INLINE int
crypt64_ok(const char *s, size_t n)
{
    const uint64_t H = 0x8080808080808080u, L = 0x0101010101010101u;
    uint64_t bad = 0, x, y, u, in;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        memcpy(&x, s + i, 8);
        y = x | H;
        u = y & ~(0x20 * L);
        in = ((y - 0x2e * L) & ~(y - 0x3a * L)) | ((u - 0x41 * L) & ~(u - 0x5b * L));
        bad |= (~in | x) & H; /* in no range, or a byte >= 0x80 */
    }
    return bad == 0 && all_in(s + i, n - i, C_CRYPT64);
}

static enum kdf_status
fail(const char **why, enum kdf_status st, const char *msg)
{
    *why = msg;
    return st;
}

/* Does s[pos..len) start with lit[0..n)?  pos <= len always holds. */
static int
has(const char *s, size_t len, size_t pos, const char *lit, size_t n)
{
    /* A byte loop rather than memcmp(): with n constant at each call site
     * the compiler unrolls it, where memcmp() stays a library call. */
    if (len - pos < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[pos + i] != lit[i])
            return 0;
    return 1;
}
#define HAS(lit) has(s, len, pos, (lit), sizeof(lit) - 1)

/* A decimal in 0..2^32-1 at s[*pos]: at least one digit, no sign, no leading
 * zero ("0" itself is a number; the caller's range check refuses it where 0
 * is not allowed), no overflow (Argon2 reference decode_decimal rules). */
static int
dec_u32(const char *s, size_t len, size_t *pos, uint32_t *val)
{
    size_t i = *pos;
    uint64_t v = 0;

    if (i >= len || (unsigned)(s[i] - '0') > 9)
        return 0;
    if (s[i] == '0' && i + 1 < len && (unsigned)(s[i + 1] - '0') <= 9)
        return 0;
    for (; i < len && (unsigned)(s[i] - '0') <= 9; i++) {
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > UINT32_MAX)
            return 0;
    }
    *pos = i;
    *val = (uint32_t)v;
    return 1;
}

/* End of the field starting at pos: the next '$' or len. */
static size_t
field_end(const char *s, size_t len, size_t pos)
{
    const char *d = memchr(s + pos, '$', len - pos);

    return d != NULL ? (size_t)(d - s) : len;
}

/* A strict base64 field s[pos..end) of decoded size lo..hi bytes. */
static int
b64_field(const char *s, size_t pos, size_t end, enum kdf_b64 alpha, size_t lo, size_t hi,
          struct kdf_span *sp, uint32_t *dec)
{
    size_t n;

    if (kdf_b64_check(alpha, s + pos, end - pos, &n) != KDF_OK || n < lo || n > hi)
        return 0;
    sp->ptr = s + pos;
    sp->len = end - pos;
    if (dec != NULL)
        *dec = (uint32_t)n;
    return 1;
}

/* The 6-bit value of a character of the bcrypt alphabet ./A-Za-z0-9 (the
 * caller has checked the alphabet already: only the spare bits of the last
 * salt and digest characters are looked at here). */
static unsigned
bcrypt64_val(char c)
{
    if (c == '.')
        return 0;
    if (c == '/')
        return 1;
    if (c >= 'A' && c <= 'Z')
        return (unsigned)(c - 'A') + 2;
    if (c >= 'a' && c <= 'z')
        return (unsigned)(c - 'a') + 28;
    return (unsigned)(c - '0') + 54;
}

/* ---- bcrypt: $2[abxy]$NN$ + 22 salt + 31 digest (crypt_blowfish) ---- */
static enum kdf_status
parse_bcrypt(const char *s, size_t len, struct kdf_hash *h, const char **why)
{
    unsigned cost;

    /* s[0..3] = "$2m$" was checked by the caller. */
    if (len < 7 || (unsigned)(s[4] - '0') > 9 || (unsigned)(s[5] - '0') > 9 ||
        s[6] != '$')
        return fail(why, KDF_MALFORMED, "bcrypt: cost is not two digits");
    cost = (unsigned)(s[4] - '0') * 10 + (unsigned)(s[5] - '0');
    if (cost < 4 || cost > 31)
        return fail(why, KDF_MALFORMED, "bcrypt: cost outside 04..31");
    if (len != 60)
        return fail(why, KDF_MALFORMED, "bcrypt: length is not 60");
    /* Salt and digest are 53 characters of the bcrypt alphabet, which is the
     * crypt64 set. */
    if (!crypt64_ok(s + 7, 53))
        return fail(why, KDF_MALFORMED, "bcrypt: bad salt or digest character");
    /* Canonical spare bits: the 22nd salt character carries 4 unused bits and
     * the 31st digest character 2.  crypt_blowfish/libxcrypt ignore them when
     * decoding, but their output re-encodes the salt with those bits cleared
     * (BF_crypt masks the 22nd character with 0x30) and encodes the digest
     * from bytes, so under pam_unix's string compare a stored hash with
     * non-zero spare bits has never verified.  Refusing it here locks nobody
     * out, and keeps one spelling per hash: otherwise a one-character
     * variant of a valid hash would verify (reliability.md test 5). */
    if (bcrypt64_val(s[28]) & 0x0f)
        return fail(why, KDF_MALFORMED, "bcrypt: salt is not canonical");
    if (bcrypt64_val(s[59]) & 0x03)
        return fail(why, KDF_MALFORMED, "bcrypt: digest is not canonical");
    h->scheme = KDF_SCHEME_BCRYPT;
    h->bcrypt_minor = s[2];
    h->cost = cost;
    h->salt = (struct kdf_span){s + 7, 22};
    h->digest = (struct kdf_span){s + 29, 31};
    h->salt_len = 16;
    h->dk_len = 23; /* 23 of the 24 bytes are encoded (bug-compatible) */
    return KDF_OK;
}

/* ---- Argon2 (PHC string format, reference src/encoding.c) ----
 * $argon2X$[v=16$|v=19$]m=M,t=T,p=P[,keyid=K][,data=D]$salt$tag */
static enum kdf_status
parse_argon2(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t v, m, t, p, n;
    size_t end;

    h->version = 0x10; /* no "v=": the reference's reading (libsodium refuses) */
    if (HAS("v=")) {
        pos += 2;
        if (!dec_u32(s, len, &pos, &v))
            return fail(why, KDF_MALFORMED, "argon2: bad version number");
        if (!HAS("$"))
            return fail(why, KDF_MALFORMED, "argon2: '$' expected after version");
        /* A well-formed version we do not know: another variant, not junk. */
        if (v != 0x10 && v != 0x13)
            return fail(why, KDF_UNSUPPORTED, "argon2: version not 16 or 19");
        pos++;
        h->version = v;
        h->flags |= KDF_HF_ARGON2_V_PRESENT;
    }
    /* Fixed order m, t, p (PHC string format). */
    if (!HAS("m="))
        return fail(why, KDF_MALFORMED, "argon2: m= expected");
    pos += 2;
    if (!dec_u32(s, len, &pos, &m))
        return fail(why, KDF_MALFORMED, "argon2: bad m");
    if (!HAS(",t="))
        return fail(why, KDF_MALFORMED, "argon2: ,t= expected");
    pos += 3;
    if (!dec_u32(s, len, &pos, &t))
        return fail(why, KDF_MALFORMED, "argon2: bad t");
    if (!HAS(",p="))
        return fail(why, KDF_MALFORMED, "argon2: ,p= expected");
    pos += 3;
    if (!dec_u32(s, len, &pos, &p))
        return fail(why, KDF_MALFORMED, "argon2: bad p");
    /* RFC 9106 section 3.1: p in 1..2^24-1, m >= 8p KiB, t >= 1. */
    if (t < 1)
        return fail(why, KDF_MALFORMED, "argon2: t is 0");
    if (p < 1 || p > 0xffffffu)
        return fail(why, KDF_MALFORMED, "argon2: p outside 1..2^24-1");
    if ((uint64_t)m < 8u * (uint64_t)p)
        return fail(why, KDF_MALFORMED, "argon2: m below 8*p");
    /* Optional keyid and data, in that order (the older reference's
     * ARGON2_MAX_SECRET-era limits: keyid <= 8, data <= 32 bytes). */
    if (HAS(",keyid=")) {
        pos += 7;
        for (end = pos; end < len && s[end] != ',' && s[end] != '$'; end++)
            ;
        if (!b64_field(s, pos, end, KDF_B64_STD, 1, 8, &h->keyid, NULL))
            return fail(why, KDF_MALFORMED, "argon2: bad keyid");
        pos = end;
    }
    if (HAS(",data=")) {
        pos += 6;
        for (end = pos; end < len && s[end] != ',' && s[end] != '$'; end++)
            ;
        if (!b64_field(s, pos, end, KDF_B64_STD, 1, 32, &h->data, NULL))
            return fail(why, KDF_MALFORMED, "argon2: bad data");
        pos = end;
    }
    if (!HAS("$"))
        return fail(why, KDF_MALFORMED, "argon2: '$' expected after parameters");
    pos++;
    end = field_end(s, len, pos);
    if (end == len)
        return fail(why, KDF_MALFORMED, "argon2: tag missing");
    if (!b64_field(s, pos, end, KDF_B64_STD, 8, KDF_MAX_SALT, &h->salt, &n))
        return fail(why, KDF_MALFORMED, "argon2: salt not 8..64 bytes of base64");
    h->salt_len = n;
    pos = end + 1;
    /* The tag runs to the end: a '$' or anything else trailing is a bad
     * base64 character. */
    if (!b64_field(s, pos, len, KDF_B64_STD, 4, KDF_MAX_DIGEST, &h->digest, &n))
        return fail(why, KDF_MALFORMED, "argon2: tag not 4..64 bytes of base64");
    h->dk_len = n;
    h->m_kib = m;
    h->cost = t;
    h->lanes = p;
    return KDF_OK;
}

/* Digest size of each PBKDF2 hash function (RFC 8018 uses HMAC-SHA-x). */
static uint32_t
pbkdf2_size(enum kdf_scheme sc)
{
    return sc == KDF_SCHEME_PBKDF2_SHA1 ? 20 : sc == KDF_SCHEME_PBKDF2_SHA256 ? 32 : 64;
}

/* ---- PBKDF2, passlib ($pbkdf2[-shaN]$R$ab64$ab64) or PHC
 * ($pbkdf2[-shaN]$i=N[,l=L]$b64$b64) ---- */
static enum kdf_status
parse_pbkdf2(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t iter, l = 0, n;
    size_t end;
    int phc = HAS("i=");

    if (phc)
        pos += 2;
    if (!dec_u32(s, len, &pos, &iter) || iter < 1)
        return fail(why, KDF_MALFORMED, "pbkdf2: iterations not 1..2^32-1");
    if (phc && HAS(",l=")) {
        pos += 3;
        if (!dec_u32(s, len, &pos, &l) || l < 1 || l > KDF_MAX_DIGEST)
            return fail(why, KDF_MALFORMED, "pbkdf2: l not 1..64");
        h->flags |= KDF_HF_PHC_L_PRESENT;
    }
    if (!HAS("$"))
        return fail(why, KDF_MALFORMED, "pbkdf2: '$' expected after iterations");
    pos++;
    end = field_end(s, len, pos);
    if (end == len)
        return fail(why, KDF_MALFORMED, "pbkdf2: checksum missing");
    if (phc) {
        h->format = KDF_FMT_PHC;
        if (!b64_field(s, pos, end, KDF_B64_STD, 1, KDF_MAX_SALT, &h->salt, &n))
            return fail(why, KDF_MALFORMED, "pbkdf2: salt not 1..64 bytes of base64");
        h->salt_len = n;
        if (!b64_field(s, end + 1, len, KDF_B64_STD, 1, KDF_MAX_DIGEST, &h->digest, &n))
            return fail(why, KDF_MALFORMED, "pbkdf2: hash not 1..64 bytes of base64");
        if (l != 0 && n != l)
            return fail(why, KDF_MALFORMED, "pbkdf2: hash length differs from l");
    } else {
        /* passlib: salt may be empty (its salt_size minimum is 0). */
        h->format = KDF_FMT_PASSLIB;
        if (!b64_field(s, pos, end, KDF_B64_AB64, 0, KDF_MAX_SALT, &h->salt, &n))
            return fail(why, KDF_MALFORMED, "pbkdf2: salt not 0..64 bytes of ab64");
        h->salt_len = n;
        n = pbkdf2_size(h->scheme);
        if (!b64_field(s, end + 1, len, KDF_B64_AB64, n, n, &h->digest, NULL))
            return fail(why, KDF_MALFORMED, "pbkdf2: checksum not ab64 of digest size");
    }
    h->dk_len = n;
    h->cost = iter;
    return KDF_OK;
}

/* ---- PBKDF2, Django: pbkdf2_shaN$N$salt-text$padded-b64 ---- */
static enum kdf_status
parse_django(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t iter, n;
    size_t end;

    if (!dec_u32(s, len, &pos, &iter) || iter < 1)
        return fail(why, KDF_MALFORMED, "django: iterations not 1..2^32-1");
    if (!HAS("$"))
        return fail(why, KDF_MALFORMED, "django: '$' expected after iterations");
    pos++;
    end = field_end(s, len, pos);
    if (end == len)
        return fail(why, KDF_MALFORMED, "django: hash missing");
    /* The salt is used as text (Django's get_random_string: alphanumerics);
     * control bytes, ':' and '$' would break the shadow line or the grammar. */
    if (end - pos < 1 || end - pos > KDF_MAX_SALT ||
        !all_in(s + pos, end - pos, C_DJANGO))
        return fail(why, KDF_MALFORMED, "django: salt not 1..64 safe characters");
    h->salt = (struct kdf_span){s + pos, end - pos};
    h->salt_len = (uint32_t)(end - pos);
    n = pbkdf2_size(h->scheme);
    if (!b64_field(s, end + 1, len, KDF_B64_STD_PAD, n, n, &h->digest, NULL))
        return fail(why, KDF_MALFORMED, "django: hash not padded base64 of digest size");
    h->format = KDF_FMT_DJANGO;
    h->dk_len = n;
    h->cost = iter;
    return KDF_OK;
}

/* ---- legacy crypt(3): recognised, validated lightly, verified by
 * libxcrypt's crypt_rn() (which does its own strict parsing) ---- */
static const struct {
    const char *p;
    size_t n;
} legacy_prefixes[] = {
    /* $1$ $3$ $5$ $6$ $7$ $y$ are matched before this table */
    {"$gy$", 4},
    {"$sha1$", 6},
    {"$md5$", 5},
    {"$md5,", 5},
};

static enum kdf_status
legacy(const char *s, size_t len, size_t plen, struct kdf_hash *h, const char **why)
{
    if (len <= plen)
        return fail(why, KDF_MALFORMED, "legacy: nothing after the prefix");
    /* libxcrypt check_badsalt_chars(): only 0x21..0x7e, none of :;!*\ */
    if (!all_in(s, len, C_LEGACY))
        return fail(why, KDF_MALFORMED, "legacy: bad character");
    h->scheme = KDF_SCHEME_LEGACY;
    h->prefix = (struct kdf_span){s, plen};
    return KDF_OK;
}

static enum kdf_status
parse_dollar(const char *s, size_t len, struct kdf_hash *h, const char **why)
{
    size_t pos = 0;

    if (len >= 4 && s[1] == '2' && s[3] == '$') {
        if (s[2] == 'a' || s[2] == 'b' || s[2] == 'x' || s[2] == 'y')
            return parse_bcrypt(s, len, h, why);
        return fail(why, KDF_UNSUPPORTED, "bcrypt: unknown minor version");
    }
    if (HAS("$2$"))
        return fail(why, KDF_UNSUPPORTED, "bcrypt: $2$ is not supported");
    if (HAS("$argon2")) {
        pos = 7;
        if (HAS("id$"))
            h->scheme = KDF_SCHEME_ARGON2ID;
        else if (HAS("i$"))
            h->scheme = KDF_SCHEME_ARGON2I;
        else if (HAS("d$"))
            h->scheme = KDF_SCHEME_ARGON2D;
        else
            return fail(why, KDF_UNSUPPORTED, "argon2: unknown variant");
        pos += h->scheme == KDF_SCHEME_ARGON2ID ? 3 : 2;
        return parse_argon2(s, len, pos, h, why);
    }
    if (HAS("$pbkdf2")) {
        pos = 7;
        if (HAS("$"))
            h->scheme = KDF_SCHEME_PBKDF2_SHA1;
        else if (HAS("-sha256$"))
            h->scheme = KDF_SCHEME_PBKDF2_SHA256;
        else if (HAS("-sha512$"))
            h->scheme = KDF_SCHEME_PBKDF2_SHA512;
        else
            return fail(why, KDF_UNSUPPORTED, "pbkdf2: unknown hash function");
        pos += h->scheme == KDF_SCHEME_PBKDF2_SHA1 ? 1 : 8;
        return parse_pbkdf2(s, len, pos, h, why);
    }
    /* The crypt(3) prefixes libxcrypt knows; first character first. */
    if (len >= 3 && s[2] == '$' &&
        (s[1] == '1' || s[1] == '3' || s[1] == '5' || s[1] == '6' || s[1] == '7' ||
         s[1] == 'y'))
        return legacy(s, len, 3, h, why);
    for (size_t i = 0; i < KDF_ARRAY_LEN(legacy_prefixes); i++)
        if (has(s, len, 0, legacy_prefixes[i].p, legacy_prefixes[i].n))
            return legacy(s, len, legacy_prefixes[i].n, h, why);
    return fail(why, KDF_UNSUPPORTED, "unknown $ prefix");
}

static enum kdf_status
parse_any(const char *s, size_t len, struct kdf_hash *h, const char **why)
{
    size_t pos = 0;

    if (len == 0) {
        h->scheme = KDF_SCHEME_EMPTY;
        return KDF_OK;
    }
    /* "!" (passwd -l) or "*" may precede anything, even a valid hash: the
     * entry is locked whatever follows. */
    if (s[0] == '!' || s[0] == '*') {
        h->scheme = KDF_SCHEME_LOCKED;
        return KDF_OK;
    }
    if (len > KDF_MAX_HASH_STR)
        return fail(why, KDF_MALFORMED, "hash string too long");
    if (s[0] == '$')
        return parse_dollar(s, len, h, why);
    if (HAS("pbkdf2_")) {
        pos = 7;
        if (HAS("sha256$"))
            h->scheme = KDF_SCHEME_PBKDF2_SHA256;
        else if (HAS("sha1$"))
            h->scheme = KDF_SCHEME_PBKDF2_SHA1;
        else
            return fail(why, KDF_UNSUPPORTED, "django: unknown hash function");
        pos += h->scheme == KDF_SCHEME_PBKDF2_SHA1 ? 5 : 7;
        return parse_django(s, len, pos, h, why);
    }
    /* BSDi extended DES: '_' + 4 count + 4 salt + 11 hash characters. */
    if (s[0] == '_') {
        if (len != 20 || !crypt64_ok(s + 1, 19))
            return fail(why, KDF_MALFORMED, "bsdi: not _ and 19 crypt64 characters");
        return legacy(s, len, 1, h, why);
    }
    /* Traditional DES: 2 salt + 11 hash characters, no prefix. */
    if (len == 13 && crypt64_ok(s, 13))
        return legacy(s, len, 0, h, why);
    return fail(why, KDF_MALFORMED, "not a recognised hash string");
}

/* Zero a struct kdf_hash field by field.  memset() of its 136 bytes becomes
 * `rep stosq` under gcc, whose start-up alone costs more than parsing a
 * bcrypt string on AMD cores; plain stores do not.  The assertion trips when
 * a field is added to the struct and not here. */
#define KDF_NEXT(a, b)                                                                   \
    (offsetof(struct kdf_hash, b) == offsetof(struct kdf_hash, a) + sizeof(uint32_t))
_Static_assert(offsetof(struct kdf_hash, format) == sizeof(enum kdf_scheme) &&
                   KDF_NEXT(format, flags) && KDF_NEXT(flags, bcrypt_minor) &&
                   offsetof(struct kdf_hash, version) ==
                       offsetof(struct kdf_hash, bcrypt_minor) + sizeof(uint32_t) &&
                   KDF_NEXT(version, cost) && KDF_NEXT(cost, m_kib) &&
                   KDF_NEXT(m_kib, lanes) && KDF_NEXT(lanes, dk_len) &&
                   KDF_NEXT(dk_len, salt_len) &&
                   offsetof(struct kdf_hash, salt) < offsetof(struct kdf_hash, salt_len) +
                                                         sizeof(uint32_t) +
                                                         sizeof(void *) &&
                   offsetof(struct kdf_hash, whole) ==
                       offsetof(struct kdf_hash, salt) + 5 * sizeof(struct kdf_span) &&
                   sizeof(struct kdf_hash) ==
                       offsetof(struct kdf_hash, whole) + sizeof(struct kdf_span),
               "clear_hash() must name every field of struct kdf_hash");
#undef KDF_NEXT

static void
clear_hash(struct kdf_hash *h)
{
    static const struct kdf_span none = {NULL, 0};

    h->scheme = KDF_SCHEME_EMPTY;
    h->format = KDF_FMT_NATIVE;
    h->flags = 0;
    h->bcrypt_minor = 0;
    h->version = h->cost = h->m_kib = h->lanes = h->dk_len = h->salt_len = 0;
    h->salt = h->digest = h->keyid = h->data = h->prefix = h->whole = none;
}

enum kdf_status
kdf_parse(const char *s, size_t len, struct kdf_hash *out, const char **reason)
{
    const char *why = NULL;
    enum kdf_status st;

    if (out == NULL || (s == NULL && len != 0)) {
        if (reason != NULL)
            *reason = "invalid argument";
        return KDF_RANGE;
    }
    clear_hash(out);
    if (s == NULL)
        s = "";
    out->whole = (struct kdf_span){s, len};
    st = parse_any(s, len, out, &why);
    if (st != KDF_OK) {
        /* Leave no half-filled struct behind for a careless caller. */
        clear_hash(out);
        out->scheme = KDF_SCHEME_COUNT;
    }
    if (reason != NULL)
        *reason = why;
    return st;
}
