/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chkpwd_client.h - the protocol between pam_kdfhash.so and its helper
 * kdfhash-chkpwd (chkpwd.c), which verifies a password for callers that
 * cannot read the shadow file themselves (screen lockers running as the
 * user; doc/DESIGN.md "The helper and the command line").
 *
 * The protocol, modelled on pam_unix's unix_chkpwd:
 *   argv   {prog, user, "nullok"|"nonull" [, shadow-path [, conf-path]]}
 *          (the paths are honoured only by a helper that runs without
 *          elevated privileges, or by the never-installed test build)
 *   stdin  the password bytes, at most KDF_CHKPWD_MAX_PW + 1 of them (the
 *          extra byte says "longer than the cap"), then EOF
 *   exit   one of enum kdf_chkpwd_exit; nothing on stdout or stderr
 */
#ifndef KDF_CHKPWD_CLIENT_H
#define KDF_CHKPWD_CLIENT_H

#include <stddef.h>

/* max.password defaults to 4096 bytes and the helper never accepts more,
 * whatever the conf says: a user must not make a privileged process read
 * and hash an unbounded password. */
#define KDF_CHKPWD_MAX_PW 4096
/* A verification at the max.* caps may take seconds; a helper that takes
 * longer than this is killed and the login is PAM_AUTHINFO_UNAVAIL. */
#define KDF_CHKPWD_TIMEOUT_MS 30000

enum kdf_chkpwd_exit {
    KDF_CHKPWD_OK = 0,           /* the password matches */
    KDF_CHKPWD_AUTH_ERR = 1,     /* mismatch, locked, empty, malformed, refused */
    KDF_CHKPWD_USER_UNKNOWN = 2, /* no entry for the (caller's own) name */
    KDF_CHKPWD_UNAVAIL = 3,      /* the shadow file cannot be read */
    KDF_CHKPWD_USAGE = 4,        /* bad arguments, tty stdin, bad policy */
    KDF_CHKPWD_SYSTEM_ERR = 5,   /* out of memory, internal error */
    KDF_CHKPWD_EXIT_MAX = 5
};

/*
 * Run prog with the protocol above: argv as described (shadow_path and
 * conf_path may be NULL), a minimal environment, fds 0-2 only (stdin a pipe
 * holding the password, stdout/stderr /dev/null), the host's SIGCHLD
 * disposition set to SIG_DFL around the wait and restored, the child killed
 * after timeout_ms.  Returns the helper's exit code (0..KDF_CHKPWD_EXIT_MAX),
 * or -1 with a short reason in err (no secrets) when it could not be run or
 * did not exit normally; *wstatus gets the raw wait status.
 */
int kdf_chkpwd_run(const char *prog, const char *user, int nullok,
                   const char *shadow_path, const char *conf_path, const char *pw,
                   size_t pw_len, unsigned timeout_ms, int *wstatus, char *err,
                   size_t err_cap);

#endif /* KDF_CHKPWD_CLIENT_H */
