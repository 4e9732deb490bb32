/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_core.h - the Argon2 instance shared by argon2_core.c, the
 * dispatch rows (argon2_impls.c) and the per-ISA segment fillers
 * (core/simd/argon2_fill_<isa>.c).  Names follow RFC 9106 section 3.
 */
#ifndef KDF_ARGON2_CORE_H
#define KDF_ARGON2_CORE_H

#include <stddef.h>
#include <stdint.h>

#define KDF_ARGON2_BLOCK_SIZE 1024
#define KDF_ARGON2_QWORDS 128 /* 64-bit words per block */
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

/* Where a segment sits: pass, lane, slice (index is the walker's own). */
struct kdf_argon2_position {
    uint32_t pass;
    uint32_t lane;
    uint32_t slice;
    uint32_t index;
};

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
#define KDF_ARGON2_DECLARE_ISA(isa)                                                \
    void kdf_argon2_fill_segment_##isa(const struct kdf_argon2_instance *inst,    \
                                       struct kdf_argon2_position pos);            \
    void kdf_argon2_fill_block_##isa(const struct kdf_argon2_block *prev,         \
                                     const struct kdf_argon2_block *ref,          \
                                     struct kdf_argon2_block *next, int with_xor)
KDF_ARGON2_DECLARE_ISA(ssse3);
KDF_ARGON2_DECLARE_ISA(avx2);
KDF_ARGON2_DECLARE_ISA(avx512f);
KDF_ARGON2_DECLARE_ISA(neon);

/* Block function of row `index` of kdf_blamka_impls[] (argon2_impls.c),
 * NULL past the end.  For test_simd and the bench. */
kdf_argon2_fill_block_fn kdf_blamka_block_impl(size_t index);
/* The self-test's fold of two fill_block calls on fixed blocks (see
 * argon2_impls.c); exported so that test_simd can pin the constant. */
uint64_t kdf_blamka_kat_fold(kdf_argon2_fill_block_fn fb);

/* ---- argon2_core.c ---- */

/* Everything one Argon2 call needs (RFC 9106 section 3.1 inputs). */
struct kdf_argon2_args {
    enum kdf_argon2_type type;
    uint32_t version, t_cost, m_kib, lanes;
    uint32_t max_threads; /* 0: as many as useful (CPUs online) */
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
