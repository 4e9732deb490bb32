/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_legacy.c - the crypt(3) schemes we do not implement ($1$ $5$ $6$
 * $y$ $gy$ $7$ $sha1$ $md5 DES BSDi ...), verified by delegating to the
 * system's libxcrypt, and the crypt(3) targets made through it (the way
 * back to what pam_unix reads).  Their rows: one per target scheme
 * ($y$, $6$, $5$) and one for every other crypt(3) string.
 *
 * Why crypt_rn(): it is libxcrypt's re-entrant call that writes into a
 * caller-provided struct crypt_data and returns NULL on failure, so nothing
 * is allocated, nothing is shared between threads, and we can wipe every
 * byte it touched.  crypt_r() would also work but returns a failure token
 * instead of NULL; crypt_ra() allocates; crypt() uses static storage.
 *
 * Failure tokens: on error libxcrypt writes "*0" (or "*1" when the setting
 * itself starts with "*0") so that its output never equals the stored
 * string.  We do not rely on that alone: a NULL return
 * is never a match, an output starting with '*' is never a match, and a
 * stored string starting with '*' or '!' is refused before libxcrypt is
 * called (the parser classes those as LOCKED anyway).
 *
 * The password: crypt_rn() takes a C string, so a password with a NUL byte
 * would be used up to that NUL: verify and hash refuse it (KDF_RANGE), the
 * same rule as scheme_bcrypt.c.  libxcrypt refuses passphrases of 512 bytes or more
 * (CRYPT_MAX_PASSPHRASE_SIZE, ERANGE); we refuse a pw_len that large with
 * KDF_TOO_COSTLY before copying anything.
 *
 * The comparison: the output and the stored string are compared over their
 * whole length with kdf_ct_eq() (their lengths are public: the stored
 * string's length is known to whoever chose the scheme).
 */
#include "kdf_prelude.h"
#include "util_memgate.h"
#include "hstr_xcrypt_cost.h"
#include "scheme_legacy.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>

#include "hstr.h"
#include "kdf_scheme.h"

#ifndef CRYPT_MAX_PASSPHRASE_SIZE
#define CRYPT_MAX_PASSPHRASE_SIZE 512
#endif

/* What a failed crypt_rn() means for the caller. */
static enum kdf_status
status_of_errno(int e)
{
    switch (e) {
    case EINVAL:
        return KDF_UNSUPPORTED; /* unknown method or a setting it refuses */
    case ERANGE:
        return KDF_TOO_COSTLY; /* passphrase too long */
    case ENOMEM:
        return KDF_NOMEM;
    default:
        return KDF_INTERNAL;
    }
}

/* libxcrypt's own frames, below ours, may keep a copy of the passphrase
 * after crypt_rn() returns (seen with sha512crypt on arm64, 1 KiB into
 * them): overwrite that much stack once it has, as Libgcrypt's
 * _gcry_burn_stack does.  The depth covers libxcrypt's deepest scheme with
 * room to spare. */
#define BURN_DEPTH (48 * 1024)
static void __attribute__((noinline))
burn_stack(void)
{
    uint8_t buf[BURN_DEPTH];

    kdf_wipe(buf, sizeof buf);
}

/* crypt_rn() of phrase and setting into data, zeroed first as libxcrypt
 * wants: KDF_OK with its output (*res, *rlen; maybe a failure token, which
 * the caller judges), or the status its errno means. */
static enum kdf_status
run_crypt(const char *phrase, const char *setting, struct crypt_data *data, const char **res,
          size_t *rlen)
{
    memset(data, 0, sizeof *data);
    errno = 0;
    *res = crypt_rn(phrase, setting, data, (int)sizeof *data);
    burn_stack();
    if (*res == NULL)
        return status_of_errno(errno);
    *rlen = strnlen(*res, sizeof data->output);
    return KDF_OK;
}

enum kdf_status
kdf_legacy_verify(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    struct crypt_data data; /* 32 KiB on the stack: libxcrypt's scratch */
    char phrase[CRYPT_MAX_PASSPHRASE_SIZE];
    char setting[KDF_MAX_HASH_STR + 1];
    const char *res;
    size_t n, slen, rlen;
    enum kdf_status st;
    int saved_errno = errno;

    if (h == NULL || (pw == NULL && pw_len != 0) || h->scheme != KDF_SCHEME_LEGACY)
        return KDF_RANGE;
    slen = h->whole.len;
    if (h->whole.ptr == NULL || slen == 0 || slen > KDF_MAX_HASH_STR ||
        memchr(h->whole.ptr, '\0', slen) != NULL)
        return KDF_MALFORMED;
    /* Locked / failure-token shaped entries never verify. */
    if (h->whole.ptr[0] == '*' || h->whole.ptr[0] == '!')
        return KDF_MISMATCH;
    if (pw_len >= CRYPT_MAX_PASSPHRASE_SIZE)
        return KDF_TOO_COSTLY;

    /* crypt_rn() would read only up to a NUL: the prefix would match. */
    if (pw_len != 0 && memchr(pw, '\0', pw_len) != NULL)
        return KDF_RANGE;
    n = pw_len;
    if (n != 0)
        memcpy(phrase, pw, n);
    phrase[n] = '\0';
    memcpy(setting, h->whole.ptr, slen);
    setting[slen] = '\0';

    st = run_crypt(phrase, setting, &data, &res, &rlen);
    if (st == KDF_OK) {
        if (rlen == 0 || res[0] == '*' || rlen != slen)
            st = KDF_MISMATCH;
        else
            st = kdf_ct_eq(res, setting, slen) == 0 ? KDF_OK : KDF_MISMATCH;
    }

    kdf_wipe(&data, sizeof data);
    kdf_wipe(phrase, sizeof phrase);
    kdf_wipe(setting, sizeof setting);
    errno = saved_errno;
    return st;
}

/* The hash crypt_rn() makes of pw with setting[0..slen) (a whole hash
 * string: crypt(3) reads its setting and ignores the rest), into out[cap]
 * with its length in *olen: the inner hash of a wrapped entry
 * (scheme_wrapped.c).  The memory of a memory-hard setting is taken from
 * the machine-wide budget first, as for a verification. */
static enum kdf_status xcrypt_gate_take(const char *setting, size_t n,
                                        const struct kdf_policy *pol, int *fd);
enum kdf_status
kdf_legacy_crypt(const char *pw, size_t pw_len, const char *setting, size_t slen,
                 const struct kdf_policy *pol, char *out, size_t cap, size_t *olen)
{
    struct crypt_data data;
    char phrase[CRYPT_MAX_PASSPHRASE_SIZE];
    char set[KDF_MAX_HASH_STR + 1];
    const char *res;
    size_t rlen;
    enum kdf_status st;
    int gate, saved_errno = errno;

    if (slen == 0 || slen > KDF_MAX_HASH_STR || memchr(setting, '\0', slen) != NULL)
        return KDF_MALFORMED;
    if (pw_len >= CRYPT_MAX_PASSPHRASE_SIZE)
        return KDF_TOO_COSTLY;
    if (pw_len != 0 && memchr(pw, '\0', pw_len) != NULL)
        return KDF_RANGE;
    st = xcrypt_gate_take(setting, slen, pol, &gate);
    if (st != KDF_OK)
        return st;
    if (pw_len != 0)
        memcpy(phrase, pw, pw_len);
    phrase[pw_len] = '\0';
    memcpy(set, setting, slen);
    set[slen] = '\0';
    st = run_crypt(phrase, set, &data, &res, &rlen);
    if (st == KDF_OK) {
        if (rlen == 0 || res[0] == '*')
            st = KDF_UNSUPPORTED; /* libxcrypt refuses the setting */
        else if (rlen >= cap || rlen > KDF_MAX_HASH_STR)
            st = KDF_RANGE;
        else {
            memcpy(out, res, rlen + 1);
            *olen = rlen;
        }
    }
    kdf_memgate_give(gate);
    kdf_wipe(&data, sizeof data);
    kdf_wipe(phrase, sizeof phrase);
    errno = saved_errno;
    return st;
}

/* ---- making crypt(3) hashes: the targets that lead back to pam_unix ---- */

/* libxcrypt's prefix of each target (crypt(5)). */
static const char *
kdf_xcrypt_prefix(enum kdf_xcrypt x)
{
    const struct kdf_scheme_desc *row = kdf_xcrypt_row(x);

    return row != NULL ? row->prefixes[0] : NULL;
}

/* The setting of t (salt from salt/salt_len, at least 16 bytes) made by
 * crypt_gensalt_rn(), into out[cap]. */
enum kdf_status
kdf_xcrypt_setting(const struct kdf_target *t, const uint8_t *salt, size_t salt_len,
                   char *out, size_t cap)
{
    const char *prefix = kdf_xcrypt_prefix(t->xcrypt);
    int saved_errno = errno;
    const char *r;

    if (prefix == NULL || salt == NULL || salt_len < 16 || salt_len > 64 || cap < 2)
        return KDF_RANGE;
    errno = 0;
    r = crypt_gensalt_rn(prefix, t->cost, (const char *)salt, (int)salt_len, out, (int)cap);
    errno = saved_errno;
    if (r == NULL || out[0] == '*')
        return KDF_UNSUPPORTED; /* a libxcrypt built without that scheme */
    return KDF_OK;
}

enum kdf_status
kdf_legacy_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                const uint8_t *salt, size_t salt_len, char *out, size_t out_cap)
{
    struct crypt_data data;
    char phrase[CRYPT_MAX_PASSPHRASE_SIZE];
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    const char *res;
    size_t rlen;
    enum kdf_status st;
    int saved_errno = errno;

    /* A NUL inside the password would cut what crypt(3) reads: the new
     * hash would not be of the password that was typed. */
    if (pw_len >= CRYPT_MAX_PASSPHRASE_SIZE)
        return KDF_TOO_COSTLY;
    if (pw_len != 0 && memchr(pw, '\0', pw_len) != NULL)
        return KDF_RANGE;
    st = kdf_xcrypt_setting(t, salt, salt_len, setting, sizeof setting);
    if (st != KDF_OK)
        return st;
    if (pw_len != 0)
        memcpy(phrase, pw, pw_len);
    phrase[pw_len] = '\0';
    st = run_crypt(phrase, setting, &data, &res, &rlen);
    if (st == KDF_OK) {
        if (rlen == 0 || res[0] == '*')
            st = KDF_INTERNAL;
        else if (rlen >= out_cap || rlen > KDF_MAX_HASH_STR)
            st = KDF_RANGE;
        else {
            memcpy(out, res, rlen + 1);
            st = KDF_OK;
        }
    }
    kdf_wipe(&data, sizeof data);
    kdf_wipe(phrase, sizeof phrase);
    errno = saved_errno;
    return st;
}

/* ---- grammar: recognised, validated lightly; crypt_rn() parses strictly ---- */
static enum kdf_status
crypt_parse(const char *s, size_t len, size_t plen, struct kdf_hash *h, const char **why)
{
    if (s[0] == '_' && (len != 20 || !kdf_crypt64_ok(s + 1, 19)))
        return kdf_fail(why, KDF_MALFORMED, "bsdi: not _ and 19 crypt64 characters");
    if (len <= plen)
        return kdf_fail(why, KDF_MALFORMED, "legacy: nothing after the prefix");
    /* libxcrypt check_badsalt_chars(): only 0x21..0x7e, none of :;!*\ */
    if (!kdf_all_in(s, len, KDF_C_LEGACY))
        return kdf_fail(why, KDF_MALFORMED, "legacy: bad character");
    h->scheme = KDF_SCHEME_LEGACY;
    h->prefix = (struct kdf_span){s, plen};
    return KDF_OK;
}

/* BSDi extended DES ('_' + 4 count + 4 salt + 11 hash characters) and
 * traditional DES (2 salt + 11 hash characters, no prefix). */
static int
crypt_claim(const char *s, size_t len, size_t *plen)
{
    if (len > 0 && s[0] == '_') {
        *plen = 1;
        return 1;
    }
    *plen = 0;
    return len == 13 && kdf_crypt64_ok(s, 13);
}

/* Opaque to us: what was stored is what is written back. */
static enum kdf_status
crypt_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    if (h->whole.len == 0)
        return KDF_RANGE;
    kdf_put_span(b, &h->whole);
    return KDF_OK;
}

static int
crypt_alphabet(const struct kdf_hash *h, int digest)
{
    (void)h;
    (void)digest;
    return -2;
}

/* The memory libxcrypt will map for setting (scrypt and yescrypt only),
 * taken from the machine-wide budget first, as Argon2 and our scrypt take
 * theirs: a burst of logins on "$y$" entries must wait or be refused like
 * one on Argon2 entries, not all map at once.  *fd is what to give back. */
static enum kdf_status
xcrypt_gate_take(const char *setting, size_t n, const struct kdf_policy *pol, int *fd)
{
    struct kdf_xcrypt_cost c;

    *fd = -1;
    if (kdf_xcrypt_cost(setting, n, &c) != 0 || c.mem_kib == 0)
        return KDF_OK; /* no memory to speak of, or refused by the caps */
    return kdf_memgate_take(c.mem_kib, pol != NULL ? pol->max_memory_kib : KDF_MEMGATE_AUTO,
                            pol != NULL ? pol->memory_wait_ms : 0,
                            pol != NULL && pol->mem_admin != 0, fd);
}

static enum kdf_status
crypt_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
             const struct kdf_policy *pol, void *work, size_t work_sz)
{
    enum kdf_status st;
    int gate;

    (void)work;
    (void)work_sz;
    if (h == NULL || h->whole.ptr == NULL)
        return kdf_legacy_verify(pw, pw_len, h); /* its refusal */
    st = xcrypt_gate_take(h->whole.ptr, h->whole.len, pol, &gate);
    if (st != KDF_OK)
        return st;
    st = kdf_legacy_verify(pw, pw_len, h);
    kdf_memgate_give(gate);
    return st;
}

static enum kdf_status
crypt_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
           const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
           size_t cap)
{
    static const uint8_t zero[16];
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    enum kdf_status st;
    int gate = -1;

    /* The setting's cost does not depend on the salt. */
    if (t != NULL && kdf_xcrypt_setting(t, zero, sizeof zero, setting, sizeof setting) == KDF_OK) {
        st = xcrypt_gate_take(setting, strlen(setting), pol, &gate);
        if (st != KDF_OK)
            return st;
    }
    st = kdf_legacy_hash(pw, pw_len, t, salt, salt_len, out, cap);
    kdf_memgate_give(gate);
    return st;
}

/* The crypt(3) prefix, printable and short ("$6$", "_", "des"). */
static void
crypt_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    char pfx[16];
    size_t n = h->prefix.len, j = 0;

    if (n == 0 || h->prefix.ptr == NULL) {
        memcpy(pfx, "des", 4);
    } else {
        if (n > 8)
            n = 8;
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)h->prefix.ptr[i];
            pfx[j++] = (c > 0x20 && c < 0x7f) ? (char)c : '?';
        }
        pfx[j] = '\0';
    }
    snprintf(out, cap, "%sprefix=%s", what == KDF_DESC_FIELDS ? "scheme=legacy " : "", pfx);
}

/* The longest password libxcrypt hashes. */
#define CRYPT_PROBE_MAX CRYPT_MAX_PASSPHRASE_SIZE

/* Whether a verification of pw against h read every bit of every byte,
 * so that hashing the typed pw anew stores the password that verified.
 *
 * The DES family never does: traditional DES and bigcrypt (no prefix) and
 * BSDi's extended DES ('_') shift each byte left by one before use, so
 * "p\xe1ssword" verifies against DES("password") (0xe1 and 0x61 differ in
 * bit 7 only), and traditional DES reads 8 bytes at most.  An upgrade from
 * them could store a typo and lose the real password, whichever of the two
 * was typed: they are never upgraded (a password change replaces them).
 *
 * The other schemes of fixed, small cost (NT, md5crypt...) may stop
 * reading early too: measured rather than tabled, by verifying pw with its
 * last byte changed; a match means the tail was never read.  The costly
 * ones (sha-crypt, yescrypt, scrypt, sha1-crypt, SunMD5) hash every byte. */
static int
crypt_reads_whole(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    struct kdf_xcrypt_cost c;
    char probe[CRYPT_PROBE_MAX];
    enum kdf_status st;

    if (h->prefix.len == 0 || (h->prefix.len == 1 && h->prefix.ptr[0] == '_'))
        return 0;
    if (pw_len == 0 || kdf_xcrypt_cost(h->whole.ptr, h->whole.len, &c) != 1)
        return 1;
    if (pw_len >= sizeof probe)
        return 0; /* libxcrypt refuses such passwords anyway */
    memcpy(probe, pw, pw_len);
    /* Another byte, never NUL (crypt(3) would stop there). */
    probe[pw_len - 1] = probe[pw_len - 1] == 'x' ? 'y' : 'x';
    st = kdf_legacy_verify(probe, pw_len, h);
    kdf_wipe(probe, sizeof probe);
    return st != KDF_OK;
}

/* Iterated schemes (sha-crypt, SM3-crypt, sha1-crypt, SunMD5, BSDi) are
 * capped by max.pbkdf2, the other iteration cap; memory-hard ones
 * (yescrypt, scrypt) like Argon2.  A setting that does not decode is over
 * the caps. */
static const char *
crypt_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    static const struct {
        const char *what, *why;
    } iterated[] = {
        {"sha-crypt rounds", "sha-crypt rounds above max.pbkdf2"},
        {"sha1-crypt rounds", "sha1-crypt rounds above max.pbkdf2"},
        {"SunMD5 rounds", "SunMD5 rounds above max.pbkdf2"},
        {"BSDi rounds", "BSDi rounds above max.pbkdf2"},
    };
    struct kdf_xcrypt_cost c;
    int r = kdf_xcrypt_cost(h->whole.ptr, h->whole.len, &c);

    if (r > 0)
        return NULL;
    if (r < 0)
        return "crypt(3) setting whose cost does not decode";
    if (c.rounds > kdf_pol_bound(pol, &kdf_pkey_max_iterations, 0)) {
        for (size_t i = 0; i < KDF_ARRAY_LEN(iterated); i++)
            if (strcmp(c.what, iterated[i].what) == 0)
                return iterated[i].why;
        return "crypt(3) rounds above max.pbkdf2";
    }
    /* scrypt's p chains run one after the other in libxcrypt (no OpenMP),
     * yescrypt's are lanes: either way Argon2's lane cap is the bound. */
    return kdf_scrypt_like_over_caps(&c, pol, "yescrypt/scrypt p above max.memory-hard p",
                                     "yescrypt/scrypt memory above max.memory-hard m",
                                     "yescrypt/scrypt work (p, t) above max.memory-hard m*t");
}

/* An entry of the target's own crypt(3) scheme is at the target when its
 * cost is: sha-crypt rounds (5000 when the setting names none), yescrypt
 * memory against that of the setting libxcrypt makes for the target. */
static enum kdf_rehash
crypt_vs_target(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    static const uint8_t zero[16];
    const struct kdf_target *tg = &pol->target;
    char setting[192];
    struct kdf_xcrypt_cost have, want;

    if (kdf_xcrypt_cost(h->whole.ptr, h->whole.len, &have) != 0)
        return KDF_REHASH_TOO_CHEAP;
    if (tg->xcrypt != KDF_XCRYPT_YESCRYPT)
        return have.rounds >= tg->cost ? KDF_REHASH_NO : KDF_REHASH_TOO_CHEAP;
    if (kdf_xcrypt_setting(tg, zero, sizeof zero, setting, sizeof setting) != KDF_OK ||
        kdf_xcrypt_cost(setting, strlen(setting), &want) != 0)
        return KDF_REHASH_NO; /* libxcrypt cannot tell: keep what verified */
    return have.mem_kib >= want.mem_kib ? KDF_REHASH_NO : KDF_REHASH_TOO_CHEAP;
}

static const char *
xcrypt_target_check(const struct kdf_target *t, const struct kdf_policy *pol,
                    const char **over)
{
    const struct kdf_scheme_desc *row = kdf_xcrypt_row(t->xcrypt);

    if (row == NULL)
        return "not a crypt(3) target";
    if (t->cost < row->keys[0].lo || t->cost > row->keys[0].hi)
        return t->xcrypt == KDF_XCRYPT_YESCRYPT ? "yescrypt cost outside 1..11"
                                                : "sha-crypt rounds outside 1000..999999999";
    if (t->salt_len < 16 || t->salt_len > 64)
        return "crypt(3) salt outside 16..64 bytes";
    /* The same caps as a stored entry of that scheme. */
    if (t->xcrypt != KDF_XCRYPT_YESCRYPT &&
        t->cost > kdf_pol_bound(pol, &kdf_pkey_max_iterations, 0))
        *over = "sha-crypt rounds above max.pbkdf2";
    return NULL;
}

/* Costs: libxcrypt's defaults (crypt_gensalt(3): yescrypt 5, sha-crypt
 * 5000 rounds). */
static const struct kdf_tkey yescrypt_keys[] = {{"cost", KDF_TF_COST, 1, 11, 0, NULL}};
static const struct kdf_tkey shacrypt_keys[] = {
    {"rounds", KDF_TF_COST, 1000, 999999999, 0, NULL}};

/* libxcrypt's schemes are capped by the memory-hard caps (yescrypt,
 * gost-yescrypt, scrypt $7$) and the iteration cap (sha-crypt rounds). */
static const struct kdf_pkey *const crypt_pkeys[] = {&kdf_pkey_max_memhard,
                                                     &kdf_pkey_max_iterations};

#define XCRYPT_ROW(row, nm, x, prefix, cost_, kind, keys_, what)                          \
    static const char *const row##_prefixes[] = {prefix, NULL};                          \
    const struct kdf_scheme_desc row = {                                                 \
        .name = nm,                                                                      \
        .id = KDF_SCHEME_LEGACY,                                                         \
        .xcrypt = x,                                                                     \
        .summary = what,                                                                 \
        .prefixes = row##_prefixes,                                                      \
        .parse = crypt_parse,                                                            \
        .encode = crypt_encode,                                                          \
        .alphabet = crypt_alphabet,                                                      \
        .describe = crypt_describe,                                                      \
        .verify = crypt_verify,                                                          \
        .hash = crypt_hash,                                                              \
        .reads_whole = crypt_reads_whole,                                                \
        .over_caps = crypt_over_caps,                                                    \
        .vs_target = crypt_vs_target,                                                    \
        .defaults = {.scheme = KDF_SCHEME_LEGACY, .xcrypt = x, .cost = cost_,            \
                     .salt_len = 16},                                                    \
        .cost_kind = kind,                                                               \
        .keys = keys_,                                                                   \
        .nkeys = KDF_ARRAY_LEN(keys_),                                                   \
        .target_check = xcrypt_target_check,                                             \
        .pkeys = crypt_pkeys,                                                            \
        .npkeys = KDF_ARRAY_LEN(crypt_pkeys),                                            \
        .crypt_reads = KDF_CRYPT_ALWAYS,                                                 \
    }

XCRYPT_ROW(kdf_row_yescrypt, "yescrypt", KDF_XCRYPT_YESCRYPT, "$y$", 5, KDF_COST_STEP, yescrypt_keys,
           "yescrypt through libxcrypt (Debian's default since 11)");
XCRYPT_ROW(kdf_row_sha512crypt, "sha512crypt", KDF_XCRYPT_SHA512, "$6$", 5000,
           KDF_COST_LINEAR, shacrypt_keys, "SHA-512-crypt through libxcrypt");
XCRYPT_ROW(kdf_row_sha256crypt, "sha256crypt", KDF_XCRYPT_SHA256, "$5$", 5000,
           KDF_COST_LINEAR, shacrypt_keys, "SHA-256-crypt through libxcrypt");

static const char *const crypt_prefixes[] = {"$1$",    "$3$",   "$7$",   "$gy$",
                                             "$sha1$", "$md5$", "$md5,", NULL};

/* Verified only, never a target: md5crypt, NT, scrypt ($7$), gost-yescrypt,
 * sha1-crypt, SunMD5, BSDi and traditional DES. */
const struct kdf_scheme_desc kdf_row_crypt = {
    .name = "legacy",
    .id = KDF_SCHEME_LEGACY,
    .summary = "other crypt(3) schemes, verified through libxcrypt",
    .prefixes = crypt_prefixes,
    .claim = crypt_claim,
    .parse = crypt_parse,
    .encode = crypt_encode,
    .alphabet = crypt_alphabet,
    .describe = crypt_describe,
    .verify = crypt_verify,
    .reads_whole = crypt_reads_whole,
    .over_caps = crypt_over_caps,
    .pkeys = crypt_pkeys,
    .npkeys = KDF_ARRAY_LEN(crypt_pkeys),
    .crypt_reads = KDF_CRYPT_ALWAYS,
};

/* This file's targets, for kdf_xcrypt_row(): the table lists them too,
 * but the table's file builds on this one, not the other way round. */
static const struct kdf_scheme_desc *const xcrypt_targets[] = {
    &kdf_row_yescrypt, &kdf_row_sha512crypt, &kdf_row_sha256crypt};

const struct kdf_scheme_desc *
kdf_xcrypt_row(enum kdf_xcrypt x)
{
    for (size_t i = 0; i < KDF_ARRAY_LEN(xcrypt_targets); i++)
        if (xcrypt_targets[i]->xcrypt == x && x != KDF_XCRYPT_NONE)
            return xcrypt_targets[i];
    return NULL;
}
