/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_parse.c - libFuzzer target for kdf_parse() and the base64 codecs,
 * built with clang -fsanitize=fuzzer,address,
 * undefined straight from the core sources (tests/local.mk, fuzz section).
 *
 * Properties checked on every input, besides "no crash, no sanitizer
 * report, no read past the input" (libFuzzer hands us a heap buffer of
 * exactly `size` bytes, so ASan sees any read of s[len]):
 *   1. kdf_parse() returns OK, MALFORMED or UNSUPPORTED, with a reason
 *      exactly when it refuses, and that reason lies outside the input.
 *   2. Accepted: kdf_encode() gives the input back byte for byte; parsing
 *      that again gives the same fields; the salt and digest decode to
 *      salt_len and dk_len bytes.
 *   3. Each strict base64 decoder: whatever it accepts re-encodes to the
 *      identical text (canonical), and the decoded length matches
 *      kdf_b64_check().  The raw input encodes and decodes back in each
 *      alphabet.
 *   4. The lenient bcrypt decoder accepts a superset of the strict one and
 *      agrees with it on the bytes.
 * A failed property calls __builtin_trap(), which libFuzzer reports as a
 * crash and saves as an artifact.
 */
#include "kdf_prelude.h"
#include "util_b64.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                         \
    do {                                                                                 \
        if (!(x))                                                                        \
            __builtin_trap();                                                            \
    } while (0)

static void
check_parse(const char *s, size_t len)
{
    struct kdf_hash h, h2;
    const char *why = NULL;
    char buf[KDF_MAX_HASH_STR + 1];
    uint8_t salt[KDF_MAX_SALT], dig[KDF_MAX_DIGEST];
    size_t n;
    enum kdf_status st = kdf_parse(s, len, &h, &why);

    if (st != KDF_OK) {
        CHECK(st == KDF_MALFORMED || st == KDF_UNSUPPORTED);
        CHECK(why != NULL && (why < s || why >= s + len));
        CHECK(h.scheme != KDF_SCHEME_EMPTY);
        return;
    }
    CHECK(why == NULL);
    CHECK(h.whole.ptr == s && h.whole.len == len);
    st = kdf_encode(&h, buf, sizeof buf, &n);
    if (h.scheme == KDF_SCHEME_LOCKED && len > KDF_MAX_HASH_STR) {
        CHECK(st == KDF_RANGE);
        return;
    }
    CHECK(st == KDF_OK && n == len && memcmp(buf, s, len) == 0 && buf[len] == '\0');
    CHECK(kdf_parse(buf, n, &h2, NULL) == KDF_OK);
    CHECK(h2.scheme == h.scheme && h2.format == h.format && h2.flags == h.flags &&
          h2.version == h.version && h2.cost == h.cost && h2.m_kib == h.m_kib &&
          h2.lanes == h.lanes && h2.dk_len == h.dk_len && h2.salt_len == h.salt_len &&
          h2.bcrypt_minor == h.bcrypt_minor);
    switch (h.scheme) {
    case KDF_SCHEME_EMPTY:
    case KDF_SCHEME_LOCKED:
    case KDF_SCHEME_LEGACY:
        CHECK(kdf_decode_salt(&h, salt, sizeof salt, &n) == KDF_UNSUPPORTED);
        CHECK(h.scheme != KDF_SCHEME_EMPTY || len == 0);
        return;
    case KDF_SCHEME_WRAPPED: {
        /* Two hashes of the table, each its own parse; the salt and digest
         * are the outer hash's, decoded through it. */
        struct kdf_hash in, out;
        CHECK(kdf_decode_salt(&h, salt, sizeof salt, &n) == KDF_UNSUPPORTED);
        CHECK(kdf_wrapped_parts(&h, &in, &out) == KDF_OK);
        CHECK(in.scheme != KDF_SCHEME_WRAPPED && out.scheme != KDF_SCHEME_WRAPPED &&
              out.scheme != KDF_SCHEME_LEGACY && in.scheme != KDF_SCHEME_EMPTY &&
              in.scheme != KDF_SCHEME_LOCKED);
        CHECK(in.whole.ptr > s && out.whole.ptr + out.whole.len == s + len);
        CHECK(kdf_decode_salt(&out, salt, sizeof salt, &n) == KDF_OK && n == h.salt_len);
        return;
    }
    default:
        break;
    }
    CHECK(kdf_decode_salt(&h, salt, sizeof salt, &n) == KDF_OK && n == h.salt_len);
    CHECK(kdf_decode_digest(&h, dig, sizeof dig, &n) == KDF_OK && n == h.dk_len);
    CHECK(h.dk_len >= 1 && h.dk_len <= KDF_MAX_DIGEST && h.salt_len <= KDF_MAX_SALT);
}

static void
check_b64(const char *s, size_t len)
{
    static const enum kdf_b64 alphas[] = {KDF_B64_BCRYPT, KDF_B64_STD, KDF_B64_AB64,
                                          KDF_B64_STD_PAD};
    uint8_t dec[1024], dec2[1024];
    char enc[1500];
    size_t n, m, c;

    for (size_t a = 0; a < 4; a++) {
        enum kdf_status st = kdf_b64_decode(alphas[a], s, len, dec, sizeof dec, &n);
        enum kdf_status ck = kdf_b64_check(alphas[a], s, len, &c);
        if (st == KDF_OK) {
            CHECK(ck == KDF_OK && c == n);
            CHECK(kdf_b64_encode(alphas[a], dec, n, enc, sizeof enc, &m) == KDF_OK);
            CHECK(m == len && memcmp(enc, s, len) == 0);
        } else {
            CHECK(st == KDF_MALFORMED || st == KDF_RANGE);
            CHECK(st == KDF_RANGE ? ck == KDF_OK : ck == KDF_MALFORMED);
        }
        if (alphas[a] == KDF_B64_BCRYPT) {
            enum kdf_status ls =
                kdf_b64_bcrypt_decode_lenient(s, len, dec2, sizeof dec2, &m);
            if (st == KDF_OK)
                CHECK(ls == KDF_OK && m == n && memcmp(dec, dec2, n) == 0);
            if (kdf_b64_bcrypt_valid(s, len))
                CHECK(ls == KDF_OK || ls == KDF_RANGE);
            else
                CHECK(ls == KDF_MALFORMED);
        }
        /* raw bytes through the encoder and back */
        if (len <= sizeof dec) {
            CHECK(kdf_b64_encode(alphas[a], (const uint8_t *)s, len, enc, sizeof enc,
                                 &m) == KDF_OK);
            CHECK(m == kdf_b64_encoded_len(alphas[a], len));
            CHECK(kdf_b64_decode(alphas[a], enc, m, dec2, sizeof dec2, &n) == KDF_OK);
            CHECK(n == len && memcmp(dec2, s, len) == 0);
        }
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_parse((const char *)data, size);
    check_b64((const char *)data, size);
    return 0;
}
