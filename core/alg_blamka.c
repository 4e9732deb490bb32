/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_blamka.c - the BlaMka variant table, best first (libsodium's
 * argon2_pick_best_implementation order): AVX-512F, AVX2, SSSE3 on x86-64,
 * NEON on aarch64, then the portable filler.  Each row is in the table only
 * when its ISA file was compiled in (config.h HAVE_<ISA>), and the walker
 * takes it only when the CPU has the feature and its known answer below
 * passes.  A row's fn is its segment filler; its `more` is a struct
 * blamka_more with the block function the known answer and the tests use.
 *
 * The known answer: two fill_block calls on fixed blocks (one plain, one
 * with the XOR of version 0x13 later passes) and a BLAKE2b-64 fold of the
 * result, compared with KAT_FOLD.  KAT_FOLD was computed with the portable
 * variant after it had passed the RFC 9106 section 5 vectors
 * (tests/unit/test_argon2.c); tests/unit/test_simd.c recomputes it with the portable
 * variant, so a change to either side fails a test.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"

#include "alg_blake2b.h"
#include "alg_argon2.h"

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

struct blamka_more {
    kdf_argon2_fill_block_fn block;
};

static int
selftest(const struct kdf_impl_desc *row)
{
    const struct blamka_more *m = (const struct blamka_more *)row->more;
    return kdf_blamka_kat_fold(m->block) == KAT_FOLD ? 0 : -1;
}

#define ROW(name, needs, isa)                                                            \
    {                                                                                    \
        name, needs, (kdf_generic_fn)kdf_argon2_fill_segment_##isa, &blamka_##isa,       \
            selftest, 0                                                                  \
    }
#define MORE(isa) static const struct blamka_more blamka_##isa = {kdf_argon2_fill_block_##isa};

#if defined(HAVE_AVX512F)
MORE(avx512f)
#endif
#if defined(HAVE_AVX2)
MORE(avx2)
#endif
#if defined(HAVE_SSSE3)
MORE(ssse3)
#endif
#if defined(HAVE_NEON)
MORE(neon)
#endif
MORE(ref)

static const struct kdf_impl_desc blamka_rows[] = {
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
    /* Portable is the fallback of last resort: the walker keeps it even if
     * its self-test fails, but runs it like the others' (and so a build
     * with no SIMD row still uses selftest()). */
    ROW("portable", 0, ref),
};
struct kdf_dispatch_table kdf_blamka_table = KDF_DISPATCH_TABLE("blamka", blamka_rows);

kdf_argon2_fill_block_fn
kdf_blamka_block_impl(size_t index)
{
    if (index >= kdf_blamka_table.nrows)
        return NULL;
    return ((const struct blamka_more *)kdf_blamka_table.rows[index].more)->block;
}
