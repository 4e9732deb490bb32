/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_memgate.c - the machine-wide memory budget (core/util_memgate.c) between
 * real processes, on a lock file of the test's own:
 *   - a request waits while others hold the budget and gets its share when
 *     they give it back;
 *   - a holder killed with SIGKILL gives its share back by dying;
 *   - past its wait a request is refused as KDF_BUSY, on time;
 *   - a request larger than the budget is refused at once;
 *   - a large request is not passed by a stream of small ones (the
 *     turnstile): it gets its share as soon as the holder before it leaves;
 *   - two threads of one process count separately;
 *   - a stopped waiter does not keep others out: its place in the queue
 *     lapses, there is no lock it holds while it waits;
 *   - one real uid other than the file's owner holds at most a quarter
 *     of the budget, and other users, root and administrators are still
 *     served;
 *   - all such uids together hold at most half the budget (the common
 *     pool): a third user is then busy, root and an administrator's
 *     request (mem_admin) of that uid are served;
 *   - a request above the whole budget is refused at once as
 *     KDF_OVER_BUDGET, never as busy;
 *   - a busy refusal through the module's verdict waits once: its timing
 *     dummy does not wait on the budget a second time.
 */
#include "kdf_prelude.h"
#include "util_memgate.h"
#include "verdict.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static char g_path[64];

/* Children that hold until killed: the teardown kills what a failed
 * assertion left behind, so no stopped holder outlives the test run. */
static pid_t g_kids[16];

static void
track(pid_t pid)
{
    for (size_t i = 0; i < sizeof g_kids / sizeof g_kids[0]; i++)
        if (g_kids[i] == 0) {
            g_kids[i] = pid;
            return;
        }
}

static unsigned long long
ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

/* A child that takes kib of an 8 MiB budget, says so through the pipe,
 * holds it for hold_ms (0: until killed) and gives it back. */
static pid_t
holder(uint64_t kib, unsigned hold_ms)
{
    int p[2];
    char c;
    pid_t pid;

    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = -1;
        close(p[0]);
        if (kdf_memgate_take(kib, 8192, 5000, 0, &fd) != KDF_OK || fd < 0)
            _exit(3);
        if (write(p[1], "x", 1) != 1)
            _exit(4);
        if (hold_ms == 0)
            for (;;)
                pause();
        usleep(hold_ms * 1000u);
        kdf_memgate_give(fd);
        _exit(0);
    }
    close(p[1]);
    track(pid);
    assert_int_equal(read(p[0], &c, 1), 1); /* it holds its share now */
    close(p[0]);
    return pid;
}

static void
untrack(pid_t pid)
{
    for (size_t i = 0; i < sizeof g_kids / sizeof g_kids[0]; i++)
        if (g_kids[i] == pid)
            g_kids[i] = 0;
}

static void
reap_ok(pid_t pid)
{
    int st = 0;
    untrack(pid);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int
setup(void **state)
{
    (void)state;
    snprintf(g_path, sizeof g_path, "/tmp/kdf-memgate-%ld", (long)getpid());
    unlink(g_path);
    kdf_memgate_set_path(g_path);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof g_kids / sizeof g_kids[0]; i++)
        if (g_kids[i] > 0) {
            kill(g_kids[i], SIGKILL);
            kill(g_kids[i], SIGCONT);
            (void)waitpid(g_kids[i], NULL, 0);
            g_kids[i] = 0;
        }
    unlink(g_path);
    kdf_memgate_set_path(NULL);
    return 0;
}

static void
test_wait_then_share(void **state)
{
    int fd = -1;
    unsigned long long t0;
    pid_t h;
    (void)state;

    h = holder(6 * 1024, 300);
    t0 = ms();
    assert_int_equal(kdf_memgate_take(4 * 1024, 8192, 3000, 0, &fd), KDF_OK);
    assert_true(ms() - t0 >= 200); /* it had to wait for the holder */
    assert_true(fd >= 0);
    kdf_memgate_give(fd);
    reap_ok(h);
    /* What fits is taken at once. */
    t0 = ms();
    assert_int_equal(kdf_memgate_take(8 * 1024, 8192, 3000, 0, &fd), KDF_OK);
    assert_true(ms() - t0 < 100);
    kdf_memgate_give(fd);
}

static void
test_killed_holder_gives_back(void **state)
{
    int fd = -1, st = 0;
    unsigned long long t0;
    pid_t h;
    (void)state;

    h = holder(8 * 1024, 0);
    assert_int_equal(kdf_memgate_take(1024, 8192, 0, 0, &fd), KDF_BUSY);
    untrack(h);
    kill(h, SIGKILL);
    assert_int_equal(waitpid(h, &st, 0), h);
    t0 = ms();
    assert_int_equal(kdf_memgate_take(8 * 1024, 8192, 1000, 0, &fd), KDF_OK);
    assert_true(ms() - t0 < 200);
    kdf_memgate_give(fd);
}

static void
test_busy_on_time(void **state)
{
    int fd = -1;
    unsigned long long t0, dt;
    pid_t h;
    (void)state;

    h = holder(6 * 1024, 1500);
    t0 = ms();
    assert_int_equal(kdf_memgate_take(4 * 1024, 8192, 200, 0, &fd), KDF_BUSY);
    dt = ms() - t0;
    assert_true(dt >= 190 && dt < 800);
    assert_int_equal(fd, -1);
    /* No budget: never gated. */
    assert_int_equal(kdf_memgate_take(1u << 30, KDF_MEMGATE_OFF, 0, 0, &fd), KDF_OK);
    assert_int_equal(fd, -1);
    reap_ok(h);
}

/* A holder has 6 of 8 MiB for 400 ms; a request for all 8 comes first, then
 * small ones keep asking for 2 MiB.  Without the turnstile the small ones
 * would keep the budget from ever being whole again. */
static void
test_large_not_starved(void **state)
{
    int fd = -1;
    pid_t h, small[4];
    unsigned long long t0;
    (void)state;

    h = holder(6 * 1024, 400);
    t0 = ms();
    for (int i = 0; i < 4; i++) {
        small[i] = fork();
        assert_true(small[i] >= 0);
        if (small[i] == 0) {
            unsigned long long end = ms() + 1500;
            usleep(50000 + (useconds_t)i * 10000);
            while (ms() < end) {
                int f = -1;
                if (kdf_memgate_take(2 * 1024, 8192, 100, 0, &f) == KDF_OK) {
                    usleep(150000);
                    kdf_memgate_give(f);
                }
            }
            _exit(0);
        }
    }
    assert_int_equal(kdf_memgate_take(8 * 1024, 8192, 1200, 0, &fd), KDF_OK);
    assert_true(ms() - t0 < 1200);
    kdf_memgate_give(fd);
    reap_ok(h);
    for (int i = 0; i < 4; i++)
        reap_ok(small[i]);
}

static void *
thread_take(void *arg)
{
    int *fd = arg;
    return (void *)(intptr_t)kdf_memgate_take(5 * 1024, 8192, 0, 0, fd);
}

/* Two threads of one process: 5 + 5 MiB do not fit in 8. */
static void
test_threads_count_apart(void **state)
{
    int fd1 = -1, fd2 = -1;
    pthread_t t;
    void *r;
    (void)state;

    assert_int_equal(kdf_memgate_take(5 * 1024, 8192, 0, 0, &fd1), KDF_OK);
    assert_int_equal(pthread_create(&t, NULL, thread_take, &fd2), 0);
    assert_int_equal(pthread_join(t, &r), 0);
    assert_int_equal((intptr_t)r, KDF_BUSY);
    kdf_memgate_give(fd1);
}

/* A child of real uid ruid (effective uid 0, as in su) that asks for kib of
 * the 8 MiB budget, waiting wait_ms, as an administrator's request or not,
 * and reports the status through *st_out; when served it holds its share
 * until killed. */
static pid_t
uid_holder(uid_t ruid, uint64_t kib, unsigned wait_ms, int admin, enum kdf_status *st_out)
{
    int p[2];
    unsigned char c;
    pid_t pid;

    assert_int_equal(pipe(p), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = -1;
        enum kdf_status st;

        close(p[0]);
        if (ruid != 0 && setresuid(ruid, 0, 0) != 0)
            _exit(5);
        st = kdf_memgate_take(kib, 8192, wait_ms, admin, &fd);
        c = (unsigned char)st;
        if (write(p[1], &c, 1) != 1)
            _exit(4);
        if (st != KDF_OK)
            _exit(0);
        for (;;)
            pause();
    }
    close(p[1]);
    track(pid);
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    *st_out = (enum kdf_status)c;
    return pid;
}

static void
kill_reap(pid_t pid)
{
    int st = 0;

    untrack(pid);
    kill(pid, SIGKILL);
    kill(pid, SIGCONT);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
}

/* A waiter for the whole budget is stopped while it waits (the user who
 * starts su may stop it).  A request that fits must still be served well
 * within its own wait, not refused as busy when it ends. */
static void
test_stopped_waiter(void **state)
{
    int fd = -1;
    unsigned long long t0, dt;
    pid_t h, w;
    (void)state;

    h = holder(6 * 1024, 400);
    w = fork();
    assert_true(w >= 0);
    if (w == 0) {
        int f = -1;
        /* Waits: 8 MiB do not fit beside the holder's 6. */
        _exit(kdf_memgate_take(8 * 1024, 8192, 10000, 0, &f) == KDF_OK ? 0 : 1);
    }
    track(w);
    usleep(100000); /* it is waiting now */
    assert_int_equal(kill(w, SIGSTOP), 0);
    t0 = ms();
    assert_int_equal(kdf_memgate_take(2 * 1024, 8192, 2000, 0, &fd), KDF_OK);
    dt = ms() - t0;
    assert_true(dt < 1000);
    kdf_memgate_give(fd);
    kill_reap(w);
    reap_ok(h);
}

/* Four clients of one user (real uid 1001, as su runs) ask for 2 MiB each
 * of 8: only one is served, a quarter of the budget.  Another user, and
 * root, are then served at once (two users filling the common pool:
 * test_common_pool). */
static void
test_uid_share(void **state)
{
    enum kdf_status st[4], other;
    pid_t u[4], o;
    int served = 0, fd = -1;
    unsigned long long t0;
    (void)state;

    if (geteuid() != 0)
        skip(); /* needs setresuid() to a real uid of another user */
    for (int i = 0; i < 4; i++) {
        u[i] = uid_holder(1001, 2 * 1024, 200, 0, &st[i]);
        if (st[i] == KDF_OK) {
            served++;
            kill(u[i], SIGSTOP); /* a stopped holder keeps its share */
        } else {
            assert_int_equal(st[i], KDF_BUSY);
        }
    }
    assert_int_equal(served, 1);
    t0 = ms();
    o = uid_holder(1002, 2 * 1024, 1000, 0, &other);
    assert_int_equal(other, KDF_OK);
    assert_int_equal(kdf_memgate_take(2 * 1024, 8192, 1000, 0, &fd), KDF_OK);
    assert_true(ms() - t0 < 500);
    kdf_memgate_give(fd);
    kill_reap(o);
    for (int i = 0; i < 4; i++)
        kill_reap(u[i]);
    /* The shares came back with the dead: the user may take a quarter
     * again. */
    u[0] = uid_holder(1001, 2 * 1024, 200, 0, &st[0]);
    assert_int_equal(st[0], KDF_OK);
    kill_reap(u[0]);
}

/* Two users (real uids 1001 and 1002) each hold 2 MiB of 8 with a stopped
 * client: together half the budget, all of the common pool.  A third
 * user's request is refused as busy; root's, and an administrator's of
 * that same third uid (mem_admin), are served at once. */
static void
test_common_pool(void **state)
{
    enum kdf_status st;
    pid_t a, b, c;
    int fd = -1;
    unsigned long long t0, dt;
    (void)state;

    if (geteuid() != 0)
        skip(); /* needs setresuid() to a real uid of another user */
    a = uid_holder(1001, 2 * 1024, 1000, 0, &st);
    assert_int_equal(st, KDF_OK);
    kill(a, SIGSTOP);
    b = uid_holder(1002, 2 * 1024, 1000, 0, &st);
    assert_int_equal(st, KDF_OK);
    kill(b, SIGSTOP);
    t0 = ms();
    c = uid_holder(1003, 2 * 1024, 200, 0, &st);
    dt = ms() - t0;
    assert_int_equal(st, KDF_BUSY);
    assert_true(dt >= 190);
    kill_reap(c);
    t0 = ms();
    assert_int_equal(kdf_memgate_take(2 * 1024, 8192, 1000, 0, &fd), KDF_OK);
    assert_true(fd >= 0);
    assert_true(ms() - t0 < 300);
    kdf_memgate_give(fd);
    t0 = ms();
    c = uid_holder(1003, 2 * 1024, 1000, 1, &st);
    assert_int_equal(st, KDF_OK);
    assert_true(ms() - t0 < 300);
    kill_reap(c);
    kill_reap(b);
    kill_reap(a);
}

/* More than the whole budget can never fit: its own status, at once, even
 * while the budget is in use, and a message that does not say "busy". */
static void
test_over_budget(void **state)
{
    int fd = -1;
    unsigned long long t0;
    pid_t h;
    (void)state;

    h = holder(6 * 1024, 0);
    t0 = ms();
    assert_int_equal(kdf_memgate_take(9 * 1024, 8192, 5000, 0, &fd), KDF_OVER_BUDGET);
    assert_true(ms() - t0 < 100);
    assert_int_equal(fd, -1);
    assert_null(strstr(kdf_status_str(KDF_OVER_BUDGET), "busy"));
    assert_non_null(strstr(kdf_status_str(KDF_OVER_BUDGET), "max.memory"));
    kill_reap(h);
}

/* The module's verdict on a real entry while the budget stays full: refused
 * as busy after one max.memory-wait (300 ms), not two (the timing dummy
 * after an error must not queue for the budget again). */
static void
test_busy_waits_once(void **state)
{
    static const char pw[] = "correct horse";
    char stored[KDF_MAX_HASH_STR + 1];
    struct kdf_policy pol;
    struct kdf_hash h;
    enum kdf_status st = KDF_OK;
    const char *reason = NULL;
    enum kdf_pam_verdict v;
    unsigned long long t0, dt;
    pid_t holder_pid;
    (void)state;

    kdf_policy_default(&pol);
    assert_int_equal(kdf_policy_set(&pol, "target", "argon2id m=4096,t=1,p=1", NULL, 0),
                     KDF_OK);
    pol.max_memory_kib = 8192;
    pol.memory_wait_ms = 300;
    assert_int_equal(kdf_hash_ex(pw, sizeof pw - 1, &pol.target, &pol, NULL, 0, stored,
                                 sizeof stored),
                     KDF_OK);
    holder_pid = holder(8 * 1024, 0);
    t0 = ms();
    v = kdf_pam_verdict(&pol, stored, strlen(stored), 0, pw, sizeof pw - 1, &h, &st,
                        &reason);
    dt = ms() - t0;
    assert_int_equal(v, KDF_PAM_V_FAILED);
    assert_int_equal(st, KDF_BUSY);
    assert_true(dt >= 290);
    assert_true(dt < 550);
    kill_reap(holder_pid);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_wait_then_share, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_holder_gives_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy_on_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_not_starved, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads_count_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stopped_waiter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uid_share, setup, teardown),
        cmocka_unit_test_setup_teardown(test_common_pool, setup, teardown),
        cmocka_unit_test_setup_teardown(test_over_budget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy_waits_once, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
