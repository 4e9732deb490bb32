/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h - the module arguments of pam_kdfhash.so as a struct of named
 * fields, not a bitmask: each option reads as itself at every use.
 */
#ifndef KDF_PAM_OPTIONS_H
#define KDF_PAM_OPTIONS_H

#include <stddef.h>
#include <limits.h>

#include "kdfhash.h"
#include "keystore.h"
#include "tpm_client.h"

#define KDF_PAM_DEFAULT_SHADOW "/etc/shadow"
#define KDF_PAM_DEFAULT_CONF KDF_DEFAULT_CONF
/* The helper for callers that cannot read the shadow file (chkpwd.c); the
 * build passes $(sbindir)/kdfhash-chkpwd. */
#ifndef KDF_PAM_DEFAULT_CHKPWD
#define KDF_PAM_DEFAULT_CHKPWD "/usr/sbin/kdfhash-chkpwd"
#endif
/* The helper that writes the shadow file where SELinux denies the login's
 * own process the write (update.c); the build passes
 * $(sbindir)/kdfhash-update. */
#ifndef KDF_PAM_DEFAULT_UPDATE
#define KDF_PAM_DEFAULT_UPDATE "/usr/sbin/kdfhash-update"
#endif
/* Longest policy key and value of a module argument: the parser refuses a
 * longer key, the loading copies both for kdf_policy_set(). */
#define KDF_PAM_KEY_MAX 64
#define KDF_PAM_VALUE_MAX 256
/* More policy overrides than this on one module line is a configuration
 * error, not something to silently truncate. */
#define KDF_PAM_MAX_OVERRIDES 32
/* Bad arguments remembered for the log; more are counted, not named. */
#define KDF_PAM_MAX_BAD 8
/* pam_unix's and pam_pwhistory's history file: "user:uid:count:h1,h2,...". */
#define KDF_PAM_DEFAULT_OPASSWD "/etc/security/opasswd"
/* pam_unix's bound on remember=N (pam_unix(8), support.c). */
#define KDF_PAM_MAX_REMEMBER 400
/* pam_unix's default minimum length of a new password (non-root callers). */
/* minlen= not given (or malformed): the policy's min.length decides. */
#define KDF_PAM_MINLEN_POLICY UINT_MAX
/* The delay after a failed attempt that pam_unix asks libpam for (2 s;
 * libpam varies it by up to half and sleeps only when the attempt fails). */
#define KDF_PAM_FAIL_DELAY_USEC 2000000u

/* The offline cache of directory users' passwords (cache.c). */
#define KDF_PAM_DEFAULT_CACHE KDF_OFFLINE_CACHE

enum kdf_pam_cache {
    KDF_PAM_CACHE_NONE = 0, /* no cache= argument: the shadow-style file */
    KDF_PAM_CACHE_STORE,    /* after an online success: keep a verifier */
    KDF_PAM_CACHE_VALIDATE, /* directory unreachable: verify against it */
    KDF_PAM_CACHE_UPDATE,   /* after an online refusal: drop a stale entry */
    KDF_PAM_CACHE_FORGET    /* after an online refusal: drop the entry */
};

enum kdf_pam_upgrade {
    KDF_PAM_UPGRADE_FILE = 0, /* rewrite field 2 of the shadow-style file */
    KDF_PAM_UPGRADE_EXEC,     /* hand the new hash to an external program */
    KDF_PAM_UPGRADE_OFF
};

/* Who writes the shadow file and the history (update_client.c). */
enum kdf_pam_write_helper {
    KDF_PAM_WRITE_HELPER_AUTO = 0, /* kdfhash-update when SELinux is enabled */
    KDF_PAM_WRITE_HELPER_ALWAYS,   /* kdfhash-update */
    KDF_PAM_WRITE_HELPER_NEVER     /* the module's own process */
};

struct kdf_pam_options {
    const char *shadow_path; /* shadow=PATH */
    const char *conf_path;   /* conf=PATH */
    int conf_explicit;       /* conf= was given: a missing file is an error */
    int nullok;
    int debug;
    int use_first_pass;
    int try_first_pass;
    int use_authtok; /* password group: the new password from an earlier module */
    unsigned minlen; /* minlen=N, pam_unix's name for min.length (characters),
                      * or KDF_PAM_MINLEN_POLICY */
    unsigned remember;         /* remember=N: earlier passwords refused; 0: none */
    const char *opasswd_path;  /* opasswd=PATH: where they are kept */
    const char *keys_dir;      /* keys=DIR: the key directory (KDF_KEYS_DIR) */
    int nodelay;     /* no pam_fail_delay() request after a failure */
    enum kdf_pam_upgrade upgrade; /* upgrade=file|exec:PATH|off */
    const char *upgrade_prog;     /* the PATH of exec:PATH */
    const char *chkpwd_prog;      /* chkpwd=PATH|off; NULL: off */
    enum kdf_pam_write_helper write_helper; /* write_helper=auto|always|never */
    const char *update_prog;      /* update_helper=PATH */
    enum kdf_pam_cache cache;     /* cache=store|validate|update|forget */
    const char *cache_path;       /* cache_file=PATH */
    /* Policy keys ("target=...", "max.bcrypt=14", ...): the argv strings
     * themselves, applied in order after the conf file. */
    size_t n_overrides;
    const char *overrides[KDF_PAM_MAX_OVERRIDES];
    /* The arguments that did not parse, skipped (kdf_pam_parse_options()):
     * any makes the module run degraded (kdf_pam_load_policy()). */
    size_t n_bad;
    struct {
        const char *arg, *why;
    } bad[KDF_PAM_MAX_BAD];
    /* The keys of keyed entries and of the pepper, read from the policy's
     * keys_dir on demand (kdf_pam_attach_keys()); after a KDF_NOKEY it says
     * which key and why, for the log. */
    struct kdf_keystore keystore;
    /* TPM keys: through kdfhash-tpm-hmac (tpm_helper=PATH), killed at
     * KDF_TPM_TIMEOUT_MS. */
    struct kdf_pam_tpm tpm;
    struct kdf_tpm_access tpm_access;
};

/*
 * Fill o from argv.  A bad argument never stops the module (a typo in
 * /etc/pam.d must not lock everyone out): it is skipped, with a safe
 * stand-in where one is needed, and remembered in o->bad[] for the log:
 *   shadow=, conf=    not absolute: /etc/shadow; the built-in policy
 *   upgrade=          not file, off or exec:PATH: off
 *   chkpwd=, minlen=  malformed: the built-in helper; the policy's min.length
 *   tpm_helper=       not absolute: the built-in one
 *   update_helper=    not absolute: the built-in one
 *   write_helper=     not auto, always or never: auto
 *   remember=         malformed: 0 (no history), above 400: 400 (pam_unix)
 *   opasswd=          not absolute: /etc/security/opasswd
 *   cache=            not store, validate, update or forget: validate
 *                     (the one mode that never writes nor accepts more)
 *   cache_file=       not absolute: the default cache
 *   use_first_pass with try_first_pass: use_first_pass (as pam_unix)
 *   unknown options, policy keys or values: ignored.
 * Returns the number of bad arguments (o->n_bad, which may exceed
 * KDF_PAM_MAX_BAD); *bad and *why name the first.
 */
size_t kdf_pam_parse_options(struct kdf_pam_options *o, int argc, const char **argv,
                             const char **bad, const char **why);

#endif /* KDF_PAM_OPTIONS_H */
