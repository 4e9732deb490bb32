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
 * links to (style.md section 5); the only exported symbols are the two
 * suffixed entry points the macro defines.  A kernel given a hint calls
 * kdf_argon2_hint_next(hint, word 0 of its output) as early as it can.
 *
 * blamka_fill_block must read prev and ref completely before it writes
 * next: the address generator calls it with ref == next.
 */
#ifndef KDF_ARGON2_FILL_H
#define KDF_ARGON2_FILL_H

#include "argon2_core.h"

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

static void
argon2_fill_segment(const struct kdf_argon2_instance *in, struct kdf_argon2_position pos)
{
    struct kdf_argon2_block address, input, zero;
    uint32_t start = 0, cur, prev;
    /* Argon2i always, Argon2id in the first two slices of pass 0, use
     * data-independent addressing (RFC 9106 section 3.4.1.3). */
    int indep = in->type == KDF_ARGON2_I ||
                (in->type == KDF_ARGON2_ID && pos.pass == 0 && pos.slice < 2);
    /* Version 0x13 XORs the new block into the old one from pass 1 on
     * (RFC 9106 section 3.2 step 6); 0x10 overwrites. */
    int with_xor = in->version != 0x10 && pos.pass != 0;

    if (indep) {
        memset(&zero, 0, sizeof zero);
        memset(&input, 0, sizeof input);
        input.v[0] = pos.pass;
        input.v[1] = pos.lane;
        input.v[2] = pos.slice;
        input.v[3] = in->memory_blocks;
        input.v[4] = in->passes;
        input.v[5] = (uint64_t)in->type;
    }
    if (pos.pass == 0 && pos.slice == 0) {
        start = 2; /* B[i][0] and B[i][1] come from H' */
        if (indep)
            argon2_next_addresses(&address, &input, &zero);
    }
    cur = pos.lane * in->lane_length + pos.slice * in->segment_length + start;
    prev = (cur % in->lane_length == 0) ? cur + in->lane_length - 1 : cur - 1;

    for (uint32_t i = start; i < in->segment_length; i++, cur++, prev++) {
        struct kdf_argon2_hint hint = {in, pos};
        const struct kdf_argon2_block *ref;
        uint64_t rnd;
        int last = i + 1 == in->segment_length;

        if (cur % in->lane_length == 1)
            prev = cur - 1; /* wrapped from the lane's last block */
        hint.pos.index = i + 1;
        if (indep) {
            if (i % KDF_ARGON2_ADDRESSES_IN_BLOCK == 0)
                argon2_next_addresses(&address, &input, &zero);
            rnd = address.v[i % KDF_ARGON2_ADDRESSES_IN_BLOCK];
            /* The next address is known: prefetch its block now. */
            if (!last && (i + 1) % KDF_ARGON2_ADDRESSES_IN_BLOCK != 0)
                kdf_argon2_prefetch_block(kdf_argon2_ref_block(
                    in, &hint.pos, i + 1, address.v[(i + 1) % KDF_ARGON2_ADDRESSES_IN_BLOCK]));
        } else {
            rnd = in->memory[prev].v[0]; /* Argon2d: J1||J2 from B[i][j-1] */
        }
        ref = kdf_argon2_ref_block(in, &pos, i, rnd);
        /* Only a data-dependent next block needs the kernel's hint. */
        blamka_fill_block(&in->memory[prev], ref, &in->memory[cur], with_xor,
                          (indep || last) ? NULL : &hint);
    }
    if (indep) {
        /* The address stream is derived from public values only, but wipe
         * it anyway: cheap, and one rule for every local block. */
        kdf_wipe(&address, sizeof address);
        kdf_wipe(&input, sizeof input);
    }
}

/* The two exported entry points of one ISA file. */
#define KDF_ARGON2_DEFINE_FILL(isa)                                                \
    void kdf_argon2_fill_segment_##isa(const struct kdf_argon2_instance *inst,    \
                                       struct kdf_argon2_position pos)             \
    {                                                                              \
        argon2_fill_segment(inst, pos);                                            \
    }                                                                              \
    void kdf_argon2_fill_block_##isa(const struct kdf_argon2_block *prev,         \
                                     const struct kdf_argon2_block *ref,          \
                                     struct kdf_argon2_block *next, int with_xor) \
    {                                                                              \
        blamka_fill_block(prev, ref, next, with_xor, NULL);                        \
    }

#endif /* KDF_ARGON2_FILL_H */
