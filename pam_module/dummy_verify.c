/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dummy_verify.c - what a refusal without a usable entry costs: one
 * verification at the policy target (dummy_verify.h; doc/DESIGN.md "The
 * PAM module", timing).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "dummy_verify.h"
#include "kdfhash.h"

/* One dummy verification at target t (keyed when t.keyid is set):
 * KDF_MISMATCH normally, KDF_NOKEY when t's key cannot be had. */
static enum kdf_status
dummy_at(const struct kdf_target *t, const struct kdf_policy *pol, const char *pw,
         size_t pw_len)
{
    char buf[KDF_MAX_HASH_STR + 1];
    struct kdf_hash h;
    enum kdf_status st;

    st = kdf_dummy_hash(t, buf, sizeof buf, &h);
    if (st == KDF_OK) {
        /* The real path's calls, in the real path's order. */
        st = kdf_check_caps(&h, pw_len, pol, NULL);
        if (st == KDF_OK)
            st = kdf_verify_ex(pw, pw_len, &h, pol, NULL, 0);
    } else {
        /* A target the dummy cannot spell: a hash of the same password at
         * the target is the closest cost we have. */
        st = kdf_hash_ex(pw, pw_len, t, pol, NULL, 0, buf, sizeof buf);
    }
    kdf_wipe(buf, sizeof buf);
    kdf_wipe(&h, sizeof h);
    return st;
}

void
kdf_pam_dummy_verify(const struct kdf_policy *pol, const char *pw, size_t pw_len)
{
    struct kdf_target t = pol->target;
    enum kdf_status st = KDF_NOKEY;

    /* Over-long passwords are refused by kdf_check_caps() before any work
     * on a real entry, so they cost nothing here either. */
    if (pw_len > pol->max_password_len)
        return;
    /* With a pepper, an entry at the target is keyed: its verification
     * asks the keyring for the key first, and a TPM key costs a child and
     * a TPM command.  The dummy is keyed the same way, so that a refusal
     * without an entry pays that too; a key that cannot be had answers
     * at once (as it does for a real entry), and then the unkeyed dummy
     * keeps the cost at one verification. */
    memset(t.keyid, 0, sizeof t.keyid);
    if (pol->pepper[0] != '\0') {
        memcpy(t.keyid, pol->pepper, strnlen(pol->pepper, sizeof t.keyid - 1));
        st = dummy_at(&t, pol, pw, pw_len);
        memset(t.keyid, 0, sizeof t.keyid);
    }
    if (st == KDF_NOKEY)
        (void)dummy_at(&t, pol, pw, pw_len); /* KDF_MISMATCH expected */
}
