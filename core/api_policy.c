/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_policy.c - the rehash policy: defaults, kdfhash.conf, module-argument
 * overrides (doc/DESIGN.md "Policy").
 *
 * The file syntax is documented key by key in kdfhash.conf(5); the shipped
 * packaging/kdfhash.conf lists each key at its kdf_policy_default() value
 * (tests/unit/test_policy.c).  The
 * reader is strict, because a typo in a security policy should stop the
 * admin, not silently fall back: unknown keys, duplicates, numbers with
 * signs, leading zeros or trailing junk, and lines over 1024 bytes are
 * errors.  It streams through a small stack buffer (the PAM module may run
 * on a small thread stack) and never reads more than 64 KiB.  The text of
 * a target and the lexer live in api_target.c.
 */
#include "kdf_prelude.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdf_scheme.h"
#include "api_policy_text.h"

#define POL_MAX_LINE 1024         /* bytes of one line, newline excluded */
#define POL_MAX_FILE (64u * 1024) /* bytes of the whole file */

/* Sanity bounds of the policy keys themselves (not of hashes). */
#define POL_MAX_PASSWORD_CAP (1024u * 1024) /* max.password: CLI buffers it */
#define POL_MAX_THREADS_CAP 256u
#define POL_MAX_LANES 0xFFFFFFu /* RFC 9106 section 3.1: p < 2^24 */

/* The keys of no scheme, in the order of packaging/kdfhash.conf. */
static const struct kdf_pkey g_own_keys[] = {
    {.name = "target", .kind = KDF_PK_TARGET, .off = KDF_POL_OFF(target)},
    {.name = "accept", .kind = KDF_PK_ACCEPT, .off = KDF_POL_OFF(accept_mask)},
    KDF_PKEY_NUM("max.password", KDF_PR_CAP, KDF_TF_COST, max_password_len, 1,
                 POL_MAX_PASSWORD_CAP, 4096),
    KDF_PKEY_NUM("max.threads", 0, KDF_TF_COST, max_threads, 1, POL_MAX_THREADS_CAP, 4),
    /* Characters, not bytes (kdf_password_length()); 6 is pam_unix's minlen. */
    KDF_PKEY_NUM("min.length", 0, KDF_TF_COST, min_length, 0, 9999, 6),
    KDF_PKEY_NUM("max.length", 0, KDF_TF_COST, max_length, 64, POL_MAX_PASSWORD_CAP, 1024),
    {.name = "migrate", .kind = KDF_PK_YESNO, .off = KDF_POL_OFF(migrate), .hi = 1},
    {.name = "heavy", .kind = KDF_PK_NUM_OFF, .off = KDF_POL_OFF(heavy), .lo = 2, .hi = 1000,
     .def = 4},
    {.name = "max.memory", .kind = KDF_PK_MEMORY, .off = KDF_POL_OFF(max_memory_kib),
     .lo = 1024, .hi = UINT32_MAX - 1, .def = KDF_MEMGATE_AUTO},
    KDF_PKEY_NUM("max.memory-wait", 0, KDF_TF_COST, memory_wait_ms, 0, 600000, 5000),
    /* sulogin and rescue media verify root's entry with crypt(3) alone. */
    {.name = "xcrypt-only", .kind = KDF_PK_XONLY, .off = KDF_POL_OFF(xcrypt_only),
     .def_list = "root"},
    /* The groups Debian (sudo), Fedora (wheel) and Ubuntu before 12.04
     * (admin) give sudo to. */
    {.name = "admins", .kind = KDF_PK_XONLY, .off = KDF_POL_OFF(admins),
     .def_list = "root,@sudo,@wheel,@admin"},
    {.name = "pepper", .kind = KDF_PK_KEYID, .off = KDF_POL_OFF(pepper)},
    /* A month of travel; revoking a password in the directory reaches a
     * lost laptop's cache no later than that.  "off" (0) is spelt out:
     * SSSD reads a 0 as no limit, a reader may read it as no cache. */
    {.name = "offline.max-age", .kind = KDF_PK_NUM_OFF, .off = KDF_POL_OFF(offline_max_age),
     .lo = 1, .hi = 3650, .def = 30},
    /* The compromised-password list; a list that cannot be used allows
     * changes (logged), so that a broken file does not stop every password
     * change on the machine (kdfhash.conf(5), BLOCKLIST). */
    {.name = "blocklist", .kind = KDF_PK_PATH, .off = KDF_POL_OFF(blocklist)},
    {.name = "blocklist-missing", .kind = KDF_PK_REFUSE, .off = KDF_POL_OFF(blocklist_refuse),
     .hi = 1, .def = 0},
    /* One password typed in several byte forms (composed or decomposed
     * accents, full-width letters) is one password. */
    {.name = "normalize", .kind = KDF_PK_NFKC, .off = KDF_POL_OFF(normalize), .hi = 1,
     .def = 1},
    /* fips: NIST's approved KDF and sizes only (kdf_policy_load refuses the
     * rest, check_profile()). */
    {.name = "profile", .kind = KDF_PK_PROFILE, .off = KDF_POL_OFF(profile)},
};

/* Every key: api_policy.c's own, then each row's in table order, each once (a
 * key several rows list is one object).  A key's place here is only its
 * slot in kdf_policy_load()'s duplicate and line bookkeeping, so keys can
 * be added anywhere without rewiring the others. */
#define POL_MAX_KEYS 64
static size_t
all_keys(const struct kdf_pkey **out)
{
    size_t n = 0;

    for (size_t i = 0; i < KDF_ARRAY_LEN(g_own_keys); i++)
        out[n++] = &g_own_keys[i];
    for (size_t r = 0; r < kdf_nschemes; r++) {
        for (size_t k = 0; k < kdf_schemes[r]->npkeys; k++) {
            const struct kdf_pkey *key = kdf_schemes[r]->pkeys[k];
            size_t j = 0;

            while (j < n && out[j] != key && strcmp(out[j]->name, key->name) != 0)
                j++;
            if (j == n && n < POL_MAX_KEYS)
                out[n++] = key;
        }
    }
    return n;
}

const char *
kdf_policy_key_at(size_t i)
{
    const struct kdf_pkey *keys[POL_MAX_KEYS];
    size_t n = all_keys(keys);

    return i < n ? keys[i]->name : NULL;
}

static uint32_t *
pol_u32(struct kdf_policy *pol, size_t off)
{
    return (uint32_t *)(void *)((char *)pol + off);
}

/* Part (0; KDF_MTP_* of an m=,t=,p= key) of key k's value in pol. */
static uint32_t *
key_u32(struct kdf_policy *pol, const struct kdf_pkey *k, unsigned part)
{
    return k->in_bound ? &pol->bound[k->fam][k->slot + part] : pol_u32(pol, k->off);
}

static uint32_t
key_get(const struct kdf_policy *pol, const struct kdf_pkey *k, unsigned part)
{
    return key_u32((struct kdf_policy *)(uintptr_t)pol, k, part)[0];
}

/* The key called name, or of that alias; NULL for none. */
static const struct kdf_pkey *
key_named(const struct kdf_pkey *const *keys, size_t n, const char *name, size_t *idx)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, keys[i]->name) == 0 ||
            (keys[i]->alias != NULL && strcmp(name, keys[i]->alias) == 0)) {
            if (idx != NULL)
                *idx = i;
            return keys[i];
        }
    return NULL;
}

uint32_t *
kdf_policy_bound(struct kdf_policy *pol, const char *name, unsigned part)
{
    const struct kdf_pkey *keys[POL_MAX_KEYS];
    const struct kdf_pkey *k;

    if (pol == NULL || name == NULL)
        return NULL;
    k = key_named(keys, all_keys(keys), name, NULL);
    if (k == NULL || !k->in_bound || part > (k->kind == KDF_PK_MTP ? 2u : 0u))
        return NULL;
    return key_u32(pol, k, part);
}

uint32_t
kdf_policy_bound_get(const struct kdf_policy *pol, const char *name, unsigned part)
{
    const uint32_t *v = kdf_policy_bound((struct kdf_policy *)(uintptr_t)pol, name, part);

    return v != NULL ? *v : UINT32_MAX;
}

void
kdf_policy_default(struct kdf_policy *pol)
{
    const struct kdf_pkey *keys[POL_MAX_KEYS];
    size_t n;

    if (pol == NULL)
        return;
    memset(pol, 0, sizeof *pol);
    for (size_t r = 0; r < kdf_nschemes; r++)
        if (kdf_schemes[r]->default_target)
            pol->target = kdf_schemes[r]->defaults;
    n = all_keys(keys);
    for (size_t i = 0; i < n; i++) {
        const struct kdf_pkey *k = keys[i];
        switch (k->kind) {
        case KDF_PK_MTP:
            *key_u32(pol, k, KDF_MTP_T) = k->def_t;
            *key_u32(pol, k, KDF_MTP_P) = k->def_p;
            /* fall through */
        case KDF_PK_NUM:
        case KDF_PK_NUM_OFF:
        case KDF_PK_YESNO:
        case KDF_PK_NFKC:
        case KDF_PK_REFUSE:
        case KDF_PK_MEMORY:
        case KDF_PK_PROFILE:
            *key_u32(pol, k, 0) = k->def;
            break;
        case KDF_PK_XONLY: /* the memset left it zero-filled */
            if (k->def_list != NULL)
                memcpy((char *)pol + k->off, k->def_list, strlen(k->def_list) + 1);
            break;
        default: /* target above, accept none, pepper none */
            break;
        }
    }
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
    int r, any = 0, first = 1;

    while ((r = kdf_pol_item(v, n, &pos, &first, &k, &klen, &val, &vlen)) == 1) {
        unsigned bit = kdf_pol_span_eq(k, klen, "m") ? 1u : kdf_pol_span_eq(k, klen, "t") ? 2u
                                               : kdf_pol_span_eq(k, klen, "p")   ? 4u
                                                                          : 0u;
        if (bit == 0) {
            kdf_errf(err, err_cap, "expected m=, t= and p=");
            return KDF_MALFORMED;
        }
        if (seen & bit) {
            kdf_errf(err, err_cap, "'%c' given twice", k[0]);
            return KDF_MALFORMED;
        }
        seen |= bit;
        if (kdf_pol_u32(val, vlen, &num) != 0 || num == 0) {
            kdf_errf(err, err_cap, "bad number for '%c'", k[0]);
            return KDF_MALFORMED;
        }
        if (bit == 1) {
            if (num < m_min) {
                kdf_errf(err, err_cap, "m below %u KiB", (unsigned)m_min);
                return KDF_MALFORMED;
            }
            nm = num;
        } else if (bit == 2) {
            nt = num;
        } else {
            if (num > POL_MAX_LANES) {
                kdf_errf(err, err_cap, "p above 2^24-1 (RFC 9106)");
                return KDF_MALFORMED;
            }
            np = num;
        }
        any = 1;
    }
    if (r < 0 || !any) {
        kdf_errf(err, err_cap, "expected m=M,t=T,p=P");
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

    if (kdf_pol_u32(v, strlen(v), &num) != 0) {
        kdf_errf(err, err_cap, "not a canonical decimal number");
        return KDF_MALFORMED;
    }
    if (num < lo || num > hi) {
        kdf_errf(err, err_cap, "out of range %u..%u", (unsigned)lo, (unsigned)hi);
        return KDF_MALFORMED;
    }
    *out = num;
    return KDF_OK;
}

/* The next word of a list whose words are separated by blanks and/or
 * commas: 1 with the word at v[*start .. *i), 0 at the end of v[0..n). */
static int
next_list_word(const char *v, size_t n, size_t *i, size_t *start)
{
    while (*i < n && (kdf_pol_is_space(v[*i]) || v[*i] == ','))
        (*i)++;
    if (*i == n)
        return 0;
    *start = *i;
    while (*i < n && !kdf_pol_is_space(v[*i]) && v[*i] != ',')
        (*i)++;
    return 1;
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
    while (next_list_word(v, n, &i, &start)) {
        if (kdf_pol_scheme(v + start, i - start, &s) != 0) {
            kdf_errf(err, err_cap, "accept: unknown scheme '%.*s' (legacy crypt(3) "
                                  "schemes are always rehashed)",
                    (int)(i - start > 16 ? 16 : i - start), v + start);
            return KDF_MALFORMED;
        }
        nm |= 1u << s;
    }
    if (nm == 0) {
        kdf_errf(err, err_cap, "accept: empty list (write 'none')");
        return KDF_MALFORMED;
    }
    *mask = nm;
    return KDF_OK;
}

/* [a-z_][a-z0-9_.-]*: the portable user and group names (shadow-utils'
 * default rule without '$'); anything else in a list is a typo to report,
 * not a name to look up. */
static int
account_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > KDF_XCRYPT_ONLY_NAME_MAX || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
              c == '-'))
            return 0;
    }
    return 1;
}

/* An account list (xcrypt-only, admins): "root, @wheel admin" or "none"
 * into the normalised "root,@wheel,admin" (the whole KDF_XCRYPT_ONLY_CAP
 * array written, zero-filled, so that equal lists are equal policies byte
 * for byte). */
static enum kdf_status
set_account_list(const char *v, char *out, char *err, size_t err_cap)
{
    char buf[KDF_XCRYPT_ONLY_CAP];
    size_t i = 0, n = strlen(v), len = 0, count = 0, start;

    memset(buf, 0, sizeof buf);
    if (strcmp(v, "none") == 0) {
        memcpy(out, buf, sizeof buf);
        return KDF_OK;
    }
    while (next_list_word(v, n, &i, &start)) {
        size_t tlen = i - start, nstart;

        nstart = start + (v[start] == '@');
        if (!account_name_ok(v + nstart, i - nstart)) {
            kdf_errf(err, err_cap,
                     "'%.*s' is not a user or @group name ([a-z_][a-z0-9_.-]*, at most "
                     "%u bytes)",
                     (int)(tlen > 40 ? 40 : tlen), v + start, (unsigned)KDF_XCRYPT_ONLY_NAME_MAX);
            return KDF_MALFORMED;
        }
        if (tlen == 4 && memcmp(v + start, "none", 4) == 0) {
            kdf_errf(err, err_cap, "'none' stands alone");
            return KDF_MALFORMED;
        }
        for (size_t p = 0; p < len;) { /* the entries so far */
            size_t q = p;
            while (q < len && buf[q] != ',')
                q++;
            if (q - p == tlen && memcmp(buf + p, v + start, tlen) == 0) {
                kdf_errf(err, err_cap, "'%.*s' listed twice", (int)tlen, v + start);
                return KDF_MALFORMED;
            }
            p = q + 1;
        }
        if (++count > KDF_XCRYPT_ONLY_MAX_NAMES || len + (len > 0) + tlen >= sizeof buf) {
            kdf_errf(err, err_cap, "more than %u names or %u bytes",
                     (unsigned)KDF_XCRYPT_ONLY_MAX_NAMES, (unsigned)KDF_XCRYPT_ONLY_CAP - 1);
            return KDF_MALFORMED;
        }
        if (len > 0)
            buf[len++] = ',';
        memcpy(buf + len, v + start, tlen);
        len += tlen;
    }
    if (count == 0) {
        kdf_errf(err, err_cap, "empty list (write 'none')");
        return KDF_MALFORMED;
    }
    memcpy(out, buf, sizeof buf);
    return KDF_OK;
}

/* pepper = ID or none. */
static enum kdf_status
set_keyid(const char *v, char *out, char *err, size_t err_cap)
{
    size_t n = strlen(v);

    if (strcmp(v, "none") == 0) {
        out[0] = '\0';
        return KDF_OK;
    }
    if (!kdf_keyid_valid(v, n)) {
        kdf_errf(err, err_cap, "'%.16s' is not a key ID (2 to 11 letters and digits, as "
                               "kdfhash keys new makes them) or none",
                 v);
        return KDF_MALFORMED;
    }
    memcpy(out, v, n + 1);
    return KDF_OK;
}

/* profile = default, or a list of fips and sp800-63b (each once). */
static enum kdf_status
set_profile(const char *v, uint32_t *out, char *err, size_t err_cap)
{
    size_t i = 0, n = strlen(v), start;
    uint32_t bits = 0, bit;
    int bad = 0;

    if (strcmp(v, "default") == 0) {
        *out = 0;
        return KDF_OK;
    }
    while (!bad && next_list_word(v, n, &i, &start)) {
        if (i - start == 4 && memcmp(v + start, "fips", 4) == 0)
            bit = KDF_PROFILE_FIPS;
        else if (i - start == 9 && memcmp(v + start, "sp800-63b", 9) == 0)
            bit = KDF_PROFILE_SP800_63B;
        else
            bit = 0;
        bad = bit == 0 || (bits & bit) != 0; /* unknown, or twice */
        bits |= bit;
    }
    if (bad || bits == 0) {
        kdf_errf(err, err_cap, "must be default, fips, sp800-63b or fips,sp800-63b");
        return KDF_MALFORMED;
    }
    *out = bits;
    return KDF_OK;
}

/* blocklist = PATH or none: an absolute path (the module runs in other
 * processes' working directories) of printable bytes, under
 * KDF_BLOCKLIST_PATH_CAP. */
static enum kdf_status
set_path(const char *v, char *out, char *err, size_t err_cap)
{
    size_t n = strlen(v);

    if (strcmp(v, "none") == 0) {
        out[0] = '\0';
        return KDF_OK;
    }
    if (v[0] != '/' || n >= KDF_BLOCKLIST_PATH_CAP) {
        kdf_errf(err, err_cap, "must be none or an absolute path of at most %u bytes",
                 (unsigned)KDF_BLOCKLIST_PATH_CAP - 1);
        return KDF_MALFORMED;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f) {
            kdf_errf(err, err_cap, "a control character in the path");
            return KDF_MALFORMED;
        }
    memcpy(out, v, n + 1);
    return KDF_OK;
}

static int
key_index(const struct kdf_pkey *const *keys, size_t n, const char *key)
{
    size_t i;

    return key_named(keys, n, key, &i) != NULL ? (int)i : -1;
}

/* Set key k on pol without the cross-key target-versus-caps check. */
static enum kdf_status
set_key(struct kdf_policy *pol, const struct kdf_pkey *k, const char *v, char *err,
        size_t err_cap)
{
    switch (k->kind) {
    case KDF_PK_TARGET:
        return kdf_target_parse(v, &pol->target, err, err_cap);
    case KDF_PK_ACCEPT:
        return set_accept(v, pol_u32(pol, k->off), err, err_cap);
    case KDF_PK_NUM:
        return set_num(v, k->lo, k->hi, key_u32(pol, k, 0), err, err_cap);
    case KDF_PK_MTP:
        return set_mtp(v, key_u32(pol, k, KDF_MTP_M), key_u32(pol, k, KDF_MTP_T),
                       key_u32(pol, k, KDF_MTP_P), k->lo, err, err_cap);
    case KDF_PK_YESNO:
        if (strcmp(v, "yes") == 0 || strcmp(v, "no") == 0) {
            *pol_u32(pol, k->off) = v[0] == 'y';
            return KDF_OK;
        }
        kdf_errf(err, err_cap, "must be yes or no");
        return KDF_MALFORMED;
    case KDF_PK_NFKC:
        if (strcmp(v, "nfkc") == 0 || strcmp(v, "no") == 0) {
            *pol_u32(pol, k->off) = v[0] == 'n' && v[1] == 'f';
            return KDF_OK;
        }
        kdf_errf(err, err_cap, "must be nfkc or no");
        return KDF_MALFORMED;
    case KDF_PK_MEMORY:
        if (strcmp(v, "auto") == 0 || strcmp(v, "off") == 0) {
            *pol_u32(pol, k->off) = v[0] == 'a' ? KDF_MEMGATE_AUTO : KDF_MEMGATE_OFF;
            return KDF_OK;
        }
        return set_num(v, k->lo, k->hi, key_u32(pol, k, 0), err, err_cap);
    case KDF_PK_NUM_OFF:
        if (strcmp(v, "off") == 0) {
            *key_u32(pol, k, 0) = 0;
            return KDF_OK;
        }
        if (set_num(v, k->lo, k->hi, key_u32(pol, k, 0), err, err_cap) == KDF_OK)
            return KDF_OK;
        kdf_errf(err, err_cap, "must be off or a decimal number in %u..%u", (unsigned)k->lo,
                 (unsigned)k->hi);
        return KDF_MALFORMED;
    case KDF_PK_XONLY:
        return set_account_list(v, (char *)pol + k->off, err, err_cap);
    case KDF_PK_KEYID:
        return set_keyid(v, pol->pepper, err, err_cap);
    case KDF_PK_PATH:
        return set_path(v, (char *)pol + k->off, err, err_cap);
    case KDF_PK_REFUSE:
        if (strcmp(v, "allow") == 0 || strcmp(v, "refuse") == 0) {
            *pol_u32(pol, k->off) = v[0] == 'r';
            return KDF_OK;
        }
        kdf_errf(err, err_cap, "must be allow or refuse");
        return KDF_MALFORMED;
    case KDF_PK_PROFILE:
        return set_profile(v, pol_u32(pol, k->off), err, err_cap);
    }
    kdf_errf(err, err_cap, "unknown key");
    return KDF_MALFORMED;
}

/* The target must fit the caps that are in force with it. */
static enum kdf_status
check_target_caps(const struct kdf_policy *pol, char *err, size_t err_cap)
{
    const char *why = NULL;
    enum kdf_status st = kdf_check_target(&pol->target, pol, &why);

    if (st != KDF_OK)
        kdf_errf(err, err_cap, "target: %s", why ? why : kdf_status_str(st));
    return st;
}

/* profile = fips: the target must be what NIST SP 800-132 and SP 800-63B
 * section 3.1.1.2 approve (PBKDF2 with an approved HMAC: SHA-256 or -512
 * here, SHA-1 being disallowed for new hashes), a salt of at least 128
 * bits and a key of at least 112 bits (SP 800-132 sections 5.1 and 5.3).
 * A pepper is refused: only Argon2 takes one here, and fips allows no
 * Argon2 target.  The iterations are held to min.pbkdf2-* as under every
 * profile (check_target_min). */
static enum kdf_status
check_profile(const struct kdf_policy *pol, char *err, size_t err_cap)
{
    const struct kdf_target *t = &pol->target;

    /* NIST SP 800-63B-4: new passwords SHALL be compared against a
     * blocklist; a profile that claims the standard without one would not
     * meet it. */
    if ((pol->profile & KDF_PROFILE_SP800_63B) && pol->blocklist[0] == '\0') {
        kdf_errf(err, err_cap, "profile = sp800-63b: needs blocklist = PATH (a list of "
                               "compromised passwords: kdfhash blocklist build)");
        return KDF_RANGE;
    }
    if (!(pol->profile & KDF_PROFILE_FIPS))
        return KDF_OK;
    if (!kdf_target_fips_approved(t)) {
        kdf_errf(err, err_cap,
                 "profile = fips: target %s is not FIPS-approved (use pbkdf2-sha256 or "
                 "pbkdf2-sha512)",
                 kdf_target_name(t));
        return KDF_UNSUPPORTED;
    }
    if (t->salt_len < KDF_FIPS_MIN_SALT) {
        kdf_errf(err, err_cap, "profile = fips: target salt of %u bytes, below 16 (128 bits)",
                 (unsigned)t->salt_len);
        return KDF_RANGE;
    }
    if (t->dk_len < KDF_FIPS_MIN_LEN) {
        kdf_errf(err, err_cap, "profile = fips: target len of %u bytes, below 14 (112 bits)",
                 (unsigned)t->dk_len);
        return KDF_RANGE;
    }
    if (pol->pepper[0] != '\0') {
        kdf_errf(err, err_cap, "profile = fips: pepper is set, and only Argon2 targets take "
                               "one (set pepper = none)");
        return KDF_RANGE;
    }
    return KDF_OK;
}

/* KiB of the machine-wide budget one hash at the target takes: its row's
 * answer, 0 when the target's kernel does not take from the budget. */
static uint64_t
target_mem_kib(const struct kdf_target *t)
{
    const struct kdf_scheme_desc *row = kdf_scheme_target_row(t);

    return row != NULL && row->mem_kib != NULL ? row->mem_kib(t) : 0;
}

/* A numeric max.memory the target does not fit in refuses every hash and
 * every verification at the target as busy (util_memgate.c measures the budget
 * in whole MiB, rounding the budget down and the request up): that is a
 * configuration error, not a budget.  "auto" depends on the machine and is
 * not judged here. */
static enum kdf_status
check_memory(const struct kdf_policy *pol, char *err, size_t err_cap)
{
    uint64_t need = target_mem_kib(&pol->target);

    if (pol->max_memory_kib == KDF_MEMGATE_AUTO || pol->max_memory_kib == KDF_MEMGATE_OFF ||
        need == 0)
        return KDF_OK;
    if ((need + 1023) / 1024 > pol->max_memory_kib / 1024) {
        kdf_errf(err, err_cap,
                 "max.memory: %u KiB is below the %llu KiB one %s hash at the target "
                 "needs",
                 (unsigned)pol->max_memory_kib, (unsigned long long)((need + 1023) / 1024 * 1024),
                 kdf_target_name(&pol->target));
        return KDF_RANGE;
    }
    return KDF_OK;
}

/* The key of t's row that judges the cost of its hashes, NULL for none. */
static const struct kdf_pkey *
cost_min_key(const struct kdf_target *t)
{
    const struct kdf_scheme_desc *row = kdf_scheme_target_row(t);

    for (size_t k = 0; row != NULL && k < row->npkeys; k++)
        if (row->pkeys[k]->role & KDF_PR_COST_MIN)
            return row->pkeys[k];
    return NULL;
}

static uint32_t
lower(uint32_t pol_v, uint32_t t_v, int lowered)
{
    return lowered && t_v < pol_v ? t_v : pol_v;
}

int
kdf_policy_min_line(const struct kdf_target *t, const struct kdf_policy *pol, int lowered,
                    char *out, size_t cap)
{
    const struct kdf_pkey *k = t != NULL && pol != NULL ? cost_min_key(t) : NULL;
    struct kdf_target tt;

    if (out != NULL && cap > 0)
        out[0] = '\0';
    if (k == NULL || out == NULL || cap == 0)
        return 0;
    tt = *t;
    if (k->kind == KDF_PK_MTP)
        snprintf(out, cap, "%s = m=%u,t=%u,p=%u", k->name,
                 (unsigned)lower(key_get(pol, k, KDF_MTP_M), tt.m_kib, lowered),
                 (unsigned)lower(key_get(pol, k, KDF_MTP_T), tt.cost, lowered),
                 (unsigned)lower(key_get(pol, k, KDF_MTP_P), tt.lanes, lowered));
    else {
        const uint32_t *f = kdf_target_field(&tt, k->tfield);

        snprintf(out, cap, "%s = %u", k->name,
                 (unsigned)lower(key_get(pol, k, 0), f != NULL ? *f : UINT32_MAX, lowered));
    }
    return 1;
}

void
kdf_target_raise_to_min(struct kdf_target *t, const struct kdf_policy *pol)
{
    const struct kdf_scheme_desc *row = t != NULL && pol != NULL ? kdf_scheme_target_row(t) : NULL;

    for (size_t i = 0; row != NULL && i < row->npkeys; i++) {
        const struct kdf_pkey *k = row->pkeys[i];
        uint32_t *f;

        if (!(k->role & (KDF_PR_COST_MIN | KDF_PR_MIN)))
            continue;
        if (k->kind == KDF_PK_MTP) {
            if (t->m_kib < key_get(pol, k, KDF_MTP_M))
                t->m_kib = key_get(pol, k, KDF_MTP_M);
            if (t->cost < key_get(pol, k, KDF_MTP_T))
                t->cost = key_get(pol, k, KDF_MTP_T);
            if (t->lanes < key_get(pol, k, KDF_MTP_P))
                t->lanes = key_get(pol, k, KDF_MTP_P);
        } else if (k->kind == KDF_PK_NUM) {
            f = kdf_target_field(t, k->tfield);
            if (f != NULL && *f < key_get(pol, k, 0))
                *f = key_get(pol, k, 0);
        }
    }
}

/* A target below the policy's own minimums would make new hashes that the
 * same policy calls too cheap, and would rewrite stronger entries of other
 * schemes with them at login.  The row's own below_min() answers, on the
 * fields of a hash of the target (row->fill()); schemes without minimum
 * keys (scrypt, crypt(3)) have nothing to be below. */
static enum kdf_status
check_target_min(const struct kdf_policy *pol, char *err, size_t err_cap)
{
    const struct kdf_scheme_desc *row = kdf_scheme_target_row(&pol->target);
    const struct kdf_target *t = &pol->target;
    struct kdf_hash h;
    char mins[96];
    int below;

    if (row == NULL || row->fill == NULL || row->below_min == NULL)
        return KDF_OK;
    memset(&h, 0, sizeof h);
    row->fill(t, &h);
    below = row->below_min(&h, pol, NULL);
    kdf_wipe(&h, sizeof h);
    if (!below)
        return KDF_OK;
    if (!kdf_policy_min_line(t, pol, 0, mins, sizeof mins))
        snprintf(mins, sizeof mins, "its minimum");
    kdf_errf(err, err_cap, "target: %s is below the policy's own %s (lower that too, "
                           "if such a cheap target is meant)",
             row->name, mins);
    return KDF_RANGE;
}

enum kdf_status
kdf_policy_set(struct kdf_policy *pol, const char *key, const char *value, char *err,
               size_t err_cap)
{
    const struct kdf_pkey *keys[POL_MAX_KEYS];
    struct kdf_policy np;
    char sub[256];
    enum kdf_status st;
    size_t nkeys = all_keys(keys);
    int idx;

    if (err != NULL && err_cap > 0)
        err[0] = '\0';
    if (pol == NULL || key == NULL || value == NULL) {
        kdf_errf(err, err_cap, "missing key or value");
        return KDF_RANGE;
    }
    idx = key_index(keys, nkeys, key);
    if (idx < 0) {
        kdf_errf(err, err_cap, "unknown key '%.32s'", key);
        return KDF_MALFORMED;
    }
    np = *pol;
    sub[0] = '\0';
    st = set_key(&np, keys[idx], value, sub, sizeof sub);
    if (st == KDF_OK)
        st = check_profile(&np, sub, sizeof sub);
    if (st == KDF_OK)
        st = check_target_caps(&np, sub, sizeof sub);
    if (st == KDF_OK)
        st = check_memory(&np, sub, sizeof sub);
    if (st != KDF_OK) {
        kdf_errf(err, err_cap, "%s: %s", keys[idx]->name, sub);
        return st;
    }
    *pol = np; /* all or nothing */
    return KDF_OK;
}

/* ---- the file ------------------------------------------------------------ */

/* One load of a file: the policy it builds, the keys, the line each key
 * was met on (0: not yet), and where messages go. */
struct pol_load {
    struct kdf_policy np;
    const char *path;
    const struct kdf_pkey *keys[POL_MAX_KEYS];
    size_t nkeys;
    unsigned key_line[POL_MAX_KEYS];
    kdf_policy_note_fn note;
    void *note_ctx;
    char *err;
    size_t err_cap;
};

/* "key = value" in line[0..n) (comments and blanks trimmed): 1 with the
 * key at line[*k..], the value at line[*v..], both NUL-ended; 0 for a blank
 * or comment line; -1 with sub set for a malformed one. */
static int
split_line(char *line, size_t n, size_t *k, size_t *v, char *sub, size_t sub_cap)
{
    size_t i = 0, eq, kend, vstart;
    char *hash;

    line[n] = '\0';
    hash = strchr(line, '#'); /* no value contains '#': comments may trail */
    if (hash != NULL)
        n = (size_t)(hash - line);
    if (n > 0 && line[n - 1] == '\r')
        n--;
    while (i < n && kdf_pol_is_space(line[i]))
        i++;
    while (n > i && kdf_pol_is_space(line[n - 1]))
        n--;
    if (i == n)
        return 0;
    line[n] = '\0';
    for (eq = i; eq < n && line[eq] != '='; eq++)
        ;
    if (eq == n) {
        kdf_errf(sub, sub_cap, "expected 'key = value'");
        return -1;
    }
    kend = eq;
    while (kend > i && kdf_pol_is_space(line[kend - 1]))
        kend--;
    vstart = eq + 1;
    while (vstart < n && kdf_pol_is_space(line[vstart]))
        vstart++;
    line[kend] = '\0';
    if (kend == i || vstart == n) {
        kdf_errf(sub, sub_cap, kend == i ? "missing key" : "missing value");
        return -1;
    }
    *k = i;
    *v = vstart;
    return 1;
}

/* One line, already stripped of its newline: line number lineno. */
static enum kdf_status
load_line(struct pol_load *L, char *line, size_t n, unsigned lineno, char *sub, size_t sub_cap)
{
    size_t k, v;
    const struct kdf_pkey *key;
    int idx, r;

    if (memchr(line, '\0', n) != NULL) {
        kdf_errf(sub, sub_cap, "NUL byte in line");
        return KDF_MALFORMED;
    }
    r = split_line(line, n, &k, &v, sub, sub_cap);
    if (r <= 0)
        return r == 0 ? KDF_OK : KDF_MALFORMED;
    idx = key_index(L->keys, L->nkeys, line + k);
    if (idx < 0) {
        kdf_errf(sub, sub_cap, "unknown key '%.32s'", line + k);
        return KDF_MALFORMED;
    }
    key = L->keys[idx];
    if (L->key_line[idx] != 0) {
        if (key->alias != NULL)
            kdf_errf(sub, sub_cap, "duplicate key '%s' (%s is its old name)", key->name,
                     key->alias);
        else
            kdf_errf(sub, sub_cap, "duplicate key '%s'", key->name);
        return KDF_MALFORMED;
    }
    L->key_line[idx] = lineno;
    if (L->note != NULL && strcmp(line + k, key->name) != 0) {
        char msg[160];

        snprintf(msg, sizeof msg, "%s:%u: '%s' is the old name of '%s', which it still means",
                 L->path, lineno, line + k, key->name);
        L->note(L->note_ctx, msg);
    }
    return set_key(&L->np, key, line + v, sub, sub_cap);
}

/* Open path for reading if it may set a policy (owner and mode); the fd,
 * -1 with err set, or -2 for a missing file that may be missing. */
static int
open_policy(const char *path, int missing_ok, char *err, size_t err_cap)
{
    struct stat stb;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    if (fd < 0) {
        if (errno == ENOENT && missing_ok)
            return -2;
        kdf_errf(err, err_cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &stb) != 0 || !S_ISREG(stb.st_mode)) {
        kdf_errf(err, err_cap, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    /* A policy anyone can write is no policy (it sets the caps that keep
     * a stored hash from exhausting the host, and the target every login
     * rewrites entries to).  The rule is sudoers': owned by root, not
     * writable by others, writable by the group only when the group is
     * root's (gid 0).  A process that is not root may also read a file of
     * its own user (an admin trying a file with kdfhash check-conf, a test
     * run by an ordinary user): that user could write the policy of no one
     * else's process, while root's hosts (sshd, su, login) accept root's
     * files only. */
    if (stb.st_uid != 0 && stb.st_uid != geteuid())
        kdf_errf(err, err_cap, "%s: owned by uid %u, not root: refused", path,
                 (unsigned)stb.st_uid);
    else if (stb.st_mode & S_IWOTH)
        kdf_errf(err, err_cap, "%s: world-writable, refused", path);
    else if ((stb.st_mode & S_IWGRP) && stb.st_gid != 0)
        kdf_errf(err, err_cap, "%s: writable by group %u, not root's: refused", path,
                 (unsigned)stb.st_gid);
    else
        return fd;
    close(fd);
    return -1;
}

/* Every line of fd through load_line(), in a small stack buffer. */
static enum kdf_status
read_lines(struct pol_load *L, int fd)
{
    char chunk[512], line[POL_MAX_LINE + 2], sub[256];
    size_t llen = 0, total = 0;
    unsigned lineno = 1;
    int overlong = 0;
    enum kdf_status st = KDF_OK;

    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            kdf_errf(L->err, L->err_cap, "%s: read error: %s", L->path, strerror(errno));
            return KDF_INTERNAL;
        }
        total += (size_t)r;
        if (total > POL_MAX_FILE) {
            kdf_errf(L->err, L->err_cap, "%s: larger than %u bytes", L->path, POL_MAX_FILE);
            return KDF_MALFORMED;
        }
        /* r == 0: flush a last line without a newline. */
        for (ssize_t j = 0; j <= r; j++) {
            int eol = (j == r) ? (r == 0 && (llen > 0 || overlong)) : chunk[j] == '\n';
            if (!eol) {
                if (j == r)
                    break;
                if (llen < POL_MAX_LINE + 1)
                    line[llen++] = chunk[j];
                else
                    overlong = 1;
                continue;
            }
            if (overlong || llen > POL_MAX_LINE) {
                kdf_errf(sub, sizeof sub, "line longer than %u bytes", POL_MAX_LINE);
                st = KDF_MALFORMED;
            } else {
                st = load_line(L, line, llen, lineno, sub, sizeof sub);
            }
            if (st != KDF_OK) {
                kdf_errf(L->err, L->err_cap, "%s:%u: %s", L->path, lineno, sub);
                return st;
            }
            llen = 0;
            overlong = 0;
            lineno++;
        }
        if (r == 0)
            return KDF_OK;
    }
}

static unsigned
line_of(const struct pol_load *L, const char *name)
{
    return L->key_line[key_index(L->keys, L->nkeys, name)];
}

/* The checks across keys, blamed on the line that set the key the message
 * names (the target's when the other key is at its default; line 0 when
 * neither is in the file, which cannot happen for the defaults). */
static enum kdf_status
check_across(struct pol_load *L)
{
    unsigned last_max = 0, last_min = 0, l_target = line_of(L, "target");
    char sub[256];
    enum kdf_status st;

    for (size_t k = 0; k < L->nkeys; k++) {
        if ((L->keys[k]->role & KDF_PR_CAP) && L->key_line[k] > last_max)
            last_max = L->key_line[k];
        if ((L->keys[k]->role & KDF_PR_COST_MIN) && L->key_line[k] > last_min)
            last_min = L->key_line[k];
    }
    /* The profile first: its reason names the rule, where the caps would
     * name a symptom (a pepper on a PBKDF2 target). */
    st = check_profile(&L->np, sub, sizeof sub);
    if (st != KDF_OK) {
        unsigned l_profile = line_of(L, "profile");

        kdf_errf(L->err, L->err_cap, "%s:%u: %s", L->path,
                 l_profile > l_target ? l_profile : l_target, sub);
        return st;
    }
    st = check_target_caps(&L->np, sub, sizeof sub);
    if (st != KDF_OK)
        kdf_errf(L->err, L->err_cap, "%s:%u: %s", L->path, l_target ? l_target : last_max,
                 sub);
    if (st == KDF_OK && (st = check_memory(&L->np, sub, sizeof sub)) != KDF_OK) {
        unsigned l_memory = line_of(L, "max.memory");

        kdf_errf(L->err, L->err_cap, "%s:%u: %s", L->path, l_memory ? l_memory : l_target,
                 sub);
    }
    if (st == KDF_OK && (st = check_target_min(&L->np, sub, sizeof sub)) != KDF_OK)
        kdf_errf(L->err, L->err_cap, "%s:%u: %s", L->path, l_target ? l_target : last_min,
                 sub);
    /* A pepper with a target that cannot take a key (check_target_caps
     * asks the row): blamed on the later of the two lines. */
    if (st != KDF_OK && L->np.pepper[0] != '\0') {
        unsigned l_pepper = line_of(L, "pepper");
        const char *why = NULL;

        if (kdf_check_target(&L->np.target, &L->np, &why) == KDF_RANGE && why != NULL &&
            strncmp(why, "pepper", 6) == 0 && l_pepper > l_target)
            kdf_errf(L->err, L->err_cap, "%s:%u: target: %s", L->path, l_pepper, why);
    }
    return st;
}

enum kdf_status
kdf_policy_load_noted(struct kdf_policy *pol, const char *path, int missing_ok, char *err,
                      size_t err_cap, kdf_policy_note_fn note, void *note_ctx)
{
    struct pol_load L;
    enum kdf_status st;
    int fd;

    if (err != NULL && err_cap > 0)
        err[0] = '\0';
    if (pol == NULL || path == NULL) {
        kdf_errf(err, err_cap, "no policy or path");
        return KDF_RANGE;
    }
    fd = open_policy(path, missing_ok, err, err_cap);
    if (fd < 0)
        return fd == -2 ? KDF_OK : KDF_INTERNAL;
    memset(&L, 0, sizeof L);
    L.np = *pol;
    L.path = path;
    L.nkeys = all_keys(L.keys);
    L.note = note;
    L.note_ctx = note_ctx;
    L.err = err;
    L.err_cap = err_cap;
    st = read_lines(&L, fd);
    close(fd);
    if (st == KDF_OK)
        st = check_across(&L);
    if (st == KDF_OK)
        *pol = L.np; /* never half-applied */
    return st;
}

enum kdf_status
kdf_policy_load(struct kdf_policy *pol, const char *path, int missing_ok, char *err,
                size_t err_cap)
{
    return kdf_policy_load_noted(pol, path, missing_ok, err, err_cap, NULL, NULL);
}

uint32_t
kdf_policy_min_length(const struct kdf_policy *pol)
{
    /* NIST SP 800-63B-4 section 3.1.1.2: at least 15 characters where the
     * password is the only factor. */
    if ((pol->profile & KDF_PROFILE_SP800_63B) && pol->min_length < KDF_SP800_63B_MIN_LENGTH)
        return KDF_SP800_63B_MIN_LENGTH;
    return pol->min_length;
}
