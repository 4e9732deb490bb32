/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_workpool.c - the Argon2 work areas a server keeps between
 * verifications (core/util_workarea.c, kdf_workpool_set()):
 *   - with the pool on, every Argon2 known answer of argon2-cffi still
 *     verifies, a wrong password still fails, and a hash made with the
 *     pool equals the one made without it;
 *   - one verification after another maps one area, not one per call;
 *   - what a slot keeps is all zeros after each verification (the blocks
 *     are wiped before the area goes back);
 *   - a larger request replaces the slot's area, a smaller one reuses it;
 *   - a computation in a kept area holds its share of the memory budget
 *     while it runs and an idle kept area holds none (another process's
 *     request fits then); what the process keeps never exceeds the
 *     budget; a request above the whole budget is still refused at once
 *     (KDF_OVER_BUDGET), and leaves nothing kept;
 *   - more verifying threads than slots: every verification right, never
 *     more areas kept than slots;
 *   - a verification that finds every slot in use never waits for one: it
 *     maps its own area at once, even with a long max.memory-wait; two
 *     threads holding every slot for expensive verifications do not slow
 *     a cheap client's verifications down;
 *   - a value larger than the kept size (kdf_workpool_set()'s keep_kib)
 *     maps its own area and leaves the slots alone: after a storm of them
 *     the pool keeps at most slots x keep_kib.
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"
#include "util_memgate.h"
#include "util_workarea.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdf_testing.h"

struct vec {
    const char *pw;
    size_t pw_len;
    const char *hash;
};
#define KDF_VEC(pw, len, hash) {pw, len, hash},
static const struct vec g_argon2[] = {
#include "vectors/argon2.inc"
};
#undef KDF_VEC

static char g_gate[64];

static int
setup(void **state)
{
    (void)state;
    snprintf(g_gate, sizeof g_gate, "/tmp/kdf-workpool-%ld", (long)getpid());
    unlink(g_gate);
    kdf_memgate_set_path(g_gate);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    kdf_workpool_set(0, 0);
    unlink(g_gate);
    kdf_memgate_set_path(NULL);
    return 0;
}

static enum kdf_status
verify_str(const char *pw, const char *hash, const struct kdf_policy *pol)
{
    struct kdf_hash h;
    enum kdf_status st = kdf_parse(hash, strlen(hash), &h, NULL);

    if (st != KDF_OK)
        return st;
    return kdf_verify_ex(pw, strlen(pw), &h, pol, NULL, 0);
}

static void
all_zero(unsigned slot)
{
    const void *mem = NULL;
    size_t len = 0;

    assert_int_equal(kdf_workpool_peek(slot, &mem, &len), 0);
    assert_true(len > 0);
    for (size_t i = 0; i < len; i++)
        if (((const uint8_t *)mem)[i] != 0)
            fail_msg("kept area not wiped: byte %zu of %zu is %u", i, len,
                     ((const uint8_t *)mem)[i]);
}

static void
test_known_answers_with_pool(void **state)
{
    struct kdf_hash h;
    struct kdf_workpool_stats s;

    (void)state;
    kdf_workpool_set(1, KDF_WORKPOOL_KEEP_ANY);
    for (size_t i = 0; i < sizeof g_argon2 / sizeof g_argon2[0]; i++) {
        const struct vec *v = &g_argon2[i];
        assert_int_equal(kdf_parse(v->hash, strlen(v->hash), &h, NULL), KDF_OK);
        if (kdf_verify_ex(v->pw, v->pw_len, &h, NULL, NULL, 0) != KDF_OK)
            fail_msg("row %zu (%s) does not verify with the pool", i, v->hash);
        assert_int_equal(kdf_verify_ex("not it", 6, &h, NULL, NULL, 0), KDF_MISMATCH);
        all_zero(0);
    }
    kdf_workpool_stats(&s);
    assert_int_equal(s.slots, 1);
    assert_int_equal(s.missed, 0);
    /* The largest row's area is mapped once and then kept. */
    assert_true(s.mapped < 2 * sizeof g_argon2 / sizeof g_argon2[0] / 4);
    assert_true(s.reused > s.mapped);
}

static void
test_same_hash_with_and_without(void **state)
{
    static const uint8_t salt[16] = "kdf-workpool-slt";
    struct kdf_target t;
    char off[KDF_MAX_HASH_STR + 1], on[KDF_MAX_HASH_STR + 1], err[128];

    (void)state;
    assert_int_equal(kdf_target_parse("argon2id m=8192,t=2,p=2,salt=16,len=32", &t, err,
                                      sizeof err), KDF_OK);
    kdf_workpool_set(0, 0);
    assert_int_equal(kdf_hash_salt("pw", 2, &t, salt, sizeof salt, off, sizeof off), KDF_OK);
    kdf_workpool_set(2, KDF_WORKPOOL_KEEP_ANY);
    assert_int_equal(kdf_hash_salt("pw", 2, &t, salt, sizeof salt, on, sizeof on), KDF_OK);
    assert_string_equal(off, on);
    assert_int_equal(verify_str("pw", on, NULL), KDF_OK);
    all_zero(0);
}

static void
test_reuse_and_growth(void **state)
{
    struct kdf_workpool_stats s;
    struct kdf_target small, big;
    char a[KDF_MAX_HASH_STR + 1], b[KDF_MAX_HASH_STR + 1], err[128];
    const void *mem;
    size_t len;

    (void)state;
    assert_int_equal(kdf_target_parse("argon2id m=4096,t=1,p=1", &small, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_target_parse("argon2id m=8192,t=1,p=1", &big, err, sizeof err),
                     KDF_OK);
    kdf_workpool_set(0, 0);
    assert_int_equal(kdf_hash("pw", 2, &small, a, sizeof a), KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &big, b, sizeof b), KDF_OK);
    kdf_workpool_set(1, KDF_WORKPOOL_KEEP_ANY);
    kdf_workpool_stats(&s);
    uint64_t m0 = s.mapped, r0 = s.reused;
    for (int i = 0; i < 5; i++)
        assert_int_equal(verify_str("pw", a, NULL), KDF_OK);
    kdf_workpool_stats(&s);
    assert_int_equal(s.mapped - m0, 1);
    assert_int_equal(s.reused - r0, 4);
    assert_int_equal(s.kept_kib, 4096);
    /* Larger: the slot's area is replaced; smaller again: reused. */
    assert_int_equal(verify_str("pw", b, NULL), KDF_OK);
    assert_int_equal(verify_str("pw", a, NULL), KDF_OK);
    kdf_workpool_stats(&s);
    assert_int_equal(s.mapped - m0, 2);
    assert_int_equal(s.reused - r0, 5);
    assert_int_equal(s.kept_kib, 8192);
    all_zero(0);
    /* Off: nothing kept. */
    kdf_workpool_set(0, 0);
    kdf_workpool_stats(&s);
    assert_int_equal(s.kept_kib, 0);
    assert_int_equal(kdf_workpool_peek(0, &mem, &len), -1);
}

static void
test_budget(void **state)
{
    struct kdf_policy pol;
    struct kdf_target t4, t8;
    struct kdf_workpool_stats s;
    struct kdf_pool_slot *held;
    char a4[KDF_MAX_HASH_STR + 1], a8[KDF_MAX_HASH_STR + 1], err[128];
    enum kdf_status st;
    const void *pm;
    size_t plen;
    void *mem;
    int fd = -1;

    (void)state;
    kdf_policy_default(&pol);
    pol.max_memory_kib = 6144; /* 6 MiB: one 4 MiB computation, not two */
    pol.memory_wait_ms = 50;
    assert_int_equal(kdf_target_parse("argon2id m=4096,t=1,p=1", &t4, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_target_parse("argon2id m=8192,t=1,p=1", &t8, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &t4, a4, sizeof a4), KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &t8, a8, sizeof a8), KDF_OK);
    kdf_workpool_set(1, KDF_WORKPOOL_KEEP_ANY);
    assert_int_equal(verify_str("pw", a4, &pol), KDF_OK);
    /* Idle, the kept area holds no share: another process's 4 MiB fit. */
    assert_int_equal(kdf_memgate_take(4096, 6144, 0, 0, &fd), KDF_OK);
    assert_true(fd >= 0);
    kdf_memgate_give(fd);
    /* In use, it holds its computation's share: 4 more do not fit. */
    held = kdf_workpool_take((size_t)4096 * 1024, 6144, 0, 0, &mem, &st);
    assert_non_null(held);
    assert_int_equal(st, KDF_OK);
    assert_int_equal(kdf_memgate_take(4096, 6144, 0, 0, &fd), KDF_BUSY);
    assert_int_equal(fd, -1);
    kdf_workpool_give(held);
    assert_int_equal(kdf_memgate_take(4096, 6144, 0, 0, &fd), KDF_OK);
    kdf_memgate_give(fd);

    /* What the process keeps stays within the budget (12 MiB): with one
     * 8 MiB area kept and in use, a second 8 MiB one is unmapped after. */
    kdf_workpool_set(2, KDF_WORKPOOL_KEEP_ANY);
    pol.max_memory_kib = 12288;
    assert_int_equal(verify_str("pw", a8, &pol), KDF_OK);
    held = kdf_workpool_take((size_t)8192 * 1024, KDF_MEMGATE_OFF, 0, 0, &mem, &st);
    assert_non_null(held);
    assert_int_equal(verify_str("pw", a8, &pol), KDF_OK);
    kdf_workpool_stats(&s);
    assert_int_equal(s.kept_kib, 8192);
    assert_int_equal(kdf_workpool_peek(1, &pm, &plen), -1);
    kdf_workpool_give(held);
    kdf_workpool_stats(&s);
    assert_int_equal(s.kept_kib, 8192);
    all_zero(0);

    /* Above the whole budget: refused at once, nothing kept. */
    kdf_workpool_set(1, KDF_WORKPOOL_KEEP_ANY);
    pol.max_memory_kib = 2048;
    assert_int_equal(verify_str("pw", a4, &pol), KDF_OVER_BUDGET);
    kdf_workpool_stats(&s);
    assert_int_equal(s.kept_kib, 0);
}

struct worker {
    const char *hash;
    int bad;
};

static void *
verify_many(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < 6; i++) {
        if (verify_str("pw", w->hash, NULL) != KDF_OK)
            w->bad++;
        if (verify_str("px", w->hash, NULL) != KDF_MISMATCH)
            w->bad++;
    }
    return NULL;
}

static void
test_more_threads_than_slots(void **state)
{
    struct kdf_workpool_stats s0, s;
    struct kdf_target t;
    char a[KDF_MAX_HASH_STR + 1], err[128];
    pthread_t th[4];
    struct worker w[4];

    (void)state;
    assert_int_equal(kdf_target_parse("argon2id m=2048,t=1,p=1", &t, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &t, a, sizeof a), KDF_OK);
    kdf_workpool_set(2, KDF_WORKPOOL_KEEP_ANY);
    kdf_workpool_stats(&s0);
    for (int i = 0; i < 4; i++) {
        w[i] = (struct worker){.hash = a};
        assert_int_equal(pthread_create(&th[i], NULL, verify_many, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].bad, 0);
    }
    kdf_workpool_stats(&s);
    assert_int_equal((s.reused - s0.reused) + (s.mapped - s0.mapped) + (s.missed - s0.missed),
                     4 * 12);
    assert_true(s.mapped - s0.mapped <= 2);
    assert_true(s.kept_kib <= 2 * 2048);
    all_zero(0);
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
test_no_wait_for_a_slot(void **state)
{
    struct kdf_workpool_stats s0, s;
    struct kdf_pool_slot *held;
    struct kdf_policy pol;
    struct kdf_target t;
    char a[KDF_MAX_HASH_STR + 1], err[128];
    enum kdf_status st;
    void *mem = NULL;

    (void)state;
    assert_int_equal(kdf_target_parse("argon2id m=2048,t=1,p=1", &t, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &t, a, sizeof a), KDF_OK);
    kdf_policy_default(&pol);
    pol.memory_wait_ms = 5000;
    kdf_workpool_set(1, KDF_WORKPOOL_KEEP_ANY);
    /* Hold the only slot: a verification maps its own area at once. */
    held = kdf_workpool_take(2048 * 1024, KDF_MEMGATE_OFF, 0, 0, &mem, &st);
    assert_non_null(held);
    assert_int_equal(st, KDF_OK);
    kdf_workpool_stats(&s0);
    double t0 = now_ms();
    assert_int_equal(verify_str("pw", a, &pol), KDF_OK);
    double dt = now_ms() - t0;
    kdf_workpool_stats(&s);
    assert_true(dt < 1000.0);
    assert_int_equal(s.missed - s0.missed, 1);
    kdf_workpool_give(held);
    /* Given back: the next one reuses it. */
    kdf_workpool_stats(&s0);
    assert_int_equal(verify_str("pw", a, &pol), KDF_OK);
    kdf_workpool_stats(&s);
    assert_int_equal(s.reused - s0.reused, 1);
    all_zero(0);
}

/* Expensive verifications on every slot, and a cheap client: its
 * verifications never wait for a slot. */
struct expensive {
    const char *hash;       /* NULL: hold a slot of `need` bytes instead */
    size_t need;
    int rounds;
    atomic_int stop;
    int bad;
    atomic_int holding;
};

static void *
expensive_client(void *arg)
{
    struct expensive *e = arg;
    struct kdf_policy pol;

    kdf_policy_default(&pol);
    pol.max_memory_kib = KDF_MEMGATE_OFF;
    if (e->hash == NULL) {
        enum kdf_status st;
        void *mem;
        struct kdf_pool_slot *s = kdf_workpool_take(e->need, KDF_MEMGATE_OFF, 0, 0, &mem, &st);
        if (s == NULL)
            e->bad++;
        atomic_store(&e->holding, 1);
        while (!atomic_load(&e->stop)) {
            struct timespec d = {0, 5000000L};
            nanosleep(&d, NULL);
        }
        kdf_workpool_give(s);
        return NULL;
    }
    for (int i = 0; i < e->rounds; i++)
        if (verify_str("pw", e->hash, &pol) != KDF_OK)
            e->bad++;
    return NULL;
}

static void
test_cheap_never_waits(void **state)
{
    struct kdf_workpool_stats s0, s;
    struct kdf_policy pol;
    struct kdf_target tc;
    char cheap[KDF_MAX_HASH_STR + 1], err[128];
    struct expensive e[2];
    pthread_t th[2];

    (void)state;
    assert_int_equal(kdf_target_parse("argon2id m=1024,t=1,p=1", &tc, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &tc, cheap, sizeof cheap), KDF_OK);
    kdf_policy_default(&pol);
    pol.max_memory_kib = KDF_MEMGATE_OFF;
    pol.memory_wait_ms = 5000; /* what a slot wait would have cost */
    kdf_workpool_set(2, KDF_WORKPOOL_KEEP_ANY);
    for (int i = 0; i < 2; i++) {
        memset(&e[i], 0, sizeof e[i]);
        e[i].need = (size_t)8192 * 1024;
        assert_int_equal(pthread_create(&th[i], NULL, expensive_client, &e[i]), 0);
    }
    while (!atomic_load(&e[0].holding) || !atomic_load(&e[1].holding)) {
        struct timespec d = {0, 1000000L};
        nanosleep(&d, NULL);
    }
    kdf_workpool_stats(&s0);
    for (int i = 0; i < 5; i++) {
        double t0 = now_ms();
        assert_int_equal(verify_str("pw", cheap, &pol), KDF_OK);
        double dt = now_ms() - t0;
        if (dt >= 500.0)
            fail_msg("a cheap verification took %.0f ms beside two expensive ones", dt);
    }
    kdf_workpool_stats(&s);
    assert_int_equal(s.missed - s0.missed, 5);
    for (int i = 0; i < 2; i++) {
        atomic_store(&e[i].stop, 1);
        pthread_join(th[i], NULL);
        assert_int_equal(e[i].bad, 0);
    }
}

/* The server keeps areas of its target's size (1 MiB here): a storm of
 * 8 MiB values, two threads at once beside a cheap client, leaves at most
 * two 1 MiB areas kept, and the cheap client's still reused. */
static void
test_large_not_kept(void **state)
{
    struct kdf_workpool_stats s0, s;
    struct kdf_policy pol;
    struct kdf_target tc, tx;
    char cheap[KDF_MAX_HASH_STR + 1], dear[KDF_MAX_HASH_STR + 1], err[128];
    struct expensive e[2];
    pthread_t th[2];

    (void)state;
    assert_int_equal(kdf_target_parse("argon2id m=1024,t=1,p=1", &tc, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_target_parse("argon2id m=8192,t=2,p=1", &tx, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &tc, cheap, sizeof cheap), KDF_OK);
    assert_int_equal(kdf_hash("pw", 2, &tx, dear, sizeof dear), KDF_OK);
    kdf_policy_default(&pol);
    pol.max_memory_kib = KDF_MEMGATE_OFF;
    pol.memory_wait_ms = 5000;
    kdf_workpool_set(2, 1024);
    kdf_workpool_stats(&s0);
    for (int i = 0; i < 2; i++) {
        memset(&e[i], 0, sizeof e[i]);
        e[i].hash = dear;
        e[i].rounds = 4;
        assert_int_equal(pthread_create(&th[i], NULL, expensive_client, &e[i]), 0);
    }
    for (int i = 0; i < 8; i++)
        assert_int_equal(verify_str("pw", cheap, &pol), KDF_OK);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(e[i].bad, 0);
    }
    kdf_workpool_stats(&s);
    assert_int_equal(s.large - s0.large, 8);
    assert_true(s.reused - s0.reused >= 6);
    assert_true(s.kept_kib <= 2 * 1024);
    all_zero(0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_known_answers_with_pool, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_hash_with_and_without, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reuse_and_growth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_more_threads_than_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_wait_for_a_slot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cheap_never_waits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_not_kept, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
