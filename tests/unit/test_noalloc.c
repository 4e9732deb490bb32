/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_noalloc.c - parse, encode, decode, needs-rehash and the caps check
 * allocate nothing on the heap (doc/DESIGN.md "Memory, threads and secrets").
 *
 * Linked with testlib's allocation counter: every malloc, calloc, realloc,
 * free (and mmap, posix_memalign, aligned_alloc) our objects make is
 * counted.  The counts are read just before and just after the calls under
 * test, because cmocka itself allocates.  (The wrap sees calls made by our
 * code, not those made inside libc; the parser calls nothing in libc but
 * memcmp/memchr/memcpy/memset.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alloc_count.h"
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
    "",
    "!",
    "*LK*",
};
#undef KDF_VEC

/* Everything the login path does with a stored string before verifying.
 * Returns how many strings parsed. */
static size_t
exercise(const char *s, size_t len, const struct kdf_policy *pol)
{
    struct kdf_hash h;
    char buf[KDF_MAX_HASH_STR + 1];
    uint8_t salt[KDF_MAX_SALT], dig[KDF_MAX_DIGEST];
    const char *why = NULL;
    size_t n;
    volatile int sink = 0;

    if (kdf_parse(s, len, &h, &why) != KDF_OK)
        return 0;
    sink += (int)kdf_encode(&h, buf, sizeof buf, &n);
    sink += (int)kdf_decode_salt(&h, salt, sizeof salt, &n);
    sink += (int)kdf_decode_digest(&h, dig, sizeof dig, &n);
    sink += (int)kdf_needs_rehash(&h, pol);
    sink += (int)kdf_check_caps(&h, 8, pol, &why);
    sink += (int)kdf_check_caps(&h, 100000, pol, &why);
    (void)sink;
    return 1;
}

static void
test_no_allocation(void **state)
{
    struct kdf_policy pol;
    size_t ok = 0, nvec = sizeof vectors / sizeof vectors[0];
    size_t nbad = sizeof bad / sizeof bad[0];
    struct alloc_count before, after;
    char *big = malloc(4096);

    (void)state;
    assert_non_null(big);
    memset(big, 'A', 4096);
    memcpy(big, "$argon2id$v=19$m=", 17);
    kdf_policy_default(&pol);

    before = alloc_count;
    for (size_t i = 0; i < nvec; i++)
        ok += exercise(vectors[i], strlen(vectors[i]), &pol);
    for (size_t i = 0; i < nbad; i++)
        ok += exercise(bad[i].s, bad[i].len, &pol);
    ok += exercise(big, 4096, &pol);
    after = alloc_count;

    /* every vector parsed, no hostile string did */
    assert_int_equal(ok, nvec);
    assert_int_equal(after.n_malloc - before.n_malloc, 0);
    assert_int_equal(after.n_calloc - before.n_calloc, 0);
    assert_int_equal(after.n_realloc - before.n_realloc, 0);
    assert_int_equal(after.n_free - before.n_free, 0);
    assert_int_equal(after.n_memalign - before.n_memalign, 0);
    assert_int_equal(after.n_mmap - before.n_mmap, 0);
    free(big);
}

/* The counters are live: an allocation made while counting is seen.  (A
 * test that cannot fail proves nothing.) */
static void
test_counter_works(void **state)
{
    /* through volatile pointers, so the compiler cannot elide the pairs */
    void *(*volatile do_malloc)(size_t) = malloc;
    void *(*volatile do_calloc)(size_t, size_t) = calloc;
    void *(*volatile do_realloc)(void *, size_t) = realloc;
    void (*volatile do_free)(void *) = free;
    struct alloc_count before, after;
    void *p;

    (void)state;
    before = alloc_count;
    p = do_malloc(16);
    p = do_realloc(p, 32);
    do_free(p);
    p = do_calloc(2, 8);
    do_free(p);
    after = alloc_count;
    assert_int_equal(after.n_malloc - before.n_malloc, 1);
    assert_int_equal(after.n_realloc - before.n_realloc, 1);
    assert_int_equal(after.n_calloc - before.n_calloc, 1);
    assert_int_equal(after.n_free - before.n_free, 2);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_works),
        cmocka_unit_test(test_no_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
