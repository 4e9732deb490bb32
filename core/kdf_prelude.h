/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf_prelude.h - the first include of every core .c file: config.h, the
 * public types, debug-build asserts, and byte order and rotation helpers
 * for the algorithms.  Declares no core function: whatever includes it
 * depends on nothing else in core.  Not installed.
 */
#ifndef KDF_PRELUDE_H
#define KDF_PRELUDE_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <string.h>

#include "kdfhash.h"
#include "kdfhash_cpu.h"

/* Asserts only in test builds (--enable-debug); untrusted input always gets
 * a status code instead. */
#ifdef KDF_TESTING
#include <assert.h>
#define KDF_ASSERT(x) assert(x)
#else
#define KDF_ASSERT(x) ((void)0)
#endif

#define KDF_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KDF_HIDDEN __attribute__((visibility("hidden")))

/* ---- little/big-endian loads and stores (no alignment assumed) ---- */
static inline uint32_t
kdf_load32_le(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
           ((uint32_t)b[3] << 24);
}
static inline uint64_t
kdf_load64_le(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return (uint64_t)kdf_load32_le(b) | ((uint64_t)kdf_load32_le(b + 4) << 32);
}
static inline void
kdf_store32_le(void *p, uint32_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}
static inline void
kdf_store64_le(void *p, uint64_t v)
{
    kdf_store32_le(p, (uint32_t)v);
    kdf_store32_le((uint8_t *)p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t
kdf_load32_be(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) |
           (uint32_t)b[3];
}
static inline uint64_t
kdf_load64_be(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return ((uint64_t)kdf_load32_be(b) << 32) | (uint64_t)kdf_load32_be(b + 4);
}
static inline void
kdf_store32_be(void *p, uint32_t v)
{
    uint8_t *b = (uint8_t *)p;
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}
static inline void
kdf_store64_be(void *p, uint64_t v)
{
    kdf_store32_be(p, (uint32_t)(v >> 32));
    kdf_store32_be((uint8_t *)p + 4, (uint32_t)v);
}
static inline uint32_t
kdf_rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}
static inline uint32_t
kdf_rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> ((32 - n) & 31));
}
static inline uint64_t
kdf_rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << ((64 - n) & 63));
}

#endif /* KDF_PRELUDE_H */
