/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * schemes.c - the scheme table: every row, in the order the parser tries
 * their prefixes (the generic crypt(3) row last: it claims traditional
 * DES by length alone), and the lookups by id, by name and by target.
 * A new scheme is one line here and its own scheme_<name>.c.
 */
#include "kdf_internal.h"

#include "kdf_scheme.h"

const struct kdf_scheme_desc *const kdf_schemes[] = {
    &kdf_row_argon2id,      &kdf_row_argon2i,    &kdf_row_argon2d,
    &kdf_row_bcrypt,        &kdf_row_pbkdf2_sha1, &kdf_row_pbkdf2_sha256,
    &kdf_row_pbkdf2_sha512, &kdf_row_scrypt,     &kdf_row_yescrypt,
    &kdf_row_sha512crypt,   &kdf_row_sha256crypt, &kdf_row_crypt,
};
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
