/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chkpwd_client.c - the module side of kdfhash-chkpwd (chkpwd_client.h):
 * spawn the helper, hand it the password, wait for its verdict.
 *
 * The child-handling rules are those of the exec upgrade hook
 * (upgrade_exec.c, whose header says why each matters), applied to a
 * helper that may be setuid root:
 *   - the password goes through a pipe, never argv or the environment
 *     (/proc/<pid>/cmdline and environ are world-readable);
 *   - CVE-2015-3238 (pam_unix hung in write() on a full pipe for a >= 64 KiB
 *     password): we write at most KDF_CHKPWD_MAX_PW + 1 bytes, into a pipe
 *     whose write end is O_NONBLOCK and whose reader is still ours, BEFORE
 *     the fork.  The pipe holds 64 KiB by default (pipe(7)); we ask for at
 *     least two pages anyway, for users over pipe-user-pages-soft whose
 *     pipes get one.  A short write is an error, never a wait; there is no
 *     EPIPE/SIGPIPE since the read end is open in this process;
 *   - child: fds 0-2 only, signal dispositions and mask reset, fixed PATH
 *     environment, execve() without PATH search;
 *   - parent: SIGCHLD set to SIG_DFL around waitpid() on that pid only and
 *     restored exactly (pam_unix support.c does the same: with SIG_IGN the
 *     kernel would reap the child and the verdict would be lost), polled
 *     against a deadline, then SIGKILL and reap.  A setuid helper keeps our
 *     real uid, so the kill is permitted (kill(2)).
 * The child handling itself is kdf_spawn_wait() (spawn.c), shared with the
 * exec upgrade hook; this file keeps the helper's argv, the password pipe,
 * the timeout and the exit-code mapping.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chkpwd_client.h"
#include "kdfhash.h"
#include "spawn.h"

int
kdf_chkpwd_run(const char *prog, const char *user, int nullok, const char *shadow_path,
               const char *conf_path, const char *pw, size_t pw_len, unsigned timeout_ms,
               int *wstatus, char *err, size_t err_cap)
{
    char *argv[6];
    int argc = 0, in_fd, st = 0;
    enum kdf_spawn_result how;

    kdf_errf(err, err_cap, "%s", "");
    if (wstatus != NULL)
        *wstatus = 0;
    if (prog == NULL || prog[0] != '/' || user == NULL || user[0] == '\0' ||
        user[0] == '-' || pw == NULL || (conf_path != NULL && shadow_path == NULL)) {
        kdf_errf(err, err_cap, "bad helper arguments");
        return -1;
    }
    argv[argc++] = (char *)prog;
    argv[argc++] = (char *)user;
    argv[argc++] = nullok ? "nullok" : "nonull";
    if (shadow_path != NULL)
        argv[argc++] = (char *)shadow_path;
    if (conf_path != NULL)
        argv[argc++] = (char *)conf_path;
    argv[argc] = NULL;
    /* The password capped one byte past the helper's limit, so that the
     * helper refuses it as too long rather than reads a shorter one. */
    in_fd = kdf_spawn_filled_pipe(pw, pw_len > KDF_CHKPWD_MAX_PW ? KDF_CHKPWD_MAX_PW + 1 : pw_len,
                                  2 * (KDF_CHKPWD_MAX_PW + 1), "password", err, err_cap);
    if (in_fd < 0)
        return -1;
    /* Naps up to 5 ms: the reply time of a login must not be rounded up
     * much. */
    how = kdf_spawn_wait(prog, argv, in_fd, -1, timeout_ms, 5, 0, &st, err, err_cap);
    if (wstatus != NULL)
        *wstatus = st;
    if (how == KDF_SPAWN_ERROR)
        return -1;
    if (how == KDF_SPAWN_LOST) {
        kdf_errf(err, err_cap, "helper exit status lost");
        return -1;
    }
    if (how == KDF_SPAWN_KILLED) {
        kdf_errf(err, err_cap, "helper killed after the %u ms timeout", timeout_ms);
        return -1;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) <= KDF_CHKPWD_EXIT_MAX)
        return WEXITSTATUS(st);
    if (WIFEXITED(st))
        kdf_errf(err, err_cap, "helper exited with status %d%s", WEXITSTATUS(st),
                 WEXITSTATUS(st) == 127 ? " (cannot execute it)" : "");
    else if (WIFSIGNALED(st))
        kdf_errf(err, err_cap, "helper killed by signal %d", WTERMSIG(st));
    else
        kdf_errf(err, err_cap, "helper ended abnormally");
    return -1;
}
