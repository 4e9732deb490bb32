/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_upgrade_exec.c - kdf_upgrade_exec(), the external hook contract
 * (doc/DESIGN.md "Writing a new hash: the file writer and the exec hook"),
 * with the host's signal state and the hook's argv and environment checked
 * too.  The hook is tests/writer/upgrade_hook, which writes
 * what it saw into files in its working directory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "upgrade.h"

static char g_hook_built[PATH_MAX]; /* tests/writer/upgrade_hook in the build tree */
static char g_hook[PATH_MAX];       /* its copy in g_dir, which it reports into */
static char g_dir[64];
static char g_cwd[PATH_MAX];

static const char OLDH[] = "$6$saltsalt$oldoldoldoldoldold";
static const char NEWH[] = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$bmV3bmV3bmV3bmV3";

static char *
slurp(const char *name)
{
    static char buf[16384];
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return NULL;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = '\0';
    return buf;
}

static int
setup(void **state)
{
    (void)state;
    assert_non_null(getcwd(g_cwd, sizeof g_cwd));
    snprintf(g_dir, sizeof g_dir, "/tmp/kdf-hook-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    assert_int_equal(chdir(g_dir), 0);
    /* The hook reports into the directory it is started from. */
    snprintf(g_hook, sizeof g_hook, "%s/upgrade_hook", g_dir);
    {
        size_t n;
        char *b = NULL;
        FILE *in = fopen(g_hook_built, "rb"), *o = fopen(g_hook, "wb");
        assert_non_null(in);
        assert_non_null(o);
        b = malloc(1 << 20);
        while ((n = fread(b, 1, 1 << 20, in)) > 0)
            assert_int_equal(fwrite(b, 1, n, o), n);
        free(b);
        fclose(in);
        assert_int_equal(fclose(o), 0);
        assert_int_equal(chmod(g_hook, 0755), 0);
    }
    return 0;
}

static int
teardown(void **state)
{
    static const char *f[] = {"hook.argv", "hook.fds", "hook.stdin", "hook.env", "hook.sig",
                              "hook.pid", "hook.gpid", "hook.ctx", "hook.spid", "hook.ids", "upgrade_hook"};
    (void)state;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        unlink(f[i]);
    assert_int_equal(chdir(g_cwd), 0);
    rmdir(g_dir);
    return 0;
}

static void
test_contract(void **state)
{
    char err[256], exp[PATH_MAX + 64];
    int st = -1, leak_fd, leak_pipe[2];
    sigset_t usr1, cur;
    struct sigaction ign = {.sa_handler = SIG_IGN}, now;
    char *s;
    (void)state;

    /* fds the host leaked without O_CLOEXEC must not reach the hook */
    leak_fd = open("/dev/zero", O_RDONLY);
    assert_true(leak_fd > 2);
    assert_int_equal(pipe(leak_pipe), 0);
    /* a host with SIGUSR1 blocked and SIGPIPE ignored (like sshd) */
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    assert_int_equal(sigprocmask(SIG_BLOCK, &usr1, NULL), 0);
    assert_int_equal(sigaction(SIGPIPE, &ign, NULL), 0);

    assert_int_equal(kdf_upgrade_exec(g_hook, "record", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_OK);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    snprintf(exp, sizeof exp, "2\n%s\nrecord\n", g_hook); /* argv: prog, user */
    assert_string_equal(slurp("hook.argv"), exp);
    snprintf(exp, sizeof exp, "%s\n%s\n", OLDH, NEWH); /* data on stdin only */
    assert_string_equal(slurp("hook.stdin"), exp);
    assert_string_equal(slurp("hook.fds"), "0 pipe\n1 /dev/null\n2 /dev/null\n");
    s = slurp("hook.env");
    assert_string_equal(s, "PATH=/usr/sbin:/usr/bin:/sbin:/bin\n");
    s = slurp("hook.sig");
    if (strstr(s, "SigBlk:\t0000000000000000") == NULL ||
        strstr(s, "SigIgn:\t0000000000000000") == NULL)
        print_error("hook signal state:\n%s", s);
    assert_non_null(strstr(s, "SigBlk:\t0000000000000000"));
    assert_non_null(strstr(s, "SigIgn:\t0000000000000000"));
    /* Nothing of the host's cwd, umask or core limit; for a root host, the
     * hook is process 2 of a PID namespace of its own (after its init). */
    s = slurp("hook.ctx");
    assert_non_null(strstr(s, "cwd=/\n"));
    assert_non_null(strstr(s, "umask=0077\n"));
    assert_non_null(strstr(s, "core=0\n"));
    if (geteuid() == 0)
        assert_non_null(strstr(s, "pid=2\n"));

    /* the host is as it was */
    assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &cur), 0);
    assert_true(sigismember(&cur, SIGUSR1));
    assert_int_equal(sigaction(SIGPIPE, NULL, &now), 0);
    assert_true(now.sa_handler == SIG_IGN);
    assert_int_equal(fcntl(leak_fd, F_GETFD), 0);
    assert_int_equal(sigprocmask(SIG_UNBLOCK, &usr1, NULL), 0);
    signal(SIGPIPE, SIG_DFL);
    close(leak_fd);
    close(leak_pipe[0]);
    close(leak_pipe[1]);
}

static void
test_exit_and_signal(void **state)
{
    char err[256];
    int st = -1;
    (void)state;

    /* SIGPIPE at its default: the hook not reading stdin must not kill us */
    signal(SIGPIPE, SIG_DFL);
    assert_int_equal(kdf_upgrade_exec(g_hook, "fail", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    assert_non_null(strstr(err, "status 1"));
    assert_int_equal(kdf_upgrade_exec(g_hook, "term", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    /* no hash in any reason */
    assert_null(strstr(err, "$"));
    /* execve fails: the child exits 127 */
    assert_int_equal(kdf_upgrade_exec("/nonexistent/hook", "record", OLDH, NEWH, 5000, &st, err,
                                      sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 127);
}

static void
test_refusals(void **state)
{
    char err[256], big[5000];
    int st;
    (void)state;

    assert_int_equal(kdf_upgrade_exec("tests/writer/upgrade_hook", "record", OLDH, NEWH, 5000, &st, err,
                                      sizeof err),
                     KDF_WRITE_REFUSED);
    assert_int_equal(kdf_upgrade_exec(g_hook, "-rf", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_REFUSED);
    assert_int_equal(kdf_upgrade_exec(g_hook, "", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_REFUSED);
    assert_int_equal(kdf_upgrade_exec(g_hook, "record", "a\nb", NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_REFUSED);
    memset(big, 'A', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(kdf_upgrade_exec(g_hook, "record", OLDH, big, 5000, &st, err, sizeof err),
                     KDF_WRITE_REFUSED);
    assert_null(slurp("hook.argv")); /* nothing ran */
}

static pid_t
read_pid(const char *name)
{
    char *s = slurp(name);
    assert_non_null(s);
    return (pid_t)atol(s);
}

/* state letter of /proc/<pid>/stat, or 0 when the process is gone */
static char
proc_state(pid_t pid)
{
    char p[64], *s, *rp;
    snprintf(p, sizeof p, "/proc/%ld/stat", (long)pid);
    s = slurp(p);
    if (s == NULL)
        return 0;
    rp = strrchr(s, ')');
    return rp != NULL && rp[1] == ' ' ? rp[2] : '?';
}

static void
test_timeout_kills_and_reaps(void **state)
{
    char err[256];
    int st = 0, spins = 0;
    unsigned long long t0, dt;
    pid_t pid, gpid;
    char c;
    (void)state;

    t0 = kdf_pam_now_ms();
    assert_int_equal(kdf_upgrade_exec(g_hook, "forksleep", OLDH, NEWH, 300, &st, err, sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    dt = kdf_pam_now_ms() - t0;
    assert_true(dt >= 295 && dt < 1300);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    assert_non_null(strstr(err, "timeout"));
    pid = read_pid("hook.pid");
    gpid = read_pid("hook.gpid");
    /* reaped: not our zombie, and gone from /proc (in a PID namespace the
     * hook is our grandchild, which the kernel reaps a moment later) */
    assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    while ((c = proc_state(pid)) != 0 && spins++ < 100)
        usleep(10000);
    assert_int_equal(c, 0);
    spins = 0;
    /* the hook's own child was in its process group and got the SIGKILL
     * too (it may linger as a zombie of init for a moment) */
    while ((c = proc_state(gpid)) != 0 && c != 'Z' && spins++ < 100)
        usleep(10000);
    assert_true(c == 0 || c == 'Z');
}

/* A grandchild that left the hook's process group with setsid() dies with
 * the hook at the deadline: the hook of a root host is process 1 of its
 * own PID namespace, and the kernel ends the namespace with it. */
static void
test_timeout_kills_setsid_escapee(void **state)
{
    char err[256];
    int st = 0, spins = 0;
    pid_t spid;
    char c;
    (void)state;

    if (geteuid() != 0) {
        print_message("not root: no PID namespace for the hook, the process group is "
                      "all the containment (setsid escapes it)\n");
        skip();
    }
    assert_int_equal(kdf_upgrade_exec(g_hook, "setsid", OLDH, NEWH, 300, &st, err, sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    assert_non_null(strstr(err, "timeout"));
    spid = read_pid("hook.spid");
    assert_true(spid > 1);
    while ((c = proc_state(spid)) != 0 && c != 'Z' && spins++ < 100)
        usleep(10000);
    if (c != 0 && c != 'Z')
        fail_msg("the setsid grandchild %ld is still running (state %c)", (long)spid, c);
}

static volatile sig_atomic_t g_chld_calls, g_alrm_calls;

static void
on_chld(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    g_chld_calls++;
}

static void
on_alrm(int sig)
{
    (void)sig;
    g_alrm_calls++;
}

static void
test_sigchld_restored(void **state)
{
    struct sigaction mine, after, ign, nocldwait;
    char err[256];
    int st;
    (void)state;

    /* a custom handler with flags and a mask: restored field for field */
    memset(&mine, 0, sizeof mine);
    mine.sa_sigaction = on_chld;
    mine.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&mine.sa_mask);
    sigaddset(&mine.sa_mask, SIGUSR2);
    assert_int_equal(sigaction(SIGCHLD, &mine, NULL), 0);
    g_chld_calls = 0;
    assert_int_equal(kdf_upgrade_exec(g_hook, "fail", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    assert_int_equal(sigaction(SIGCHLD, NULL, &after), 0);
    assert_true(after.sa_sigaction == on_chld);
    assert_true((after.sa_flags & (SA_SIGINFO | SA_RESTART)) == (SA_SIGINFO | SA_RESTART));
    assert_true(sigismember(&after.sa_mask, SIGUSR2));
    assert_int_equal(g_chld_calls, 0); /* our child never reached the host's handler */

    /* SIG_IGN: the kernel would auto-reap; we still get the real status */
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    assert_int_equal(sigaction(SIGCHLD, &ign, NULL), 0);
    st = 0;
    assert_int_equal(kdf_upgrade_exec(g_hook, "fail", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    assert_int_equal(sigaction(SIGCHLD, NULL, &after), 0);
    assert_true(after.sa_handler == SIG_IGN);

    /* SA_NOCLDWAIT with a handler */
    memset(&nocldwait, 0, sizeof nocldwait);
    nocldwait.sa_sigaction = on_chld;
    nocldwait.sa_flags = SA_SIGINFO | SA_NOCLDWAIT;
    assert_int_equal(sigaction(SIGCHLD, &nocldwait, NULL), 0);
    assert_int_equal(kdf_upgrade_exec(g_hook, "record", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_OK);
    assert_int_equal(sigaction(SIGCHLD, NULL, &after), 0);
    assert_true(after.sa_sigaction == on_chld);
    assert_true((after.sa_flags & SA_NOCLDWAIT) != 0);
    signal(SIGCHLD, SIG_DFL);
}

/* sshd's LoginGraceTime: an armed ITIMER_REAL survives, and a timer firing
 * every 2 ms during the call (EINTR everywhere) does not break it. */
static void
test_itimer_untouched(void **state)
{
    struct sigaction sa;
    struct itimerval fast = {{0, 2000}, {0, 2000}}, grace = {{0, 0}, {30, 0}}, left;
    char err[256];
    int st;
    (void)state;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alrm;
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    g_alrm_calls = 0;
    assert_int_equal(setitimer(ITIMER_REAL, &fast, NULL), 0);
    assert_int_equal(kdf_upgrade_exec(g_hook, "record", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_OK);
    assert_int_equal(kdf_upgrade_exec(g_hook, "forksleep", OLDH, NEWH, 100, &st, err, sizeof err),
                     KDF_WRITE_HOOK_FAILED);
    assert_true(g_alrm_calls > 0);

    assert_int_equal(setitimer(ITIMER_REAL, &grace, NULL), 0);
    assert_int_equal(kdf_upgrade_exec(g_hook, "record", OLDH, NEWH, 5000, &st, err, sizeof err),
                     KDF_WRITE_OK);
    assert_int_equal(getitimer(ITIMER_REAL, &left), 0);
    assert_true(left.it_value.tv_sec >= 25); /* still pending, not cancelled */
    memset(&grace, 0, sizeof grace);
    setitimer(ITIMER_REAL, &grace, NULL);
    signal(SIGALRM, SIG_DFL);
}

/* A host running with fds 0-2 closed still gives the hook a clean 0-2. */
static void
test_host_without_stdio(void **state)
{
    pid_t pid;
    int st;
    char exp[512];
    (void)state;

    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[256];
        int hst;
        close(0);
        close(1);
        close(2);
        _exit(kdf_upgrade_exec(g_hook, "record", OLDH, NEWH, 5000, &hst, err, sizeof err) ==
                      KDF_WRITE_OK
                  ? 0
                  : 1);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_string_equal(slurp("hook.fds"), "0 pipe\n1 /dev/null\n2 /dev/null\n");
    snprintf(exp, sizeof exp, "%s\n%s\n", OLDH, NEWH);
    assert_string_equal(slurp("hook.stdin"), exp);
}

/* What a setuid-root su or passwd started by a user is: real uid and every
 * gid the user's (nobody here), effective and saved uid 0, the user's
 * groups.  0 when the child process is now that. */
static int
become_setuid_host(void)
{
    gid_t g = 65534;

    if (setgroups(1, &g) != 0 || setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 0, 0) != 0)
        return -1;
    return 0;
}

/* The hook of such a host runs with every id root's, so that the user who
 * started su can neither signal nor trace it (kill(2), ptrace(2)). */
static void
test_setuid_host_root_ids(void **state)
{
    pid_t pid;
    int st;
    (void)state;

    if (geteuid() != 0)
        skip(); /* needs root to be a setuid-root host; CI runs as root */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[256];
        int hst;

        if (become_setuid_host() != 0)
            _exit(3);
        _exit(kdf_upgrade_exec(g_hook, "ids", OLDH, NEWH, 5000, &hst, err, sizeof err) ==
                      KDF_WRITE_OK
                  ? 0
                  : 1);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_string_equal(slurp("hook.ids"), "uid=0,0,0 gid=0,0,0 groups=0\n");
}

/* A root host that cannot take root's ids (no CAP_SETGID, no CAP_SETUID,
 * as in a container that drops them) does not run the hook with the
 * caller's: refused, and said why. */
static void
test_setuid_host_ids_refused(void **state)
{
    pid_t pid;
    int st, fds[2];
    char why[256] = "";
    ssize_t n;
    (void)state;

    if (geteuid() != 0)
        skip();
    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
        struct __user_cap_data_struct d[2];
        char err[256] = "";
        int hst;
        enum kdf_write_status us;

        close(fds[0]);
        if (become_setuid_host() != 0 || syscall(SYS_capget, &h, d) != 0)
            _exit(3);
        for (int i = 0; i < 2; i++) {
            d[i].effective &= ~(i == 0 ? (1u << CAP_SETUID) | (1u << CAP_SETGID) : 0u);
            d[i].permitted &= ~(i == 0 ? (1u << CAP_SETUID) | (1u << CAP_SETGID) : 0u);
        }
        if (syscall(SYS_capset, &h, d) != 0)
            _exit(4);
        us = kdf_upgrade_exec(g_hook, "ids", OLDH, NEWH, 5000, &hst, err, sizeof err);
        (void)!write(fds[1], err, strlen(err));
        _exit(us == KDF_WRITE_HOOK_FAILED ? 0 : 1);
    }
    close(fds[1]);
    n = read(fds[0], why, sizeof why - 1);
    why[n < 0 ? 0 : n] = '\0';
    close(fds[0]);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_non_null(strstr(why, "could not take root's ids"));
    assert_null(slurp("hook.ids")); /* never ran */
}

int
main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_contract, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exit_and_signal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_kills_and_reaps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_kills_setsid_escapee, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigchld_restored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_itimer_untouched, setup, teardown),
        cmocka_unit_test_setup_teardown(test_host_without_stdio, setup, teardown),
        cmocka_unit_test_setup_teardown(test_setuid_host_root_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_setuid_host_ids_refused, setup, teardown),
    };
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    (void)argc;
    (void)argv;
    if (n <= 0) {
        printf("cannot read /proc/self/exe\n");
        return 1;
    }
    self[n] = '\0';
    /* the hook sits next to this test in the build tree */
    snprintf(g_hook_built, sizeof g_hook_built, "%s/upgrade_hook", dirname(self));
    if (access(g_hook_built, X_OK) != 0) {
        printf("hook program %s missing: build tests/writer/upgrade_hook\n", g_hook_built);
        return 1;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
