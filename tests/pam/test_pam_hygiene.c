/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam_hygiene.c - the module leaves its host as it found it
 * (doc/DESIGN.md "The PAM module", "Host hygiene"): a host with an armed
 * setitimer(ITIMER_REAL) (sshd's LoginGraceTime), custom SIGALRM, SIGCHLD
 * and SIGPIPE handlers, a blocked signal set and a umask runs logins that
 * verify an Argon2 p=4 entry (lane threads) and upgrade it through the file
 * writer and through the exec hook.  Afterwards: the timer still pending and
 * never fired, handlers, mask, umask, rlimits, thread count and open file
 * descriptors all unchanged.  glibc's lckpwdf() would have cancelled the
 * timer with alarm(); a forgotten pthread_join would leave a thread.
 *
 * Secrets in freed memory (the CVE-2024-10041 pattern): pam_host.c interposes
 * free() and, while libpam and the module run, scans every block freed for
 * the password and the stored hash: a stdio buffer or an unwiped copy would
 * show up (not under ASan, which owns free()).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "san_detect.h"

#include "pam_host.h"

#define PW "S3cret-p4ss!"

#define PAM_HASHES_STATIC_TABLE
#include "pam_hashes.h"

static const int g_sigs[] = {SIGALRM, SIGCHLD, SIGPIPE, SIGHUP, SIGINT, SIGTERM, SIGUSR1};
/* glibc's getrlimit() takes an enum with _GNU_SOURCE, an int elsewhere. */
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
typedef __rlimit_resource_t res_t;
#else
typedef int res_t;
#endif
static const res_t g_res[] = {RLIMIT_CORE, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_AS,
                            RLIMIT_CPU,  RLIMIT_DATA,  RLIMIT_STACK,  RLIMIT_NPROC};
#define NSIGS (sizeof g_sigs / sizeof g_sigs[0])
#define NRES (sizeof g_res / sizeof g_res[0])

static volatile sig_atomic_t g_alarm_fired;

static void
on_alarm(int sig)
{
    (void)sig;
    g_alarm_fired = 1;
}

static void
on_other(int sig)
{
    (void)sig;
}

struct snapshot {
    struct sigaction act[NSIGS];
    sigset_t mask;
    mode_t umask;
    struct rlimit rl[NRES];
    int threads, fds;
};

static int
count_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    int n = 0;
    if (d == NULL)
        return -1;
    while ((de = readdir(d)) != NULL)
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

static void
take(struct snapshot *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < NSIGS; i++)
        sigaction(g_sigs[i], NULL, &s->act[i]);
    sigprocmask(SIG_BLOCK, NULL, &s->mask);
    s->umask = umask(0);
    umask(s->umask);
    for (size_t i = 0; i < NRES; i++)
        getrlimit(g_res[i], &s->rl[i]);
    s->threads = count_dir("/proc/self/task");
    s->fds = count_dir("/proc/self/fd");
}

static void
compare(const struct snapshot *a, const struct snapshot *b, const char *what)
{
    for (size_t i = 0; i < NSIGS; i++) {
        if (a->act[i].sa_handler != b->act[i].sa_handler ||
            a->act[i].sa_flags != b->act[i].sa_flags)
            fail_msg("%s: disposition of signal %d changed", what, g_sigs[i]);
        for (int s = 1; s < NSIG; s++)
            if (sigismember(&a->act[i].sa_mask, s) != sigismember(&b->act[i].sa_mask, s))
                fail_msg("%s: sa_mask of signal %d changed", what, g_sigs[i]);
    }
    for (int s = 1; s < NSIG; s++)
        if (sigismember(&a->mask, s) != sigismember(&b->mask, s))
            fail_msg("%s: signal mask changed for %d", what, s);
    if (a->umask != b->umask)
        fail_msg("%s: umask %o -> %o", what, a->umask, b->umask);
    for (size_t i = 0; i < NRES; i++)
        if (a->rl[i].rlim_cur != b->rl[i].rlim_cur ||
            a->rl[i].rlim_max != b->rl[i].rlim_max)
            fail_msg("%s: rlimit %d changed", what, (int)g_res[i]);
    /* Under qemu-user, /proc/self/task also lists the emulator's own
     * threads, which come and go as it pleases. */
    if (a->threads != b->threads && !kdf_test_emulated())
        fail_msg("%s: %d threads before, %d after", what, a->threads, b->threads);
    if (a->fds != b->fds)
        fail_msg("%s: %d fds before, %d after", what, a->fds, b->fds);
}

static char *g_dir;

static int
setup(void **state)
{
    struct sigaction sa;
    struct itimerval it;
    sigset_t block;
    (void)state;

    g_dir = host_tmpdir();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_handler = on_other;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    sa.sa_flags = 0;
    sigaction(SIGPIPE, &sa, NULL);
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, NULL);
    umask(027);
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = 600; /* sshd's LoginGraceTime-style timer */
    setitimer(ITIMER_REAL, &it, NULL);
    return 0;
}

static int
teardown(void **state)
{
    struct itimerval it;
    (void)state;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    host_rmtree(g_dir);
    free(g_dir);
    return 0;
}

static void
login(const char *args, const char *user, const char *pw, int expect, const char *what)
{
    char shadow[600], conf[600], line[2048], *text;
    const char *lines[1] = {line};
    struct host_conv conv = {pw, strlen(pw), PAM_SUCCESS, 0};
    struct snapshot before, after;
    struct itimerval it;
    int rc;

    snprintf(shadow, sizeof shadow, "%s/shadow", g_dir);
    snprintf(conf, sizeof conf, "%s/kdfhash.conf", g_dir);
    host_write(conf, "", 0);
    if (asprintf(&text, "root:*:19000::::::\nu_p4:%s:19000:0:99999:7:::\n",
                 g_hash[H_a2id_p4]) < 0)
        fail();
    host_write(shadow, text, strlen(text));
    free(text);
    snprintf(line, sizeof line,
             "auth required %%M shadow=%s conf=%s target=argon2id:m=512,t=1,p=4 %s",
             shadow, conf, args);
    host_service(g_dir, lines, 1);

    host_scan_reset();
    host_scan_secret(PW, strlen(PW));
    host_scan_secret(g_hash[H_a2id_p4] + strlen(g_hash[H_a2id_p4]) - 16, 16);
    take(&before);
    rc = host_auth(g_dir, user, &conv, 0);
    take(&after);
    if (rc != expect)
        fail_msg("%s: got %d, want %d", what, rc, expect);
    compare(&before, &after, what);
    getitimer(ITIMER_REAL, &it);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        fail_msg("%s: the host's ITIMER_REAL was cancelled", what);
    assert_true(it.it_value.tv_sec <= 600);
    assert_int_equal(g_alarm_fired, 0);
    if (host_scan_hits() != 0)
        fail_msg("%s: %zu freed blocks held the password or the stored hash", what,
                 host_scan_hits());
}

static void
test_verify_and_upgrade_file(void **state)
{
    char shadow[600], *after;
    (void)state;
    login("upgrade=file", "u_p4", PW, PAM_SUCCESS, "upgrade=file");
    assert_int_equal(host_log_count_prio(LOG_NOTICE), 1);
    snprintf(shadow, sizeof shadow, "%s/shadow", g_dir);
    after = host_read(shadow, NULL);
    assert_non_null(strstr(after, "u_p4:$argon2id$v=19$m=512,t=1,p=4$"));
    free(after);
}

static void
test_verify_and_upgrade_exec(void **state)
{
    char hook[600], args[700];
    const char *script = "#!/bin/sh\ncat >/dev/null\nexit 0\n";
    (void)state;
    snprintf(hook, sizeof hook, "%s/hook.sh", g_dir);
    host_write(hook, script, strlen(script));
    assert_int_equal(chmod(hook, 0700), 0);
    snprintf(args, sizeof args, "upgrade=exec:%s", hook);
    login(args, "u_p4", PW, PAM_SUCCESS, "upgrade=exec");
    assert_int_equal(host_log_count_prio(LOG_NOTICE), 1);
    login("upgrade=exec:/bin/false", "u_p4", PW, PAM_SUCCESS, "failing exec hook");
    assert_int_equal(host_log_count_prio(LOG_WARNING), 1);
}

static void
test_refusals(void **state)
{
    (void)state;
    login("upgrade=off", "u_p4", "wrong", PAM_AUTH_ERR, "wrong password");
    login("upgrade=off", "nosuchuser", PW, PAM_USER_UNKNOWN, "unknown user");
    login("upgrade=off", "root", PW, PAM_AUTH_ERR, "locked root");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify_and_upgrade_file),
        cmocka_unit_test(test_verify_and_upgrade_exec),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
