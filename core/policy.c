/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policy.c - the rehash policy: defaults, kdfhash.conf, module-argument
 * overrides and the text form of a target (design.md section 4).
 *
 * The file syntax is documented key by key in packaging/kdfhash.conf, which
 * must parse to exactly kdf_policy_default() (tests/test_policy.c).  The
 * reader is strict, because a typo in a security policy should stop the
 * admin, not silently fall back: unknown keys, duplicates, numbers with
 * signs, leading zeros or trailing junk, and lines over 1024 bytes are
 * errors.  It streams through a small stack buffer (the PAM module may run
 * on a small thread stack) and never reads more than 64 KiB.
 */
#include "kdf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define POL_MAX_LINE 1024         /* bytes of one line, newline excluded */
#define POL_MAX_FILE (64u * 1024) /* bytes of the whole file */

/* Sanity bounds of the policy keys themselves (not of hashes). */
#define POL_MAX_PASSWORD_CAP (1024u * 1024) /* max.password: CLI buffers it */
#define POL_MAX_THREADS_CAP 256u
#define POL_MAX_LANES 0xFFFFFFu /* RFC 9106 section 3.1: p < 2^24 */

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

static int
is_argon2(enum kdf_scheme s)
{
    return s == KDF_SCHEME_ARGON2D || s == KDF_SCHEME_ARGON2I || s == KDF_SCHEME_ARGON2ID;
}

static int
is_pbkdf2(enum kdf_scheme s)
{
    return s == KDF_SCHEME_PBKDF2_SHA1 || s == KDF_SCHEME_PBKDF2_SHA256 ||
           s == KDF_SCHEME_PBKDF2_SHA512;
}

/* The defaults of a scheme's target: RFC 9106 section 4 second option for
 * Argon2; OWASP Password Storage Cheat Sheet (2023) for bcrypt and PBKDF2. */
static void
target_defaults(enum kdf_scheme s, struct kdf_target *t)
{
    memset(t, 0, sizeof *t);
    t->scheme = s;
    t->format = KDF_FMT_NATIVE;
    t->bcrypt_minor = 'b';
    if (is_argon2(s)) {
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
    } else if (is_pbkdf2(s)) {
        t->format = KDF_FMT_PASSLIB;
        t->cost = s == KDF_SCHEME_PBKDF2_SHA1     ? 1300000
                  : s == KDF_SCHEME_PBKDF2_SHA256 ? 600000
                                                  : 210000;
        t->salt_len = 16;
        t->dk_len = pbkdf2_digest_size(s);
    }
}

void
kdf_policy_default(struct kdf_policy *pol)
{
    if (pol == NULL)
        return;
    memset(pol, 0, sizeof *pol);
    target_defaults(KDF_SCHEME_ARGON2ID, &pol->target);
    /* Minimums: OWASP 2023 (bcrypt 10 there; 12 here to match the target
     * a bcrypt site would pick), PBKDF2 sha1/sha256/sha512 iterations, and
     * Argon2 m=19 MiB, t=2, p=1. */
    pol->min_bcrypt_cost = 12;
    pol->min_pbkdf2_iter[0] = 1300000;
    pol->min_pbkdf2_iter[1] = 600000;
    pol->min_pbkdf2_iter[2] = 210000;
    pol->min_argon2_m_kib = 19456;
    pol->min_argon2_t = 2;
    pol->min_argon2_p = 1;
    pol->accept_mask = 0;
    /* Caps (reliability.md 3.4): bcrypt 16 is ~3.5 s here; 1 GiB of Argon2
     * is ~7 s; 10^7 PBKDF2 iterations a few seconds. */
    pol->max_bcrypt_cost = 16;
    pol->max_argon2_m_kib = 1048576;
    pol->max_argon2_t = 16;
    pol->max_argon2_p = 16;
    pol->max_pbkdf2_iter = 10000000;
    pol->max_password_len = 4096;
    pol->max_threads = 4;
}

/* ---- small lexing helpers ------------------------------------------------ */

static void
set_err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
set_err(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || cap == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

static int
is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* Strict decimal: digits only, no sign, no leading zero (except "0"), no
 * overflow of 32 bits, nothing trailing.  0 on success. */
static int
parse_u32(const char *s, size_t n, uint32_t *out)
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

static int
span_eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* The schemes a target or an accept list may name. */
static int
scheme_lookup(const char *s, size_t n, enum kdf_scheme *out)
{
    static const enum kdf_scheme ok[] = {
        KDF_SCHEME_BCRYPT,        KDF_SCHEME_ARGON2ID,      KDF_SCHEME_ARGON2I,
        KDF_SCHEME_ARGON2D,       KDF_SCHEME_PBKDF2_SHA1,   KDF_SCHEME_PBKDF2_SHA256,
        KDF_SCHEME_PBKDF2_SHA512,
    };
    for (size_t i = 0; i < KDF_ARRAY_LEN(ok); i++) {
        if (span_eq(s, n, kdf_scheme_name(ok[i]))) {
            *out = ok[i];
            return 0;
        }
    }
    return -1;
}

/*
 * Iterate over "k=v" items separated by commas and/or blanks.  *pos is the
 * cursor into s[0..n).  Returns 1 with the item, 0 at the end, -1 on an
 * empty item (",," or a trailing comma).
 */
static int
next_item(const char *s, size_t n, size_t *pos, const char **k, size_t *klen,
          const char **v, size_t *vlen)
{
    size_t i = *pos, start, eq = 0;
    int comma = 0;

    while (i < n && (is_space(s[i]) || s[i] == ',')) {
        if (s[i] == ',') {
            if (comma || i == 0)
                return -1;
            comma = 1;
        }
        i++;
    }
    if (i == n)
        return comma ? -1 : 0;
    start = i;
    while (i < n && !is_space(s[i]) && s[i] != ',') {
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
    return 1;
}

/* ---- targets ----------------------------------------------------------- */

/* Basic validity only: kdf_check_target() against caps that allow all. */
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
    int r;

    if (text == NULL || t == NULL) {
        set_err(err, err_cap, "no target given");
        return KDF_RANGE;
    }
    n = strlen(text);
    while (i < n && is_space(text[i]))
        i++;
    while (n > i && is_space(text[n - 1]))
        n--;
    /* "argon2id m=..." in the file; "argon2id:m=..." in a PAM argument,
     * where a blank would split the argument. */
    pos = i;
    while (pos < n && !is_space(text[pos]) && text[pos] != ':')
        pos++;
    if (scheme_lookup(text + i, pos - i, &s) != 0) {
        set_err(err, err_cap, "unknown target scheme (bcrypt, argon2id, argon2i, "
                              "argon2d, pbkdf2-sha1, pbkdf2-sha256, pbkdf2-sha512)");
        return KDF_MALFORMED;
    }
    if (pos < n && text[pos] == ':') {
        pos++;
        if (pos == n) {
            set_err(err, err_cap, "nothing after ':' in target");
            return KDF_MALFORMED;
        }
    }
    target_defaults(s, &nt);

    while ((r = next_item(text, n, &pos, &k, &klen, &v, &vlen)) == 1) {
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
            if (span_eq(k, klen, keys[ki].key))
                break;
        if (ki == KDF_ARRAY_LEN(keys) ||
            !(is_argon2(s) ? keys[ki].argon2
                           : s == KDF_SCHEME_BCRYPT ? keys[ki].bcrypt : keys[ki].pbkdf2)) {
            set_err(err, err_cap, "unknown parameter '%.*s' for %s", (int)(klen > 16 ? 16 : klen),
                    k, kdf_scheme_name(s));
            return KDF_MALFORMED;
        }
        if (seen & (1u << ki)) {
            set_err(err, err_cap, "parameter '%s' given twice", keys[ki].key);
            return KDF_MALFORMED;
        }
        seen |= 1u << ki;
        if (strcmp(keys[ki].key, "minor") == 0) {
            /* $2x$ is the sign-extension bug (CVE-2011-2483): never make
             * new ones. */
            if (vlen != 1 || (v[0] != 'a' && v[0] != 'b' && v[0] != 'y')) {
                set_err(err, err_cap, "minor must be a, b or y");
                return KDF_MALFORMED;
            }
            nt.bcrypt_minor = v[0];
            continue;
        }
        if (strcmp(keys[ki].key, "format") == 0) {
            if (span_eq(v, vlen, "passlib"))
                nt.format = KDF_FMT_PASSLIB;
            else if (span_eq(v, vlen, "phc"))
                nt.format = KDF_FMT_PHC;
            else if (span_eq(v, vlen, "django"))
                nt.format = KDF_FMT_DJANGO;
            else {
                set_err(err, err_cap, "format must be passlib, phc or django");
                return KDF_MALFORMED;
            }
            continue;
        }
        if (parse_u32(v, vlen, &num) != 0) {
            set_err(err, err_cap, "bad number for '%s'", keys[ki].key);
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
                set_err(err, err_cap, "v must be 19 (0x13, RFC 9106)");
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
        set_err(err, err_cap, "empty or malformed parameter in target");
        return KDF_MALFORMED;
    }
    /* passlib and Django verify a fixed-size checksum (the hash size). */
    if (is_pbkdf2(s) && nt.format != KDF_FMT_PHC && nt.dk_len != pbkdf2_digest_size(s)) {
        set_err(err, err_cap, "len must be %u for format passlib or django (use format=phc)",
                (unsigned)pbkdf2_digest_size(s));
        return KDF_MALFORMED;
    }
    if (target_valid(&nt, &why) != KDF_OK) {
        set_err(err, err_cap, "invalid target: %s", why ? why : "?");
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
    if (is_argon2(t->scheme)) {
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
    } else if (is_pbkdf2(t->scheme)) {
        n = snprintf(out, cap, "%s i=%u,format=%s,salt=%u,len=%u", kdf_scheme_name(t->scheme),
                     (unsigned)t->cost, (unsigned)t->format < 4 ? fmts[t->format] : "?",
                     (unsigned)t->salt_len, (unsigned)t->dk_len);
    } else {
        return KDF_UNSUPPORTED;
    }
    if (n < 0 || (size_t)n >= cap) {
        out[0] = '\0';
        return KDF_RANGE;
    }
    return KDF_OK;
}

/* ---- keys ---------------------------------------------------------------- */

/* "m=...,t=...,p=..." (any subset, each once) into three fields. */
static enum kdf_status
set_mtp(const char *v, uint32_t *m, uint32_t *t, uint32_t *p, uint32_t m_min, char *err,
        size_t err_cap)
{
    const char *k, *val;
    size_t klen, vlen, pos = 0, n = strlen(v);
    uint32_t nm = *m, nt = *t, np = *p, num;
    unsigned seen = 0;
    int r, any = 0;

    while ((r = next_item(v, n, &pos, &k, &klen, &val, &vlen)) == 1) {
        unsigned bit = span_eq(k, klen, "m") ? 1u : span_eq(k, klen, "t") ? 2u
                                               : span_eq(k, klen, "p")   ? 4u
                                                                          : 0u;
        if (bit == 0) {
            set_err(err, err_cap, "expected m=, t= and p=");
            return KDF_MALFORMED;
        }
        if (seen & bit) {
            set_err(err, err_cap, "'%c' given twice", k[0]);
            return KDF_MALFORMED;
        }
        seen |= bit;
        if (parse_u32(val, vlen, &num) != 0 || num == 0) {
            set_err(err, err_cap, "bad number for '%c'", k[0]);
            return KDF_MALFORMED;
        }
        if (bit == 1) {
            if (num < m_min) {
                set_err(err, err_cap, "m below %u KiB", (unsigned)m_min);
                return KDF_MALFORMED;
            }
            nm = num;
        } else if (bit == 2) {
            nt = num;
        } else {
            if (num > POL_MAX_LANES) {
                set_err(err, err_cap, "p above 2^24-1 (RFC 9106)");
                return KDF_MALFORMED;
            }
            np = num;
        }
        any = 1;
    }
    if (r < 0 || !any) {
        set_err(err, err_cap, "expected m=M,t=T,p=P");
        return KDF_MALFORMED;
    }
    *m = nm;
    *t = nt;
    *p = np;
    return KDF_OK;
}

static enum kdf_status
set_num(const char *v, uint32_t lo, uint32_t hi, uint32_t *out, char *err, size_t err_cap)
{
    uint32_t num;

    if (parse_u32(v, strlen(v), &num) != 0) {
        set_err(err, err_cap, "not a canonical decimal number");
        return KDF_MALFORMED;
    }
    if (num < lo || num > hi) {
        set_err(err, err_cap, "out of range %u..%u", (unsigned)lo, (unsigned)hi);
        return KDF_MALFORMED;
    }
    *out = num;
    return KDF_OK;
}

static enum kdf_status
set_accept(const char *v, uint32_t *mask, char *err, size_t err_cap)
{
    size_t i = 0, n = strlen(v), start;
    uint32_t nm = 0;
    enum kdf_scheme s;

    if (strcmp(v, "none") == 0) {
        *mask = 0;
        return KDF_OK;
    }
    while (i < n) {
        while (i < n && (is_space(v[i]) || v[i] == ','))
            i++;
        if (i == n)
            break;
        start = i;
        while (i < n && !is_space(v[i]) && v[i] != ',')
            i++;
        if (scheme_lookup(v + start, i - start, &s) != 0) {
            set_err(err, err_cap, "accept: unknown scheme '%.*s' (legacy crypt(3) "
                                  "schemes are always rehashed)",
                    (int)(i - start > 16 ? 16 : i - start), v + start);
            return KDF_MALFORMED;
        }
        nm |= 1u << s;
    }
    if (nm == 0) {
        set_err(err, err_cap, "accept: empty list (write 'none')");
        return KDF_MALFORMED;
    }
    *mask = nm;
    return KDF_OK;
}

/* The keys, in the order of packaging/kdfhash.conf.  The index is the bit
 * kdf_policy_load() uses to find duplicates. */
static const char *const g_keys[] = {
    "target",           "accept",           "min.bcrypt",    "min.pbkdf2-sha1",
    "min.pbkdf2-sha256", "min.pbkdf2-sha512", "min.argon2",   "max.bcrypt",
    "max.argon2",       "max.pbkdf2",       "max.password",  "max.threads",
};

static int
key_index(const char *key)
{
    for (size_t i = 0; i < KDF_ARRAY_LEN(g_keys); i++)
        if (strcmp(key, g_keys[i]) == 0)
            return (int)i;
    return -1;
}

/* Set key idx on pol without the cross-key target-versus-caps check. */
static enum kdf_status
set_key(struct kdf_policy *pol, int idx, const char *v, char *err, size_t err_cap)
{
    switch (idx) {
    case 0:
        return kdf_target_parse(v, &pol->target, err, err_cap);
    case 1:
        return set_accept(v, &pol->accept_mask, err, err_cap);
    case 2:
        return set_num(v, 4, 31, &pol->min_bcrypt_cost, err, err_cap);
    case 3:
    case 4:
    case 5:
        return set_num(v, 1, UINT32_MAX, &pol->min_pbkdf2_iter[idx - 3], err, err_cap);
    case 6:
        return set_mtp(v, &pol->min_argon2_m_kib, &pol->min_argon2_t, &pol->min_argon2_p, 8,
                       err, err_cap);
    case 7:
        return set_num(v, 4, 31, &pol->max_bcrypt_cost, err, err_cap);
    case 8:
        return set_mtp(v, &pol->max_argon2_m_kib, &pol->max_argon2_t, &pol->max_argon2_p, 8,
                       err, err_cap);
    case 9:
        return set_num(v, 1, UINT32_MAX, &pol->max_pbkdf2_iter, err, err_cap);
    case 10:
        return set_num(v, 1, POL_MAX_PASSWORD_CAP, &pol->max_password_len, err, err_cap);
    case 11:
        return set_num(v, 1, POL_MAX_THREADS_CAP, &pol->max_threads, err, err_cap);
    default:
        set_err(err, err_cap, "unknown key");
        return KDF_MALFORMED;
    }
}

/* The target must fit the caps that are in force with it. */
static enum kdf_status
check_target_caps(const struct kdf_policy *pol, char *err, size_t err_cap)
{
    const char *why = NULL;
    enum kdf_status st = kdf_check_target(&pol->target, pol, &why);

    if (st != KDF_OK)
        set_err(err, err_cap, "target: %s", why ? why : kdf_status_str(st));
    return st;
}

enum kdf_status
kdf_policy_set(struct kdf_policy *pol, const char *key, const char *value, char *err,
               size_t err_cap)
{
    struct kdf_policy np;
    char sub[160];
    enum kdf_status st;
    int idx;

    if (err != NULL && err_cap > 0)
        err[0] = '\0';
    if (pol == NULL || key == NULL || value == NULL) {
        set_err(err, err_cap, "missing key or value");
        return KDF_RANGE;
    }
    idx = key_index(key);
    if (idx < 0) {
        set_err(err, err_cap, "unknown key '%.32s'", key);
        return KDF_MALFORMED;
    }
    np = *pol;
    sub[0] = '\0';
    st = set_key(&np, idx, value, sub, sizeof sub);
    if (st == KDF_OK)
        st = check_target_caps(&np, sub, sizeof sub);
    if (st != KDF_OK) {
        set_err(err, err_cap, "%s: %s", g_keys[idx], sub);
        return st;
    }
    *pol = np; /* all or nothing */
    return KDF_OK;
}

/* ---- the file ------------------------------------------------------------ */

/* One "key = value" line, already stripped of its newline.  *seen collects
 * the keys met so far. */
static enum kdf_status
load_line(struct kdf_policy *pol, char *line, size_t n, unsigned *seen, char *sub,
          size_t sub_cap)
{
    size_t i = 0, eq, kend, vstart;
    char *hash;
    int idx;

    if (memchr(line, '\0', n) != NULL) {
        set_err(sub, sub_cap, "NUL byte in line");
        return KDF_MALFORMED;
    }
    line[n] = '\0';
    hash = strchr(line, '#'); /* no value contains '#': comments may trail */
    if (hash != NULL)
        n = (size_t)(hash - line);
    if (n > 0 && line[n - 1] == '\r')
        n--;
    while (i < n && is_space(line[i]))
        i++;
    while (n > i && is_space(line[n - 1]))
        n--;
    if (i == n)
        return KDF_OK; /* blank or comment */
    line[n] = '\0';
    for (eq = i; eq < n && line[eq] != '='; eq++)
        ;
    if (eq == n) {
        set_err(sub, sub_cap, "expected 'key = value'");
        return KDF_MALFORMED;
    }
    kend = eq;
    while (kend > i && is_space(line[kend - 1]))
        kend--;
    vstart = eq + 1;
    while (vstart < n && is_space(line[vstart]))
        vstart++;
    line[kend] = '\0';
    if (kend == i || vstart == n) {
        set_err(sub, sub_cap, kend == i ? "missing key" : "missing value");
        return KDF_MALFORMED;
    }
    idx = key_index(line + i);
    if (idx < 0) {
        set_err(sub, sub_cap, "unknown key '%.32s'", line + i);
        return KDF_MALFORMED;
    }
    if (*seen & (1u << idx)) {
        set_err(sub, sub_cap, "duplicate key '%s'", g_keys[idx]);
        return KDF_MALFORMED;
    }
    *seen |= 1u << idx;
    return set_key(pol, idx, line + vstart, sub, sub_cap);
}

enum kdf_status
kdf_policy_load(struct kdf_policy *pol, const char *path, int missing_ok, char *err,
                size_t err_cap)
{
    struct kdf_policy np;
    struct stat stb;
    char chunk[512], line[POL_MAX_LINE + 2], sub[160];
    size_t llen = 0, total = 0;
    unsigned seen = 0, lineno = 1, target_line = 0, last_max = 0;
    int fd, overlong = 0;
    enum kdf_status st = KDF_OK;

    if (err != NULL && err_cap > 0)
        err[0] = '\0';
    if (pol == NULL || path == NULL) {
        set_err(err, err_cap, "no policy or path");
        return KDF_RANGE;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT && missing_ok)
            return KDF_OK;
        set_err(err, err_cap, "%s: cannot open: %s", path, strerror(errno));
        return KDF_INTERNAL;
    }
    if (fstat(fd, &stb) != 0 || !S_ISREG(stb.st_mode)) {
        set_err(err, err_cap, "%s: not a regular file", path);
        close(fd);
        return KDF_INTERNAL;
    }
    /* A policy anyone can write is no policy (it sets the caps that keep
     * a stored hash from exhausting the host). */
    if (stb.st_mode & S_IWOTH) {
        set_err(err, err_cap, "%s: world-writable, refused", path);
        close(fd);
        return KDF_INTERNAL;
    }
    np = *pol;
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            set_err(err, err_cap, "%s: read error: %s", path, strerror(errno));
            st = KDF_INTERNAL;
            break;
        }
        total += (size_t)r;
        if (total > POL_MAX_FILE) {
            set_err(err, err_cap, "%s: larger than %u bytes", path, POL_MAX_FILE);
            st = KDF_MALFORMED;
            break;
        }
        /* r == 0: flush a last line without a newline. */
        for (ssize_t j = 0; j <= r && st == KDF_OK; j++) {
            int eol = (j == r) ? (r == 0 && (llen > 0 || overlong)) : chunk[j] == '\n';
            if (j == r && !eol)
                break;
            if (!eol) {
                if (llen < POL_MAX_LINE + 1)
                    line[llen++] = chunk[j];
                else
                    overlong = 1;
                continue;
            }
            if (overlong || llen > POL_MAX_LINE) {
                set_err(sub, sizeof sub, "line longer than %u bytes", POL_MAX_LINE);
                st = KDF_MALFORMED;
            } else {
                unsigned before = seen;
                st = load_line(&np, line, llen, &seen, sub, sizeof sub);
                if ((seen & ~before) & 1u)
                    target_line = lineno;
                if ((seen & ~before) & 0xF80u)
                    last_max = lineno;
            }
            if (st != KDF_OK) {
                set_err(err, err_cap, "%s:%u: %s", path, lineno, sub);
                break;
            }
            llen = 0;
            overlong = 0;
            lineno++;
        }
        if (st != KDF_OK || r == 0)
            break;
    }
    close(fd);
    if (st == KDF_OK) {
        st = check_target_caps(&np, sub, sizeof sub);
        if (st != KDF_OK)
            set_err(err, err_cap, "%s:%u: %s", path,
                    target_line ? target_line : last_max, sub);
    }
    if (st == KDF_OK)
        *pol = np;
    return st;
}
