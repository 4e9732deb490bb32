/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cache.c - the offline cache of directory users' passwords (cache.h,
 * pam_kdfhash(8) OFFLINE CACHE).
 *
 * SSSD caches a directory user's password as SHA-512 crypt at 5,000
 * rounds and pam_ccreds as one salted SHA-1: a stolen laptop gives the
 * fleet's passwords at legacy speed.  Here the verifier is the policy's
 * target (Argon2id, keyed with the pepper), in a shadow-style file only
 * root reads, "user:hash:day", day the last online login (shadow(5)'s
 * lastchg field, so lookup.c and `kdfhash audit` read it as they read a
 * shadow file).  It is written by write.c's kdf_write_line() alone.
 *
 * The day is refreshed at every online login, not only when the hash
 * changes: offline.max-age bounds how long ago the directory last vouched
 * for the password, which is what a revoked or changed password needs.
 * The writer skips an identical line, so that costs one write per user
 * and day, not one per login.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "cache.h"
#include "journal.h"
#include "lookup.h"
#include "policy_load.h"
#include "verdict.h"
#include "write.h"
#include "xcrypt_only.h"

long
kdf_pam_cache_today(void)
{
    return (long)(time(NULL) / 86400);
}

/* The file and its directory may only be root's (our euid's) and
 * unreadable to others: a cache anyone else can write could be given a
 * password of their choice.  0: fine, or absent (*absent set); else -1
 * with why (for the log).  EACCES on the directory is the non-root
 * caller's case. */
static int
cache_file_ok(const char *path, int *absent, int *eacces, char *why, size_t cap)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    struct stat st;
    uid_t me = geteuid();

    *absent = 0;
    *eacces = 0;
    snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT) {
            *absent = 1;
            return 0;
        }
        *eacces = errno == EACCES;
        snprintf(why, cap, "directory: %s", strerror(errno));
        return -1;
    }
    if (st.st_uid != me && me != 0 && st.st_uid == 0) {
        *eacces = 1; /* root's cache, a caller that is not root */
        snprintf(why, cap, "not root");
        return -1;
    }
    if (st.st_uid != me || (st.st_mode & 022) != 0) {
        snprintf(why, cap, "its directory is not %s's alone (owner %lu, mode %03lo)",
                 me == 0 ? "root" : "the caller", (unsigned long)st.st_uid,
                 (unsigned long)(st.st_mode & 07777));
        return -1;
    }
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) {
            *absent = 1;
            return 0;
        }
        *eacces = errno == EACCES;
        snprintf(why, cap, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != me || (st.st_mode & 077) != 0) {
        snprintf(why, cap,
                 "not a regular file of %s's with mode 0600 (owner %lu, mode %03lo)",
                 me == 0 ? "root" : "the caller", (unsigned long)st.st_uid,
                 (unsigned long)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* The policy an entry of user is made and judged under: the admins' is
 * unkeyed (an administrator never depends on a key file; after_login() in
 * pam_kdfhash.c applies the same rule to the shadow file). */
static void
user_policy(pam_handle_t *pamh, const struct kdf_policy *pol, const char *user,
            struct kdf_policy *out)
{
    *out = *pol;
    if (kdf_pam_admin_unkeyed(out, user) < 0)
        pam_syslog(pamh, LOG_WARNING,
                   "cannot read the groups of %s: cached without the pepper (admins)", user);
}

/* The parent directory of a first store: 0700, root's. */
static void
make_dir(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');

    if (slash == NULL || slash == path)
        return;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    (void)mkdir(dir, 0700);
}

static int
store(pam_handle_t *pamh, const struct kdf_pam_options *opt, const struct kdf_policy *pol,
      int degraded, const char *user, const char *pw, size_t pw_len,
      struct kdf_lookup_entry *e)
{
    char line[KDF_SHADOW_MAX_NAME + KDF_SHADOW_MAX_HASH + 32];
    char new_hash[KDF_MAX_HASH_STR + 1];
    char why[256], err[256];
    struct kdf_policy upol;
    struct kdf_hash h;
    enum kdf_lookup_status ls;
    enum kdf_write_status ws;
    enum kdf_status st;
    const char *hash = NULL, *reason = NULL, *done = "stored";
    int absent, eacces;

    if (degraded) {
        pam_syslog(pamh, LOG_ERR, "%s not stored in the offline cache: " KDF_PAM_DEGRADED,
                   user);
        return PAM_IGNORE;
    }
    make_dir(opt->cache_path);
    if (cache_file_ok(opt->cache_path, &absent, &eacces, why, sizeof why) != 0) {
        pam_syslog(pamh, LOG_ERR, "%s not stored in the offline cache %s: %s%s", user,
                   opt->cache_path, why, eacces ? " (only root can write it)" : "");
        return PAM_IGNORE;
    }
    user_policy(pamh, pol, user, &upol);
    ls = absent ? KDF_LOOKUP_NOT_FOUND : kdf_lookup_user(opt->cache_path, user, e);
    if (ls == KDF_LOOKUP_UNAVAIL || ls == KDF_LOOKUP_NOMEM) {
        pam_syslog(pamh, LOG_ERR, "%s not stored in the offline cache %s: %s", user,
                   opt->cache_path,
                   ls == KDF_LOOKUP_NOMEM ? "out of memory"
                                          : (e->err ? strerror(e->err) : e->what));
        return PAM_IGNORE;
    }
    /* An entry that verifies and is at the target keeps its hash: a
     * new salt at every login would be a write per login for nothing. */
    if (ls == KDF_LOOKUP_FOUND &&
        kdf_pam_verdict(&upol, e->hash, e->hash_len, 0, pw, pw_len, &h, &st, &reason) ==
            KDF_PAM_V_OK &&
        kdf_needs_rehash(&h, &upol) == KDF_REHASH_NO &&
        (upol.pepper[0] != '\0' || h.keyid.len == 0)) {
        hash = e->hash;
        done = "refreshed";
    }
    kdf_wipe(&h, sizeof h);
    if (hash == NULL) {
        st = kdf_pam_new_hash(&upol, pw, pw_len, new_hash, sizeof new_hash, &reason);
        if (st == KDF_NOKEY && reason == NULL)
            reason = kdf_pam_key_error(opt);
        if (st != KDF_OK) {
            pam_syslog(pamh, LOG_WARNING, "%s not stored in the offline cache: new hash: %s%s%s",
                       user, kdf_status_str(st), reason ? ": " : "", reason ? reason : "");
            return PAM_IGNORE;
        }
        hash = new_hash;
    }
    snprintf(line, sizeof line, "%s:%s:%ld", user, hash, kdf_pam_cache_today());
    ws = kdf_write_line(opt->cache_path, user, line, KDF_PAM_CACHE_LOCK_WAIT_MS, err,
                        sizeof err);
    kdf_wipe(line, sizeof line);
    kdf_wipe(new_hash, sizeof new_hash);
    if (ws != KDF_WRITE_OK) {
        pam_syslog(pamh, LOG_WARNING, "%s not stored in the offline cache %s: %s%s%s", user,
                   opt->cache_path, kdf_write_status_str(ws), err[0] ? ": " : "", err);
        return PAM_IGNORE;
    }
    if (opt->debug || strcmp(done, "stored") == 0)
        pam_syslog(pamh, LOG_INFO, "%s %s in the offline cache (%s%s)", done, user,
                   kdf_target_name(&upol.target), upol.pepper[0] ? ", keyed" : "");
    return PAM_SUCCESS;
}

/* The day of an entry: field 3 (lookup.c's lastchg).  NULL when usable,
 * else why not. */
static const char *
entry_age(const struct kdf_policy *pol, long day, long today, long *age)
{
    *age = today - day;
    if (day < 0)
        return "no day of the last online login";
    /* One day of slack for a clock set back after the store. */
    if (day > today + 1)
        return "dated in the future";
    if (pol->offline_max_age != 0 && *age > (long)pol->offline_max_age)
        return "expired";
    return NULL;
}

static int
validate(pam_handle_t *pamh, const struct kdf_pam_options *opt, const struct kdf_policy *pol,
         const char *user, const char *pw, size_t pw_len, struct kdf_lookup_entry *e)
{
    char why[256];
    struct kdf_hash h;
    enum kdf_lookup_status ls;
    enum kdf_status st;
    const char *reason = NULL, *bad;
    long age;
    int absent, eacces;

    if (cache_file_ok(opt->cache_path, &absent, &eacces, why, sizeof why) != 0) {
        if (eacces) {
            /* A screen locker runs as the user: the cache is root's. */
            pam_syslog(pamh, LOG_ERR,
                       "cannot read the offline cache %s as uid %lu: only root can "
                       "(no offline login for this caller)",
                       opt->cache_path, (unsigned long)getuid());
            return PAM_AUTHINFO_UNAVAIL;
        }
        kdf_pam_dummy_verify(pol, pw, pw_len);
        pam_syslog(pamh, LOG_ERR, "offline cache %s refused: %s", opt->cache_path, why);
        return PAM_AUTHINFO_UNAVAIL;
    }
    ls = absent ? KDF_LOOKUP_NOT_FOUND : kdf_lookup_user(opt->cache_path, user, e);
    switch (ls) {
    case KDF_LOOKUP_FOUND:
        break;
    case KDF_LOOKUP_NOT_FOUND:
        kdf_pam_dummy_verify(pol, pw, pw_len);
        pam_syslog(pamh, LOG_NOTICE, "offline authentication failure: no cached entry");
        return PAM_USER_UNKNOWN;
    case KDF_LOOKUP_UNAVAIL:
        if (e->err == EACCES) {
            pam_syslog(pamh, LOG_ERR,
                       "cannot read the offline cache %s as uid %lu: only root can "
                       "(no offline login for this caller)",
                       opt->cache_path, (unsigned long)getuid());
            return PAM_AUTHINFO_UNAVAIL;
        }
        pam_syslog(pamh, LOG_ERR, "cannot read the offline cache %s: %s", opt->cache_path,
                   e->err ? strerror(e->err) : e->what);
        return PAM_AUTHINFO_UNAVAIL;
    case KDF_LOOKUP_NOMEM:
        pam_syslog(pamh, LOG_CRIT, "out of memory");
        return PAM_BUF_ERR;
    default:
        kdf_pam_dummy_verify(pol, pw, pw_len);
        pam_syslog(pamh, LOG_ERR, "offline cache entry of %s refused: %s", user,
                   kdf_lookup_status_str(ls));
        return PAM_AUTH_ERR;
    }
    bad = entry_age(pol, e->aging.lastchg, kdf_pam_cache_today(), &age);
    if (bad != NULL) {
        kdf_pam_dummy_verify(pol, pw, pw_len);
        if (bad[0] == 'e')
            pam_syslog(pamh, LOG_NOTICE,
                       "offline cache entry of %s expired: last online login %ld days ago "
                       "(offline.max-age %u)",
                       user, age, (unsigned)pol->offline_max_age);
        else
            pam_syslog(pamh, LOG_ERR, "offline cache entry of %s refused: %s", user, bad);
        return PAM_AUTH_ERR;
    }
    switch (kdf_pam_verdict(pol, e->hash, e->hash_len, 0, pw, pw_len, &h, &st, &reason)) {
    case KDF_PAM_V_OK:
        pam_syslog(pamh, LOG_INFO,
                   "%s authenticated offline (%s, last online login %ld days ago)", user,
                   kdf_scheme_name(h.scheme), age);
        kdf_wipe(&h, sizeof h);
        return PAM_SUCCESS;
    case KDF_PAM_V_FAILED:
        if (st == KDF_MISMATCH) {
            /* pam_unix's line, as for an online refusal (journal.h). */
            kdf_pam_unix_failure(pamh, user, user);
            pam_syslog(pamh, LOG_NOTICE, "offline authentication failure for %s (%s)", user,
                       kdf_scheme_name(h.scheme));
        } else if (st == KDF_NOKEY)
            pam_syslog(pamh, LOG_ERR, "cannot verify %s offline: keyed with a key that "
                       "cannot be read: %s", user, kdf_pam_key_error(opt));
        else
            pam_syslog(pamh, LOG_ERR, "cannot verify %s offline (%s): %s", user,
                       kdf_scheme_name(h.scheme), kdf_status_str(st));
        kdf_wipe(&h, sizeof h);
        return st == KDF_NOMEM ? PAM_BUF_ERR : PAM_AUTH_ERR;
    default: /* empty, locked, malformed, over the caps: no line we write */
        kdf_wipe(&h, sizeof h);
        pam_syslog(pamh, LOG_ERR, "offline cache entry of %s refused: %s%s%s", user,
                   st != KDF_OK ? kdf_status_str(st) : "empty or locked field",
                   reason ? ": " : "", reason ? reason : "");
        return PAM_AUTH_ERR;
    }
}

/* update and forget: after an online refusal. */
static int
drop(pam_handle_t *pamh, const struct kdf_pam_options *opt, const struct kdf_policy *pol,
     const char *user, const char *pw, size_t pw_len, struct kdf_lookup_entry *e)
{
    char why[256], err[256];
    struct kdf_policy upol;
    struct kdf_hash h;
    enum kdf_status st;
    enum kdf_write_status ws;
    const char *reason = NULL;
    int absent, eacces;

    if (cache_file_ok(opt->cache_path, &absent, &eacces, why, sizeof why) != 0) {
        pam_syslog(pamh, LOG_ERR, "offline cache %s: %s%s", opt->cache_path, why,
                   eacces ? " (only root can write it)" : "");
        return PAM_AUTH_ERR;
    }
    if (absent)
        return PAM_AUTH_ERR;
    if (opt->cache == KDF_PAM_CACHE_UPDATE) {
        /* Only a password the cache would still accept is stale: a typo
         * online keeps the entry for the next trip offline. */
        enum kdf_pam_verdict v;

        if (kdf_lookup_user(opt->cache_path, user, e) != KDF_LOOKUP_FOUND) {
            kdf_pam_dummy_verify(pol, pw, pw_len);
            return PAM_AUTH_ERR;
        }
        user_policy(pamh, pol, user, &upol);
        v = kdf_pam_verdict(&upol, e->hash, e->hash_len, 0, pw, pw_len, &h, &st, &reason);
        kdf_wipe(&h, sizeof h);
        if (v != KDF_PAM_V_OK)
            return PAM_AUTH_ERR;
    }
    ws = kdf_write_line(opt->cache_path, user, NULL, KDF_PAM_CACHE_LOCK_WAIT_MS, err,
                        sizeof err);
    if (ws != KDF_WRITE_OK)
        pam_syslog(pamh, LOG_WARNING, "%s not dropped from the offline cache %s: %s%s%s", user,
                   opt->cache_path, kdf_write_status_str(ws), err[0] ? ": " : "", err);
    else if (opt->cache == KDF_PAM_CACHE_UPDATE)
        pam_syslog(pamh, LOG_NOTICE,
                   "dropped %s from the offline cache: the directory refused the password "
                   "it holds",
                   user);
    else if (opt->debug)
        pam_syslog(pamh, LOG_DEBUG, "%s has no entry in the offline cache now (forget)", user);
    return PAM_AUTH_ERR;
}

int
kdf_pam_cache_run(pam_handle_t *pamh, const struct kdf_pam_options *opt,
                  const struct kdf_policy *pol, int degraded, const char *user,
                  const char *pw, size_t pw_len)
{
    struct kdf_lookup_entry *e = malloc(sizeof *e);
    int rc;

    if (!kdf_shadow_name_ok(user)) {
        free(e);
        pam_syslog(pamh, LOG_NOTICE, "offline cache: unacceptable user name");
        if (opt->cache == KDF_PAM_CACHE_STORE)
            return PAM_IGNORE;
        kdf_pam_dummy_verify(pol, pw, pw_len);
        return opt->cache == KDF_PAM_CACHE_VALIDATE ? PAM_USER_UNKNOWN : PAM_AUTH_ERR;
    }
    if (e == NULL) {
        pam_syslog(pamh, LOG_CRIT, "out of memory");
        return opt->cache == KDF_PAM_CACHE_STORE ? PAM_IGNORE : PAM_BUF_ERR;
    }
    memset(e, 0, sizeof *e);
    switch (opt->cache) {
    case KDF_PAM_CACHE_STORE:
        rc = store(pamh, opt, pol, degraded, user, pw, pw_len, e);
        break;
    case KDF_PAM_CACHE_VALIDATE:
        rc = validate(pamh, opt, pol, user, pw, pw_len, e);
        break;
    default:
        rc = drop(pamh, opt, pol, user, pw, pw_len, e);
        break;
    }
    kdf_wipe(e, sizeof *e);
    free(e);
    return rc;
}
