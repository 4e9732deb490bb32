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
#include <stdlib.h>
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

enum kdf_status
kdf_pam_tpm_new_key(const struct kdf_pam_tpm *t, const char *tcti, uint32_t *handle,
                    char *err, size_t cap)
{
    (void)t;
    (void)tcti;
    *handle = 0;
    kdf_errf(err, cap, "built without TPM support (configure --with-tpm)");
    return KDF_UNSUPPORTED;
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

/* Why the child gave no usable answer, into err. */
static void
say_failure(const char *prog, int st, char *reply, size_t n, char *err, size_t cap)
{
    char *nl = memchr(reply, '\n', n);

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
    say_failure(prog, st, reply, n, err, cap);
    return KDF_NOKEY;
}

/* Run the child on the request req (n bytes) and read its answer into
 * reply; *wst gets its wait status.  KDF_SPAWN_EXITED, or a failure with
 * err set. */
static enum kdf_spawn_result
exchange(const struct kdf_pam_tpm *t, const char *req, size_t n, char *reply, size_t cap,
         size_t *got, int *wst, char *err, size_t err_cap)
{
    char *argv[2];
    int out_p[2], in_fd;
    enum kdf_spawn_result how;

    *got = 0;
    reply[0] = '\0';
    in_fd = request_pipe(req, n);
    if (in_fd < 0) {
        kdf_errf(err, err_cap, "pipe failed");
        return KDF_SPAWN_ERROR;
    }
    if (pipe2(out_p, O_CLOEXEC) != 0 || fcntl(out_p[0], F_SETFL, O_NONBLOCK) != 0) {
        close(in_fd);
        kdf_errf(err, err_cap, "pipe failed");
        return KDF_SPAWN_ERROR;
    }
    argv[0] = (char *)t->prog;
    argv[1] = NULL;
    /* Root's ids in the child of a root host, as for the upgrade hook: a
     * user who started su must not be able to stop it half-way. */
    how = kdf_spawn_wait(t->prog, argv, in_fd, out_p[1], t->timeout_ms, 5, KDF_SPAWN_ROOT_IDS,
                         wst, err, err_cap);
    *got = read_reply(out_p[0], reply, cap);
    close(out_p[0]);
    if (how == KDF_SPAWN_KILLED)
        kdf_errf(err, err_cap, "no answer within %u ms (%s killed)", t->timeout_ms, t->prog);
    else if (how == KDF_SPAWN_LOST)
        kdf_errf(err, err_cap, "%s: exit status lost", t->prog);
    return how; /* KDF_SPAWN_ERROR, _NOT_RUN: err set */
}

enum kdf_status
kdf_pam_tpm_secret(void *ctx, const char *tcti, uint32_t handle, const uint8_t *salt,
                   size_t salt_len, uint8_t *out, char *err, size_t cap)
{
    const struct kdf_pam_tpm *t = ctx;
    char req[KDF_TPM_REQ_MAX], reply[KDF_TPM_REPLY_MAX];
    int st = 0, n;
    size_t got;
    enum kdf_status res = KDF_NOKEY;

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
    if (exchange(t, req, (size_t)n, reply, sizeof reply, &got, &st, err, cap) ==
        KDF_SPAWN_EXITED)
        res = take_reply(t->prog, st, reply, got, out, err, cap);
    explicit_bzero(reply, sizeof reply);
    return res;
}

enum kdf_status
kdf_pam_tpm_new_key(const struct kdf_pam_tpm *t, const char *tcti, uint32_t *handle,
                    char *err, size_t cap)
{
    char req[KDF_TPM_REQ_MAX], reply[KDF_TPM_REPLY_MAX], *end = NULL;
    int st = 0, n;
    size_t got;
    unsigned long h;

    *handle = 0;
    if (t == NULL || t->prog == NULL || t->prog[0] != '/') {
        kdf_errf(err, cap, "no TPM helper");
        return KDF_INTERNAL;
    }
    n = snprintf(req, sizeof req, KDF_TPM_NEW_MAGIC "%s\n", tcti);
    if (n <= 0 || (size_t)n >= sizeof req) {
        kdf_errf(err, cap, "request too long for %s", t->prog);
        return KDF_INTERNAL;
    }
    if (exchange(t, req, (size_t)n, reply, sizeof reply, &got, &st, err, cap) !=
        KDF_SPAWN_EXITED)
        return KDF_INTERNAL;
    /* "ok 0xHANDLE\n": a persistent handle, nothing else. */
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && got == 14 && memcmp(reply, "ok 0x", 5) == 0 &&
        strspn(reply + 5, "0123456789abcdef") == 8 && reply[13] == '\n') {
        reply[13] = '\0';
        h = strtoul(reply + 5, &end, 16);
        if (end == reply + 13 && h >= 0x81000000ul && h <= 0x81FFFFFFul) {
            *handle = (uint32_t)h;
            return KDF_OK;
        }
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        kdf_errf(err, cap, "%s: no handle in its answer", t->prog);
    else
        say_failure(t->prog, st, reply, got, err, cap);
    return KDF_INTERNAL;
}
#endif /* HAVE_TPM */
