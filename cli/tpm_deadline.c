/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tpm_deadline.c - the command line's way to a TPM key (keystore.h's
 * struct kdf_tpm_access): kdf_tpm_secret() in a forked child that is
 * killed when it has not answered within KDF_TPM_TIMEOUT_MS.  A TPM that
 * takes the connection and never answers (a stopped swtpm, a wedged
 * driver) would otherwise hang `kdfhash verify` or `kdfhash hash` for
 * ever: the TCTI's start has no timeout of its own.  The module does the
 * same through a program of its own (pam_module/tpm_client.h); the command
 * line is the admin's own process, so a plain fork() is enough.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "keystore.h"

struct answer {
    enum kdf_status st;
    uint8_t secret[KDF_TPM_SECRET_LEN];
    char err[256];
};

static void __attribute__((noreturn))
child(int fd, const char *tcti, uint32_t handle, const uint8_t *salt, size_t salt_len)
{
    struct answer a;
    size_t off = 0;

    memset(&a, 0, sizeof a);
    a.st = kdf_tpm_secret(tcti, handle, salt, salt_len, a.secret, a.err, sizeof a.err);
    while (off < sizeof a) {
        ssize_t w = write(fd, (const char *)&a + off, sizeof a - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    explicit_bzero(&a, sizeof a);
    _exit(off == sizeof a ? 0 : 1);
}

/* Read the whole answer before the deadline; 0 when it came. */
static int
collect(int fd, struct answer *a, unsigned timeout_ms)
{
    size_t off = 0;
    double end = cli_now_ms() + timeout_ms;

    while (off < sizeof *a) {
        struct pollfd p = {fd, POLLIN, 0};
        double left = end - cli_now_ms();
        ssize_t r;

        if (left <= 0 || poll(&p, 1, (int)left + 1) == 0)
            return -1;
        r = read(fd, (char *)a + off, sizeof *a - off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        off += (size_t)r;
    }
    return 0;
}

static enum kdf_status
tpm_with_deadline(void *ctx, const char *tcti, uint32_t handle, const uint8_t *salt,
                  size_t salt_len, uint8_t *out, char *err, size_t cap)
{
    struct answer a;
    enum kdf_status st;
    int fds[2], got;
    pid_t pid;

    (void)ctx;
    if (pipe(fds) != 0) {
        kdf_errf(err, cap, "pipe failed");
        return KDF_NOKEY;
    }
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        kdf_errf(err, cap, "fork failed");
        return KDF_NOKEY;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], tcti, handle, salt, salt_len);
    }
    close(fds[1]);
    memset(&a, 0, sizeof a);
    got = collect(fds[0], &a, KDF_TPM_TIMEOUT_MS) == 0;
    close(fds[0]);
    if (!got)
        (void)kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (!got) {
        kdf_errf(err, cap, "no answer within %u ms", (unsigned)KDF_TPM_TIMEOUT_MS);
        explicit_bzero(&a, sizeof a);
        return KDF_NOKEY;
    }
    a.err[sizeof a.err - 1] = '\0';
    st = a.st == KDF_OK ? KDF_OK : KDF_NOKEY;
    if (st == KDF_OK)
        memcpy(out, a.secret, KDF_TPM_SECRET_LEN);
    else
        kdf_errf(err, cap, "%s", a.err);
    explicit_bzero(&a, sizeof a);
    return st;
}

const struct kdf_tpm_access cli_tpm = {tpm_with_deadline, NULL};
