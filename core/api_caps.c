/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_caps.c - the policy's caps, applied to a stored hash before any work
 * (kdf_check_caps) and to a target before hashing (kdf_check_target).
 * The generator refuses whatever the verifier would refuse under the same
 * policy: one set of caps serves both, read from each scheme's row.
 */
#include "kdf_prelude.h"

#include "api_wrapped.h"
#include "kdf_scheme.h"

enum kdf_status
kdf_check_caps(const struct kdf_hash *h, size_t pw_len, const struct kdf_policy *pol,
               const char **reason)
{
    const struct kdf_scheme_desc *row;
    const char *why = NULL;

    if (reason != NULL)
        *reason = NULL;
    if (h == NULL || pol == NULL) {
        if (reason != NULL)
            *reason = "no hash or policy";
        return KDF_RANGE;
    }
    row = kdf_scheme_of_hash(h);
    if (pw_len > pol->max_password_len)
        why = "password longer than max.password";
    else if (h->scheme == KDF_SCHEME_WRAPPED)
        why = kdf_wrapped_over_caps(h, pol);
    else if (row != NULL && row->over_caps != NULL)
        why = row->over_caps(h, pol);
    if (why == NULL)
        return KDF_OK;
    if (reason != NULL)
        *reason = why;
    return KDF_TOO_COSTLY;
}

enum kdf_status
kdf_check_target(const struct kdf_target *t, const struct kdf_policy *pol,
                 const char **reason)
{
    const struct kdf_scheme_desc *row;
    const char *bad, *over = NULL;

    if (reason != NULL)
        *reason = NULL;
    if (t == NULL || pol == NULL) {
        if (reason != NULL)
            *reason = "no target or policy";
        return KDF_RANGE;
    }
    row = kdf_scheme_target_row(t);
    if (row == NULL || row->target_check == NULL || row->hash == NULL) {
        if (reason != NULL)
            *reason = t->scheme == KDF_SCHEME_LEGACY ? "not a crypt(3) target"
                                                     : "scheme cannot be a target";
        return KDF_UNSUPPORTED;
    }
    bad = row->target_check(t, pol, &over);
    /* A pepper keys the target's hashes: a row that cannot name a key
     * (bcrypt, PBKDF2, scrypt, crypt(3)) would make unkeyed hashes that
     * the same policy then calls outdated at every login. */
    if (bad == NULL && pol->pepper[0] != '\0' && !row->keyed)
        bad = "pepper is set, and this target cannot take a key (only Argon2 can; or set "
              "pepper = none)";
    if (reason != NULL)
        *reason = bad ? bad : over;
    return bad ? KDF_RANGE : over ? KDF_TOO_COSTLY : KDF_OK;
}
