/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_settok.c - a test-only PAM module standing for "an earlier module that
 * already asked for the password": it stores its authtok=VALUE argument as
 * PAM_AUTHTOK (only modules may set that item; pam_set_item() from the
 * application is PAM_BAD_ITEM) so that use_first_pass / try_first_pass of
 * pam_kdfhash can be tested.  Never installed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <security/pam_modules.h>

#define PAM_EXPORT __attribute__((visibility("default")))

PAM_EXPORT int
pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)flags;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "authtok=", 8) == 0)
            return pam_set_item(pamh, PAM_AUTHTOK, argv[i] + 8);
    return PAM_SUCCESS;
}

PAM_EXPORT int
pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_SUCCESS;
}

/* The password group: sets the new password in the update pass, as
 * pam_pwquality does before a module with use_authtok. */
PAM_EXPORT int
pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    if (!(flags & PAM_UPDATE_AUTHTOK))
        return PAM_SUCCESS;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "authtok=", 8) == 0)
            return pam_set_item(pamh, PAM_AUTHTOK, argv[i] + 8);
    return PAM_SUCCESS;
}
