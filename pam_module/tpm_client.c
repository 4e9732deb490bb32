/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tpm_client.c - the module's side of kdfhash-tpm-hmac (tpm_client.h):
 * write the request into a pipe, start the child with kdf_spawn_wait()
 * (spawn.c: a deadline, then SIGKILL and reap; the host's SIGCHLD
 * restored), read its one-line answer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kdfhash.h"
#include "spawn.h"
#include "tpm_client.h"

#ifndef KDF_PAM_DEFAULT_TPM_HELPER
#define KDF_PAM_DEFAULT_TPM_HELPER "/usr/libexec/kdfhash/kdfhash-tpm-hmac"
#endif
const char kdf_pam_tpm_default_prog[] = KDF_PAM_DEFAULT_TPM_HELPER;

#ifndef HAVE_TPM
/* Without the TPM2 Software Stack there is no child to run. */
enum kdf_status
kdf_pam_tpm_secret(void *ctx, const char *tcti, uint32_t handle, const uint8_t *salt,
                   size_t salt_len, uint8_t *out, char *err, size_t cap)
{
    (void)ctx;
    (void)tcti;
    (void)handle;
    (void)salt;
    (void)salt_len;
    (void)out;
    kdf_errf(err, cap, "built without TPM support (configure --with-tpm)");
    return KDF_NOKEY;
}
#else /* HAVE_TPM */

/* The read end of a pipe holding the whole request (under PIPE_BUF: one
 * write that cannot block or be short), write end closed; or -1. */
static int
request_pipe(const char *req, size_t n)
{
    int p[2];
    ssize_t w;

    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    do
        w = write(p[1], req, n);
    while (w < 0 && errno == EINTR);
    close(p[1]);
    if (w != (ssize_t)n) {
        close(p[0]);
        return -1;
    }
    return p[0];
}

/* Whatever the ended child left in the pipe, at most cap - 1 bytes, as a
 * string (the read end is non-blocking: a grandchild holding the write end
 * open cannot make us wait). */
static size_t
read_reply(int fd, char *buf, size_t cap)
{
    size_t off = 0;

    while (off + 1 < cap) {
        ssize_t r = read(fd, buf + off, cap - 1 - off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        off += (size_t)r;
    }
    buf[off] = '\0';
    return off;
}

static int
unhex(const char *s, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v = 0;

        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + (size_t)k];
            unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                         : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16u;
            if (d > 15)
                return 0;
            v = v << 4 | d;
        }
        out[i] = (uint8_t)v;
    }
    return 1;
}

/* The child's answer into out or err. */
static enum kdf_status
take_reply(const char *prog, int st, char *reply, size_t n, uint8_t *out, char *err,
           size_t cap)
{
    size_t okn = 3 + 2 * KDF_TPM_SECRET_LEN;
    char *nl = memchr(reply, '\n', n);

    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && n == okn + 1 && nl == reply + okn &&
        memcmp(reply, "ok ", 3) == 0 && unhex(reply + 3, KDF_TPM_SECRET_LEN, out))
        return KDF_OK;
    explicit_bzero(out, KDF_TPM_SECRET_LEN);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && nl != NULL && strncmp(reply, "error ", 6) == 0) {
        *nl = '\0';
        for (char *c = reply + 6; *c != '\0'; c++)
            if ((unsigned char)*c < ' ' || *c == 0x7f)
                *c = '?'; /* it goes into a log line */
        kdf_errf(err, cap, "%s", reply + 6);
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        kdf_errf(err, cap, "cannot execute %s", prog);
    else if (WIFEXITED(st))
        kdf_errf(err, cap, "%s gave no answer (exit status %d)", prog, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        kdf_errf(err, cap, "%s killed by signal %d", prog, WTERMSIG(st));
    else
        kdf_errf(err, cap, "%s ended abnormally", prog);
    return KDF_NOKEY;
}

enum kdf_status
kdf_pam_tpm_secret(void *ctx, const char *tcti, uint32_t handle, const uint8_t *salt,
                   size_t salt_len, uint8_t *out, char *err, size_t cap)
{
    const struct kdf_pam_tpm *t = ctx;
    char req[KDF_TPM_REQ_MAX], reply[KDF_TPM_REPLY_MAX];
    char *argv[2];
    int out_p[2], in_fd, st = 0, n;
    size_t got;
    enum kdf_spawn_result how;
    enum kdf_status res;

    if (t == NULL || t->prog == NULL || t->prog[0] != '/') {
        kdf_errf(err, cap, "no TPM helper");
        return KDF_NOKEY;
    }
    n = snprintf(req, sizeof req, KDF_TPM_REQ_MAGIC "0x%08x ", (unsigned)handle);
    for (size_t i = 0; i < salt_len && n > 0 && (size_t)n + 2 < sizeof req; i++)
        n += snprintf(req + n, sizeof req - (size_t)n, "%02x", salt[i]);
    if (n > 0 && (size_t)n < sizeof req)
        n += snprintf(req + n, sizeof req - (size_t)n, " %s\n", tcti);
    if (n <= 0 || (size_t)n >= sizeof req || salt_len == 0) {
        kdf_errf(err, cap, "request too long for %s", t->prog);
        return KDF_NOKEY;
    }
    in_fd = request_pipe(req, (size_t)n);
    if (in_fd < 0) {
        kdf_errf(err, cap, "pipe failed");
        return KDF_NOKEY;
    }
    if (pipe2(out_p, O_CLOEXEC) != 0 || fcntl(out_p[0], F_SETFL, O_NONBLOCK) != 0) {
        close(in_fd);
        kdf_errf(err, cap, "pipe failed");
        return KDF_NOKEY;
    }
    argv[0] = (char *)t->prog;
    argv[1] = NULL;
    /* Root's ids in the child of a root host, as for the upgrade hook: a
     * user who started su must not be able to stop it half-way. */
    how = kdf_spawn_wait(t->prog, argv, in_fd, out_p[1], t->timeout_ms, 5, KDF_SPAWN_ROOT_IDS,
                         &st, err, cap);
    got = read_reply(out_p[0], reply, sizeof reply);
    close(out_p[0]);
    if (how == KDF_SPAWN_EXITED)
        res = take_reply(t->prog, st, reply, got, out, err, cap);
    else {
        if (how == KDF_SPAWN_KILLED)
            kdf_errf(err, cap, "no answer within %u ms (%s killed)", t->timeout_ms, t->prog);
        else if (how == KDF_SPAWN_LOST)
            kdf_errf(err, cap, "%s: exit status lost", t->prog);
        res = KDF_NOKEY; /* KDF_SPAWN_ERROR, _NOT_RUN: err set */
    }
    explicit_bzero(reply, sizeof reply);
    return res;
}
#endif /* HAVE_TPM */
