/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_bcrypt.c - the bcrypt hash strings $2a$ $2b$ $2x$ $2y$: their
 * grammar, verify and hash with exactly crypt_blowfish/libxcrypt's
 * semantics, and the scheme's row in the table.
 *
 *   $2b$ / $2y$  correct handling of 8-bit passwords (OpenBSD 2014 / PHP)
 *   $2a$         correct, plus the anti-collision countermeasure
 *   $2x$         the pre-2011 sign-extension bug, for old hashes only
 *
 * The password: bcrypt takes a C string, so a password containing a NUL
 * byte would be used up to that first NUL, which is what crypt_rn() sees
 * when handed the same bytes: "\0abc" would hash as the empty password
 * (CVE-2024-3096 in PHP's password_verify is that pattern).  hash and
 * verify refuse such a password (KDF_RANGE), as pyca/bcrypt raises
 * ValueError: no caller can have meant it, and a verification that matched
 * the prefix would let an upgrade store the whole, wrong, password.  At
 * most 72 bytes count (the key schedule consumes
 * 72 bytes cycling through the password and its terminating NUL, so a
 * password of 72 bytes or more is cut at 72 and its NUL plays no part).
 * Longer passwords are not refused here: api_kdf.c has already applied the
 * policy's length cap.
 *
 * Output: the 24-byte ciphertext is serialised big-endian and only 23 bytes
 * are kept and encoded (31 characters), for compatibility with the original
 * OpenBSD code.  The digest is compared as those 23 decoded bytes, in
 * constant time.
 *
 * Self-test: after every computation the same code runs once more at cost 0
 * (2^0 rounds) on a fixed key and salt and must give a known answer, or the
 * call fails closed with KDF_INTERNAL.  Like libxcrypt's, it serves two ends:
 * a miscompiled build (or a bad CPU) cannot produce hashes nobody else can
 * verify, and the second run from the same scope overwrites the stack slots
 * the real run spilled its secrets to (the struct itself is also wiped).  It
 * costs 3 ExpandKey passes plus 192 block encryptions (1,755 encryptions
 * against 2.1 million at cost 10), well below the 1% of a hash we allow it
 * (bench/bench_bcrypt.c measures its share).
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "alg_blowfish.h"
#include "hstr.h"
#include "kdf_scheme.h"

#define BCRYPT_SALT_BYTES 16
#define BCRYPT_RAW_BYTES 24    /* six ciphertext words */
#define BCRYPT_DIGEST_BYTES 23 /* what the string keeps */
#define BCRYPT_SETTING_LEN 7   /* "$2b$NN$" */
#define BCRYPT_SALT_CHARS 22
#define BCRYPT_DIGEST_CHARS 31
#define BCRYPT_STR_LEN (BCRYPT_SETTING_LEN + BCRYPT_SALT_CHARS + BCRYPT_DIGEST_CHARS)
#define BCRYPT_MIN_COST 4
#define BCRYPT_MAX_COST 31

/*
 * Self-test vectors.  Expected words computed with passlib's pure-Python
 * Blowfish engine (passlib.crypto._blowfish, an independent implementation)
 * at log_rounds 0, the $2a$/$2x$ key expansions modelled on top of it; the
 * same model agrees with Debian's libxcrypt at cost 4 for these keys.
 *   key A "\xff\xb5kd\xc4fha\xff\xff\xd2": its high bytes after the first
 *         of a word are all preceded by 0xff, so the buggy and correct
 *         expansions coincide and $2a$'s countermeasure fires;
 *   key B "k\xe4\xa3df\xb7": the sign extension changes the expansion, so
 *         $2x$ differs from $2b$.
 * $2b$/$2y$ and $2a$ run key A, $2x$ runs key B: each minor's special path
 * is exercised by its own self-test.
 */
static const char selftest_key_a[] = "\377\265kd\304fha\377\377\322";
static const char selftest_key_b[] = "k\344\243df\267";
static const uint32_t selftest_salt[4] = {
    0x6b646668, 0x61736820, 0x73656c66, 0x74657374, /* "kdfhash selftest" */
};
static const uint32_t selftest_want_b[6] = {
    0x88a47477, 0x19ee122c, 0x6e801aa1, 0x496ab2b8, 0xd9903e5f, 0x80e62fb1,
};
static const uint32_t selftest_want_a[6] = {
    0x910934de, 0xf63a98e4, 0x087bdcef, 0x6f918cdf, 0x472314fd, 0x4b1c5fde,
};
static const uint32_t selftest_want_x[6] = {
    0x902c9382, 0xa570b4c5, 0xece75474, 0x59d42c66, 0x0e6796d0, 0xb8e249f5,
};

/* Key-setup flags of a minor; -1 for an unknown one. */
static int
minor_flags(char minor)
{
    switch (minor) {
    case 'a':
        return (int)KDF_BF_FLAG_SAFETY;
    case 'b':
    case 'y':
        return 0;
    case 'x':
        return (int)KDF_BF_FLAG_BUG;
    default:
        return -1;
    }
}

/*
 * bcrypt of (pw, pw_len) with 16 salt bytes: the 23 digest bytes into out.
 * All secrets live in this frame and are wiped before it returns.
 */
static enum kdf_status
bcrypt_raw(const char *pw, size_t pw_len, unsigned flags, uint32_t cost,
           const uint8_t salt[BCRYPT_SALT_BYTES], uint8_t out[BCRYPT_DIGEST_BYTES])
{
    struct kdf_bf_ctx ctx;
    char key[KDF_BF_KEY_BYTES + 1];
    uint32_t words[6];
    uint8_t raw[BCRYPT_RAW_BYTES];
    uint32_t sw[4];
    const uint32_t *want;
    const char *nul;
    size_t n;
    int bad;

    /* The C string crypt_rn() would see, cut to the 72 bytes that count. */
    n = pw_len < KDF_BF_KEY_BYTES ? pw_len : KDF_BF_KEY_BYTES;
    nul = n != 0 ? memchr(pw, '\0', n) : NULL;
    if (nul != NULL)
        n = (size_t)(nul - pw);
    memset(key, 0, sizeof key);
    if (n != 0)
        memcpy(key, pw, n);

    for (size_t i = 0; i < 4; i++)
        sw[i] = kdf_load32_be(salt + 4 * i);

    kdf_bf_bcrypt(&ctx, key, flags, sw, cost, words);
    for (size_t i = 0; i < 6; i++)
        kdf_store32_be(raw + 4 * i, words[i]);
    memcpy(out, raw, BCRYPT_DIGEST_BYTES);

    /* Self-test from the same scope, into the same ctx (see the top). */
    if (flags & KDF_BF_FLAG_BUG) {
        kdf_bf_bcrypt(&ctx, selftest_key_b, flags, selftest_salt, 0, words);
        want = selftest_want_x;
    } else {
        kdf_bf_bcrypt(&ctx, selftest_key_a, flags, selftest_salt, 0, words);
        want = (flags & KDF_BF_FLAG_SAFETY) ? selftest_want_a : selftest_want_b;
    }
    bad = memcmp(words, want, sizeof words) != 0;

    kdf_wipe(&ctx, sizeof ctx);
    kdf_wipe(key, sizeof key);
    kdf_wipe(raw, sizeof raw);
    kdf_wipe(words, sizeof words);
    if (bad) {
        kdf_wipe(out, BCRYPT_DIGEST_BYTES);
        return KDF_INTERNAL;
    }
    return KDF_OK;
}

/* ---- grammar: $2[abxy]$NN$ + 22 salt + 31 digest characters ---- */

/* The 6-bit value of a character of the bcrypt alphabet (already checked):
 * only the spare bits of the last salt and digest characters are read. */
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

static enum kdf_status
bcrypt_parse(const char *s, size_t len, size_t plen, struct kdf_hash *h, const char **why)
{
    unsigned cost;

    (void)plen; /* "$2" + minor + "$": 4 */
    if (minor_flags(s[2]) < 0)
        return kdf_fail(why, KDF_UNSUPPORTED, "bcrypt: unknown minor version");
    if (len < 7 || (unsigned)(s[4] - '0') > 9 || (unsigned)(s[5] - '0') > 9 ||
        s[6] != '$')
        return kdf_fail(why, KDF_MALFORMED, "bcrypt: cost is not two digits");
    cost = (unsigned)(s[4] - '0') * 10 + (unsigned)(s[5] - '0');
    if (cost < BCRYPT_MIN_COST || cost > BCRYPT_MAX_COST)
        return kdf_fail(why, KDF_MALFORMED, "bcrypt: cost outside 04..31");
    if (len != BCRYPT_STR_LEN)
        return kdf_fail(why, KDF_MALFORMED, "bcrypt: length is not 60");
    if (!kdf_crypt64_ok(s + 7, 53))
        return kdf_fail(why, KDF_MALFORMED, "bcrypt: bad salt or digest character");
    /* Canonical spare bits: the 22nd salt character carries 4 unused bits
     * and the 31st digest character 2.  crypt_blowfish ignores them when
     * decoding but writes them cleared, so under pam_unix's string compare
     * a hash with non-zero spare bits never verified: refusing it locks
     * nobody out and keeps one spelling per hash (else a one-character
     * variant of a valid hash would verify). */
    if (bcrypt64_val(s[28]) & 0x0f)
        return kdf_fail(why, KDF_MALFORMED, "bcrypt: salt is not canonical");
    if (bcrypt64_val(s[59]) & 0x03)
        return kdf_fail(why, KDF_MALFORMED, "bcrypt: digest is not canonical");
    h->scheme = KDF_SCHEME_BCRYPT;
    h->bcrypt_minor = s[2];
    h->cost = cost;
    h->salt = (struct kdf_span){s + 7, BCRYPT_SALT_CHARS};
    h->digest = (struct kdf_span){s + 29, BCRYPT_DIGEST_CHARS};
    h->salt_len = BCRYPT_SALT_BYTES;
    h->dk_len = BCRYPT_DIGEST_BYTES; /* 23 of the 24 bytes (bug-compatible) */
    return KDF_OK;
}

static enum kdf_status
bcrypt_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    char two[2];

    if (minor_flags(h->bcrypt_minor) < 0 || h->cost > 99)
        return KDF_RANGE;
    KDF_PUT(b, "$2");
    kdf_put(b, &h->bcrypt_minor, 1);
    two[0] = (char)('0' + h->cost / 10);
    two[1] = (char)('0' + h->cost % 10);
    KDF_PUT(b, "$");
    kdf_put(b, two, 2);
    KDF_PUT(b, "$");
    kdf_put_span(b, &h->salt);
    kdf_put_span(b, &h->digest);
    return KDF_OK;
}

static int
bcrypt_alphabet(const struct kdf_hash *h, int digest)
{
    (void)h;
    (void)digest;
    return KDF_B64_BCRYPT;
}

static enum kdf_status
bcrypt_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
              const struct kdf_policy *pol, void *work, size_t work_sz)
{
    uint8_t salt[KDF_MAX_SALT];
    uint8_t want[KDF_MAX_DIGEST];
    uint8_t got[BCRYPT_DIGEST_BYTES];
    size_t salt_len = 0, dig_len = 0;
    enum kdf_status st;
    int flags;

    (void)pol;
    (void)work;
    (void)work_sz;
    if (h == NULL || (pw == NULL && pw_len != 0) || h->scheme != KDF_SCHEME_BCRYPT)
        return KDF_RANGE;
    if (pw == NULL)
        pw = "";
    if (pw_len != 0 && memchr(pw, '\0', pw_len) != NULL)
        return KDF_RANGE;
    flags = minor_flags(h->bcrypt_minor);
    if (flags < 0)
        return KDF_UNSUPPORTED;
    if (h->cost < BCRYPT_MIN_COST || h->cost > BCRYPT_MAX_COST)
        return KDF_MALFORMED;

    /* The decode is lenient about the spare low bits of the last
     * character, as libxcrypt is (the parser has refused non-zero ones). */
    st = kdf_span_decode(&kdf_row_bcrypt, h, 0, salt, sizeof salt, &salt_len);
    if (st == KDF_OK && salt_len != BCRYPT_SALT_BYTES)
        st = KDF_MALFORMED;
    if (st == KDF_OK)
        st = kdf_span_decode(&kdf_row_bcrypt, h, 1, want, sizeof want, &dig_len);
    if (st == KDF_OK && dig_len != BCRYPT_DIGEST_BYTES)
        st = KDF_MALFORMED;
    if (st == KDF_OK)
        st = bcrypt_raw(pw, pw_len, (unsigned)flags, h->cost, salt, got);
    if (st == KDF_OK)
        st = kdf_ct_eq(got, want, BCRYPT_DIGEST_BYTES) == 0 ? KDF_OK : KDF_MISMATCH;

    kdf_wipe(got, sizeof got);
    kdf_wipe(want, sizeof want);
    kdf_wipe(salt, sizeof salt);
    return st;
}

static void
bcrypt_fill(const struct kdf_target *t, struct kdf_hash *h)
{
    h->scheme = KDF_SCHEME_BCRYPT;
    h->bcrypt_minor = t->bcrypt_minor != '\0' ? t->bcrypt_minor : 'b';
    h->cost = t->cost;
    h->salt_len = BCRYPT_SALT_BYTES; /* the format fixes both */
    h->dk_len = BCRYPT_DIGEST_BYTES;
}

static enum kdf_status
bcrypt_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
            const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
            size_t cap)
{
    uint8_t dig[BCRYPT_DIGEST_BYTES];
    enum kdf_status st;
    int flags;

    (void)pol;
    if (t == NULL || out == NULL || cap == 0 || salt == NULL ||
        t->scheme != KDF_SCHEME_BCRYPT)
        return KDF_RANGE;
    out[0] = '\0';
    if (pw_len != 0 && (pw == NULL || memchr(pw, '\0', pw_len) != NULL))
        return KDF_RANGE; /* it would hash only the bytes before the NUL */
    flags = minor_flags(t->bcrypt_minor != '\0' ? t->bcrypt_minor : 'b');
    if (flags < 0)
        return KDF_UNSUPPORTED;
    if (t->cost < BCRYPT_MIN_COST || t->cost > BCRYPT_MAX_COST ||
        salt_len != BCRYPT_SALT_BYTES)
        return KDF_RANGE;
    st = bcrypt_raw(pw, pw_len, (unsigned)flags, t->cost, salt, dig);
    /* The salt is written canonically (zero spare bits), as libxcrypt
     * writes it. */
    if (st == KDF_OK)
        st = kdf_spell(&kdf_row_bcrypt, t, salt, salt_len, dig, sizeof dig, out, cap);
    kdf_wipe(dig, sizeof dig);
    return st;
}

/* bcrypt reads at most 72 bytes of a password. */
int
kdf_bcrypt_reads_whole(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    (void)pw;
    (void)h;
    return pw_len <= KDF_BCRYPT_MAX_PW;
}

static void
bcrypt_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=bcrypt minor=%c cost=%u salt_len=%u digest_len=%u",
                 h->bcrypt_minor, (unsigned)h->cost, (unsigned)h->salt_len,
                 (unsigned)h->dk_len);
    else if (what == KDF_DESC_PARAMS)
        snprintf(out, cap, "minor=%c,cost=%u", h->bcrypt_minor, (unsigned)h->cost);
    else
        snprintf(out, cap, "cost=%u", (unsigned)h->cost);
}

/* ---- policy ---- */
/* The minimum: 12, the default target's cost (OWASP asks for 10 at least;
 * a site choosing bcrypt today picks 12).  The cap: 16, a few seconds. */
static const struct kdf_pkey bcrypt_min =
    KDF_PKEY_BOUND("min.bcrypt", KDF_PR_COST_MIN, KDF_TF_COST, KDF_SCHEME_BCRYPT, 0,
                   BCRYPT_MIN_COST, BCRYPT_MAX_COST, 12);
static const struct kdf_pkey bcrypt_max =
    KDF_PKEY_BOUND("max.bcrypt", KDF_PR_CAP, KDF_TF_COST, KDF_SCHEME_BCRYPT, 1,
                   BCRYPT_MIN_COST, BCRYPT_MAX_COST, 16);

const char *
kdf_bcrypt_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    return h->cost > kdf_pol_bound(pol, &bcrypt_max, 0) ? "bcrypt cost above max.bcrypt"
                                                         : NULL;
}

/* $2x$ keeps crypt_blowfish's sign-extension bug (CVE-2011-2483): its
 * 8-bit passwords collide, whatever the cost. */
static enum kdf_rehash
bcrypt_flaw(const struct kdf_hash *h, const struct kdf_policy *pol, int accepted)
{
    (void)pol;
    (void)accepted;
    return h->bcrypt_minor == 'x' ? KDF_REHASH_BUGGY : KDF_REHASH_NO;
}

int
kdf_bcrypt_below_min(const struct kdf_hash *h, const struct kdf_policy *pol,
                 const struct kdf_target *tg)
{
    (void)tg;
    return h->cost < kdf_pol_bound(pol, &bcrypt_min, 0);
}

static enum kdf_rehash
bcrypt_vs_target(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    return h->cost >= pol->target.cost ? KDF_REHASH_NO : KDF_REHASH_TOO_CHEAP;
}

/* 2^cost rounds of the expensive key schedule. */
static uint64_t
bcrypt_work(const struct kdf_hash *h)
{
    return h->cost < 64 ? (uint64_t)1 << h->cost : UINT64_MAX;
}

static const char *
bcrypt_target_check(const struct kdf_target *t, const struct kdf_policy *pol,
                    const char **over)
{
    /* The target text refuses $2x$ (the sign-extension bug,
     * CVE-2011-2483); the API still makes it, for known answers. */
    if (minor_flags(t->bcrypt_minor) < 0)
        return "bcrypt minor must be a, b, x or y";
    if (t->cost < BCRYPT_MIN_COST || t->cost > BCRYPT_MAX_COST)
        return "bcrypt cost outside 4..31";
    if (t->salt_len != BCRYPT_SALT_BYTES && t->salt_len != 0)
        return "bcrypt salt is 16 bytes";
    if (t->dk_len != BCRYPT_DIGEST_BYTES && t->dk_len != 0)
        return "bcrypt digest is 23 bytes";
    if (t->cost > kdf_pol_bound(pol, &bcrypt_max, 0))
        *over = "bcrypt cost above max.bcrypt";
    return NULL;
}

/* A target text never makes $2x$ (the sign-extension bug, CVE-2011-2483). */
static const struct kdf_tword bcrypt_minors[] = {{"b", 'b'}, {"a", 'a'}, {"y", 'y'}, {NULL, 0}};
static const struct kdf_tkey bcrypt_keys[] = {
    {"cost", KDF_TF_COST, BCRYPT_MIN_COST, BCRYPT_MAX_COST, 0, NULL},
    {"minor", KDF_TF_MINOR, 0, 0, 0, bcrypt_minors},
};

static const char *const bcrypt_prefixes[] = {"$2a$", "$2b$", "$2x$", "$2y$", NULL};

const struct kdf_pkey *const kdf_bcrypt_pkeys[KDF_BCRYPT_NPKEYS] = {&bcrypt_min, &bcrypt_max};

/* Defaults: OWASP Password Storage Cheat Sheet (2023) asks for 10 at
 * least; 12 is what a site choosing bcrypt today picks. */
const struct kdf_scheme_desc kdf_row_bcrypt = {
    .name = "bcrypt",
    .id = KDF_SCHEME_BCRYPT,
    .summary = "bcrypt $2a$ $2b$ $2x$ $2y$ (crypt_blowfish semantics)",
    .prefixes = bcrypt_prefixes,
    .parse = bcrypt_parse,
    .encode = bcrypt_encode,
    .alphabet = bcrypt_alphabet,
    .describe = bcrypt_describe,
    .verify = bcrypt_verify,
    .hash = bcrypt_hash,
    .fill = bcrypt_fill,
    .reads_whole = kdf_bcrypt_reads_whole,
    .over_caps = kdf_bcrypt_over_caps,
    .flaw = bcrypt_flaw,
    .below_min = kdf_bcrypt_below_min,
    .vs_target = bcrypt_vs_target,
    .work = bcrypt_work,
    .defaults = {.scheme = KDF_SCHEME_BCRYPT, .bcrypt_minor = 'b', .cost = 12,
                 .salt_len = BCRYPT_SALT_BYTES, .dk_len = BCRYPT_DIGEST_BYTES},
    .cost_kind = KDF_COST_STEP,
    .recommended = 1,
    .keys = bcrypt_keys,
    .nkeys = KDF_ARRAY_LEN(bcrypt_keys),
    .target_check = bcrypt_target_check,
    .pkeys = kdf_bcrypt_pkeys,
    .npkeys = KDF_BCRYPT_NPKEYS,
    .crypt_reads = KDF_CRYPT_ASK,
    .ds_family = "BCRYPT",
    .ds_base = 1,
};
