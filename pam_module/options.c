/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.c - module arguments into struct kdf_pam_options (doc/DESIGN.md
 * "Policy" and "The PAM module"); the policy they select is loaded by
 * policy_load.c.
 *
 * Every argument is either one of the module's own (shadow=, conf=, nullok,
 * debug, use_first_pass, try_first_pass, upgrade=, minlen=, remember=,
 * opasswd=, ...), one libpam reads itself (authtok_type=), or a policy key=value
 * override handed to kdf_policy_set() after kdf_policy_load().  Anything
 * else, and any malformed value, is skipped and makes the module run
 * degraded: the built-in policy, no upgrade, a LOG_ERR line at every call.
 * Refusing the login instead (PAM_SERVICE_ERR) handed the stack to
 * pam_unix, which cannot read the entries this module wrote: one typo
 * locked out every upgraded account, root's included.  Verification needs
 * nothing from the configuration but caps, and the built-in ones are safe.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "options.h"

static int
flag_option(struct kdf_pam_options *o, const char *arg)
{
    if (strcmp(arg, "nullok") == 0)
        o->nullok = 1;
    else if (strcmp(arg, "debug") == 0)
        o->debug = 1;
    else if (strcmp(arg, "use_first_pass") == 0)
        o->use_first_pass = 1;
    else if (strcmp(arg, "try_first_pass") == 0)
        o->try_first_pass = 1;
    else if (strcmp(arg, "use_authtok") == 0)
        o->use_authtok = 1;
    else if (strcmp(arg, "nodelay") == 0)
        o->nodelay = 1;
    else
        return 0;
    return 1;
}

/* A path argument must be absolute: a module runs inside sshd, su, login or
 * a screen locker, whose working directory is nobody's business. */
static int
path_ok(const char *p)
{
    return p != NULL && p[0] == '/';
}

/* Policy keys are spelt [a-z0-9._-]+ (target, min.bcrypt, max.memory-hard...). */
static int
policy_key_ok(const char *arg, size_t key_len)
{
    if (key_len == 0 || key_len >= KDF_PAM_KEY_MAX)
        return 0;
    for (size_t i = 0; i < key_len; i++) {
        char c = arg[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return 0;
    }
    return 1;
}

/* Remember a skipped argument for the log. */
static void
note_bad(struct kdf_pam_options *o, const char *arg, const char *why)
{
    if (o->n_bad < KDF_PAM_MAX_BAD) {
        o->bad[o->n_bad].arg = arg;
        o->bad[o->n_bad].why = why;
    }
    o->n_bad++;
}

/* The options that name a file or a program: 1 when arg is one of them
 * (taken, or noted as bad), else 0. */
static int
path_option(struct kdf_pam_options *o, const char *arg)
{
    if (strncmp(arg, "shadow=", 7) == 0) {
        if (path_ok(arg + 7)) {
            o->shadow_path = arg + 7;
        } else {
            /* Not an earlier shadow= either: the system's file is the
             * one every other module of the stack reads. */
            o->shadow_path = KDF_PAM_DEFAULT_SHADOW;
            note_bad(o, arg, "shadow= needs an absolute path (reading /etc/shadow)");
        }
    } else if (strncmp(arg, "keys=", 5) == 0) {
        /* Honoured in the degraded mode too: a typo elsewhere must not
         * put the keys of keyed entries out of reach. */
        if (path_ok(arg + 5))
            o->keys_dir = arg + 5;
        else
            note_bad(o, arg, "keys= needs an absolute path (reading " KDF_KEYS_DIR ")");
    } else if (strncmp(arg, "conf=", 5) == 0) {
        if (path_ok(arg + 5)) {
            o->conf_path = arg + 5;
            o->conf_explicit = 1;
        } else {
            note_bad(o, arg, "conf= needs an absolute path");
        }
    } else if (strncmp(arg, "opasswd=", 8) == 0) {
        if (path_ok(arg + 8)) {
            o->opasswd_path = arg + 8;
        } else {
            o->opasswd_path = KDF_PAM_DEFAULT_OPASSWD;
            note_bad(o, arg, "opasswd= needs an absolute path");
        }
    } else if (strncmp(arg, "cache_file=", 11) == 0) {
        if (path_ok(arg + 11)) {
            o->cache_path = arg + 11;
        } else {
            o->cache_path = KDF_PAM_DEFAULT_CACHE;
            note_bad(o, arg, "cache_file= needs an absolute path");
        }
    } else if (strncmp(arg, "update_helper=", 14) == 0) {
        /* The helper that writes where SELinux denies the login's process
         * (update_client.h). */
        if (path_ok(arg + 14)) {
            o->update_prog = arg + 14;
        } else {
            o->update_prog = KDF_PAM_DEFAULT_UPDATE;
            note_bad(o, arg, "update_helper= needs an absolute path");
        }
    } else if (strncmp(arg, "tpm_helper=", 11) == 0) {
        /* The child that asks a TPM for a key's secret (tpm_client.h). */
        if (path_ok(arg + 11)) {
            o->tpm.prog = arg + 11;
        } else {
            o->tpm.prog = kdf_pam_tpm_default_prog;
            note_bad(o, arg, "tpm_helper= needs an absolute path");
        }
    } else {
        return 0;
    }
    return 1;
}

/* The options that take a number: 1 when arg is one of them
 * (taken, or noted as bad), else 0. */
static int
number_option(struct kdf_pam_options *o, const char *arg)
{
    if (strncmp(arg, "minlen=", 7) == 0) {
        /* pam_unix's minlen (our min.length): plain decimal, 0 turns it off. */
        const char *v = arg + 7;
        size_t n = strlen(v);
        unsigned long m = 0;

        if (n == 0 || n > 4 || strspn(v, "0123456789") != n || (n > 1 && v[0] == '0')) {
            o->minlen = KDF_PAM_MINLEN_POLICY;
            note_bad(o, arg, "minlen= takes a number of characters (0..9999)");
            return 1;
        }
        for (size_t k = 0; k < n; k++)
            m = m * 10 + (unsigned long)(v[k] - '0');
        o->minlen = (unsigned)m;
    } else if (strncmp(arg, "remember=", 9) == 0) {
        /* pam_unix's remember=N: decimal; larger than 400 is 400. */
        const char *v = arg + 9;
        size_t n = strlen(v);
        unsigned long m = 0;

        if (n == 0 || n > 9 || strspn(v, "0123456789") != n) {
            o->remember = 0;
            note_bad(o, arg, "remember= takes a number of passwords (0..400)");
            return 1;
        }
        for (size_t k = 0; k < n; k++)
            m = m * 10 + (unsigned long)(v[k] - '0');
        o->remember = m > KDF_PAM_MAX_REMEMBER ? KDF_PAM_MAX_REMEMBER : (unsigned)m;
    } else {
        return 0;
    }
    return 1;
}

/* The options that choose a mode: 1 when arg is one of them
 * (taken, or noted as bad), else 0. */
static int
choice_option(struct kdf_pam_options *o, const char *arg)
{
    if (strncmp(arg, "authtok_type=", 13) == 0) {
        /* Read by pam_get_authtok() itself for its "New %s password:"
         * prompt (pam_get_authtok(3)); nothing for us to keep. */
    } else if (strncmp(arg, "chkpwd=", 7) == 0) {
        /* The helper run for callers that cannot read the shadow file
         * (chkpwd_client.c); "off" never runs one. */
        if (strcmp(arg + 7, "off") == 0) {
            o->chkpwd_prog = NULL;
        } else if (path_ok(arg + 7)) {
            o->chkpwd_prog = arg + 7;
        } else {
            o->chkpwd_prog = KDF_PAM_DEFAULT_CHKPWD;
    o->update_prog = KDF_PAM_DEFAULT_UPDATE;
            note_bad(o, arg, "chkpwd= takes off or an absolute path");
        }
    } else if (strncmp(arg, "cache=", 6) == 0) {
        /* The offline cache's modes (cache.c); a typo must neither
         * store a password nor drop an entry. */
        static const char *const modes[] = {"store", "validate", "update", "forget"};
        static const enum kdf_pam_cache m[] = {KDF_PAM_CACHE_STORE, KDF_PAM_CACHE_VALIDATE,
                                               KDF_PAM_CACHE_UPDATE, KDF_PAM_CACHE_FORGET};
        size_t k = 0;

        while (k < 4 && strcmp(arg + 6, modes[k]) != 0)
            k++;
        o->cache = k < 4 ? m[k] : KDF_PAM_CACHE_VALIDATE;
        if (k == 4)
            note_bad(o, arg, "cache= takes store, validate, update or forget");
    } else if (strncmp(arg, "write_helper=", 13) == 0) {
        /* A typo falls back to the default, which writes wherever the
         * host lets the module write. */
        static const char *const modes[] = {"auto", "always", "never"};
        static const enum kdf_pam_write_helper m[] = {KDF_PAM_WRITE_HELPER_AUTO,
                                                      KDF_PAM_WRITE_HELPER_ALWAYS,
                                                      KDF_PAM_WRITE_HELPER_NEVER};
        size_t k = 0;

        while (k < 3 && strcmp(arg + 13, modes[k]) != 0)
            k++;
        o->write_helper = k < 3 ? m[k] : KDF_PAM_WRITE_HELPER_AUTO;
        if (k == 3)
            note_bad(o, arg, "write_helper= takes auto, always or never");
    } else if (strncmp(arg, "upgrade=", 8) == 0) {
        const char *v = arg + 8;
        if (strcmp(v, "file") == 0) {
            o->upgrade = KDF_PAM_UPGRADE_FILE;
        } else if (strcmp(v, "off") == 0) {
            o->upgrade = KDF_PAM_UPGRADE_OFF;
        } else if (strncmp(v, "exec:", 5) == 0 && path_ok(v + 5)) {
            o->upgrade = KDF_PAM_UPGRADE_EXEC;
            o->upgrade_prog = v + 5;
        } else {
            o->upgrade = KDF_PAM_UPGRADE_OFF;
            note_bad(o, arg, "upgrade= takes file, off or exec:/ABSOLUTE/PATH");
        }
    } else {
        return 0;
    }
    return 1;
}

size_t
kdf_pam_parse_options(struct kdf_pam_options *o, int argc, const char **argv,
                      const char **bad, const char **why)
{
    memset(o, 0, sizeof *o);
    o->shadow_path = KDF_PAM_DEFAULT_SHADOW;
    o->conf_path = KDF_PAM_DEFAULT_CONF;
    o->upgrade = KDF_PAM_UPGRADE_FILE;
    o->chkpwd_prog = KDF_PAM_DEFAULT_CHKPWD;
    o->minlen = KDF_PAM_MINLEN_POLICY;
    o->opasswd_path = KDF_PAM_DEFAULT_OPASSWD;
    o->keys_dir = KDF_KEYS_DIR;
    o->cache_path = KDF_PAM_DEFAULT_CACHE;
    o->tpm.prog = kdf_pam_tpm_default_prog;
    o->tpm.timeout_ms = KDF_TPM_TIMEOUT_MS;

    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq;

        if (arg == NULL)
            continue;
        if (flag_option(o, arg))
            continue;
        eq = strchr(arg, '=');
        if (eq == NULL) {
            note_bad(o, arg, "unknown option");
        } else if (path_option(o, arg) || number_option(o, arg) || choice_option(o, arg)) {
            /* taken, or noted as bad */
        } else if (policy_key_ok(arg, (size_t)(eq - arg)) && eq[1] != '\0') {
            /* Checked for meaning later by kdf_policy_set(). */
            if (o->n_overrides == KDF_PAM_MAX_OVERRIDES)
                note_bad(o, arg, "too many policy overrides");
            else
                o->overrides[o->n_overrides++] = arg;
        } else {
            note_bad(o, arg, "malformed option");
        }
    }
    if (o->use_first_pass && o->try_first_pass) {
        /* pam_unix lets use_first_pass win silently; contradictory
         * configuration is better reported than guessed at, and the
         * stricter of the two is kept meanwhile. */
        o->try_first_pass = 0;
        note_bad(o, "use_first_pass", "use_first_pass and try_first_pass are exclusive");
    }
    /* Degraded: never write at login, whatever upgrade= said. */
    if (o->n_bad > 0)
        o->upgrade = KDF_PAM_UPGRADE_OFF;
    *bad = o->n_bad > 0 ? o->bad[0].arg : NULL;
    *why = o->n_bad > 0 ? o->bad[0].why : NULL;
    return o->n_bad;
}
