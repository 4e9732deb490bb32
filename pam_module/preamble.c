/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * preamble.c - the start that pam_sm_authenticate() (pam_kdfhash.c) and
 * pam_sm_chauthtok() (chauthtok.c) share (preamble.h): the options and
 * the policy of the call, then the user name.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "kdfhash.h"
#include "options.h"
#include "journal.h"
#include "policy_load.h"
#include "preamble.h"
#include "xcrypt_only.h"

/* ---- the configuration -------------------------------------------------- */

/*
 * The options and the policy of one call.  Nothing in them refuses a
 * login: a bad argument or policy logs at LOG_ERR (at every call, so that
 * the admin sees it wherever the stack runs) and runs degraded, on the
 * built-in defaults without upgrade (options.h).  Returns 1 when degraded.
 */
static int
configure(pam_handle_t *pamh, const char *group, int argc, const char **argv,
          struct kdf_pam_options *o, struct kdf_policy *pol)
{
    const char *bad = NULL, *why = NULL;
    struct kdf_pam_event_fields f = {NULL, NULL, NULL, "bad-argument"};
    char err[320];
    size_t n = kdf_pam_parse_options(o, argc, argv, &bad, &why);
    enum kdf_status st;

    for (size_t i = 0; i < n && i < KDF_PAM_MAX_BAD; i++)
        kdf_pam_event(pamh, group, KDF_PAM_EV_DEGRADED, LOG_ERR, &f,
                      "bad module argument \"%s\": %s: " KDF_PAM_DEGRADED, o->bad[i].arg,
                      o->bad[i].why);
    if (n > KDF_PAM_MAX_BAD)
        kdf_pam_event(pamh, group, KDF_PAM_EV_DEGRADED, LOG_ERR, &f,
                      "%zu more bad module arguments: " KDF_PAM_DEGRADED, n - KDF_PAM_MAX_BAD);
    st = kdf_pam_load_policy(o, pol, err, sizeof err);
    /* Degraded or not: keyed entries still verify (their key-dir is the
     * default one when the policy did not load). */
    kdf_pam_attach_keys(o, pol);
    /* The real uid, not the user being authenticated: whoever started
     * the process (su, sudo) can stop it.  An administrator's memory
     * requests are not held to the pool other users' clients share
     * (core/util_memgate.c), so their stopped su cannot keep one out. */
    pol->mem_admin = (uint32_t)kdf_pam_admin_uid(pol, getuid());
    if (st == KDF_OK)
        return 0;
    f.reason = "bad-policy";
    if (n == 0)
        kdf_pam_event(pamh, group, KDF_PAM_EV_DEGRADED, LOG_ERR, &f,
                      "bad policy %s: " KDF_PAM_DEGRADED, err[0] ? err : kdf_status_str(st));
    o->upgrade = KDF_PAM_UPGRADE_OFF;
    return 1;
}

/* ---- the user name ------------------------------------------------------ */

/* What each answer means, and why PAM_CONV_AGAIN is PAM_INCOMPLETE:
 * preamble.h. */
int
kdf_pam_preamble(pam_handle_t *pamh, const char *group, int argc, const char **argv,
                 struct kdf_pam_options *o, struct kdf_policy *pol, int *degraded,
                 const char **user)
{
    int d = configure(pamh, group, argc, argv, o, pol);
    int rc;

    if (degraded != NULL)
        *degraded = d;
    *user = NULL;
    rc = pam_get_user(pamh, user, NULL);
    if (rc == PAM_SUCCESS && *user != NULL)
        return PAM_SUCCESS;
    if (rc == PAM_CONV_AGAIN) {
        if (o->debug)
            pam_syslog(pamh, LOG_DEBUG, "the conversation is not ready for the user name: "
                                        "PAM_INCOMPLETE, to be resumed");
        return PAM_INCOMPLETE;
    }
    if (rc == PAM_SUCCESS)
        rc = PAM_USER_UNKNOWN;
    pam_syslog(pamh, LOG_ERR, "cannot get the user name: %s", pam_strerror(pamh, rc));
    if (!o->nodelay)
        (void)pam_fail_delay(pamh, KDF_PAM_FAIL_DELAY_USEC);
    return rc;
}
