/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * new_hash.c - the one way the module makes a new hash (new_hash.h), for
 * the upgrade at login (pam_kdfhash.c) and for a password change
 * (chauthtok.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "kdfhash.h"
#include "new_hash.h"
#include "shadow_line.h"

enum kdf_status
kdf_pam_new_hash(const struct kdf_policy *pol, const char *pw, size_t pw_len, char *out,
                 size_t cap, const char **why)
{
    struct kdf_hash nh;
    enum kdf_status st;

    *why = NULL;
    /* Under the loaded policy: a conf that raises a cap or max.threads
     * applies to the new hash as it does to verification. */
    st = kdf_hash_ex(pw, pw_len, &pol->target, pol, NULL, 0, out, cap);
    if (st == KDF_OK)
        st = kdf_parse(out, strlen(out), &nh, why);
    if (st == KDF_OK)
        st = kdf_verify_ex(pw, pw_len, &nh, pol, NULL, 0);
    /* The writer would refuse it too: fail here, before anything is stored. */
    if (st == KDF_OK && !kdf_shadow_hash_ok(out)) {
        *why = "bad characters";
        st = KDF_INTERNAL;
    }
    kdf_wipe(&nh, sizeof nh);
    if (st != KDF_OK)
        kdf_wipe(out, cap);
    return st;
}
