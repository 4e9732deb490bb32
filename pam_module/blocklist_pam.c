/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blocklist_pam.c - the compromised-password list (accounts/blocklist.h)
 * in the PAM module.  A change to a listed password is refused, in
 * pam_pwquality's words; a login with one succeeds and leaves a mark on the
 * handle that pam_sm_acct_mgmt() answers with PAM_NEW_AUTHTOK_REQD, as for
 * an expired password (chage -d 0), so that login, su and sshd run the
 * change at once.  The file is opened per use (a header read, one or two
 * pages of the table: under a millisecond; bench/README.md) and only when
 * root or we own it and no one else can write it: a mapped file truncated
 * under us would kill the host with SIGBUS.  A list that cannot be used never locks anyone
 * out: logins go on, changes go on unless blocklist-missing = refuse.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "blocklist.h"
#include "blocklist_pam.h"

#define KDF_PAM_BLOCKLIST_DATA "pam_kdfhash:blocklisted"

/* 1 listed, 0 not, -1 the list cannot be used (logged). */
static int
lookup(pam_handle_t *pamh, const struct kdf_policy *pol, const char *user, const char *pw,
       size_t len)
{
    struct kdf_blocklist bl;
    char err[512];
    int r;

    if (kdf_blocklist_open(&bl, pol->blocklist, KDF_BLOCKLIST_TRUSTED, err, sizeof err) != 0) {
        pam_syslog(pamh, LOG_ERR,
                   "blocklist cannot be used: %s; the password of %s is not checked "
                   "(kdfhash check-conf)",
                   err, user);
        return -1;
    }
    r = kdf_blocklist_has_password(&bl, pw, len);
    kdf_blocklist_close(&bl);
    if (r < 0)
        pam_syslog(pamh, LOG_ERR, "blocklist %s: the password of %s cannot be looked up",
                   pol->blocklist, user);
    return r;
}

const char *
kdf_pam_blocklist_refuse(pam_handle_t *pamh, const struct kdf_policy *pol, const char *user,
                         const char *new_pw, int iamroot, int quiet)
{
    int r;

    if (pol->blocklist[0] == '\0')
        return NULL;
    r = lookup(pamh, pol, user, new_pw, strlen(new_pw));
    if (r < 0) {
        if (!pol->blocklist_refuse || iamroot)
            return NULL;
        pam_syslog(pamh, LOG_ERR, "password change for %s refused: blocklist-missing = refuse",
                   user);
        return "The list of compromised passwords cannot be read; ask your administrator.";
    }
    if (r == 0)
        return NULL;
    if (!iamroot)
        return KDF_PAM_BLOCKLIST_LISTED;
    if (!quiet)
        pam_error(pamh, "%s", "BAD PASSWORD: it appears in a list of compromised passwords");
    pam_syslog(pamh, LOG_NOTICE, "root sets a password of %s that is in the blocklist", user);
    return NULL;
}

void
kdf_pam_blocklist_login(pam_handle_t *pamh, const struct kdf_policy *pol, const char *user,
                        const char *pw, size_t len)
{
    static char mark = 1;

    if (pol->blocklist[0] == '\0' || pw == NULL || len == 0)
        return;
    if (lookup(pamh, pol, user, pw, len) != 1)
        return;
    pam_syslog(pamh, LOG_NOTICE, "password of %s is in the blocklist: change required", user);
    if (pam_set_data(pamh, KDF_PAM_BLOCKLIST_DATA, &mark, NULL) != PAM_SUCCESS)
        pam_syslog(pamh, LOG_ERR, "cannot mark the login of %s for a password change", user);
}

int
kdf_pam_blocklist_marked(pam_handle_t *pamh, int quiet)
{
    const void *data = NULL;

    if (pam_get_data(pamh, KDF_PAM_BLOCKLIST_DATA, &data) != PAM_SUCCESS || data == NULL)
        return 0;
    if (!quiet)
        pam_error(pamh, "%s",
                  "Your password appears in a list of compromised passwords: you are "
                  "required to change it now.");
    return 1;
}
