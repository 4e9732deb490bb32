/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_scrypt.c - scrypt (RFC 7914): PBKDF2-HMAC-SHA256 around ROMix, whose
 * BlockMix is built on the Salsa20/8 core.
 *
 * The N * r * 128 bytes of V are mapped once per call (never malloc: the
 * verify path allocates nothing on the heap), taken first from the
 * machine-wide memory budget (util_memgate.c) like Argon2's area, wiped and
 * unmapped on every return path: V holds password-derived blocks.
 */
#include "kdf_prelude.h"
#include "util_memgate.h"

#include <sys/mman.h>

#include "alg_scrypt.h"
#include "alg_sha.h"

#define R(a, b) (((a) << (b)) | ((a) >> (32 - (b))))

/* RFC 7914 section 3: Salsa20/8 core on 16 little-endian words. */
static void
salsa20_8(uint32_t b[16])
{
    uint32_t x[16];

    memcpy(x, b, sizeof x);
    for (int i = 0; i < 8; i += 2) {
        x[4] ^= R(x[0] + x[12], 7);
        x[8] ^= R(x[4] + x[0], 9);
        x[12] ^= R(x[8] + x[4], 13);
        x[0] ^= R(x[12] + x[8], 18);
        x[9] ^= R(x[5] + x[1], 7);
        x[13] ^= R(x[9] + x[5], 9);
        x[1] ^= R(x[13] + x[9], 13);
        x[5] ^= R(x[1] + x[13], 18);
        x[14] ^= R(x[10] + x[6], 7);
        x[2] ^= R(x[14] + x[10], 9);
        x[6] ^= R(x[2] + x[14], 13);
        x[10] ^= R(x[6] + x[2], 18);
        x[3] ^= R(x[15] + x[11], 7);
        x[7] ^= R(x[3] + x[15], 9);
        x[11] ^= R(x[7] + x[3], 13);
        x[15] ^= R(x[11] + x[7], 18);
        x[1] ^= R(x[0] + x[3], 7);
        x[2] ^= R(x[1] + x[0], 9);
        x[3] ^= R(x[2] + x[1], 13);
        x[0] ^= R(x[3] + x[2], 18);
        x[6] ^= R(x[5] + x[4], 7);
        x[7] ^= R(x[6] + x[5], 9);
        x[4] ^= R(x[7] + x[6], 13);
        x[5] ^= R(x[4] + x[7], 18);
        x[11] ^= R(x[10] + x[9], 7);
        x[8] ^= R(x[11] + x[10], 9);
        x[9] ^= R(x[8] + x[11], 13);
        x[10] ^= R(x[9] + x[8], 18);
        x[12] ^= R(x[15] + x[14], 7);
        x[13] ^= R(x[12] + x[15], 9);
        x[14] ^= R(x[13] + x[12], 13);
        x[15] ^= R(x[14] + x[13], 18);
    }
    for (int i = 0; i < 16; i++)
        b[i] += x[i];
    kdf_wipe(x, sizeof x);
}

/* RFC 7914 section 4: BlockMix of 2r 64-byte blocks, in -> out; the even
 * blocks' results go first, the odd ones' after. */
static void
blockmix(const uint32_t *in, uint32_t *out, size_t r)
{
    uint32_t x[16];

    memcpy(x, in + (2 * r - 1) * 16, sizeof x);
    for (size_t i = 0; i < 2 * r; i++) {
        for (size_t k = 0; k < 16; k++)
            x[k] ^= in[i * 16 + k];
        salsa20_8(x);
        memcpy(out + ((i & 1) * r + i / 2) * 16, x, sizeof x);
    }
    kdf_wipe(x, sizeof x);
}

/* RFC 7914 section 5: ROMix of one 128r-byte block b (little-endian
 * words), with V of n blocks and two scratch blocks. */
static void
romix(uint8_t *b, size_t r, uint64_t n, uint32_t *v, uint32_t *x, uint32_t *y)
{
    size_t words = 32 * r;

    for (size_t k = 0; k < words; k++)
        x[k] = kdf_load32_le(b + 4 * k);
    for (uint64_t i = 0; i < n; i++) {
        memcpy(v + i * words, x, words * 4);
        blockmix(x, y, r);
        memcpy(x, y, words * 4);
    }
    for (uint64_t i = 0; i < n; i++) {
        /* Integerify: the first word of the last 64-byte block, mod N. */
        uint64_t j = x[(2 * r - 1) * 16] & (n - 1);
        for (size_t k = 0; k < words; k++)
            x[k] ^= v[j * words + k];
        blockmix(x, y, r);
        memcpy(x, y, words * 4);
    }
    for (size_t k = 0; k < words; k++)
        kdf_store32_le(b + 4 * k, x[k]);
}

uint64_t
kdf_scrypt_mem_kib(uint32_t ln, uint32_t r, uint32_t p)
{
    /* V (128 r N) + B (128 r p) + two blocks, rounded up. */
    uint64_t bytes = 128u * (uint64_t)r * ((uint64_t)1 << ln) + 128u * (uint64_t)r * p +
                     256u * (uint64_t)r;
    return (bytes + 1023) / 1024;
}

enum kdf_status
kdf_scrypt(const uint8_t *pw, size_t pw_len, const uint8_t *salt, size_t salt_len,
           uint32_t ln, uint32_t r, uint32_t p, uint8_t *out, size_t out_len,
           uint32_t budget_kib, unsigned wait_ms, int mem_admin)
{
    uint64_t n, need;
    size_t blk, span;
    uint8_t *area, *b;
    uint32_t *v, *x, *y;
    struct kdf_md sha256;
    enum kdf_status st;
    int gate = -1;

    /* RFC 7914 section 2: N a power of 2 above 1 and below 2^(16 r);
     * p * r * 128 at most (2^32 - 1) * 32.  ln <= 31 keeps V below
     * 2^38 * r bytes, which the caps bound long before. */
    if (ln < 1 || ln > 31 || r < 1 || p < 1 || (r < 2 && ln >= 16) ||
        (uint64_t)r * p >= (1u << 30) || out_len < 1 || out_len > 64)
        return KDF_RANGE;
    n = (uint64_t)1 << ln;
    blk = 128u * (size_t)r;
    need = kdf_scrypt_mem_kib(ln, r, p);
    if (need > SIZE_MAX / 1024)
        return KDF_NOMEM;
    span = (size_t)need * 1024;
    st = kdf_memgate_take(need, budget_kib, wait_ms, mem_admin, &gate);
    if (st != KDF_OK)
        return st;
    area = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED) {
        kdf_memgate_give(gate);
        return KDF_NOMEM;
    }
    b = area;
    x = (uint32_t *)(void *)(area + blk * p);
    y = x + 32 * r;
    v = y + 32 * r;
    /* RFC 7914 section 6: PBKDF2-HMAC-SHA256 in, then out. */
    st = kdf_md_bind(&sha256, KDF_PRIM_SHA256);
    if (st == KDF_OK)
        st = kdf_pbkdf2_md(&sha256, pw, pw_len, salt, salt_len, 1, b, blk * p);
    for (uint32_t i = 0; st == KDF_OK && i < p; i++)
        romix(b + blk * i, r, n, v, x, y);
    if (st == KDF_OK)
        st = kdf_pbkdf2_md(&sha256, pw, pw_len, b, blk * p, 1, out, out_len);
    kdf_wipe(area, span);
    (void)munmap(area, span);
    kdf_memgate_give(gate);
    return st;
}
