/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_b64.c - the four base64 alphabets of util_b64.c.
 *
 * Expected strings: RFC 4648 section 10 ("f" ... "foobar") and the section 9
 * examples (0x14fb9c03d97e -> "FPucA9l+"), plus bytes that hit '+' and '/',
 * as printed by Python's base64.b64encode (padded and stripped),
 * passlib.utils.binary.ab64_encode and passlib's bcrypt64.encode_bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kdf_prelude.h"
#include "util_b64.h"

struct row {
    const char *bin;
    size_t len;
    const char *pad, *std, *ab64, *bcrypt;
};
static const struct row rows[] = {
    {"", 0, "", "", "", ""},
    {"\x66", 1, "Zg==", "Zg", "Zg", "Xe"},
    {"\x66\x6f", 2, "Zm8=", "Zm8", "Zm8", "Xk6"},
    {"\x66\x6f\x6f", 3, "Zm9v", "Zm9v", "Zm9v", "Xk7t"},
    {"\x66\x6f\x6f\x62", 4, "Zm9vYg==", "Zm9vYg", "Zm9vYg", "Xk7tWe"},
    {"\x66\x6f\x6f\x62\x61", 5, "Zm9vYmE=", "Zm9vYmE", "Zm9vYmE", "Xk7tWkC"},
    {"\x66\x6f\x6f\x62\x61\x72", 6, "Zm9vYmFy", "Zm9vYmFy", "Zm9vYmFy", "Xk7tWkDw"},
    {"\x14\xfb\x9c\x03\xd9\x7e", 6, "FPucA9l+", "FPucA9l+", "FPucA9l.", "DNsa.7j8"},
    {"\x14\xfb\x9c\x03\xd9", 5, "FPucA9k=", "FPucA9k", "FPucA9k", "DNsa.7i"},
    {"\x14\xfb\x9c\x03", 4, "FPucAw==", "FPucAw", "FPucAw", "DNsa.u"},
    {"\x00", 1, "AA==", "AA", "AA", ".."},
    {"\xff\xff\xff", 3, "////", "////", "////", "9999"},
    {"\xfb\xef\xbe\xff", 4, "++++/w==", "++++/w", "..../w", "88889u"},
};

static const char *
text(const struct row *r, enum kdf_b64 a)
{
    return a == KDF_B64_STD_PAD ? r->pad
           : a == KDF_B64_STD   ? r->std
           : a == KDF_B64_AB64  ? r->ab64
                                : r->bcrypt;
}

static const enum kdf_b64 alphas[] = {KDF_B64_BCRYPT, KDF_B64_STD, KDF_B64_AB64,
                                      KDF_B64_STD_PAD};

static void
test_known_answers(void **state)
{
    char enc[32];
    uint8_t dec[32];
    size_t n;

    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        for (size_t a = 0; a < 4; a++) {
            const char *t = text(&rows[i], alphas[a]);
            size_t tl = strlen(t);
            assert_int_equal(kdf_b64_encoded_len(alphas[a], rows[i].len), tl);
            n = 99;
            assert_int_equal(kdf_b64_encode(alphas[a], (const uint8_t *)rows[i].bin,
                                            rows[i].len, enc, sizeof enc, &n),
                             KDF_OK);
            assert_int_equal(n, tl);
            assert_string_equal(enc, t);
            n = 99;
            assert_int_equal(kdf_b64_decode(alphas[a], t, tl, dec, sizeof dec, &n),
                             KDF_OK);
            assert_int_equal(n, rows[i].len);
            assert_memory_equal(dec, rows[i].bin, rows[i].len);
            /* the internal checker agrees on the length */
            assert_int_equal(kdf_b64_check(alphas[a], t, tl, &n), KDF_OK);
            assert_int_equal(n, rows[i].len);
        }
    }
}

/* Strings no encoder can produce: refused by the strict decoders. */
static void
test_non_canonical(void **state)
{
    static const struct {
        enum kdf_b64 a;
        const char *s;
    } bad[] = {
        /* spare bits set: "Zg" is 'f', "Zh" has the low bits 0001 */
        {KDF_B64_STD, "Zh"},
        {KDF_B64_STD, "Zm9"},
        {KDF_B64_AB64, "Zm9vYmF"},
        {KDF_B64_STD_PAD, "Zh=="},
        {
            KDF_B64_STD_PAD,
            "Zm9=",
        },
        {KDF_B64_BCRYPT, "Xf"},
        {KDF_B64_BCRYPT, "Xk7"},
        /* 4k+1 characters */
        {KDF_B64_STD, "Z"},
        {KDF_B64_STD, "Zm9vY"},
        {KDF_B64_BCRYPT, "Xk7tW"},
        /* padding where there is none, or wrong padding */
        {KDF_B64_STD, "Zg=="},
        {KDF_B64_STD, "Zg="},
        {KDF_B64_AB64, "Zm8="},
        {KDF_B64_BCRYPT, "Xe=="},
        {KDF_B64_STD_PAD, "Zg"},
        {KDF_B64_STD_PAD, "Zg="},
        {KDF_B64_STD_PAD, "Zg==="},
        {KDF_B64_STD_PAD, "Z==="},
        {KDF_B64_STD_PAD, "===="},
        {KDF_B64_STD_PAD, "Zm8=Zm8="},
        {KDF_B64_STD_PAD, "Zg==Zm9v"},
        /* another alphabet's characters */
        {KDF_B64_STD, "FPucA9l."},
        {KDF_B64_AB64, "FPucA9l+"},
        {KDF_B64_BCRYPT, "++++"},
        {KDF_B64_BCRYPT, "Xk7-"},
        /* whitespace, NUL, high bytes */
        {KDF_B64_STD, "Zm9v "},
        {KDF_B64_STD, " Zm9v"},
        {KDF_B64_STD, "Zm\n9v"},
        {KDF_B64_STD, "Zm9\xff"},
        {KDF_B64_STD_PAD, "Zm9v\n"},
    };
    uint8_t dec[16];
    size_t n;

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t l = strlen(bad[i].s);
        n = 99;
        if (kdf_b64_decode(bad[i].a, bad[i].s, l, dec, sizeof dec, &n) != KDF_MALFORMED)
            fail_msg("row %zu \"%s\" accepted", i, bad[i].s);
        assert_int_equal(n, 0);
        assert_int_equal(kdf_b64_check(bad[i].a, bad[i].s, l, &n), KDF_MALFORMED);
    }
    /* NUL inside, with an explicit length */
    assert_int_equal(kdf_b64_decode(KDF_B64_STD, "Zm\0v", 4, dec, sizeof dec, &n),
                     KDF_MALFORMED);
}

/* bcrypt's lenient path: spare bits ignored, alphabet and length still
 * enforced; the strict decoder refuses the same strings. */
static void
test_bcrypt_lenient(void **state)
{
    uint8_t a[16], b[16];
    size_t n;

    (void)state;
    assert_int_equal(kdf_b64_bcrypt_decode_lenient("Xk6", 3, a, sizeof a, &n), KDF_OK);
    assert_int_equal(n, 2);
    assert_memory_equal(a, "fo", 2);
    /* 'Xk6' vs 'Xk9': the last char differs only in its 2 spare bits */
    assert_int_equal(kdf_b64_bcrypt_decode_lenient("Xk9", 3, b, sizeof b, &n), KDF_OK);
    assert_memory_equal(a, b, 2);
    assert_int_equal(kdf_b64_decode(KDF_B64_BCRYPT, "Xk9", 3, b, sizeof b, &n),
                     KDF_MALFORMED);
    assert_int_equal(kdf_b64_bcrypt_decode_lenient("Xf", 2, b, sizeof b, &n), KDF_OK);
    assert_int_equal(b[0], 'f');
    assert_true(kdf_b64_bcrypt_valid("Xf", 2));
    assert_false(kdf_b64_bcrypt_valid("Xk7tW", 5));
    assert_false(kdf_b64_bcrypt_valid("Xk+", 3));
    assert_int_equal(kdf_b64_bcrypt_decode_lenient("Xk+", 3, b, sizeof b, &n),
                     KDF_MALFORMED);
    assert_int_equal(kdf_b64_bcrypt_decode_lenient("Xk7t", 4, b, 2, &n), KDF_RANGE);
}

/* Capacities: decode needs exactly the decoded length, encode that plus
 * the NUL; too small is KDF_RANGE and writes no partial string. */
static void
test_caps(void **state)
{
    const uint8_t in[6] = {0x66, 0x6f, 0x6f, 0x62, 0x61, 0x72};
    char enc[16];
    uint8_t dec[8];
    size_t n;

    (void)state;
    for (size_t a = 0; a < 4; a++) {
        size_t need = kdf_b64_encoded_len(alphas[a], 5);
        for (size_t cap = 0; cap <= need; cap++) {
            memset(enc, 'x', sizeof enc);
            n = 99;
            assert_int_equal(kdf_b64_encode(alphas[a], in, 5, enc, cap, &n), KDF_RANGE);
            assert_int_equal(n, 0);
            if (cap > 0)
                assert_int_equal(enc[0], '\0');
        }
        assert_int_equal(kdf_b64_encode(alphas[a], in, 5, enc, need + 1, &n), KDF_OK);
        assert_int_equal(n, need);
        for (size_t cap = 0; cap < 5; cap++)
            assert_int_equal(kdf_b64_decode(alphas[a], enc, need, dec, cap, &n),
                             KDF_RANGE);
        assert_int_equal(kdf_b64_decode(alphas[a], enc, need, dec, 5, &n), KDF_OK);
        assert_memory_equal(dec, in, 5);
    }
    /* bad arguments */
    assert_int_equal(kdf_b64_encode(KDF_B64_STD, NULL, 3, enc, sizeof enc, &n),
                     KDF_RANGE);
    assert_int_equal(kdf_b64_encode(KDF_B64_STD, in, 3, NULL, 10, &n), KDF_RANGE);
    assert_int_equal(kdf_b64_encode((enum kdf_b64)9, in, 3, enc, sizeof enc, &n),
                     KDF_RANGE);
    assert_int_equal(kdf_b64_decode(KDF_B64_STD, NULL, 4, dec, sizeof dec, &n),
                     KDF_RANGE);
    assert_int_equal(kdf_b64_decode((enum kdf_b64)9, "Zm9v", 4, dec, sizeof dec, &n),
                     KDF_RANGE);
    assert_int_equal(kdf_b64_decode(KDF_B64_STD, "", 0, NULL, 0, &n), KDF_OK);
    assert_int_equal(n, 0);
}

/* Byte strings of every length 0..40 round-trip in every alphabet. */
static void
test_round_trip(void **state)
{
    uint8_t in[40], dec[40];
    char enc[64];
    size_t n, m;

    (void)state;
    for (size_t len = 0; len <= sizeof in; len++) {
        for (size_t i = 0; i < len; i++)
            in[i] = (uint8_t)(i * 73 + len * 151 + 7);
        for (size_t a = 0; a < 4; a++) {
            assert_int_equal(kdf_b64_encode(alphas[a], in, len, enc, sizeof enc, &n),
                             KDF_OK);
            assert_int_equal(kdf_b64_decode(alphas[a], enc, n, dec, sizeof dec, &m),
                             KDF_OK);
            assert_int_equal(m, len);
            assert_memory_equal(dec, in, len);
        }
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),  cmocka_unit_test(test_non_canonical),
        cmocka_unit_test(test_bcrypt_lenient), cmocka_unit_test(test_caps),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
