/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_bcrypt.c - bcrypt ($2a$ $2b$ $2x$ $2y$) against libxcrypt's crypt_rn(),
 * including the 8-bit key handling of each minor.  The known answers,
 * the 8-bit collisions, allocation and wipe checks are in test_bcrypt_kat.c.
 *
 * Oracle: libxcrypt's crypt_rn() (Debian libcrypt1, an independent C
 * implementation with crypt_blowfish's semantics), computed in this process.
 * Nothing expected is computed by our own code.
 *
 * Usage: test_bcrypt [--count N] [--seed S]   (defaults 2000 and a fixed
 * seed; tests/soak/soak_bcrypt.sh runs a bigger count with a fresh seed).
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"
#include "kdf_scheme.h"

#include "alg_blowfish.h"

#include <crypt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bcrypt_common.h"

static unsigned long g_count = 2000;
static uint64_t g_seed = 0x6b646668617368ull; /* "kdfhash" */

/* ---- helpers ---- */

/* bcrypt's base64, written here independently of core/util_b64.c so that the
 * settings handed to libxcrypt do not depend on the code under test. */
static void
bf_b64(const uint8_t *in, size_t n, char *out)
{
    static const char tab[] =
        "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        if (i + 1 < n)
            out[o++] = tab[(v >> 6) & 63];
        if (i + 2 < n)
            out[o++] = tab[v & 63];
    }
    out[o] = '\0';
}

static void
make_setting(char minor, unsigned cost, const uint8_t salt[16], char out[30])
{
    snprintf(out, 8, "$2%c$%02u$", minor, cost);
    bf_b64(salt, 16, out + 7);
}

static const char minors[4] = {'a', 'b', 'x', 'y'};

/* ---- 1. differential against libxcrypt ---- */

/*
 * g_count random passwords (0..100 bytes, every byte value but NUL, so
 * the 72-byte cut and 8-bit bytes are both exercised) x the four minors;
 * costs cycle 4..6.  For each: crypt_rn(setting) is the oracle; our
 * kdf_row_bcrypt.hash() with the same salt must produce the identical string,
 * and kdf_verify() must accept the oracle's string.  Every other password,
 * one minor (in turn) also gets a password with one counted byte changed:
 * kdf_verify() must answer what crypt_rn() answers for it (a mismatch,
 * except where $2x$'s bug erases the byte).  Two threads share the work
 * (cmocka asserts stay in the main thread).
 */
struct diff_job {
    unsigned long first, hashes, verifies, wrong;
    char err[256];
};

static void *
diff_worker(void *p)
{
    static const unsigned cost_cycle[10] = {4, 4, 4, 4, 5, 4, 4, 4, 4, 6};
    struct diff_job *job = p;
    struct crypt_data *cd = calloc(1, sizeof *cd);

    if (cd == NULL) {
        snprintf(job->err, sizeof job->err, "no memory");
        return NULL;
    }
    for (unsigned long i = job->first; i < g_count && job->err[0] == '\0'; i += 2) {
        uint64_t s = g_seed + i * 0x100000001b3ull; /* one stream per password */
        char pw[101], setting[30], ours[64], ref[64];
        uint8_t salt[16];
        size_t len = (size_t)(rnd(&s) % 101);
        unsigned cost = cost_cycle[i % 10];

        for (size_t k = 0; k < len; k++)
            pw[k] = (char)(1 + rnd(&s) % 255);
        pw[len] = '\0';
        for (size_t k = 0; k < 16; k++)
            salt[k] = (uint8_t)rnd(&s);
        for (int m = 0; m < 4 && job->err[0] == '\0'; m++) {
            struct kdf_target t = bcrypt_target(minors[m], cost);
            const char *r;
            enum kdf_status st;

            make_setting(minors[m], cost, salt, setting);
            r = crypt_rn(pw, setting, cd, (int)sizeof *cd);
            if (r == NULL || strlen(r) != 60) {
                snprintf(job->err, sizeof job->err, "case %lu: crypt_rn failed", i);
                break;
            }
            memcpy(ref, r, 61);
            st = kdf_row_bcrypt.hash(pw, len, &t, NULL, salt, 16, ours, sizeof ours);
            if (st != KDF_OK || strcmp(ours, ref) != 0) {
                snprintf(job->err, sizeof job->err,
                         "case %lu minor %c len %zu: ours %s (%s) "
                         "libxcrypt %s",
                         i, minors[m], len, ours, kdf_status_str(st), ref);
                break;
            }
            job->hashes++;
            st = kdf_verify(pw, len, ref, 60);
            if (st != KDF_OK) {
                snprintf(job->err, sizeof job->err, "case %lu minor %c: verify %s", i,
                         minors[m], kdf_status_str(st));
                break;
            }
            job->verifies++;
            if ((i & 1) == 0 && (size_t)m == (i / 2) % 4) {
                /* The last counted byte changed (or one added to ""). */
                char wrong[101];
                size_t wl = len == 0 ? 1 : len;
                size_t at = len == 0 ? 0 : (len < 72 ? len : 72) - 1;
                enum kdf_status want;
                memcpy(wrong, pw, len + 1);
                wrong[at] = len == 0 ? 'x' : (char)(wrong[at] == 1 ? 2 : 1);
                wrong[wl] = '\0';
                r = crypt_rn(wrong, ref, cd, (int)sizeof *cd);
                want = r != NULL && strcmp(r, ref) == 0 ? KDF_OK : KDF_MISMATCH;
                st = kdf_verify(wrong, wl, ref, 60);
                if (st != want || (want == KDF_OK && minors[m] != 'x')) {
                    snprintf(job->err, sizeof job->err,
                             "case %lu minor %c: wrong password "
                             "gave %s",
                             i, minors[m], kdf_status_str(st));
                    break;
                }
                job->wrong++;
            }
        }
    }
    kdf_wipe(cd, sizeof *cd);
    free(cd);
    return NULL;
}

static void
test_differential(void **state)
{
    struct diff_job jobs[2];
    pthread_t th[2];
    unsigned long h = 0, v = 0, w = 0;
    (void)state;

    printf("# differential: %lu passwords x 4 minors, seed %llu\n", g_count,
           (unsigned long long)g_seed);
    for (int k = 0; k < 2; k++) {
        memset(&jobs[k], 0, sizeof jobs[k]);
        jobs[k].first = (unsigned long)k;
        assert_int_equal(pthread_create(&th[k], NULL, diff_worker, &jobs[k]), 0);
    }
    for (int k = 0; k < 2; k++) {
        assert_int_equal(pthread_join(th[k], NULL), 0);
        if (jobs[k].err[0] != '\0')
            fail_msg("%s (seed %llu)", jobs[k].err, (unsigned long long)g_seed);
        h += jobs[k].hashes;
        v += jobs[k].verifies;
        w += jobs[k].wrong;
    }
    printf("# differential: %lu/%lu hash strings identical to libxcrypt's, %lu/%lu "
           "verified, %lu changed passwords answered as libxcrypt does\n",
           h, 4 * g_count, v, 4 * g_count, w);
    assert_int_equal(h, 4 * g_count);
    assert_int_equal(v, 4 * g_count);
}

/* Passwords with a NUL inside: crypt_rn() sees only the bytes before it (a
 * C string), so "\0abc" would hash as the empty password.  hash and verify
 * refuse them (pyca/bcrypt raises ValueError); the bytes before the NUL,
 * without it, hash as crypt_rn() hashes them. */
static void
test_embedded_nul(void **state)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    uint64_t s = g_seed ^ 0x4e554cull;
    unsigned n = 0;
    (void)state;

    assert_non_null(cd);
    for (int i = 0; i < 40; i++) {
        char pw[90], setting[30], ours[64];
        uint8_t salt[16];
        size_t len = 1 + (size_t)(rnd(&s) % 89), cut = (size_t)(rnd(&s) % len);
        char minor = minors[i % 4];
        struct kdf_target t = bcrypt_target(minor, 4);
        const char *ref;

        for (size_t k = 0; k < len; k++)
            pw[k] = (char)(1 + rnd(&s) % 255);
        pw[cut] = '\0';
        for (size_t k = 0; k < 16; k++)
            salt[k] = (uint8_t)rnd(&s);
        make_setting(minor, 4, salt, setting);
        ref = crypt_rn(pw, setting, cd, (int)sizeof *cd); /* sees pw[0..cut) */
        assert_non_null(ref);
        assert_int_equal(kdf_row_bcrypt.hash(pw, len, &t, NULL, salt, 16, ours, sizeof ours),
                         KDF_RANGE);
        assert_int_equal(kdf_hash_ex(pw, len, &t, NULL, salt, 16, ours, sizeof ours), KDF_RANGE);
        assert_int_equal(kdf_verify(pw, len, ref, strlen(ref)), KDF_RANGE);
        assert_int_equal(kdf_row_bcrypt.hash(pw, cut, &t, NULL, salt, 16, ours, sizeof ours),
                         KDF_OK);
        assert_string_equal(ours, ref);
        assert_int_equal(kdf_verify(pw, cut, ref, strlen(ref)), KDF_OK);
        n++;
    }
    assert_int_equal(n, 40);
    free(cd);
}

/* ---- 3. fresh hashes verify in libxcrypt ---- */

static void
test_fresh_hash(void **state)
{
    struct crypt_data *cd = calloc(1, sizeof *cd);
    char out[64];
    (void)state;

    assert_non_null(cd);
    for (int m = 0; m < 4; m++) {
        struct kdf_target t = bcrypt_target(minors[m], 4);
        const char *r;
        assert_int_equal(kdf_hash("p\xc3\xa4ssw\xc3\xb6rd", 10, &t, out, sizeof out),
                         KDF_OK);
        assert_int_equal(strlen(out), 60);
        r = crypt_rn("p\xc3\xa4ssw\xc3\xb6rd", out, cd, (int)sizeof *cd);
        assert_non_null(r);
        assert_string_equal(r, out);
        assert_int_equal(kdf_verify("p\xc3\xa4ssw\xc3\xb6rd", 10, out, strlen(out)),
                         KDF_OK);
    }
    free(cd);
}

/* ---- 4. every Blowfish row of the dispatch table, forced ---- */

/* kdf_row_bcrypt.hash() above runs the row this CPU gets; here each row of
 * KDF_PRIM_BLOWFISH that this CPU can run is forced (the same hook as the
 * other primitives') and run against crypt_rn() on 100 random passwords x 4
 * minors at cost 4.  A row this CPU cannot run is reported and skipped; the
 * portable one always runs. */
static void
test_variants(void **state)
{
    const char *names[8];
    int usable[8];
    size_t nrows = kdf_impl_list(KDF_PRIM_BLOWFISH, names, usable, 8);
    struct crypt_data *cd = calloc(1, sizeof *cd);
    struct kdf_bf_ctx *ctx = calloc(1, sizeof *ctx);
    int ran = 0;
    (void)state;

    assert_non_null(cd);
    assert_non_null(ctx);
    assert_true(nrows >= 1 && nrows <= 8);
    assert_string_equal(names[nrows - 1], "portable");
    for (size_t v = 0; v < nrows; v++) {
        uint64_t s = g_seed ^ 0x76617269616e74ull;
        unsigned n = 0;
        if (!usable[v]) {
            assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLOWFISH, v), KDF_UNSUPPORTED);
            printf("# variant %s: not usable on this CPU, not run\n", names[v]);
            continue;
        }
        assert_int_equal(kdf_dispatch_force_index(KDF_PRIM_BLOWFISH, v), KDF_OK);
        assert_string_equal(kdf_impl_name(KDF_PRIM_BLOWFISH), names[v]);
        for (int i = 0; i < 100; i++) {
            char pw[101], setting[30], ours[64];
            uint8_t salt[16], raw[24];
            uint32_t sw[4], out[6];
            size_t len = (size_t)(rnd(&s) % 101);
            const char *ref;

            for (size_t k = 0; k < len; k++)
                pw[k] = (char)(1 + rnd(&s) % 255);
            pw[len] = '\0';
            for (size_t k = 0; k < 16; k++)
                salt[k] = (uint8_t)rnd(&s);
            for (size_t k = 0; k < 4; k++)
                sw[k] = kdf_load32_be(salt + 4 * k);
            for (int m = 0; m < 4; m++) {
                unsigned flags = minors[m] == 'a'   ? KDF_BF_FLAG_SAFETY
                                 : minors[m] == 'x' ? KDF_BF_FLAG_BUG
                                                    : 0;
                make_setting(minors[m], 4, salt, setting);
                ref = crypt_rn(pw, setting, cd, (int)sizeof *cd);
                assert_non_null(ref);
                /* pw has no NUL before len; 72+ byte keys are cut by the
                 * core itself. */
                kdf_bf_bcrypt(ctx, pw, flags, sw, 4, out);
                for (size_t k = 0; k < 6; k++)
                    kdf_store32_be(raw + 4 * k, out[k]);
                memcpy(ours, setting, 29);
                bf_b64(raw, 23, ours + 29);
                if (strcmp(ours, ref) != 0)
                    fail_msg("variant %s case %d minor %c: %s vs %s", names[v], i,
                             minors[m], ours, ref);
                n++;
            }
        }
        printf("# variant %s: %u/400 identical to libxcrypt\n", names[v], n);
        ran++;
    }
    kdf_dispatch_force_mask(~0u); /* back to the automatic pick */
    assert_true(ran >= 1);
    kdf_wipe(ctx, sizeof *ctx);
    free(ctx);
    free(cd);
}

int
main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_nul),
        cmocka_unit_test(test_fresh_hash),
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_differential),
    };

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
            g_count = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            g_seed = strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--count N] [--seed S]\n", argv[0]);
            return 2;
        }
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
