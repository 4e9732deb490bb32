/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bcrypt_common.h - helpers shared by tests/unit/test_bcrypt.c (the libxcrypt
 * differential) and tests/unit/test_bcrypt_kat.c (known answers, allocations,
 * threads).  static inline: each test is one translation unit.
 */
#ifndef KDF_TEST_BCRYPT_COMMON_H
#define KDF_TEST_BCRYPT_COMMON_H

#include <stdint.h>
#include <string.h>

#include "kdfhash.h"

/* splitmix64: the tests' own reproducible randomness. */
static inline uint64_t
rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A bcrypt target ($2<minor>$, 16-byte salt, 23-byte digest). */
static inline struct kdf_target
bcrypt_target(char minor, unsigned cost)
{
    struct kdf_target t;
    memset(&t, 0, sizeof t);
    t.scheme = KDF_SCHEME_BCRYPT;
    t.bcrypt_minor = minor;
    t.cost = cost;
    t.salt_len = 16;
    t.dk_len = 23;
    return t;
}

#endif /* KDF_TEST_BCRYPT_COMMON_H */
