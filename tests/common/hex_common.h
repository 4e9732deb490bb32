/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hex_common.h - hex decoding for test vectors (RFC 7693 / RFC 9106 answers
 * are given in hex) and the tests' reproducible pseudo-random generators.
 * Include after <cmocka.h>: a bad vector string fails the test.
 */
#ifndef KDF_TEST_HEX_COMMON_H
#define KDF_TEST_HEX_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Decode the hex string h into out (at most cap bytes); returns the length. */
static inline size_t
unhex(const char *h, uint8_t *out, size_t cap)
{
    size_t n = strlen(h) / 2;
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

/* xorshift64 (Marsaglia 2003): the SHA/PBKDF2 tests' reproducible
 * randomness; each test keeps its own seeded state. */
static inline uint64_t
xorshift64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* splitmix64 (Steele, Lea, Flood 2014): the Argon2 tests' random blocks
 * and parameter sets; each test keeps its own seeded state. */
static inline uint64_t
splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif /* KDF_TEST_HEX_COMMON_H */
