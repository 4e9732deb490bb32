/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_simd.c - every row of every variant table, forced, against known
 * answers and against the portable row of its table (BLAKE3's Rust tests
 * compare each SIMD path with portable the same way).
 *
 * A row this CPU cannot run is skipped with the reason (and forcing it must
 * be refused).  Per table:
 *   - BlaMka: 10,000 random (prev, ref, next) triples with and without the
 *     v=0x13 XOR, plus the aliasing the address generator uses (ref ==
 *     next), bit for bit against the portable block function; the
 *     portable function itself is pinned by the RFC 9106 vectors in
 *     test_argon2;
 *   - SHA-1/256/512: the row's self-test (the FIPS 180-4 "abc" block), the
 *     NIST "abc" digest through the dispatched hash, random compressions
 *     and two-state compressions, and random PBKDF2 runs through the
 *     row's fused loops, all against the portable row (test_sha holds the
 *     long vector lists);
 *   - Blowfish: published crypt_blowfish hashes verified through the forced
 *     row, and random keys, flags and salts at cost 0..2 against the
 *     portable row (test_bcrypt compares each row with libxcrypt).
 * And for every table: the automatic pick is the first usable row, and
 * kdf_dispatch_force_mask(0) sends every table back to portable.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"
#include "kdf_testing.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "san_detect.h"

#include "alg_blowfish.h"
#include "alg_sha.h"
#include "alg_argon2.h"
#include "hex_common.h"

#define TRIPLES 10000
#define MAX_ROWS 8

static uint64_t g_rng = 0x243f6a8885a308d3ULL; /* fixed: failures reproduce */

static uint64_t
rnd64(void)
{
    return splitmix64(&g_rng);
}

static void
rnd_block(struct kdf_argon2_block *b)
{
    for (int k = 0; k < KDF_ARGON2_QWORDS; k++)
        b->v[k] = rnd64();
    /* Now and then, extreme words: all ones, zero, 32-bit edges. */
    if ((rnd64() & 7) == 0)
        for (int k = 0; k < KDF_ARGON2_QWORDS; k += 5)
            b->v[k] = (k & 1) ? ~0ULL : 0xffffffffULL;
}

static void
test_variant(void **state)
{
    size_t idx = *(const size_t *)*state;
    const char *names[MAX_ROWS];
    int usable[MAX_ROWS];
    size_t n = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, MAX_ROWS);
    kdf_argon2_fill_block_fn fb;
    static struct kdf_argon2_block prev, ref, next0, a, b;

    if (idx >= n) {
        print_message("row %zu: not compiled in (%zu BlaMka rows)\n", idx, n);
        skip();
    }
    if (!usable[idx]) {
        print_message("%s: this CPU lacks the instructions\n", names[idx]);
        assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLAMKA, idx), KDF_UNSUPPORTED);
        skip();
    }
    assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLAMKA, idx), KDF_OK);
    assert_string_equal(kdf_impl_name(KDF_PRIM_BLAMKA), names[idx]);
    fb = kdf_blamka_block_impl(idx);
    assert_non_null(fb);
    if (kdf_blamka_table.rows[idx].selftest != NULL)
        assert_int_equal(kdf_blamka_table.rows[idx].selftest(&kdf_blamka_table.rows[idx]), 0);
    print_message("%s vs portable: %d triples x 2 modes\n", names[idx], TRIPLES);
    for (int i = 0; i < TRIPLES; i++) {
        rnd_block(&prev);
        rnd_block(&ref);
        rnd_block(&next0);
        for (int x = 0; x < 2; x++) {
            a = next0;
            b = next0;
            kdf_argon2_fill_block_ref(&prev, &ref, &a, x);
            fb(&prev, &ref, &b, x);
            if (memcmp(&a, &b, sizeof a) != 0)
                fail_msg("%s differs from portable at triple %d, xor %d", names[idx], i,
                         x);
        }
        /* ref == next, as in G(0, G(0, Z)) of the address generator. */
        a = ref;
        b = ref;
        kdf_argon2_fill_block_ref(&prev, &a, &a, 0);
        fb(&prev, &b, &b, 0);
        assert_memory_equal(&a, &b, sizeof a);
    }
    /* The dispatch self-test of this row folds the same way as portable. */
    assert_true(kdf_blamka_kat_fold(fb) ==
                kdf_blamka_kat_fold(kdf_argon2_fill_block_ref));
    kdf_dispatch_force_mask(~0u);
}

/* ---- SHA-1, SHA-256, SHA-512 ---- */

static const enum kdf_prim sha_prims[3] = {KDF_PRIM_SHA1, KDF_PRIM_SHA256, KDF_PRIM_SHA512};
static struct kdf_dispatch_table *const sha_tables[3] = {&kdf_sha1_table, &kdf_sha256_table,
                                                         &kdf_sha512_table};
/* NIST's FIPS 180-4 examples: the digests of "abc". */
#define SHA512_ABC                                                                       \
    "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"                   \
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
static const char *const sha_abc[3] = {
    "a9993e364706816aba3e25717850c26c9cd0d89d",
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    SHA512_ABC,
};

static void
rnd_bytes(void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(rnd64() >> 56);
}

/* md bound to `row` of hash h, or to the portable row with none of the
 * optional entry points when row is NULL. */
static void
bind_row(struct kdf_md *md, int h, const struct kdf_impl_desc *row)
{
    const struct kdf_dispatch_table *t = sha_tables[h];
    const struct kdf_sha_more *more;

    assert_int_equal(kdf_md_bind(md, sha_prims[h]), KDF_OK);
    if (row == NULL)
        row = &t->rows[t->nrows - 1];
    more = (const struct kdf_sha_more *)row->more;
    md->compress = (kdf_compress_fn *)row->fn;
    md->compress2 = more != NULL ? more->compress2 : NULL;
    md->loop1 = more != NULL ? more->loop1 : NULL;
    md->loop2 = more != NULL ? more->loop2 : NULL;
}

static void
test_sha_row(void **state)
{
    unsigned code = *(const unsigned *)*state;
    int h = (int)(code >> 8);
    size_t idx = code & 0xff;
    const struct kdf_dispatch_table *t = sha_tables[h];
    const struct kdf_impl_desc *row, *port;
    const struct kdf_sha_more *more;
    kdf_compress_fn *fn, *ref;
    struct kdf_md md_row, md_ref;
    const size_t bl = h == 2 ? 128 : 64, sl = h == 0 ? 20 : h == 1 ? 32 : 64;
    uint8_t d[KDF_SHA_MAX_LEN], want[KDF_SHA_MAX_LEN];
    static uint8_t blocks[8 * 128], blocks2[128];
    union kdf_sha_state s1, s2, s3, s4;

    if (idx >= t->nrows) {
        print_message("%s row %zu: not compiled in\n", t->prim, idx);
        skip();
    }
    row = &t->rows[idx];
    port = &t->rows[t->nrows - 1];
    if (!kdf_dispatch_row_usable(row)) {
        print_message("%s/%s: this CPU lacks the instructions\n", t->prim, row->name);
        assert_int_equal(kdf_dispatch_force_index(sha_prims[h], idx), KDF_UNSUPPORTED);
        skip();
    }
    assert_string_equal(port->name, "portable");
    fn = (kdf_compress_fn *)row->fn;
    ref = (kdf_compress_fn *)port->fn;
    more = (const struct kdf_sha_more *)row->more;

    /* Known answers: the row's own self-test, then "abc" through the
     * dispatched hash with the row forced. */
    assert_non_null(row->selftest);
    assert_int_equal(row->selftest(row), 0);
    assert_int_equal(kdf_dispatch_force_index(sha_prims[h], idx), KDF_OK);
    assert_string_equal(kdf_impl_name(sha_prims[h]), row->name);
    assert_true(kdf_dispatch_get(sha_prims[h]) == row->fn);
    assert_int_equal(kdf_sha_digest(sha_prims[h], "abc", 3, d, sizeof d), KDF_OK);
    assert_int_equal(unhex(sha_abc[h], want, sizeof want), sl);
    assert_memory_equal(d, want, sl);

    /* Random states and 1..8 blocks against portable. */
    for (int trial = 0; trial < 1000; trial++) {
        size_t nb = 1 + (size_t)(rnd64() % 8);
        rnd_bytes(&s1, sizeof s1);
        s2 = s1;
        rnd_bytes(blocks, nb * bl);
        fn(&s1, blocks, nb);
        ref(&s2, blocks, nb);
        if (memcmp(&s1, &s2, sl) != 0)
            fail_msg("%s/%s differs from portable: trial %d", t->prim, row->name, trial);
    }
    if (more != NULL && more->compress2 != NULL) {
        for (int trial = 0; trial < 1000; trial++) {
            rnd_bytes(&s1, sizeof s1);
            rnd_bytes(&s3, sizeof s3);
            s2 = s1;
            s4 = s3;
            rnd_bytes(blocks, bl);
            rnd_bytes(blocks2, bl);
            more->compress2(&s1, blocks, &s3, blocks2);
            ref(&s2, blocks, 1);
            ref(&s4, blocks2, 1);
            if (memcmp(&s1, &s2, sl) != 0 || memcmp(&s3, &s4, sl) != 0)
                fail_msg("%s/%s compress2 differs: trial %d", t->prim, row->name, trial);
        }
    }

    /* PBKDF2 through the row's own entry points (fused loops, two chains)
     * against portable compressions only: 1..3 output blocks so the paired
     * loop runs too. */
    bind_row(&md_row, h, row);
    bind_row(&md_ref, h, NULL);
    for (int trial = 0; trial < 200; trial++) {
        uint8_t pw[150], salt[40], a[3 * KDF_SHA_MAX_LEN], b[3 * KDF_SHA_MAX_LEN];
        size_t pw_len = (size_t)(rnd64() % sizeof pw), salt_len = (size_t)(rnd64() % 40);
        size_t out_len = 1 + (size_t)(rnd64() % (3 * sl));
        uint32_t iter = 1 + (uint32_t)(rnd64() % 40);
        rnd_bytes(pw, sizeof pw);
        rnd_bytes(salt, sizeof salt);
        assert_int_equal(kdf_pbkdf2_md(&md_row, pw, pw_len, salt, salt_len, iter, a, out_len),
                         KDF_OK);
        assert_int_equal(kdf_pbkdf2_md(&md_ref, pw, pw_len, salt, salt_len, iter, b, out_len),
                         KDF_OK);
        if (memcmp(a, b, out_len) != 0)
            fail_msg("%s/%s PBKDF2 differs: trial %d, c=%u, dkLen %zu", t->prim, row->name,
                     trial, iter, out_len);
    }
    print_message("%s/%s vs portable: compress%s, PBKDF2%s\n", t->prim, row->name,
                  more != NULL && more->compress2 != NULL ? ", compress2" : "",
                  more != NULL && (more->loop1 != NULL || more->loop2 != NULL)
                      ? " (fused loops)"
                      : "");
    kdf_dispatch_force_mask(~0u);
}

/* ---- Blowfish (bcrypt's EksBlowfish) ---- */

/* Published crypt_blowfish test hashes (its wrapper.c), 8-bit keys included:
 * one per key-setup flavour. */
static const struct {
    const char *pw, *hash;
} bf_kat[] = {
    {"U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"},
    {"U*U*", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"},
    {"", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy"},
    {"\xa3", "$2x$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e"},
    {"\xa3", "$2y$05$/OK.fbVrR/bpIqNJ5ianF.Sa7shbm4.OzKpvFnX1pQLmQW96oUlCq"},
    {"\xa3", "$2a$05$/OK.fbVrR/bpIqNJ5ianF.Sa7shbm4.OzKpvFnX1pQLmQW96oUlCq"},
};

static void
test_blowfish_row(void **state)
{
    size_t idx = *(const size_t *)*state;
    const struct kdf_dispatch_table *t = &kdf_blowfish_table;
    const struct kdf_impl_desc *row, *port;
    struct kdf_bf_ctx *c1, *c2;

    if (idx >= t->nrows) {
        print_message("blowfish row %zu: not compiled in (%zu rows)\n", idx, t->nrows);
        skip();
    }
    row = &t->rows[idx];
    port = &t->rows[t->nrows - 1];
    if (!kdf_dispatch_row_usable(row)) {
        print_message("blowfish/%s: this CPU lacks the instructions\n", row->name);
        assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLOWFISH, idx), KDF_UNSUPPORTED);
        skip();
    }
    assert_string_equal(port->name, "portable");
    assert_int_equal(port->needs, 0);
    assert_non_null(row->selftest);
    assert_int_equal(row->selftest(row), 0);

    /* Known answers through the whole verify path, this row forced. */
    assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLOWFISH, idx), KDF_OK);
    assert_string_equal(kdf_impl_name(KDF_PRIM_BLOWFISH), row->name);
    assert_true(kdf_dispatch_get(KDF_PRIM_BLOWFISH) == row->fn);
    for (size_t i = 0; i < KDF_ARRAY_LEN(bf_kat); i++) {
        const char *h = bf_kat[i].hash;
        assert_int_equal(kdf_verify(bf_kat[i].pw, strlen(bf_kat[i].pw), h, strlen(h)), KDF_OK);
        assert_int_equal(kdf_verify("U*V", 3, h, strlen(h)), KDF_MISMATCH);
    }

    /* Random keys (8-bit bytes, 0..80 long), flags and salts at cost 0..2
     * against the portable row. */
    c1 = calloc(1, sizeof *c1);
    c2 = calloc(1, sizeof *c2);
    assert_non_null(c1);
    assert_non_null(c2);
    for (int trial = 0; trial < 300; trial++) {
        static const unsigned flags[3] = {0, KDF_BF_FLAG_SAFETY, KDF_BF_FLAG_BUG};
        char key[81];
        size_t len = (size_t)(rnd64() % 81);
        uint32_t salt[4], a[6], b[6];
        unsigned fl = flags[trial % 3];
        uint32_t cost = (uint32_t)(rnd64() % 3);

        for (size_t k = 0; k < len; k++)
            key[k] = (char)(1 + rnd64() % 255);
        key[len] = '\0';
        for (int k = 0; k < 4; k++)
            salt[k] = (uint32_t)rnd64();
        ((kdf_bf_eks_fn *)row->fn)(c1, key, fl, salt, cost, a);
        ((kdf_bf_eks_fn *)port->fn)(c2, key, fl, salt, cost, b);
        if (memcmp(a, b, sizeof a) != 0)
            fail_msg("blowfish/%s differs from portable: trial %d (len %zu, flags %u)",
                     row->name, trial, len, fl);
        /* And kdf_bf_bcrypt(), the entry scheme_bcrypt.c calls, runs it. */
        if (trial < 20) {
            kdf_bf_bcrypt(c1, key, fl, salt, cost, a);
            assert_memory_equal(a, b, sizeof a);
        }
    }
    print_message("blowfish/%s vs portable: %zu known hashes, 300 random keys\n", row->name,
                  KDF_ARRAY_LEN(bf_kat));
    kdf_wipe(c1, sizeof *c1);
    kdf_wipe(c2, sizeof *c2);
    free(c1);
    free(c2);
    kdf_dispatch_force_mask(~0u);
}

/* ---- every table ---- */

/* The walker's pick is the first usable row of every table (every row's
 * self-test passes on a CPU that has its features); force_mask(0) sends
 * every table to portable and force_mask(~0) back to the best. */
static void
test_picks(void **state)
{
    (void)state;
    kdf_dispatch_force_mask(~0u);
    for (int p = 0; p < KDF_PRIM_COUNT; p++) {
        const char *names[MAX_ROWS];
        int usable[MAX_ROWS];
        size_t n = kdf_impl_list((enum kdf_prim)p, names, usable, MAX_ROWS), first = n;

        assert_true(n >= 1 && n <= MAX_ROWS);
        assert_string_equal(names[n - 1], "portable");
        assert_true(usable[n - 1]);
        for (size_t i = 0; i < n && first == n; i++)
            if (usable[i] && !kdf_impl_slow_here((enum kdf_prim)p, i))
                first = i;
        assert_string_equal(kdf_impl_name((enum kdf_prim)p), names[first]);
        print_message("%-8s picked %s\n", kdf_prim_name((enum kdf_prim)p), names[first]);
        assert_int_equal(kdf_dispatch_force_index((enum kdf_prim)p, n), KDF_RANGE);
    }
    kdf_dispatch_force_mask(0);
    for (int p = 0; p < KDF_PRIM_COUNT; p++)
        assert_string_equal(kdf_impl_name((enum kdf_prim)p), "portable");
    kdf_dispatch_force_mask(~0u);
    assert_int_equal(kdf_impl_force("portable"), KDF_OK);
    for (int p = 0; p < KDF_PRIM_COUNT; p++)
        assert_string_equal(kdf_impl_name((enum kdf_prim)p), "portable");
    assert_int_equal(kdf_impl_force("no-such-isa"), KDF_UNSUPPORTED);
    assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_COUNT, 0), KDF_RANGE);
    assert_string_equal(kdf_prim_name(KDF_PRIM_BLOWFISH), "blowfish");
    kdf_dispatch_force_mask(~0u);
}

/* The walker on a table of its own: a row whose self-test fails and a row
 * whose features no CPU has are passed over; a forced row stays until
 * force_mask, which makes the table pick again. */
static int g_selftests_run;

static void
dummy_fn(void)
{
}

static int
selftest_fails(const struct kdf_impl_desc *row)
{
    (void)row;
    g_selftests_run++;
    return 1;
}

static int
selftest_passes(const struct kdf_impl_desc *row)
{
    (void)row;
    g_selftests_run++;
    return 0;
}

static void
test_walker(void **state)
{
    /* "slow-here" is marked slow on this CPU's vendor (when it has one
     * we know: otherwise nothing can mark it, and it is taken). */
    static struct kdf_impl_desc rows[] = {
        {"broken", 0, dummy_fn, NULL, selftest_fails, 0},
        {"future", 0x80000000u, dummy_fn, NULL, selftest_passes, 0},
        {"slow-here", 0, dummy_fn, NULL, selftest_passes, 0},
        {"good", 0, dummy_fn, NULL, selftest_passes, 0},
        {"portable", 0, dummy_fn, NULL, NULL, 0},
    };
    static struct kdf_dispatch_table t = KDF_DISPATCH_TABLE("test", rows);
    const char *want = kdf_cpu_vendor() != 0 ? "good" : "slow-here";
    (void)state;

    rows[2].slow_on = kdf_cpu_vendor();
    g_selftests_run = 0;
    assert_string_equal(kdf_dispatch_pick(&t)->name, want);
    assert_int_equal(g_selftests_run, 2); /* broken and the pick; future never */
    assert_string_equal(kdf_dispatch_pick(&t)->name, want);
    assert_int_equal(g_selftests_run, 2); /* cached */
    assert_int_equal(kdf_dispatch_force_row(&t, 1), KDF_UNSUPPORTED);
    assert_int_equal(kdf_dispatch_force_row(&t, 5), KDF_RANGE);
    assert_int_equal(kdf_dispatch_force_row(&t, 2), KDF_OK); /* slow, but forced */
    assert_string_equal(kdf_dispatch_pick(&t)->name, "slow-here");
    assert_int_equal(kdf_dispatch_force_row(&t, 0), KDF_OK); /* forced: no self-test */
    assert_string_equal(kdf_dispatch_pick(&t)->name, "broken");
    kdf_dispatch_force_mask(~0u);
    assert_string_equal(kdf_dispatch_pick(&t)->name, want);
    assert_int_equal(g_selftests_run, 4);
}

/* The vendor as /proc/cpuinfo names it, read without the core. */
static uint32_t
vendor_from_cpuinfo(void)
{
    char line[256];
    uint32_t v = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "vendor_id", 9) != 0)
            continue;
        if (strstr(line, "GenuineIntel") != NULL)
            v = KDF_VENDOR_INTEL;
        else if (strstr(line, "AuthenticAMD") != NULL || strstr(line, "HygonGenuine") != NULL)
            v = KDF_VENDOR_AMD;
        break;
    }
    fclose(f);
    return v;
}

/* bcrypt's BEXTR row is the pick on AMD and passed over on Intel, where it
 * was measured slower than portable; --isa still reaches it. */
static void
test_vendor_rows(void **state)
{
    const char *names[MAX_ROWS];
    int usable[MAX_ROWS];
    size_t n = kdf_impl_list(KDF_PRIM_BLOWFISH, names, usable, MAX_ROWS);
    int has_bmi1 = 0;
    (void)state;

#if defined(__x86_64__)
    /* valgrind answers CPUID with a CPU of its own (GenuineIntel on an AMD
     * host), so there the core's vendor is valgrind's, not the kernel's;
     * the rows must still follow the vendor the core read. */
    if (RUNNING_ON_VALGRIND)
        print_message("# under valgrind: CPUID's vendor is valgrind's, /proc/cpuinfo's is "
                      "%u\n", (unsigned)vendor_from_cpuinfo());
    else
        assert_int_equal(kdf_cpu_vendor(), vendor_from_cpuinfo());
#else
    (void)vendor_from_cpuinfo;
    assert_int_equal(kdf_cpu_vendor(), 0);
#endif
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], "bmi1") == 0 && usable[i])
            has_bmi1 = 1;
    if (!has_bmi1) {
        assert_string_equal(kdf_impl_name(KDF_PRIM_BLOWFISH), "portable");
        return;
    }
    print_message("# vendor %s: blowfish %s\n",
                  kdf_cpu_vendor() == KDF_VENDOR_INTEL ? "intel"
                  : kdf_cpu_vendor() == KDF_VENDOR_AMD ? "amd"
                                                       : "other",
                  kdf_impl_name(KDF_PRIM_BLOWFISH));
    assert_string_equal(kdf_impl_name(KDF_PRIM_BLOWFISH),
                        kdf_cpu_vendor() == KDF_VENDOR_INTEL ? "portable" : "bmi1");
    assert_int_equal(kdf_impl_force("bmi1"), KDF_OK);
    assert_string_equal(kdf_impl_name(KDF_PRIM_BLOWFISH), "bmi1");
    kdf_dispatch_force_mask(~0u);
}

/* The row the dispatcher picks must be the first usable one: every row's
 * self-test passes on a CPU that has its features. */
static void
test_pick_is_best_usable(void **state)
{
    const char *names[MAX_ROWS];
    int usable[MAX_ROWS];
    size_t n = kdf_impl_list(KDF_PRIM_BLAMKA, names, usable, MAX_ROWS);
    (void)state;

    assert_true(n >= 1);
    assert_string_equal(names[n - 1], "portable");
    assert_true(usable[n - 1]);
    for (size_t i = 0; i < n; i++) {
        if (usable[i]) {
            assert_string_equal(kdf_impl_name(KDF_PRIM_BLAMKA), names[i]);
            break;
        }
    }
    assert_null(kdf_blamka_block_impl(n));
}

int
main(void)
{
    static const size_t idx[MAX_ROWS] = {0, 1, 2, 3, 4, 5, 6, 7};
    static unsigned sha_codes[3][4];
    static char sha_names[3][4][32];
    static struct CMUnitTest tests[32];
    size_t nt = 0;

    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_pick_is_best_usable);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_picks);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_walker);
    tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_vendor_rows);
    for (size_t i = 0; i < 5; i++)
        tests[nt++] =
            (struct CMUnitTest)cmocka_unit_test_prestate(test_variant, (void *)&idx[i]);
    /* SHA: one test per compiled row, named after it. */
    for (int h = 0; h < 3; h++) {
        const struct kdf_dispatch_table *t = sha_tables[h];
        for (size_t i = 0; i < t->nrows && i < 4; i++) {
            sha_codes[h][i] = (unsigned)h << 8 | (unsigned)i;
            snprintf(sha_names[h][i], sizeof sha_names[h][i], "%s_%s", t->prim,
                     t->rows[i].name);
            tests[nt++] = (struct CMUnitTest){sha_names[h][i], test_sha_row, NULL, NULL,
                                              &sha_codes[h][i]};
        }
    }
    for (size_t i = 0; i < 3; i++)
        tests[nt++] =
            (struct CMUnitTest)cmocka_unit_test_prestate(test_blowfish_row, (void *)&idx[i]);
    return _cmocka_run_group_tests("simd", tests, nt, NULL, NULL);
}
