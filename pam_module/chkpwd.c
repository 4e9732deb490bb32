/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chkpwd.c - kdfhash-chkpwd, the password checker that pam_kdfhash.so runs
 * when its caller cannot read the shadow file (a screen locker running as
 * the user); installed setuid root or setgid shadow, like unix_chkpwd.
 * Protocol: chkpwd_client.h.  Why each rule: doc/DESIGN.md, "The helper
 * and the command line".  Invariants:
 *   - it reads only the compiled-in shadow file and conf, unless it has no
 *     privilege its caller lacks (AT_SECURE unset; the never-installed
 *     KDF_CHKPWD_TEST build always);
 *   - stdin on a tty: logged, slept on and refused;
 *   - a non-root caller asks about its own name only, or privileges go
 *     for good before anything else and the answer is "no";
 *   - privileges go for good after the one read of the file: the
 *     verification runs as the caller, and nothing is ever written;
 *   - the policy is the defaults and the conf file, never the calling
 *     service's module arguments; a conf that does not load is logged and
 *     the defaults verify;
 *   - unknown, locked, empty and malformed entries cost one verification
 *     at the target (kdf_pam_dummy_verify());
 *   - an attempt is counted against its real uid's rate limit, under a
 *     lock taken before the privileges go, before it is verified
 *     (chkpwd_rate.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBAUDIT
#include <libaudit.h>
#endif

#include "chkpwd_args.h"
#include "chkpwd_client.h"
#include "chkpwd_rate.h"
#include "kdfhash.h"
#include "lookup.h"
#include "options.h"
#include "policy_load.h"
#include "tpm_client.h"
#include "verdict.h"

/* The test build (tests/pam/kdfhash-chkpwd-test) honours argv paths even when
 * setuid, so that a test can run it setuid over a test file. */
#ifdef KDF_CHKPWD_TEST
#define KDF_CHKPWD_PATHS_ALWAYS 1
#else
#define KDF_CHKPWD_PATHS_ALWAYS 0
#endif

#ifndef KDF_CHKPWD_TTY_SLEEP
#define KDF_CHKPWD_TTY_SLEEP 10 /* seconds, as unix_chkpwd */
#endif
/* After a refusal the helper waits this long before it answers: guesses
 * through it cost what pam_unix's fail delay makes them cost at a login
 * (2 s), which a screen locker waits out anyway. */
#ifndef KDF_CHKPWD_FAIL_DELAY_MS
#define KDF_CHKPWD_FAIL_DELAY_MS 2000
#endif
/* The rate limit's records, one per real uid (Makefile.am sets it from
 * localstatedir).  One delay per guess, however the helper is driven: at
 * most 0.5 guesses per second with the 2 s above. */
#ifndef KDF_CHKPWD_STATE_DIR
#define KDF_CHKPWD_STATE_DIR "/var/lib/kdfhash/chkpwd"
#endif
/* The keys of keyed entries: the build's key directory (the test build's
 * is in the tests' private /etc). */
#ifndef KDF_CHKPWD_KEYS_DIR
#define KDF_CHKPWD_KEYS_DIR KDF_KEYS_DIR
#endif
/* How long a check waits for the previous one of the same uid.  Queued
 * helpers each take a verification plus a delay; the module's timeout
 * (KDF_CHKPWD_TIMEOUT_MS) must leave room for this wait, a verification at
 * the caps and the delay. */
#ifndef KDF_CHKPWD_LOCK_WAIT_MS
#define KDF_CHKPWD_LOCK_WAIT_MS 15000
#endif

/* The locked record of this attempt; the lock lasts until exit. */
static struct kdf_chkpwd_rate rate = {KDF_RATE_OFF, -1, 0};

/* Does this process hold anything its real ids do not? */
static int
elevated(void)
{
    return getauxval(AT_SECURE) != 0 || getuid() != geteuid() || getgid() != getegid();
}

/* Become the real user for good: gid first (afterwards we could not), then
 * uid; then check that the way back is closed. */
static int
drop_privileges(void)
{
    uid_t u = getuid();
    gid_t g = getgid(), eg = getegid();

    if (setresgid(g, g, g) != 0 || setresuid(u, u, u) != 0)
        return -1;
    if (geteuid() != u || getegid() != g)
        return -1;
    if (u != 0 && (setuid(0) == 0 || seteuid(0) == 0))
        return -1;
    /* Setgid shadow (Debian): the group must not come back either.  No
     * setgroups(): it needs root, which a setgid helper never has. */
    if (u != 0 && eg != g && (setgid(eg) == 0 || setegid(eg) == 0))
        return -1;
    return 0;
}

/* A TPM key's secret comes from kdfhash-tpm-hmac, a child with a fixed
 * environment and a deadline (tpm_client.h): the TPM2 Software Stack
 * obeys TSS2_LOGFILE from the environment, which a setuid program must
 * never do on its caller's say. */
static struct kdf_pam_tpm g_tpm = {kdf_pam_tpm_default_prog, KDF_TPM_TIMEOUT_MS};
static const struct kdf_tpm_access g_tpm_access = {kdf_pam_tpm_secret, &g_tpm};

/* The key a keyed entry names, read while the helper still has the shadow
 * group (the key directory is root:shadow 0750): the verification runs
 * after the privilege drop, from this copy, which is wiped on every path. */
struct held_key {
    char id[KDF_KEYID_CAP];
    uint8_t key[KDF_KEY_MAX];
    size_t len;
    int ok;
    char err[KDF_KEYSTORE_ERR];
};

static enum kdf_status
held_get(void *ctx, const struct kdf_key_request *rq, uint8_t *key, size_t *key_len)
{
    const struct held_key *k = ctx;

    *key_len = 0;
    if (!k->ok || rq->id_len != strlen(k->id) || memcmp(rq->id, k->id, rq->id_len) != 0)
        return KDF_NOKEY;
    memcpy(key, k->key, k->len);
    *key_len = k->len;
    return KDF_OK;
}

static void
hold_key(struct held_key *k, const char *dir, const char *stored, size_t len)
{
    struct kdf_hash h;
    struct kdf_key_request rq;
    uint8_t salt[KDF_MAX_SALT];
    size_t salt_len = 0;

    memset(k, 0, sizeof *k);
    if (kdf_parse(stored, len, &h, NULL) != KDF_OK || h.keyid.len == 0 ||
        h.keyid.len >= sizeof k->id || kdf_decode_salt(&h, salt, sizeof salt, &salt_len) != KDF_OK)
        return;
    memcpy(k->id, h.keyid.ptr, h.keyid.len);
    /* A TPM key's secret is per salt: this entry's, the one verified. */
    rq = (struct kdf_key_request){k->id, h.keyid.len, salt, salt_len};
    k->ok = kdf_keystore_secret(dir, &g_tpm_access, &rq, k->key, &k->len, k->err,
                                sizeof k->err) == KDF_OK;
    kdf_wipe(&h, sizeof h);
    kdf_wipe(salt, sizeof salt);
}

static int
status_exit(enum kdf_status st)
{
    switch (st) {
    case KDF_OK:
        return KDF_CHKPWD_OK;
    case KDF_NOMEM:
    case KDF_INTERNAL:
    case KDF_RANGE:
        return KDF_CHKPWD_SYSTEM_ERR;
    default:
        return KDF_CHKPWD_AUTH_ERR;
    }
}

/* The verdict on one stored field: kdf_pam_verdict() (verdict.c), the
 * module's own entry checks, without its upgrade. */
static int
verdict(const struct kdf_policy *pol, const char *user, const char *stored,
        size_t stored_len, int nullok, const char *pw, size_t pw_len)
{
    struct kdf_hash h;
    const char *reason;
    enum kdf_status st;

    switch (
        kdf_pam_verdict(pol, stored, stored_len, nullok, pw, pw_len, &h, &st, &reason)) {
    case KDF_PAM_V_NULLOK:
        return KDF_CHKPWD_OK;
    case KDF_PAM_V_EMPTY:
        syslog(LOG_NOTICE, "authentication failure for %s: empty password field", user);
        return KDF_CHKPWD_AUTH_ERR;
    case KDF_PAM_V_LOCKED:
        syslog(LOG_NOTICE, "authentication failure for %s: account locked", user);
        return KDF_CHKPWD_AUTH_ERR;
    case KDF_PAM_V_MALFORMED:
        syslog(LOG_ERR, "entry of %s is %s", user, kdf_status_str(st));
        return KDF_CHKPWD_AUTH_ERR;
    case KDF_PAM_V_CAPS:
    case KDF_PAM_V_FAILED:
        if (st == KDF_NOKEY) {
            const struct held_key *k = pol->keys->ctx;

            syslog(LOG_ERR,
                   "cannot verify %s (%s): keyed with key %s, which cannot be read: %s",
                   user, kdf_scheme_name(h.scheme), k->id, k->err[0] ? k->err : "no key");
            break;
        }
        syslog(st == KDF_MISMATCH ? LOG_NOTICE : LOG_ERR,
               "authentication failure for %s (%s): %s", user, kdf_scheme_name(h.scheme),
               kdf_status_str(st));
        break;
    case KDF_PAM_V_OK:
        break;
    }
    kdf_wipe(&h, sizeof h);
    return status_exit(st);
}

#ifdef KDF_CHKPWD_TEST
/* The test build tells tests/pam/test_chkpwd_rate.sh of each verification done:
 * a line with the CLOCK_REALTIME nanoseconds appended to the file that
 * KDF_CHKPWD_TEST_VERIFIED names, opened as the caller.  A caller who kills
 * the helper as soon as its verification is done learns one guess per line. */
static void
test_note_verified(void)
{
    const char *p = getenv("KDF_CHKPWD_TEST_VERIFIED");
    struct timespec ts;
    char line[32];
    int fd, n;

    if (p == NULL || p[0] != '/' || clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return;
    n = snprintf(line, sizeof line, "%lld\n",
                 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    fd = open(p, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && n > 0) {
        (void)!write(fd, line, (size_t)n);
        (void)close(fd);
    }
}
#else
#define test_note_verified() ((void)0)
#endif

static int
check(const char *user, int nullok, const char *shadow, const char *conf, int limited)
{
    static char pw[KDF_CHKPWD_MAX_PW + 1];
    static struct kdf_lookup_entry e;
    static struct held_key held;
    struct kdf_keyring ring = {held_get, NULL};
    struct kdf_pam_options o;
    struct kdf_policy pol;
    char err[256];
    enum kdf_lookup_status ls;
    size_t pw_len = 0;
    int rc;

    if (kdf_chkpwd_read_pw(STDIN_FILENO, pw, sizeof pw, &pw_len) != 0) {
        (void)drop_privileges();
        return KDF_CHKPWD_USAGE;
    }
    memset(&o, 0, sizeof o);
    o.conf_path = conf != NULL ? conf : KDF_PAM_DEFAULT_CONF;
    o.conf_explicit = conf != NULL;
    /* As in the module: a bad policy is logged and the built-in defaults
     * verify (a screen locker must not lock its user out over a typo);
     * the helper never writes anyway. */
    if (kdf_pam_load_policy(&o, &pol, err, sizeof err) != KDF_OK)
        syslog(LOG_ERR, "bad policy %s: " KDF_PAM_DEGRADED, err);
    /* A password that memchr finds a NUL in cannot have come from PAM. */
    if (pw_len > KDF_CHKPWD_MAX_PW || pw_len > pol.max_password_len ||
        memchr(pw, '\0', pw_len) != NULL) {
        (void)drop_privileges();
        syslog(LOG_NOTICE, "authentication failure for %s: password too long", user);
        kdf_wipe(pw, sizeof pw);
        return KDF_CHKPWD_AUTH_ERR;
    }

    /* Accounted before it is verified, with the privileges that reach the
     * record (chkpwd_rate.c). */
    if (limited) {
        switch (kdf_chkpwd_rate_begin(&rate, KDF_CHKPWD_STATE_DIR, shadow, getuid(),
                                      KDF_CHKPWD_FAIL_DELAY_MS, KDF_CHKPWD_LOCK_WAIT_MS)) {
        case KDF_RATE_GO:
            break;
        case KDF_RATE_BUSY:
            (void)drop_privileges();
            kdf_wipe(pw, sizeof pw);
            return KDF_CHKPWD_AUTH_ERR;
        case KDF_RATE_ERROR:
            (void)drop_privileges();
            kdf_wipe(pw, sizeof pw);
            return KDF_CHKPWD_SYSTEM_ERR;
        }
    }
    ls = kdf_lookup_user(shadow, user, &e);
    if (ls == KDF_LOOKUP_FOUND)
        hold_key(&held, KDF_CHKPWD_KEYS_DIR, e.hash, e.hash_len);
    ring.ctx = &held;
    pol.keys = &ring;
    /* The file and the key are read: nothing below needs more than the
     * caller has. */
    if (drop_privileges() != 0) {
        syslog(LOG_CRIT, "cannot drop privileges");
        rc = KDF_CHKPWD_SYSTEM_ERR;
    } else {
        switch (ls) {
        case KDF_LOOKUP_FOUND:
            rc = verdict(&pol, user, e.hash, e.hash_len, nullok, pw, pw_len);
            break;
        case KDF_LOOKUP_NOT_FOUND:
            kdf_pam_dummy_verify(&pol, pw, pw_len);
            rc = KDF_CHKPWD_USER_UNKNOWN;
            break;
        case KDF_LOOKUP_UNAVAIL:
            syslog(LOG_ERR, "cannot read %s: %s", shadow, strerror(e.err));
            rc = KDF_CHKPWD_UNAVAIL;
            break;
        case KDF_LOOKUP_NOMEM:
            rc = KDF_CHKPWD_SYSTEM_ERR;
            break;
        default:
            kdf_pam_dummy_verify(&pol, pw, pw_len);
            syslog(LOG_ERR, "entry of %s refused: %s", user, kdf_lookup_status_str(ls));
            rc = KDF_CHKPWD_AUTH_ERR;
            break;
        }
        test_note_verified();
    }
    kdf_chkpwd_rate_end(&rate, rc == KDF_CHKPWD_OK);
    kdf_wipe(&held, sizeof held);
    kdf_wipe(&e, sizeof e);
    kdf_wipe(pw, sizeof pw);
    return rc;
}

/* The whole delay, whatever signals arrive meanwhile.  Without a record
 * (the degraded mode) the delay was paid before the verification, where a
 * kill cannot skip it; a second one would only slow the user. */
static void
fail_delay(void)
{
    if (rate.mode != KDF_RATE_DEGRADED)
        kdf_chkpwd_sleep_ms(KDF_CHKPWD_FAIL_DELAY_MS);
}

/* An audit record of the answer for a caller that is not root, as
 * unix_chkpwd writes one: USER_AUTH, op "PAM:kdfhash-chkpwd".  A kernel
 * without audit, or no right to write records (a setgid helper has no
 * CAP_AUDIT_WRITE), is not an error. */
static void
audit_answer(const char *user, int ok)
{
#ifdef HAVE_LIBAUDIT
    int fd, r;

    if (getuid() == 0)
        return; /* root's own PAM stack (libpam) records it */
    fd = audit_open();
    if (fd < 0) {
        if (errno != EINVAL && errno != EPROTONOSUPPORT && errno != EAFNOSUPPORT)
            syslog(LOG_CRIT, "audit_open() failed: %m");
        return;
    }
    r = audit_log_acct_message(fd, AUDIT_USER_AUTH, NULL, "PAM:kdfhash-chkpwd", user,
                               (unsigned int)-1 /* no uid: audit_log_acct_message(3) */,
                               NULL, NULL, NULL, ok);
    if (r < 0 && r != -EPERM && r != -ECONNREFUSED)
        syslog(LOG_ERR, "cannot write an audit record (%d)", r);
    audit_close(fd);
#else
    (void)user;
    (void)ok;
#endif
}

/* The answer: recorded, and a refusal delayed. */
static int
answer(const char *user, int rc)
{
    if (rc == KDF_CHKPWD_OK || rc == KDF_CHKPWD_AUTH_ERR || rc == KDF_CHKPWD_USER_UNKNOWN)
        audit_answer(user, rc == KDF_CHKPWD_OK);
    /* unix_chkpwd's line word for word (the rules written for it read
     * it); a name the module would not look up is not written out. */
    if ((rc == KDF_CHKPWD_AUTH_ERR || rc == KDF_CHKPWD_USER_UNKNOWN) &&
        kdf_shadow_name_ok(user))
        syslog(LOG_NOTICE, "password check failed for user (%s)", user);
    if (rc == KDF_CHKPWD_AUTH_ERR || rc == KDF_CHKPWD_USER_UNKNOWN)
        fail_delay();
    return rc;
}

int
main(int argc, char **argv)
{
    const char *user, *shadow = KDF_PAM_DEFAULT_SHADOW, *conf = NULL;
    struct kdf_chkpwd_req req;
    struct passwd *me;
    int nullok, limited;

    openlog("kdfhash-chkpwd", LOG_PID, LOG_AUTHPRIV);
    if (isatty(STDIN_FILENO) || argc < 3 || argc > 5) {
        (void)drop_privileges();
        syslog(LOG_NOTICE, "inappropriate use by uid %u", (unsigned)getuid());
        fprintf(stderr, "This binary is not designed for running in this way\n"
                        "-- the system administrator has been informed\n");
        sleep(KDF_CHKPWD_TTY_SLEEP);
        return KDF_CHKPWD_USAGE;
    }
    switch (kdf_chkpwd_parse_args(argc, argv, KDF_CHKPWD_PATHS_ALWAYS || !elevated(), &req)) {
    case KDF_CHKPWD_ARGS_OK:
        break;
    case KDF_CHKPWD_ARGS_PATHS:
        (void)drop_privileges();
        syslog(LOG_ERR, "a file path from uid %u refused: only %s is read",
               (unsigned)getuid(), KDF_PAM_DEFAULT_SHADOW);
        return KDF_CHKPWD_UNAVAIL;
    default:
        (void)drop_privileges();
        return KDF_CHKPWD_USAGE;
    }
    user = req.user;
    nullok = req.nullok;
    if (req.shadow != NULL)
        shadow = req.shadow;
    conf = req.conf;
    /* Root may read the shadow file itself, and a helper without
     * privileges reads only what its caller could: neither gains from a
     * limit, and root's record would queue every root service's checks of
     * every user behind one lock. */
    limited = getuid() != 0 && elevated();
    if (!kdf_shadow_name_ok(user)) {
        (void)drop_privileges();
        return answer(user, KDF_CHKPWD_AUTH_ERR);
    }
    if (getuid() != 0) {
        me = getpwuid(getuid());
        if (me == NULL || strcmp(me->pw_name, user) != 0) {
            /* First the drop, then the refusal: nothing is read with the
             * privileges on behalf of someone asking about another user. */
            if (drop_privileges() != 0)
                return KDF_CHKPWD_SYSTEM_ERR;
            syslog(LOG_NOTICE, "uid %u asked about another user: refused",
                   (unsigned)getuid());
            return answer(user, KDF_CHKPWD_AUTH_ERR);
        }
    }
    return answer(user, check(user, nullok, shadow, conf, limited));
}
