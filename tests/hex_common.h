/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hex_common.h - hex decoding for test vectors, shared by test_blake2b.c and
 * test_argon2.c (RFC 7693 / RFC 9106 answers are given in hex).  Include
 * after <cmocka.h>: a bad vector string fails the test.
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

#endif /* KDF_TEST_HEX_COMMON_H */
