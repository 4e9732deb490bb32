/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_ldap_sha.c - the LDAP SHA schemes of RFC 2307 and 389-ds:
 *
 *   {SHA}, {SHA256}, {SHA384}, {SHA512}      base64(H(pw))
 *   {SSHA}, {SSHA256}, {SSHA384}, {SSHA512}  base64(H(pw || salt) || salt)
 *
 * in standard base64 with '=' padding, canonical only (the name in upper
 * case, as 389-ds and OpenLDAP write it; kdf_ds_value_string() folds the
 * case of a directory value).  The salt is 1..64 bytes: 389-ds writes 8,
 * OpenLDAP 4, others up to 16.  The digest and the salt share one blob
 * (KDF_ALPHA_JOINED), whose digest length names the hash function.
 *
 * One fast hash of the password: read, so that such values can be
 * verified and wrapped (kdf_wrap()), and never written: always outdated,
 * never a target.
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "alg_sha.h"
#include "hstr.h"
#include "kdf_scheme.h"

extern const struct kdf_scheme_desc kdf_row_ldap_sha;

/* The spellings; ldap_forms[i] says what ldap_prefixes[i] names: the hash
 * (its digest length) and whether it is salted. */
static const char *const ldap_prefixes[] = {"{SHA}",  "{SHA256}",  "{SHA384}",  "{SHA512}",
                                             "{SSHA}", "{SSHA256}", "{SSHA384}", "{SSHA512}",
                                             NULL};
static const struct {
    unsigned dk;
    int salted;
} ldap_forms[] = {
    {KDF_SHA1_LEN, 0}, {KDF_SHA256_LEN, 0}, {KDF_SHA384_LEN, 0}, {KDF_SHA512_LEN, 0},
    {KDF_SHA1_LEN, 1}, {KDF_SHA256_LEN, 1}, {KDF_SHA384_LEN, 1}, {KDF_SHA512_LEN, 1},
};

/* The form of a digest length and salt, or -1. */
static int
form_of(uint32_t dk, int salted)
{
    for (size_t i = 0; i < KDF_ARRAY_LEN(ldap_forms); i++)
        if (ldap_forms[i].dk == dk && ldap_forms[i].salted == salted)
            return (int)i;
    return -1;
}

/* Bind md to the hash whose digest has dk bytes. */
static enum kdf_status
bind_md(struct kdf_md *md, uint32_t dk)
{
    switch (dk) {
    case KDF_SHA1_LEN:
        return kdf_md_bind(md, KDF_PRIM_SHA1);
    case KDF_SHA256_LEN:
        return kdf_md_bind(md, KDF_PRIM_SHA256);
    case KDF_SHA384_LEN:
        return kdf_md_bind_sha384(md);
    case KDF_SHA512_LEN:
        return kdf_md_bind(md, KDF_PRIM_SHA512);
    default:
        return KDF_UNSUPPORTED;
    }
}

/* H(pw || salt) into out (dk bytes). */
static enum kdf_status
digest_of(uint32_t dk, const char *pw, size_t pw_len, const uint8_t *salt, size_t salt_len,
          uint8_t *out)
{
    struct kdf_md md;
    struct kdf_md_ctx c;

    if (bind_md(&md, dk) != KDF_OK)
        return KDF_UNSUPPORTED;
    kdf_md_init(&c, &md);
    kdf_md_update(&c, pw, pw_len);
    kdf_md_update(&c, salt, salt_len);
    kdf_md_final(&c, out); /* wipes c */
    return KDF_OK;
}

/* ---- grammar ---- */

static enum kdf_status
ldap_parse(const char *s, size_t len, size_t plen, struct kdf_hash *h, const char **why)
{
    size_t n = 0, f = 0;

    while (f < KDF_ARRAY_LEN(ldap_forms) &&
           !(strlen(ldap_prefixes[f]) == plen && memcmp(s, ldap_prefixes[f], plen) == 0))
        f++;
    if (f == KDF_ARRAY_LEN(ldap_forms))
        return kdf_fail(why, KDF_MALFORMED, "ldap-sha: unknown {NAME}");
    if (kdf_b64_check(KDF_B64_STD_PAD, s + plen, len - plen, &n) != KDF_OK)
        return kdf_fail(why, KDF_MALFORMED, "ldap-sha: not canonical padded base64");
    if (!ldap_forms[f].salted && n != ldap_forms[f].dk)
        return kdf_fail(why, KDF_MALFORMED, "ldap-sha: not a digest of the hash's length");
    if (ldap_forms[f].salted && (n <= ldap_forms[f].dk || n - ldap_forms[f].dk > KDF_MAX_SALT))
        return kdf_fail(why, KDF_MALFORMED, "ldap-sha: salt not 1..64 bytes after the digest");
    h->scheme = KDF_SCHEME_LDAP_SHA;
    h->format = KDF_FMT_NATIVE;
    h->dk_len = ldap_forms[f].dk;
    h->salt_len = (uint32_t)(n - ldap_forms[f].dk);
    /* One blob: both spans (KDF_ALPHA_JOINED). */
    h->digest = (struct kdf_span){s + plen, len - plen};
    h->salt = h->digest;
    return KDF_OK;
}

static enum kdf_status
ldap_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    int f = form_of(h->dk_len, h->salt_len != 0);

    if (f < 0)
        return KDF_RANGE;
    kdf_put(b, ldap_prefixes[f], strlen(ldap_prefixes[f]));
    kdf_put_span(b, &h->digest);
    return KDF_OK;
}

static int
ldap_alphabet(const struct kdf_hash *h, int digest)
{
    (void)h;
    (void)digest;
    return KDF_ALPHA_JOINED;
}

static void
ldap_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    int f = form_of(h->dk_len, h->salt_len != 0);
    const char *p = f >= 0 ? ldap_prefixes[f] : "{?}";

    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=ldap-sha form=%s salt_len=%u digest_len=%u", p,
                 (unsigned)h->salt_len, (unsigned)h->dk_len);
    else
        snprintf(out, cap, "%s", what == KDF_DESC_PARAMS ? p : "");
}

/* ---- work ---- */

static enum kdf_status
ldap_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
            const struct kdf_policy *pol, void *work, size_t work_sz)
{
    uint8_t blob[KDF_MAX_DIGEST + KDF_MAX_SALT], mine[KDF_MAX_DIGEST];
    size_t n = 0;
    enum kdf_status st;

    (void)pol;
    (void)work;
    (void)work_sz;
    st = kdf_b64_decode(KDF_B64_STD_PAD, h->digest.ptr, h->digest.len, blob, sizeof blob, &n);
    if (st == KDF_OK && (h->dk_len > n || form_of(h->dk_len, n > h->dk_len) < 0))
        st = KDF_MALFORMED;
    if (st == KDF_OK)
        st = digest_of(h->dk_len, pw, pw_len, blob + h->dk_len, n - h->dk_len, mine);
    if (st == KDF_OK)
        st = kdf_ct_eq(mine, blob, h->dk_len) == 0 ? KDF_OK : KDF_MISMATCH;
    kdf_wipe(mine, sizeof mine);
    kdf_wipe(blob, sizeof blob);
    return st;
}

/* A hash with the given salt (kdf_wrap_inner_hash()); never a new entry:
 * target_check refuses every target. */
static enum kdf_status
ldap_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
          const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
          size_t cap)
{
    uint8_t dig[KDF_MAX_DIGEST];
    enum kdf_status st;

    (void)pol;
    if (t == NULL || out == NULL || cap == 0 || salt_len > KDF_MAX_SALT ||
        (salt == NULL && salt_len != 0) || form_of(t->dk_len, salt_len != 0) < 0)
        return KDF_RANGE;
    out[0] = '\0';
    st = digest_of(t->dk_len, pw, pw_len, salt, salt_len, dig);
    if (st == KDF_OK)
        st = kdf_spell(&kdf_row_ldap_sha, t, salt, salt_len, dig, t->dk_len, out, cap);
    kdf_wipe(dig, sizeof dig);
    return st;
}

static void
ldap_fill(const struct kdf_target *t, struct kdf_hash *h)
{
    h->scheme = KDF_SCHEME_LDAP_SHA;
    h->format = KDF_FMT_NATIVE;
    h->dk_len = t->dk_len;
}

/* ---- policy: always outdated, never a target ---- */

static enum kdf_rehash
ldap_flaw(const struct kdf_hash *h, const struct kdf_policy *pol, int accepted)
{
    (void)h;
    (void)pol;
    (void)accepted;
    /* One fast hash: on the accept list or not, the next login moves it. */
    return KDF_REHASH_LEGACY;
}

static enum kdf_rehash
ldap_vs_target(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    return ldap_flaw(h, pol, 0);
}

static const char *
ldap_target_check(const struct kdf_target *t, const struct kdf_policy *pol, const char **over)
{
    (void)t;
    (void)pol;
    (void)over;
    return "ldap-sha is read and wrapped, never written: one fast hash of the password";
}

/* What kdf_wrap_inner_hash() takes from a parsed hash into its target. */
static const struct kdf_tkey ldap_keys[] = {
    {"salt", KDF_TF_SALT, 0, KDF_MAX_SALT, 0, NULL},
    {"len", KDF_TF_LEN, KDF_SHA1_LEN, KDF_SHA512_LEN, 0, NULL},
};

const struct kdf_scheme_desc kdf_row_ldap_sha = {
    .name = "ldap-sha",
    .id = KDF_SCHEME_LDAP_SHA,
    .summary = "LDAP {SHA*} and {SSHA*} (RFC 2307, 389-ds): verified, wrapped, never written",
    .prefixes = ldap_prefixes,
    .parse = ldap_parse,
    .encode = ldap_encode,
    .alphabet = ldap_alphabet,
    .describe = ldap_describe,
    .verify = ldap_verify,
    .hash = ldap_hash,
    .fill = ldap_fill,
    .flaw = ldap_flaw,
    .vs_target = ldap_vs_target,
    .defaults = {.scheme = KDF_SCHEME_LDAP_SHA, .salt_len = 8, .dk_len = KDF_SHA1_LEN},
    .cost_kind = KDF_COST_FIXED,
    .keys = ldap_keys,
    .nkeys = KDF_ARRAY_LEN(ldap_keys),
    .target_check = ldap_target_check,
    .crypt_reads = KDF_CRYPT_NEVER,
};
