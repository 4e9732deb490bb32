/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.c - run a helper program as a child of whatever process loaded the
 * PAM module, leaving that host as it was (spawn.h).  Used by
 * chkpwd_client.c (kdfhash-chkpwd), upgrade_exec.c (upgrade=exec:PATH) and
 * keys/tpm_client.c; why each rule: doc/DESIGN.md, "The exec hook".
 * Invariants:
 *   - stdin is filled and its write end closed before the fork: the parent
 *     never waits for a reader, never meets SIGPIPE;
 *   - with KDF_SPAWN_ROOT_IDS in a root host, every id root's before
 *     anything else, or the child does not run the program;
 *   - the child: its own process group (and PID namespace for the hook of
 *     a root host), cwd "/", umask 077, no core, at most 1024 fds and a CPU
 *     limit just past the deadline, fds 0-2 only, default dispositions and
 *     an empty mask, a fixed PATH environment, execve() without PATH search;
 *   - the parent: SIGCHLD at SIG_DFL around waitpid() on that pid only and
 *     restored exactly, polled against the deadline, then SIGKILL and reap
 *     (no zombie); no handler, no alarm(), nothing else of the host touched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kdfhash.h"
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

/* Limits the helper starts with, whatever the host had: no core file (it
 * holds hashes), at most 1024 fds, and CPU time a second past the deadline
 * (SIGXCPU), so a helper that escapes the kill cannot spin for ever.  Only
 * soft limits are lowered; a hard limit the host set stays. */
static void
sane_limits(unsigned timeout_ms)
{
    struct rlimit rl = {0, 0};

    (void)setrlimit(RLIMIT_CORE, &rl);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1024)) {
        rl.rlim_cur = 1024;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (getrlimit(RLIMIT_CPU, &rl) == 0) {
        rlim_t want = (rlim_t)(timeout_ms / 1000 + 2);
        if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > want) {
            rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
            (void)setrlimit(RLIMIT_CPU, &rl);
        }
    }
}

/* Contain the helper in a PID namespace of its own: process 1 there is a
 * small init of ours that starts the helper as process 2 and ends when it
 * does; the kernel then kills every process left in the namespace, even
 * one that left our process group with setsid(), and a kill at the
 * deadline reaches the init through the group.  The helper keeps ordinary
 * signal semantics (process 1 would ignore its own SIGTERM).  This process
 * stays outside as the waiter and ends the way the helper ended, which the
 * init reports through a pipe.  Needs CAP_SYS_ADMIN (a root host: upgrades
 * run only there); without it the process group is all the containment.
 * Returns in the helper (or when the namespace is refused), never in the
 * waiter or the init. */
static void
contain(void)
{
    pid_t init, pid;
    int fds[2], st = 0;

    if (pipe(fds) != 0)
        return;
    if (unshare(CLONE_NEWPID) != 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    init = fork();
    if (init < 0)
        _exit(126);
    if (init == 0) {
        close(fds[0]);
        pid = fork();
        if (pid < 0)
            _exit(126);
        if (pid == 0) {
            close(fds[1]);
            return; /* the helper, process 2 */
        }
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR)
                _exit(126);
        if (write(fds[1], &st, sizeof st) != (ssize_t)sizeof st)
            _exit(126);
        _exit(0);
    }
    close(fds[1]);
    while (waitpid(init, NULL, 0) < 0)
        if (errno != EINTR)
            _exit(126);
    if (read(fds[0], &st, sizeof st) != (ssize_t)sizeof st)
        _exit(126);
    if (WIFSIGNALED(st)) {
        /* Signals are at SIG_DFL here: end with the helper's signal. */
        (void)kill(getpid(), WTERMSIG(st));
        _exit(128 + WTERMSIG(st));
    }
    _exit(WEXITSTATUS(st));
}

/* Every id root's, and confirmed: 0, or the errno that says why not.  The
 * groups go first, while the effective uid still carries CAP_SETGID; then
 * the gids, then the uids (setresuid(2), setgroups(2)).  These are not in
 * POSIX's list of async-signal-safe functions because a threaded process
 * must change the ids of all its threads; glibc resets the thread list of
 * a fork()ed child to the one thread it has, so its wrappers make the
 * system call for this thread alone. */
static int
take_root_ids(void)
{
    uid_t ru = 1, eu = 1, su = 1;
    gid_t rg = 1, eg = 1, sg = 1;

    if (setgroups(0, NULL) != 0 || setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0)
        return errno != 0 ? errno : EPERM;
    if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0)
        return errno != 0 ? errno : EPERM;
    if (ru != 0 || eu != 0 || su != 0 || rg != 0 || eg != 0 || sg != 0 ||
        getgroups(0, NULL) != 0)
        return EPERM;
    return 0;
}

/* Only async-signal-safe calls from here to execve(): the host may have
 * threads, and their locks are frozen in the child (POSIX fork()). */
static void __attribute__((noreturn))
child_exec(const char *prog, char *const argv[], int in_fd, int out_fd, int maxfd,
           unsigned timeout_ms, unsigned flags, int ids_fd)
{
    static char *const envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
    struct sigaction dfl;
    sigset_t none;
    int nul;

    (void)setpgid(0, 0);
    /* First, before any fd is moved (ids_fd may be one of 0-2 in a host
     * that runs without them): a failure is reported on ids_fd and prog is
     * not run with the caller's ids. */
    if (ids_fd >= 0) {
        int e = take_root_ids();
        if (e != 0) {
            (void)!write(ids_fd, &e, sizeof e);
            _exit(126);
        }
        close(ids_fd);
    }
    /* The host may run with 0-2 closed: lift the fds above 2 first so
     * that the dup2() calls below cannot clobber one another. */
    in_fd = fcntl(in_fd, F_DUPFD, 3);
    if (out_fd >= 0 && (out_fd = fcntl(out_fd, F_DUPFD, 3)) < 0)
        _exit(126);
    nul = open("/dev/null", O_RDWR | O_NOCTTY);
    if (nul >= 0)
        nul = fcntl(nul, F_DUPFD, 3);
    if (in_fd < 0 || nul < 0 || dup2(in_fd, STDIN_FILENO) < 0 ||
        dup2(out_fd >= 0 ? out_fd : nul, STDOUT_FILENO) < 0 ||
        dup2(nul, STDERR_FILENO) < 0)
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
    /* Nothing of the host's working directory or umask: the helper's
     * files, if it writes any, are its own and private. */
    if (chdir("/") != 0)
        _exit(126);
    (void)umask(077);
    sane_limits(timeout_ms);
    if (flags & KDF_SPAWN_CONTAIN)
        contain();
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
kdf_spawn_wait(const char *prog, char *const argv[], int in_fd, int out_fd, unsigned timeout_ms,
               unsigned max_nap_ms, unsigned flags, int *wstatus, char *err, size_t err_cap)
{
    struct sigaction old_chld, dfl;
    struct rlimit rl;
    unsigned long long deadline;
    enum kdf_spawn_result how;
    int maxfd = 1024, st = 0, ids[2] = {-1, -1};
    pid_t pid;

    if (wstatus != NULL)
        *wstatus = 0;
    /* Non-blocking: the read after the wait must not hang should the child
     * still be alive (KDF_SPAWN_LOST); the one write is 4 bytes into an
     * empty pipe and cannot be short (pipe(7)). */
    if ((flags & KDF_SPAWN_ROOT_IDS) && geteuid() == 0 &&
        pipe2(ids, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(in_fd);
        if (out_fd >= 0)
            close(out_fd);
        kdf_errf(err, err_cap, "pipe failed");
        return KDF_SPAWN_ERROR;
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        maxfd = rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (sigaction(SIGCHLD, &dfl, &old_chld) < 0) {
        close(in_fd);
        if (out_fd >= 0)
            close(out_fd);
        if (ids[0] >= 0) {
            close(ids[0]);
            close(ids[1]);
        }
        kdf_errf(err, err_cap, "sigaction(SIGCHLD) failed");
        return KDF_SPAWN_ERROR;
    }
    deadline = kdf_pam_now_ms() + timeout_ms;
    pid = fork();
    if (pid == 0)
        child_exec(prog, argv, in_fd, out_fd, maxfd, timeout_ms, flags, ids[1]);
    close(in_fd); /* the payload now lives only in the pipe */
    if (out_fd >= 0)
        close(out_fd); /* the child's alone: its end tells us nothing more */
    if (ids[1] >= 0)
        close(ids[1]);
    if (pid < 0) {
        if (ids[0] >= 0)
            close(ids[0]);
        (void)sigaction(SIGCHLD, &old_chld, NULL);
        kdf_errf(err, err_cap, "fork failed");
        return KDF_SPAWN_ERROR;
    }
    (void)setpgid(pid, pid); /* both sides, so kill(-pid) is right at once */
    how = reap(pid, deadline, max_nap_ms, &st);
    (void)sigaction(SIGCHLD, &old_chld, NULL);
    if (wstatus != NULL)
        *wstatus = st;
    if (ids[0] >= 0) {
        int e = 0;
        ssize_t n = read(ids[0], &e, sizeof e);

        close(ids[0]);
        if (n == (ssize_t)sizeof e) {
            kdf_errf(err, err_cap, "could not take root's ids for %s (errno %d): not run", prog,
                     e);
            return KDF_SPAWN_NOT_RUN;
        }
    }
    return how;
}

int
kdf_spawn_filled_pipe(const void *buf, size_t len, size_t room, const char *what, char *err,
                      size_t err_cap)
{
    const char *b = buf;
    size_t off = 0;
    int p[2], fl;

    if (pipe2(p, O_CLOEXEC) < 0) {
        kdf_errf(err, err_cap, "pipe failed");
        return -1;
    }
#ifdef F_SETPIPE_SZ
    if (room <= INT_MAX && fcntl(p[1], F_GETPIPE_SZ) < (int)room)
        (void)fcntl(p[1], F_SETPIPE_SZ, (int)room);
#else
    (void)room;
#endif
    fl = fcntl(p[1], F_GETFL);
    if (fl < 0 || fcntl(p[1], F_SETFL, fl | O_NONBLOCK) < 0) {
        close(p[0]);
        close(p[1]);
        kdf_errf(err, err_cap, "fcntl failed");
        return -1;
    }
    while (off < len) {
        ssize_t w = write(p[1], b + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* EAGAIN: the pipe is full; never wait for a reader */
        off += (size_t)w;
    }
    close(p[1]);
    if (off != len) {
        close(p[0]);
        kdf_errf(err, err_cap, "the %s does not fit the helper's pipe", what);
        return -1;
    }
    return p[0];
}
