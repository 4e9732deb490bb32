/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_memgate.c - the machine-wide memory budget (core/memgate.c) between
 * real processes, on a lock file of the test's own:
 *   - a request waits while others hold the budget and gets its share when
 *     they give it back;
 *   - a holder killed with SIGKILL gives its share back by dying;
 *   - past its wait a request is refused as KDF_BUSY, on time;
 *   - a request larger than the budget is refused at once;
 *   - a large request is not passed by a stream of small ones (the
 *     turnstile): it gets its share as soon as the holder before it leaves;
 *   - two threads of one process count separately.
 */
#include "kdf_internal.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static char g_path[64];

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
        if (kdf_memgate_take(kib, 8192, 5000, &fd) != KDF_OK || fd < 0)
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
    assert_int_equal(read(p[0], &c, 1), 1); /* it holds its share now */
    close(p[0]);
    return pid;
}

static void
reap_ok(pid_t pid)
{
    int st = 0;
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
    assert_int_equal(kdf_memgate_take(4 * 1024, 8192, 3000, &fd), KDF_OK);
    assert_true(ms() - t0 >= 200); /* it had to wait for the holder */
    assert_true(fd >= 0);
    kdf_memgate_give(fd);
    reap_ok(h);
    /* What fits is taken at once. */
    t0 = ms();
    assert_int_equal(kdf_memgate_take(8 * 1024, 8192, 3000, &fd), KDF_OK);
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
    assert_int_equal(kdf_memgate_take(1024, 8192, 0, &fd), KDF_BUSY);
    kill(h, SIGKILL);
    assert_int_equal(waitpid(h, &st, 0), h);
    t0 = ms();
    assert_int_equal(kdf_memgate_take(8 * 1024, 8192, 1000, &fd), KDF_OK);
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
    assert_int_equal(kdf_memgate_take(4 * 1024, 8192, 200, &fd), KDF_BUSY);
    dt = ms() - t0;
    assert_true(dt >= 190 && dt < 800);
    assert_int_equal(fd, -1);
    /* Larger than the whole budget: refused without waiting. */
    t0 = ms();
    assert_int_equal(kdf_memgate_take(9 * 1024, 8192, 5000, &fd), KDF_BUSY);
    assert_true(ms() - t0 < 100);
    /* No budget: never gated. */
    assert_int_equal(kdf_memgate_take(1u << 30, KDF_MEMGATE_OFF, 0, &fd), KDF_OK);
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
                if (kdf_memgate_take(2 * 1024, 8192, 100, &f) == KDF_OK) {
                    usleep(150000);
                    kdf_memgate_give(f);
                }
            }
            _exit(0);
        }
    }
    assert_int_equal(kdf_memgate_take(8 * 1024, 8192, 1200, &fd), KDF_OK);
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
    return (void *)(intptr_t)kdf_memgate_take(5 * 1024, 8192, 0, fd);
}

/* Two threads of one process: 5 + 5 MiB do not fit in 8. */
static void
test_threads_count_apart(void **state)
{
    int fd1 = -1, fd2 = -1;
    pthread_t t;
    void *r;
    (void)state;

    assert_int_equal(kdf_memgate_take(5 * 1024, 8192, 0, &fd1), KDF_OK);
    assert_int_equal(pthread_create(&t, NULL, thread_take, &fd2), 0);
    assert_int_equal(pthread_join(t, &r), 0);
    assert_int_equal((intptr_t)r, KDF_BUSY);
    kdf_memgate_give(fd1);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
