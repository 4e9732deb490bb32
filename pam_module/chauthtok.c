/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chauthtok.c - password changes for the entries of the module's
 * shadow-style file, with pam_unix's semantics (pam_unix_passwd.c):
 *
 *   PAM_PRELIM_CHECK   a caller that is not root, or any caller when the
 *                      application asks because the password expired
 *                      (PAM_CHANGE_EXPIRED_AUTHTOK), types the current
 *                      password, verified like a login; then the minimum
 *                      age (field 4) and the account expiry (field 8) are
 *                      checked for non-root callers.
 *   PAM_UPDATE_AUTHTOK the entry is read again and the current password
 *                      verified again (the entry may have changed between
 *                      the two passes: a login that upgraded it, another
 *                      passwd); the new password comes from an earlier
 *                      module (use_authtok) or is asked twice; it must not
 *                      be empty, equal to the old one, or shorter than
 *                      minlen for non-root callers; it is hashed at the
 *                      target and written with field 3 (last change, in
 *                      days since the epoch) by the upgrade's writer:
 *                      same lock, compare-and-swap on the verified field.
 *                      With remember=N (pam_unix's option, pam_unix(8)),
 *                      a non-root caller's new password must not verify
 *                      against the user's line of the history file, and
 *                      the field it replaces is added to that line first.
 *
 * What the module says about the user decides the stack (see
 * packaging/pam-configs/README): an entry in the file is ours, and a
 * refusal of it is final; no entry (PAM_USER_UNKNOWN) or no readable file
 * (PAM_AUTHINFO_UNAVAIL) is "not mine", and pam_unix or another module
 * takes the change.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PAM_SM_PASSWORD
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "audit_rec.h"
#include "blocklist_pam.h"
#include "fips_gate.h"
#include "journal.h"
#include "kdfhash.h"
#include "lookup.h"
#include "opasswd.h"
#include "options.h"
#include "policy_load.h"
#include "preamble.h"
#include "update_client.h"
#include "upgrade.h"
#include "verdict.h"
#include "xcrypt_only.h"

/* pam_unix asks for a new password at most this many times. */
#define KDF_PAM_MAX_TRIES 3
/* A password change may wait longer for the shadow lock than a login's
 * upgrade: the user is waiting for exactly this write. */
#define KDF_PAM_CHANGE_LOCK_WAIT_MS 2000
#define KDF_PAM_CHANGE_EXEC_TIMEOUT_MS 5000

struct change {
    pam_handle_t *pamh;
    const struct kdf_pam_options *o;
    struct kdf_policy *pol; /* pam_sm_chauthtok()'s copy: its pepper may be dropped */
    const char *user;
    int flags;
    int iamroot; /* root, and not an expired-password change */
    int quiet;   /* PAM_SILENT */
};

/* The field the first pass checked, carried to the update pass: with
 * nullok an empty field needs no current password, so nothing in the
 * update pass could tell an empty field from one that root locked ("!",
 * passwd -l) or reset while the user was typing the new password; the
 * compare-and-swap must be against what was checked, not against what is
 * there when the update pass reads the file again. */
#define KDF_PAM_SEEN_DATA "pam_kdfhash:chauthtok-seen"

struct seen {
    char user[KDF_SHADOW_MAX_NAME + 1];
    char field[KDF_SHADOW_MAX_HASH + 1];
};

static void
seen_cleanup(pam_handle_t *pamh, void *data, int error_status)
{
    (void)pamh;
    (void)error_status;
    kdf_wipe(data, sizeof(struct seen));
    free(data);
}

static long
today(void)
{
    return (long)(time(NULL) / (24 * 60 * 60));
}

/* A message to the user, unless the application asked for silence. */
static void
tell(const struct change *c, int err, const char *msg)
{
    if (c->quiet)
        return;
    if (err)
        pam_error(c->pamh, "%s", msg);
    else
        pam_info(c->pamh, "%s", msg);
}

/* Read the user's entry; a PAM result when it is not there to change. */
static int
read_entry(const struct change *c, struct kdf_lookup_entry *e)
{
    enum kdf_lookup_status ls = kdf_lookup_user(c->o->shadow_path, c->user, e);

    switch (ls) {
    case KDF_LOOKUP_FOUND:
        return PAM_SUCCESS;
    case KDF_LOOKUP_NOT_FOUND:
        if (c->o->debug)
            pam_syslog(c->pamh, LOG_DEBUG, "%s is not in %s: not ours to change", c->user,
                       c->o->shadow_path);
        return PAM_USER_UNKNOWN;
    case KDF_LOOKUP_UNAVAIL:
        pam_syslog(c->pamh, LOG_ERR, "cannot read %s: %s", c->o->shadow_path,
                   e->what != NULL ? e->what : "error");
        return PAM_AUTHINFO_UNAVAIL;
    case KDF_LOOKUP_NOMEM:
        pam_syslog(c->pamh, LOG_CRIT, "out of memory");
        return PAM_BUF_ERR;
    default:
        pam_syslog(c->pamh, LOG_ERR, "entry of %s refused: %s", c->user,
                   kdf_lookup_status_str(ls));
        return PAM_AUTHTOK_ERR;
    }
}

/* An empty field that nullok lets in needs no current password, as
 * pam_unix's _unix_blankpasswd(). */
static int
blank_ok(const struct change *c, const struct kdf_lookup_entry *e)
{
    return e->hash_len == 0 && c->o->nullok && !kdf_pam_flag(c->flags, PAM_DISALLOW_NULL_AUTHTOK);
}

/* Verify the current password against the stored field: PAM_SUCCESS or
 * the refusal, logged as a login's would be. */
static int
verify_current(const struct change *c, const struct kdf_lookup_entry *e, const char *pw)
{
    struct kdf_hash h;
    enum kdf_status st = KDF_OK;
    const char *reason = NULL;
    enum kdf_pam_verdict v;
    int rc;

    v = kdf_pam_verdict(c->pol, e->hash, e->hash_len,
                        c->o->nullok && !kdf_pam_flag(c->flags, PAM_DISALLOW_NULL_AUTHTOK), pw,
                        strlen(pw), &h, &st, &reason);
    switch (v) {
    case KDF_PAM_V_OK:
    case KDF_PAM_V_NULLOK:
        rc = PAM_SUCCESS;
        break;
    case KDF_PAM_V_LOCKED:
        pam_syslog(c->pamh, LOG_NOTICE, "password change for %s refused: account locked",
                   c->user);
        rc = PAM_AUTH_ERR;
        break;
    case KDF_PAM_V_FAILED:
        if (st == KDF_MISMATCH) {
            pam_syslog(c->pamh, LOG_NOTICE,
                       "password change for %s refused: wrong current password (%s)",
                       c->user, kdf_scheme_name(h.scheme));
            rc = PAM_AUTH_ERR;
        } else {
            pam_syslog(c->pamh, LOG_ERR, "cannot verify %s (%s): %s", c->user,
                       kdf_scheme_name(h.scheme), kdf_status_str(st));
            rc = st == KDF_NOMEM ? PAM_BUF_ERR : PAM_AUTH_ERR;
        }
        break;
    default: /* empty without nullok, malformed, over the caps */
        pam_syslog(c->pamh, LOG_ERR, "password change for %s refused: entry %s%s%s", c->user,
                   v == KDF_PAM_V_EMPTY ? "has no password" : kdf_status_str(st),
                   reason != NULL ? ": " : "", reason != NULL ? reason : "");
        rc = PAM_AUTH_ERR;
        break;
    }
    kdf_wipe(&h, sizeof h);
    return rc;
}

/* Fields 4 and 8, checked for callers that are not root as pam_unix's
 * check_shadow_expiry() does for a change (the maximum age is not a reason
 * to refuse one: it is the reason for it). */
static int
check_aging(const struct change *c, const struct kdf_aging *a)
{
    long now = today();

    if (c->iamroot)
        return PAM_SUCCESS;
    if (a->expire != -1 && now >= a->expire) {
        pam_syslog(c->pamh, LOG_NOTICE, "password change for %s refused: account expired",
                   c->user);
        tell(c, 1, "Your account has expired; please contact your system administrator.");
        return PAM_ACCT_EXPIRED;
    }
    /* lastchg 0 means "change at next login": no minimum age then. */
    if (a->lastchg > 0 && a->min > 0 && now >= a->lastchg && now - a->lastchg < a->min) {
        pam_syslog(c->pamh, LOG_NOTICE,
                   "password change for %s refused: minimum age of %ld days not reached",
                   c->user, a->min);
        tell(c, 1, "You must wait longer to change your password.");
        return PAM_AUTHTOK_ERR;
    }
    return PAM_SUCCESS;
}

/* Record the field the first pass checked (its hash, or the empty field
 * that nullok let through); the PAM item is not the place, libpam gives it
 * to every module.  A handle that cannot keep it fails the pass: the
 * update pass would have nothing to compare against. */
static int
remember_seen(const struct change *c, const struct kdf_lookup_entry *e)
{
    struct seen *sv = calloc(1, sizeof *sv);
    int rc;

    if (sv == NULL) {
        pam_syslog(c->pamh, LOG_CRIT, "out of memory");
        return PAM_BUF_ERR;
    }
    snprintf(sv->user, sizeof sv->user, "%s", c->user);
    memcpy(sv->field, e->hash, e->hash_len);
    sv->field[e->hash_len] = '\0';
    rc = pam_set_data(c->pamh, KDF_PAM_SEEN_DATA, sv, seen_cleanup);
    if (rc != PAM_SUCCESS) {
        seen_cleanup(c->pamh, sv, 0);
        pam_syslog(c->pamh, LOG_ERR, "password change for %s: cannot keep state: %s",
                   c->user, pam_strerror(c->pamh, rc));
    }
    return rc;
}

/* The field the first pass recorded for this user, or NULL (no first pass
 * through this module, or one for another user). */
static const char *
recall_seen(const struct change *c)
{
    const void *d = NULL;
    const struct seen *sv;

    if (pam_get_data(c->pamh, KDF_PAM_SEEN_DATA, &d) != PAM_SUCCESS || d == NULL)
        return NULL;
    sv = d;
    return strcmp(sv->user, c->user) == 0 ? sv->field : NULL;
}

static int
prelim(const struct change *c, const struct kdf_lookup_entry *e)
{
    const char *old = NULL;
    int rc;

    if (!c->iamroot && !blank_ok(c, e)) {
        char msg[320];

        snprintf(msg, sizeof msg, "Changing password for %s.", c->user);
        tell(c, 0, msg);
        rc = pam_get_authtok(c->pamh, PAM_OLDAUTHTOK, &old, NULL);
        if (rc != PAM_SUCCESS || old == NULL) {
            pam_syslog(c->pamh, LOG_NOTICE, "password change for %s: no current password: %s",
                       c->user, pam_strerror(c->pamh, rc));
            return rc == PAM_SUCCESS ? PAM_AUTHTOK_RECOVERY_ERR : rc;
        }
        rc = verify_current(c, e, old);
        if (rc != PAM_SUCCESS) {
            pam_set_item(c->pamh, PAM_OLDAUTHTOK, NULL);
            return rc;
        }
    }
    rc = check_aging(c, &e->aging);
    if (rc == PAM_SUCCESS)
        rc = remember_seen(c, e);
    return rc;
}

/* pam_unix's _pam_unix_approve_pass(): 0, or the remark for the user. */
static const char *
refuse_new(const struct change *c, const char *old, const char *new_pw)
{
    size_t n = strlen(new_pw), chars;
    uint32_t min = kdf_policy_min_length(c->pol); /* minlen= is in it */

    if (n == 0)
        return "No password has been supplied.";
    if (old != NULL && strcmp(old, new_pw) == 0)
        return "The password has not been changed.";
    /* Characters as the standard counts them: code points of the form the
     * hash is made of (kdf_password_length()). */
    chars = kdf_password_length(new_pw, n, c->pol);
    if (n > c->pol->max_password_len || chars == (size_t)-1 || chars > c->pol->max_length)
        return "The password is too long.";
    if (!c->iamroot && chars < min)
        return "You must choose a longer password.";
    return NULL;
}

/* remember=N for a caller that is not root, as pam_unix's
 * _pam_unix_approve_pass(): 0, the remark for a password of the history,
 * or -1 when the history cannot be read (pam_unix refuses the change then
 * too: a check that cannot run must not pass), or when an entry of it
 * cannot be verified because its key is missing or refused: then *remark
 * says so, since no other password could pass either.  Root's changes are
 * not checked, so root can always reset the password. */
static int
check_history(const struct change *c, const char *new_pw, const char **remark)
{
    char err[256];
    enum kdf_opasswd_result r;

    *remark = NULL;
    if (c->o->remember == 0 || c->iamroot)
        return 0;
    err[0] = '\0';
    r = kdf_opasswd_check(c->o->opasswd_path, c->user, c->pol, new_pw, NULL, err, sizeof err);
    if (r == KDF_OPW_ERROR) {
        pam_syslog(c->pamh, LOG_ERR, "password change for %s: cannot check old passwords: %s",
                   c->user, err);
        return -1;
    }
    if (r == KDF_OPW_NOKEY) {
        pam_syslog(c->pamh, LOG_ERR,
                   "password change for %s refused: earlier passwords cannot be checked: "
                   "%s, which cannot be read (%s); root can set the password, or drop the "
                   "user's entries from %s",
                   c->user, err, kdf_pam_key_error(c->o), c->o->opasswd_path);
        *remark = "Your earlier passwords cannot be checked; ask your administrator.";
        return -1;
    }
    if (r == KDF_OPW_REUSED)
        *remark = "Password has been already used. Choose another.";
    return 0;
}

/* The new password, asked (twice) or taken from an earlier module, and
 * approved; *new_pw is libpam's PAM_AUTHTOK item. */
static int
get_new(const struct change *c, const char *old, const char **new_pw)
{
    int rc = PAM_AUTHTOK_ERR;

    for (int tries = 0; tries < KDF_PAM_MAX_TRIES; tries++) {
        const char *remark;

        *new_pw = NULL;
        /* Reads use_authtok / try_first_pass from our argv, prompts "New
         * password:" and "Retype new password:" and says when they differ
         * (PAM_TRY_AGAIN). */
        rc = pam_get_authtok(c->pamh, PAM_AUTHTOK, new_pw, NULL);
        if (rc == PAM_SUCCESS && *new_pw != NULL) {
            remark = refuse_new(c, old, *new_pw);
            if (remark == NULL)
                remark = kdf_pam_blocklist_refuse(c->pamh, c->pol, c->user, *new_pw,
                                                  c->iamroot, c->quiet);
            if (remark == NULL && check_history(c, *new_pw, &remark) < 0) {
                if (remark != NULL)
                    tell(c, 1, remark);
                pam_set_item(c->pamh, PAM_AUTHTOK, NULL);
                return PAM_AUTHTOK_ERR;
            }
            if (remark == NULL)
                return PAM_SUCCESS;
            tell(c, 1, remark);
            pam_syslog(c->pamh, LOG_NOTICE, "new password for %s refused: %s", c->user,
                       remark);
            rc = PAM_AUTHTOK_ERR;
        }
        pam_set_item(c->pamh, PAM_AUTHTOK, NULL);
        if (c->o->use_authtok || (rc != PAM_AUTHTOK_ERR && rc != PAM_TRY_AGAIN))
            break; /* nothing to ask again: an earlier module had the password */
    }
    return rc == PAM_TRY_AGAIN ? PAM_AUTHTOK_ERR : rc;
}

/* The audit record of a change's write (audit_rec.h), whichever way it
 * went: history says what became of the history file's line. */
static void
record_change(const struct change *c, const char *old_field, enum kdf_write_status st,
              const char *history)
{
    struct kdf_audit_rec r = {
        .op = KDF_AUDIT_CHAUTHTOK,
        .user = c->user,
        .old_scheme = kdf_audit_scheme_of(old_field),
        .new_scheme = kdf_target_name(&c->pol->target),
        .via = c->o->upgrade == KDF_PAM_UPGRADE_EXEC ? "hook" : NULL,
        .history = history,
    };
    const void *item;
    char err[160] = "";

    if (pam_get_item(c->pamh, PAM_RHOST, &item) == PAM_SUCCESS)
        r.rhost = item;
    if (pam_get_item(c->pamh, PAM_TTY, &item) == PAM_SUCCESS)
        r.tty = item;
    if (kdf_audit_once(&r, st, err, sizeof err) != 0)
        pam_syslog(c->pamh, LOG_WARNING, "%s", err);
}

/* remember=N: the field about to be replaced joins the user's history,
 * before the change as pam_unix's _do_setpass() does it (a history that
 * cannot be written fails the change).  An empty or locked field is no
 * password to remember. */
static int
remember_old(const struct change *c, const char *old_field, int *added)
{
    const struct passwd *pw;
    char err[256];
    enum kdf_write_status us;

    if (c->o->remember == 0 || old_field[0] == '\0' || old_field[0] == '!' ||
        old_field[0] == '*')
        return PAM_SUCCESS;
    /* The uid of the line, as pam_unix writes it (pam_modutil_getpwnam). */
    pw = pam_modutil_getpwnam(c->pamh, c->user);
    if (pw == NULL) {
        pam_syslog(c->pamh, LOG_ERR,
                   "password change for %s failed: no passwd entry for the history in %s",
                   c->user, c->o->opasswd_path);
        return PAM_AUTHTOK_ERR;
    }
    us = kdf_pam_store_history(c->o, c->user, (unsigned long)pw->pw_uid, old_field,
                               c->o->remember, KDF_PAM_CHANGE_LOCK_WAIT_MS, err, sizeof err);
    if (us != KDF_WRITE_OK) {
        record_change(c, old_field, us, "failed");
        pam_syslog(c->pamh, LOG_ERR, "password change for %s failed: history %s: %s%s%s",
                   c->user, c->o->opasswd_path, kdf_write_status_str(us), err[0] ? ": " : "",
                   err);
        return us == KDF_WRITE_LOCK_BUSY ? PAM_TRY_AGAIN : PAM_AUTHTOK_ERR;
    }
    *added = 1;
    return PAM_SUCCESS;
}

/* Without remember=N, a history the file keeps for the user is not
 * checked: say so, once per change.  The module cannot see pam_unix's
 * arguments (PAM gives a module its own), so this is the trace of a
 * remember=N that pam_unix had before the module took its changes. */
static void
note_unchecked_history(const struct change *c)
{
    char err[256];
    unsigned n = 0;

    if (c->o->remember != 0 || geteuid() != 0)
        return;
    if (kdf_opasswd_check(c->o->opasswd_path, c->user, c->pol, NULL, &n, err, sizeof err) ==
            KDF_OPW_NEW &&
        n > 0)
        pam_syslog(c->pamh, LOG_NOTICE,
                   "%s keeps %u earlier password%s of %s, which pam_kdfhash does not check "
                   "without remember=N on its password line (pam_unix's remember=N is not "
                   "seen by other modules)",
                   c->o->opasswd_path, n, n == 1 ? "" : "s", c->user);
}

/* Write new_hash over the field that was verified. */
static enum kdf_write_status
store(const struct change *c, const char *old_field, const char *new_hash, char *err,
      size_t err_cap)
{
    int wstatus = 0;

    if (c->o->upgrade == KDF_PAM_UPGRADE_EXEC)
        return kdf_upgrade_exec(c->o->upgrade_prog, c->user, old_field, new_hash,
                                KDF_PAM_CHANGE_EXEC_TIMEOUT_MS, &wstatus, err, err_cap);
    return kdf_pam_store_entry(c->o, c->user, old_field, new_hash, today(),
                               KDF_PAM_CHANGE_LOCK_WAIT_MS, err, err_cap);
}

static int
update(const struct change *c, struct kdf_lookup_entry *e)
{
    char new_hash[KDF_MAX_HASH_STR + 1];
    char err[256];
    const void *item = NULL;
    const char *old = NULL, *new_pw = NULL, *why = NULL;
    const char *seen = recall_seen(c);
    enum kdf_status st;
    enum kdf_write_status us = KDF_WRITE_CAS_FAILED;
    int rc, blank = 0, added = 0;

    /* An empty field that the first pass let through without a current
     * password: the write must find it still empty.  Without a record of
     * the first pass (an application that skipped it), what this pass
     * read before its prompt is what was checked. */
    if (!c->iamroot)
        blank = seen != NULL ? seen[0] == '\0' : blank_ok(c, e);
    if (!c->iamroot && !blank) {
        rc = pam_get_item(c->pamh, PAM_OLDAUTHTOK, &item);
        old = item;
        if (rc != PAM_SUCCESS || old == NULL) {
            pam_syslog(c->pamh, LOG_NOTICE, "password change for %s: no current password",
                       c->user);
            return PAM_AUTHTOK_RECOVERY_ERR;
        }
    }
    rc = get_new(c, old, &new_pw);
    if (rc != PAM_SUCCESS)
        return rc;
    st = kdf_pam_new_hash(c->pol, new_pw, strlen(new_pw), new_hash, sizeof new_hash, &why);
    if (st == KDF_NOKEY && c->pol->pepper[0] != '\0') {
        /* The pepper's key is missing or refused.  A change is how a user
         * (or root, for a user) gets back in: refusing it for a key the
         * user cannot restore would leave no way to set a password at all,
         * so the password is written unkeyed and the log says what to
         * repair (pam_kdfhash(8), KEYED HASHES). */
        struct kdf_pam_event_fields f = {c->user, NULL, kdf_target_name(&c->pol->target),
                                         "written-unkeyed"};

        kdf_pam_event(c->pamh, "password", KDF_PAM_EV_KEY_MISSING, LOG_ERR, &f,
                      "pepper key %s cannot be read (%s): the new password of %s is written "
                      "unkeyed; restore the key file (kdfhash keys export made its backup) "
                      "or set pepper = none",
                      c->pol->pepper, kdf_pam_key_error(c->o), c->user);
        c->pol->pepper[0] = '\0';
        st = kdf_pam_new_hash(c->pol, new_pw, strlen(new_pw), new_hash, sizeof new_hash,
                              &why);
    }
    if (st != KDF_OK) {
        pam_syslog(c->pamh, LOG_ERR, "password change for %s failed: new %s hash: %s%s%s",
                   c->user, kdf_target_name(&c->pol->target), kdf_status_str(st),
                   why != NULL ? ": " : "", why != NULL ? why : "");
        return st == KDF_NOMEM ? PAM_BUF_ERR : PAM_AUTHTOK_ERR;
    }
    /* The entry may change under us (a login upgrading it): read it again
     * and verify the current password against what is there now, then
     * write only over exactly that (compare-and-swap).  One retry. */
    for (int attempt = 0; attempt < 2 && us == KDF_WRITE_CAS_FAILED; attempt++) {
        rc = read_entry(c, e);
        /* No password proves the field is still the user's: locked ('!'),
         * reset or cleared by root since it was checked, it stays as root
         * left it.  A non-empty field that changed must still verify the
         * current password (a login's upgrade of the same password). */
        if (rc == PAM_SUCCESS && !c->iamroot && (blank ? e->hash_len != 0 : e->hash_len == 0)) {
            pam_syslog(c->pamh, LOG_NOTICE,
                       "password change for %s refused: the entry changed since it was "
                       "checked (locked or reset meanwhile)",
                       c->user);
            tell(c, 1, "Password changed by someone else meanwhile; nothing was changed.");
            rc = PAM_AUTHTOK_ERR;
        }
        if (rc == PAM_SUCCESS && old != NULL)
            rc = verify_current(c, e, old);
        /* Once: a retry after a login's upgrade replaces a hash of the
         * same password, which is already in the history. */
        if (rc == PAM_SUCCESS && attempt == 0)
            rc = remember_old(c, e->hash, &added);
        if (rc != PAM_SUCCESS) {
            kdf_wipe(new_hash, sizeof new_hash);
            return rc == PAM_USER_UNKNOWN ? PAM_AUTHTOK_ERR : rc;
        }
        us = store(c, e->hash, new_hash, err, sizeof err);
    }
    kdf_wipe(new_hash, sizeof new_hash);
    record_change(c, e->hash, us, added ? "added" : NULL);
    if (us != KDF_WRITE_OK) {
        pam_syslog(c->pamh, LOG_ERR, "password change for %s failed: %s%s%s", c->user,
                   kdf_write_status_str(us), err[0] ? ": " : "", err);
        return us == KDF_WRITE_LOCK_BUSY ? PAM_TRY_AGAIN : PAM_AUTHTOK_ERR;
    }
    /* pam_unix's line word for word (the rules written for it read it),
     * then ours with what it says. */
    pam_syslog(c->pamh, LOG_NOTICE, "password changed for %s", c->user);
    pam_syslog(c->pamh, LOG_INFO, "password of %s changed (%s)%s", c->user,
               kdf_target_name(&c->pol->target), c->iamroot ? " by root" : "");
    note_unchecked_history(c);
    return PAM_SUCCESS;
}

/* pam_sm_chauthtok() after the options, the policy and the user name. */
static int
chauthtok(pam_handle_t *pamh, int flags, const struct kdf_pam_options *o,
          struct kdf_policy *pol, const char *user)
{
    struct change c;
    struct kdf_lookup_entry *e;
    int rc;

    memset(&c, 0, sizeof c);
    c.pamh = pamh;
    c.o = o;
    c.pol = pol;
    c.user = user;
    c.flags = flags;
    /* pam_unix's UNIX__IAMROOT: root changing someone's password is not
     * asked for the old one, but an expired password is changed by its
     * owner, even when the application runs as root (login, su, sshd). */
    c.iamroot = getuid() == 0 && !kdf_pam_flag(flags, PAM_CHANGE_EXPIRED_AUTHTOK);
    c.quiet = kdf_pam_flag(flags, PAM_SILENT);

    if (!(flags & (PAM_PRELIM_CHECK | PAM_UPDATE_AUTHTOK))) {
        pam_syslog(pamh, LOG_ERR, "password change: unknown request (flags %#x)",
                   (unsigned)flags);
        return PAM_ABORT;
    }
    if (!kdf_shadow_name_ok(user))
        return PAM_USER_UNKNOWN;
    /* 1 KiB: not on the stack of a host that may run us on a small thread. */
    e = malloc(sizeof *e);
    if (e == NULL) {
        pam_syslog(pamh, LOG_CRIT, "out of memory");
        return PAM_BUF_ERR;
    }
    rc = read_entry(&c, e);
    if (rc == PAM_USER_UNKNOWN && kdf_pam_flag(flags, PAM_PRELIM_CHECK) && !c.iamroot)
        /* As long as a wrong current password on an entry at the target:
         * the reply time does not say whether the name is in the file. */
        kdf_pam_dummy_verify(pol, "", 0);
    if (rc == PAM_SUCCESS)
        rc = kdf_pam_flag(flags, PAM_PRELIM_CHECK) ? prelim(&c, e) : update(&c, e);
    kdf_wipe(e, sizeof *e);
    free(e);
    return rc;
}

/* The password group: the same options, policy and user name as a login
 * (preamble.c). */
PAM_EXPORT int
pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    struct kdf_pam_options opt;
    struct kdf_policy pol;
    const char *user = NULL;
    int rc, xo, degraded;

    rc = kdf_pam_preamble(pamh, "password", argc, argv, &opt, &pol, &degraded, &user);
    if (rc != PAM_SUCCESS)
        return rc;
    /* profile = fips with a failed self-test: our algorithms are refused
     * (an entry of them cannot be verified), and a new password is written
     * as in degraded mode, by libxcrypt, so that root can still reset one. */
    if (!degraded && kdf_pam_fips_gate(pamh, &pol, NULL) != 0)
        degraded = 1;
    /* Degraded, a change still goes through, at the one target that needs
     * no policy to be right and that pam_unix reads too: the alternative,
     * refusing it, left root unable to reset anyone's password (pam_unix's
     * use_authtok line then has no password to take). */
    if (degraded) {
        kdf_pam_degraded_target(&pol);
    } else if (opt.upgrade == KDF_PAM_UPGRADE_OFF && !kdf_pam_xcrypt_reads_target(&pol)) {
        /* upgrade=off is the switch of a rollback in progress: nothing the
         * module writes may need the module to be read, or every password
         * changed until the module is gone strands its owner again. */
        if (!kdf_pam_flag(flags, PAM_PRELIM_CHECK))
            pam_syslog(pamh, LOG_NOTICE,
                       "upgrade=off: a new password is written as yescrypt, which "
                       "pam_unix reads, not as the target %s",
                       kdf_target_name(&pol.target));
        kdf_pam_degraded_target(&pol);
    }
    if (!opt.nodelay && kdf_pam_flag(flags, PAM_PRELIM_CHECK))
        (void)pam_fail_delay(pamh, KDF_PAM_FAIL_DELAY_USEC);
    /* An xcrypt-only user's new password is written at the libxcrypt
     * target, as a login would move the entry to it (xcrypt_only.c). */
    xo = kdf_pam_xcrypt_only(&pol, user);
    if (xo != 0) {
        const char *was = kdf_target_name(&pol.target);

        if (kdf_pam_xcrypt_target(&pol) && !kdf_pam_flag(flags, PAM_PRELIM_CHECK))
            pam_syslog(pamh, LOG_NOTICE,
                       "xcrypt-only: the new password of %s is written as %s, which "
                       "sulogin reads, not as the target %s%s",
                       user, kdf_target_name(&pol.target), was,
                       xo < 0 ? " (its groups could not be read)" : "");
    }
    /* An administrator's new password never depends on a key file: the
     * pepper is dropped for the accounts of admins (fail-safe when their
     * groups cannot be read), so that losing the key never locks out who
     * must restore it.  Asked in a change only, as xcrypt-only; root's
     * xcrypt-only target above has no pepper already. */
    {
        char key[sizeof pol.pepper];
        int adm;

        memcpy(key, pol.pepper, sizeof key);
        adm = kdf_pam_admin_unkeyed(&pol, user);
        if (adm != 0 && !kdf_pam_flag(flags, PAM_PRELIM_CHECK))
            pam_syslog(pamh, LOG_NOTICE,
                       "admins: the new password of %s is written without the pepper "
                       "(key %s)%s",
                       user, key, adm < 0 ? " (its groups could not be read)" : "");
    }
    rc = chauthtok(pamh, flags, &opt, &pol, user);
    if (opt.debug)
        pam_syslog(pamh, LOG_DEBUG, "password change (%s): %s",
                   kdf_pam_flag(flags, PAM_PRELIM_CHECK) ? "preliminary check" : "update",
                   pam_strerror(pamh, rc));
    return rc;
}
