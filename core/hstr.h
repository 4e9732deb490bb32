/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hstr.h - the small lexer and the one writer that every scheme's
 * grammar (scheme_*.c) reads and spells its hash strings with.
 *
 * Reading: only s[0..len) is looked at, every comparison checks the length
 * left first, nothing calls strlen, and a NUL byte is just a bad
 * character.  Numbers are canonical decimals (no sign, no leading zero, at
 * most 2^32-1), base64 is strict (util_b64.c).  Writing: a bounded buffer that
 * records overflow instead of writing past its end, and no printf (nothing
 * here may allocate).  All static inline: the parser's hot paths are these
 * few lines, called with constant lengths.
 */
#ifndef KDF_HASHSTR_H
#define KDF_HASHSTR_H

#include "kdf_prelude.h"

#if defined(__GNUC__)
#define KDF_INLINE static inline __attribute__((always_inline))
#else
#define KDF_INLINE static inline
#endif

/* Character classes, built as constant expressions. */
#define KDF_C_CRYPT64 0x1u /* ./0-9A-Za-z: DES, BSDi, bcrypt */
#define KDF_C_DJANGO 0x2u  /* Django salt text: A-Za-z0-9 and ./+-_ */
#define KDF_C_LEGACY 0x4u  /* libxcrypt's check_badsalt_chars() complement */
#define KDF_IS_ALNUM(c)                                                                  \
    (((c) >= '0' && (c) <= '9') || ((c) >= 'A' && (c) <= 'Z') ||                         \
     ((c) >= 'a' && (c) <= 'z'))
#define KDF_CLS(c)                                                                       \
    ((KDF_IS_ALNUM(c) || (c) == '.' || (c) == '/' ? KDF_C_CRYPT64 : 0u) |                \
     (KDF_IS_ALNUM(c) || (c) == '.' || (c) == '/' || (c) == '+' || (c) == '-' ||         \
              (c) == '_'                                                                 \
          ? KDF_C_DJANGO                                                                 \
          : 0u) |                                                                        \
     ((c) > 0x20 && (c) < 0x7f && (c) != ':' && (c) != ';' && (c) != '!' &&              \
              (c) != '*' && (c) != '\\'                                                  \
          ? KDF_C_LEGACY                                                                 \
          : 0u))
#define KDF_R4(b) KDF_CLS((b)), KDF_CLS((b) + 1), KDF_CLS((b) + 2), KDF_CLS((b) + 3)
#define KDF_R16(b) KDF_R4(b), KDF_R4((b) + 4), KDF_R4((b) + 8), KDF_R4((b) + 12)
#define KDF_R64(b) KDF_R16(b), KDF_R16((b) + 16), KDF_R16((b) + 32), KDF_R16((b) + 48)
static const uint8_t kdf_char_cls[256] = {KDF_R64(0), KDF_R64(64), KDF_R64(128),
                                          KDF_R64(192)};

/* 1 when every byte of s[0..n) has class bit c. */
KDF_INLINE int
kdf_all_in(const char *s, size_t n, unsigned c)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned acc = c;
    size_t i = 0;

    /* Four lookups per step, one AND chain: load-bound, not latency-bound. */
    for (; i + 4 <= n; i += 4)
        acc &= (unsigned)(kdf_char_cls[p[i]] & kdf_char_cls[p[i + 1]] &
                          kdf_char_cls[p[i + 2]] & kdf_char_cls[p[i + 3]]);
    for (; i < n; i++)
        acc &= kdf_char_cls[p[i]];
    return acc != 0;
}

/* 1 when every byte of s[0..n) is in [./0-9A-Za-z].  Eight bytes per step
 * with word arithmetic (SWAR): with the top bit of every byte forced on,
 * y - c*L keeps a byte's top bit exactly when that byte is >= c, and no
 * borrow crosses a byte because c < 0x80.  Letters are one range once bit
 * 0x20 is cleared; "./0-9" is 0x2e..0x39.  bcrypt's hot loop. */
KDF_INLINE int
kdf_crypt64_ok(const char *s, size_t n)
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
    return bad == 0 && kdf_all_in(s + i, n - i, KDF_C_CRYPT64);
}

/* Set the static reason and return the status. */
KDF_INLINE enum kdf_status
kdf_fail(const char **why, enum kdf_status st, const char *msg)
{
    *why = msg;
    return st;
}

/* Does s[pos..len) start with lit[0..n)?  pos <= len always holds.  A byte
 * loop: with n constant the compiler unrolls it; memcmp() stays a call. */
KDF_INLINE int
kdf_has(const char *s, size_t len, size_t pos, const char *lit, size_t n)
{
    if (len - pos < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[pos + i] != lit[i])
            return 0;
    return 1;
}
/* In a grammar function whose string is s, len and cursor pos. */
#define KDF_HAS(lit) kdf_has(s, len, pos, (lit), sizeof(lit) - 1)

/* A decimal in 0..2^32-1 at s[*pos]: at least one digit, no sign, no
 * leading zero ("0" itself is a number), no overflow (the Argon2 reference
 * decode_decimal rules).  1 with *pos past it, 0 (nothing moved) if none.
 * The one strict decimal of the core: the policy texts' numbers are this
 * over a whole span (kdf_pol_u32(), api_policy_text.c). */
KDF_INLINE int
kdf_dec_u32(const char *s, size_t len, size_t *pos, uint32_t *val)
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
KDF_INLINE size_t
kdf_field_end(const char *s, size_t len, size_t pos)
{
    const char *d = memchr(s + pos, '$', len - pos);

    return d != NULL ? (size_t)(d - s) : len;
}

/* A strict base64 field s[pos..end) of decoded size lo..hi bytes (util_b64.c). */
enum kdf_status kdf_b64_check(enum kdf_b64 alpha, const char *in, size_t in_len,
                              size_t *out_len);
KDF_INLINE int
kdf_b64_field(const char *s, size_t pos, size_t end, enum kdf_b64 alpha, size_t lo,
              size_t hi, struct kdf_span *sp, uint32_t *dec)
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

/* ---- the writer ---- */
struct kdf_wbuf {
    char *p;
    size_t cap, n; /* the last byte is kept for the NUL */
    int over;
};

KDF_INLINE void
kdf_put(struct kdf_wbuf *b, const char *s, size_t n)
{
    if (b->over || n >= b->cap - b->n) {
        b->over = 1;
        return;
    }
    if (n != 0)
        memcpy(b->p + b->n, s, n);
    b->n += n;
}
#define KDF_PUT(b, lit) kdf_put((b), (lit), sizeof(lit) - 1)

KDF_INLINE void
kdf_put_span(struct kdf_wbuf *b, const struct kdf_span *sp)
{
    kdf_put(b, sp->ptr, sp->len);
}

KDF_INLINE void
kdf_put_u32(struct kdf_wbuf *b, uint32_t v)
{
    char tmp[10];
    size_t i = sizeof tmp;

    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    kdf_put(b, tmp + i, sizeof tmp - i);
}

/* "$salt$digest": how the PHC-like strings (Argon2, PBKDF2, scrypt) end. */
KDF_INLINE void
kdf_put_salt_digest(struct kdf_wbuf *b, const struct kdf_hash *h)
{
    KDF_PUT(b, "$");
    kdf_put_span(b, &h->salt);
    KDF_PUT(b, "$");
    kdf_put_span(b, &h->digest);
}

#endif /* KDF_HASHSTR_H */
