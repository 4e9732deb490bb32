/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * update_client.c - the module side of kdfhash-update (update_client.h):
 * the request's text, its parser (the helper's), running the helper, and
 * the choice between it and the writer itself.
 *
 * The child-handling rules are chkpwd_client.c's (kdf_spawn_wait(),
 * spawn.c): the request goes through a pipe filled and closed before the
 * fork, never argv or the environment; the helper gets root's ids in every
 * id (a setuid passwd started by a user has that user's real uid, and the
 * helper answers root alone); its answer comes back on a second pipe, read
 * once it has ended.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_SELINUX
#include <selinux/selinux.h>
#endif

#include "kdfhash.h"
#include "spawn.h"
#include "update_client.h"

/* The keys, in the order the encoder writes them; bit i of a request's
 * mask is keys[i]. */
static const char *const keys[] = {"op",  "shadow",  "opasswd", "user", "old",
                                   "new", "lastchg", "uid",     "keep", "wait"};
enum { K_OP, K_SHADOW, K_OPASSWD, K_USER, K_OLD, K_NEW, K_LASTCHG, K_UID, K_KEEP, K_WAIT, K_N };
#define B(k) (1u << (k))
#define K_COMMON (B(K_OP) | B(K_SHADOW) | B(K_USER) | B(K_OLD) | B(K_WAIT))

static unsigned
op_keys(enum kdf_update_op op)
{
    switch (op) {
    case KDF_UPDATE_UPGRADE:
        return K_COMMON | B(K_NEW);
    case KDF_UPDATE_CHANGE:
        return K_COMMON | B(K_NEW) | B(K_LASTCHG);
    case KDF_UPDATE_HISTORY:
        return K_COMMON | B(K_OPASSWD) | B(K_UID) | B(K_KEEP);
    }
    return 0;
}

static const char *
op_name(enum kdf_update_op op)
{
    return op == KDF_UPDATE_UPGRADE ? "upgrade"
           : op == KDF_UPDATE_CHANGE ? "change"
           : op == KDF_UPDATE_HISTORY ? "history"
                                      : NULL;
}

/* Append "key=value\n"; 0 when value is missing, holds a line break, or
 * does not fit. */
static int
put(char *out, size_t cap, size_t *off, const char *key, const char *value)
{
    int n;

    if (value == NULL || strchr(value, '\n') != NULL)
        return 0;
    n = snprintf(out + *off, cap - *off, "%s=%s\n", key, value);
    if (n < 0 || (size_t)n >= cap - *off)
        return 0;
    *off += (size_t)n;
    return 1;
}

size_t
kdf_update_encode(const struct kdf_update_req *rq, char *out, size_t cap)
{
    const char *val[K_N] = {0};
    char num[3][24];
    unsigned want = op_keys(rq->op);
    size_t off = 0;

    if (want == 0 || cap == 0)
        return 0;
    snprintf(num[0], sizeof num[0], "%ld", rq->lastchg);
    snprintf(num[1], sizeof num[1], "%lu", rq->uid);
    snprintf(num[2], sizeof num[2], "%u", rq->keep);
    val[K_OP] = op_name(rq->op);
    val[K_SHADOW] = rq->shadow;
    val[K_OPASSWD] = rq->opasswd;
    val[K_USER] = rq->user;
    val[K_OLD] = rq->old_hash;
    val[K_NEW] = rq->new_hash;
    val[K_LASTCHG] = num[0];
    val[K_UID] = num[1];
    val[K_KEEP] = num[2];
    for (int k = 0; k < K_N; k++) {
        if (k == K_WAIT) {
            char w[16];
            snprintf(w, sizeof w, "%u", rq->wait_ms);
            if (!put(out, cap, &off, keys[k], w)) {
                kdf_wipe(out, off);
                return 0;
            }
        } else if ((want & B(k)) && !put(out, cap, &off, keys[k], val[k])) {
            kdf_wipe(out, off);
            return 0;
        }
    }
    return off;
}

/* A decimal number in [lo, hi]; "-1" only where lo is -1. */
static int
number(const char *s, long long lo, long long hi, long long *out)
{
    long long v = 0;
    int neg = s[0] == '-';
    const char *d = s + neg;
    size_t n = strlen(d);

    if (n == 0 || n > 12 || strspn(d, "0123456789") != n || (n > 1 && d[0] == '0'))
        return 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (d[i] - '0');
    v = neg ? -v : v;
    if (v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* One "key=value" line: the value stored into rq, its bit into *seen. */
static int
parse_line(char *line, struct kdf_update_req *rq, unsigned *seen, const char **why)
{
    char *eq = strchr(line, '=');
    const char *v;
    long long n = 0;
    int k = 0;

    if (eq == NULL) {
        *why = "a line without '='";
        return -1;
    }
    *eq = '\0';
    v = eq + 1;
    while (k < K_N && strcmp(line, keys[k]) != 0)
        k++;
    if (k == K_N) {
        *why = "an unknown key";
        return -1;
    }
    if (*seen & B(k)) {
        *why = "a key given twice";
        return -1;
    }
    *seen |= B(k);
    switch (k) {
    case K_OP:
        for (int o = KDF_UPDATE_UPGRADE; o <= KDF_UPDATE_HISTORY; o++)
            if (strcmp(v, op_name((enum kdf_update_op)o)) == 0)
                rq->op = (enum kdf_update_op)o;
        if (rq->op == 0)
            *why = "an unknown op";
        return rq->op == 0 ? -1 : 0;
    case K_SHADOW:
        rq->shadow = v;
        return 0;
    case K_OPASSWD:
        rq->opasswd = v;
        return 0;
    case K_USER:
        rq->user = v;
        return 0;
    case K_OLD:
        rq->old_hash = v;
        return 0;
    case K_NEW:
        rq->new_hash = v;
        return 0;
    case K_LASTCHG:
        if (!number(v, -1, 1000000000LL, &n))
            break;
        rq->lastchg = (long)n;
        return 0;
    case K_UID:
        if (!number(v, 0, 4294967294LL, &n))
            break;
        rq->uid = (unsigned long)n;
        return 0;
    case K_KEEP:
        if (!number(v, 0, KDF_PAM_MAX_REMEMBER, &n))
            break;
        rq->keep = (unsigned)n;
        return 0;
    default: /* K_WAIT */
        if (!number(v, 0, KDF_UPDATE_MAX_WAIT_MS, &n))
            break;
        rq->wait_ms = (unsigned)n;
        return 0;
    }
    *why = "a number out of range";
    return -1;
}

int
kdf_update_parse(char *buf, size_t len, struct kdf_update_req *rq, const char **why)
{
    unsigned seen = 0;
    size_t pos = 0;

    memset(rq, 0, sizeof *rq);
    rq->lastchg = -1;
    if (len == 0 || len > KDF_UPDATE_MAX_REQ || memchr(buf, '\0', len) != NULL ||
        buf[len - 1] != '\n') {
        *why = len > KDF_UPDATE_MAX_REQ ? "request too large" : "not a request";
        return -1;
    }
    while (pos < len) {
        char *nl = memchr(buf + pos, '\n', len - pos);

        *nl = '\0';
        if (parse_line(buf + pos, rq, &seen, why) != 0)
            return -1;
        pos = (size_t)(nl - buf) + 1;
    }
    if (!(seen & B(K_OP)) || seen != op_keys(rq->op)) {
        *why = "keys missing or not of the op";
        return -1;
    }
    return 0;
}

/* The helper's one line, printable ASCII only, into err. */
static void
read_answer(int fd, char *err, size_t cap)
{
    char line[256];
    ssize_t n;

    do
        n = read(fd, line, sizeof line - 1);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return;
    line[n] = '\0';
    line[strcspn(line, "\n")] = '\0';
    for (char *c = line; *c != '\0'; c++)
        if (*c < 0x20 || *c > 0x7e)
            *c = '?';
    kdf_errf(err, cap, "%s", line);
}

enum kdf_write_status
kdf_update_run(const char *prog, const struct kdf_update_req *rq, int *wstatus, char *err,
               size_t err_cap)
{
    char req[KDF_UPDATE_MAX_REQ];
    char *argv[2] = {(char *)prog, NULL};
    size_t len;
    int in_fd, out[2], st = 0;
    unsigned timeout_ms = rq->wait_ms + KDF_UPDATE_TIMEOUT_MS;
    enum kdf_spawn_result how;

    kdf_errf(err, err_cap, "%s", "");
    if (wstatus != NULL)
        *wstatus = 0;
    if (prog == NULL || prog[0] != '/') {
        kdf_errf(err, err_cap, "the write helper's path must be absolute");
        return KDF_WRITE_REFUSED;
    }
    len = kdf_update_encode(rq, req, sizeof req);
    if (len == 0) {
        kdf_errf(err, err_cap, "request not acceptable for the write helper");
        return KDF_WRITE_REFUSED;
    }
    in_fd = kdf_spawn_filled_pipe(req, len, KDF_UPDATE_MAX_REQ + 4096, "request", err, err_cap);
    kdf_wipe(req, len); /* the hashes now live only in the pipe */
    if (in_fd < 0)
        return KDF_WRITE_IO_ERROR;
    if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0) {
        close(in_fd);
        kdf_errf(err, err_cap, "pipe failed");
        return KDF_WRITE_IO_ERROR;
    }
    how = kdf_spawn_wait(prog, argv, in_fd, out[1], timeout_ms, 5, KDF_SPAWN_ROOT_IDS, &st,
                         err, err_cap);
    if (wstatus != NULL)
        *wstatus = st;
    if (how == KDF_SPAWN_EXITED && WIFEXITED(st) && WEXITSTATUS(st) < KDF_WRITE_HOOK_FAILED)
        read_answer(out[0], err, err_cap);
    close(out[0]);
    switch (how) {
    case KDF_SPAWN_ERROR:
        return KDF_WRITE_IO_ERROR;
    case KDF_SPAWN_NOT_RUN:
        return KDF_WRITE_HOOK_FAILED;
    case KDF_SPAWN_LOST:
        kdf_errf(err, err_cap, "write helper's exit status lost");
        return KDF_WRITE_HOOK_FAILED;
    case KDF_SPAWN_KILLED:
        kdf_errf(err, err_cap, "write helper killed after the %u ms timeout", timeout_ms);
        return KDF_WRITE_HOOK_FAILED;
    case KDF_SPAWN_EXITED:
        break;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) < KDF_WRITE_HOOK_FAILED)
        return (enum kdf_write_status)WEXITSTATUS(st);
    if (WIFEXITED(st))
        kdf_errf(err, err_cap, "write helper %s exited with status %d%s", prog,
                 WEXITSTATUS(st), WEXITSTATUS(st) == 127 ? " (cannot execute it)" : "");
    else if (WIFSIGNALED(st))
        kdf_errf(err, err_cap, "write helper killed by signal %d", WTERMSIG(st));
    else
        kdf_errf(err, err_cap, "write helper ended abnormally");
    return KDF_WRITE_HOOK_FAILED;
}

/* write_helper=auto: the helper where SELinux would deny the login's own
 * process the write, for the files the policy module labels and the
 * installed helper writes; any other file is written as without SELinux. */
static int
via_helper(const struct kdf_pam_options *o, int history)
{
    switch (o->write_helper) {
    case KDF_PAM_WRITE_HELPER_ALWAYS:
        return 1;
    case KDF_PAM_WRITE_HELPER_NEVER:
        return 0;
    case KDF_PAM_WRITE_HELPER_AUTO:
        break;
    }
#ifdef HAVE_SELINUX
    return is_selinux_enabled() > 0 && strcmp(o->shadow_path, KDF_PAM_DEFAULT_SHADOW) == 0 &&
           (!history || strcmp(o->opasswd_path, KDF_PAM_DEFAULT_OPASSWD) == 0);
#else
    (void)history;
    return 0;
#endif
}

enum kdf_write_status
kdf_pam_store_entry(const struct kdf_pam_options *o, const char *user, const char *old_hash,
                    const char *new_hash, long lastchg, unsigned lock_wait_ms, char *err,
                    size_t err_cap)
{
    struct kdf_update_req rq = {lastchg < 0 ? KDF_UPDATE_UPGRADE : KDF_UPDATE_CHANGE,
                                o->shadow_path, NULL, user, old_hash, new_hash, lastchg,
                                0, 0, lock_wait_ms};

    if (!via_helper(o, 0))
        return kdf_write_entry(o->shadow_path, NULL, user, old_hash, new_hash, lastchg,
                               lock_wait_ms, err, err_cap);
    return kdf_update_run(o->update_prog, &rq, NULL, err, err_cap);
}

enum kdf_write_status
kdf_pam_store_hash(const struct kdf_pam_options *o, const char *user, const char *old_hash,
                   const char *new_hash, unsigned lock_wait_ms, char *err, size_t err_cap)
{
    return kdf_pam_store_entry(o, user, old_hash, new_hash, -1, lock_wait_ms, err, err_cap);
}

enum kdf_write_status
kdf_pam_store_history(const struct kdf_pam_options *o, const char *user, unsigned long uid,
                      const char *old_hash, unsigned keep, unsigned lock_wait_ms, char *err,
                      size_t err_cap)
{
    struct kdf_update_req rq = {KDF_UPDATE_HISTORY, o->shadow_path, o->opasswd_path, user,
                                old_hash, NULL, -1, uid, keep, lock_wait_ms};

    if (!via_helper(o, 1))
        return kdf_write_opasswd(o->opasswd_path, o->shadow_path, user, uid, old_hash, keep,
                                 lock_wait_ms, err, err_cap);
    return kdf_update_run(o->update_prog, &rq, NULL, err, err_cap);
}
