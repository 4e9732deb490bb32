/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_argon2_pool.c - the lane threads of core/alg_argon2.c under
 * conditions a small machine cannot produce by itself: more CPUs online
 * than it has (so up to 8 lane threads), and helper threads that fail to
 * start one by one, in any pattern.  The program is linked with
 * -Wl,--wrap=sysconf,--wrap=pthread_create so that the core's calls come
 * here first (and sched_getaffinity, which the core also asks).
 *
 * For every pattern: the tag equals the known answer of an independent
 * implementation (the Debian argon2 CLI; argon2-cffi agrees), the calling
 * thread's area is all zeros afterwards (every block wiped, whoever
 * computed it), and one call starts at most threads - 1 threads, once per
 * call rather than once per slice.  Every thread starts with all signals
 * blocked (a host's process-directed signal must not run its handler on a
 * core thread) and the caller's own mask is unchanged afterwards.
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "san_detect.h"

#include "alg_argon2.h"
#include "hex_common.h"

/* ---- the wrapped calls ---- */

long __real_sysconf(int name);
long __wrap_sysconf(int name);
int __real_sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set);
int __wrap_sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                          void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                          void *arg);

static long g_fake_cpus;        /* 0: the real answer */
static unsigned g_fail_mask;    /* bit k: the k-th create of a call fails */
static atomic_uint g_creates;   /* pthread_create calls since the reset */
static atomic_uint g_unmasked;  /* ... made with some signal unblocked */

/* Every signal a thread can block (glibc keeps its two internal ones,
 * SIGKILL and SIGSTOP cannot be) is blocked in the calling thread. */
static int
all_blocked(void)
{
    sigset_t cur;
    if (pthread_sigmask(SIG_SETMASK, NULL, &cur) != 0)
        return 0;
    for (int sig = 1; sig < 32; sig++)
        if (sig != SIGKILL && sig != SIGSTOP && !sigismember(&cur, sig))
            return 0;
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        if (!sigismember(&cur, sig))
            return 0;
    return 1;
}

long
__wrap_sysconf(int name)
{
    if (name == _SC_NPROCESSORS_ONLN && g_fake_cpus > 0)
        return g_fake_cpus;
    return __real_sysconf(name);
}

/* Pretending more CPUs: the affinity mask allows all of them. */
int
__wrap_sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    if (g_fake_cpus > 0 && size >= sizeof *set) {
        CPU_ZERO(set);
        for (size_t c = 0; c < (size_t)g_fake_cpus && c < (size_t)CPU_SETSIZE; c++)
            CPU_SET(c, set);
        return 0;
    }
    return __real_sched_getaffinity(pid, size, set);
}

int
__wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                      void *arg)
{
    unsigned k = atomic_fetch_add(&g_creates, 1);
    if (!all_blocked()) /* the new thread inherits this mask */
        atomic_fetch_add(&g_unmasked, 1);
    if (k < 32 && (g_fail_mask >> k & 1u))
        return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}

static void
reset_wraps(long cpus, unsigned fail_mask)
{
    g_fake_cpus = cpus;
    g_fail_mask = fail_mask;
    atomic_store(&g_creates, 0);
    atomic_store(&g_unmasked, 0);
}

/* The caller's mask before a run: SIGUSR1 blocked, SIGUSR2 not. */
static void
caller_mask_set(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    assert_int_equal(pthread_sigmask(SIG_SETMASK, &s, NULL), 0);
}

/* ... and after it: unchanged, and no thread started unmasked. */
static void
caller_mask_check(void)
{
    sigset_t s;
    assert_int_equal(pthread_sigmask(SIG_SETMASK, NULL, &s), 0);
    assert_true(sigismember(&s, SIGUSR1));
    assert_false(sigismember(&s, SIGUSR2));
    assert_false(sigismember(&s, SIGALRM));
    /* qemu-user starts threads with its own signal mask, whatever the
     * caller's: the threads' masks are the emulator's there. */
    if (!kdf_test_emulated())
        assert_int_equal(atomic_load(&g_unmasked), 0);
}

/* ---- known answers ----
 * echo -n password | argon2 somesaltsomesalt -id -t 3 -k 8192 -p 8 -r
 * echo -n password | argon2 somesaltsomesalt -d -t 2 -k 6144 -p 3 -r
 * echo -n password | argon2 somesaltsomesalt -i -t 1 -k 4096 -p 5 -r
 * (argon2.low_level.hash_secret_raw gives the same tags.) */
static const struct {
    enum kdf_argon2_type type;
    uint32_t t, m, p;
    const char *hex;
} kat[] = {
    {KDF_ARGON2_ID, 3, 8192, 8,
     "52eb49ef41e09ecada0140811250e414a6aa6f93a112493be62fa9a342ff9504"},
    {KDF_ARGON2_D, 2, 6144, 3,
     "999e79baf4cae36ad46dd1125a8725cd7a4c944dad83f01d66ee2c5a6d3fcd1a"},
    {KDF_ARGON2_I, 1, 4096, 5,
     "e211e7a3d5ce5773d027c72242bc4ecd592f25c6c93ebfd5c41756f62f9ff348"},
};

/* Row r of kat[] with the password "password". */
static void
params(struct kdf_argon2_args *p, size_t r)
{
    *p = (struct kdf_argon2_args){.type = kat[r].type,
                                  .version = 0x13,
                                  .t_cost = kat[r].t,
                                  .m_kib = kat[r].m,
                                  .lanes = kat[r].p,
                                  .pw = (const uint8_t *)"password",
                                  .pw_len = 8,
                                  .salt = (const uint8_t *)"somesaltsomesalt",
                                  .salt_len = 16};
}

static int
all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* One computation with `cpus` CPUs online and the creates in `fail`
 * failing, in a mapped area and in the caller's: the known tag both times
 * and a wiped caller's area.  Returns the creates of the mapped run. */
static unsigned
one_pattern(size_t r, long cpus, unsigned fail)
{
    struct kdf_argon2_args p;
    uint8_t out[32], want[32];
    size_t len = (size_t)kat[r].m * 1024;
    uint8_t *area = aligned_alloc(64, len);
    unsigned creates;

    assert_non_null(area);
    params(&p, r);
    unhex(kat[r].hex, want, sizeof want);

    reset_wraps(cpus, fail);
    caller_mask_set();
    memset(out, 0, sizeof out);
    assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_OK);
    creates = atomic_load(&g_creates);
    caller_mask_check();
    if (memcmp(out, want, sizeof out) != 0)
        fail_msg("row %zu, %ld CPUs, fail mask %#x: wrong tag (mapped)", r, cpus, fail);

    reset_wraps(cpus, fail);
    memset(area, 0xa5, len);
    memset(out, 0, sizeof out);
    assert_int_equal(kdf_argon2_raw(&p, out, 32, area, len), KDF_OK);
    if (memcmp(out, want, sizeof out) != 0)
        fail_msg("row %zu, %ld CPUs, fail mask %#x: wrong tag (caller's area)", r, cpus,
                 fail);
    /* RFC 9106 section 3.2: m' = 4p * floor(m / 4p) blocks are used;
     * they must be wiped, and the rest left alone. */
    size_t used = (size_t)kat[r].m / (4 * kat[r].p) * 4 * kat[r].p * 1024;
    if (!all_zero(area, used))
        fail_msg("row %zu, %ld CPUs, fail mask %#x: area not wiped", r, cpus, fail);
    for (size_t i = used; i < len; i++)
        if (area[i] != 0xa5)
            fail_msg("row %zu: byte %zu past m' blocks written", r, i);
    free(area);
    reset_wraps(0, 0);
    return creates;
}

/* 8 lanes on 8 (pretended) CPUs: seven helpers, started once per call. */
static void
test_helpers_once_per_call(void **state)
{
    (void)state;
    assert_int_equal(one_pattern(0, 8, 0), 7);
    /* p = 3 lanes, 8 CPUs: two helpers.  p = 5 lanes on 2 CPUs: one. */
    assert_int_equal(one_pattern(1, 8, 0), 2);
    assert_int_equal(one_pattern(2, 2, 0), 1);
    /* One CPU: no helper at all. */
    assert_int_equal(one_pattern(0, 1, 0), 0);
}

/* Helpers fail to start in various patterns; the calling thread runs
 * their shares and arrives at the barrier for them. */
static void
test_partial_failures(void **state)
{
    static const unsigned masks[] = {
        0x7f,       /* every helper */
        0x01, 0x40, /* the first, the last */
        0x2a, 0x55, /* every other one */
        0x3e,       /* all but the first and the last */
    };
    (void)state;
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
        assert_int_equal(one_pattern(0, 8, masks[m]), 7);
    /* Uneven shares: 5 lanes on 3 threads (lanes 0 3 | 1 4 | 2), each
     * helper missing in turn; 3 lanes on 2 threads. */
    for (unsigned f = 0; f < 4; f++)
        assert_int_equal(one_pattern(2, 3, f), 2);
    assert_int_equal(one_pattern(1, 2, 1), 1);
}

/* More threads than real CPUs (8 pretended, whatever the machine): threads
 * that finish a slice early outlast the barrier's spin and sleep; the
 * tags must not care.  Also the policy cap against the pretended CPUs. */
static void
test_oversubscribed(void **state)
{
    struct kdf_argon2_args p;
    uint8_t out[32], want[32];
    (void)state;

    for (int rep = 0; rep < 3; rep++)
        for (size_t r = 0; r < sizeof kat / sizeof kat[0]; r++)
            (void)one_pattern(r, 8, 0);
    params(&p, 0);
    unhex(kat[0].hex, want, sizeof want);
    for (uint32_t cap = 1; cap <= 8; cap++) {
        p.max_threads = cap;
        reset_wraps(8, 0);
        assert_int_equal(kdf_argon2_raw(&p, out, 32, NULL, 0), KDF_OK);
        assert_memory_equal(out, want, 32);
        /* cap 1: no lane helper, but the 8 MiB area is populated by a
         * background thread while the one lane thread computes. */
        assert_int_equal(atomic_load(&g_creates), cap == 1 ? 1 : cap - 1);
    }
    reset_wraps(0, 0);
}

/* A process confined to one CPU (taskset, a container's cpuset) on a
 * machine with more: no lane helper and no background populate, so nothing
 * ever waits for a CPU it cannot have.  In a child, so that the confinement
 * does not outlive the test. */
static void
test_affinity_one_cpu(void **state)
{
    (void)state;
    if (__real_sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        print_message("one CPU online: nothing to confine\n");
        skip();
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(3);
        struct kdf_argon2_args p;
        uint8_t out[32], want[32];
        params(&p, 0); /* p = 8 lanes, 8 MiB */
        unhex(kat[0].hex, want, sizeof want);
        reset_wraps(0, 0);
        if (kdf_argon2_raw(&p, out, 32, NULL, 0) != KDF_OK)
            _exit(4);
        if (memcmp(out, want, 32) != 0)
            _exit(5);
        _exit(atomic_load(&g_creates) == 0 ? 0 : 6);
    }
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
    /* Unconfined on a 2-CPU machine, the same call starts one helper. */
    if (__real_sysconf(_SC_NPROCESSORS_ONLN) == 2)
        assert_int_equal(one_pattern(0, 0, 0), 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helpers_once_per_call),
        cmocka_unit_test(test_partial_failures),
        cmocka_unit_test(test_oversubscribed),
        cmocka_unit_test(test_affinity_one_cpu),
    };
    /* A barrier that miscounts deadlocks: fail by SIGALRM, not by
     * hanging the suite (the whole program takes well under a second). */
    alarm(120);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
