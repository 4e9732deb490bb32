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
 * The exec hook's copy of these pieces lives in upgrade_exec.c (another
 * file's owner); the two could share one spawning routine.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chkpwd_client.h"
#include "kdfhash.h"

static void __attribute__((format(printf, 3, 4)))
client_err(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || cap == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

static unsigned long long
client_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000u +
           (unsigned long long)ts.tv_nsec / 1000000u;
}

/* Only async-signal-safe calls between fork() and execve(). */
static void __attribute__((noreturn))
child_exec(const char *prog, char *const argv[], int in_fd, int maxfd)
{
    static char *const envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
    struct sigaction dfl;
    sigset_t none;
    int nul;

    (void)setpgid(0, 0);
    in_fd = fcntl(in_fd, F_DUPFD, 3); /* out of the way of 0-2 */
    nul = open("/dev/null", O_RDWR | O_NOCTTY);
    if (nul >= 0)
        nul = fcntl(nul, F_DUPFD, 3);
    if (in_fd < 0 || nul < 0 || dup2(in_fd, STDIN_FILENO) < 0 ||
        dup2(nul, STDOUT_FILENO) < 0 || dup2(nul, STDERR_FILENO) < 0)
        _exit(126);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
    {
        for (int fd = 3; fd < maxfd; fd++)
            (void)close(fd);
    }
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) {
        /* glibc refuses its internal signals 32 and 33: raw call, as in
         * upgrade_exec.c. */
        if (sigaction(s, &dfl, NULL) < 0 && s != SIGKILL && s != SIGSTOP) {
            unsigned long kact[8] = {0};
            (void)syscall(SYS_rt_sigaction, s, kact, NULL, (size_t)(NSIG - 1) / 8);
        }
    }
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, NULL);
    execve(prog, argv, envp);
    _exit(127);
}

/* A pipe already holding the (capped) password, write end closed; returns
 * the read end or -1. */
static int
password_pipe(const char *pw, size_t pw_len, char *err, size_t cap)
{
    size_t n = pw_len > KDF_CHKPWD_MAX_PW ? KDF_CHKPWD_MAX_PW + 1 : pw_len, off = 0;
    int p[2], fl;

    if (pipe2(p, O_CLOEXEC) < 0) {
        client_err(err, cap, "pipe failed");
        return -1;
    }
#ifdef F_SETPIPE_SZ
    if (fcntl(p[1], F_GETPIPE_SZ) < 2 * (KDF_CHKPWD_MAX_PW + 1))
        (void)fcntl(p[1], F_SETPIPE_SZ, 2 * (KDF_CHKPWD_MAX_PW + 1));
#endif
    fl = fcntl(p[1], F_GETFL);
    if (fl < 0 || fcntl(p[1], F_SETFL, fl | O_NONBLOCK) < 0) {
        close(p[0]);
        close(p[1]);
        client_err(err, cap, "fcntl failed");
        return -1;
    }
    while (off < n) {
        ssize_t w = write(p[1], pw + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* EAGAIN: the pipe is full; never wait for a reader */
        off += (size_t)w;
    }
    close(p[1]);
    if (off != n) {
        close(p[0]);
        client_err(err, cap, "the password does not fit the helper's pipe");
        return -1;
    }
    return p[0];
}

/* 1: exited by itself; 0: killed at the deadline; -1: status lost. */
static int
reap(pid_t pid, unsigned long long deadline, int *status)
{
    unsigned nap_ms = 1;

    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        unsigned long long now;

        if (r == pid)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
        now = client_now_ms();
        if (now >= deadline)
            break;
        {
            unsigned ms = deadline - now < nap_ms ? (unsigned)(deadline - now) : nap_ms;
            struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};
            nanosleep(&ts, NULL);
        }
        /* Short naps first: a verification at the target takes tens of
         * milliseconds, and the reply time must not be rounded up much. */
        nap_ms = nap_ms < 4 ? nap_ms * 2 : 5;
    }
    (void)kill(-pid, SIGKILL);
    (void)kill(pid, SIGKILL);
    for (;;) {
        pid_t r = waitpid(pid, status, 0);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

int
kdf_chkpwd_run(const char *prog, const char *user, int nullok, const char *shadow_path,
               const char *conf_path, const char *pw, size_t pw_len, unsigned timeout_ms,
               int *wstatus, char *err, size_t err_cap)
{
    struct sigaction old_chld, dfl;
    struct rlimit rl;
    char *argv[6];
    int argc = 0, in_fd, maxfd = 1024, st = 0, how;
    pid_t pid;

    client_err(err, err_cap, "%s", "");
    if (wstatus != NULL)
        *wstatus = 0;
    if (prog == NULL || prog[0] != '/' || user == NULL || user[0] == '\0' ||
        user[0] == '-' || pw == NULL || (conf_path != NULL && shadow_path == NULL)) {
        client_err(err, err_cap, "bad helper arguments");
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
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        maxfd = rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
    in_fd = password_pipe(pw, pw_len, err, err_cap);
    if (in_fd < 0)
        return -1;

    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (sigaction(SIGCHLD, &dfl, &old_chld) < 0) {
        close(in_fd);
        client_err(err, err_cap, "sigaction(SIGCHLD) failed");
        return -1;
    }
    pid = fork();
    if (pid == 0)
        child_exec(prog, argv, in_fd, maxfd);
    close(in_fd); /* the password now lives only in the pipe */
    if (pid < 0) {
        (void)sigaction(SIGCHLD, &old_chld, NULL);
        client_err(err, err_cap, "fork failed");
        return -1;
    }
    (void)setpgid(pid, pid);
    how = reap(pid, client_now_ms() + timeout_ms, &st);
    (void)sigaction(SIGCHLD, &old_chld, NULL);
    if (wstatus != NULL)
        *wstatus = st;
    if (how < 0) {
        client_err(err, err_cap, "helper exit status lost");
        return -1;
    }
    if (how == 0) {
        client_err(err, err_cap, "helper killed after the %u ms timeout", timeout_ms);
        return -1;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) <= KDF_CHKPWD_EXIT_MAX)
        return WEXITSTATUS(st);
    if (WIFEXITED(st))
        client_err(err, err_cap, "helper exited with status %d%s", WEXITSTATUS(st),
                   WEXITSTATUS(st) == 127 ? " (cannot execute it)" : "");
    else if (WIFSIGNALED(st))
        client_err(err, err_cap, "helper killed by signal %d", WTERMSIG(st));
    else
        client_err(err, err_cap, "helper ended abnormally");
    return -1;
}
