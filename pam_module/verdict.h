/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verdict.h - the decision on one stored shadow field (verdict.c), shared by
 * pam_kdfhash.so (check_entry() in pam_kdfhash.c) and the kdfhash-chkpwd
 * helper (chkpwd.c), so that both judge an entry the same way.  The callers
 * keep their own logging and their own result codes (PAM results, helper
 * exit codes) and the module its upgrade.  Also the verification that
 * unknown, locked, empty, malformed and over-cap entries cost, so that the
 * reply time does not tell such an entry from a wrong password.
 */
#ifndef KDF_PAM_VERDICT_H
#define KDF_PAM_VERDICT_H

#include <stddef.h>

#include "kdfhash.h"

/* One verification of pw against the target's dummy (kdf_dummy_hash())
 * under pol, result ignored: what a refusal without an entry costs.  With
 * a pepper the dummy is keyed with it, as an entry at the target is (the
 * keyring is asked, a TPM key's child runs); when that key cannot be had,
 * the unkeyed dummy runs instead, so the cost stays one verification. */
void kdf_pam_dummy_verify(const struct kdf_policy *pol, const char *pw, size_t pw_len);

enum kdf_pam_verdict {
    KDF_PAM_V_OK,        /* verified; *h holds the parsed entry */
    KDF_PAM_V_NULLOK,    /* empty field, empty password, nullok allowed it */
    KDF_PAM_V_EMPTY,     /* empty field refused (dummy verification done) */
    KDF_PAM_V_LOCKED,    /* field starts with '!' or '*' (dummy done) */
    KDF_PAM_V_MALFORMED, /* kdf_parse() refused it: *st, *reason (dummy done) */
    KDF_PAM_V_CAPS,      /* kdf_check_caps() refused it: *st, *reason */
    KDF_PAM_V_FAILED     /* kdf_verify_ex() said *st (KDF_MISMATCH or an error) */
};

/*
 * Judge the typed password pw against the stored field (stored_len bytes,
 * NUL-terminated) under pol: empty field -> nullok or refusal; '!'/'*'
 * (checked before parsing: "!" + a valid hash must never verify) -> locked;
 * then kdf_parse, kdf_check_caps (before any work, doc/DESIGN.md "Policy")
 * and kdf_verify_form().  Empty, locked and malformed entries cost one dummy
 * verification at the target (kdf_pam_dummy_verify(), doc/DESIGN.md
 * "The PAM module").  *st gets the kdf status of the failing step (KDF_OK
 * otherwise), *reason the parser's or caps check's reason (may be NULL), *h
 * the parsed entry (zeroed when nothing was parsed or parsing failed; for
 * KDF_PAM_V_CAPS, _FAILED and _OK the caller logs its scheme and wipes it).
 */
enum kdf_pam_verdict kdf_pam_verdict(const struct kdf_policy *pol, const char *stored,
                                     size_t stored_len, int nullok, const char *pw,
                                     size_t pw_len, struct kdf_hash *h,
                                     enum kdf_status *st, const char **reason);

/* kdf_pam_verdict(), and for KDF_PAM_V_OK the form of the password that
 * matched in *form (kdf_verify_form()): a login rehashes an entry that
 * verified in a form other than the typed one. */
enum kdf_pam_verdict kdf_pam_verdict_form(const struct kdf_policy *pol, const char *stored,
                                          size_t stored_len, int nullok, const char *pw,
                                          size_t pw_len, struct kdf_hash *h,
                                          enum kdf_status *st, const char **reason,
                                          enum kdf_form *form);

#endif /* KDF_PAM_VERDICT_H */
