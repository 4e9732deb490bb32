/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_impls.c - the BlaMka dispatch rows, best first (doc/DESIGN.md
 * section 10; libsodium's argon2_pick_best_implementation order): AVX-512F,
 * AVX2, SSSE3 on x86-64, NEON on aarch64, then the portable filler.  Each
 * row is in the table only when its ISA file was compiled in (config.h
 * HAVE_<ISA>), and dispatch.c takes it only when the CPU has the feature
 * and its known answer below passes.
 *
 * The known answer: two fill_block calls on fixed blocks (one plain, one
 * with the XOR of version 0x13 later passes) and a BLAKE2b-64 fold of the
 * result, compared with KAT_FOLD.  KAT_FOLD was computed with the portable
 * variant after it had passed the RFC 9106 section 5 vectors
 * (tests/test_argon2.c); tests/test_simd.c recomputes it with the portable
 * variant, so a change to either side fails a test.
 */
#include "kdf_internal.h"

#include "alg_blake2b.h"
#include "argon2_core.h"

#define KAT_FOLD 0x6ce129218a4ef56aULL /* see the header comment */

/* Fixed, non-trivial inputs: odd multiples of a 64-bit golden ratio. */
static void
kat_blocks(struct kdf_argon2_block *prev, struct kdf_argon2_block *ref,
           struct kdf_argon2_block *next)
{
    for (uint64_t k = 0; k < KDF_ARGON2_QWORDS; k++) {
        prev->v[k] = 0x9e3779b97f4a7c15ULL * (2 * k + 1);
        ref->v[k] = 0xc2b2ae3d27d4eb4fULL * (2 * k + 3) ^ (k << 56);
        next->v[k] = ~(k * 0x0101010101010101ULL);
    }
}

uint64_t
kdf_blamka_kat_fold(kdf_argon2_fill_block_fn fb)
{
    struct kdf_argon2_block prev, ref, next;
    uint8_t bytes[KDF_ARGON2_BLOCK_SIZE], d[8];

    kat_blocks(&prev, &ref, &next);
    fb(&prev, &ref, &next, 1);
    fb(&next, &ref, &prev, 0);
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
        kdf_store64_le(bytes + 8 * k, prev.v[k]);
    (void)kdf_blake2b(d, sizeof d, bytes, sizeof bytes, NULL, 0);
    return kdf_load64_le(d);
}

static int
kat(kdf_argon2_fill_block_fn fb)
{
    return kdf_blamka_kat_fold(fb) == KAT_FOLD ? 0 : -1;
}

#define KAT_FN(isa)                                                                      \
    static int selftest_##isa(kdf_generic_fn fn)                                         \
    {                                                                                    \
        (void)fn;                                                                        \
        return kat(kdf_argon2_fill_block_##isa);                                         \
    }
#define ROW(name, needs, isa)                                                            \
    {                                                                                    \
        name, needs, (kdf_generic_fn)kdf_argon2_fill_segment_##isa, selftest_##isa       \
    }

#if defined(HAVE_AVX512F)
KAT_FN(avx512f)
#endif
#if defined(HAVE_AVX2)
KAT_FN(avx2)
#endif
#if defined(HAVE_SSSE3)
KAT_FN(ssse3)
#endif
#if defined(HAVE_NEON)
KAT_FN(neon)
#endif

const struct kdf_impl_desc kdf_blamka_impls[] = {
#if defined(HAVE_AVX512F)
    ROW("avx512f", KDF_CPU_AVX512F, avx512f),
#endif
#if defined(HAVE_AVX2)
    ROW("avx2", KDF_CPU_AVX2, avx2),
#endif
#if defined(HAVE_SSSE3)
    ROW("ssse3", KDF_CPU_SSSE3, ssse3),
#endif
#if defined(HAVE_NEON)
    ROW("neon", KDF_CPU_NEON, neon),
#endif
    /* Portable: no self-test gate, it is the fallback of last resort. */
    {"portable", 0, (kdf_generic_fn)kdf_argon2_fill_segment_ref, NULL},
};
const size_t kdf_blamka_nimpls = KDF_ARRAY_LEN(kdf_blamka_impls);

static const kdf_argon2_fill_block_fn g_block_fns[] = {
#if defined(HAVE_AVX512F)
    kdf_argon2_fill_block_avx512f,
#endif
#if defined(HAVE_AVX2)
    kdf_argon2_fill_block_avx2,
#endif
#if defined(HAVE_SSSE3)
    kdf_argon2_fill_block_ssse3,
#endif
#if defined(HAVE_NEON)
    kdf_argon2_fill_block_neon,
#endif
    kdf_argon2_fill_block_ref,
};

kdf_argon2_fill_block_fn
kdf_blamka_block_impl(size_t index)
{
    return index < KDF_ARRAY_LEN(g_block_fns) ? g_block_fns[index] : NULL;
}
