/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ds_fair.c - the 389-ds plugin's storm gate (ds_plugin/ds_fair.c),
 * without a server: ds_schemes.c's compare and the gate, with stand-ins
 * for the two slapi functions.
 *   - threads failing against a few values run at most storm.share at once,
 *     the surplus is refused, a value that never failed never waits (and
 *     with the gate off they run many at once);
 *   - one verification of a suspect value at a time, a second waits for it;
 *   - the wait and the number of waiters are bounded: refused past them;
 *   - a match clears the value's record; a malformed suspect value is
 *     refused cheaply;
 *   - values that share a bucket: a full bucket loses records, never an
 *     answer, and never makes an unsuspected value wait;
 *   - the storm.* arguments, and one log line of counts per interval,
 *     without the value or the password; the tags' SipHash-2-4 against
 *     its reference vectors.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slapi-plugin.h>

#include <cmocka.h>

#include "san_detect.h"

/* ---- stand-ins for libslapd ---- */

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_log[16384];

int
slapi_log_error(int level, char *subsystem, char *fmt, ...)
{
    char line[1024];
    va_list ap;
    size_t used;

    (void)level;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_log_lock);
    used = strlen(g_log);
    snprintf(g_log + used, sizeof g_log - used, "%s: %s", subsystem, line);
    pthread_mutex_unlock(&g_log_lock);
    return 0;
}

char *
slapi_ch_smprintf(const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&out, fmt, ap) < 0)
        out = NULL;
    va_end(ap);
    return out;
}

#ifdef KDF_UNDER_TSAN
#define KDF_TIMING_UNFIT 1
#else
#define KDF_TIMING_UNFIT 0
#endif

/* ---- helpers ---- */

#define PW "Correct-Horse-1"
#define WRONG "Wrong-Horse-1"

static char g_conf[64];
static struct kds_scheme g_s;

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
reset_log(void)
{
    pthread_mutex_lock(&g_log_lock);
    g_log[0] = '\0';
    pthread_mutex_unlock(&g_log_lock);
}

/* The scheme with these storm.* arguments (NULL: none), the table empty. */
static void
configure(const char *a1, const char *a2)
{
    char *argv[5] = {g_conf, (char *)"max.memory=off", (char *)"workareas=cpus", (char *)a1,
                     (char *)a2};
    int argc = a1 == NULL ? 3 : a2 == NULL ? 4 : 5;

    assert_int_equal(kds_configure(&g_s, argc, argv), 0);
    kds_fair_reset(9);
}

static void
gate(unsigned share, unsigned waiters, unsigned wait_ms)
{
    struct kds_fair_conf fc;

    kds_fair_defaults(&fc);
    fc.share = share;
    fc.waiters = waiters;
    fc.wait_ms = wait_ms;
    kds_fair_configure(&fc);
    kds_fair_reset(9);
}

/* A value of its own (the part after "{ARGON2}"), to be freed. */
static char *
value(const char *pw)
{
    char *v = kds_encode(&g_s, pw);

    assert_non_null(v);
    assert_memory_equal(v, "{ARGON2}", 8);
    memmove(v, v + 8, strlen(v + 8) + 1);
    return v;
}

/* Note one failure of v, as a wrong password's compare does. */
static void
fail_once(const char *v)
{
    struct kds_fair_ticket t;

    assert_int_equal(kds_fair_enter(v, strlen(v), &t), 0);
    kds_fair_leave(&t, KDS_FAIR_FAIL);
}

static int
suspect(const char *v)
{
    struct kds_fair_ticket t;
    int r;

    assert_int_equal(kds_fair_enter(v, strlen(v), &t), 0);
    r = t.suspect;
    kds_fair_leave(&t, KDS_FAIR_NEITHER);
    return r;
}

static int
setup(void **state)
{
    FILE *f;
    int fd;

    (void)state;
    snprintf(g_conf, sizeof g_conf, "/tmp/kdfhash-dsfair.XXXXXX");
    fd = mkstemp(g_conf);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    /* A memory-hard verification of a few milliseconds: the storm's work
     * is CPU, as in a server. */
    fputs("target = argon2id m=8192,t=1,p=1\nmin.argon2 = m=4096,t=1,p=1\n", f);
    fclose(f);
    memset(&g_s, 0, sizeof g_s);
    g_s.name = "ARGON2";
    assert_int_equal(pthread_rwlock_init(&g_s.lock, NULL), 0);
    atomic_flag_clear(&g_s.said_outdated);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    unlink(g_conf);
    return 0;
}

/* ---- a storm beside a correct user ---- */

/* What the gate promises, counted rather than timed (the rate a correct
 * user keeps is bench-ds's storm case, beside 389-ds's own scheme): the
 * storm's verifications never run more than storm.share at once, the
 * surplus is refused, and a value that has not failed never waits. */
struct storm {
    char *values[3];
    atomic_int stop, running, most, refused, done;
};

static void *
stormer(void *arg)
{
    struct storm *st = arg;
    unsigned i = 0;

    while (!atomic_load(&st->stop)) {
        struct kds_fair_ticket t;
        const char *v = st->values[i++ % 3];
        int now;

        if (kds_fair_enter(v, strlen(v), &t) != 0) {
            atomic_fetch_add(&st->refused, 1);
            usleep(1000);
            continue;
        }
        now = atomic_fetch_add(&st->running, 1) + 1;
        for (int m = atomic_load(&st->most); now > m;)
            if (atomic_compare_exchange_weak(&st->most, &m, now))
                break;
        usleep(3000); /* the verification's work */
        atomic_fetch_sub(&st->running, 1);
        atomic_fetch_add(&st->done, 1);
        kds_fair_leave(&t, KDS_FAIR_FAIL);
    }
    return NULL;
}

#define STORMERS 12

/* Runs the storm for about 0.3 s beside the correct user's v; the most
 * storm verifications seen at once.  Every one of v's entries must go
 * straight on, outside the share. */
static int
storm_beside(const char *v, struct storm *st)
{
    pthread_t th[STORMERS];
    int i;

    atomic_store(&st->stop, 0);
    atomic_store(&st->running, 0);
    atomic_store(&st->most, 0);
    atomic_store(&st->refused, 0);
    atomic_store(&st->done, 0);
    for (i = 0; i < 3; i++)
        fail_once(st->values[i]); /* suspect from the first bind on */
    for (i = 0; i < STORMERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, stormer, st), 0);
    for (i = 0; i < 100; i++) {
        struct kds_fair_ticket t;

        assert_int_equal(kds_fair_enter(v, strlen(v), &t), 0);
        assert_false(t.suspect);
        assert_false(t.gated);
        kds_fair_leave(&t, KDS_FAIR_MATCH);
        usleep(3000);
    }
    atomic_store(&st->stop, 1);
    for (i = 0; i < STORMERS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    print_message("storm: %d verified, %d refused, at most %d at once\n",
                  atomic_load(&st->done), atomic_load(&st->refused), atomic_load(&st->most));
    return atomic_load(&st->most);
}

static void
test_storm_share(void **state)
{
    struct storm st;
    char *v;
    int i;

    (void)state;
    memset(&st, 0, sizeof st);
    v = value(PW);
    for (i = 0; i < 3; i++)
        st.values[i] = value("Somebody-Else");
    gate(1, 4, 1000);
    assert_int_equal(storm_beside(v, &st), 1);
    assert_true(atomic_load(&st.refused) > 0); /* 12 binders, 1 running, 4 waiting */
    /* Without the gate the same storm runs many at once: the assertion
     * above is one that fails where the gate does not work. */
    gate(0, 4, 1000);
    assert_true(storm_beside(v, &st) > 1);
    assert_int_equal(atomic_load(&st.refused), 0);
    for (i = 0; i < 3; i++)
        free(st.values[i]);
    free(v);
}

/* ---- single flight, bounds ---- */

struct holder {
    const char *v;
    unsigned hold_ms;
    int entered;
    double waited;
};

static void *
enter_hold_leave(void *arg)
{
    struct holder *h = arg;
    struct kds_fair_ticket t;
    double t0 = now_s();

    h->entered = kds_fair_enter(h->v, strlen(h->v), &t) == 0;
    h->waited = now_s() - t0;
    if (h->entered) {
        usleep(h->hold_ms * 1000);
        kds_fair_leave(&t, KDS_FAIR_FAIL);
    }
    return NULL;
}

static void
test_single_flight(void **state)
{
    const char *v = "$argon2id$v=19$m=8192,t=1,p=1$c2luZ2xlZmxpZ2h0$AAAA";
    const char *w = "$argon2id$v=19$m=8192,t=1,p=1$b3RoZXJ2YWx1ZQ$AAAA";
    struct kds_fair_ticket t;
    struct holder b = {.v = v, .hold_ms = 0};
    pthread_t th;

    (void)state;
    configure(NULL, NULL);
    gate(4, 4, 2000);
    /* Not suspect before a failure: two at once, no waiting. */
    assert_int_equal(kds_fair_enter(v, strlen(v), &t), 0);
    assert_false(t.suspect);
    assert_int_equal(suspect(v), 0);
    kds_fair_leave(&t, KDS_FAIR_FAIL);
    /* Suspect now: the second of its binds waits for the first. */
    assert_int_equal(kds_fair_enter(v, strlen(v), &t), 0);
    assert_true(t.suspect);
    assert_true(t.gated);
    assert_int_equal(pthread_create(&th, NULL, enter_hold_leave, &b), 0);
    usleep(200000);
    /* Another suspect value has a place of the share of 4 meanwhile. */
    fail_once(w);
    assert_int_equal(suspect(w), 1);
    kds_fair_leave(&t, KDS_FAIR_FAIL);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_true(b.entered);
    assert_true(b.waited >= 0.15);
    assert_true(b.waited < 1.9);
}

static void
test_wait_bounds(void **state)
{
    const char *v = "$argon2id$v=19$m=8192,t=1,p=1$Ym91bmRlZHdhaXQ$AAAA";
    struct kds_fair_ticket t;
    struct holder b = {.v = v, .hold_ms = 0}, c = {.v = v, .hold_ms = 0};
    pthread_t tb;

    (void)state;
    configure(NULL, NULL);
    gate(1, 1, 300);
    reset_log();
    fail_once(v);
    assert_int_equal(kds_fair_enter(v, strlen(v), &t), 0);
    assert_true(t.gated);
    /* b waits, at most 300 ms, then is refused; c finds the one waiter's
     * place taken and is refused at once. */
    assert_int_equal(pthread_create(&tb, NULL, enter_hold_leave, &b), 0);
    usleep(100000);
    enter_hold_leave(&c);
    assert_false(c.entered);
    assert_true(c.waited < 0.1);
    assert_int_equal(pthread_join(tb, NULL), 0);
    assert_false(b.entered);
    assert_true(b.waited >= 0.25);
    assert_true(b.waited < 1.5);
    kds_fair_leave(&t, KDS_FAIR_FAIL);
    /* The first refusal said at once, with counts; the next waits for
     * the interval's line. */
    assert_non_null(strstr(g_log, "storm gate: 1 binds"));
    assert_null(strstr(strstr(g_log, "storm gate: ") + 1, "storm gate: "));
    assert_null(strstr(g_log, "Ym91bmRlZHdhaXQ"));
    /* storm.wait=0: no waiting at all. */
    gate(1, 4, 0);
    fail_once(v);
    assert_int_equal(kds_fair_enter(v, strlen(v), &t), 0);
    enter_hold_leave(&c);
    assert_false(c.entered);
    kds_fair_leave(&t, KDS_FAIR_MATCH);
}

/* ---- what a compare leaves ---- */

static void
test_match_clears(void **state)
{
    char *v;
    double t0, first, second;
    const char *bad = "$argon2id$v=19$m=8192,t=1,p=1$bm9wZQ";

    (void)state;
    configure(NULL, NULL);
    v = value(PW);
    assert_int_equal(suspect(v), 0);
    assert_int_equal(kds_compare(&g_s, WRONG, v), 1);
    assert_int_equal(suspect(v), 1);
    assert_int_equal(kds_compare(&g_s, PW, v), 0);
    assert_int_equal(suspect(v), 0);
    /* A malformed value: its first refusal costs a verification (its time
     * says nothing); while it stays suspect, refusals are cheap. */
    t0 = now_s();
    assert_int_equal(kds_compare(&g_s, PW, bad), 1);
    first = now_s() - t0;
    assert_int_equal(suspect(bad), 1);
    t0 = now_s();
    assert_int_equal(kds_compare(&g_s, PW, bad), 1);
    second = now_s() - t0;
    print_message("malformed: %.2f ms, then %.3f ms while suspect\n", first * 1e3,
                  second * 1e3);
    assert_true(second * 4 < first);
    free(v);
}

/* ---- a shared bucket ---- */

static void
test_collisions(void **state)
{
    char *v[10];
    struct kds_fair_ticket held[4];
    int i, n;

    (void)state;
    configure(NULL, NULL);
    gate(4, 16, 1000);
    kds_fair_reset(0); /* one bucket of four for every value */
    for (i = 0; i < 10; i++)
        v[i] = value(i == 0 ? PW : "Another-One");
    /* Ten values failing in a bucket of four: the four latest stay
     * suspect; the others lost their record; answers never change. */
    for (i = 0; i < 10; i++)
        assert_int_equal(kds_compare(&g_s, WRONG, v[i]), 1);
    for (i = 0, n = 0; i < 10; i++)
        n += suspect(v[i]);
    assert_int_equal(n, 4);
    for (i = 6; i < 10; i++)
        assert_int_equal(suspect(v[i]), 1);
    assert_int_equal(kds_compare(&g_s, PW, v[0]), 0);
    assert_int_equal(kds_compare(&g_s, "Another-One", v[9]), 0);
    /* Every slot of the bucket held by a running verification: a new
     * failure goes unrecorded, and a value without one never waits. */
    for (i = 0; i < 4; i++) {
        fail_once(v[i + 1]);
        assert_int_equal(kds_fair_enter(v[i + 1], strlen(v[i + 1]), &held[i]), 0);
        assert_true(held[i].gated);
    }
    assert_int_equal(kds_compare(&g_s, WRONG, v[0]), 1);
    assert_int_equal(suspect(v[0]), 0);
    assert_int_equal(kds_compare(&g_s, PW, v[0]), 0);
    for (i = 0; i < 4; i++)
        kds_fair_leave(&held[i], KDS_FAIR_MATCH);
    for (i = 0; i < 10; i++)
        free(v[i]);
    kds_fair_reset(9);
}

/* ---- the tags' hash ---- */

/* SipHash-2-4's reference vectors (the paper's appendix A and the
 * reference code's vectors.h): key 00..0f, messages 00..(n-1). */
static void
test_siphash(void **state)
{
    static const struct {
        size_t n;
        uint64_t h;
    } v[] = {{0, 0x726fdb47dd0e0e31ull}, {1, 0x74f839c593dc67fdull},
             {7, 0xab0200f58b01d137ull}, {8, 0x93f5f5799a932462ull},
             {15, 0xa129ca6149be45e5ull}, {63, 0x958a324ceb064572ull}};
    uint8_t key[16], msg[64];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)i;
    for (i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)i;
    for (i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_true(kds_fair_siphash(key, msg, v[i].n) == v[i].h);
}

/* ---- configuration ---- */

static void
test_config(void **state)
{
    static const char *bad[] = {"storm.share=0", "storm.share=x", "storm.share=1025",
                                "storm.wait=10001", "storm.wait=-1", "storm.window=0",
                                "storm.waiters=0", "storm.share="};
    char *argv[4] = {g_conf, (char *)"max.memory=off", NULL, NULL};
    struct kds_fair_conf fc;
    char err[128];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reset_log();
        argv[2] = (char *)bad[i];
        assert_int_equal(kds_configure(&g_s, 3, argv), -1);
        assert_non_null(strstr(g_log, "storm."));
    }
    kds_fair_defaults(&fc);
    assert_true(fc.share >= 1);
    assert_true(fc.share == 1 || fc.share == (unsigned)sysconf(_SC_NPROCESSORS_ONLN) / 2);
    assert_int_equal(fc.wait_ms, 1000);
    assert_int_equal(fc.window_s, 60);
    assert_int_equal(kds_fair_arg(&fc, "storm.share", "off", err, sizeof err), 0);
    assert_int_equal(fc.share, 0);
    assert_int_equal(kds_fair_arg(&fc, "storm.wait", "250", err, sizeof err), 0);
    assert_int_equal(fc.wait_ms, 250);
    assert_int_equal(kds_fair_arg(&fc, "workareas", "0", err, sizeof err), 1);
    /* Accepted through the plugin's arguments, the gate then off: a
     * failed value is never suspect. */
    configure("storm.share=off", "storm.window=5");
    fail_once("$argon2id$v=19$m=8192,t=1,p=1$b2Zm$AAAA");
    assert_int_equal(suspect("$argon2id$v=19$m=8192,t=1,p=1$b2Zm$AAAA"), 0);
    configure(NULL, NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_siphash),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_single_flight),
        cmocka_unit_test(test_wait_bounds),
        cmocka_unit_test(test_match_clears),
        cmocka_unit_test(test_collisions),
        cmocka_unit_test(test_storm_share),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
