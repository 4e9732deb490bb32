/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_webapp_kat.c - the password hashes that web applications export,
 * through the public API (core/kdfhash.h) alone: passlib's $bcrypt-sha256$
 * (v2 and v1) and Django's bcrypt_sha256$, bcrypt$, argon2$ and scrypt$
 * strings.  The right-password rows are tests/vectors/webapp.inc, made by
 * passlib and by Django's own hasher classes and cross-checked there by a
 * second implementation; nothing expected here is computed by our code.
 *
 * For every row: kdf_parse() accepts it, kdf_encode() gives back the same
 * bytes, the password verifies, a changed one does not.  A password longer
 * than bcrypt's 72 bytes has a partner with the same first 72: a pre-hashed
 * form must refuse the partner (that is what its pre-hash is for), plain
 * bcrypt (Django's bcrypt$) must accept it, as Django does.  Then strings
 * one edit away from a real row, which must not parse or verify.
 */
#include "kdfhash.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct vec {
    const char *row;
    const char *pw;
    size_t len;
    const char *hash;
};
#define KDF_WEBVEC(r, p, l, h) {r, p, l, h},
static const struct vec vecs[] = {
#include "vectors/webapp.inc"
};
#undef KDF_WEBVEC

/* The scheme rows, as the scheme table names them. */
struct row {
    const char *name;
    int cuts_at_72; /* plain bcrypt: bytes past 72 are not read */
};
static const struct row rows[] = {
    {"bcrypt-sha256", 0}, {"django-bcrypt-sha256", 0}, {"django-bcrypt", 1},
    {"django-argon2", 0}, {"django-scrypt", 0},
};

/* Fewest rows a group may have: the generator writes 8 to 13. */
#define MIN_VECS 6
#define PW_CAP 256

static void
flip_last_read(const struct vec *v, int cuts_at_72, char *pw, size_t *len)
{
    /* The last byte the scheme reads: plain bcrypt reads 72. */
    size_t at;

    memcpy(pw, v->pw, v->len);
    *len = v->len;
    if (v->len == 0) {
        pw[0] = 'x';
        *len = 1;
        return;
    }
    at = v->len - 1;
    if (cuts_at_72 && at >= KDF_BCRYPT_MAX_PW)
        at = KDF_BCRYPT_MAX_PW - 1;
    pw[at] = (char)(pw[at] ^ 1);
}

static void
check_row(const struct row *r)
{
    size_t n = 0, partners = 0;

    for (size_t i = 0; i < N_OF(vecs); i++) {
        const struct vec *v = &vecs[i];
        size_t hl, outl = 0, wl = 0;
        struct kdf_hash h;
        const char *why = NULL;
        enum kdf_status st;
        char out[KDF_MAX_HASH_STR + 1], wrong[PW_CAP];

        if (strcmp(v->row, r->name) != 0)
            continue;
        n++;
        hl = strlen(v->hash);
        st = kdf_parse(v->hash, hl, &h, &why);
        if (st != KDF_OK)
            fail_msg("%s row %zu: kdf_parse: %s (%s): %s", r->name, n, kdf_status_str(st),
                     why ? why : "-", v->hash);
        /* The row of its name read it (a row may read several ids of one
         * family: Django's argon2$ is argon2id or argon2i); and it is none
         * of the kinds that verify nothing. */
        if (strcmp(kdf_hash_scheme_name(&h), r->name) != 0)
            fail_msg("%s row %zu: read by the row '%s'", r->name, n, kdf_hash_scheme_name(&h));
        assert_true(h.scheme != KDF_SCHEME_EMPTY && h.scheme != KDF_SCHEME_LOCKED);

        st = kdf_encode(&h, out, sizeof out, &outl);
        if (st != KDF_OK || outl != hl || strcmp(out, v->hash) != 0)
            fail_msg("%s row %zu: kdf_encode: %s, '%s' for '%s'", r->name, n,
                     kdf_status_str(st), st == KDF_OK ? out : "", v->hash);

        st = kdf_verify(v->pw, v->len, v->hash, hl);
        if (st != KDF_OK)
            fail_msg("%s row %zu: right password: %s: %s", r->name, n, kdf_status_str(st),
                     v->hash);

        assert_true(v->len < PW_CAP);
        flip_last_read(v, r->cuts_at_72, wrong, &wl);
        st = kdf_verify(wrong, wl, v->hash, hl);
        if (st != KDF_MISMATCH)
            fail_msg("%s row %zu: changed password: %s: %s", r->name, n,
                     kdf_status_str(st), v->hash);

        /* Past 72 bytes: the partners with the same first 72. */
        if (v->len <= KDF_BCRYPT_MAX_PW)
            continue;
        for (size_t j = 0; j < N_OF(vecs); j++) {
            const struct vec *w = &vecs[j];
            enum kdf_status want = r->cuts_at_72 ? KDF_OK : KDF_MISMATCH;

            if (j == i || strcmp(w->row, r->name) != 0 || w->len <= KDF_BCRYPT_MAX_PW ||
                memcmp(w->pw, v->pw, KDF_BCRYPT_MAX_PW) != 0 ||
                (w->len == v->len && memcmp(w->pw, v->pw, v->len) == 0))
                continue;
            st = kdf_verify(w->pw, w->len, v->hash, hl);
            if (st != want)
                fail_msg("%s row %zu: the partner sharing 72 bytes: %s, want %s: %s",
                         r->name, n, kdf_status_str(st), kdf_status_str(want), v->hash);
            partners++;
        }
    }
    printf("# %s: %zu rows parse, encode back, verify and refuse a changed password; "
           "%zu partner checks past 72 bytes\n",
           r->name, n, partners);
    assert_true(n >= MIN_VECS);
    /* Every group holds at least one pair past 72 bytes (webapp.inc's rule). */
    assert_true(partners >= 2);
}

/* The row is in the scheme table under its name, so accept lists and
 * reports can name it. */
static void
check_listed(const struct row *r)
{
    for (size_t i = 0; kdf_scheme_at(i, NULL) != NULL; i++)
        if (strcmp(kdf_scheme_at(i, NULL), r->name) == 0)
            return;
    fail_msg("%s: not in the scheme table (kdf_scheme_at)", r->name);
}

static void
test_row(void **state)
{
    const struct row *r = *state;

    check_row(r);
    check_listed(r);
}

/* ---- one edit away from a real row ---- */

static const struct {
    const char *row, *what, *s;
} bad[] = {
    /* bcrypt-sha256 */
    {"bcrypt-sha256", "unknown version v=3",
     "$bcrypt-sha256$v=3,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS"},
    {"bcrypt-sha256", "v=1 in the v2 syntax",
     "$bcrypt-sha256$v=1,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS"},
    {"bcrypt-sha256", "version with a leading zero (passlib reads it as 2)",
     "$bcrypt-sha256$v=02,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck"
     "1Dr.4lS"},
    {"bcrypt-sha256", "v2 allows only t=2b",
     "$bcrypt-sha256$v=2,t=2a,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS"},
    {"bcrypt-sha256", "t=2y",
     "$bcrypt-sha256$v=2,t=2y,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS"},
    {"bcrypt-sha256", "cost with a leading zero",
     "$bcrypt-sha256$v=2,t=2b,r=05$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck"
     "1Dr.4lS"},
    {"bcrypt-sha256", "cost below 4",
     "$bcrypt-sha256$v=2,t=2b,r=3$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS"},
    {"bcrypt-sha256", "cost above 31",
     "$bcrypt-sha256$v=2,t=2b,r=32$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck"
     "1Dr.4lS"},
    {"bcrypt-sha256", "no v=",
     "$bcrypt-sha256$t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1Dr.4"
     "lS"},
    {"bcrypt-sha256", "fields out of order",
     "$bcrypt-sha256$v=2,r=5,t=2b$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS"},
    {"bcrypt-sha256", "no digest (a setting, not a hash)",
     "$bcrypt-sha256$v=2,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie"},
    {"bcrypt-sha256", "digest one character short",
     "$bcrypt-sha256$v=2,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4l"},
    {"bcrypt-sha256", "trailing $",
     "$bcrypt-sha256$v=2,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS$"},
    {"bcrypt-sha256", "digest character outside bcrypt's base64",
     "$bcrypt-sha256$v=2,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.+lS"},
    {"bcrypt-sha256", "salt padding bits set (passlib repairs them)",
     "$bcrypt-sha256$v=2,t=2b,r=5$5NC0sO6MEra/eWbd1bmfif$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lS"},
    {"bcrypt-sha256", "digest padding bits set (passlib repairs them)",
     "$bcrypt-sha256$v=2,t=2b,r=5$5NC0sO6MEra/eWbd1bmfie$ccI/0YGjQN5baHEDDuyAW0ck1"
     "Dr.4lT"},
    {"bcrypt-sha256", "v1 allows 2a and 2b only",
     "$bcrypt-sha256$2y,4$U1jrqAWZdhBswueRWaTJve$lbaHrj/g8QAMSQHPIj61Gv0.AojBMAe"},
    {"bcrypt-sha256", "v1 with 2x",
     "$bcrypt-sha256$2x,4$U1jrqAWZdhBswueRWaTJve$lbaHrj/g8QAMSQHPIj61Gv0.AojBMAe"},
    {"bcrypt-sha256", "v1 cost with a leading zero",
     "$bcrypt-sha256$2b,04$U1jrqAWZdhBswueRWaTJve$lbaHrj/g8QAMSQHPIj61Gv0.AojBMAe"},
    {"bcrypt-sha256", "v1 cost below 4",
     "$bcrypt-sha256$2b,3$U1jrqAWZdhBswueRWaTJve$lbaHrj/g8QAMSQHPIj61Gv0.AojBMAe"},
    {"bcrypt-sha256", "v1 without the comma",
     "$bcrypt-sha256$2b4$U1jrqAWZdhBswueRWaTJve$lbaHrj/g8QAMSQHPIj61Gv0.AojBMAe"},
    {"bcrypt-sha256", "v1 digest one character short",
     "$bcrypt-sha256$2b,4$U1jrqAWZdhBswueRWaTJve$lbaHrj/g8QAMSQHPIj61Gv0.AojBMA"},
    /* django-bcrypt-sha256 */
    {"django-bcrypt-sha256", "no empty field",
     "bcrypt_sha256$2b$05$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    {"django-bcrypt-sha256", "$2x$ (python3-bcrypt refuses it)",
     "bcrypt_sha256$$2x$05$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    {"django-bcrypt-sha256", "unknown minor",
     "bcrypt_sha256$$2c$05$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    {"django-bcrypt-sha256", "cost of one digit",
     "bcrypt_sha256$$2b$5$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    {"django-bcrypt-sha256", "cost below 4",
     "bcrypt_sha256$$2b$03$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    {"django-bcrypt-sha256", "cost above 31",
     "bcrypt_sha256$$2b$32$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    {"django-bcrypt-sha256", "digest one character short",
     "bcrypt_sha256$$2b$05$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJ"},
    {"django-bcrypt-sha256", "salt character outside bcrypt's base64",
     "bcrypt_sha256$$2b$05$Zx1l!MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    {"django-bcrypt-sha256", "trailing $",
     "bcrypt_sha256$$2b$05$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy$"},
    {"django-bcrypt-sha256", "hyphen for underscore",
     "bcrypt-sha256$$2b$05$Zx1l8MSciZHxhLT0adh70.48wHXJ9G7kRF2qOagVmeQPnoyePFWJy"},
    /* django-bcrypt */
    {"django-bcrypt", "no empty field",
     "bcrypt$2b$05$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO"},
    {"django-bcrypt", "$2x$ (python3-bcrypt refuses it)",
     "bcrypt$$2x$05$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO"},
    {"django-bcrypt", "cost of one digit",
     "bcrypt$$2b$5$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO"},
    {"django-bcrypt", "cost below 4",
     "bcrypt$$2b$03$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO"},
    {"django-bcrypt", "cost above 31",
     "bcrypt$$2b$32$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO"},
    {"django-bcrypt", "digest one character short",
     "bcrypt$$2b$05$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQP"},
    {"django-bcrypt", "salt character outside bcrypt's base64",
     "bcrypt$$2b$05$sObZ!qi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO"},
    {"django-bcrypt", "trailing $",
     "bcrypt$$2b$05$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO$"},
    {"django-bcrypt", "two empty fields",
     "bcrypt$$$2b$05$sObZBqi58jG9VhAwxO.j5uDpzJ6s9kfvD8RdekCF90Ou6TRmgIQPO"},
    /* django-argon2 */
    {"django-argon2", "unknown type",
     "argon2$argon2x$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4c"
     "YVg"},
    {"django-argon2", "unknown version",
     "argon2$argon2id$v=20$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4"
     "cYVg"},
    {"django-argon2", "version with a leading zero",
     "argon2$argon2id$v=019$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU"
     "4cYVg"},
    {"django-argon2", "t=0",
     "argon2$argon2id$v=19$m=128,t=0,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4"
     "cYVg"},
    {"django-argon2", "m below 8 p",
     "argon2$argon2id$v=19$m=4,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4cY"
     "Vg"},
    {"django-argon2", "p=0",
     "argon2$argon2id$v=19$m=128,t=2,p=0$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4"
     "cYVg"},
    {"django-argon2", "m with a leading zero",
     "argon2$argon2id$v=19$m=0128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU"
     "4cYVg"},
    {"django-argon2", "fields out of order",
     "argon2$argon2id$v=19$t=2,m=128,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4"
     "cYVg"},
    {"django-argon2", "no tag",
     "argon2$argon2id$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ"},
    {"django-argon2", "no $ after argon2",
     "argon2argon2id$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4c"
     "YVg"},
    {"django-argon2", "an empty field after argon2",
     "argon2$$argon2id$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU"
     "4cYVg"},
    {"django-argon2", "salt character outside base64",
     "argon2$argon2id$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWd!$5FGxU3LxWfyavphBU4"
     "cYVg"},
    {"django-argon2", "padded salt",
     "argon2$argon2id$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ==$5FGxU3LxWfyavphB"
     "U4cYVg"},
    {"django-argon2", "padded tag",
     "argon2$argon2id$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4"
     "cYVg=="},
    {"django-argon2", "trailing $",
     "argon2$argon2id$v=19$m=128,t=2,p=1$TFd0ejZ5ZFJlNlVSTEtWdQ$5FGxU3LxWfyavphBU4"
     "cYVg$"},
    /* django-scrypt */
    {"django-scrypt", "N not a power of two",
     "scrypt$1000$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT"
     "8HqrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "N=1",
     "scrypt$1$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8Hq"
     "rvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "N=0",
     "scrypt$0$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8Hq"
     "rvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "N with a leading zero",
     "scrypt$064$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8"
     "HqrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "N >= 2^(16 r) with r=1 (RFC 7914 section 2)",
     "scrypt$65536$tWdCpTWCknCpGiaVkf0zVU$1$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqr"
     "T8HqrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "N past 64 bits",
     "scrypt$18446744073709551616$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjI"
     "dLOzTZbdmHcTUqrT8HqrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "r=0",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$0$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8H"
     "qrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "p=0",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$8$0$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8H"
     "qrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "r with a leading zero",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$08$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8"
     "HqrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "empty salt",
     "scrypt$64$$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8HqrvepiS6ORhRRd/VCh/QjQ"
     "5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "no hash",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$8$1"},
    {"django-scrypt", "hash without its padding",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8H"
     "qrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA"},
    {"django-scrypt", "a 63-byte hash",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8H"
     "qrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2b"},
    {"django-scrypt", "hash character outside base64",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW!pSvCTMHzjIdLOzTZbdmHcTUqrT8H"
     "qrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
    {"django-scrypt", "trailing $",
     "scrypt$64$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8H"
     "qrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA==$"},
    {"django-scrypt", "a leading $",
     "$scrypt$64$tWdCpTWCknCpGiaVkf0zVU$8$1$9v7/WUSSaW0pSvCTMHzjIdLOzTZbdmHcTUqrT8"
     "HqrvepiS6ORhRRd/VCh/QjQ5gDhlDcwDcT2rNPSqDrgu2bqA=="},
};

/* Every variant above is one edit of a row whose password is this: the
 * ones whose only fault is their spelling (padding bits, leading zeros)
 * would verify in a lenient reader, so verifying must refuse them too. */
#define BAD_BASE_PW "password"

static void
test_malformed(void **state)
{
    size_t per_row[N_OF(rows)] = {0};
    (void)state;

    for (size_t i = 0; i < N_OF(bad); i++) {
        struct kdf_hash h;
        const char *why = NULL;
        size_t len = strlen(bad[i].s);
        enum kdf_status st = kdf_parse(bad[i].s, len, &h, &why);

        if (st == KDF_OK)
            fail_msg("%s, %s: parses: %s", bad[i].row, bad[i].what, bad[i].s);
        st = kdf_verify(BAD_BASE_PW, strlen(BAD_BASE_PW), bad[i].s, len);
        if (st == KDF_OK)
            fail_msg("%s, %s: verifies: %s", bad[i].row, bad[i].what, bad[i].s);
        for (size_t k = 0; k < N_OF(rows); k++)
            if (strcmp(rows[k].name, bad[i].row) == 0)
                per_row[k]++;
    }
    for (size_t k = 0; k < N_OF(rows); k++) {
        printf("# %s: %zu malformed variants refused\n", rows[k].name, per_row[k]);
        assert_true(per_row[k] >= 5);
    }
}

int
main(void)
{
    /* One test per row, named after it. */
    struct CMUnitTest tests[N_OF(rows) + 1];

    for (size_t k = 0; k < N_OF(rows); k++) {
        memset(&tests[k], 0, sizeof tests[k]);
        tests[k].name = rows[k].name;
        tests[k].test_func = test_row;
        tests[k].initial_state = (void *)(uintptr_t)&rows[k];
    }
    {
        const struct CMUnitTest t = cmocka_unit_test(test_malformed);
        tests[N_OF(rows)] = t;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
