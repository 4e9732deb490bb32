/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_parse.c - kdf_parse(), kdf_encode(), kdf_decode_salt/digest.
 *
 * Expected fields and decoded bytes come from the independent
 * implementations that made the strings (python3-bcrypt, argon2-cffi,
 * passlib, hashlib.pbkdf2_hmac, libxcrypt), never from our own code.
 *   - every accepted form with its fields (table `good`)
 *   - tests/unit/malformed.inc: hand-written hostile strings and their status
 *   - 4 KiB strings and the KDF_MAX_HASH_STR boundary, built at run time
 *   - a guard-page sweep: each string ends at a page followed by PROT_NONE
 *     and is parsed whole and in every truncation (libxcrypt badsalt.c)
 *   - a substitution sweep: each byte replaced by 16 representative bytes
 *   - round trip over every committed vector (tests/vectors/, all .inc files)
 */
#ifdef HAVE_CONFIG_H
#include "config.h" /* _GNU_SOURCE: MAP_ANONYMOUS */
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdfhash.h"

struct bad_row {
    const char *s;
    size_t len;
    enum kdf_status st;
};
static const struct bad_row bad[] = {
#include "malformed.inc"
};

#define KDF_VEC(pw, len, hash) hash,
static const char *const vectors[] = {
#include "vectors/bcrypt.inc"
#include "vectors/argon2.inc"
#include "vectors/argon2_argon2cli.inc"
#include "vectors/pbkdf2.inc"
#include "vectors/legacy.inc"
};
#undef KDF_VEC

/* ---- accepted forms and their fields ---- */
struct good_row {
    const char *s;
    enum kdf_scheme scheme;
    enum kdf_format format;
    uint32_t flags;
    char minor;
    uint32_t version, cost, m_kib, lanes, dk_len, salt_len;
    size_t prefix_len; /* legacy */
};
#define ID KDF_SCHEME_ARGON2ID
static const struct good_row good[] = {
    /* bcrypt, python3-bcrypt / passlib; all four minors */
    {"$2b$04$" BC_SALT BC_DIG, KDF_SCHEME_BCRYPT, 0, 0, 'b', 0, 4, 0, 0, 23, 16, 0},
    {"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", KDF_SCHEME_BCRYPT, 0,
     0, 'a', 0, 5, 0, 0, 23, 16, 0},
    {"$2x$31$" BC_SALT BC_DIG, KDF_SCHEME_BCRYPT, 0, 0, 'x', 0, 31, 0, 0, 23, 16, 0},
    {"$2y$10$" BC_SALT BC_DIG, KDF_SCHEME_BCRYPT, 0, 0, 'y', 0, 10, 0, 0, 23, 16, 0},
    /* Argon2, argon2-cffi */
    {A2_PRE A2_PAR "$" A2_SALT "$" A2_TAG, ID, 0, KDF_HF_ARGON2_V_PRESENT, 0, 0x13, 2,
     256, 1, 32, 8, 0},
    {"$argon2i$v=16$m=256,t=2,p=1$c29tZXNhbHQ$/"
     "U3YPXYsSb3q9XxHvc0MLxur+GP960kN9j7emXX8zwY",
     KDF_SCHEME_ARGON2I, 0, KDF_HF_ARGON2_V_PRESENT, 0, 0x10, 2, 256, 1, 32, 8, 0},
    {"$argon2d$v=19$m=64,t=1,p=2$c29tZXNhbHQ$m7hm3g", KDF_SCHEME_ARGON2D, 0,
     KDF_HF_ARGON2_V_PRESENT, 0, 0x13, 1, 64, 2, 4, 8, 0},
    /* no v=: version 0x10, flag clear (reference behaviour) */
    {"$argon2i$m=256,t=2,p=1$c29tZXNhbHQ$/U3YPXYsSb3q9XxHvc0MLxur+GP960kN9j7emXX8zwY",
     KDF_SCHEME_ARGON2I, 0, 0, 0, 0x10, 2, 256, 1, 32, 8, 0},
    /* salt and tag at 64 bytes, parameters at their maxima */
    {"$argon2id$v=19$m=4294967295,t=4294967295,p=16777215$"
     "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUF"
     "BQQ$"
     "QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJ"
     "CQg",
     ID, 0, KDF_HF_ARGON2_V_PRESENT, 0, 0x13, 4294967295u, 4294967295u, 16777215, 64, 64,
     0},
    /* m = 8p exactly; keyid and data (8 and 32 bytes) */
    {A2_PRE "m=32,t=1,p=4,keyid=a2tra2tra2s,data="
            "ZGRkZGRkZGRkZGRkZGRkZGRkZGRkZGRkZGRkZGRkZGQ$" A2_SALT "$YWJjZA",
     ID, 0, KDF_HF_ARGON2_V_PRESENT, 0, 0x13, 1, 32, 4, 4, 8, 0},
    {A2_PRE A2_PAR ",data=ZGRk$" A2_SALT "$" A2_TAG, ID, 0, KDF_HF_ARGON2_V_PRESENT, 0,
     0x13, 2, 256, 1, 32, 8, 0},
    /* PBKDF2 passlib */
    {"$pbkdf2$1000$c2FsdDEyMzQ$ac.EIVVs577SsPxEvD81PC.N2Z8", KDF_SCHEME_PBKDF2_SHA1,
     KDF_FMT_PASSLIB, 0, 0, 0, 1000, 0, 0, 20, 8, 0},
    {"$pbkdf2-sha256$29000$" PL_SALT "$" PL_CHK, KDF_SCHEME_PBKDF2_SHA256,
     KDF_FMT_PASSLIB, 0, 0, 0, 29000, 0, 0, 32, 16, 0},
    {"$pbkdf2-sha512$25000$MDEyMzQ1Njc4OWFiY2RlZg$uxdHU.JH8vyHyz/"
     "DeXpgS7H6Tjz9A.lBWgSoOvvbH2iw"
     "TOWkhoRip9yMdB0AZCvZtIdBg46qUM3yPQkKDTKUSg",
     KDF_SCHEME_PBKDF2_SHA512, KDF_FMT_PASSLIB, 0, 0, 0, 25000, 0, 0, 64, 16, 0},
    /* passlib allows an empty salt */
    {"$pbkdf2-sha256$1000$$JpOWgdGZlaLO.3uQ0T4TQ/CbMPCrvQdBaiO5vDxbNTY",
     KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_PASSLIB, 0, 0, 0, 1000, 0, 0, 32, 0, 0},
    {"$pbkdf2-sha256$4294967295$" PL_SALT "$" PL_CHK, KDF_SCHEME_PBKDF2_SHA256,
     KDF_FMT_PASSLIB, 0, 0, 0, 4294967295u, 0, 0, 32, 16, 0},
    /* PBKDF2 PHC (hashlib.pbkdf2_hmac) */
    {"$pbkdf2-sha256$i=1000,l=32$" PHC_SALT "$" PHC_HASH, KDF_SCHEME_PBKDF2_SHA256,
     KDF_FMT_PHC, KDF_HF_PHC_L_PRESENT, 0, 0, 1000, 0, 0, 32, 16, 0},
    {"$pbkdf2-sha512$i=1000$c2FsdHNhbHRzYWx0c2FsdA$"
     "715rqIr5dXOVPpBhqqsugl037zT5bWJTWYmZtIcK8"
     "hBnisKpwfY7kokvwjDrNHqHhF50Pb7MD6HvkJwiDQw4ww",
     KDF_SCHEME_PBKDF2_SHA512, KDF_FMT_PHC, 0, 0, 0, 1000, 0, 0, 64, 16, 0},
    {"$pbkdf2$i=2,l=20$c2FsdA$6mwBTcctb4zNHtkqzh1B8NjeiVc", KDF_SCHEME_PBKDF2_SHA1,
     KDF_FMT_PHC, KDF_HF_PHC_L_PRESENT, 0, 0, 2, 0, 0, 20, 4, 0},
    /* PHC without l: any 1..64 bytes */
    {"$pbkdf2-sha256$i=7$c2FsdA$YWJjZA", KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_PHC, 0, 0, 0,
     7, 0, 0, 4, 4, 0},
    /* Django (passlib django_pbkdf2_*) */
    {"pbkdf2_sha256$1000$seasalt$" DJ_HASH, KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_DJANGO, 0,
     0, 0, 1000, 0, 0, 32, 7, 0},
    {"pbkdf2_sha1$1000$seasalt$C8KvRfPW529R7JpDHEDOP35Xr0g=", KDF_SCHEME_PBKDF2_SHA1,
     KDF_FMT_DJANGO, 0, 0, 0, 1000, 0, 0, 20, 7, 0},
    {"pbkdf2_sha256$1$a./+-_Z9$" DJ_HASH, KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_DJANGO, 0, 0,
     0, 1, 0, 0, 32, 8, 0},
    /* legacy crypt(3): passlib / libxcrypt outputs */
    {"$6$saltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/"
     "jctKu9YterLp8wwnSq.qc.eoxqOmSuNp2"
     "xS0ktL3nh/",
     KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3},
    {"$5$saltsalt$gOjOtoMpVhru2uyjeJSEc/JaLQWOXMNmlOnj6T4AtC.", KDF_SCHEME_LEGACY, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 3},
    {"$1$saltsalt$qjXMvbEw8oaL.CzflDtaK/", KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     3},
    {"$y$j9T$saltsaltsaltsalt$Uxvkjnhdr/2B6SINV1mXACdXVbd5kc899ms5aqhxMQD",
     KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3},
    {"$gy$j9T$saltsaltsaltsalt$rJwUc/Ira7bf5YaD7oIyqgudtsbNclaiv18Jg66v.j.",
     KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4},
    {"$7$CU..../....saltsaltsaltsalt$ItR7wyQ3EVfzSRCDeC98cuWtl3VF8pvKc06spijEkR3",
     KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3},
    {"$md5$saltsalt$$AtJ19OQz0FYM2k.rKgVnV.", KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 5},
    {"$md5,rounds=5000$saltsalt$$AtJ19OQz0FYM2k.rKgVnV.", KDF_SCHEME_LEGACY, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 5},
    {"$sha1$480$saltsalt$Iyzv72Eblf62eEW1vG1Gyq1Pj5XO", KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 6},
    {"$3$$8846f7eaee8fb117ad06bdd830b7586c", KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     3},
    {"abJnggxhB/yWI", KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"_J9..abcdIPPmXD22F8s", KDF_SCHEME_LEGACY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    /* empty and locked */
    {"", KDF_SCHEME_EMPTY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"!", KDF_SCHEME_LOCKED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"*", KDF_SCHEME_LOCKED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"!!", KDF_SCHEME_LOCKED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"!$2b$04$" BC_SALT BC_DIG, KDF_SCHEME_LOCKED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"*LK*", KDF_SCHEME_LOCKED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"!:\n x", KDF_SCHEME_LOCKED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
};

/* Parse, compare every field, re-encode, compare bytes. */
static void
check_good(const char *s, size_t len, const struct good_row *g)
{
    struct kdf_hash h;
    const char *why = "unset";
    char buf[KDF_MAX_HASH_STR + 1];
    size_t n = 12345;

    assert_int_equal(kdf_parse(s, len, &h, &why), KDF_OK);
    assert_null(why);
    assert_true(h.whole.ptr == s && h.whole.len == len);
    if (g != NULL) {
        assert_int_equal(h.scheme, g->scheme);
        assert_int_equal(h.format, g->format);
        assert_int_equal(h.flags, g->flags);
        assert_int_equal(h.bcrypt_minor, g->minor);
        assert_int_equal(h.version, g->version);
        assert_int_equal(h.cost, g->cost);
        assert_int_equal(h.m_kib, g->m_kib);
        assert_int_equal(h.lanes, g->lanes);
        assert_int_equal(h.dk_len, g->dk_len);
        assert_int_equal(h.salt_len, g->salt_len);
        if (g->scheme == KDF_SCHEME_LEGACY) {
            assert_ptr_equal(h.prefix.ptr, s);
            assert_int_equal(h.prefix.len, g->prefix_len);
        }
    }
    if (h.scheme == KDF_SCHEME_LOCKED && len > KDF_MAX_HASH_STR)
        return;
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_OK);
    assert_int_equal(n, len);
    assert_memory_equal(buf, s, len);
    assert_int_equal(buf[len], '\0');
}

static void
test_good_forms(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        check_good(good[i].s, strlen(good[i].s), &good[i]);
}

static void
test_malformed_table(void **state)
{
    struct kdf_hash h;
    const char *why;

    (void)state;
    assert_true(sizeof bad / sizeof bad[0] >= 150);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* A wrong hand-counted length would show as a missing terminator. */
        assert_int_equal(bad[i].s[bad[i].len], '\0');
        why = NULL;
        h.scheme = KDF_SCHEME_BCRYPT;
        if (kdf_parse(bad[i].s, bad[i].len, &h, &why) != bad[i].st)
            fail_msg("row %zu (%.40s): got %s (%s)", i, bad[i].s,
                     kdf_status_str(kdf_parse(bad[i].s, bad[i].len, &h, &why)),
                     why ? why : "no reason");
        /* a short static reason, never pointing into the input */
        assert_non_null(why);
        assert_true(strlen(why) > 0 && strlen(why) < 64);
        assert_true(why < bad[i].s || why >= bad[i].s + bad[i].len);
        /* a refused parse never looks like an empty (password-less) entry */
        assert_int_not_equal(h.scheme, KDF_SCHEME_EMPTY);
    }
}

/* Heads of the 4 KiB strings: the rest is filled with one character. */
static const char *const long_heads[] = {
    "$2b$04$",
    A2_PRE A2_PAR "$",
    "$6$",
    "",
    "$pbkdf2-sha256$29000$",
    "$pbkdf2-sha256$i=1000$",
    "pbkdf2_sha256$1000$",
    "_",
    "$argon2id$v=19$m=",
};

/* 4 KiB strings and the KDF_MAX_HASH_STR boundary. */
static void
test_long_strings(void **state)
{
    char *s = malloc(4097);
    struct kdf_hash h;
    const char *why;
    char buf[16];
    size_t n;

    (void)state;
    assert_non_null(s);
    for (size_t i = 0; i < sizeof long_heads / sizeof long_heads[0]; i++) {
        size_t hl = strlen(long_heads[i]);
        memcpy(s, long_heads[i], hl);
        memset(s + hl, i == 8 ? '9' : 'A', 4096 - hl);
        assert_int_equal(kdf_parse(s, 4096, &h, &why), KDF_MALFORMED);
        assert_non_null(why);
    }
    /* legacy strings up to KDF_MAX_HASH_STR are accepted, one more is not */
    memcpy(s, "$6$", 3);
    memset(s + 3, 'a', KDF_MAX_HASH_STR);
    assert_int_equal(kdf_parse(s, KDF_MAX_HASH_STR, &h, NULL), KDF_OK);
    assert_int_equal(h.scheme, KDF_SCHEME_LEGACY);
    assert_int_equal(kdf_parse(s, KDF_MAX_HASH_STR + 1, &h, NULL), KDF_MALFORMED);
    /* a locked entry is locked whatever its length; encoding it into a
     * small buffer is KDF_RANGE with an empty string */
    s[0] = '!';
    assert_int_equal(kdf_parse(s, 4096, &h, NULL), KDF_OK);
    assert_int_equal(h.scheme, KDF_SCHEME_LOCKED);
    assert_int_equal(h.whole.len, 4096);
    buf[0] = 'x';
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_RANGE);
    assert_int_equal(buf[0], '\0');
    free(s);
}

/* ---- guard pages ---- */
static uint8_t *guard_map;
static size_t guard_page, guard_data; /* data bytes before the PROT_NONE page */

static int
guard_setup(void **state)
{
    (void)state;
    guard_page = (size_t)sysconf(_SC_PAGESIZE);
    guard_data = 2 * guard_page;
    guard_map = mmap(NULL, guard_data + guard_page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard_map == MAP_FAILED)
        return -1;
    return mprotect(guard_map + guard_data, guard_page, PROT_NONE);
}

static int
guard_teardown(void **state)
{
    (void)state;
    return munmap(guard_map, guard_data + guard_page);
}

/* Copy s[0..len) so that its last byte is the last readable byte. */
static const char *
at_edge(const char *s, size_t len)
{
    char *d = (char *)guard_map + guard_data - len;

    memcpy(d, s, len);
    return d;
}

/* Parse s and every prefix of it at the edge; an accepted prefix must
 * round-trip.  Reading s[len] would fault. */
static void
sweep(const char *s, size_t len)
{
    struct kdf_hash h;
    char buf[KDF_MAX_HASH_STR + 1];
    size_t n;
    enum kdf_status st;

    for (size_t k = 0; k <= len; k++) {
        const char *e = at_edge(s, k);
        st = kdf_parse(e, k, &h, NULL);
        assert_true(st == KDF_OK || st == KDF_MALFORMED || st == KDF_UNSUPPORTED);
        if (st == KDF_OK && k <= KDF_MAX_HASH_STR) {
            assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_OK);
            assert_int_equal(n, k);
            assert_memory_equal(buf, e, k);
        }
    }
}

static void
test_guard_page(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct kdf_hash h;
        const char *e = at_edge(bad[i].s, bad[i].len);
        assert_int_equal(kdf_parse(e, bad[i].len, &h, NULL), bad[i].st);
        sweep(bad[i].s, bad[i].len);
    }
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        size_t len = strlen(vectors[i]);
        check_good(at_edge(vectors[i], len), len, NULL);
        sweep(vectors[i], len);
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        sweep(good[i].s, strlen(good[i].s));
}

/* The 4 KiB strings at the edge too, with every truncation. */
static void
test_guard_long(void **state)
{
    char *s = malloc(4096);

    (void)state;
    assert_non_null(s);
    for (size_t i = 0; i < sizeof long_heads / sizeof long_heads[0]; i++) {
        size_t hl = strlen(long_heads[i]);
        memcpy(s, long_heads[i], hl);
        memset(s + hl, i == 8 ? '9' : 'A', 4096 - hl);
        sweep(s, 4096);
    }
    s[0] = '!';
    sweep(s, 4096);
    free(s);
}

/* Guard-page sweep: every byte replaced by each of 16 representative
 * bytes.  Some results are valid hashes; whatever is accepted must
 * round-trip and nothing may read past the edge. */
static void
test_substitutions(void **state)
{
    static const char reps[16] = {':',        '\n',       '$', ',', '=', '\0', ' ', 0x7f,
                                  (char)0x80, (char)0xff, '+', '/', '.', '-',  '0', 'A'};
    char tmp[KDF_MAX_HASH_STR], buf[KDF_MAX_HASH_STR + 1];
    struct kdf_hash h;
    size_t n;

    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t len = strlen(good[i].s);
        for (size_t p = 0; p < len; p++) {
            for (size_t r = 0; r < sizeof reps; r++) {
                memcpy(tmp, good[i].s, len);
                tmp[p] = reps[r];
                const char *e = at_edge(tmp, len);
                enum kdf_status st = kdf_parse(e, len, &h, NULL);
                if (st != KDF_OK) {
                    assert_true(st == KDF_MALFORMED || st == KDF_UNSUPPORTED);
                    continue;
                }
                assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_OK);
                assert_int_equal(n, len);
                assert_memory_equal(buf, e, len);
                /* a bad character never survives outside a locked entry */
                if (h.scheme != KDF_SCHEME_LOCKED)
                    assert_true(tmp[p] != ':' && tmp[p] != '\n' && tmp[p] != '\0' &&
                                tmp[p] != ' ' && tmp[p] != 0x7f && tmp[p] != (char)0x80 &&
                                tmp[p] != (char)0xff);
            }
        }
    }
}

/* ---- round trip and decode over every committed vector ---- */
static void
test_vectors_round_trip(void **state)
{
    uint8_t salt[KDF_MAX_SALT], dig[KDF_MAX_DIGEST];
    struct kdf_hash h;
    size_t n, count = 0;

    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        size_t len = strlen(vectors[i]);
        const char *why = NULL;
        if (kdf_parse(vectors[i], len, &h, &why) != KDF_OK)
            fail_msg("vector %zu (%.40s) refused: %s", i, vectors[i], why);
        check_good(vectors[i], len, NULL);
        if (h.scheme == KDF_SCHEME_LEGACY) {
            assert_int_equal(kdf_decode_salt(&h, salt, sizeof salt, &n), KDF_UNSUPPORTED);
            continue;
        }
        assert_int_equal(kdf_decode_salt(&h, salt, sizeof salt, &n), KDF_OK);
        assert_int_equal(n, h.salt_len);
        assert_int_equal(kdf_decode_digest(&h, dig, sizeof dig, &n), KDF_OK);
        assert_int_equal(n, h.dk_len);
        count++;
    }
    assert_true(count >= 100);
}

/* Decoded bytes against passlib's bcrypt64/ab64 and hashlib. */
static void
test_decode_values(void **state)
{
    static const char bc_salt[] =
        "\x71\xd7\x9f\x82\x18\xa3\x92\x59\xa7\xa2\x9a\xab\xb2\xdb\xaf\xc3";
    static const char bc_dig[] = "\x8a\x31\xbe\x1b\x1f\xb0\x20\x77\x16\x89\xae"
                                 "\x1e\x3c\x6d\x14\xc7\x3a\x62\xb5\xd0\x4b\xd5\xfa";
    static const char pl_dig[] =
        "\x1b\xf3\xbb\x6f\x29\xd9\x06\x28\x34\xc6\x92\x3d\x38\x9d\xbe\xcc"
        "\x7e\x62\x5e\x1f\xef\x20\x0b\x83\x72\x3f\x49\x54\x24\xd4\x6b\x79";
    static const char phc_dig[] =
        "\xf2\x75\xfb\x87\x01\x44\xcc\x80\x7c\x68\xf6\xa3\x25\x36\x0a\xf3"
        "\x07\x87\x41\xce\x4d\x83\x3d\x29\x15\x50\x0a\xbd\x2b\xb8\x8d\x00";
    static const char dj_dig[] =
        "\x60\x85\xa4\xb7\xa3\x35\x24\x55\xeb\x1e\x0e\x6c\xd2\x36\x63\x05"
        "\x27\x3b\x0b\x60\xb3\xe9\x0b\xdc\x85\x22\x74\x87\xc6\x3e\x8b\xb7";
    static const char *const bc[] = {"$2b$04$" BC_SALT BC_DIG};
    /* The same bytes with the spare bits of the last salt and digest
     * characters set ('v' and 'n' instead of 'u' and 'm'): libxcrypt would
     * output the canonical spelling, so this one never verified anywhere and
     * is refused as non-canonical. */
    static const char spare[] = "$2b$04$abcdefghijklmnopqrstuvghE8Ev8uGFaUgY2cNEySvxngrb/Jzdn";
    uint8_t out[64];
    struct kdf_hash h;
    size_t n;

    (void)state;
    assert_int_equal(kdf_parse(spare, 60, &h, NULL), KDF_MALFORMED);
    for (size_t i = 0; i < 1; i++) {
        assert_int_equal(kdf_parse(bc[i], 60, &h, NULL), KDF_OK);
        assert_int_equal(kdf_decode_salt(&h, out, sizeof out, &n), KDF_OK);
        assert_int_equal(n, 16);
        assert_memory_equal(out, bc_salt, 16);
        assert_int_equal(kdf_decode_digest(&h, out, sizeof out, &n), KDF_OK);
        assert_int_equal(n, 23);
        assert_memory_equal(out, bc_dig, 23);
        /* exact capacity works, one less is KDF_RANGE */
        assert_int_equal(kdf_decode_digest(&h, out, 23, &n), KDF_OK);
        assert_int_equal(kdf_decode_digest(&h, out, 22, &n), KDF_RANGE);
    }
    const char *pl = "$pbkdf2-sha256$29000$" PL_SALT "$" PL_CHK;
    assert_int_equal(kdf_parse(pl, strlen(pl), &h, NULL), KDF_OK);
    assert_int_equal(kdf_decode_salt(&h, out, sizeof out, &n), KDF_OK);
    assert_int_equal(n, 16);
    assert_memory_equal(out, "0123456789abcdef", 16);
    assert_int_equal(kdf_decode_digest(&h, out, sizeof out, &n), KDF_OK);
    assert_int_equal(n, 32);
    assert_memory_equal(out, pl_dig, 32);

    const char *phc = "$pbkdf2-sha256$i=1000,l=32$" PHC_SALT "$" PHC_HASH;
    assert_int_equal(kdf_parse(phc, strlen(phc), &h, NULL), KDF_OK);
    assert_int_equal(kdf_decode_salt(&h, out, sizeof out, &n), KDF_OK);
    assert_int_equal(n, 16);
    assert_memory_equal(out, "saltsaltsaltsalt", 16);
    assert_int_equal(kdf_decode_digest(&h, out, sizeof out, &n), KDF_OK);
    assert_memory_equal(out, phc_dig, 32);

    const char *dj = "pbkdf2_sha256$1000$seasalt$" DJ_HASH;
    assert_int_equal(kdf_parse(dj, strlen(dj), &h, NULL), KDF_OK);
    assert_int_equal(kdf_decode_salt(&h, out, sizeof out, &n), KDF_OK);
    assert_int_equal(n, 7);
    assert_memory_equal(out, "seasalt", 7);
    assert_int_equal(kdf_decode_salt(&h, out, 6, &n), KDF_RANGE);
    assert_int_equal(kdf_decode_digest(&h, out, sizeof out, &n), KDF_OK);
    assert_int_equal(n, 32);
    assert_memory_equal(out, dj_dig, 32);

    const char *a2 = A2_PRE A2_PAR "$" A2_SALT "$" A2_TAG;
    assert_int_equal(kdf_parse(a2, strlen(a2), &h, NULL), KDF_OK);
    assert_int_equal(kdf_decode_salt(&h, out, sizeof out, &n), KDF_OK);
    assert_int_equal(n, 8);
    assert_memory_equal(out, "somesalt", 8);

    /* nothing to decode in empty, locked and legacy entries */
    assert_int_equal(kdf_parse("!x", 2, &h, NULL), KDF_OK);
    assert_int_equal(kdf_decode_digest(&h, out, sizeof out, &n), KDF_UNSUPPORTED);
}

/* Argument checks and encode capacities. */
static void
test_api_edges(void **state)
{
    const char *s = A2_PRE A2_PAR "$" A2_SALT "$" A2_TAG;
    size_t len = strlen(s), n;
    char buf[KDF_MAX_HASH_STR + 1];
    struct kdf_hash h;
    const char *why = NULL;

    (void)state;
    assert_int_equal(kdf_parse(s, len, NULL, &why), KDF_RANGE);
    assert_int_equal(kdf_parse(NULL, 5, &h, NULL), KDF_RANGE);
    assert_int_equal(kdf_parse(NULL, 0, &h, NULL), KDF_OK);
    assert_int_equal(h.scheme, KDF_SCHEME_EMPTY);
    assert_int_equal(kdf_encode(&h, buf, 1, &n), KDF_OK);
    assert_int_equal(n, 0);
    assert_int_equal(buf[0], '\0');

    assert_int_equal(kdf_parse(s, len, &h, NULL), KDF_OK);
    /* every capacity below len + 1 is KDF_RANGE and leaves "" */
    for (size_t cap = 0; cap <= len; cap++) {
        memset(buf, 'x', sizeof buf);
        assert_int_equal(kdf_encode(&h, buf, cap, &n), KDF_RANGE);
        if (cap > 0)
            assert_int_equal(buf[0], '\0');
    }
    assert_int_equal(kdf_encode(&h, buf, len + 1, &n), KDF_OK);
    assert_string_equal(buf, s);
    assert_int_equal(kdf_encode(NULL, buf, sizeof buf, &n), KDF_RANGE);
    assert_int_equal(kdf_encode(&h, NULL, 100, &n), KDF_RANGE);

    /* a target-built Argon2 struct (v=0x13, flag clear) still says v=19 */
    h.flags = 0;
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_OK);
    assert_string_equal(buf, s);
    h.scheme = KDF_SCHEME_COUNT;
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_RANGE);
    assert_int_equal(kdf_decode_salt(NULL, (uint8_t *)buf, 8, &n), KDF_RANGE);

    /* structs kdf_parse() never makes are refused, not spelt wrongly */
    const char *bc = "$2b$04$" BC_SALT BC_DIG;
    assert_int_equal(kdf_parse(bc, 60, &h, NULL), KDF_OK);
    h.bcrypt_minor = 'c';
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_RANGE);
    h.bcrypt_minor = 'b';
    h.cost = 100;
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_RANGE);
    h.cost = 4;
    h.salt.ptr = NULL;
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_RANGE);
    assert_int_equal(kdf_decode_salt(&h, (uint8_t *)buf, sizeof buf, &n), KDF_RANGE);
    const char *dj = "pbkdf2_sha256$1000$seasalt$" DJ_HASH;
    assert_int_equal(kdf_parse(dj, strlen(dj), &h, NULL), KDF_OK);
    h.scheme = KDF_SCHEME_PBKDF2_SHA512; /* Django has no SHA-512 hasher */
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_RANGE);
    h.format = (enum kdf_format)7;
    assert_int_equal(kdf_encode(&h, buf, sizeof buf, &n), KDF_RANGE);
    assert_int_equal(kdf_decode_digest(&h, (uint8_t *)buf, sizeof buf, &n),
                     KDF_UNSUPPORTED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_forms),
        cmocka_unit_test(test_malformed_table),
        cmocka_unit_test(test_long_strings),
        cmocka_unit_test_setup_teardown(test_guard_page, guard_setup, guard_teardown),
        cmocka_unit_test_setup_teardown(test_substitutions, guard_setup, guard_teardown),
        cmocka_unit_test_setup_teardown(test_guard_long, guard_setup, guard_teardown),
        cmocka_unit_test(test_vectors_round_trip),
        cmocka_unit_test(test_decode_values),
        cmocka_unit_test(test_api_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
