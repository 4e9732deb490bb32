/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.c - run a helper program as a child of whatever process loaded the
 * PAM module (sshd, login, a display manager, a screen locker), leaving
 * that host as it was (spawn.h).  Used by chkpwd_client.c (kdfhash-chkpwd,
 * reliability.md test 20) and upgrade_exec.c (upgrade=exec:PATH, design.md
 * section 6, reliability.md test 21):
 *   - the caller fills the stdin pipe and closes its write end BEFORE the
 *     fork (CVE-2015-3238: pam_unix hung in write() on a full pipe), so the
 *     parent never waits for a reader and meets no EPIPE/SIGPIPE;
 *   - in the child: own process group, so that a timeout kills the helper's
 *     children too; fds 0-2 only (close_range, else a close() loop); every
 *     disposition SIG_DFL and the mask emptied (SIG_IGN and the blocked mask
 *     would survive execve()); fixed PATH environment, so nothing of the
 *     host's environment shows in /proc/<pid>/environ; execve() without
 *     PATH search;
 *   - in the parent: SIGCHLD set to SIG_DFL around waitpid() on that pid
 *     only and restored exactly, as pam_unix support.c does around its
 *     helpers (with SIG_IGN or SA_NOCLDWAIT the kernel would reap the child
 *     itself and waitpid() would fail with ECHILD), polled against the
 *     deadline, then SIGKILL and reap (no zombie).  A setuid helper keeps
 *     our real uid, so the kill is permitted (kill(2)).
 * No handler is installed, no alarm() used, the host's signal mask and its
 * other dispositions are not touched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kdf_internal.h"
#include "spawn.h"

unsigned long long
kdf_pam_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000u +
           (unsigned long long)ts.tv_nsec / 1000000u;
}

void
kdf_pam_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

    nanosleep(&ts, NULL); /* EINTR (host timers): the caller re-checks */
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
    /* A clean signal state: handlers are reset by execve() anyway, but
     * SIG_IGN and the blocked mask would be inherited. */
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

/* Wait for pid until deadline; then SIGKILL its process group and reap it. */
static enum kdf_spawn_result
reap(pid_t pid, unsigned long long deadline, unsigned max_nap_ms, int *status)
{
    unsigned nap_ms = 1;

    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        unsigned long long now;

        if (r == pid)
            return KDF_SPAWN_EXITED;
        if (r < 0 && errno != EINTR)
            return KDF_SPAWN_LOST;
        now = kdf_pam_now_ms();
        if (now >= deadline)
            break;
        kdf_pam_sleep_ms(deadline - now < nap_ms ? (unsigned)(deadline - now) : nap_ms);
        /* Short naps first: a verification at the target takes tens of
         * milliseconds, and the reply time must not be rounded up much. */
        if (nap_ms < max_nap_ms)
            nap_ms = nap_ms * 2 < max_nap_ms ? nap_ms * 2 : max_nap_ms;
    }
    /* The child made itself a group leader; kill(pid) too, in case the
     * setpgid() had not happened yet. */
    (void)kill(-pid, SIGKILL);
    (void)kill(pid, SIGKILL);
    for (;;) {
        pid_t r = waitpid(pid, status, 0);
        if (r == pid)
            return KDF_SPAWN_KILLED;
        if (r < 0 && errno != EINTR)
            return KDF_SPAWN_LOST;
    }
}

enum kdf_spawn_result
kdf_spawn_wait(const char *prog, char *const argv[], int in_fd, unsigned timeout_ms,
               unsigned max_nap_ms, int *wstatus, char *err, size_t err_cap)
{
    struct sigaction old_chld, dfl;
    struct rlimit rl;
    unsigned long long deadline;
    enum kdf_spawn_result how;
    int maxfd = 1024, st = 0;
    pid_t pid;

    if (wstatus != NULL)
        *wstatus = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        maxfd = rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (sigaction(SIGCHLD, &dfl, &old_chld) < 0) {
        close(in_fd);
        kdf_errf(err, err_cap, "sigaction(SIGCHLD) failed");
        return KDF_SPAWN_ERROR;
    }
    deadline = kdf_pam_now_ms() + timeout_ms;
    pid = fork();
    if (pid == 0)
        child_exec(prog, argv, in_fd, maxfd);
    close(in_fd); /* the payload now lives only in the pipe */
    if (pid < 0) {
        (void)sigaction(SIGCHLD, &old_chld, NULL);
        kdf_errf(err, err_cap, "fork failed");
        return KDF_SPAWN_ERROR;
    }
    (void)setpgid(pid, pid); /* both sides, so kill(-pid) is right at once */
    how = reap(pid, deadline, max_nap_ms, &st);
    (void)sigaction(SIGCHLD, &old_chld, NULL);
    if (wstatus != NULL)
        *wstatus = st;
    return how;
}
