/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upgrade_hook.c - the hook program that tests/writer/test_upgrade_exec runs
 * through kdf_upgrade_exec().  The hook gets no options and no environment
 * to speak of, so the "user name" argv[1] selects what it does, and it
 * reports into files in the directory it was started from (the test copies
 * it into its temporary directory; the hook's own cwd is "/"):
 *   record     hook.argv, hook.stdin, hook.fds, hook.env, hook.sig,
 *              hook.ctx (cwd, umask, core limit, pid); exit 0
 *   fail       exit 1 (stdin unread)
 *   term       kill itself with SIGTERM
 *   forksleep  a child and itself sleep 30 s (hook.pid, hook.gpid)
 *   setsid     a child leaves the process group with setsid() and sleeps
 *              30 s (hook.spid: its pid as the test sees it); the hook too
 *   ids        hook.ids: "uid=R,E,S gid=R,E,S groups=N" (getresuid(2),
 *              getresgid(2), getgroups(2)); exit 0
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/*
 * In a sanitizer build the hook is an ASan program too, and at exit
 * LeakSanitizer stops its threads with ptrace.  kdf_upgrade_exec() runs the
 * hook in a PID namespace of its own, and there that stop can fail: in a
 * chroot with its own PID namespace and /proc (the fresh root the test
 * command runs in) LeakSanitizer reported "has encountered a fatal error"
 * and ended the hook with exit 1 after the hook had done its work.  The
 * hook is a stand-in whose files the test reads: no leak check.  The
 * runtime calls this function when it is linked in; otherwise nothing
 * does.
 */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
    return "detect_leaks=0";
}

static FILE *
out(const char *name)
{
    FILE *f = fopen(name, "w");
    if (f == NULL)
        _exit(90);
    return f;
}

static void
record(int argc, char **argv)
{
    FILE *f = out("hook.argv");
    char buf[8192], link[512], p[64];
    size_t n;
    DIR *d;
    struct dirent *de;

    fprintf(f, "%d\n", argc);
    for (int i = 0; i < argc; i++)
        fprintf(f, "%s\n", argv[i]);
    fclose(f);

    /* The fd list before anything else of ours is opened besides f. */
    d = opendir("/proc/self/fd");
    if (d == NULL)
        _exit(91);
    f = out("hook.fds");
    while ((de = readdir(d)) != NULL) {
        int fd = atoi(de->d_name);
        ssize_t l;
        if (de->d_name[0] == '.' || fd == dirfd(d) || fd == fileno(f))
            continue;
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        l = readlink(p, link, sizeof link - 1);
        link[l < 0 ? 0 : l] = '\0';
        /* Under make check-valgrind, valgrind's per-process log files of
         * the forked test stay open across the exec of this untraced hook:
         * they are valgrind's, not the host's. */
        if (strstr(link, ".valgrind.log") != NULL)
            continue;
        fprintf(f, "%d %s\n", fd, strncmp(link, "pipe:", 5) == 0 ? "pipe" : link);
    }
    closedir(d);
    fclose(f);

    f = out("hook.stdin");
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
        fwrite(buf, 1, n, f);
    fclose(f);

    f = out("hook.env");
    for (char **e = environ; *e != NULL; e++)
        fprintf(f, "%s\n", *e);
    fclose(f);

    /* SigBlk and SigIgn of /proc/self/status: the hook starts clean. */
    {
        FILE *s = fopen("/proc/self/status", "r");
        f = out("hook.sig");
        while (s != NULL && fgets(buf, sizeof buf, s) != NULL)
            if (strncmp(buf, "SigBlk:", 7) == 0 || strncmp(buf, "SigIgn:", 7) == 0)
                fputs(buf, f);
        if (s != NULL)
            fclose(s);
        fclose(f);
    }
}

/* The pid in the namespace of /proc (the test's), not in ours: the hook
 * may run in a PID namespace of its own. */
static long
outer_pid(void)
{
    char b[32];
    ssize_t n = readlink("/proc/self", b, sizeof b - 1);

    if (n <= 0)
        return -1;
    b[n] = '\0';
    return atol(b);
}

static void
write_pid(const char *name)
{
    FILE *f = out(name);
    fprintf(f, "%ld\n", outer_pid());
    fclose(f);
}

int
main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    char cwd[PATH_MAX], self[PATH_MAX];
    mode_t um = umask(077);
    struct rlimit core;
    long ppid = (long)getpid();

    /* What the hook was started with, before it moves to its reports. */
    if (getcwd(cwd, sizeof cwd) == NULL)
        snprintf(cwd, sizeof cwd, "?");
    if (getrlimit(RLIMIT_CORE, &core) != 0)
        core.rlim_cur = 12345;
    snprintf(self, sizeof self, "%s", argv[0]);
    if (chdir(dirname(self)) != 0)
        _exit(92);

    if (strcmp(mode, "record") == 0) {
        FILE *f = out("hook.ctx");
        fprintf(f, "cwd=%s\numask=%04o\ncore=%llu\npid=%ld\n", cwd, (unsigned)um,
                (unsigned long long)core.rlim_cur, ppid);
        fclose(f);
        record(argc, argv);
        return 0;
    }
    if (strcmp(mode, "setsid") == 0) {
        pid_t c = fork();
        if (c == 0) {
            (void)setsid();
            write_pid("hook.spid");
            sleep(30);
            _exit(0);
        }
        sleep(30);
        return 0;
    }
    if (strcmp(mode, "ids") == 0) {
        uid_t ru, eu, su;
        gid_t rg, eg, sg;
        FILE *f;

        if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0)
            return 3;
        f = out("hook.ids");
        fprintf(f, "uid=%u,%u,%u gid=%u,%u,%u groups=%d\n", (unsigned)ru, (unsigned)eu,
                (unsigned)su, (unsigned)rg, (unsigned)eg, (unsigned)sg, getgroups(0, NULL));
        fclose(f);
        return 0;
    }
    if (strcmp(mode, "fail") == 0)
        return 1;
    if (strcmp(mode, "term") == 0) {
        kill(getpid(), SIGTERM);
        return 0;
    }
    if (strcmp(mode, "forksleep") == 0) {
        pid_t c = fork();
        if (c == 0) {
            write_pid("hook.gpid");
            sleep(30);
            _exit(0);
        }
        write_pid("hook.pid");
        sleep(30);
        return 0;
    }
    return 2;
}
