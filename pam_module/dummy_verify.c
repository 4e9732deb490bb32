/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dummy_verify.c - what a refusal without a usable entry costs: one
 * verification at the policy target (dummy_verify.h; doc/DESIGN.md "The
 * PAM module", timing).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "dummy_verify.h"
#include "kdfhash.h"

void
kdf_pam_dummy_verify(const struct kdf_policy *pol, const char *pw, size_t pw_len)
{
    char buf[KDF_MAX_HASH_STR + 1];
    struct kdf_hash h;
    enum kdf_status st;

    /* Over-long passwords are refused by kdf_check_caps() before any work
     * on a real entry, so they cost nothing here either. */
    if (pw_len > pol->max_password_len)
        return;
    st = kdf_dummy_hash(&pol->target, buf, sizeof buf, &h);
    if (st == KDF_OK) {
        /* The real path's calls, in the real path's order. */
        st = kdf_check_caps(&h, pw_len, pol, NULL);
        if (st == KDF_OK)
            st = kdf_verify_ex(pw, pw_len, &h, pol, NULL, 0);
    } else {
        /* A target the dummy cannot spell: a hash of the same password at
         * the target is the closest cost we have. */
        st = kdf_hash_ex(pw, pw_len, &pol->target, pol, NULL, 0, buf, sizeof buf);
    }
    (void)st; /* KDF_MISMATCH expected; nothing depends on it */
    kdf_wipe(buf, sizeof buf);
    kdf_wipe(&h, sizeof h);
}
