/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hint.c - every BlaMka kernel this CPU runs announces, when given a
 * prefetch hint, exactly word 0 of the block it computes, once (see
 * tests/unit/hint_probe.c, built once per ISA).  The tags cannot show a wrong
 * announcement: it only sends the prefetch of the next data-dependent
 * reference block to the wrong place, which costs a DRAM round trip per
 * block (bench/bench_argon2's latency rows).
 */
#include "kdf_prelude.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "alg_argon2.h"
#include "hex_common.h"

typedef int (*probe_fn)(const struct kdf_argon2_block *, const struct kdf_argon2_block *,
                        struct kdf_argon2_block *, int, uint64_t *);

#define HP_DECL(isa)                                                                      \
    int hint_probe_##isa(const struct kdf_argon2_block *, const struct kdf_argon2_block *, \
                         struct kdf_argon2_block *, int, uint64_t *)
HP_DECL(ref);
#ifdef HINT_HAVE_SSSE3
HP_DECL(ssse3);
#endif
#ifdef HINT_HAVE_AVX2
HP_DECL(avx2);
#endif
#ifdef HINT_HAVE_AVX512F
HP_DECL(avx512f);
#endif

static const struct {
    const char *name; /* as in kdf_impl_list(KDF_PRIM_BLAMKA) */
    probe_fn fn;
} probes[] = {
    {"portable", hint_probe_ref},
#ifdef HINT_HAVE_SSSE3
    {"ssse3", hint_probe_ssse3},
#endif
#ifdef HINT_HAVE_AVX2
    {"avx2", hint_probe_avx2},
#endif
#ifdef HINT_HAVE_AVX512F
    {"avx512f", hint_probe_avx512f},
#endif
};

static uint64_t g_x = 0x243f6a8885a308d3u; /* xorshift64 state */

static uint64_t
rnd(void)
{
    return xorshift64(&g_x);
}

static int
usable(const char *name)
{
    const char *names[16];
    int ok[16];
    size_t n = kdf_impl_list(KDF_PRIM_BLAMKA, names, ok, 16);
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return ok[i];
    return 0;
}

static void
test_announced_word(void **state)
{
    static struct kdf_argon2_block prev, ref, next, old;
    size_t ran = 0;
    (void)state;

    for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
        if (!usable(probes[p].name)) {
            print_message("variant %s: not supported by this CPU\n", probes[p].name);
            continue;
        }
        for (int trial = 0; trial < 500; trial++) {
            int with_xor = trial & 1;
            uint64_t word = 0;
            for (int k = 0; k < KDF_ARGON2_QWORDS; k++) {
                prev.v[k] = rnd();
                ref.v[k] = rnd();
                old.v[k] = next.v[k] = rnd(); /* the block being overwritten */
            }
            int calls = probes[p].fn(&prev, &ref, &next, with_xor, &word);
            if (calls != 1 || word != next.v[0])
                fail_msg("variant %s, trial %d (with_xor %d): %d announcements, word "
                         "%016llx, block word 0 %016llx",
                         probes[p].name, trial, with_xor, calls, (unsigned long long)word,
                         (unsigned long long)next.v[0]);
            /* The probe's block is the real one (test_simd checks the
             * kernels against each other; here only that with_xor was
             * honoured, i.e. the old block mattered). */
            if (with_xor)
                assert_memory_not_equal(&next, &old, sizeof next);
        }
        print_message("variant %s: 500/500 announcements are word 0\n", probes[p].name);
        ran++;
    }
    assert_true(ran >= 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_announced_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
