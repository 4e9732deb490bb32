/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_ds_value.c - kdf_ds_value_string(): the hash string of the core that
 * a 389 Directory Server userPassword value "{NAME}body" stands for.
 *
 * 389-ds matches NAME without regard to case and hands the body to the
 * scheme's plugin.  What each name's plugin does with it, in 389-ds 2.3:
 *   SHA, SSHA, SHA256...  base64 of digest || salt: rows of ours read the
 *                         value with its braces (the name in upper case)
 *   crypt, CRYPT-*, GOST_YESCRYPT  crypt(3) of the body
 *   KDF-WRAPPED                    the body: a wrapped string (kdf_wrap())
 *   PBKDF2, PBKDF2-SHA1|SHA256|SHA512 (the pwdchan plugin; PBKDF2 is
 *                         SHA-1)  <iter>$<salt>$<dk>, in passlib's ab64
 *                         (as OpenLDAP's pw-pbkdf2 writes) or in standard
 *                         base64 with '=' padding (as 389-ds writes)
 * and the names a row of ours gives as its ds_family (ARGON2, BCRYPT,
 * KDF-PBKDF2): the body is a hash string of the row's, or for the family
 * of the rows that read pwdchan bodies an OpenLDAP body whose digest
 * length tells the hash function.
 */
#include "kdf_prelude.h"

#include "hstr.h"
#include "kdf_scheme.h"

/* Longer than any name 389-ds knows. */
#define DS_NAME_MAX 32

/* The crypt(3) names: 389-ds writes "{crypt}" for every CRYPT-* scheme. */
static const char *const crypt_names[] = {"CRYPT", "GOST_YESCRYPT", NULL};
#define CRYPT_FAMILY "CRYPT-"

/* The pwdchan plugin's names, and the row (by name) whose passlib head
 * its bodies take: what 389-ds computes for each. */
static const struct {
    const char *name, *row;
} pwdchan_names[] = {
    {"PBKDF2", "pbkdf2-sha1"},
    {"PBKDF2-SHA1", "pbkdf2-sha1"},
    {"PBKDF2-SHA256", "pbkdf2-sha256"},
    {"PBKDF2-SHA512", "pbkdf2-sha512"},
};

/* Names 389-ds knows whose values the core does not read, and why. */
static const struct {
    const char *name;
    const char *why;
} refused_names[] = {
    {"MD5", "{MD5}: unsalted MD5 is not read"},
    {"SMD5", "{SMD5}: salted MD5 is not read"},
    {"NS-MTA-MD5", "{NS-MTA-MD5}: not read"},
    {"CLEAR", "{CLEAR}: a cleartext password, no hash"},
    {"PBKDF2_SHA256", "{PBKDF2_SHA256}: 389-ds's binary PBKDF2 layout is not read"},
};

static const struct kdf_scheme_desc *
named_row(const char *name)
{
    return kdf_scheme_named(name, strlen(name));
}

/* Does r read pwdchan bodies (a row of the table above)? */
static int
reads_pwdchan(const struct kdf_scheme_desc *r)
{
    for (size_t i = 0; i < KDF_ARRAY_LEN(pwdchan_names); i++)
        if (named_row(pwdchan_names[i].row) == r)
            return 1;
    return 0;
}

/* ASCII only: a locale's case rules (Turkish i) must not decide a match. */
static int
name_is(const char *up, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(up, lit, n) == 0;
}

static int
fold_eq(const char *up, size_t n, const char *s)
{
    if (s == NULL || strlen(s) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 'a' + 'A') : s[i];
        if (c != up[i])
            return 0;
    }
    return 1;
}

/* A bounded writer: overflow is recorded, never written. */
struct dsw {
    char *out;
    size_t cap, pos;
    int over;
};

static void
dsw_put(struct dsw *w, const char *s, size_t n)
{
    if (w->over || n >= w->cap - w->pos) {
        w->over = 1;
        return;
    }
    memcpy(w->out + w->pos, s, n);
    w->pos += n;
}

/* One base64 field of a pwdchan body, s[0..n), written as ab64: passlib's
 * own spelling passes as it is; standard base64 ('+', '=' padding, as
 * 389-ds writes) becomes '.' and no padding.  The bytes are the same; the
 * row's parse judges the alphabet and canonical bits.  Returns the ab64
 * length, or (size_t)-1 for a field that mixes the two or pads wrongly. */
static size_t
put_ab64(struct dsw *w, const char *s, size_t n)
{
    size_t pad = 0, start = w->pos;
    int dot = memchr(s, '.', n) != NULL;

    while (pad < n && pad < 3 && s[n - 1 - pad] == '=')
        pad++;
    if (pad > 0 && (dot || n % 4 != 0 || pad > 2))
        return (size_t)-1;
    if (dot && memchr(s, '+', n) != NULL)
        return (size_t)-1;
    for (size_t i = 0; i < n - pad; i++)
        dsw_put(w, s[i] == '+' ? "." : s + i, 1);
    return w->over ? 0 : w->pos - start;
}

/* An OpenLDAP/pwdchan body "<iter>$<salt>$<dk>" under the passlib head of
 * row (NULL: the row of family fam whose digest has dk's length). */
static enum kdf_status
put_pbkdf2_body(struct dsw *w, const char *b, size_t n, const struct kdf_scheme_desc *row,
                const char *fam, const char **why)
{
    const char *d1 = memchr(b, '$', n), *d2;
    char tmp[KDF_MAX_HASH_STR];
    struct dsw t = {tmp, sizeof tmp, 0, 0};
    size_t sl, dl, bytes;

    if (n == 0 || (unsigned)(b[0] - '0') > 9 || d1 == NULL)
        return kdf_fail(why, KDF_MALFORMED, "PBKDF2 body: not <iterations>$<salt>$<hash>");
    d2 = memchr(d1 + 1, '$', n - (size_t)(d1 + 1 - b));
    if (d2 == NULL || memchr(d2 + 1, '$', n - (size_t)(d2 + 1 - b)) != NULL)
        return kdf_fail(why, KDF_MALFORMED, "PBKDF2 body: not <iterations>$<salt>$<hash>");
    /* The iterations as they are (the row's parse wants a canonical
     * decimal), then the two fields in ab64. */
    dsw_put(&t, b, (size_t)(d1 + 1 - b));
    sl = put_ab64(&t, d1 + 1, (size_t)(d2 - d1 - 1));
    dsw_put(&t, "$", 1);
    dl = put_ab64(&t, d2 + 1, n - (size_t)(d2 + 1 - b));
    if (sl == (size_t)-1 || dl == (size_t)-1)
        return kdf_fail(why, KDF_MALFORMED,
                        "PBKDF2 body: a field mixes ab64 and base64, or pads wrongly");
    if (t.over)
        return kdf_fail(why, KDF_MALFORMED, "PBKDF2 body: longer than any hash");
    if (row == NULL) {
        bytes = dl / 4 * 3 + (dl % 4 ? dl % 4 - 1 : 0);
        for (size_t i = 0; row == NULL && i < kdf_nschemes; i++) {
            const struct kdf_scheme_desc *r = kdf_schemes[i];
            if (reads_pwdchan(r) && r->ds_family != NULL && strcmp(r->ds_family, fam) == 0 &&
                dl % 4 != 1 && r->defaults.dk_len == bytes && r->prefixes != NULL &&
                r->prefixes[0] != NULL)
                row = r;
        }
        if (row == NULL)
            return kdf_fail(why, KDF_MALFORMED,
                            "PBKDF2 body: a hash of no known digest length");
    }
    /* The row's first prefix is its passlib head ("$pbkdf2-sha256$"). */
    dsw_put(w, row->prefixes[0], strlen(row->prefixes[0]));
    dsw_put(w, tmp, t.pos);
    kdf_wipe(tmp, sizeof tmp);
    return KDF_OK;
}

/* Is "{NAME}" (up[0..n) in upper case) a prefix of a row's: a value the
 * row reads with its braces? */
static int
row_reads_braced(const char *up, size_t n)
{
    for (size_t i = 0; i < kdf_nschemes; i++)
        for (const char *const *p = kdf_schemes[i]->prefixes; p != NULL && *p != NULL; p++)
            if (strlen(*p) == n + 2 && (*p)[0] == '{' && memcmp(*p + 1, up, n) == 0 &&
                (*p)[n + 1] == '}')
                return 1;
    return 0;
}

/* The row whose ds_family is NAME, or NULL. */
static const struct kdf_scheme_desc *
family_row(const char *up, size_t n)
{
    for (size_t i = 0; i < kdf_nschemes; i++)
        if (fold_eq(up, n, kdf_schemes[i]->ds_family))
            return kdf_schemes[i];
    return NULL;
}

static enum kdf_status
map_value(const char *v, size_t len, struct dsw *w, const char **why)
{
    char up[DS_NAME_MAX];
    size_t n = 0, bn;
    const char *body;
    const struct kdf_scheme_desc *fr;

    if (len < 2 || v[0] != '{')
        return kdf_fail(why, KDF_MALFORMED, "no {NAME} before the value");
    for (n = 0; 1 + n < len && v[1 + n] != '}'; n++) {
        char c = v[1 + n];
        if (n >= DS_NAME_MAX || !(KDF_IS_ALNUM(c) || c == '-' || c == '_'))
            return kdf_fail(why, KDF_MALFORMED, "no {NAME} before the value");
        up[n] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    if (n == 0 || 1 + n >= len)
        return kdf_fail(why, KDF_MALFORMED, "no {NAME} before the value");
    body = v + n + 2;
    bn = len - n - 2;

    for (size_t i = 0; i < KDF_ARRAY_LEN(refused_names); i++)
        if (name_is(up, n, refused_names[i].name))
            return kdf_fail(why, KDF_UNSUPPORTED, refused_names[i].why);
    /* An empty body would be the core's empty entry (no password). */
    if (bn == 0)
        return kdf_fail(why, KDF_MALFORMED, "{NAME} with nothing after it");
    if (row_reads_braced(up, n)) {
        dsw_put(w, "{", 1);
        dsw_put(w, up, n);
        dsw_put(w, "}", 1);
        dsw_put(w, body, bn);
        return KDF_OK;
    }
    for (size_t i = 0; i < KDF_ARRAY_LEN(pwdchan_names); i++) {
        if (!name_is(up, n, pwdchan_names[i].name))
            continue;
        fr = named_row(pwdchan_names[i].row);
        if (fr == NULL)
            return kdf_fail(why, KDF_UNSUPPORTED, "{NAME}: a storage scheme kdfhash does not read");
        return put_pbkdf2_body(w, body, bn, fr, NULL, why);
    }
    fr = family_row(up, n);
    if (fr != NULL && reads_pwdchan(fr) && (unsigned)(body[0] - '0') <= 9)
        return put_pbkdf2_body(w, body, bn, NULL, fr->ds_family, why);
    if (fr != NULL || (n > strlen(CRYPT_FAMILY) &&
                       memcmp(up, CRYPT_FAMILY, strlen(CRYPT_FAMILY)) == 0)) {
        dsw_put(w, body, bn);
        return KDF_OK;
    }
    /* A wrap of ours (kdfhash-ds-wrap): the wrapped string is the body. */
    if (name_is(up, n, KDF_DS_WRAPPED_NAME)) {
        dsw_put(w, body, bn);
        return KDF_OK;
    }
    for (const char *const *c = crypt_names; *c != NULL; c++)
        if (name_is(up, n, *c)) {
            dsw_put(w, body, bn);
            return KDF_OK;
        }
    return kdf_fail(why, KDF_UNSUPPORTED, "{NAME}: a storage scheme kdfhash does not read");
}

enum kdf_status
kdf_ds_value_string(const char *v, size_t len, char *out, size_t cap, size_t *olen,
                    const char **why)
{
    const char *w0 = NULL;
    struct dsw w = {out, cap, 0, 0};
    enum kdf_status st;

    if (why == NULL)
        why = &w0;
    *why = NULL;
    if (olen != NULL)
        *olen = 0;
    if (v == NULL || out == NULL || cap == 0)
        return kdf_fail(why, KDF_RANGE, "invalid argument");
    st = map_value(v, len, &w, why);
    if (st == KDF_OK && w.over)
        st = kdf_fail(why, KDF_RANGE, "output buffer too small");
    if (st != KDF_OK) {
        kdf_wipe(out, cap);
        out[0] = '\0';
        return st;
    }
    out[w.pos] = '\0';
    if (olen != NULL)
        *olen = w.pos;
    return KDF_OK;
}
