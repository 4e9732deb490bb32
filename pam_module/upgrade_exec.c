/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upgrade_exec.c - the external upgrade hook, upgrade=exec:PATH (design.md
 * section 6, reliability.md test 21).
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
 *   - in the child: fds 0-2 only (close_range, else a close() loop), signal
 *     mask emptied and ignored signals reset, own process group so that a
 *     timeout kills the hook's children too; execve() without PATH search;
 *   - in the parent: waitpid() on that pid only, polled against the
 *     deadline, then SIGKILL and reap (no zombie).  SIGCHLD is set to SIG_DFL
 *     for the duration and restored exactly afterwards, as pam_unix does
 *     around its helpers (with SIG_IGN or SA_NOCLDWAIT the kernel would reap
 *     the child itself and waitpid() would fail with ECHILD).
 * No handler is installed, no alarm() used, the host's signal mask and
 * other dispositions are not touched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kdfhash.h"
#include "upgrade.h"

/* Shared by both halves of the hook (declared in upgrade.h). */
const char *
kdf_upd_status_str(enum kdf_upd_status st)
{
    switch (st) {
    case KDF_UPD_OK:
        return "ok";
    case KDF_UPD_CAS_FAILED:
        return "entry changed (compare-and-swap failed)";
    case KDF_UPD_NOT_FOUND:
        return "no unique entry for the user";
    case KDF_UPD_LOCK_BUSY:
        return "lock busy";
    case KDF_UPD_REFUSED:
        return "refused";
    case KDF_UPD_IO_ERROR:
        return "I/O error";
    case KDF_UPD_HOOK_FAILED:
        return "hook failed";
    }
    return "unknown status";
}

static void __attribute__((format(printf, 3, 4)))
exec_err(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || cap == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

static unsigned long long
exec_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

/* Only async-signal-safe calls from here to execve(): the host may have
 * threads, and their locks are frozen in the child (POSIX fork()). */
static void __attribute__((noreturn))
child_exec(const char *prog, char *const argv[], int in_fd, int maxfd)
{
    static char *const envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
    struct sigaction dfl;
    sigset_t none;
    int nul;

    (void)setpgid(0, 0);
    /* The host may run with 0-2 closed: lift both fds above 2 first so
     * that the dup2() calls below cannot clobber one another. */
    in_fd = fcntl(in_fd, F_DUPFD, 3);
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
    /* A clean signal state for the hook: handlers are reset by execve()
     * anyway, but SIG_IGN and the blocked mask would be inherited. */
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) {
        /* glibc refuses its internal signals 32 and 33 (EINVAL); a host
         * that ignores them (GNU make -j does) would pass that on, so set
         * those through the raw system call: an all-zero kernel sigaction
         * is SIG_DFL with no flags and an empty mask on every ABI. */
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
        exec_err(err, cap, "pipe failed");
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
        exec_err(err, cap, "writing the hook's stdin failed");
        return -1;
    }
    return p[0];
}

/* Wait for pid until deadline; then SIGKILL its process group and reap it.
 * Returns 1 if it ended by itself, 0 if it had to be killed, -1 if the
 * wait status is lost (ECHILD: reaped by someone else). */
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
        now = exec_now_ms();
        if (now >= deadline)
            break;
        {
            unsigned ms = deadline - now < nap_ms ? (unsigned)(deadline - now) : nap_ms;
            struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};
            nanosleep(&ts, NULL); /* EINTR (host timers): loop re-checks */
        }
        nap_ms = nap_ms < 8 ? nap_ms * 2 : 10;
    }
    /* The child made itself a group leader; kill(pid) too, in case the
     * setpgid() had not happened yet. */
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

enum kdf_upd_status
kdf_upgrade_exec(const char *prog, const char *user, const char *old_hash,
                 const char *new_hash, unsigned timeout_ms, int *exit_status, char *err,
                 size_t err_cap)
{
    struct sigaction old_chld, dfl;
    struct rlimit rl;
    unsigned long long deadline;
    char *argv[3];
    int in_fd, maxfd = 1024, st = 0, how;
    pid_t pid;

    exec_err(err, err_cap, "%s", "");
    if (exit_status != NULL)
        *exit_status = 0;
    if (prog == NULL || user == NULL || old_hash == NULL || new_hash == NULL ||
        prog[0] != '/') {
        exec_err(err, err_cap, "hook path must be absolute");
        return KDF_UPD_REFUSED;
    }
    /* argv[1] must not read as an option; hashes must not break the
     * line protocol; the payload must fit one atomic pipe write. */
    if (user[0] == '\0' || user[0] == '-' || strchr(old_hash, '\n') != NULL ||
        strchr(new_hash, '\n') != NULL || strlen(old_hash) + strlen(new_hash) + 2 > PIPE_BUF) {
        exec_err(err, err_cap, "user name or hash not acceptable for the hook");
        return KDF_UPD_REFUSED;
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        maxfd = rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
    in_fd = make_stdin(old_hash, new_hash, err, err_cap);
    if (in_fd < 0)
        return KDF_UPD_IO_ERROR;
    argv[0] = (char *)prog;
    argv[1] = (char *)user;
    argv[2] = NULL;

    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (sigaction(SIGCHLD, &dfl, &old_chld) < 0) {
        close(in_fd);
        exec_err(err, err_cap, "sigaction(SIGCHLD) failed");
        return KDF_UPD_IO_ERROR;
    }
    deadline = exec_now_ms() + timeout_ms;
    pid = fork();
    if (pid == 0)
        child_exec(prog, argv, in_fd, maxfd);
    close(in_fd);
    if (pid < 0) {
        (void)sigaction(SIGCHLD, &old_chld, NULL);
        exec_err(err, err_cap, "fork failed");
        return KDF_UPD_IO_ERROR;
    }
    (void)setpgid(pid, pid); /* both sides, so kill(-pid) is right at once */
    how = reap(pid, deadline, &st);
    (void)sigaction(SIGCHLD, &old_chld, NULL);
    if (exit_status != NULL)
        *exit_status = st;

    if (how < 0) {
        exec_err(err, err_cap, "hook exit status lost");
        return KDF_UPD_HOOK_FAILED;
    }
    if (how == 0) {
        exec_err(err, err_cap, "hook killed after the %u ms timeout", timeout_ms);
        return KDF_UPD_HOOK_FAILED;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return KDF_UPD_OK;
    if (WIFEXITED(st))
        exec_err(err, err_cap, "hook exited with status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        exec_err(err, err_cap, "hook killed by signal %d", WTERMSIG(st));
    else
        exec_err(err, err_cap, "hook ended abnormally");
    return KDF_UPD_HOOK_FAILED;
}
