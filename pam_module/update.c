/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * update.c - kdfhash-update, the helper through which pam_kdfhash.so writes
 * the shadow file and the password history where SELinux denies the
 * login's own process that write (pam_unix's unix_update and refpolicy's
 * updpwd_t are the model; packaging/selinux/kdfhash.te gives it its
 * domain).  Protocol: update_client.h.  Why: doc/DESIGN.md "Writing through
 * kdfhash-update".  Invariants:
 *   - it is never setuid, and answers root alone (real and effective uid
 *     0): it adds no privilege, only a domain, so nothing it does is more
 *     than its caller could do without SELinux;
 *   - it writes only the compiled-in shadow and history files (the
 *     never-installed KDF_UPDATE_TEST build: any absolute path), by the
 *     module's own writer (write.c: the same lock, compare-and-swap,
 *     atomic rename and crash guarantees), and nothing else;
 *   - every field is checked before anything is opened: the request's
 *     frame and size (update_client.c), the user name, the old field, and
 *     a new hash that kdf_parse() reads as a scheme a target can name;
 *   - no password: the module hashes, the helper writes; no hash in its
 *     log or its answer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "kdfhash.h"
#include "options.h"
#include "shadow_line.h"
#include "update_client.h"
#include "write.h"

/* The test build (tests/writer/kdfhash-update-test) writes any absolute
 * path, so that the tests can run it on files of their own. */
#ifdef KDF_UPDATE_TEST
#define KDF_UPDATE_PATHS_ANY 1
#else
#define KDF_UPDATE_PATHS_ANY 0
#endif

/* The answer: status as the exit code, the reason on stdout. */
static int
answer(enum kdf_write_status st, const char *why)
{
    if (why != NULL && why[0] != '\0')
        printf("%s\n", why);
    (void)fflush(stdout);
    return (int)st;
}

/* A refusal of the request: logged with the caller's uid, answered. */
static int
refuse(const char *why)
{
    syslog(LOG_NOTICE, "request from uid %u refused: %s", (unsigned)getuid(), why);
    return answer(KDF_WRITE_REFUSED, why);
}

static int
path_ok(const char *p, const char *system_file)
{
    if (p == NULL || p[0] != '/')
        return 0;
    return KDF_UPDATE_PATHS_ANY || strcmp(p, system_file) == 0;
}

/* A field as it may stand in field 2 and be compared: at most
 * KDF_SHADOW_MAX_HASH bytes, no ':' (the request's frame already excludes
 * line breaks and NUL). */
static int
field_ok(const char *f)
{
    return strlen(f) <= KDF_SHADOW_MAX_HASH && strchr(f, ':') == NULL;
}

/* The new hash: what the writer stores (kdf_shadow_hash_ok()), read by
 * kdf_parse() as a scheme that a target names, that is, one the module
 * makes.  Not the policy file's target itself: module arguments and the
 * xcrypt-only accounts choose others. */
static const char *
new_hash_refusal(const char *nh)
{
    struct kdf_hash h;
    struct kdf_scheme_info info;
    const char *why = NULL;
    int made;

    if (!kdf_shadow_hash_ok(nh))
        return "new hash not storable (empty, locked, too long or a bad byte)";
    if (kdf_parse(nh, strlen(nh), &h, &why) != KDF_OK)
        return "new hash does not parse";
    made = h.row != 0 && kdf_scheme_info_at(h.row - 1, &info) && info.target;
    kdf_wipe(&h, sizeof h);
    return made ? NULL : "new hash is not of a scheme a target names";
}

/* Every field of rq, before anything is opened: NULL, or why not. */
static const char *
request_refusal(const struct kdf_update_req *rq)
{
    if (!path_ok(rq->shadow, KDF_PAM_DEFAULT_SHADOW))
        return "not the shadow file this helper writes";
    if (!kdf_shadow_name_ok(rq->user))
        return "not a valid user name";
    if (!field_ok(rq->old_hash))
        return "old field not a shadow field";
    switch (rq->op) {
    case KDF_UPDATE_UPGRADE:
        /* An upgrade follows a verified hash, never an empty field. */
        if (rq->old_hash[0] == '\0')
            return "an upgrade of an empty field";
        return new_hash_refusal(rq->new_hash);
    case KDF_UPDATE_CHANGE:
        return new_hash_refusal(rq->new_hash);
    case KDF_UPDATE_HISTORY:
        if (!path_ok(rq->opasswd, KDF_PAM_DEFAULT_OPASSWD))
            return "not the history file this helper writes";
        if (!kdf_shadow_hash_ok(rq->old_hash))
            return "old hash not storable in the history";
        return NULL;
    }
    return "unknown op";
}

int
main(void)
{
    static char buf[KDF_UPDATE_MAX_REQ + 1];
    struct kdf_update_req rq;
    char err[256];
    const char *why = NULL;
    enum kdf_write_status st;
    size_t n = 0;
    int rc;

    openlog("kdfhash-update", LOG_PID, LOG_AUTHPRIV);
    if (isatty(STDIN_FILENO)) {
        syslog(LOG_NOTICE, "inappropriate use by uid %u", (unsigned)getuid());
        fprintf(stderr, "This binary is not designed for running in this way\n"
                        "-- the system administrator has been informed\n");
        return answer(KDF_WRITE_REFUSED, "stdin is a terminal");
    }
    /* As unix_update: only root may ask.  Checked before the request is
     * read, so a user learns nothing from its parse. */
    if (getuid() != 0 || geteuid() != 0)
        return refuse("only root may call this helper");
    /* One more byte than a request may have: its presence means "too big". */
    while (n < sizeof buf) {
        ssize_t r = read(STDIN_FILENO, buf + n, sizeof buf - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return refuse("cannot read the request");
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n > KDF_UPDATE_MAX_REQ) {
        kdf_wipe(buf, sizeof buf);
        return refuse("request too large");
    }
    if (kdf_update_parse(buf, n, &rq, &why) != 0 || (why = request_refusal(&rq)) != NULL) {
        kdf_wipe(buf, sizeof buf);
        return refuse(why);
    }
    err[0] = '\0';
    if (rq.op == KDF_UPDATE_HISTORY)
        st = kdf_write_opasswd(rq.opasswd, rq.shadow, rq.user, rq.uid, rq.old_hash, rq.keep,
                               rq.wait_ms, err, sizeof err);
    else
        st = kdf_write_entry(rq.shadow, NULL, rq.user, rq.old_hash, rq.new_hash,
                             rq.op == KDF_UPDATE_CHANGE ? rq.lastchg : -1, rq.wait_ms, err,
                             sizeof err);
    kdf_wipe(buf, sizeof buf);
    rc = answer(st, err);
    kdf_wipe(err, sizeof err);
    return rc;
}
