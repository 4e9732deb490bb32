/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upgrade_exec.c - the external upgrade hook, upgrade=exec:PATH
 * (doc/DESIGN.md "Writing a new hash: the file writer and the exec hook").
 *
 * The hook runs as a child of whatever process loaded the PAM module (sshd,
 * login, a display manager), so everything here is about leaving that host
 * as it was:
 *   - data only on stdin ("old\nnew\n"); argv is {prog, user} and the
 *     environment is a fixed PATH, so no hash shows in /proc/<pid>/cmdline
 *     or /proc/<pid>/environ;
 *   - the stdin pipe is filled and its write end closed BEFORE the fork: the
 *     payload is at most PIPE_BUF bytes, so the write neither blocks nor can
 *     meet a closed reader (no EPIPE, no SIGPIPE, no signal mask games);
 *   - in the child of a root host: real, effective and saved uid and gid 0
 *     and no supplementary groups, or the hook is not run (a setuid su or
 *     passwd started by a user has that user's real uid, which would let the
 *     user signal the hook);
 *   - in the child: fds 0-2 only (close_range, else a close() loop), signal
 *     mask emptied and ignored signals reset, own process group so that a
 *     timeout kills the hook's children too; execve() without PATH search;
 *   - in the parent: waitpid() on that pid only, polled against the
 *     deadline, then SIGKILL and reap (no zombie).  SIGCHLD is set to SIG_DFL
 *     for the duration and restored exactly afterwards, as pam_unix does
 *     around its helpers (with SIG_IGN or SA_NOCLDWAIT the kernel would reap
 *     the child itself and waitpid() would fail with ECHILD).
 * No handler is installed, no alarm() used, the host's signal mask and
 * other dispositions are not touched.  The child handling itself is
 * kdf_spawn_wait() (spawn.c), shared with chkpwd_client.c; this file keeps
 * the hook's argv, stdin payload, timeout and status mapping.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kdfhash.h"
#include "spawn.h"
#include "upgrade.h"

/* Fill a pipe with "old\nnew\n" and close its write end; returns the read
 * end.  len <= PIPE_BUF, so one write() completes at once and entirely
 * (pipe(7)); the read end is ours, so there is no EPIPE. */
static int
make_stdin(const char *old_hash, const char *new_hash, char *err, size_t cap)
{
    char payload[PIPE_BUF];
    size_t lo = strlen(old_hash), ln = strlen(new_hash), len = lo + ln + 2;
    int p[2];
    ssize_t w;

    if (pipe2(p, O_CLOEXEC) < 0) {
        kdf_errf(err, cap, "pipe failed");
        return -1;
    }
    memcpy(payload, old_hash, lo);
    payload[lo] = '\n';
    memcpy(payload + lo + 1, new_hash, ln);
    payload[lo + 1 + ln] = '\n';
    do
        w = write(p[1], payload, len);
    while (w < 0 && errno == EINTR);
    kdf_wipe(payload, len);
    close(p[1]);
    if (w != (ssize_t)len) {
        close(p[0]);
        kdf_errf(err, cap, "writing the hook's stdin failed");
        return -1;
    }
    return p[0];
}

enum kdf_write_status
kdf_upgrade_exec(const char *prog, const char *user, const char *old_hash,
                 const char *new_hash, unsigned timeout_ms, int *exit_status, char *err,
                 size_t err_cap)
{
    char *argv[3];
    int in_fd, st = 0;
    enum kdf_spawn_result how;

    kdf_errf(err, err_cap, "%s", "");
    if (exit_status != NULL)
        *exit_status = 0;
    if (prog == NULL || user == NULL || old_hash == NULL || new_hash == NULL ||
        prog[0] != '/') {
        kdf_errf(err, err_cap, "hook path must be absolute");
        return KDF_WRITE_REFUSED;
    }
    /* argv[1] must not read as an option; hashes must not break the
     * line protocol; the payload must fit one atomic pipe write. */
    if (user[0] == '\0' || user[0] == '-' || strchr(old_hash, '\n') != NULL ||
        strchr(new_hash, '\n') != NULL ||
        strlen(old_hash) + strlen(new_hash) + 2 > PIPE_BUF) {
        kdf_errf(err, err_cap, "user name or hash not acceptable for the hook");
        return KDF_WRITE_REFUSED;
    }
    in_fd = make_stdin(old_hash, new_hash, err, err_cap);
    if (in_fd < 0)
        return KDF_WRITE_IO_ERROR;
    argv[0] = (char *)prog;
    argv[1] = (char *)user;
    argv[2] = NULL;

    /* A root host runs the hook as root in every id, also when it is a
     * setuid su or passwd that a user started (spawn.h). */
    how = kdf_spawn_wait(prog, argv, in_fd, -1, timeout_ms, 10,
                         KDF_SPAWN_CONTAIN | KDF_SPAWN_ROOT_IDS, &st, err, err_cap);
    if (exit_status != NULL)
        *exit_status = st;
    if (how == KDF_SPAWN_ERROR)
        return KDF_WRITE_IO_ERROR;
    if (how == KDF_SPAWN_NOT_RUN)
        return KDF_WRITE_HOOK_FAILED;
    if (how == KDF_SPAWN_LOST) {
        kdf_errf(err, err_cap, "hook exit status lost");
        return KDF_WRITE_HOOK_FAILED;
    }
    if (how == KDF_SPAWN_KILLED) {
        kdf_errf(err, err_cap, "hook killed after the %u ms timeout", timeout_ms);
        return KDF_WRITE_HOOK_FAILED;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return KDF_WRITE_OK;
    if (WIFEXITED(st))
        kdf_errf(err, err_cap, "hook exited with status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        kdf_errf(err, err_cap, "hook killed by signal %d", WTERMSIG(st));
    else
        kdf_errf(err, err_cap, "hook ended abnormally");
    return KDF_WRITE_HOOK_FAILED;
}
