/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verdict.c - "stored field + typed password -> verdict" (verdict.h), the
 * one copy of the entry checks that pam_kdfhash.so and kdfhash-chkpwd both
 * apply (doc/DESIGN.md "Policy" and "The PAM module").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "dummy_verify.h"
#include "kdfhash.h"
#include "verdict.h"

enum kdf_pam_verdict
kdf_pam_verdict(const struct kdf_policy *pol, const char *stored, size_t stored_len,
                int nullok, const char *pw, size_t pw_len, struct kdf_hash *h,
                enum kdf_status *st, const char **reason)
{
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

    *st = kdf_verify_ex(pw, pw_len, h, pol, NULL, 0);
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
