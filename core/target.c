/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * target.c - the text of a target ("argon2id m=65536,t=3,p=4"), each
 * scheme's default target, and the small strict lexer that policy.c shares
 * (policy_text.h).
 *
 * Strict like the rest of the policy: a number is plain decimal without a
 * sign or a leading zero and fits 32 bits; an item is KEY=VALUE; items are
 * separated by commas and/or blanks; nothing is left over.
 */
#include "kdf_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include "policy_text.h"

/* Digest sizes, the defaults of dk_len for PBKDF2 (RFC 8018 section 5.2
 * lets dkLen vary; passlib and Django fix it at the hash size). */
static uint32_t
pbkdf2_digest_size(enum kdf_scheme s)
{
    switch (s) {
    case KDF_SCHEME_PBKDF2_SHA1:
        return 20;
    case KDF_SCHEME_PBKDF2_SHA256:
        return 32;
    default:
        return 64;
    }
}

/* The defaults of a scheme's target: RFC 9106 section 4 second option for
 * Argon2; OWASP Password Storage Cheat Sheet (2023) for bcrypt and PBKDF2. */
void
kdf_pol_target_defaults(enum kdf_scheme s, struct kdf_target *t)
{
    memset(t, 0, sizeof *t);
    t->scheme = s;
    t->format = KDF_FMT_NATIVE;
    t->bcrypt_minor = 'b';
    if (kdf_scheme_is_argon2(s)) {
        t->version = 0x13;
        t->cost = 3;
        t->m_kib = 65536;
        t->lanes = 4;
        t->salt_len = 16;
        t->dk_len = 32;
    } else if (s == KDF_SCHEME_BCRYPT) {
        t->cost = 12;
        t->salt_len = 16;
        t->dk_len = 23;
    } else if (kdf_scheme_is_pbkdf2(s)) {
        t->format = KDF_FMT_PASSLIB;
        t->cost = s == KDF_SCHEME_PBKDF2_SHA1     ? 1300000
                  : s == KDF_SCHEME_PBKDF2_SHA256 ? 600000
                                                  : 210000;
        t->salt_len = 16;
        t->dk_len = pbkdf2_digest_size(s);
    }
}

/* The crypt(3) targets by name, with libxcrypt's default costs
 * (crypt_gensalt(3): yescrypt 5, sha-crypt 5000 rounds). */
static const struct {
    const char *name;
    enum kdf_xcrypt x;
    const char *key; /* the cost's name in the target text */
    uint32_t cost, lo, hi;
} g_xcrypt[] = {
    {"yescrypt", KDF_XCRYPT_YESCRYPT, "cost", 5, 1, 11},
    {"sha512crypt", KDF_XCRYPT_SHA512, "rounds", 5000, 1000, 999999999},
    {"sha256crypt", KDF_XCRYPT_SHA256, "rounds", 5000, 1000, 999999999},
};

static int
xcrypt_index(enum kdf_xcrypt x)
{
    for (size_t i = 0; i < KDF_ARRAY_LEN(g_xcrypt); i++)
        if (g_xcrypt[i].x == x)
            return (int)i;
    return -1;
}

const char *
kdf_target_name(const struct kdf_target *t)
{
    int i;

    if (t->scheme != KDF_SCHEME_LEGACY)
        return kdf_scheme_name(t->scheme);
    i = xcrypt_index(t->xcrypt);
    return i >= 0 ? g_xcrypt[i].name : "legacy";
}

enum kdf_status
kdf_xcrypt_check(const struct kdf_target *t, const char **why)
{
    int i = xcrypt_index(t->xcrypt);

    if (i < 0) {
        *why = "not a crypt(3) target";
        return KDF_UNSUPPORTED;
    }
    if (t->cost < g_xcrypt[i].lo || t->cost > g_xcrypt[i].hi) {
        *why = t->xcrypt == KDF_XCRYPT_YESCRYPT ? "yescrypt cost outside 1..11"
                                                : "sha-crypt rounds outside 1000..999999999";
        return KDF_RANGE;
    }
    if (t->salt_len < 16 || t->salt_len > 64) {
        *why = "crypt(3) salt outside 16..64 bytes";
        return KDF_RANGE;
    }
    return KDF_OK;
}

/* "yescrypt cost=5", "sha512crypt rounds=656000": 1 when text names a
 * crypt(3) target (then *t or err is filled), 0 when it does not. */
static int
xcrypt_target_parse(const char *text, size_t i, size_t pos, size_t n, struct kdf_target *t,
                    enum kdf_status *st, char *err, size_t err_cap)
{
    const char *k, *v, *why = NULL;
    size_t klen, vlen;
    int r, first = 1, x = -1, seen = 0;
    uint32_t num;

    for (size_t j = 0; j < KDF_ARRAY_LEN(g_xcrypt); j++)
        if (kdf_pol_span_eq(text + i, pos - i, g_xcrypt[j].name))
            x = (int)j;
    if (x < 0)
        return 0;
    memset(t, 0, sizeof *t);
    t->scheme = KDF_SCHEME_LEGACY;
    t->xcrypt = g_xcrypt[x].x;
    t->cost = g_xcrypt[x].cost;
    t->salt_len = 16;
    if (pos < n && text[pos] == ':')
        pos++;
    *st = KDF_MALFORMED;
    while ((r = kdf_pol_item(text, n, &pos, &first, &k, &klen, &v, &vlen)) == 1) {
        if (!kdf_pol_span_eq(k, klen, g_xcrypt[x].key)) {
            kdf_errf(err, err_cap, "unknown parameter '%.*s' for %s (only %s)",
                     (int)(klen > 16 ? 16 : klen), k, g_xcrypt[x].name, g_xcrypt[x].key);
            return 1;
        }
        if (seen++) {
            kdf_errf(err, err_cap, "parameter '%s' given twice", g_xcrypt[x].key);
            return 1;
        }
        if (kdf_pol_u32(v, vlen, &num) != 0) {
            kdf_errf(err, err_cap, "bad number for '%s'", g_xcrypt[x].key);
            return 1;
        }
        t->cost = num;
    }
    if (r < 0) {
        kdf_errf(err, err_cap, "empty or malformed parameter in target");
        return 1;
    }
    if (kdf_xcrypt_check(t, &why) != KDF_OK) {
        kdf_errf(err, err_cap, "invalid target: %s", why);
        return 1;
    }
    *st = KDF_OK;
    return 1;
}

/* ---- small lexing helpers ------------------------------------------------ */

/* Strict decimal: digits only, no sign, no leading zero (except "0"), no
 * overflow of 32 bits, nothing trailing.  0 on success. */
int
kdf_pol_u32(const char *s, size_t n, uint32_t *out)
{
    uint64_t v = 0;

    if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* The schemes a target or an accept list may name. */
int
kdf_pol_scheme(const char *s, size_t n, enum kdf_scheme *out)
{
    static const enum kdf_scheme ok[] = {
        KDF_SCHEME_BCRYPT,        KDF_SCHEME_ARGON2ID,      KDF_SCHEME_ARGON2I,
        KDF_SCHEME_ARGON2D,       KDF_SCHEME_PBKDF2_SHA1,   KDF_SCHEME_PBKDF2_SHA256,
        KDF_SCHEME_PBKDF2_SHA512,
    };
    for (size_t i = 0; i < KDF_ARRAY_LEN(ok); i++) {
        if (kdf_pol_span_eq(s, n, kdf_scheme_name(ok[i]))) {
            *out = ok[i];
            return 0;
        }
    }
    return -1;
}

/*
 * Iterate over "k=v" items separated by commas and/or blanks.  *pos is the
 * cursor into s[0..n), *first is 1 before the first item.  Returns 1 with the item, 0 at the end, -1 on an
 * empty item (",," or a trailing comma).
 */
int
kdf_pol_item(const char *s, size_t n, size_t *pos, int *first, const char **k, size_t *klen,
          const char **v, size_t *vlen)
{
    size_t i = *pos, start, eq = 0;
    int comma = 0;

    while (i < n && (kdf_pol_is_space(s[i]) || s[i] == ',')) {
        if (s[i] == ',') {
            if (comma || *first)
                return -1;
            comma = 1;
        }
        i++;
    }
    if (i == n)
        return comma ? -1 : 0;
    start = i;
    while (i < n && !kdf_pol_is_space(s[i]) && s[i] != ',') {
        if (s[i] == '=' && eq == 0)
            eq = i;
        i++;
    }
    if (eq == 0 || eq == start || eq + 1 == i)
        return -1;
    *k = s + start;
    *klen = eq - start;
    *v = s + eq + 1;
    *vlen = i - eq - 1;
    *pos = i;
    *first = 0;
    return 1;
}

/* ---- targets ----------------------------------------------------------- */

/* Basic validity only: kdf_check_target() against caps and minimums that
 * allow all (the policy then holds the target to its own). */
static enum kdf_status
target_valid(const struct kdf_target *t, const char **why)
{
    struct kdf_policy open;

    kdf_policy_default(&open);
    open.max_bcrypt_cost = 31;
    open.max_argon2_m_kib = UINT32_MAX;
    open.max_argon2_t = UINT32_MAX;
    open.max_argon2_p = UINT32_MAX;
    open.max_pbkdf2_iter = UINT32_MAX;
    open.min_pbkdf2_len = 1;
    open.min_pbkdf2_salt = 1;
    return kdf_check_target(t, &open, why);
}

enum kdf_status
kdf_target_parse(const char *text, struct kdf_target *t, char *err, size_t err_cap)
{
    struct kdf_target nt;
    enum kdf_scheme s;
    const char *k, *v, *why = NULL;
    size_t n, i = 0, klen, vlen, pos;
    unsigned seen = 0;
    int r, first = 1;

    if (text == NULL || t == NULL) {
        kdf_errf(err, err_cap, "no target given");
        return KDF_RANGE;
    }
    n = strlen(text);
    while (i < n && kdf_pol_is_space(text[i]))
        i++;
    while (n > i && kdf_pol_is_space(text[n - 1]))
        n--;
    /* "argon2id m=..." in the file; "argon2id:m=..." in a PAM argument,
     * where a blank would split the argument. */
    pos = i;
    while (pos < n && !kdf_pol_is_space(text[pos]) && text[pos] != ':')
        pos++;
    {
        enum kdf_status xst = KDF_MALFORMED;
        if (xcrypt_target_parse(text, i, pos, n, &nt, &xst, err, err_cap)) {
            if (xst == KDF_OK)
                *t = nt;
            return xst;
        }
    }
    if (kdf_pol_scheme(text + i, pos - i, &s) != 0) {
        kdf_errf(err, err_cap, "unknown target scheme (bcrypt, argon2id, argon2i, "
                              "argon2d, pbkdf2-sha1, pbkdf2-sha256, pbkdf2-sha512, "
                              "yescrypt, sha512crypt, sha256crypt)");
        return KDF_MALFORMED;
    }
    if (pos < n && text[pos] == ':') {
        pos++;
        if (pos == n) {
            kdf_errf(err, err_cap, "nothing after ':' in target");
            return KDF_MALFORMED;
        }
    }
    kdf_pol_target_defaults(s, &nt);

    while ((r = kdf_pol_item(text, n, &pos, &first, &k, &klen, &v, &vlen)) == 1) {
        /* One table for every scheme: key, bit, which schemes take it. */
        static const struct {
            const char *key;
            int argon2, bcrypt, pbkdf2;
        } keys[] = {
            {"m", 1, 0, 0},    {"t", 1, 0, 0},     {"p", 1, 0, 0},      {"v", 1, 0, 0},
            {"cost", 0, 1, 0}, {"minor", 0, 1, 0}, {"i", 0, 0, 1},      {"format", 0, 0, 1},
            {"salt", 1, 1, 1}, {"len", 1, 1, 1},
        };
        size_t ki;
        uint32_t num = 0;

        for (ki = 0; ki < KDF_ARRAY_LEN(keys); ki++)
            if (kdf_pol_span_eq(k, klen, keys[ki].key))
                break;
        if (ki == KDF_ARRAY_LEN(keys) ||
            !(kdf_scheme_is_argon2(s) ? keys[ki].argon2
                           : s == KDF_SCHEME_BCRYPT ? keys[ki].bcrypt : keys[ki].pbkdf2)) {
            kdf_errf(err, err_cap, "unknown parameter '%.*s' for %s", (int)(klen > 16 ? 16 : klen),
                    k, kdf_scheme_name(s));
            return KDF_MALFORMED;
        }
        if (seen & (1u << ki)) {
            kdf_errf(err, err_cap, "parameter '%s' given twice", keys[ki].key);
            return KDF_MALFORMED;
        }
        seen |= 1u << ki;
        if (strcmp(keys[ki].key, "minor") == 0) {
            /* $2x$ is the sign-extension bug (CVE-2011-2483): never make
             * new ones. */
            if (vlen != 1 || (v[0] != 'a' && v[0] != 'b' && v[0] != 'y')) {
                kdf_errf(err, err_cap, "minor must be a, b or y");
                return KDF_MALFORMED;
            }
            nt.bcrypt_minor = v[0];
            continue;
        }
        if (strcmp(keys[ki].key, "format") == 0) {
            if (kdf_pol_span_eq(v, vlen, "passlib"))
                nt.format = KDF_FMT_PASSLIB;
            else if (kdf_pol_span_eq(v, vlen, "phc"))
                nt.format = KDF_FMT_PHC;
            else if (kdf_pol_span_eq(v, vlen, "django"))
                nt.format = KDF_FMT_DJANGO;
            else {
                kdf_errf(err, err_cap, "format must be passlib, phc or django");
                return KDF_MALFORMED;
            }
            continue;
        }
        if (kdf_pol_u32(v, vlen, &num) != 0) {
            kdf_errf(err, err_cap, "bad number for '%s'", keys[ki].key);
            return KDF_MALFORMED;
        }
        switch (keys[ki].key[0]) {
        case 'm':
            nt.m_kib = num;
            break;
        case 't':
        case 'c': /* cost */
        case 'i':
            nt.cost = num;
            break;
        case 'p':
            nt.lanes = num;
            break;
        case 'v':
            /* 0x10 is what OLD_VERSION rehashes away: a target of 16
             * would rewrite its own output at every login. */
            if (num != 19) {
                kdf_errf(err, err_cap, "v must be 19 (0x13, RFC 9106)");
                return KDF_MALFORMED;
            }
            nt.version = 0x13;
            break;
        case 's':
            nt.salt_len = num;
            break;
        default: /* len */
            nt.dk_len = num;
            break;
        }
    }
    if (r < 0) {
        kdf_errf(err, err_cap, "empty or malformed parameter in target");
        return KDF_MALFORMED;
    }
    /* passlib and Django verify a fixed-size checksum (the hash size). */
    if (kdf_scheme_is_pbkdf2(s) && nt.format != KDF_FMT_PHC && nt.dk_len != pbkdf2_digest_size(s)) {
        kdf_errf(err, err_cap, "len must be %u for format passlib or django (use format=phc)",
                (unsigned)pbkdf2_digest_size(s));
        return KDF_MALFORMED;
    }
    if (target_valid(&nt, &why) != KDF_OK) {
        kdf_errf(err, err_cap, "invalid target: %s", why ? why : "?");
        return KDF_MALFORMED;
    }
    *t = nt;
    return KDF_OK;
}

enum kdf_status
kdf_target_format(const struct kdf_target *t, char *out, size_t cap)
{
    static const char *const fmts[] = {"native", "passlib", "phc", "django"};
    int n;

    if (t == NULL || out == NULL || cap == 0)
        return KDF_RANGE;
    out[0] = '\0';
    if (kdf_scheme_is_argon2(t->scheme)) {
        if (t->version == 0x13)
            n = snprintf(out, cap, "%s m=%u,t=%u,p=%u,salt=%u,len=%u",
                         kdf_scheme_name(t->scheme), (unsigned)t->m_kib, (unsigned)t->cost,
                         (unsigned)t->lanes, (unsigned)t->salt_len, (unsigned)t->dk_len);
        else
            n = snprintf(out, cap, "%s m=%u,t=%u,p=%u,salt=%u,len=%u,v=%u",
                         kdf_scheme_name(t->scheme), (unsigned)t->m_kib, (unsigned)t->cost,
                         (unsigned)t->lanes, (unsigned)t->salt_len, (unsigned)t->dk_len,
                         t->version == 0x10 ? 16u : (unsigned)t->version);
    } else if (t->scheme == KDF_SCHEME_BCRYPT) {
        n = snprintf(out, cap, "bcrypt cost=%u,minor=%c", (unsigned)t->cost,
                     t->bcrypt_minor ? t->bcrypt_minor : 'b');
    } else if (kdf_scheme_is_pbkdf2(t->scheme)) {
        n = snprintf(out, cap, "%s i=%u,format=%s,salt=%u,len=%u", kdf_scheme_name(t->scheme),
                     (unsigned)t->cost, (unsigned)t->format < 4 ? fmts[t->format] : "?",
                     (unsigned)t->salt_len, (unsigned)t->dk_len);
    } else if (t->scheme == KDF_SCHEME_LEGACY && xcrypt_index(t->xcrypt) >= 0) {
        int xi = xcrypt_index(t->xcrypt);
        n = snprintf(out, cap, "%s %s=%u", g_xcrypt[xi].name, g_xcrypt[xi].key,
                     (unsigned)t->cost);
    } else {
        return KDF_UNSUPPORTED;
    }
    if (n < 0 || (size_t)n >= cap) {
        out[0] = '\0';
        return KDF_RANGE;
    }
    return KDF_OK;
}
