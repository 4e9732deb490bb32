/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_kdfhash.c - the PAM entry points of pam_kdfhash.so: authenticate
 * against bcrypt, Argon2, PBKDF2 and crypt(3) entries of a shadow-style
 * file and upgrade outdated ones after a successful login; the other groups
 * answer at once.  Password changes are chauthtok.c's, the start both
 * share preamble.c's.
 *
 * One login: options -> user -> password -> lookup -> parse -> caps ->
 * verify -> PAM result (decided here) -> [upgrade, which cannot change it].
 * The results table and the choices behind it (over-cap entries, empty
 * fields, unknown users, the helper, use/try_first_pass) are in
 * doc/DESIGN.md "The path of one login" and "The PAM module".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_AUTH
#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "audit_rec.h"
#include "blocklist_pam.h"
#include "cache.h"
#include "fips_gate.h"
#include "chkpwd_client.h"
#include "journal.h"
#include "kdfhash.h"
#include "lookup.h"
#include "options.h"
#include "policy_load.h"
#include "preamble.h"
#include "update_client.h"
#include "upgrade.h"
#include "verdict.h"
#include "xcrypt_only.h"

/* Bounded wait for the shadow lock: a login is delayed at most this much by
 * a concurrent passwd/chpasswd, then the upgrade is skipped. */
#define KDF_PAM_LOCK_WAIT_MS 200
/* The exec hook is killed after 5 s (doc/DESIGN.md "Writing a new hash:
 * the file writer and the exec hook"). */
#define KDF_PAM_EXEC_TIMEOUT_MS 5000

struct login {
    pam_handle_t *pamh;
    struct kdf_pam_options opt;
    struct kdf_policy pol;
    const char *user;
    const char *pw; /* the PAM_AUTHTOK item: libpam's memory, never ours */
    size_t pw_len;
    int via_helper; /* kdfhash-chkpwd answered, after its own fail delay */
    int degraded;   /* the policy did not load (preamble.c) */
};

/* ---- profile = fips ----------------------------------------------------- */

/* The kernel's FIPS switch; a test build of the module names another file. */
#ifndef KDF_PAM_FIPS_ENABLED
#define KDF_PAM_FIPS_ENABLED KDF_FIPS_ENABLED_PATH
#endif

/* Under fips, say that an entry which verified is not FIPS-approved;
 * kdf_needs_rehash() moves it to the target (not-fips-approved). */
static void
log_unapproved(const struct login *l, const struct kdf_hash *h)
{
    if ((l->pol.profile & KDF_PROFILE_FIPS) && !kdf_hash_fips_approved(h))
        pam_syslog(l->pamh, LOG_NOTICE,
                   "%s verified with %s, not FIPS-approved (profile = fips)", l->user,
                   kdf_hash_scheme_name(h));
}

/* ---- the password ------------------------------------------------------- */

static int
conv_result(int rc)
{
    if (rc == PAM_CONV_AGAIN)
        return PAM_INCOMPLETE;
    if (rc == PAM_BUF_ERR)
        return PAM_BUF_ERR;
    return PAM_CONV_ERR;
}

/* use_first_pass: PAM_AUTHTOK or fail; try_first_pass: PAM_AUTHTOK, else one
 * prompt; neither: prompt and publish the answer as PAM_AUTHTOK.  We call
 * pam_prompt() ourselves because pam_get_authtok() turns every conversation
 * failure into PAM_AUTHTOK_ERR, hiding PAM_CONV_ERR and PAM_INCOMPLETE. */
static int
get_password(struct login *l)
{
    const void *item = NULL;
    char *resp = NULL;
    int rc;

    if (l->opt.use_first_pass || l->opt.try_first_pass) {
        rc = pam_get_item(l->pamh, PAM_AUTHTOK, &item);
        if (rc == PAM_SUCCESS && item != NULL) {
            l->pw = item;
            return PAM_SUCCESS;
        }
        if (l->opt.use_first_pass) {
            pam_syslog(l->pamh, LOG_NOTICE,
                       "use_first_pass given but no password from an earlier module");
            return PAM_AUTH_ERR;
        }
    }
    rc = pam_prompt(l->pamh, PAM_PROMPT_ECHO_OFF, &resp, "%s", "Password: ");
    if (rc != PAM_SUCCESS || resp == NULL) {
        if (resp != NULL) {
            kdf_wipe(resp, strlen(resp));
            free(resp);
        }
        /* libpam's pam_prompt() has already logged "conversation failed"
         * under our name when the conversation itself failed. */
        if (rc == PAM_SUCCESS)
            pam_syslog(l->pamh, LOG_ERR, "conversation returned no password");
        return rc == PAM_SUCCESS ? PAM_CONV_ERR : conv_result(rc);
    }
    /* libpam copies the item; our copy is wiped at once (MWG, "Authentication
     * tokens"). */
    rc = pam_set_item(l->pamh, PAM_AUTHTOK, resp);
    kdf_wipe(resp, strlen(resp));
    free(resp);
    if (rc == PAM_SUCCESS)
        rc = pam_get_item(l->pamh, PAM_AUTHTOK, &item);
    if (rc != PAM_SUCCESS || item == NULL) {
        pam_syslog(l->pamh, LOG_ERR, "cannot keep the password: %s",
                   pam_strerror(l->pamh, rc));
        return rc == PAM_SUCCESS ? PAM_SYSTEM_ERR : rc;
    }
    l->pw = item;
    return PAM_SUCCESS;
}

/* ---- timing equalisation ------------------------------------------------ */

/*
 * Unknown, locked, empty, malformed and duplicate entries cost one
 * verification at the policy target with the typed password, through the
 * same kdf_parse() + kdf_check_caps() + kdf_verify_ex() calls as a wrong
 * password on an entry at the target (kdf_pam_dummy_verify(), verdict.c),
 * so the reply time does not tell which case it was (doc/DESIGN.md "The PAM
 * module").  A wrong password on an OUTDATED entry costs
 * that entry's own verification, cheaper than the target: inherent (we can
 * only verify what is stored) and gone after the user's next successful
 * login upgrades the entry.
 */
static void
dummy_verify(const struct login *l)
{
    kdf_pam_dummy_verify(&l->pol, l->pw, l->pw_len);
}

/* ---- the upgrade hook --------------------------------------------------- */

/* The audit record of an upgrade's write (audit_rec.h): after its outcome,
 * whichever way it went; a forced move has its rule as its only reason. */
static void
record_upgrade(const struct login *l, const char *from, const char *to, enum kdf_rehash why,
               const char *tag, int forced, enum kdf_write_status us)
{
    struct kdf_audit_rec r = {
        .op = why == KDF_REHASH_MIGRATE ? KDF_AUDIT_MIGRATE : KDF_AUDIT_UPGRADE,
        .user = l->user,
        .old_scheme = from,
        .new_scheme = to,
        .reason = forced ? NULL : kdf_rehash_reason(why),
        .rule = tag,
        .via = l->opt.upgrade == KDF_PAM_UPGRADE_EXEC ? "hook" : NULL,
    };
    const void *item;
    char err[160] = "";

    if (pam_get_item(l->pamh, PAM_RHOST, &item) == PAM_SUCCESS)
        r.rhost = item;
    if (pam_get_item(l->pamh, PAM_TTY, &item) == PAM_SUCCESS)
        r.tty = item;
    if (kdf_audit_once(&r, us, err, sizeof err) != 0)
        pam_syslog(l->pamh, LOG_WARNING, "%s", err);
}

/* Rewrite the entry to pol's target (the login's policy, or the libxcrypt
 * target of an xcrypt-only user: then tag is "xcrypt-only", and a forced
 * move of an entry libxcrypt cannot verify logs that tag alone as its
 * reason). */
static void
upgrade(const struct login *l, const struct kdf_policy *pol, const struct kdf_hash *h,
        enum kdf_form form, const char *old_hash, enum kdf_rehash why, const char *tag,
        int forced)
{
    char new_hash[KDF_MAX_HASH_STR + 1];
    char err[256], reason[64];
    struct kdf_pam_event_fields f;
    enum kdf_status st;
    enum kdf_write_status us;
    const char *from = kdf_hash_scheme_name(h);
    const char *to = kdf_target_name(&pol->target);
    const char *why_bad = NULL;
    /* migrate = yes may move an entry to a weaker scheme on purpose: that
     * is a migration, and the log must never call it an upgrade. */
    const char *done = why == KDF_REHASH_MIGRATE ? "migrated" : "upgraded";
    const char *doing = why == KDF_REHASH_MIGRATE ? "migration" : "upgrade";
    int wstatus = 0;

    if (forced)
        snprintf(reason, sizeof reason, "%s", tag);
    else if (tag != NULL)
        snprintf(reason, sizeof reason, "%s; %s", kdf_rehash_reason(why), tag);
    else
        snprintf(reason, sizeof reason, "%s", kdf_rehash_reason(why));
    if (!kdf_reads_whole_form(l->pw, l->pw_len, h, &l->pol, form)) {
        /* The scheme ignored the tail of the password (bcrypt after 72
         * bytes, DES after 8): the typed tail may not be the stored one, so
         * hashing all of it could lock the user out. */
        pam_syslog(l->pamh, LOG_NOTICE,
                   "%s of %s (%s) skipped: the stored scheme did not read the whole "
                   "password",
                   doing, l->user, from);
        return;
    }
    st = kdf_pam_new_hash(pol, l->pw, l->pw_len, new_hash, sizeof new_hash, &why_bad);
    if (st == KDF_NOKEY && why_bad == NULL)
        why_bad = kdf_pam_key_error(&l->opt); /* the pepper's key */
    f.user = l->user;
    f.scheme = from;
    f.target = to;
    if (st != KDF_OK) {
        f.reason = kdf_status_str(st);
        kdf_pam_event(l->pamh, "auth",
                      st == KDF_NOKEY ? KDF_PAM_EV_KEY_MISSING : KDF_PAM_EV_UPGRADE_FAILED,
                      LOG_WARNING, &f, "%s of %s (%s -> %s) failed: new hash: %s%s%s", doing,
                      l->user, from, to, kdf_status_str(st), why_bad ? ": " : "",
                      why_bad ? why_bad : "");
        return;
    }

    err[0] = '\0';
    if (l->opt.upgrade == KDF_PAM_UPGRADE_EXEC)
        us = kdf_upgrade_exec(l->opt.upgrade_prog, l->user, old_hash, new_hash,
                              KDF_PAM_EXEC_TIMEOUT_MS, &wstatus, err, sizeof err);
    else
        us = kdf_pam_store_hash(&l->opt, l->user, old_hash, new_hash, KDF_PAM_LOCK_WAIT_MS,
                                err, sizeof err);
    kdf_wipe(new_hash, sizeof new_hash);
    record_upgrade(l, from, to, why, tag, forced, us);
    f.reason = us == KDF_WRITE_OK ? reason : kdf_write_status_str(us);
    if (us == KDF_WRITE_OK)
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_UPGRADE, LOG_NOTICE, &f,
                      "%s %s from %s to %s (%s)", done, l->user, from, to, reason);
    else if (l->opt.upgrade == KDF_PAM_UPGRADE_EXEC)
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_UPGRADE_FAILED, LOG_WARNING, &f,
                      "%s of %s (%s -> %s) failed: exec hook: %s%s%s (wait status %d)", doing,
                      l->user, from, to, kdf_write_status_str(us), err[0] ? ": " : "", err,
                      wstatus);
    else
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_UPGRADE_FAILED, LOG_WARNING, &f,
                      "%s of %s (%s -> %s) failed: %s%s%s", doing, l->user, from, to,
                      kdf_write_status_str(us), err[0] ? ": " : "", err);
}

/*
 * After a successful verification: is the entry outdated, and against which
 * target?  An xcrypt-only user's entry (xcrypt_only.c) is judged against
 * the libxcrypt target, and one libxcrypt cannot verify at all is moved to
 * it even when that target is the weaker scheme: sulogin and rescue media
 * must read it.  The account database is asked only when the answer could
 * matter: an entry libxcrypt reads and the policy keeps is kept for anyone.
 */
static void
after_login(const struct login *l, const struct kdf_hash *h, enum kdf_form form,
            const char *stored)
{
    struct kdf_policy xpol;
    const struct kdf_policy *pol = &l->pol;
    enum kdf_rehash why = kdf_needs_rehash(h, &l->pol);
    int reads = kdf_hash_crypt_reads(h), xo = 0, forced = 0;
    const char *tag = NULL;

    log_unapproved(l, h);

    if (why != KDF_REHASH_NO || !reads)
        xo = kdf_pam_xcrypt_only(&l->pol, l->user);
    if (xo < 0)
        pam_syslog(l->pamh, LOG_WARNING,
                   "cannot read the groups of %s: kept on a scheme libxcrypt reads "
                   "(xcrypt-only)",
                   l->user);
    if (xo != 0) {
        enum kdf_rehash pol_why = why;

        xpol = l->pol;
        (void)kdf_pam_xcrypt_target(&xpol);
        pol = &xpol;
        why = kdf_needs_rehash(h, &xpol);
        if (why == KDF_REHASH_NO && !reads) {
            why = KDF_REHASH_MIGRATE;
            forced = 1;
        }
        if (why == KDF_REHASH_NO && pol_why != KDF_REHASH_NO &&
            l->opt.upgrade != KDF_PAM_UPGRADE_OFF)
            pam_syslog(l->pamh, LOG_INFO, "kept %s on %s (xcrypt-only)", l->user,
                       kdf_hash_scheme_name(h));
        tag = "xcrypt-only";
    } else if (l->pol.pepper[0] != '\0') {
        /* admins: an administrator's entry never depends on a key file
         * (losing it must not lock out who restores it): judged against
         * the policy without its pepper, and a keyed entry is rewritten
         * unkeyed.  Asked only after a successful verification, so its
         * cost tells nothing about passwords; an account database that
         * fails keeps the entry unkeyed (fail-safe). */
        int adm;

        xpol = l->pol;
        adm = kdf_pam_admin_unkeyed(&xpol, l->user);
        if (adm < 0)
            pam_syslog(l->pamh, LOG_WARNING,
                       "cannot read the groups of %s: kept without the pepper (admins)",
                       l->user);
        if (adm != 0) {
            pol = &xpol;
            why = kdf_needs_rehash(h, &xpol);
            if (why == KDF_REHASH_NO && h->keyid.len > 0)
                why = KDF_REHASH_PEPPER;
            tag = "admins";
        }
    }
    /* pol: an xcrypt-only user's is normalize = no (kdf_pam_xcrypt_target()),
     * so that entry stays as typed. */
    if (why == KDF_REHASH_NO && kdf_form_outdated(l->pw, l->pw_len, form, pol))
        why = KDF_REHASH_FORM;
    if (why == KDF_REHASH_NO)
        return;
    if (l->opt.upgrade == KDF_PAM_UPGRADE_OFF) {
        if (l->opt.debug)
            pam_syslog(l->pamh, LOG_DEBUG, "%s is outdated (%s%s%s); upgrade=off", l->user,
                       kdf_rehash_reason(why), tag != NULL ? "; " : "", tag != NULL ? tag : "");
        return;
    }
    upgrade(l, pol, h, form, stored, why, tag, forced);
}

/* ---- the verdict -------------------------------------------------------- */

static int
status_to_pam(enum kdf_status st)
{
    switch (st) {
    case KDF_OK:
        return PAM_SUCCESS;
    case KDF_NOMEM:
        return PAM_BUF_ERR;
    case KDF_INTERNAL:
    case KDF_RANGE:
        return PAM_SYSTEM_ERR;
    default:
        return PAM_AUTH_ERR;
    }
}

/* pam_unix's line for a refused login comes before ours, which says why
 * (journal.h); user NULL: an unknown user, never named. */
static void
refused_as_unix(const struct login *l, const char *user)
{
    kdf_pam_unix_failure(l->pamh, l->user, user);
}

/* Authenticate against the stored field (a NUL-terminated copy). */
static int
check_entry(struct login *l, const char *stored, size_t stored_len, int flags)
{
    struct kdf_pam_event_fields f = {l->user, NULL, NULL, NULL};
    struct kdf_hash h;
    const char *reason = NULL;
    enum kdf_status st;
    enum kdf_pam_verdict v;
    enum kdf_form form;

    v = kdf_pam_verdict_form(&l->pol, stored, stored_len,
                             l->opt.nullok && !kdf_pam_flag(flags, PAM_DISALLOW_NULL_AUTHTOK),
                             l->pw, l->pw_len, &h, &st, &reason, &form);
    switch (v) {
    case KDF_PAM_V_NULLOK:
        if (l->opt.debug)
            pam_syslog(l->pamh, LOG_DEBUG, "%s has no password (nullok)", l->user);
        return PAM_SUCCESS;
    case KDF_PAM_V_EMPTY:
        refused_as_unix(l, l->user);
        f.reason = "empty-field";
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_REFUSAL, LOG_NOTICE, &f,
                      "authentication failure for %s: empty password "
                      "field%s",
                      l->user, l->opt.nullok ? "" : " and no nullok");
        return PAM_AUTH_ERR;
    case KDF_PAM_V_LOCKED:
        refused_as_unix(l, l->user);
        f.reason = "locked";
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_REFUSAL, LOG_NOTICE, &f,
                      "authentication failure for %s: account locked", l->user);
        return PAM_AUTH_ERR;
    case KDF_PAM_V_MALFORMED:
        pam_syslog(l->pamh, LOG_ERR, "entry of %s is %s: %s", l->user, kdf_status_str(st),
                   reason != NULL ? reason : "unrecognised");
        return PAM_AUTH_ERR;
    case KDF_PAM_V_CAPS:
        f.scheme = kdf_scheme_name(h.scheme);
        if (l->pw_len > l->pol.max_password_len) {
            refused_as_unix(l, l->user);
            f.reason = "password-too-long";
            kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_REFUSAL, LOG_NOTICE, &f,
                          "authentication failure for %s: password longer than max.password "
                          "(%u bytes)",
                          l->user, (unsigned)l->pol.max_password_len);
        } else {
            f.reason = reason != NULL ? reason : kdf_status_str(st);
            kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_OVER_CAP, LOG_ERR, &f,
                          "entry of %s (%s): parameters exceed policy: %s", l->user,
                          kdf_scheme_name(h.scheme), f.reason);
        }
        return PAM_AUTH_ERR;
    case KDF_PAM_V_FAILED:
    case KDF_PAM_V_OK:
        break;
    }
    if (st != KDF_OK) {
        f.scheme = kdf_scheme_name(h.scheme);
        f.reason = st == KDF_MISMATCH ? "mismatch" : kdf_status_str(st);
        if (st == KDF_MISMATCH) {
            refused_as_unix(l, l->user);
            kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_REFUSAL, LOG_NOTICE, &f,
                          "authentication failure for %s (%s)", l->user,
                          kdf_scheme_name(h.scheme));
        } else if (st == KDF_NOKEY) { /* never verified without it: pam_kdfhash(8), KEYS */
            kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_KEY_MISSING, LOG_ERR, &f,
                          "cannot verify %s (%s): keyed with key %.*s, which cannot be "
                          "read: %s",
                          l->user, kdf_scheme_name(h.scheme), (int)h.keyid.len,
                          h.keyid.len ? h.keyid.ptr : "", kdf_pam_key_error(&l->opt));
        } else if (st == KDF_BUSY) {
            kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_BUSY, LOG_ERR, &f,
                          "cannot verify %s (%s): %s", l->user, kdf_scheme_name(h.scheme),
                          kdf_status_str(st));
        } else {
            pam_syslog(l->pamh,
                       st == KDF_NOMEM || st == KDF_INTERNAL ? LOG_CRIT : LOG_ERR,
                       "cannot verify %s (%s): %s", l->user, kdf_scheme_name(h.scheme),
                       kdf_status_str(st));
        }
        return status_to_pam(st);
    }
    kdf_pam_unix_success(l->pamh, l->user);
    if (l->opt.debug)
        pam_syslog(l->pamh, LOG_DEBUG, "%s authenticated (%s)", l->user,
                   kdf_scheme_name(h.scheme));

    /* The result is decided: PAM_SUCCESS, whatever the upgrade does. */
    after_login(l, &h, form, stored);
    return PAM_SUCCESS;
}

/*
 * A caller that cannot read the shadow file and is not root (a screen
 * locker): ask kdfhash-chkpwd (chkpwd.c), as pam_unix asks unix_chkpwd.
 * The helper uses the default policy and conf file, not our module-argument
 * overrides, and never upgrades.  A non-default shadow= or an explicit conf=
 * is passed on; the installed setuid helper refuses such paths (it only ever
 * reads /etc/shadow), which ends as PAM_AUTHINFO_UNAVAIL.
 */
static int
run_helper(const struct login *l, int flags)
{
    char err[256];
    int nullok = l->opt.nullok && !kdf_pam_flag(flags, PAM_DISALLOW_NULL_AUTHTOK);
    int pass_paths =
        strcmp(l->opt.shadow_path, KDF_PAM_DEFAULT_SHADOW) != 0 || l->opt.conf_explicit;
    int wstatus = 0, x;

    x = kdf_chkpwd_run(l->opt.chkpwd_prog, l->user, nullok,
                       pass_paths ? l->opt.shadow_path : NULL,
                       l->opt.conf_explicit ? l->opt.conf_path : NULL, l->pw, l->pw_len,
                       KDF_CHKPWD_TIMEOUT_MS, &wstatus, err, sizeof err);
    if (l->opt.debug)
        pam_syslog(l->pamh, LOG_DEBUG, "%s: helper %s exit %d", l->user,
                   l->opt.chkpwd_prog, x);
    switch (x) {
    case KDF_CHKPWD_OK:
        kdf_pam_unix_success(l->pamh, l->user);
        return PAM_SUCCESS;
    case KDF_CHKPWD_AUTH_ERR: {
        struct kdf_pam_event_fields f = {l->user, NULL, NULL, "helper"};

        refused_as_unix(l, l->user);
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_REFUSAL, LOG_NOTICE, &f,
                      "authentication failure for %s (helper)", l->user);
        return PAM_AUTH_ERR;
    }
    case KDF_CHKPWD_USER_UNKNOWN:
        /* The helper answers for the caller's own name only, so there is
         * nothing to enumerate; unix_chkpwd's caller maps this case to
         * PAM_AUTHINFO_UNAVAIL too. */
    case KDF_CHKPWD_UNAVAIL:
        pam_syslog(l->pamh, LOG_ERR, "helper %s cannot read the entry of %s",
                   l->opt.chkpwd_prog, l->user);
        return PAM_AUTHINFO_UNAVAIL;
    case KDF_CHKPWD_SYSTEM_ERR:
        pam_syslog(l->pamh, LOG_CRIT, "helper %s failed", l->opt.chkpwd_prog);
        return PAM_SYSTEM_ERR;
    default:
        pam_syslog(l->pamh, LOG_ERR, "helper %s: %s (wait status %d)", l->opt.chkpwd_prog,
                   x < 0 ? err : "usage refused", wstatus);
        return PAM_AUTHINFO_UNAVAIL;
    }
}

static int
authenticate(struct login *l, int flags)
{
    struct kdf_lookup_entry *e;
    enum kdf_lookup_status ls;
    int rc;

    /* The offline cache's store, update and forget judge the password
     * the directory module judged (pam_kdfhash(8), OFFLINE CACHE), never
     * one we prompt for; a store that has none just stores nothing. */
    if (l->opt.cache != KDF_PAM_CACHE_NONE && l->opt.cache != KDF_PAM_CACHE_VALIDATE) {
        l->opt.use_first_pass = 1;
        l->opt.try_first_pass = 0;
    }
    /* Before the lookup, so unknown users are prompted exactly like known
     * ones. */
    rc = get_password(l);
    if (rc != PAM_SUCCESS)
        return l->opt.cache == KDF_PAM_CACHE_STORE ? PAM_IGNORE : rc;
    l->pw_len = strlen(l->pw);
    if (l->opt.cache != KDF_PAM_CACHE_NONE)
        return kdf_pam_cache_run(l->pamh, &l->opt, &l->pol, l->degraded, l->user, l->pw,
                                 l->pw_len);

    if (!kdf_shadow_name_ok(l->user)) {
        struct kdf_pam_event_fields f = {NULL, NULL, NULL, "unacceptable-name"};

        dummy_verify(l);
        refused_as_unix(l, NULL);
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_REFUSAL, LOG_NOTICE, &f,
                      "authentication failure: unacceptable user name");
        return PAM_USER_UNKNOWN;
    }
    /* 1 KiB: not on the stack of a host that may run us on a small thread. */
    e = malloc(sizeof *e);
    if (e == NULL) {
        pam_syslog(l->pamh, LOG_CRIT, "out of memory");
        return PAM_BUF_ERR;
    }
    ls = kdf_lookup_user(l->opt.shadow_path, l->user, e);
    switch (ls) {
    case KDF_LOOKUP_FOUND:
        rc = check_entry(l, e->hash, e->hash_len, flags);
        break;
    case KDF_LOOKUP_NOT_FOUND: {
        struct kdf_pam_event_fields f = {NULL, NULL, NULL, "unknown-user"};

        dummy_verify(l);
        refused_as_unix(l, NULL);
        kdf_pam_event(l->pamh, "auth", KDF_PAM_EV_REFUSAL, LOG_NOTICE, &f,
                      "authentication failure: unknown user");
        rc = PAM_USER_UNKNOWN;
        break;
    }
    case KDF_LOOKUP_UNAVAIL:
        if (e->err == EACCES && getuid() != 0 && l->opt.chkpwd_prog != NULL) {
            rc = run_helper(l, flags);
            l->via_helper = 1;
            break;
        }
        pam_syslog(l->pamh, LOG_ERR, "cannot read %s: %s%s%s", l->opt.shadow_path,
                   e->what != NULL ? e->what : "error", e->err ? ": " : "",
                   e->err ? strerror(e->err) : "");
        rc = PAM_AUTHINFO_UNAVAIL;
        break;
    case KDF_LOOKUP_NOMEM:
        pam_syslog(l->pamh, LOG_CRIT, "out of memory");
        rc = PAM_BUF_ERR;
        break;
    case KDF_LOOKUP_DUPLICATE:
    case KDF_LOOKUP_BAD_FIELD:
    default:
        dummy_verify(l);
        pam_syslog(l->pamh, LOG_ERR, "entry of %s refused: %s", l->user,
                   kdf_lookup_status_str(ls));
        rc = PAM_AUTH_ERR;
        break;
    }
    kdf_wipe(e, sizeof *e);
    free(e);
    return rc;
}

PAM_EXPORT int
pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct login l;
    int rc;

    memset(&l, 0, sizeof l);
    l.pamh = pamh;
    rc = kdf_pam_preamble(pamh, "auth", argc, argv, &l.opt, &l.pol, &l.degraded, &l.user);
    if (rc != PAM_SUCCESS)
        return rc;
    rc = kdf_pam_fips_gate(pamh, &l.pol, KDF_PAM_FIPS_ENABLED);
    if (rc != 0)
        return rc;

    /* A wrong guess costs the caller 2 s, as with pam_unix, unless nodelay.
     * libpam sleeps after the whole stack, and only after a failure, so the
     * request may come last; it is not made when kdfhash-chkpwd answered,
     * which has waited out its own delay before answering a refusal: a
     * screen locker's wrong password then costs one delay, as through
     * pam_unix and unix_chkpwd, not two.  Nor for PAM_INCOMPLETE (the
     * password prompt's PAM_CONV_AGAIN), which is no failure (preamble.c). */
    rc = authenticate(&l, flags);
    /* After the result is decided, which it cannot change: a listed
     * password asks the account group for a change (blocklist_pam.c). */
    if (rc == PAM_SUCCESS)
        kdf_pam_blocklist_login(pamh, &l.pol, l.user, l.pw, l.pw_len);
    if (!l.opt.nodelay && !l.via_helper && rc != PAM_INCOMPLETE)
        (void)pam_fail_delay(pamh, KDF_PAM_FAIL_DELAY_USEC);
    if (l.opt.debug)
        pam_syslog(pamh, LOG_DEBUG, "result: %s", pam_strerror(pamh, rc));
    return rc;
}

/* The groups with nothing to do here answer at once. */
static int
nothing_to_do(pam_handle_t *pamh, int flags, int argc, const char **argv, int rc)
{
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return rc;
}

PAM_EXPORT int
pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return nothing_to_do(pamh, flags, argc, argv, PAM_SUCCESS);
}

/* The account group asks for a change after a login with a listed
 * password (blocklist_pam.c), else has nothing to add: the aging fields
 * stay with pam_unix's account group, which reads them from the same
 * file.  Session has nothing to add. */
PAM_EXPORT int
pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    if (kdf_pam_blocklist_marked(pamh, kdf_pam_flag(flags, PAM_SILENT)))
        return PAM_NEW_AUTHTOK_REQD;
    return nothing_to_do(pamh, flags, argc, argv, PAM_IGNORE);
}

PAM_EXPORT int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return nothing_to_do(pamh, flags, argc, argv, PAM_IGNORE);
}

PAM_EXPORT int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return nothing_to_do(pamh, flags, argc, argv, PAM_IGNORE);
}
