/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_simd.c - every BlaMka variant against the portable one (BLAKE3's
 * Rust tests compare each SIMD path with portable the same way).
 *
 * One cmocka test per row of kdf_impl_list(KDF_PRIM_BLAMKA); a row this
 * CPU cannot run is skipped with the reason.  Each usable row computes
 * 10,000 random (prev, ref, next) triples with and without the v=0x13 XOR,
 * plus the aliasing the address generator uses (ref == next), and must
 * match the portable block function bit for bit.  The portable function
 * itself is pinned by the RFC 9106 vectors in test_argon2.
 */
#include "kdf_internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "argon2_core.h"
#include "hex_common.h"

#define TRIPLES 10000
#define MAX_ROWS 8

static uint64_t g_rng = 0x243f6a8885a308d3ULL; /* fixed: failures reproduce */

static uint64_t
rnd64(void)
{
    return splitmix64(&g_rng);
}

static void
rnd_block(struct kdf_argon2_block *b)
{
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
        b->v[k] = rnd64();
    /* Now and then, extreme words: all ones, zero, 32-bit edges. */
    if ((rnd64() & 7) == 0)
        for (int k = 0; k < KDF_ARGON2_QWORDS; k += 5)
            b->v[k] = (k & 1) ? ~0ULL : 0xffffffffULL;
}

static void
test_variant(void **state)
{
    size_t idx = *(const size_t *)*state;
    const char *names[MAX_ROWS];
    int usable[MAX_ROWS];
    size_t n = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, MAX_ROWS);
    kdf_argon2_fill_block_fn fb;
    static struct kdf_argon2_block prev, ref, next0, a, b;

    if (idx >= n) {
        print_message("row %zu: not compiled in (%zu BlaMka rows)\n", idx, n);
        skip();
    }
    if (!usable[idx]) {
        print_message("%s: this CPU lacks the instructions\n", names[idx]);
        skip();
    }
    fb = kdf_blamka_block_impl(idx);
    assert_non_null(fb);
    print_message("%s vs portable: %d triples x 2 modes\n", names[idx], TRIPLES);
    for (int i = 0; i < TRIPLES; i++) {
        rnd_block(&prev);
        rnd_block(&ref);
        rnd_block(&next0);
        for (int x = 0; x < 2; x++) {
            a = next0;
            b = next0;
            kdf_argon2_fill_block_ref(&prev, &ref, &a, x);
            fb(&prev, &ref, &b, x);
            if (memcmp(&a, &b, sizeof a) != 0)
                fail_msg("%s differs from portable at triple %d, xor %d", names[idx], i,
                         x);
        }
        /* ref == next, as in G(0, G(0, Z)) of the address generator. */
        a = ref;
        b = ref;
        kdf_argon2_fill_block_ref(&prev, &a, &a, 0);
        fb(&prev, &b, &b, 0);
        assert_memory_equal(&a, &b, sizeof a);
    }
    /* The dispatch self-test of this row folds the same way as portable. */
    assert_true(kdf_blamka_kat_fold(fb) ==
                kdf_blamka_kat_fold(kdf_argon2_fill_block_ref));
}

/* The row the dispatcher picks must be the first usable one: every row's
 * self-test passes on a CPU that has its features. */
static void
test_pick_is_best_usable(void **state)
{
    const char *names[MAX_ROWS];
    int usable[MAX_ROWS];
    size_t n = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, MAX_ROWS);
    (void)state;

    assert_true(n >= 1);
    assert_string_equal(names[n - 1], "portable");
    assert_true(usable[n - 1]);
    for (size_t i = 0; i < n; i++) {
        if (usable[i]) {
            assert_string_equal(kdf_impl_name(KDF_PRIM_BLAMKA), names[i]);
            break;
        }
    }
    assert_null(kdf_blamka_block_impl(n));
}

int
main(void)
{
    static const size_t idx[MAX_ROWS] = {0, 1, 2, 3, 4};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_is_best_usable),
        cmocka_unit_test_prestate(test_variant, (void *)&idx[0]),
        cmocka_unit_test_prestate(test_variant, (void *)&idx[1]),
        cmocka_unit_test_prestate(test_variant, (void *)&idx[2]),
        cmocka_unit_test_prestate(test_variant, (void *)&idx[3]),
        cmocka_unit_test_prestate(test_variant, (void *)&idx[4]),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
