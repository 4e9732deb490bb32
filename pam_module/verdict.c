/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verdict.c - "stored field + typed password -> verdict" (verdict.h), the
 * one copy of the entry checks that pam_kdfhash.so and kdfhash-chkpwd both
 * apply (doc/DESIGN.md "Policy" and "The PAM module"), and what a refusal
 * without a usable entry costs: one verification at the policy target
 * (doc/DESIGN.md "The PAM module", timing).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "kdfhash.h"
#include "verdict.h"

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

enum kdf_pam_verdict
kdf_pam_verdict(const struct kdf_policy *pol, const char *stored, size_t stored_len,
                int nullok, const char *pw, size_t pw_len, struct kdf_hash *h,
                enum kdf_status *st, const char **reason)
{
    return kdf_pam_verdict_form(pol, stored, stored_len, nullok, pw, pw_len, h, st, reason,
                                NULL);
}

enum kdf_pam_verdict
kdf_pam_verdict_form(const struct kdf_policy *pol, const char *stored, size_t stored_len,
                     int nullok, const char *pw, size_t pw_len, struct kdf_hash *h,
                     enum kdf_status *st, const char **reason, enum kdf_form *form)
{
    if (form != NULL)
        *form = KDF_FORM_TYPED;
    *st = KDF_OK;
    *reason = NULL;
    memset(h, 0, sizeof *h);
    if (stored_len == 0) {
        if (nullok && pw_len == 0)
            return KDF_PAM_V_NULLOK;
        kdf_pam_dummy_verify(pol, pw, pw_len);
        return KDF_PAM_V_EMPTY;
    }
    if (stored[0] == '!' || stored[0] == '*') {
        /* Checked before parsing: "!" + a valid hash must never verify,
         * whatever the parser makes of the rest. */
        kdf_pam_dummy_verify(pol, pw, pw_len);
        return KDF_PAM_V_LOCKED;
    }

    *st = kdf_parse(stored, stored_len, h, reason);
    if (*st == KDF_OK &&
        (h->scheme == KDF_SCHEME_EMPTY || h->scheme == KDF_SCHEME_LOCKED))
        *st = KDF_MALFORMED; /* cannot happen after the checks above */
    if (*st != KDF_OK) {
        kdf_wipe(h, sizeof *h);
        kdf_pam_dummy_verify(pol, pw, pw_len);
        return KDF_PAM_V_MALFORMED;
    }

    /* Caps before any work or allocation on the stored entry; the refusal
     * then costs what a wrong password at the target costs, so the reply
     * time does not say that the entry is over the caps. */
    *st = kdf_check_caps(h, pw_len, pol, reason);
    if (*st != KDF_OK) {
        kdf_pam_dummy_verify(pol, pw, pw_len);
        return KDF_PAM_V_CAPS;
    }

    *st = kdf_verify_form(pw, pw_len, h, pol, NULL, 0, form);
    /* An error (libxcrypt refusing the setting, a thread failure, an entry
     * larger than the whole memory budget) answers at once: one
     * verification at the target makes it cost what a refusal costs.  Not
     * after KDF_NOMEM: that would only add to the pressure.  Not after
     * KDF_BUSY: the refusal already took max.memory-wait, longer than any
     * verification, and a dummy would queue for the full budget a second
     * time and double the wait of every login in a storm.  After
     * KDF_NOKEY the dummy is keyed with the pepper like the others (a TPM
     * pepper's child included); the keyring keeps the entry's failed key
     * for the caller's log (keep_first). */
    if (*st != KDF_OK && *st != KDF_MISMATCH && *st != KDF_NOMEM && *st != KDF_BUSY)
        kdf_pam_dummy_verify(pol, pw, pw_len);
    return *st == KDF_OK ? KDF_PAM_V_OK : KDF_PAM_V_FAILED;
}
