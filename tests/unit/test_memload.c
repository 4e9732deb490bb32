/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_memload.c - memory under load: peak RSS of concurrent Argon2
 * verifications, and KDF_NOMEM (no crash) when RLIMIT_AS is too low.
 *
 *   - N verifications of an Argon2id hash at m KiB start together (a
 *     barrier) in N threads of a fresh child process; the child's peak RSS
 *     (VmHWM, /proc/self/status) must stay <= N x m + 64 MiB: one work area
 *     per verification and nothing more (no copy, no second area, no leak
 *     of an earlier one).  Under ASan the shadow of the areas (1/8) and
 *     the runtime's own baseline are allowed for.
 *   - RLIMIT_AS below what one work area needs: every verification returns
 *     KDF_NOMEM (never a crash, never KDF_OK on a half-mapped area); with
 *     room for about two of the N areas: each returns KDF_OK or KDF_NOMEM.
 *     (Through the module, PAM_BUF_ERR: tests/pam/test_pam.c test_nomem.)
 *
 * `make check`: N=4, m=16 MiB.  The soak (tests/soak/soak_secrets.sh): N=16 at
 * the default policy's cap (1 GiB), skipped when the machine has not got
 * the memory.  Options: --threads N --m-kib M; KDF_MEMLOAD_M_KIB overrides
 * m (valgrind runs).
 */
#include "kdf_prelude.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "san_detect.h"

#define MAX_THREADS 64
#define SLACK_KIB (64u * 1024u)
#define PW "memload-password"

static unsigned g_threads = 4;
static uint32_t g_m_kib = 16 * 1024;
static char g_hash[KDF_MAX_HASH_STR + 1];
static struct kdf_hash g_h;
static struct kdf_policy g_pol;
static pthread_barrier_t g_bar;
static enum kdf_status g_st[MAX_THREADS];

/* A /proc/self/status field in KiB (VmHWM, VmRSS, VmSize). */
static long
status_kib(const char *key)
{
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, kl) == 0 && line[kl] == ':')
            v = strtol(line + kl + 1, NULL, 10);
    fclose(f);
    return v;
}

static void *
worker(void *arg)
{
    size_t i = (size_t)arg;
    pthread_barrier_wait(&g_bar);
    g_st[i] = kdf_verify_ex(PW, strlen(PW), &g_h, &g_pol, NULL, 0);
    return NULL;
}

/* Run the N verifications; 0 when every thread could be started. */
static int
run_threads(void)
{
    pthread_t th[MAX_THREADS];
    pthread_attr_t at;

    /* Small stacks: under RLIMIT_AS the threads' own address space must not
     * be what runs out. */
    if (pthread_attr_init(&at) != 0 || pthread_attr_setstacksize(&at, 256 * 1024) != 0 ||
        pthread_barrier_init(&g_bar, NULL, g_threads) != 0)
        return -1;
    for (size_t i = 0; i < g_threads; i++)
        if (pthread_create(&th[i], &at, worker, (void *)i) != 0)
            return -1;
    for (size_t i = 0; i < g_threads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&g_bar);
    pthread_attr_destroy(&at);
    return 0;
}

struct result {
    long base_kib, peak_kib;
    unsigned ok, nomem, other;
    int started;
};

/* In a fresh child (its own VmHWM): optionally cap RLIMIT_AS at
 * VmSize + as_extra_kib, run, report through a pipe. */
static struct result
in_child(long as_extra_kib)
{
    struct result r;
    int fds[2], status;
    pid_t pid;

    memset(&r, 0, sizeof r);
    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        r.base_kib = status_kib("VmRSS");
        if (as_extra_kib >= 0) {
            struct rlimit rl;
            rl.rlim_cur = rl.rlim_max =
                (rlim_t)(status_kib("VmSize") + as_extra_kib) * 1024u;
            if (setrlimit(RLIMIT_AS, &rl) != 0)
                _exit(3);
        }
        r.started = run_threads() == 0;
        r.peak_kib = status_kib("VmHWM");
        for (size_t i = 0; i < g_threads; i++) {
            if (g_st[i] == KDF_OK)
                r.ok++;
            else if (g_st[i] == KDF_NOMEM)
                r.nomem++;
            else
                r.other++;
        }
        _exit(write(fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 4);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &r, sizeof r), (ssize_t)sizeof r);
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    /* no crash, whatever the limit */
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return r;
}

static void
test_peak_rss(void **state)
{
    struct result r;
    double per;
    long limit;
    (void)state;

    r = in_child(-1);
    assert_true(r.started);
    assert_int_equal(r.ok, g_threads);
    per = (double)(r.peak_kib - r.base_kib) / (double)g_m_kib;
    limit = (long)g_threads * (long)g_m_kib + SLACK_KIB;
#ifdef KDF_UNDER_ASAN
    /* the areas' shadow (1/8) and the runtime above the child's start */
    limit += (long)g_threads * (long)g_m_kib / 8 + r.base_kib;
#endif
    print_message("[          ] %u x argon2id m=%u KiB: baseline %ld KiB, peak %ld KiB "
                  "(limit %ld KiB); peak - baseline = %.2f areas\n",
                  g_threads, g_m_kib, r.base_kib, r.peak_kib, limit, per);
    assert_true(r.peak_kib <= limit);
    /* How many areas were there at once is for information: on a loaded
     * machine with few cores the threads may well run one after the other. */
}

static void
test_rlimit_as(void **state)
{
    (void)state;
    if (kdf_test_emulated()) {
        print_message("%s\n", KDF_EMULATED_WHY);
        skip();
    }
#ifdef KDF_UNDER_ASAN
    print_message("ASan reserves terabytes of address space: RLIMIT_AS cannot apply\n");
    skip();
#else
    /* valgrind's own allocations count against the client's RLIMIT_AS */
    if (getenv("LD_PRELOAD") != NULL && strstr(getenv("LD_PRELOAD"), "vgpreload") != NULL) {
        print_message("under valgrind: RLIMIT_AS would limit valgrind itself\n");
        skip();
    }
    struct result r;
    /* Room for half of one area: nobody can have theirs. */
    r = in_child((long)g_m_kib / 2);
    print_message("[          ] RLIMIT_AS +%u KiB: %u ok, %u nomem, %u other (threads %s)\n",
                  g_m_kib / 2, r.ok, r.nomem, r.other, r.started ? "started" : "refused");
    assert_true(r.started);
    assert_int_equal(r.nomem, g_threads);
    /* Room for about two areas: each gets one or KDF_NOMEM. */
    r = in_child((long)g_m_kib * 5 / 2);
    print_message("[          ] RLIMIT_AS +%u KiB: %u ok, %u nomem, %u other\n",
                  g_m_kib * 5 / 2, r.ok, r.nomem, r.other);
    assert_true(r.started);
    assert_int_equal(r.other, 0);
    assert_true(r.ok >= 1);
#endif
}

static int
setup(void **state)
{
    const struct kdf_target t = {KDF_SCHEME_ARGON2ID, KDF_FMT_NATIVE, 0, 0x13, 1, g_m_kib, 1,
                                 16, 32, KDF_XCRYPT_NONE, 0, {0}};
    static const uint8_t salt[16] = "memload-salt-16b";
    (void)state;

    kdf_policy_default(&g_pol);
    if (kdf_policy_bound_get(&g_pol, "max.memory-hard", 0) < g_m_kib)
        *kdf_policy_bound(&g_pol, "max.memory-hard", 0) = g_m_kib;
    g_pol.max_threads = 1;
    if (kdf_hash_salt(PW, strlen(PW), &t, salt, sizeof salt, g_hash, sizeof g_hash) != KDF_OK ||
        kdf_parse(g_hash, strlen(g_hash), &g_h, NULL) != KDF_OK)
        return -1;
    return 0;
}

int
main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_rss),
        cmocka_unit_test(test_rlimit_as),
    };
    const char *env = getenv("KDF_MEMLOAD_M_KIB");
    long avail;

    if (env != NULL)
        g_m_kib = (uint32_t)strtoul(env, NULL, 10);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--threads") == 0)
            g_threads = (unsigned)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--m-kib") == 0)
            g_m_kib = (uint32_t)strtoul(argv[i + 1], NULL, 10);
    }
    if (g_threads < 1 || g_threads > MAX_THREADS || g_m_kib < 64) {
        fprintf(stderr, "usage: %s [--threads 1..%d] [--m-kib >= 64]\n", argv[0], MAX_THREADS);
        return 99;
    }
    /* Skip only when this machine cannot hold the N areas. */
    avail = sysconf(_SC_AVPHYS_PAGES) * (sysconf(_SC_PAGESIZE) / 1024);
    if (avail > 0 && (double)avail < 1.25 * g_threads * (double)g_m_kib + SLACK_KIB) {
        printf("SKIP: %u x %u KiB needs more memory than the %ld KiB available here\n",
               g_threads, g_m_kib, avail);
        return 77;
    }
    return cmocka_run_group_tests(tests, setup, NULL);
}
