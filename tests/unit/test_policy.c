/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_policy.c - kdfhash.conf reader, module-argument overrides and the
 * target text (core/api_policy.c).
 *
 * Expected values are the numbers of kdfhash.conf(5) (RFC 9106 section 4,
 * OWASP 2023), written here by hand, never read back
 * from the code under test.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdfhash.h"
#include "kdf_testing.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static char g_tmpdir[200];

/* Field-by-field comparison (struct padding makes memcmp wrong). */
static void
assert_target_eq(const struct kdf_target *a, const struct kdf_target *b)
{
    assert_int_equal(a->scheme, b->scheme);
    assert_int_equal(a->format, b->format);
    assert_int_equal(a->bcrypt_minor, b->bcrypt_minor);
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->cost, b->cost);
    assert_int_equal(a->m_kib, b->m_kib);
    assert_int_equal(a->lanes, b->lanes);
    assert_int_equal(a->salt_len, b->salt_len);
    assert_int_equal(a->dk_len, b->dk_len);
}

static void
assert_policy_eq(const struct kdf_policy *a, const struct kdf_policy *b)
{
    assert_target_eq(&a->target, &b->target);
    /* Every min.* and max.* key at once (an array of uint32_t: no padding). */
    assert_memory_equal(a->bound, b->bound, sizeof a->bound);
    assert_int_equal(a->accept_mask, b->accept_mask);
    assert_int_equal(a->max_password_len, b->max_password_len);
    assert_int_equal(a->max_threads, b->max_threads);
    assert_string_equal(a->xcrypt_only, b->xcrypt_only);
    assert_string_equal(a->admins, b->admins);
    assert_int_equal(a->heavy, b->heavy);
    assert_int_equal(a->migrate, b->migrate);
    assert_int_equal(a->normalize, b->normalize);
}

/* The defaults, as kdfhash.conf(5) and doc/DESIGN.md "Policy" state them. */
static void
test_defaults(void **state)
{
    struct kdf_policy p;

    (void)state;
    memset(&p, 0xA5, sizeof p);
    kdf_policy_default(&p);
    assert_int_equal(p.target.scheme, KDF_SCHEME_ARGON2ID);
    assert_int_equal(p.target.version, 0x13);
    assert_int_equal(p.target.m_kib, 65536);
    assert_int_equal(p.target.cost, 3);
    assert_int_equal(p.target.lanes, 4);
    assert_int_equal(p.target.salt_len, 16);
    assert_int_equal(p.target.dk_len, 32);
    assert_int_equal(kdf_policy_bound_get(&p, "min.bcrypt", 0), 12);
    assert_int_equal(kdf_policy_bound_get(&p, "min.pbkdf2-sha1", 0), 1300000);
    assert_int_equal(kdf_policy_bound_get(&p, "min.pbkdf2-sha256", 0), 600000);
    assert_int_equal(kdf_policy_bound_get(&p, "min.pbkdf2-sha512", 0), 210000);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 0), 19456);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 1), 2);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 2), 1);
    assert_int_equal(p.accept_mask, 0);
    assert_int_equal(kdf_policy_bound_get(&p, "max.bcrypt", 0), 16);
    assert_int_equal(kdf_policy_bound_get(&p, "max.memory-hard", 0), 1048576);
    assert_int_equal(kdf_policy_bound_get(&p, "max.memory-hard", 1), 8);
    assert_int_equal(kdf_policy_bound_get(&p, "max.memory-hard", 2), 16);
    assert_int_equal(kdf_policy_bound_get(&p, "max.pbkdf2", 0), 10000000);
    assert_int_equal(p.max_password_len, 4096);
    assert_int_equal(p.max_threads, 4);
    assert_string_equal(p.xcrypt_only, "root");
    assert_string_equal(p.admins, "root,@sudo,@wheel,@admin");
    assert_int_equal(p.heavy, 4);
    assert_int_equal(p.mem_admin, 0); /* the caller's, never a default */
}

static void
conf_path(char *buf, size_t cap)
{
    const char *top = getenv("top_srcdir");
    snprintf(buf, cap, "%s/packaging/kdfhash.conf", top ? top : TOP_SRCDIR);
}

/* Write text to a fresh file in the temp dir; returns its path. */
static const char *
write_file(const char *name, const char *text, size_t len)
{
    static char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", g_tmpdir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    chmod(path, 0644);
    return path;
}

static enum kdf_status
load_text(const char *text, struct kdf_policy *p, char *err, size_t cap)
{
    const char *path = write_file("t.conf", text, strlen(text));
    kdf_policy_default(p);
    return kdf_policy_load(p, path, 0, err, cap);
}

/* The shipped file changes nothing: its settings are "#key = value" lines,
 * one for every key of the table, each the key's built-in default (the
 * man page, kdfhash.conf(5), is where they are explained). */
static void
test_shipped_conf(void **state)
{
    struct kdf_policy def, p;
    char path[512], err[256], line[1100], text[8192] = "";
    unsigned seen[64] = {0};
    size_t nkeys = 0;
    const char *k;
    FILE *f;

    (void)state;
    conf_path(path, sizeof path);
    kdf_policy_default(&def);
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_OK);
    assert_policy_eq(&p, &def);

    f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f) != NULL) {
        size_t i, klen;

        if (line[0] != '#' || line[1] < 'a' || line[1] > 'z')
            continue; /* commentary is "# ..." */
        klen = strcspn(line + 1, " =");
        for (i = 0; (k = kdf_policy_key_at(i)) != NULL; i++)
            if (strlen(k) == klen && strncmp(line + 1, k, klen) == 0)
                break;
        if (k == NULL)
            fail_msg("shipped conf: '%s' is no key (by its current name)", line);
        assert_true(i < 64);
        seen[i]++;
        assert_true(strlen(text) + strlen(line) < sizeof text);
        strcat(text, line + 1);
    }
    fclose(f);
    for (nkeys = 0; (k = kdf_policy_key_at(nkeys)) != NULL; nkeys++)
        if (seen[nkeys] != 1)
            fail_msg("shipped conf: %u lines '#%s = ...', want 1", seen[nkeys], k);
    assert_true(nkeys >= 20);

    /* Uncommented, they set every key (from a policy unlike the defaults)
     * to its default. */
    kdf_policy_default(&p);
    for (size_t i = 0; (k = kdf_policy_key_at(i)) != NULL; i++)
        for (unsigned part = 0; part < 3; part++) {
            uint32_t *v = kdf_policy_bound(&p, k, part);
            if (v != NULL)
                *v ^= 1;
        }
    p.target.scheme = KDF_SCHEME_BCRYPT;
    p.target.cost = 5;
    p.accept_mask = 0x7;
    p.xcrypt_only[0] = '\0';
    p.admins[0] = '\0';
    p.heavy = 0;
    p.migrate = 1;
    p.normalize = 0;
    memcpy(p.blocklist, "/x", 3);
    p.blocklist_refuse = 1;
    p.max_password_len = 1;
    p.max_threads = 1;
    assert_int_equal(kdf_policy_load(&p, write_file("open.conf", text, strlen(text)), 0, err,
                                     sizeof err),
                     KDF_OK);
    assert_policy_eq(&p, &def);
}

static void
collect_note(void *ctx, const char *msg)
{
    char *buf = ctx;

    strncat(buf, msg, 511 - strlen(buf));
    strncat(buf, "\n", 511 - strlen(buf));
}

/* Every min.* and max.* value has a slot of its own in kdf_policy.bound:
 * two keys in one slot (a row naming a slot another key has) would set
 * each other. */
static void
test_bound_slots(void **state)
{
    struct kdf_policy p;
    const uint32_t *seen[64];
    size_t n = 0;
    const char *k;

    (void)state;
    kdf_policy_default(&p);
    for (size_t i = 0; (k = kdf_policy_key_at(i)) != NULL; i++)
        for (unsigned part = 0; part < 3; part++) {
            const uint32_t *v = kdf_policy_bound(&p, k, part);

            if (v == NULL)
                continue;
            assert_true((const char *)v >= (const char *)p.bound &&
                        (const char *)v < (const char *)p.bound + sizeof p.bound);
            for (size_t j = 0; j < n; j++)
                if (seen[j] == v)
                    fail_msg("%s part %u shares a slot with another key", k, part);
            assert_true(n < 64);
            seen[n++] = v;
        }
    assert_true(n >= 14); /* 8 numbers and two m=,t=,p= keys */
    assert_null(kdf_policy_bound(&p, "min.bcrypt", 1));
    assert_null(kdf_policy_bound(&p, "min.argon2", 3));
    assert_null(kdf_policy_bound(&p, "max.threads", 0)); /* a key of no family */
    assert_null(kdf_policy_bound(&p, "max.nothing", 0));
    assert_int_equal(kdf_policy_bound_get(&p, "max.nothing", 0), UINT32_MAX);
}

/* max.argon2 is the old name of max.memory-hard: the same key, the same
 * policy, from the file and from a module argument, and the noting reader
 * names the line that uses it (kdfhash check-conf prints that). */
static void
test_memhard_alias(void **state)
{
    struct kdf_policy a, b, c;
    char err[256], notes[512] = "";
    const char *path;

    (void)state;
    assert_int_equal(load_text("max.memory-hard = m=262144,t=6,p=8\n", &a, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_bound_get(&a, "max.memory-hard", 0), 262144);
    assert_int_equal(kdf_policy_bound_get(&a, "max.memory-hard", 1), 6);
    assert_int_equal(kdf_policy_bound_get(&a, "max.memory-hard", 2), 8);
    assert_int_equal(kdf_policy_bound_get(&a, "max.argon2", 1), 6);
    assert_int_equal(load_text("max.argon2 = m=262144,t=6,p=8\n", &b, err, sizeof err),
                     KDF_OK);
    assert_policy_eq(&a, &b);
    kdf_policy_default(&c);
    assert_int_equal(kdf_policy_set(&c, "max.argon2", "m=262144,t=6,p=8", err, sizeof err),
                     KDF_OK);
    assert_policy_eq(&a, &c);

    path = write_file("alias.conf", "# x\nmax.argon2 = t=6\nmax.bcrypt = 15\n", 37);
    kdf_policy_default(&b);
    assert_int_equal(kdf_policy_load_noted(&b, path, 0, err, sizeof err, collect_note, notes),
                     KDF_OK);
    assert_non_null(strstr(notes, "alias.conf:2: 'max.argon2' is the old name of "
                                  "'max.memory-hard'"));
    assert_null(strchr(strchr(notes, '\n') + 1, '\n')); /* that line only */
    notes[0] = '\0';
    path = write_file("new.conf", "max.memory-hard = t=6\n", 22);
    assert_int_equal(kdf_policy_load_noted(&b, path, 0, err, sizeof err, collect_note, notes),
                     KDF_OK);
    assert_string_equal(notes, "");
}

/* Every key set through the file, with the value read back. */
static void
test_file_every_key(void **state)
{
    struct kdf_policy p;
    char err[256];
    static const char text[] =
        "# comment\n"
        "\n"
        "   target   =  bcrypt cost=13,minor=a   # trailing comment\n"
        "accept = argon2id, pbkdf2-sha512 argon2i\r\n"
        "min.bcrypt=11\n"
        "min.pbkdf2-sha1 = 1000\n"
        "min.pbkdf2-sha256 = 2000\n"
        "min.pbkdf2-sha512 = 3000\n"
        "min.argon2 = t=5\n"
        "max.bcrypt = 14\n"
        "max.memory-hard = m=262144,p=8\n"
        "max.pbkdf2 = 4294967295\n"
        "max.password = 1024\n"
        "xcrypt-only = root,@wheel  _svc.x-1 ,,\n"
        "admins = @adm, alice\n"
        "heavy = 1000\n"
        "\tmax.threads = 2"; /* no final newline */

    (void)state;
    assert_int_equal(load_text(text, &p, err, sizeof err), KDF_OK);
    assert_int_equal(p.target.scheme, KDF_SCHEME_BCRYPT);
    assert_int_equal(p.target.cost, 13);
    assert_int_equal(p.target.bcrypt_minor, 'a');
    assert_int_equal(p.accept_mask, (1u << KDF_SCHEME_ARGON2ID) |
                                        (1u << KDF_SCHEME_PBKDF2_SHA512) |
                                        (1u << KDF_SCHEME_ARGON2I));
    assert_int_equal(kdf_policy_bound_get(&p, "min.bcrypt", 0), 11);
    assert_int_equal(kdf_policy_bound_get(&p, "min.pbkdf2-sha1", 0), 1000);
    assert_int_equal(kdf_policy_bound_get(&p, "min.pbkdf2-sha256", 0), 2000);
    assert_int_equal(kdf_policy_bound_get(&p, "min.pbkdf2-sha512", 0), 3000);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 0), 19456); /* not by "t=5" */
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 1), 5);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 2), 1);
    assert_int_equal(kdf_policy_bound_get(&p, "max.bcrypt", 0), 14);
    assert_int_equal(kdf_policy_bound_get(&p, "max.memory-hard", 0), 262144);
    /* t untouched by "m=...,p=8" */
    assert_int_equal(kdf_policy_bound_get(&p, "max.memory-hard", 1), 8);
    assert_int_equal(kdf_policy_bound_get(&p, "max.memory-hard", 2), 8);
    assert_int_equal(kdf_policy_bound_get(&p, "max.pbkdf2", 0), 4294967295u);
    assert_int_equal(p.max_password_len, 1024);
    assert_int_equal(p.max_threads, 2);
    /* Stored normalised: one comma between the entries. */
    assert_string_equal(p.xcrypt_only, "root,@wheel,_svc.x-1");
    assert_string_equal(p.admins, "@adm,alice");
    assert_int_equal(p.heavy, 1000);
}

struct bad_file {
    const char *text;
    enum kdf_status st;
    const char *where; /* expected "t.conf:LINE:" suffix of the path */
    const char *why;   /* a substring of the reason */
};

static void
test_file_rejects(void **state)
{
    static const struct bad_file rows[] = {
        {"nosuchkey = 1\n", KDF_MALFORMED, ":1:", "unknown key"},
        {"# c\nmax.bcrypt = 14\nmax.bcrypt = 15\n", KDF_MALFORMED, ":3:", "duplicate"},
        {"max.bcrypt = +14\n", KDF_MALFORMED, ":1:", "decimal"},
        {"max.bcrypt = -1\n", KDF_MALFORMED, ":1:", "decimal"},
        {"max.bcrypt = 014\n", KDF_MALFORMED, ":1:", "decimal"},
        {"max.bcrypt = 14x\n", KDF_MALFORMED, ":1:", "decimal"},
        {"max.bcrypt = 1 4\n", KDF_MALFORMED, ":1:", "decimal"},
        {"max.bcrypt = 32\n", KDF_MALFORMED, ":1:", "range"},
        {"max.bcrypt = 3\n", KDF_MALFORMED, ":1:", "range"},
        {"max.pbkdf2 = 4294967296\n", KDF_MALFORMED, ":1:", "decimal"},
        {"max.pbkdf2 = 99999999999\n", KDF_MALFORMED, ":1:", "decimal"},
        {"max.pbkdf2 = 0\n", KDF_MALFORMED, ":1:", "range"},
        {"max.password = 1048577\n", KDF_MALFORMED, ":1:", "range"},
        {"max.threads = 0\n", KDF_MALFORMED, ":1:", "range"},
        {"max.threads = 257\n", KDF_MALFORMED, ":1:", "range"},
        {"max.password = 0\n", KDF_MALFORMED, ":1:", "range"},
        {"min.bcrypt = 32\n", KDF_MALFORMED, ":1:", "range"},
        {"min.pbkdf2-sha1 = 0\n", KDF_MALFORMED, ":1:", "range"},
        {"min.pbkdf2-sha256 = 6e5\n", KDF_MALFORMED, ":1:", "decimal"},
        {"min.pbkdf2-sha512 = 00\n", KDF_MALFORMED, ":1:", "decimal"},
        {"min.argon2 = m=19456,t=2,p=1,q=1\n", KDF_MALFORMED, ":1:", "m="},
        {"target = argon2id m=65536,t=3,p=4,m=1\n", KDF_MALFORMED, ":1:", "twice"},
        {"target = pbkdf2-sha256 format=xml\n", KDF_MALFORMED, ":1:", "format"},
        {"Target = bcrypt\n", KDF_MALFORMED, ":1:", "unknown key"},
        {"max.bcrypt: 14\n", KDF_MALFORMED, ":1:", "key = value"},
        {"max.memory-hard = m=0\n", KDF_MALFORMED, ":1:", "m"},
        {"max.memory-hard = m=7\n", KDF_MALFORMED, ":1:", "m below"},
        {"max.memory-hard = q=7\n", KDF_MALFORMED, ":1:", "m="},
        {"max.memory-hard = t=1,t=2\n", KDF_MALFORMED, ":1:", "twice"},
        {"max.memory-hard = p=16777216\n", KDF_MALFORMED, ":1:", "2^24"},
        {"min.argon2 = m=19456,,t=2\n", KDF_MALFORMED, ":1:", "m="},
        {"min.argon2 = m=19456,\n", KDF_MALFORMED, ":1:", "m="},
        {"max.bcrypt\n", KDF_MALFORMED, ":1:", "key = value"},
        {"max.bcrypt =\n", KDF_MALFORMED, ":1:", "missing value"},
        {"= 14\n", KDF_MALFORMED, ":1:", "missing key"},
        {"accept = bcrypt legacy\n", KDF_MALFORMED, ":1:", "accept"},
        {"accept = ,\n", KDF_MALFORMED, ":1:", "empty"},
        {"target = balloon\n", KDF_MALFORMED, ":1:", "scheme"},
        {"target = scrypt ln=16,r=1\n", KDF_MALFORMED, ":1:", "RFC 7914"},
        {"target = bcrypt cost=12,cost=13\n", KDF_MALFORMED, ":1:", "twice"},
        {"target = bcrypt cost=3\n", KDF_MALFORMED, ":1:", "4..31"},
        {"target = bcrypt minor=x\n", KDF_MALFORMED, ":1:", "minor"},
        {"target = argon2id v=16\n", KDF_MALFORMED, ":1:", "19"},
        {"target = argon2id m=16,p=4\n", KDF_MALFORMED, ":1:", "8*p"},
        {"target = argon2id i=5\n", KDF_MALFORMED, ":1:", "unknown parameter"},
        {"target = pbkdf2-sha256 len=16\n", KDF_MALFORMED, ":1:", "format=phc"},
        /* Caps are checked after the whole file, against its own caps,
         * and reported on the target's line. */
        {"target = bcrypt cost=17\n", KDF_TOO_COSTLY, ":1:", "max.bcrypt"},
        {"target = bcrypt cost=15\n# x\nmax.bcrypt = 14\n", KDF_TOO_COSTLY, ":1:",
         "max.bcrypt"},
        {"max.memory-hard = m=32768\n", KDF_TOO_COSTLY, ":1:", "max.memory-hard"},
        /* The old name is the same key: both in one file is a duplicate. */
        {"max.argon2 = m=65536\nmax.memory-hard = t=4\n", KDF_MALFORMED, ":2:",
         "duplicate key 'max.memory-hard' (max.argon2 is its old name)"},
        {"max.memory-hard = t=4\nmax.argon2 = t=4\n", KDF_MALFORMED, ":2:", "duplicate"},
        {"target = pbkdf2-sha256 i=10000001\n", KDF_TOO_COSTLY, ":1:", "max.pbkdf2"},
        /* A numeric budget the target does not fit in (every hash at the
         * target would be refused as busy), blamed on max.memory's line:
         * Argon2 m KiB, scrypt 128 N r (+ 128 r p + 256 r) bytes, both in
         * the whole MiB the budget counts in. */
        {"max.memory = 32768\n", KDF_RANGE, ":1:", "max.memory"},
        {"target = argon2id m=65536,t=3,p=4\nmax.memory = 65535\n", KDF_RANGE, ":2:",
         "max.memory"},
        {"max.memory = 1024\n# x\ntarget = argon2id m=2048,t=3,p=1\n", KDF_RANGE, ":1:",
         "max.memory"},
        {"target = scrypt ln=16,r=8,p=1\nmax.memory = 65536\n", KDF_RANGE, ":2:",
         "max.memory"},
        /* A target below the file's own minimums, blamed on the target's
         * line, or on the minimum's when the target is the default. */
        {"target = pbkdf2-sha256 i=1\n", KDF_RANGE, ":1:", "min.pbkdf2-sha256"},
        {"target = pbkdf2-sha1 i=1299999\n", KDF_RANGE, ":1:", "min.pbkdf2-sha1"},
        {"target = argon2id m=8,t=1,p=1\n", KDF_RANGE, ":1:", "min.argon2"},
        {"target = argon2id m=65536,t=1,p=4\n", KDF_RANGE, ":1:", "min.argon2"},
        {"target = bcrypt cost=10\n", KDF_RANGE, ":1:", "min.bcrypt"},
        {"# x\nmin.argon2 = m=131072,t=3,p=1\n", KDF_RANGE, ":2:", "min.argon2"},
        {"target = bcrypt cost=12\nmin.bcrypt = 13\n", KDF_RANGE, ":1:", "min.bcrypt"},
        /* xcrypt-only: names as useradd makes them, a bounded list. */
        {"# x\nxcrypt-only = Root\n", KDF_MALFORMED, ":2:", "'Root' is not a user"},
        {"xcrypt-only = root,1admin\n", KDF_MALFORMED, ":1:", "'1admin'"},
        {"xcrypt-only = @\n", KDF_MALFORMED, ":1:", "'@' is not"},
        {"xcrypt-only = @@wheel\n", KDF_MALFORMED, ":1:", "'@@wheel'"},
        {"xcrypt-only = root;admin\n", KDF_MALFORMED, ":1:", "'root;admin'"},
        {"xcrypt-only = jo$\n", KDF_MALFORMED, ":1:", "'jo$'"},
        {"xcrypt-only = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", KDF_MALFORMED, ":1:",
         "at most 32 bytes"},
        {"xcrypt-only = root root\n", KDF_MALFORMED, ":1:", "'root' listed twice"},
        {"xcrypt-only = none root\n", KDF_MALFORMED, ":1:", "'none' stands alone"},
        {"xcrypt-only = , ,\n", KDF_MALFORMED, ":1:", "empty list"},
        {"xcrypt-only = a b c d e f g h i j k l m n o p q\n", KDF_MALFORMED, ":1:",
         "more than 16 names"},
        {"xcrypt-only = root\nxcrypt-only = none\n", KDF_MALFORMED, ":2:", "duplicate"},
        /* admins: the same rules as xcrypt-only; heavy: 2..1000 or off. */
        {"admins = root,Bob\n", KDF_MALFORMED, ":1:", "'Bob' is not a user"},
        {"admins = @sudo @sudo\n", KDF_MALFORMED, ":1:", "'@sudo' listed twice"},
        {"admins = root none\n", KDF_MALFORMED, ":1:", "'none' stands alone"},
        {"admins = ,\n", KDF_MALFORMED, ":1:", "empty list"},
        {"admins = root\n# x\nadmins = none\n", KDF_MALFORMED, ":3:", "duplicate"},
        {"heavy = 1\n", KDF_MALFORMED, ":1:", "off or a decimal number in 2..1000"},
        {"heavy = 0\n", KDF_MALFORMED, ":1:", "2..1000"},
        {"heavy = 1001\n", KDF_MALFORMED, ":1:", "2..1000"},
        {"heavy = x\n", KDF_MALFORMED, ":1:", "2..1000"},
        {"heavy = 04\n", KDF_MALFORMED, ":1:", "2..1000"},
        {"heavy = Off\n", KDF_MALFORMED, ":1:", "2..1000"},
        {"heavy = 4\nheavy = off\n", KDF_MALFORMED, ":2:", "duplicate"},
    };
    char err[256], want[64];

    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct kdf_policy p, def;
        enum kdf_status st = load_text(rows[i].text, &p, err, sizeof err);
        if (st != rows[i].st || strstr(err, rows[i].why) == NULL)
            fail_msg("row %zu: status %d err '%s'", i, (int)st, err);
        snprintf(want, sizeof want, "t.conf%s", rows[i].where);
        if (strstr(err, want) == NULL)
            fail_msg("row %zu: no '%s' in '%s'", i, want, err);
        /* All or nothing: a failed load leaves the policy as it was. */
        kdf_policy_default(&def);
        assert_policy_eq(&p, &def);
    }
}

/* What the refusals above must not catch: a budget the target just fits
 * in, a cheap target whose minimums are lowered with it, the two
 * non-numeric budgets, and a target of a scheme without minimum keys. */
static void
test_file_cross_ok(void **state)
{
    static const char *const ok[] = {
        "max.memory = 65536\n",
        "max.memory = auto\n",
        "max.memory = off\n",
        "target = argon2id m=8,t=1,p=1\nmin.argon2 = m=8,t=1,p=1\nmax.memory = 1024\n",
        "min.pbkdf2-sha256 = 1\ntarget = pbkdf2-sha256 i=1\n",
        "target = bcrypt cost=10\nmin.bcrypt = 10\n",
        "target = yescrypt cost=1\nmax.memory = 1024\n",
        "target = bcrypt cost=12\nmax.memory = 1024\n",
        "target = scrypt ln=16,r=8,p=1\nmax.memory = 66560\n",
    };
    struct kdf_policy p;
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (load_text(ok[i], &p, err, sizeof err) != KDF_OK)
            fail_msg("row %zu refused: %s", i, err);
    /* The module-argument path refuses a budget the target cannot fit in
     * the same way, and leaves the policy as it was. */
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_set(&p, "max.memory", "1024", err, sizeof err), KDF_RANGE);
    assert_non_null(strstr(err, "max.memory"));
    assert_int_equal(p.max_memory_kib, KDF_MEMGATE_AUTO);
    assert_int_equal(kdf_policy_set(&p, "max.memory", "65536", err, sizeof err), KDF_OK);
}

/* Only root's file is a policy: owned by uid 0, not writable by others,
 * writable by its group only when that is gid 0.  Needs root to make the
 * files (as an ordinary user the hook in main() trusts the user's own). */
static void
test_file_owner(void **state)
{
    struct kdf_policy p;
    char err[256];
    const char *path;

    (void)state;
    if (geteuid() != 0)
        skip();
    path = write_file("own.conf", "max.bcrypt = 15\n", 16);
    assert_int_equal(chown(path, 65534, 0), 0);
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_INTERNAL);
    assert_non_null(strstr(err, "own.conf: owned by uid 65534, not root"));
    assert_int_equal(kdf_policy_bound_get(&p, "max.bcrypt", 0), 16); /* all or nothing */

    assert_int_equal(chown(path, 0, 65534), 0);
    assert_int_equal(chmod(path, 0664), 0);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_INTERNAL);
    assert_non_null(strstr(err, "writable by group 65534"));

    assert_int_equal(chown(path, 0, 0), 0);
    assert_int_equal(chmod(path, 0664), 0); /* root's own group may write */
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_bound_get(&p, "max.bcrypt", 0), 15);

    assert_int_equal(chmod(path, 0646), 0);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_INTERNAL);
    assert_non_null(strstr(err, "world-writable"));
}

static void
test_file_limits(void **state)
{
    struct kdf_policy p;
    char err[256];
    char *big;
    const char *path;
    size_t n;

    (void)state;
    /* A 1024-byte line is fine, 1025 is not. */
    big = malloc(70 * 1024);
    assert_non_null(big);
    memset(big, ' ', 1024);
    memcpy(big, "#", 1);
    big[1024] = '\n';
    path = write_file("l1.conf", big, 1025);
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_OK);
    memset(big, '#', 1025);
    big[1025] = '\n';
    memcpy(big + 1026, "max.bcrypt = 14\n", 16);
    path = write_file("l2.conf", big, 1042);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "l2.conf:1: line longer"));
    /* Overlong last line without a newline. */
    path = write_file("l3.conf", big, 1025);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_MALFORMED);
    /* 64 KiB of comments load; one byte more does not. */
    for (n = 0; n < 64 * 1024; n += 64) {
        memset(big + n, '#', 63);
        big[n + 63] = '\n';
    }
    path = write_file("b1.conf", big, 64 * 1024);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_OK);
    big[64 * 1024] = '#';
    path = write_file("b2.conf", big, 64 * 1024 + 1);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "larger"));
    /* A NUL byte inside a line. */
    path = write_file("nul.conf", "max.bcrypt = 1\0004\n", 17);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "NUL"));
    free(big);

    /* World-writable: refused. */
    path = write_file("ww.conf", "max.bcrypt = 14\n", 16);
    assert_int_equal(chmod(path, 0666), 0);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_INTERNAL);
    assert_non_null(strstr(err, "world-writable"));
    /* A directory is not a file. */
    assert_int_equal(kdf_policy_load(&p, g_tmpdir, 0, err, sizeof err), KDF_INTERNAL);
    /* Missing file: fine only with missing_ok. */
    {
        char missing[300];
        struct kdf_policy def;
        snprintf(missing, sizeof missing, "%s/none.conf", g_tmpdir);
        kdf_policy_default(&p);
        assert_int_equal(kdf_policy_load(&p, missing, 1, err, sizeof err), KDF_OK);
        kdf_policy_default(&def);
        assert_policy_eq(&p, &def);
        assert_int_equal(kdf_policy_load(&p, missing, 0, err, sizeof err), KDF_INTERNAL);
        assert_non_null(strstr(err, "none.conf"));
    }
    /* Empty file: the defaults. */
    path = write_file("empty.conf", "", 0);
    assert_int_equal(kdf_policy_load(&p, path, 0, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_load(NULL, path, 0, err, sizeof err), KDF_RANGE);
}

/* Module-argument overrides: same keys and values, one at a time. */
static void
test_policy_set(void **state)
{
    struct kdf_policy p, before;
    char err[256];

    (void)state;
    kdf_policy_default(&p);
    assert_int_equal(kdf_policy_set(&p, "target", "argon2id:m=65536,t=3,p=4", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&p, "target", "bcrypt cost=12", err, sizeof err), KDF_OK);
    assert_int_equal(p.target.scheme, KDF_SCHEME_BCRYPT);
    assert_int_equal(p.target.cost, 12);
    assert_int_equal(kdf_policy_set(&p, "max.bcrypt", "14", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_bound_get(&p, "max.bcrypt", 0), 14);
    /* Setting twice is allowed (overrides), unlike in the file. */
    assert_int_equal(kdf_policy_set(&p, "max.bcrypt", "15", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_bound_get(&p, "max.bcrypt", 0), 15);
    assert_int_equal(kdf_policy_set(&p, "accept", "pbkdf2-sha256,bcrypt", err, sizeof err),
                     KDF_OK);
    assert_int_equal(p.accept_mask,
                     (1u << KDF_SCHEME_PBKDF2_SHA256) | (1u << KDF_SCHEME_BCRYPT));
    assert_int_equal(kdf_policy_set(&p, "accept", "none", err, sizeof err), KDF_OK);
    assert_int_equal(p.accept_mask, 0);
    assert_int_equal(kdf_policy_set(&p, "min.argon2", "m=65536,t=3,p=2", err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 0), 65536);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 1), 3);
    assert_int_equal(kdf_policy_bound_get(&p, "min.argon2", 2), 2);
    assert_int_equal(kdf_policy_set(&p, "min.pbkdf2-sha512", "1", err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_bound_get(&p, "min.pbkdf2-sha512", 0), 1);

    /* A cap below the current target is refused, and nothing changes. */
    before = p;
    assert_int_equal(kdf_policy_set(&p, "max.bcrypt", "11", err, sizeof err), KDF_TOO_COSTLY);
    assert_non_null(strstr(err, "max.bcrypt"));
    assert_policy_eq(&p, &before);
    assert_int_equal(kdf_policy_set(&p, "target", "bcrypt cost=16", err, sizeof err),
                     KDF_TOO_COSTLY);
    assert_policy_eq(&p, &before);
    assert_int_equal(kdf_policy_set(&p, "bogus", "1", err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "unknown key"));
    assert_int_equal(kdf_policy_set(&p, "max.bcrypt", "", err, sizeof err), KDF_MALFORMED);
    assert_int_equal(kdf_policy_set(&p, "max.threads", "257", err, sizeof err), KDF_MALFORMED);
    assert_int_equal(kdf_policy_set(&p, "target", "", err, sizeof err), KDF_MALFORMED);
    assert_int_equal(kdf_policy_set(&p, "target", "argon2id:", err, sizeof err),
                     KDF_MALFORMED);
    assert_int_equal(kdf_policy_set(&p, NULL, "1", err, sizeof err), KDF_RANGE);
    assert_int_equal(kdf_policy_set(&p, "max.bcrypt", NULL, err, sizeof err), KDF_RANGE);
    assert_policy_eq(&p, &before);

    /* xcrypt-only as a module argument (commas: no blanks there); "none"
     * empties the list; a bad name changes nothing. */
    assert_int_equal(kdf_policy_set(&p, "xcrypt-only", "root,@sudo", err, sizeof err), KDF_OK);
    assert_string_equal(p.xcrypt_only, "root,@sudo");
    assert_int_equal(kdf_policy_set(&p, "xcrypt-only", "none", err, sizeof err), KDF_OK);
    assert_string_equal(p.xcrypt_only, "");
    before = p;
    assert_int_equal(kdf_policy_set(&p, "xcrypt-only", "root,-x", err, sizeof err),
                     KDF_MALFORMED);
    assert_non_null(strstr(err, "xcrypt-only: '-x' is not a user or @group name"));
    assert_policy_eq(&p, &before);

    /* admins writes its own list, never xcrypt-only's; heavy takes off. */
    assert_int_equal(kdf_policy_set(&p, "admins", "@wheel,ops", err, sizeof err), KDF_OK);
    assert_string_equal(p.admins, "@wheel,ops");
    assert_string_equal(p.xcrypt_only, "");
    assert_int_equal(kdf_policy_set(&p, "admins", "none", err, sizeof err), KDF_OK);
    assert_string_equal(p.admins, "");
    assert_int_equal(kdf_policy_set(&p, "heavy", "off", err, sizeof err), KDF_OK);
    assert_int_equal(p.heavy, 0);
    assert_int_equal(kdf_policy_set(&p, "heavy", "2", err, sizeof err), KDF_OK);
    assert_int_equal(p.heavy, 2);
    before = p;
    assert_int_equal(kdf_policy_set(&p, "heavy", "1", err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "heavy: must be off or"));
    assert_int_equal(kdf_policy_set(&p, "admins", "root,@", err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "admins: '@' is not a user or @group name"));
    assert_policy_eq(&p, &before);
}

/* blocklist: none or an absolute path under the cap; blocklist-missing:
 * allow or refuse (default allow). */
static void
test_blocklist_keys(void **state)
{
    struct kdf_policy p;
    char err[256], longp[KDF_BLOCKLIST_PATH_CAP + 1];
    (void)state;

    kdf_policy_default(&p);
    assert_string_equal(p.blocklist, "");
    assert_int_equal(p.blocklist_refuse, 0);
    assert_int_equal(kdf_policy_set(&p, "blocklist", "/var/lib/kdfhash/bl", err, sizeof err),
                     KDF_OK);
    assert_string_equal(p.blocklist, "/var/lib/kdfhash/bl");
    assert_int_equal(kdf_policy_set(&p, "blocklist", "bl", err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "absolute path"));
    memset(longp, 'a', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = '\0';
    assert_int_equal(kdf_policy_set(&p, "blocklist", longp, err, sizeof err), KDF_MALFORMED);
    longp[KDF_BLOCKLIST_PATH_CAP - 1] = '\0';
    assert_int_equal(kdf_policy_set(&p, "blocklist", longp, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_policy_set(&p, "blocklist", "/a\tb", err, sizeof err), KDF_MALFORMED);
    assert_int_equal(kdf_policy_set(&p, "blocklist", "none", err, sizeof err), KDF_OK);
    assert_string_equal(p.blocklist, "");
    assert_int_equal(kdf_policy_set(&p, "blocklist-missing", "refuse", err, sizeof err),
                     KDF_OK);
    assert_int_equal(p.blocklist_refuse, 1);
    assert_int_equal(kdf_policy_set(&p, "blocklist-missing", "no", err, sizeof err),
                     KDF_MALFORMED);
    assert_non_null(strstr(err, "allow or refuse"));
    assert_int_equal(kdf_policy_set(&p, "blocklist-missing", "allow", err, sizeof err),
                     KDF_OK);
    assert_int_equal(p.blocklist_refuse, 0);
}

/* Both bounds of the list: 16 names of 32 bytes would need 543 bytes, more
 * than the 255 the policy keeps, so the bytes are bounded as well as the
 * count. */
static void
test_xcrypt_only_bounds(void **state)
{
    struct kdf_policy p;
    char err[256], list[600], name[40];
    size_t len = 0;

    (void)state;
    kdf_policy_default(&p);
    /* 16 names of 14 bytes and 15 commas: 239 bytes, accepted. */
    list[0] = '\0';
    for (int i = 0; i < 16; i++) {
        snprintf(name, sizeof name, "%suser%010d", i ? "," : "", i);
        memcpy(list + len, name, strlen(name) + 1);
        len += strlen(name);
    }
    assert_int_equal(len, 239);
    assert_int_equal(kdf_policy_set(&p, "xcrypt-only", list, err, sizeof err), KDF_OK);
    assert_string_equal(p.xcrypt_only, list);
    /* 8 names of 32 bytes: 263 bytes, refused. */
    len = 0;
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "%s%031d%c", i ? "," : "", 0, 'a' + i);
        name[i ? 1 : 0] = 'u';
        memcpy(list + len, name, strlen(name) + 1);
        len += strlen(name);
    }
    assert_int_equal(len, 263);
    assert_int_equal(kdf_policy_set(&p, "xcrypt-only", list, err, sizeof err), KDF_MALFORMED);
    assert_non_null(strstr(err, "255 bytes"));
}

struct target_row {
    const char *text;
    enum kdf_scheme scheme;
    enum kdf_format fmt;
    char minor;
    uint32_t cost, m, p, salt, len;
};

static void
test_target_parse(void **state)
{
    static const struct target_row rows[] = {
        {"argon2id", KDF_SCHEME_ARGON2ID, KDF_FMT_NATIVE, 0, 3, 65536, 4, 16, 32},
        {"argon2id m=65536,t=3,p=4", KDF_SCHEME_ARGON2ID, KDF_FMT_NATIVE, 0, 3, 65536, 4, 16,
         32},
        {"argon2id:m=19456,t=2,p=1", KDF_SCHEME_ARGON2ID, KDF_FMT_NATIVE, 0, 2, 19456, 1, 16,
         32},
        {"  argon2i  t=4 m=1024 , p=2,salt=8,len=64,v=19 ", KDF_SCHEME_ARGON2I, KDF_FMT_NATIVE,
         0, 4, 1024, 2, 8, 64},
        {"argon2d m=8,t=1,p=1", KDF_SCHEME_ARGON2D, KDF_FMT_NATIVE, 0, 1, 8, 1, 16, 32},
        {"bcrypt", KDF_SCHEME_BCRYPT, KDF_FMT_NATIVE, 'b', 12, 0, 0, 16, 23},
        {"bcrypt cost=4,minor=y", KDF_SCHEME_BCRYPT, KDF_FMT_NATIVE, 'y', 4, 0, 0, 16, 23},
        {"bcrypt:cost=31", KDF_SCHEME_BCRYPT, KDF_FMT_NATIVE, 'b', 31, 0, 0, 16, 23},
        {"pbkdf2-sha1", KDF_SCHEME_PBKDF2_SHA1, KDF_FMT_PASSLIB, 0, 1300000, 0, 0, 16, 20},
        {"pbkdf2-sha256", KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_PASSLIB, 0, 600000, 0, 0, 16, 32},
        {"pbkdf2-sha512", KDF_SCHEME_PBKDF2_SHA512, KDF_FMT_PASSLIB, 0, 210000, 0, 0, 16, 64},
        {"pbkdf2-sha256 i=1000,format=phc,salt=8,len=64", KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_PHC,
         0, 1000, 0, 0, 8, 64},
        {"pbkdf2-sha512 format=django,i=1", KDF_SCHEME_PBKDF2_SHA512, KDF_FMT_DJANGO, 0, 1,
         0, 0, 16, 64},
        {"scrypt", KDF_SCHEME_SCRYPT, KDF_FMT_NATIVE, 0, 16, 0, 1, 16, 32},
        {"scrypt ln=14,r=8,p=2,salt=32", KDF_SCHEME_SCRYPT, KDF_FMT_NATIVE, 0, 14, 0, 2, 32, 32},
    };
    static const char *const bad[] = {
        "", "   ", "argon2", "ARGON2ID", "argon2id m=65536,t=3,p=4,", "argon2id ,m=65536",
        "argon2id m=65536,,t=3", "argon2id m=", "argon2id =5", "argon2id m=0x10",
        "argon2id m=065536", "argon2id m=4294967296", "argon2id t=0", "argon2id p=0",
        "argon2id salt=7", "argon2id salt=65", "argon2id len=3", "argon2id len=65",
        "argon2id v=16", "argon2id v=0", "argon2id cost=3", "argon2id m=65536 junk",
        "bcrypt cost=32", "bcrypt cost=03", "bcrypt minor=c", "bcrypt minor=bb",
        "bcrypt salt=22", "bcrypt len=24", "bcrypt i=5", "pbkdf2-sha256 i=0",
        "pbkdf2-sha256 format=native", "pbkdf2-sha256 salt=0", "pbkdf2-sha256 salt=65",
        "pbkdf2-sha256 format=phc,len=65", "pbkdf2-sha1 len=32", "pbkdf2-sha384",
        "legacy", "locked", "empty", "bcrypt::cost=12", "bcrypt cost=-1",
        "scrypt ln=0", "scrypt ln=32", "scrypt r=0", "scrypt p=0", "scrypt ln=16,r=1",
        "scrypt salt=7", "scrypt len=32", "scrypt m=1024", "argon2id m=+65536",
        "argon2id m=99999999999", "argon2id t=00", "argon2id t=3x", "bcrypt cost=1 2",
    };
    struct kdf_target t;
    char err[200];

    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        memset(&t, 0x5A, sizeof t);
        if (kdf_target_parse(rows[i].text, &t, err, sizeof err) != KDF_OK)
            fail_msg("'%s': %s", rows[i].text, err);
        assert_int_equal(t.scheme, rows[i].scheme);
        assert_int_equal(t.format, rows[i].fmt);
        assert_int_equal(t.bcrypt_minor, rows[i].minor);
        assert_int_equal(t.cost, rows[i].cost);
        assert_int_equal(t.m_kib, rows[i].m);
        assert_int_equal(t.lanes, rows[i].p);
        assert_int_equal(t.salt_len, rows[i].salt);
        assert_int_equal(t.dk_len, rows[i].len);
        assert_int_equal(t.version, rows[i].m ? 0x13 : 0);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct kdf_target before;
        memset(&t, 0x5A, sizeof t);
        before = t;
        err[0] = '\0';
        if (kdf_target_parse(bad[i], &t, err, sizeof err) != KDF_MALFORMED)
            fail_msg("'%s' accepted", bad[i]);
        assert_true(err[0] != '\0');
        assert_memory_equal(&t, &before, sizeof t);
    }
    assert_int_equal(kdf_target_parse(NULL, &t, err, sizeof err), KDF_RANGE);
}

/* format(parse(x)) parses back to the same target, for defaults and odd
 * values of every scheme; small buffers are refused, never overrun. */
static void
test_target_round_trip(void **state)
{
    static const char *const texts[] = {
        "argon2id", "argon2i m=4294967295,t=4294967295,p=16777215,salt=64,len=64",
        "argon2d m=8,t=1,p=1,salt=8,len=4", "bcrypt", "bcrypt cost=31,minor=a",
        "pbkdf2-sha1 format=phc,len=1,salt=1,i=4294967295", "pbkdf2-sha256 format=django",
        "pbkdf2-sha512",
    };
    struct kdf_target a, b;
    char out[200], small[8], err[200];
    struct kdf_policy def;

    (void)state;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        assert_int_equal(kdf_target_parse(texts[i], &a, err, sizeof err), KDF_OK);
        assert_int_equal(kdf_target_format(&a, out, sizeof out), KDF_OK);
        if (kdf_target_parse(out, &b, err, sizeof err) != KDF_OK)
            fail_msg("'%s' -> '%s': %s", texts[i], out, err);
        assert_target_eq(&a, &b);
        memset(small, 'Z', sizeof small);
        assert_int_equal(kdf_target_format(&a, small, sizeof small), KDF_RANGE);
        assert_int_equal(small[0], '\0');
    }
    kdf_policy_default(&def);
    assert_int_equal(kdf_target_format(&def.target, out, sizeof out), KDF_OK);
    assert_string_equal(out, "argon2id m=65536,t=3,p=4,salt=16,len=32");
    assert_int_equal(kdf_target_parse("bcrypt cost=10", &a, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_target_format(&a, out, sizeof out), KDF_OK);
    assert_string_equal(out, "bcrypt cost=10,minor=b");
    assert_int_equal(kdf_target_parse("pbkdf2-sha256 i=1000", &a, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_target_format(&a, out, sizeof out), KDF_OK);
    assert_string_equal(out, "pbkdf2-sha256 i=1000,format=passlib,salt=16,len=32");
    a.scheme = KDF_SCHEME_LEGACY;
    assert_int_equal(kdf_target_format(&a, out, sizeof out), KDF_UNSUPPORTED);
}

static int
setup(void **state)
{
    const char *base = getenv("TMPDIR");
    (void)state;
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/test_policy.XXXXXX", base ? base : "/tmp");
    return mkdtemp(g_tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
    char cmd[300];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_shipped_conf),
        cmocka_unit_test(test_file_every_key),  cmocka_unit_test(test_file_rejects),
        cmocka_unit_test(test_file_limits),     cmocka_unit_test(test_policy_set),
        cmocka_unit_test(test_target_parse),    cmocka_unit_test(test_target_round_trip),
        cmocka_unit_test(test_file_cross_ok),   cmocka_unit_test(test_file_owner),
        cmocka_unit_test(test_xcrypt_only_bounds), cmocka_unit_test(test_memhard_alias),
        cmocka_unit_test(test_bound_slots),     cmocka_unit_test(test_blocklist_keys),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
