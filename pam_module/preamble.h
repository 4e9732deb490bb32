/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * preamble.h - what the module's entry points do first (preamble.c), and
 * how they are exported.
 */
#ifndef KDF_PAM_PREAMBLE_H
#define KDF_PAM_PREAMBLE_H

#include <security/pam_modules.h>

#include "kdfhash.h"
#include "options.h"

/* The pam_sm_* entry points; pam_kdfhash.map exports them alone. */
#define PAM_EXPORT __attribute__((visibility("default")))

/*
 * Whether the entry point's flags hold f.  libpam passes the flags as an
 * int while its own constants are unsigned (PAM_SILENT is 0x8000U), so the
 * test is done on the unsigned value, as the constants are.
 */
static inline int
kdf_pam_flag(int flags, unsigned int f)
{
    return ((unsigned int)flags & f) != 0;
}

/*
 * What pam_sm_authenticate() and pam_sm_chauthtok() do first: the options
 * and the policy of the call (*degraded, when not NULL, says whether they
 * run degraded), then the user name.  PAM_SUCCESS with *user set, or the
 * result the entry point returns at once:
 *   PAM_INCOMPLETE   the conversation answered PAM_CONV_AGAIN (an
 *                    event-driven application, not ready yet): libpam
 *                    resumes the stack at this module when the application
 *                    calls again, as for pam_unix.  Nothing failed, so it
 *                    is logged only with debug and asks for no fail delay
 *                    (the resumed call makes its own request);
 *   PAM_USER_UNKNOWN no name;
 *   any other        pam_get_user()'s failure;
 * these two logged at LOG_ERR, with the fail delay asked for (unless
 * nodelay), as after a wrong password.  group ("auth", "password") goes
 * into the degraded mode's journal event (journal.h).
 */
int kdf_pam_preamble(pam_handle_t *pamh, const char *group, int argc, const char **argv,
                     struct kdf_pam_options *o, struct kdf_policy *pol, int *degraded,
                     const char **user);

#endif /* KDF_PAM_PREAMBLE_H */
