/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_selftest.c - known-answer self-tests of the FIPS-aligned profile
 * (kdfhash.conf(5), FIPS-ALIGNED PROFILE): SHA-1/256/512, HMAC and PBKDF2
 * through the same dispatched code a login runs, on published vectors.
 * The answers are tests/vectors/selftest.inc's (tests/unit/test_selftest.c
 * checks that both agree); the sources are named in its generator.  Every
 * vector is one or two blocks, or one PBKDF2 iteration: the whole run
 * costs microseconds, so a process may run it before its first use.
 */
#include "kdf_prelude.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

#include "alg_sha.h"
#include "kdf_scheme.h"
#include "kdf_testing.h"

enum { KAT_HASH, KAT_HMAC, KAT_PBKDF2 };

static const struct kdf_kat g_kats[] = {
    /* FIPS 180-4 examples: one block ("abc") and two blocks. */
    {"sha1", KAT_HASH, "abc", 0, NULL, 0, 160, "A9993E364706816ABA3E25717850C26C9CD0D89D"},
    {"sha1", KAT_HASH, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 0, NULL, 0,
     160, "84983E441C3BD26EBAAE4AA1F95129E5E54670F1"},
    {"sha256", KAT_HASH, "abc", 0, NULL, 0, 256,
     "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"},
    {"sha256", KAT_HASH, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 0, NULL, 0,
     256, "248D6A61D20638B8E5C026930C3E6039A33CE45964FF2167F6ECEDD419DB06C1"},
    {"sha512", KAT_HASH, "abc", 0, NULL, 0, 512,
     "DDAF35A193617ABACC417349AE20413112E6FA4E89A97EA20A9EEEE64B55D39A"
     "2192992A274FC1A836BA3C23A3FEEBBD454D4423643CE80E2A9AC94FA54CA49F"},
    {"sha512", KAT_HASH,
     "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmn"
     "opqrsmnopqrstnopqrstu",
     0, NULL, 0, 512,
     "8E959B75DAE313DA8CF4F72814FC143F8F7779C6EB9F7FA17299AEADB6889018"
     "501D289E4900F7E4331B99DEC4B5433AC7D329EEB6DD26545E96E55B874BE909"},
    /* CSRC HMAC examples, key length = block length. */
    {"hmac-sha1", KAT_HMAC, "Sample message for keylen=blocklen", 64, NULL, 0, 160,
     "5FD596EE78D5553C8FF4E72D266DFD192366DA29"},
    {"hmac-sha256", KAT_HMAC, "Sample message for keylen=blocklen", 64, NULL, 0, 256,
     "8BB9A1DB9806F20DF7F77B82138C7914D174D59E13DC4D0169C9057B133E1D62"},
    {"hmac-sha512", KAT_HMAC, "Sample message for keylen=blocklen", 128, NULL, 0, 512,
     "FC25E240658CA785B7A811A8D3F7B4CA48CFA26A8A366BF2CD1F836B05FCB024"
     "BD36853081811D6CEA4216EBAD79DA1CFCB95EA4586B8A0CE356596A55FB1347"},
    /* RFC 7914 section 11 (NIST's ACVP sample set has no SHA2-256 group). */
    {"pbkdf2-sha256", KAT_PBKDF2, "passwd", 0, "73616C74", 1, 512,
     "55AC046E56E3089FEC1691C22544B605F94185216DDE0465E68B9D57C20DACBC"
     "49CA9CCCF179B645991664B39D77EF317C71B845B1E30BD509112041D3A19783"},
    /* NIST ACVP-Server PBKDF-1.0 sample, test case 68: a 173-bit key. */
    {"pbkdf2-sha512", KAT_PBKDF2, "brFIgLVNkYEasr", 0,
     "D0FEC6576F64B22B8A731EDE83D196D45D4A065628BC59", 1, 173,
     "7FBF3455D2661252734E6A13872AFF0DACC544E286C8"},
};

static const char *const g_groups[] = {"sha1",        "sha256",      "sha512",
                                       "hmac-sha1",   "hmac-sha256", "hmac-sha512",
                                       "pbkdf2-sha256", "pbkdf2-sha512", NULL};

/* The group a test hook makes fail (kdf_selftest_force_fail()). */
static const char *volatile g_force;

const struct kdf_kat *
kdf_selftest_kat(size_t i)
{
    return i < KDF_ARRAY_LEN(g_kats) ? &g_kats[i] : NULL;
}

const char *
kdf_selftest_name(size_t i)
{
    return i < KDF_ARRAY_LEN(g_groups) ? g_groups[i] : NULL;
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Hex text into out (at most cap bytes): the byte count, or 0 on junk. */
static size_t
unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = strlen(s);

    if (n % 2 != 0 || n / 2 > cap)
        return 0;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return n / 2;
}

static enum kdf_prim
prim_of(const char *group)
{
    const char *h = strstr(group, "sha");

    return strcmp(h, "sha1") == 0 ? KDF_PRIM_SHA1
           : strcmp(h, "sha256") == 0 ? KDF_PRIM_SHA256
                                      : KDF_PRIM_SHA512;
}

/* The scheme of a PBKDF2 group: the table's row of that name, whose id
 * kdf_pbkdf2() takes. */
static int
scheme_of(const char *group, enum kdf_scheme *out)
{
    struct kdf_scheme_info info;

    for (size_t i = 0; kdf_scheme_info_at(i, &info); i++)
        if (strcmp(info.name, group) == 0) {
            *out = info.id;
            return 1;
        }
    return 0;
}

/* 0 when k gives its answer. */
static int
run_one(const struct kdf_kat *k)
{
    uint8_t want[KDF_SHA_MAX_LEN], got[KDF_SHA_MAX_LEN], key[KDF_SHA_MAX_BLOCK];
    uint8_t salt[KDF_MAX_SALT];
    size_t n = (k->out_bits + 7) / 8, slen = 0;
    const char *force = g_force;
    enum kdf_prim p = prim_of(k->group);
    enum kdf_scheme s;
    enum kdf_status st;
    int bad;

    if (unhex(k->want_hex, want, sizeof want) != n)
        return 1;
    memset(got, 0, sizeof got);
    switch (k->kind) {
    case KAT_HASH:
        st = kdf_sha_digest(p, k->msg, strlen(k->msg), got, sizeof got);
        break;
    case KAT_HMAC:
        for (size_t i = 0; i < k->key_len && i < sizeof key; i++)
            key[i] = (uint8_t)i;
        st = kdf_hmac(p, key, k->key_len, k->msg, strlen(k->msg), got, sizeof got);
        break;
    default:
        slen = unhex(k->salt_hex, salt, sizeof salt);
        st = slen == 0 || !scheme_of(k->group, &s)
                 ? KDF_INTERNAL
                 : kdf_pbkdf2(s, (const uint8_t *)k->msg, strlen(k->msg), salt, slen,
                              k->iterations, got, n);
        break;
    }
    if (k->out_bits % 8 != 0) /* NIST's bit lengths: the low bits are not the key's */
        got[n - 1] &= (uint8_t)(0xFFu << (8 - k->out_bits % 8));
    if (force != NULL && strcmp(force, k->group) == 0)
        got[0] ^= 1;
    bad = st != KDF_OK || kdf_ct_eq(got, want, n) != 0;
    kdf_wipe(got, sizeof got);
    return bad;
}

enum kdf_status
kdf_selftest(const char **failed)
{
    if (failed != NULL)
        *failed = NULL;
    for (size_t i = 0; i < KDF_ARRAY_LEN(g_kats); i++)
        if (run_one(&g_kats[i]) != 0) {
            if (failed != NULL)
                *failed = g_kats[i].group;
            return KDF_INTERNAL;
        }
    return KDF_OK;
}

/* 0: not run yet; 1: passed; 2 + i: failed in g_kats group i.  Two threads
 * that both find 0 both run the tests and store the same answer. */
static atomic_uint g_once;

enum kdf_status
kdf_selftest_once(const char **failed)
{
    unsigned v = atomic_load(&g_once);

    if (v == 0) {
        const char *f = NULL;

        v = 1;
        if (kdf_selftest(&f) != KDF_OK) {
            v = 2;
            for (size_t i = 0; g_groups[i] != NULL; i++)
                if (strcmp(g_groups[i], f) == 0)
                    v = 2 + (unsigned)i;
        }
        atomic_store(&g_once, v);
    }
    if (failed != NULL)
        *failed = v >= 2 ? g_groups[v - 2] : NULL;
    return v == 1 ? KDF_OK : KDF_INTERNAL;
}

void
kdf_selftest_force_fail(const char *group)
{
    g_force = group;
    atomic_store(&g_once, 0);
}

int
kdf_fips_enabled(const char *path)
{
    char c = 0;
    int fd = open(path != NULL ? path : KDF_FIPS_ENABLED_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    if (fd < 0)
        return 0;
    if (read(fd, &c, 1) != 1)
        c = 0;
    close(fd);
    return c == '1';
}

int
kdf_hash_fips_approved(const struct kdf_hash *h)
{
    const struct kdf_scheme_desc *row = h != NULL ? kdf_scheme_of_hash(h) : NULL;

    return row != NULL && row->fips && h->salt_len >= KDF_FIPS_MIN_SALT &&
           h->dk_len >= KDF_FIPS_MIN_LEN;
}

int
kdf_target_fips_approved(const struct kdf_target *t)
{
    const struct kdf_scheme_desc *row = t != NULL ? kdf_scheme_target_row(t) : NULL;

    return row != NULL && row->fips;
}
