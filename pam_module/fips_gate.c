/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fips_gate.c - profile = fips in the PAM module: the self-tests before the
 * first use of the algorithms, stepping aside after a failure (auth and
 * password groups alike), and the notice for a kernel in FIPS mode without
 * the profile (kdfhash.conf(5), FIPS-ALIGNED PROFILE).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdatomic.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "fips_gate.h"

/* Once per process, as the host (sshd, a screen locker) may call us often. */
static int
first_time(atomic_int *flag)
{
    return atomic_exchange(flag, 1) == 0;
}

/* Under fips, the self-tests before the first use of the algorithms: on a
 * failure the module refuses its own algorithms and steps aside
 * (PAM_IGNORE), so pam_unix, next in the stack, decides: never a lockout.
 * Without fips on a kernel in FIPS mode, a notice that the profile is not
 * set.  0 to go on, else the PAM result to return. */
int
kdf_pam_fips_gate(pam_handle_t *pamh, const struct kdf_policy *pol, const char *fips_enabled)
{
    static atomic_int crit_logged, notice_logged;
    const char *failed = NULL;

    if (!(pol->profile & KDF_PROFILE_FIPS)) {
        if (fips_enabled != NULL && !atomic_load(&notice_logged) &&
            kdf_fips_enabled(fips_enabled) &&
            first_time(&notice_logged))
            pam_syslog(pamh, LOG_NOTICE,
                       "the kernel runs in FIPS mode (fips_enabled = 1) and the policy's "
                       "profile is not fips");
        return 0;
    }
    if (kdf_selftest_once(&failed) == KDF_OK)
        return 0;
    if (first_time(&crit_logged))
        pam_syslog(pamh, LOG_CRIT,
                   "profile = fips: self-test %s failed: the module refuses its algorithms "
                   "and steps aside (PAM_IGNORE) for the rest of this process",
                   failed != NULL ? failed : "?");
    return PAM_IGNORE;
}

