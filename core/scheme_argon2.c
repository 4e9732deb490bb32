/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_argon2.c - the Argon2 schemes: the PHC string grammar, verify,
 * hash, the policy's view of their costs and their three rows in the scheme
 * table.
 *
 * A PHC string $argon2{d,i,id}$v=19$m=..,t=..,p=..[,keyid=..][,data=..]$salt$tag
 * carries data= as Argon2's associated data X (the reference's encoding.c
 * does the same) and keyid= the name of a key whose bytes are Argon2's
 * secret value K (RFC 9106 section 3.1), asked of the policy's keyring: a
 * keyed hash whose key is not at hand is KDF_NOKEY, never verified without
 * it.  A hash is made keyed when the policy has a pepper.  The tag is
 * recomputed with the stored length and compared with kdf_ct_eq().  Every
 * secret buffer (the key's copy too) is wiped on every path.
 */
#include "kdf_prelude.h"
#if defined(KDF_TEST_HOOKS) || defined(KDF_CORE_BUILD)
#include "kdf_testing.h"
#endif

#include <stdio.h>

#include "alg_argon2.h"
#include "hstr.h"
#include "kdf_scheme.h"

/* data= is bounded by the longest string we accept. */
#define MAX_AD (KDF_MAX_HASH_STR / 4 * 3 + 3)

static int scheme_type(enum kdf_scheme s, enum kdf_argon2_type *t);

static int
scheme_type_ok(enum kdf_scheme s)
{
    enum kdf_argon2_type t;
    return scheme_type(s, &t);
}

static int
scheme_type(enum kdf_scheme s, enum kdf_argon2_type *t)
{
    switch (s) {
    case KDF_SCHEME_ARGON2D:
        *t = KDF_ARGON2_D;
        return 0;
    case KDF_SCHEME_ARGON2I:
        *t = KDF_ARGON2_I;
        return 0;
    case KDF_SCHEME_ARGON2ID:
        *t = KDF_ARGON2_ID;
        return 0;
    default:
        return -1;
    }
}

extern const struct kdf_scheme_desc kdf_row_argon2id, kdf_row_argon2i, kdf_row_argon2d;

/* The row of an Argon2 variant (the caller has checked it is one). */
static const struct kdf_scheme_desc *
argon2_row(enum kdf_scheme s)
{
    return s == KDF_SCHEME_ARGON2ID  ? &kdf_row_argon2id
           : s == KDF_SCHEME_ARGON2I ? &kdf_row_argon2i
                                     : &kdf_row_argon2d;
}

/* ---- grammar (PHC string format, the reference's src/encoding.c) ----
 * $argon2X$[v=16$|v=19$]m=M,t=T,p=P[,keyid=K][,data=D]$salt$tag */
static enum kdf_status
argon2_parse(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    uint32_t v, m, t, p, n;
    size_t end;

    h->scheme = s[7] == 'i' && s[8] == 'd' ? KDF_SCHEME_ARGON2ID
                : s[7] == 'i'              ? KDF_SCHEME_ARGON2I
                                           : KDF_SCHEME_ARGON2D;
    h->version = 0x10; /* no "v=": the reference's reading (libsodium refuses) */
    if (KDF_HAS("v=")) {
        pos += 2;
        if (!kdf_dec_u32(s, len, &pos, &v))
            return kdf_fail(why, KDF_MALFORMED, "argon2: bad version number");
        if (!KDF_HAS("$"))
            return kdf_fail(why, KDF_MALFORMED, "argon2: '$' expected after version");
        /* A well-formed version we do not know: another variant, not junk. */
        if (v != 0x10 && v != 0x13)
            return kdf_fail(why, KDF_UNSUPPORTED, "argon2: version not 16 or 19");
        pos++;
        h->version = v;
        h->flags |= KDF_HF_ARGON2_V_PRESENT;
    }
    /* Fixed order m, t, p (PHC string format). */
    if (!KDF_HAS("m="))
        return kdf_fail(why, KDF_MALFORMED, "argon2: m= expected");
    pos += 2;
    if (!kdf_dec_u32(s, len, &pos, &m))
        return kdf_fail(why, KDF_MALFORMED, "argon2: bad m");
    if (!KDF_HAS(",t="))
        return kdf_fail(why, KDF_MALFORMED, "argon2: ,t= expected");
    pos += 3;
    if (!kdf_dec_u32(s, len, &pos, &t))
        return kdf_fail(why, KDF_MALFORMED, "argon2: bad t");
    if (!KDF_HAS(",p="))
        return kdf_fail(why, KDF_MALFORMED, "argon2: ,p= expected");
    pos += 3;
    if (!kdf_dec_u32(s, len, &pos, &p))
        return kdf_fail(why, KDF_MALFORMED, "argon2: bad p");
    /* RFC 9106 section 3.1: p in 1..2^24-1, m >= 8p KiB, t >= 1. */
    if (t < 1)
        return kdf_fail(why, KDF_MALFORMED, "argon2: t is 0");
    if (p < 1 || p > 0xffffffu)
        return kdf_fail(why, KDF_MALFORMED, "argon2: p outside 1..2^24-1");
    if ((uint64_t)m < 8u * (uint64_t)p)
        return kdf_fail(why, KDF_MALFORMED, "argon2: m below 8*p");
    /* Optional keyid and data, in that order (the older reference's
     * limits: keyid <= 8, data <= 32 bytes). */
    if (KDF_HAS(",keyid=")) {
        pos += 7;
        for (end = pos; end < len && s[end] != ',' && s[end] != '$'; end++)
            ;
        if (!kdf_b64_field(s, pos, end, KDF_B64_STD, 1, 8, &h->keyid, NULL))
            return kdf_fail(why, KDF_MALFORMED, "argon2: bad keyid");
        pos = end;
    }
    if (KDF_HAS(",data=")) {
        pos += 6;
        for (end = pos; end < len && s[end] != ',' && s[end] != '$'; end++)
            ;
        if (!kdf_b64_field(s, pos, end, KDF_B64_STD, 1, 32, &h->data, NULL))
            return kdf_fail(why, KDF_MALFORMED, "argon2: bad data");
        pos = end;
    }
    if (!KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "argon2: '$' expected after parameters");
    pos++;
    end = kdf_field_end(s, len, pos);
    if (end == len)
        return kdf_fail(why, KDF_MALFORMED, "argon2: tag missing");
    if (!kdf_b64_field(s, pos, end, KDF_B64_STD, 8, KDF_MAX_SALT, &h->salt, &n))
        return kdf_fail(why, KDF_MALFORMED, "argon2: salt not 8..64 bytes of base64");
    h->salt_len = n;
    pos = end + 1;
    /* The tag runs to the end: anything trailing is a bad character. */
    if (!kdf_b64_field(s, pos, len, KDF_B64_STD, 4, KDF_MAX_DIGEST, &h->digest, &n))
        return kdf_fail(why, KDF_MALFORMED, "argon2: tag not 4..64 bytes of base64");
    h->dk_len = n;
    h->m_kib = m;
    h->cost = t;
    h->lanes = p;
    return KDF_OK;
}

static enum kdf_status
argon2_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    if (scheme_type_ok(h->scheme) != 0)
        return KDF_RANGE;
    KDF_PUT(b, "$");
    kdf_put(b, argon2_row(h->scheme)->name, strlen(argon2_row(h->scheme)->name));
    /* The version is written when it was (round trip) and always when it
     * is not the 0x10 that a missing "v=" stands for. */
    if ((h->flags & KDF_HF_ARGON2_V_PRESENT) || h->version != 0x10) {
        KDF_PUT(b, "$v=");
        kdf_put_u32(b, h->version);
    }
    KDF_PUT(b, "$m=");
    kdf_put_u32(b, h->m_kib);
    KDF_PUT(b, ",t=");
    kdf_put_u32(b, h->cost);
    KDF_PUT(b, ",p=");
    kdf_put_u32(b, h->lanes);
    if (h->keyid.len != 0) {
        KDF_PUT(b, ",keyid=");
        kdf_put_span(b, &h->keyid);
    }
    if (h->data.len != 0) {
        KDF_PUT(b, ",data=");
        kdf_put_span(b, &h->data);
    }
    kdf_put_salt_digest(b, h);
    return KDF_OK;
}

static void
set_policy_args(struct kdf_argon2_args *a, const struct kdf_policy *pol)
{
    a->max_threads = pol != NULL ? pol->max_threads : 0;
    a->mem_budget_kib = pol != NULL ? pol->max_memory_kib : KDF_MEMGATE_AUTO;
    a->mem_wait_ms = pol != NULL ? pol->memory_wait_ms : 0;
    a->mem_admin = pol != NULL ? pol->mem_admin : 0;
}

/* The secret of key id[0..n) for salt from pol's keyring into key, or
 * KDF_NOKEY. */
static enum kdf_status
argon2_key(const struct kdf_policy *pol, const char *id, size_t n, const uint8_t *salt,
           size_t salt_len, uint8_t *key, size_t *key_len)
{
    struct kdf_key_request rq = {id, n, salt, salt_len};
    enum kdf_status st;

    *key_len = 0;
    if (pol == NULL || pol->keys == NULL || pol->keys->get == NULL ||
        !kdf_keyid_valid(id, n))
        return KDF_NOKEY;
    st = pol->keys->get(pol->keys->ctx, &rq, key, key_len);
    if (st == KDF_OK && (*key_len < KDF_KEY_MIN || *key_len > KDF_KEY_MAX))
        st = KDF_NOKEY;
    if (st != KDF_OK) {
        kdf_wipe(key, KDF_KEY_MAX);
        *key_len = 0;
        return KDF_NOKEY;
    }
    return KDF_OK;
}

static enum kdf_status
argon2_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
              const struct kdf_policy *pol, void *work, size_t work_sz)
{
    uint8_t salt[KDF_MAX_SALT], want[KDF_MAX_DIGEST], got[KDF_MAX_DIGEST], ad[MAX_AD];
    uint8_t key[KDF_KEY_MAX];
    size_t salt_len = 0, want_len = 0, ad_len = 0, key_len = 0;
    const struct kdf_scheme_desc *row = argon2_row(h->scheme);
    struct kdf_argon2_args a;
    enum kdf_status st;

    memset(&a, 0, sizeof a);
    if (h == NULL || scheme_type(h->scheme, &a.type) != 0)
        return KDF_UNSUPPORTED;
    st = kdf_span_decode(row, h, 0, salt, sizeof salt, &salt_len);
    if (st == KDF_OK)
        st = kdf_span_decode(row, h, 1, want, sizeof want, &want_len);
    if (st == KDF_OK && h->data.len > 0)
        st =
            kdf_b64_decode(KDF_B64_STD, h->data.ptr, h->data.len, ad, sizeof ad, &ad_len);
    if (st == KDF_OK && want_len < 4)
        st = KDF_MALFORMED; /* RFC 9106 section 3.1: T >= 4 */
    if (st == KDF_OK && h->keyid.len > 0)
        st = argon2_key(pol, h->keyid.ptr, h->keyid.len, salt, salt_len, key, &key_len);
    if (st == KDF_OK) {
        a.version = h->version;
        a.t_cost = h->cost;
        a.m_kib = h->m_kib;
        a.lanes = h->lanes;
        set_policy_args(&a, pol);
        a.pw = (const uint8_t *)pw;
        a.pw_len = pw_len;
        a.salt = salt;
        a.salt_len = salt_len;
        a.ad = ad_len > 0 ? ad : NULL;
        a.ad_len = ad_len;
        a.secret = key_len > 0 ? key : NULL;
        a.secret_len = key_len;
        st = kdf_argon2_compute(&a, got, want_len, work, work_sz);
        if (st == KDF_RANGE && work == NULL)
            st = KDF_MALFORMED; /* parameters no Argon2 can take */
    }
    if (st == KDF_OK)
        st = kdf_ct_eq(got, want, want_len) == 0 ? KDF_OK : KDF_MISMATCH;
    kdf_wipe(got, sizeof got);
    kdf_wipe(want, sizeof want);
    kdf_wipe(salt, sizeof salt);
    kdf_wipe(ad, sizeof ad);
    kdf_wipe(key, sizeof key);
    kdf_wipe(&a, sizeof a);
    return st;
}

static void
argon2_fill(const struct kdf_target *t, struct kdf_hash *h)
{
    h->scheme = t->scheme;
    h->flags = KDF_HF_ARGON2_V_PRESENT;
    h->version = t->version == 0 ? 0x13 : t->version;
    h->cost = t->cost;
    h->m_kib = t->m_kib;
    h->lanes = t->lanes;
    h->salt_len = t->salt_len;
    h->dk_len = t->dk_len;
    h->keyid = (struct kdf_span){t->keyid, strnlen(t->keyid, sizeof t->keyid)};
}

static enum kdf_status
argon2_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
            const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
            size_t cap)
{
    uint8_t tag[KDF_MAX_DIGEST], key[KDF_KEY_MAX];
    size_t key_len = 0;
    struct kdf_target kt;
    struct kdf_argon2_args a;
    enum kdf_status st;

    memset(&a, 0, sizeof a);
    if (t == NULL || out == NULL || cap == 0 || scheme_type(t->scheme, &a.type) != 0)
        return KDF_RANGE;
    out[0] = '\0';
    if (t->dk_len < 4 || t->dk_len > KDF_MAX_DIGEST || salt_len == 0 ||
        salt_len > KDF_MAX_SALT || salt == NULL)
        return KDF_RANGE;
    a.version = t->version == 0 ? 0x13 : t->version;
    a.t_cost = t->cost;
    a.m_kib = t->m_kib;
    a.lanes = t->lanes;
    set_policy_args(&a, pol);
    a.pw = (const uint8_t *)pw;
    a.pw_len = pw_len;
    a.salt = salt;
    a.salt_len = salt_len;
    /* pepper = ID: the hash is keyed with key ID and says so (keyid=ID). */
    kt = *t;
    memset(kt.keyid, 0, sizeof kt.keyid);
    st = KDF_OK;
    if (pol != NULL && pol->pepper[0] != '\0') {
        size_t n = strnlen(pol->pepper, sizeof pol->pepper);

        st = argon2_key(pol, pol->pepper, n, salt, salt_len, key, &key_len);
        if (st == KDF_OK)
            memcpy(kt.keyid, pol->pepper, n);
        a.secret = key;
        a.secret_len = key_len;
    }
    if (st == KDF_OK)
        st = kdf_argon2_compute(&a, tag, t->dk_len, NULL, 0);
    if (st == KDF_OK)
        st = kdf_spell(argon2_row(t->scheme), &kt, salt, salt_len, tag, t->dk_len, out,
                       cap);
    kdf_wipe(tag, sizeof tag);
    kdf_wipe(key, sizeof key);
    kdf_wipe(&a, sizeof a);
    return st;
}

static void
argon2_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    unsigned v = (unsigned)h->version; /* 0x10 and 0x13 are the decimals 16 and 19 */

    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap,
                 "scheme=%s version=%u m=%u t=%u p=%u salt_len=%u digest_len=%u%s%.*s%s",
                 argon2_row(h->scheme)->name, v, (unsigned)h->m_kib, (unsigned)h->cost,
                 (unsigned)h->lanes, (unsigned)h->salt_len, (unsigned)h->dk_len,
                 h->keyid.len ? " keyid=" : "", (int)h->keyid.len,
                 h->keyid.len ? h->keyid.ptr : "", h->data.len ? " data=yes" : "");
    else if (what == KDF_DESC_PARAMS) /* the keyid names a key, it is none */
        snprintf(out, cap, "v=%u,m=%u,t=%u,p=%u%s%.*s", v, (unsigned)h->m_kib,
                 (unsigned)h->cost, (unsigned)h->lanes, h->keyid.len ? ",keyid=" : "",
                 (int)h->keyid.len, h->keyid.len ? h->keyid.ptr : "");
    else
        snprintf(out, cap, "m=%u,t=%u,p=%u%s", (unsigned)h->m_kib, (unsigned)h->cost,
                 (unsigned)h->lanes, h->version == 0x10 ? ",v=16" : "");
}

/* ---- policy ---- */
/* The minimum: OWASP's (kdfhash.h).  One key for argon2id, argon2i and
 * argon2d, so in the slots of one of them. */
static const struct kdf_pkey argon2_min =
    KDF_PKEY_MTP("min.argon2", KDF_PR_COST_MIN, KDF_SCHEME_ARGON2ID, 0, KDF_OWASP_ARGON2_M,
                 KDF_OWASP_ARGON2_T, KDF_OWASP_ARGON2_P);

const char *
kdf_argon2_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    if (h->m_kib > kdf_pol_bound(pol, &kdf_pkey_max_memhard, KDF_MTP_M))
        return "argon2 m above max.memory-hard";
    if (h->cost > kdf_pol_bound(pol, &kdf_pkey_max_memhard, KDF_MTP_T))
        return "argon2 t above max.memory-hard";
    if (h->lanes > kdf_pol_bound(pol, &kdf_pkey_max_memhard, KDF_MTP_P))
        return "argon2 p above max.memory-hard";
    return NULL;
}

/* Argon2 1.0 (0x10) overwrote instead of XORing blocks in later passes
 * (RFC 9106 section 3.2 specifies 0x13 only): rewritten when the target is
 * an Argon2 or the scheme is accepted. */
enum kdf_rehash
kdf_argon2_flaw(const struct kdf_hash *h, const struct kdf_policy *pol, int accepted)
{
    if (h->version == 0x10 && (scheme_type_ok(pol->target.scheme) == 0 || accepted))
        return KDF_REHASH_OLD_VERSION;
    return KDF_REHASH_NO;
}

/* Below min.argon2 in a dimension where the target itself (when given)
 * meets the minimum. */
int
kdf_argon2_below_min(const struct kdf_hash *h, const struct kdf_policy *pol,
                 const struct kdf_target *tg)
{
    uint32_t tm = tg ? tg->m_kib : UINT32_MAX, tt = tg ? tg->cost : UINT32_MAX,
             tp = tg ? tg->lanes : UINT32_MAX;
    uint32_t mm = kdf_pol_bound(pol, &argon2_min, KDF_MTP_M),
             mt = kdf_pol_bound(pol, &argon2_min, KDF_MTP_T),
             mp = kdf_pol_bound(pol, &argon2_min, KDF_MTP_P);

    return (h->m_kib < mm && tm >= mm) || (h->cost < mt && tt >= mt) ||
           (h->lanes < mp && tp >= mp);
}

/* The no-downgrade rules for Argon2 (doc/DESIGN.md "Policy"): at least
 * the target in m and t keeps the hash; a "mixed" hash (below in one, above
 * in the other) is rewritten when below an absolute minimum the target
 * meets, or when the target's m*t (the work of one guess, RFC 9106
 * section 4) is at least the hash's.  Lanes are parallelism, not cost. */
static enum kdf_rehash
argon2_vs_target(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    const struct kdf_target *tg = &pol->target;

    if (h->m_kib >= tg->m_kib && h->cost >= tg->cost)
        return KDF_REHASH_NO;
    if (kdf_argon2_below_min(h, pol, tg))
        return KDF_REHASH_TOO_CHEAP;
    if ((uint64_t)h->m_kib * h->cost > (uint64_t)tg->m_kib * tg->cost)
        return KDF_REHASH_NO;
    return KDF_REHASH_TOO_CHEAP;
}

/* KiB times passes: the memory traffic of one verification (lanes only
 * split it across threads). */
static uint64_t
argon2_work(const struct kdf_hash *h)
{
    return (uint64_t)h->m_kib * h->cost;
}

static const char *
argon2_target_check(const struct kdf_target *t, const struct kdf_policy *pol,
                    const char **over)
{
    /* RFC 9106 section 3.1 bounds, narrowed to what we encode: salt
     * 8..64 bytes, tag 4..64. */
    if (t->version != 0x13 && t->version != 0x10)
        return "argon2 version must be 16 or 19";
    if (t->cost < 1)
        return "argon2 t below 1";
    if (t->lanes < 1 || t->lanes > 0xFFFFFFu)
        return "argon2 p outside 1..2^24-1";
    if ((uint64_t)t->m_kib < 8u * (uint64_t)t->lanes)
        return "argon2 m below 8*p KiB";
    if (t->salt_len < 8 || t->salt_len > KDF_MAX_SALT)
        return "argon2 salt outside 8..64 bytes";
    if (t->dk_len < 4 || t->dk_len > KDF_MAX_DIGEST)
        return "argon2 tag outside 4..64 bytes";
    *over = kdf_argon2_over_caps(&(struct kdf_hash){.m_kib = t->m_kib, .cost = t->cost,
                                                    .lanes = t->lanes},
                                 pol);
    return NULL;
}

/* v=19 only: 0x10 is what OLD_VERSION rehashes away, so a target of 16
 * would rewrite its own output at every login. */
static const struct kdf_tkey argon2_keys[] = {
    {"m", KDF_TF_M, 1, UINT32_MAX, 0, NULL},
    {"t", KDF_TF_COST, 1, UINT32_MAX, 0, NULL},
    {"p", KDF_TF_P, 1, 0xFFFFFFu, 0, NULL},
    {"salt", KDF_TF_SALT, 8, KDF_MAX_SALT, 0, NULL},
    {"len", KDF_TF_LEN, 4, KDF_MAX_DIGEST, 0, NULL},
    {"v", KDF_TF_V, 19, 19, KDF_TK_QUIET, NULL},
};

const struct kdf_pkey *const kdf_argon2_pkeys[KDF_ARGON2_NPKEYS] = {&argon2_min,
                                                                    &kdf_pkey_max_memhard};

static uint64_t
argon2_mem_kib(const struct kdf_target *t)
{
    return t->m_kib;
}

/* Defaults: RFC 9106 section 4, second recommended option (64 MiB, t=3,
 * p=4), 16-byte salt, 32-byte tag. */
#define ARGON2_ROW(row, nm, id_, prefix, rec, base, what)                                \
    static const char *const row##_prefixes[] = {prefix, NULL};                          \
    const struct kdf_scheme_desc row = {                                                 \
        .name = nm,                                                                      \
        .id = id_,                                                                       \
        .summary = what,                                                                 \
        .prefixes = row##_prefixes,                                                      \
        .parse = argon2_parse,                                                           \
        .encode = argon2_encode,                                                         \
        .alphabet = kdf_alphabet_std,                                                    \
        .describe = argon2_describe,                                                     \
        .verify = argon2_verify,                                                         \
        .hash = argon2_hash,                                                             \
        .fill = argon2_fill,                                                             \
        .over_caps = kdf_argon2_over_caps,                                                   \
        .flaw = kdf_argon2_flaw,                                                             \
        .below_min = kdf_argon2_below_min,                                                   \
        .vs_target = argon2_vs_target,                                                   \
        .work = argon2_work,                                                             \
        .defaults = {.scheme = id_, .version = 0x13, .cost = 3, .m_kib = 65536,          \
                     .lanes = 4, .salt_len = 16, .dk_len = 32},                          \
        .cost_kind = KDF_COST_MEMORY,                                                    \
        .recommended = rec,                                                              \
        .keys = argon2_keys,                                                             \
        .nkeys = KDF_ARRAY_LEN(argon2_keys),                                             \
        .target_check = argon2_target_check,                                             \
        .default_target = base,                                                          \
        .keyed = 1,                                                                      \
        .mem_kib = argon2_mem_kib,                                                       \
        .pkeys = kdf_argon2_pkeys,                                                       \
        .npkeys = KDF_ARGON2_NPKEYS,                                                     \
        .ds_family = "ARGON2",                                                           \
        .ds_base = base,                                                                 \
    }

ARGON2_ROW(kdf_row_argon2id, "argon2id", KDF_SCHEME_ARGON2ID, "$argon2id$", 1, 1,
           "Argon2id PHC string (RFC 9106), the default target");
ARGON2_ROW(kdf_row_argon2i, "argon2i", KDF_SCHEME_ARGON2I, "$argon2i$", 0, 0,
           "Argon2i PHC string (RFC 9106)");
ARGON2_ROW(kdf_row_argon2d, "argon2d", KDF_SCHEME_ARGON2D, "$argon2d$", 0, 0,
           "Argon2d PHC string (RFC 9106)");
