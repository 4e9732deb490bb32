/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * table_schemes.c - the scheme table: every row, and the lookups by id, by name,
 * by target and by parsed hash, and what the public API says of a row.
 * A new scheme is one name in KDF_ROWS and its own scheme_<name>.c (and
 * its line in Makefile.am).
 */
#include "kdf_prelude.h"
#include "hstr_xcrypt_cost.h"

#include "kdf_scheme.h"

/* Every row, once, in the order the parser tries their prefixes (the
 * generic crypt(3) row last: it claims traditional DES by length alone;
 * Django's prefix-less spellings before it). */
#define KDF_ROWS(X)                                                                       \
    X(argon2id) X(argon2i) X(argon2d) X(bcrypt) X(pbkdf2_sha1) X(pbkdf2_sha256)          \
    X(pbkdf2_sha512) X(scrypt) X(yescrypt) X(sha512crypt) X(sha256crypt)                \
    X(bcrypt_sha256) X(django_bcrypt) X(django_bcrypt_sha256) X(django_argon2)             \
    X(django_scrypt) X(ldap_sha) X(crypt)

#define KDF_ROW_DECLARE(r) extern const struct kdf_scheme_desc kdf_row_##r;
#define KDF_ROW_POINT(r) &kdf_row_##r,
KDF_ROWS(KDF_ROW_DECLARE)
const struct kdf_scheme_desc *const kdf_schemes[] = {KDF_ROWS(KDF_ROW_POINT)};
const size_t kdf_nschemes = KDF_ARRAY_LEN(kdf_schemes);

const struct kdf_scheme_desc *
kdf_scheme_row(enum kdf_scheme id)
{
    if (id == KDF_SCHEME_LEGACY)
        return &kdf_row_crypt;
    for (size_t i = 0; i < kdf_nschemes; i++)
        if (kdf_schemes[i]->id == id)
            return kdf_schemes[i];
    return NULL;
}

const struct kdf_scheme_desc *
kdf_scheme_of_hash(const struct kdf_hash *h)
{
    /* kdf_parse() names the row that read the string (one row may read
     * several ids of a family: Django's argon2$ both argon2id and argon2i);
     * a struct filled by hand (a row's fill(), a test) is found by its id
     * and prefix. */
    if (h->row >= 1 && h->row <= kdf_nschemes)
        return kdf_schemes[h->row - 1];
    if (h->scheme != KDF_SCHEME_LEGACY)
        return kdf_scheme_row(h->scheme);
    for (size_t i = 0; i < kdf_nschemes; i++) {
        const struct kdf_scheme_desc *r = kdf_schemes[i];
        if (r->id == KDF_SCHEME_LEGACY && r->xcrypt != KDF_XCRYPT_NONE &&
            h->prefix.len == strlen(r->prefixes[0]) &&
            memcmp(h->prefix.ptr, r->prefixes[0], h->prefix.len) == 0)
            return r;
    }
    return &kdf_row_crypt;
}

const struct kdf_scheme_desc *
kdf_scheme_target_row(const struct kdf_target *t)
{
    if (t->scheme == KDF_SCHEME_LEGACY)
        return kdf_xcrypt_row(t->xcrypt);
    return kdf_scheme_row(t->scheme);
}

const struct kdf_scheme_desc *
kdf_scheme_named(const char *name, size_t n)
{
    for (size_t i = 0; i < kdf_nschemes; i++)
        if (strlen(kdf_schemes[i]->name) == n && memcmp(kdf_schemes[i]->name, name, n) == 0)
            return kdf_schemes[i];
    return NULL;
}

const char *
kdf_scheme_name(enum kdf_scheme s)
{
    const struct kdf_scheme_desc *r;

    if (s == KDF_SCHEME_EMPTY)
        return "empty";
    if (s == KDF_SCHEME_LOCKED)
        return "locked";
    if (s == KDF_SCHEME_WRAPPED)
        return "wrapped"; /* two rows' hashes, not a row (api_wrapped.c) */
    r = kdf_scheme_row(s);
    return r != NULL ? r->name : "unknown";
}

enum kdf_cost_kind
kdf_scheme_cost(const char *name, uint32_t *lo, uint32_t *hi, int *recommended)
{
    const struct kdf_scheme_desc *r = name != NULL ? kdf_scheme_named(name, strlen(name)) : NULL;

    if (recommended != NULL)
        *recommended = 0;
    if (r == NULL || r->target_check == NULL)
        return KDF_COST_FIXED;
    for (size_t k = 0; k < r->nkeys; k++) {
        if (r->keys[k].field == KDF_TF_COST) {
            if (lo != NULL)
                *lo = r->keys[k].lo;
            if (hi != NULL)
                *hi = r->keys[k].hi;
        }
    }
    if (recommended != NULL)
        *recommended = r->recommended;
    return r->cost_kind;
}

const char *
kdf_scheme_at(size_t i, const char **summary)
{
    if (i >= kdf_nschemes)
        return NULL;
    if (summary != NULL)
        *summary = kdf_schemes[i]->summary;
    return kdf_schemes[i]->name;
}

int
kdf_scheme_info_at(size_t i, struct kdf_scheme_info *out)
{
    const struct kdf_scheme_desc *r;

    if (out == NULL || i >= kdf_nschemes)
        return 0;
    r = kdf_schemes[i];
    memset(out, 0, sizeof *out);
    out->name = r->name;
    out->summary = r->summary;
    out->id = r->id;
    out->target = r->target_check != NULL && r->hash != NULL;
    out->crypt_reads = r->crypt_reads;
    out->ds_family = r->ds_family;
    out->ds_base = r->ds_base;
    out->prefixes = r->prefixes;
    out->claim_prefix = r->claim_prefix;
    out->dk_len = r->defaults.dk_len;
    return 1;
}

const char *
kdf_hash_scheme_name(const struct kdf_hash *h)
{
    const struct kdf_scheme_desc *r;

    if (h == NULL)
        return "unknown";
    if (h->scheme == KDF_SCHEME_EMPTY || h->scheme == KDF_SCHEME_LOCKED ||
        h->scheme == KDF_SCHEME_WRAPPED)
        return kdf_scheme_name(h->scheme);
    r = kdf_scheme_of_hash(h);
    return r != NULL ? r->name : "unknown";
}

int
kdf_hash_crypt_reads(const struct kdf_hash *h)
{
    const struct kdf_scheme_desc *r;

    if (h == NULL || h->scheme == KDF_SCHEME_EMPTY || h->scheme == KDF_SCHEME_LOCKED)
        return 0;
    r = kdf_scheme_of_hash(h);
    if (r == NULL || r->crypt_reads == KDF_CRYPT_NEVER)
        return 0;
    if (r->crypt_reads == KDF_CRYPT_ALWAYS)
        return 1;
    return kdf_xcrypt_knows(h->whole.ptr, h->whole.len);
}

const char *
kdf_hash_ds_family(const struct kdf_hash *h)
{
    const struct kdf_scheme_desc *r;

    if (h == NULL || h->scheme == KDF_SCHEME_EMPTY || h->scheme == KDF_SCHEME_LOCKED)
        return NULL;
    r = kdf_scheme_of_hash(h);
    return r != NULL ? r->ds_family : NULL;
}

const char *
kdf_target_ds_family(const struct kdf_target *t)
{
    const struct kdf_scheme_desc *r = t != NULL ? kdf_scheme_target_row(t) : NULL;

    return r != NULL ? r->ds_family : NULL;
}
