/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_fill.h - the ONE segment walker of Argon2 (RFC 9106 sections 3.4
 * and 3.4.1), "template by include": every core/simd/argon2_fill_<isa>.c
 * first includes its blamka_<isa>.h, which defines
 *
 *     static inline void blamka_fill_block(const struct kdf_argon2_block *prev,
 *                                          const struct kdf_argon2_block *ref,
 *                                          struct kdf_argon2_block *next,
 *                                          int with_xor,
 *                                          const struct kdf_argon2_hint *hint);
 *
 * on that ISA's vector type, then includes this file, then says
 * KDF_ARGON2_DEFINE_FILL(<isa>).  Everything here is static, so nothing
 * compiled with -mavx512f can become the definition an SSE2-only caller
 * links to; the only exported symbols are the two
 * suffixed entry points the macro defines.  A kernel given a hint calls
 * kdf_argon2_hint_next(hint, word 0 of its output) as early as it can.
 *
 * blamka_fill_block must read prev and ref completely before it writes
 * next: the address generator calls it with ref == next.
 */
#ifndef KDF_ARGON2_FILL_H
#define KDF_ARGON2_FILL_H

#include "alg_argon2.h"

/* RFC 9106 section 3.4.1.2: the next 128 pseudo-random values of Argon2i
 * (and of Argon2id's first half pass) are G(0, G(0, Z)), Z the input block
 * (pass, lane, slice, m', t, y, counter, 0...). */
static inline void
argon2_next_addresses(struct kdf_argon2_block *address, struct kdf_argon2_block *input,
                      const struct kdf_argon2_block *zero)
{
    input->v[6]++;
    blamka_fill_block(zero, input, address, 0, NULL);
    blamka_fill_block(zero, address, address, 0, NULL);
}

/* Lanes interleaved by one thread (see argon2_fill_group). */
#define ARGON2_GROUP 2
/* Prefetch distance of data-independent addressing: a DRAM round trip
 * lasts a few blocks' computation, so the reference block is asked for that
 * many blocks ahead.  Of 1, 2, 4 and 8 ahead, 4 was where argon2i's CPU time
 * stopped falling (kdfhash bench's argon2i row shows what a change does). */
#define ARGON2_AHEAD 4

/* One lane's walk through its segment. */
struct argon2_walk {
    struct kdf_argon2_block address, input; /* data-independent addressing */
    struct kdf_argon2_position pos;
    uint32_t cur, prev;
};

/* One block of one lane: block i of its segment. */
static inline __attribute__((always_inline)) void
argon2_step(const struct kdf_argon2_instance *in, struct argon2_walk *w,
            const struct kdf_argon2_block *zero, uint32_t i, int indep, int with_xor)
{
    struct kdf_argon2_hint hint = {in, w->pos};
    const struct kdf_argon2_block *ref;
    uint64_t rnd;
    int last = i + 1 == in->segment_length;

    if (w->cur % in->lane_length == 1)
        w->prev = w->cur - 1; /* wrapped from the lane's last block */
    hint.pos.index = i + 1;
    if (indep) {
        if (i % KDF_ARGON2_ADDRESSES_IN_BLOCK == 0)
            argon2_next_addresses(&w->address, &w->input, zero);
        rnd = w->address.v[i % KDF_ARGON2_ADDRESSES_IN_BLOCK];
        /* Later addresses are known: prefetch the block ARGON2_AHEAD on,
         * so that its DRAM round trip overlaps the blocks between. */
        if (i + ARGON2_AHEAD < in->segment_length &&
            i % KDF_ARGON2_ADDRESSES_IN_BLOCK + ARGON2_AHEAD <
                KDF_ARGON2_ADDRESSES_IN_BLOCK)
            kdf_argon2_prefetch_block(kdf_argon2_ref_block(
                in, &hint.pos, i + ARGON2_AHEAD,
                w->address.v[(i + ARGON2_AHEAD) % KDF_ARGON2_ADDRESSES_IN_BLOCK]));
    } else {
        rnd = in->memory[w->prev].v[0]; /* J1||J2 from B[i][j-1] */
    }
    ref = kdf_argon2_ref_block(in, &w->pos, i, rnd);
    /* Only a data-dependent next block needs the kernel's hint. */
    blamka_fill_block(&in->memory[w->prev], ref, &in->memory[w->cur], with_xor,
                      (indep || last) ? NULL : &hint);
    w->cur++;
    w->prev++;
}

/* Fill the segments of n <= ARGON2_GROUP lanes of one slice in lockstep.
 * Lanes of a slice are independent (RFC 9106 section 3.4), so the order
 * does not change the result; interleaving lets one lane's reference block
 * (a DRAM round trip, prefetched by the kernel's hint) arrive while the
 * other lanes compute.  Of groups of 1, 2, 4 and 8 lanes on one thread,
 * 2 took the least CPU time (kdfhash bench's argon2id rows show what a
 * change does). */
static void
argon2_fill_group(const struct kdf_argon2_instance *in, struct kdf_argon2_position pos,
                  uint32_t n)
{
    struct argon2_walk w[ARGON2_GROUP];
    struct kdf_argon2_block zero;
    uint32_t start = (pos.pass == 0 && pos.slice == 0) ? 2 : 0; /* B[l][0..1]: H' */
    /* Argon2i always, Argon2id in the first two slices of pass 0, use
     * data-independent addressing (RFC 9106 section 3.4.1.3). */
    int indep = in->type == KDF_ARGON2_I ||
                (in->type == KDF_ARGON2_ID && pos.pass == 0 && pos.slice < 2);
    /* Version 0x13 XORs the new block into the old one from pass 1 on
     * (RFC 9106 section 3.2 step 6); 0x10 overwrites. */
    int with_xor = in->version != 0x10 && pos.pass != 0;
    uint32_t step = pos.lane_step == 0 ? 1 : pos.lane_step;

    if (indep)
        memset(&zero, 0, sizeof zero);
    for (uint32_t g = 0; g < n; g++) {
        w[g].pos = pos;
        w[g].pos.lane = pos.lane + g * step;
        w[g].cur =
            w[g].pos.lane * in->lane_length + pos.slice * in->segment_length + start;
        w[g].prev = (w[g].cur % in->lane_length == 0) ? w[g].cur + in->lane_length - 1
                                                      : w[g].cur - 1;
        if (indep) {
            /* Z = (pass, lane, slice, m', t, y, counter, 0...) */
            memset(&w[g].input, 0, sizeof w[g].input);
            w[g].input.v[0] = pos.pass;
            w[g].input.v[1] = w[g].pos.lane;
            w[g].input.v[2] = pos.slice;
            w[g].input.v[3] = in->memory_blocks;
            w[g].input.v[4] = in->passes;
            w[g].input.v[5] = (uint64_t)in->type;
            if (start != 0) /* the loop below starts past i = 0 */
                argon2_next_addresses(&w[g].address, &w[g].input, &zero);
        }
    }
    for (uint32_t i = start; i < in->segment_length; i++) {
        if (n == 1) {
            argon2_step(in, &w[0], &zero, i, indep, with_xor); /* the p = 1 path */
        } else {
            for (uint32_t g = 0; g < n; g++)
                argon2_step(in, &w[g], &zero, i, indep, with_xor);
        }
    }
    if (indep) {
        /* The address stream is derived from public values only, but wipe
         * it anyway: cheap, and one rule for every local block. */
        kdf_wipe(w, sizeof w);
    }
}

/* pos.lane, pos.lane + step, ... (pos.lane_count lanes, at least one) of
 * slice pos.slice of pass pos.pass, in groups of ARGON2_GROUP. */
static void
argon2_fill_lanes(const struct kdf_argon2_instance *in, struct kdf_argon2_position pos)
{
    uint32_t count = pos.lane_count == 0 ? 1 : pos.lane_count;
    uint32_t step = pos.lane_step == 0 ? 1 : pos.lane_step;

    while (count > 0) {
        uint32_t n = count < ARGON2_GROUP ? count : ARGON2_GROUP;
        argon2_fill_group(in, pos, n);
        pos.lane += n * step;
        count -= n;
    }
}

/* The two exported entry points of one ISA file. */
#define KDF_ARGON2_DEFINE_FILL(isa)                                                      \
    void kdf_argon2_fill_segment_##isa(const struct kdf_argon2_instance *inst,           \
                                       struct kdf_argon2_position pos)                   \
    {                                                                                    \
        argon2_fill_lanes(inst, pos);                                                    \
    }                                                                                    \
    void kdf_argon2_fill_block_##isa(const struct kdf_argon2_block *prev,                \
                                     const struct kdf_argon2_block *ref,                 \
                                     struct kdf_argon2_block *next, int with_xor)        \
    {                                                                                    \
        blamka_fill_block(prev, ref, next, with_xor, NULL);                              \
    }

#endif /* KDF_ARGON2_FILL_H */
