/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_argon2.h - the Argon2 instance shared by alg_argon2.c, the
 * dispatch rows (alg_blamka.c) and the per-ISA segment fillers
 * (core/simd/argon2_fill_<isa>.c).  Names follow RFC 9106 section 3.
 */
#ifndef KDF_ARGON2_CORE_H
#define KDF_ARGON2_CORE_H

#include <stddef.h>
#include <stdint.h>

#define KDF_ARGON2_BLOCK_SIZE 1024
#define KDF_ARGON2_QWORDS 128    /* 64-bit words per block */
#define KDF_ARGON2_SYNC_POINTS 4 /* slices per pass (RFC 9106 section 3.4) */
#define KDF_ARGON2_ADDRESSES_IN_BLOCK 128
#define KDF_ARGON2_PREHASH_DIGEST 64
#define KDF_ARGON2_PREHASH_SEED 72 /* H0 || LE32(i) || LE32(lane) */

/* RFC 9106 section 3.2 "y": the type number that enters H0. */
enum kdf_argon2_type { KDF_ARGON2_D = 0, KDF_ARGON2_I = 1, KDF_ARGON2_ID = 2 };

/* One 1 KiB block.  64-byte alignment lets the AVX-512 code use aligned
 * loads and keeps each block on 16 whole cache lines. */
struct kdf_argon2_block {
    _Alignas(64) uint64_t v[KDF_ARGON2_QWORDS];
};

struct kdf_argon2_instance {
    struct kdf_argon2_block *memory; /* lanes * lane_length blocks */
    uint32_t version;                /* 0x10 or 0x13 */
    uint32_t passes;                 /* t */
    uint32_t memory_blocks;          /* m' = 4 * p * floor(m / 4p) */
    uint32_t segment_length;         /* m' / (4p) */
    uint32_t lane_length;            /* m' / p */
    uint32_t lanes;                  /* p */
    uint32_t threads;                /* lane threads actually used */
    enum kdf_argon2_type type;
};

/* Where a segment sits: pass, lane, slice (index is the walker's own).
 * A fill_segment call fills lane_count segments (0 counts as 1) of that
 * slice: lanes lane, lane + lane_step, ..., interleaved to hide memory
 * latency (core/simd/argon2_fill.h). */
struct kdf_argon2_position {
    uint32_t pass;
    uint32_t lane;
    uint32_t slice;
    uint32_t index;
    uint32_t lane_step;
    uint32_t lane_count;
};

/* RFC 9106 section 3.4.2: map J1 onto the blocks that may be referenced.
 * The reference area is every finished block of the lane (same_lane) or
 * of the finished slices of another lane, minus the previous block; J1 is
 * squared and scaled so that recent blocks are likelier.  Static inline:
 * shared by the walker and the kernels' prefetch hint. */
static inline uint32_t
kdf_argon2_index_alpha(const struct kdf_argon2_instance *in, uint32_t pass,
                       uint32_t slice, uint32_t index, uint32_t j1, int same_lane)
{
    uint32_t area, start = 0;
    uint64_t rel;

    if (pass == 0) {
        if (slice == 0)
            area = index - 1; /* only this segment, all in this lane */
        else if (same_lane)
            area = slice * in->segment_length + index - 1;
        else
            area = slice * in->segment_length - (index == 0 ? 1 : 0);
    } else {
        if (same_lane)
            area = in->lane_length - in->segment_length + index - 1;
        else
            area = in->lane_length - in->segment_length - (index == 0 ? 1 : 0);
        /* Later passes start right after the current slice's segment. */
        if (slice != KDF_ARGON2_SYNC_POINTS - 1)
            start = (slice + 1) * in->segment_length;
    }
    rel = j1;
    rel = (rel * rel) >> 32;
    rel = area - 1 - (((uint64_t)area * rel) >> 32);
    /* start < lane_length and rel < lane_length: one conditional subtract
     * is the modulo, without a division on the data-dependent path. */
    rel += start;
    if (rel >= in->lane_length)
        rel -= in->lane_length;
    return (uint32_t)rel;
}

/* The block that J1||J2 = rnd selects for block `index` of a segment. */
static inline const struct kdf_argon2_block *
kdf_argon2_ref_block(const struct kdf_argon2_instance *in,
                     const struct kdf_argon2_position *pos, uint32_t index, uint64_t rnd)
{
    uint32_t ref_lane = in->lanes == 1 ? 0 : (uint32_t)((rnd >> 32) % in->lanes);
    if (pos->pass == 0 && pos->slice == 0)
        ref_lane = pos->lane;
    return &in->memory[(size_t)in->lane_length * ref_lane +
                       kdf_argon2_index_alpha(in, pos->pass, pos->slice, index,
                                              (uint32_t)rnd, ref_lane == pos->lane)];
}

/* Data-dependent addressing (Argon2d, the rest of Argon2id) learns the next
 * reference block only from word 0 of the block being computed, and that
 * block is then needed at once: a DRAM round trip per block.  A kernel that
 * gets a hint (non-NULL) computes word 0 of its output early and prefetches
 * the next reference block while it finishes the rest. */
struct kdf_argon2_hint {
    const struct kdf_argon2_instance *in;
    struct kdf_argon2_position pos; /* pos.index: the NEXT block's index */
};

static inline void
kdf_argon2_prefetch_block(const struct kdf_argon2_block *b)
{
    for (int k = 0; k < KDF_ARGON2_QWORDS; k += 8)
        __builtin_prefetch(&b->v[k], 0, 3);
}

/* tests/unit/hint_probe.c defines this before including a kernel, to see the
 * word each kernel announces; nothing else does. */
#ifndef KDF_ARGON2_HINT_PROBE
#define KDF_ARGON2_HINT_PROBE(h, word0) ((void)0)
#endif

static inline void
kdf_argon2_hint_next(const struct kdf_argon2_hint *h, uint64_t word0)
{
    KDF_ARGON2_HINT_PROBE(h, word0);
    if (h != NULL)
        kdf_argon2_prefetch_block(
            kdf_argon2_ref_block(h->in, &h->pos, h->pos.index, word0));
}

/* Fill one segment; one per ISA, exported from core/simd/argon2_fill_<isa>.c.
 * These are the `fn` of kdf_blamka_impls[] rows. */
typedef void (*kdf_argon2_fill_segment_fn)(const struct kdf_argon2_instance *inst,
                                           struct kdf_argon2_position pos);
/* The compression G of RFC 9106 section 3.5 on one block:
 * next = G(prev, ref) (with_xor 0), or next ^= G(prev, ref) (with_xor 1,
 * version 0x13 passes after the first).  Exported per ISA for the tests,
 * the self-tests and the bench. */
typedef void (*kdf_argon2_fill_block_fn)(const struct kdf_argon2_block *prev,
                                         const struct kdf_argon2_block *ref,
                                         struct kdf_argon2_block *next, int with_xor);

void kdf_argon2_fill_segment_ref(const struct kdf_argon2_instance *inst,
                                 struct kdf_argon2_position pos);
void kdf_argon2_fill_block_ref(const struct kdf_argon2_block *prev,
                               const struct kdf_argon2_block *ref,
                               struct kdf_argon2_block *next, int with_xor);
#define KDF_ARGON2_DECLARE_ISA(isa)                                                      \
    void kdf_argon2_fill_segment_##isa(const struct kdf_argon2_instance *inst,           \
                                       struct kdf_argon2_position pos);                  \
    void kdf_argon2_fill_block_##isa(const struct kdf_argon2_block *prev,                \
                                     const struct kdf_argon2_block *ref,                 \
                                     struct kdf_argon2_block *next, int with_xor)
KDF_ARGON2_DECLARE_ISA(ssse3);
KDF_ARGON2_DECLARE_ISA(avx2);
KDF_ARGON2_DECLARE_ISA(avx512f);
KDF_ARGON2_DECLARE_ISA(neon);

/* Block function of row `index` of kdf_blamka_impls[] (alg_blamka.c),
 * NULL past the end.  For test_simd and the bench. */
kdf_argon2_fill_block_fn kdf_blamka_block_impl(size_t index);
/* The self-test's fold of two fill_block calls on fixed blocks (see
 * alg_blamka.c); exported so that test_simd can pin the constant. */
uint64_t kdf_blamka_kat_fold(kdf_argon2_fill_block_fn fb);

/* ---- alg_argon2.c ---- */

/* Everything one Argon2 call needs (RFC 9106 section 3.1 inputs): what the
 * schemes fill from a parsed hash or a target and the policy, and what the
 * tests and bench/ hand to kdf_argon2_raw() (kdf_testing.h). */
struct kdf_argon2_args {
    enum kdf_argon2_type type;
    uint32_t version, t_cost, m_kib, lanes;
    uint32_t max_threads; /* 0: as many as useful (CPUs online) */
    /* The memory budget a mapped area is taken from (util_memgate.c). */
    uint32_t mem_budget_kib; /* KDF_MEMGATE_AUTO (0), _OFF, or KiB */
    uint32_t mem_wait_ms;
    uint32_t mem_admin; /* held to its uid's share only (kdf_policy's mem_admin) */
    const uint8_t *pw;
    size_t pw_len;
    const uint8_t *salt;
    size_t salt_len;
    const uint8_t *secret;
    size_t secret_len;
    const uint8_t *ad;
    size_t ad_len;
};

/* Bytes of work area Argon2 needs for m_kib KiB and p lanes
 * (m' = 4p * floor(m / 4p) blocks), 0 if the parameters are invalid. */
size_t kdf_argon2_work_size(uint32_t m_kib, uint32_t lanes);

/* Validate, take the memory (work if not NULL, else mapped), run, write the
 * tag, wipe and release.  KDF_RANGE for invalid parameters or a work area
 * that is too small / misaligned, KDF_NOMEM when mapping fails. */
enum kdf_status kdf_argon2_compute(const struct kdf_argon2_args *a, uint8_t *out,
                                   size_t out_len, void *work, size_t work_sz);

#endif /* KDF_ARGON2_CORE_H */
