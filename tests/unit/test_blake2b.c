/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_blake2b.c - BLAKE2b (RFC 7693) and H' (RFC 9106 section 3.3).
 *
 * Expected values come from outside this project:
 *  - RFC 7693 Appendix A: BLAKE2b-512("abc");
 *  - RFC 7693 Appendix E: the self-test "grand hash" over output lengths
 *    20/32/48/64, input lengths 0/3/128/129/255/1024, unkeyed and keyed;
 *  - the official BLAKE2 keyed KAT file (testvectors/blake2b-kat.txt: key
 *    00..3f, message 00..(n-1)), rows as quoted by trezor-firmware's
 *    tests, and its incremental-update digests;
 *  - H'^T: RFC 9106 H' written out with Python's hashlib.blake2b (the
 *    generator is in the comment above h_prime_vectors).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hex_common.h"

#include "alg_blake2b.h"

static void
test_rfc7693_abc(void **state)
{
    uint8_t md[64], want[64];
    (void)state;
    unhex("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
          "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
          want, sizeof want);
    assert_int_equal(kdf_blake2b(md, 64, "abc", 3, NULL, 0), 0);
    assert_memory_equal(md, want, 64);
    /* The empty message (BLAKE2 reference KAT, unkeyed). */
    unhex("786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
          "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce",
          want, sizeof want);
    assert_int_equal(kdf_blake2b(md, 64, NULL, 0, NULL, 0), 0);
    assert_memory_equal(md, want, 64);
}

/* RFC 7693 Appendix E: deterministic sequences from a Fibonacci generator. */
static void
selftest_seq(uint8_t *out, size_t len, uint32_t seed)
{
    uint32_t a = 0xDEAD4BADu * seed, b = 1, t;
    for (size_t i = 0; i < len; i++) {
        t = a + b;
        a = b;
        b = t;
        out[i] = (uint8_t)(t >> 24);
    }
}

static void
test_rfc7693_selftest(void **state)
{
    static const uint8_t res[32] = {0xC2, 0x3A, 0x78, 0x00, 0xD9, 0x81, 0x23, 0xBD,
                                    0x10, 0xF5, 0x06, 0xC6, 0x1E, 0x29, 0xDA, 0x56,
                                    0x03, 0xD7, 0x63, 0xB8, 0xBB, 0xAD, 0x2E, 0x73,
                                    0x7F, 0x5E, 0x76, 0x5A, 0x7B, 0xCC, 0xD4, 0x75};
    static const size_t md_len[4] = {20, 32, 48, 64};
    static const size_t in_len[6] = {0, 3, 128, 129, 255, 1024};
    struct kdf_blake2b_state ctx;
    uint8_t in[1024], md[64], key[64];
    (void)state;

    assert_int_equal(kdf_blake2b_init(&ctx, 32, NULL, 0), 0);
    for (int i = 0; i < 4; i++) {
        size_t outlen = md_len[i];
        for (int j = 0; j < 6; j++) {
            size_t inlen = in_len[j];
            selftest_seq(in, inlen, (uint32_t)inlen);
            assert_int_equal(kdf_blake2b(md, outlen, in, inlen, NULL, 0), 0);
            kdf_blake2b_update(&ctx, md, outlen);
            selftest_seq(key, outlen, (uint32_t)outlen);
            assert_int_equal(kdf_blake2b(md, outlen, in, inlen, key, outlen), 0);
            kdf_blake2b_update(&ctx, md, outlen);
        }
    }
    kdf_blake2b_final(&ctx, md);
    assert_memory_equal(md, res, 32);
}

/* blake2b-kat.txt rows: message length -> digest, key 00..3f. */
static const struct {
    size_t len;
    const char *hex;
} keyed_kat[] = {
    {0, "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
        "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"},
    {1, "961f6dd1e4dd30f63901690c512e78e4b45e4742ed197c3c5e45c549fd25f2e4"
        "187b0bc9fe30492b16b0d0bc4ef9b0f34c7003fac09a5ef1532e69430234cebd"},
    {31, "eba51acffb4cea31db4b8d87e9bf7dd48fe97b0253ae67aa580f9ac4a9d941f2"
         "bea518ee286818cc9f633f2a3b9fb68e594b48cdd6d515bf1d52ba6c85a203a7"},
    {33, "5595e05c13a7ec4dc8f41fb70cb50a71bce17c024ff6de7af618d0cc4e9c32d9"
         "570d6d3ea45b86525491030c0d8f2b1836d5778c1ce735c17707df364d054347"},
    {66, "c516541701863f91005f314108ceece3c643e04fc8c42fd2ff556220e616aaa6"
         "a48aeb97a84bad74782e8dff96a1a2fa949339d722edcaa32b57067041df88cc"},
    {97, "31fc79738b8772b3f55cd8178813b3b52d0db5a419d30ba9495c4b9da0219fac"
         "6df8e7c23a811551a62b827f256ecdb8124ac8a6792ccfecc3b3012722e94463"},
};

static void
test_keyed_kat(void **state)
{
    uint8_t key[64], msg[256], md[64], want[64];
    (void)state;
    for (int i = 0; i < 64; i++)
        key[i] = (uint8_t)i;
    for (int i = 0; i < 256; i++)
        msg[i] = (uint8_t)i;
    for (size_t r = 0; r < sizeof keyed_kat / sizeof keyed_kat[0]; r++) {
        unhex(keyed_kat[r].hex, want, sizeof want);
        assert_int_equal(kdf_blake2b(md, 64, msg, keyed_kat[r].len, key, 64), 0);
        assert_memory_equal(md, want, 64);
        /* A flipped key bit must change the digest. */
        key[r] ^= 1;
        assert_int_equal(kdf_blake2b(md, 64, msg, keyed_kat[r].len, key, 64), 0);
        assert_memory_not_equal(md, want, 64);
        key[r] ^= 1;
    }
}

/* Incremental updates of odd sizes: digests after 10, 30, 80, 111, 127
 * and 255 bytes (same KAT file, key 00..3f). */
static void
test_incremental(void **state)
{
    static const struct {
        size_t upto;
        const char *hex;
    } steps[] = {
        {10, "4fe181f54ad63a2983feaaf77d1e7235c2beb17fa328b6d9505bda327df19fc3"
             "7f02c4b6f0368ce23147313a8e5738b5fa2a95b29de1c7f8264eb77b69f585cd"},
        {30, "c6dbc61dec6eaeac81e3d5f755203c8e220551534a0b2fd105a91889945a6385"
             "50204f44093dd998c076205dffad703a0e5cd3c7f438a7e634cd59fededb539e"},
        {80, "fa1549c9796cd4d303dcf452c1fbd5744fd9b9b47003d920b92de34839d07ef2"
             "a29ded68f6fc9e6c45e071a2e48bd50c5084e96b657dd0404045a1ddefe282ed"},
        {111, "2620f687e8625f6a412460b42e2cef67634208ce10a0cbd4dff7044a41b78800"
              "77e9f8dc3b8d1216d3376a21e015b58fb279b521d83f9388c7382c8505590b9b"},
        {127, "76d2d819c92bce55fa8e092ab1bf9b9eab237a25267986cacf2b8ee14d214d73"
              "0dc9a5aa2d7b596e86a1fd8fa0804c77402d2fcd45083688b218b1cdfa0dcbcb"},
        {255, "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e9248"
              "4be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461"},
    };
    uint8_t key[64], msg[256], md[64], want[64];
    (void)state;
    for (int i = 0; i < 64; i++)
        key[i] = (uint8_t)i;
    for (int i = 0; i < 256; i++)
        msg[i] = (uint8_t)i;
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        /* Feed the prefix in the same pieces as the KAT's source, then in
         * single bytes: both must give the digest of the whole prefix. */
        struct kdf_blake2b_state st;
        size_t from = 0;
        assert_int_equal(kdf_blake2b_init(&st, 64, key, 64), 0);
        for (size_t k = 0; k <= s; k++) {
            kdf_blake2b_update(&st, msg + from, steps[k].upto - from);
            from = steps[k].upto;
        }
        kdf_blake2b_final(&st, md);
        unhex(steps[s].hex, want, sizeof want);
        assert_memory_equal(md, want, 64);
        assert_int_equal(kdf_blake2b_init(&st, 64, key, 64), 0);
        for (size_t k = 0; k < steps[s].upto; k++)
            kdf_blake2b_update(&st, msg + k, 1);
        kdf_blake2b_final(&st, md);
        assert_memory_equal(md, want, 64);
    }
}

/* H'^T(X) for X = bytes 0..49, generated with
 *   import hashlib
 *   def hp(T, X):
 *       b = lambda n, d: hashlib.blake2b(d, digest_size=n).digest()
 *       x = T.to_bytes(4, 'little') + X
 *       if T <= 64: return b(T, x)
 *       v = b(64, x); out = v[:32]
 *       while T - len(out) > 64: v = b(64, v); out += v[:32]
 *       return out + b(T - len(out), v)
 * (RFC 9106 section 3.3). */
static const struct {
    size_t t;
    const char *hex;
} h_prime_vectors[] = {
#include "blake2b_hprime.inc"
};

static void
test_h_prime(void **state)
{
    uint8_t x[50], out[256], want[256];
    (void)state;
    for (int i = 0; i < 50; i++)
        x[i] = (uint8_t)i;
    for (size_t r = 0; r < sizeof h_prime_vectors / sizeof h_prime_vectors[0]; r++) {
        size_t t = h_prime_vectors[r].t;
        assert_int_equal(unhex(h_prime_vectors[r].hex, want, sizeof want), t);
        memset(out, 0xa5, sizeof out);
        assert_int_equal(kdf_blake2b_long(out, t, x, sizeof x), 0);
        assert_memory_equal(out, want, t);
        assert_int_equal(out[t], 0xa5); /* nothing written past T */
    }
}

static void
test_bad_lengths(void **state)
{
    struct kdf_blake2b_state st;
    uint8_t md[64], key[65] = {0};
    (void)state;
    assert_int_equal(kdf_blake2b_init(&st, 0, NULL, 0), -1);
    assert_int_equal(kdf_blake2b_init(&st, 65, NULL, 0), -1);
    assert_int_equal(kdf_blake2b_init(&st, 64, key, 65), -1);
    assert_int_equal(kdf_blake2b_init(&st, 64, NULL, 3), -1);
    assert_int_equal(kdf_blake2b(md, 64, NULL, 5, NULL, 0), -1);
    assert_int_equal(kdf_blake2b_long(md, 0, "x", 1), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc7693_abc), cmocka_unit_test(test_rfc7693_selftest),
        cmocka_unit_test(test_keyed_kat),   cmocka_unit_test(test_incremental),
        cmocka_unit_test(test_h_prime),     cmocka_unit_test(test_bad_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
