/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hint_probe.c - one BlaMka kernel (core/simd/blamka_<isa>.h) with a probe
 * on its prefetch hint, for tests/unit/test_hint.c.  Built once per ISA with
 * that ISA's flags: -DHINT_ISA=<isa> -DHINT_HEADER='"blamka_<isa>.h"'.
 *
 * A kernel given a hint must announce word 0 of the block it is computing
 * (kdf_argon2_hint_next), once, and as early as it can: that word picks
 * the next data-dependent reference block (RFC 9106 section 3.4.1.1), which
 * is then prefetched.  A wrong word still gives the right tag - only the
 * prefetch goes astray - so the tag tests cannot see it; this can.
 */
#include <stdint.h>

struct kdf_argon2_hint;
static uint64_t probe_word;
static int probe_calls;
#define KDF_ARGON2_HINT_PROBE(h, w) ((h) != NULL ? (probe_word = (w), probe_calls++) : 0)

#include "kdf_prelude.h"

#include HINT_HEADER

#define HP_CAT2(a, b) a##b
#define HP_CAT(a, b) HP_CAT2(a, b)

int HP_CAT(hint_probe_, HINT_ISA)(const struct kdf_argon2_block *prev,
                                  const struct kdf_argon2_block *ref,
                                  struct kdf_argon2_block *next, int with_xor,
                                  uint64_t *word);

/* Fill next from prev and ref with a hint; *word gets the announced word.
 * Returns the number of announcements (must be 1). */
int
HP_CAT(hint_probe_, HINT_ISA)(const struct kdf_argon2_block *prev,
                              const struct kdf_argon2_block *ref,
                              struct kdf_argon2_block *next, int with_xor, uint64_t *word)
{
    static struct kdf_argon2_block area[16];
    /* One lane of 16 blocks, pass 1: any word maps into the area. */
    struct kdf_argon2_instance in = {area, 0x13, 2, 16, 4, 16, 1, 1, KDF_ARGON2_D};
    struct kdf_argon2_hint h = {&in, {1, 0, 1, 2, 1, 1}};

    probe_calls = 0;
    probe_word = 0;
    blamka_fill_block(prev, ref, next, with_xor, &h);
    *word = probe_word;
    return probe_calls;
}
