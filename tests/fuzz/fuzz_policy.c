/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_policy.c - libFuzzer target for the policy reader (core/api_policy.c,
 * core/api_target.c): kdfhash.conf through kdf_policy_load(), and the same
 * bytes as one module-argument override through kdf_policy_set(), built
 * with clang -fsanitize=fuzzer,address,undefined (tests/local.mk, fuzz
 * section).
 *
 * Input: the whole file, written as it is (mode 0600) to a temp file made
 * once; then the input split at its first '=' into a key and a value
 * (NUL-terminated copies, so a NUL inside ends them as it ends a module
 * argument).
 *
 * Properties checked on every input, besides "no crash, no sanitizer
 * report":
 *   1. All or nothing: on failure the policy is byte-identical to what it
 *      was and err says why (for the file: "PATH:..." naming it); on
 *      success err is empty.  A file that exists and is readable never
 *      fails with KDF_INTERNAL.
 *   2. A policy that loads (or is set) is usable: kdf_check_target() is
 *      OK for its target, every key is inside its documented range.
 *   3. Its xcrypt-only list is stored normalised and sets back to itself
 *      (check_xcrypt_only()).
 *   4. Its target round-trips: kdf_target_format() then kdf_target_parse()
 *      give the same target (bcrypt's salt and digest sizes may read 0 for
 *      the fixed 16 and 23), formatting that again gives the same text,
 *      and setting "target" to that text through kdf_policy_set() leaves
 *      the policy as it was.
 * A failed property prints the line and calls abort().
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "kdfhash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                         \
    do {                                                                                 \
        if (!(x)) {                                                                      \
            fprintf(stderr, "fuzz_policy: %s:%d: check failed: %s\n", __FILE__,          \
                    __LINE__, #x);                                                       \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static char g_dir[4096], g_path[4200];
static int g_fd = -1;

static void
cleanup(void)
{
    if (g_fd >= 0) {
        close(g_fd);
        unlink(g_path);
        rmdir(g_dir);
    }
}

static void
setup(void)
{
    if (g_fd >= 0)
        return;
    fuzz_make_dir(g_dir, sizeof g_dir, "fuzz-policy");
    g_fd = fuzz_open_file(g_dir, "kdfhash.conf", g_path, sizeof g_path, "fuzz_policy");
    atexit(cleanup);
}

/* bcrypt's sizes are fixed; kdf_check_target() reads 0 as "the same". */
static uint32_t
norm_size(const struct kdf_target *t, uint32_t v, uint32_t fixed)
{
    return t->scheme == KDF_SCHEME_BCRYPT && v == 0 ? fixed : v;
}

static int
same_target(const struct kdf_target *a, const struct kdf_target *b)
{
    if (a->scheme != b->scheme || a->cost != b->cost ||
        norm_size(a, a->salt_len, 16) != norm_size(b, b->salt_len, 16) ||
        norm_size(a, a->dk_len, 23) != norm_size(b, b->dk_len, 23))
        return 0;
    switch (a->scheme) {
    case KDF_SCHEME_ARGON2D:
    case KDF_SCHEME_ARGON2I:
    case KDF_SCHEME_ARGON2ID:
        return a->version == b->version && a->m_kib == b->m_kib && a->lanes == b->lanes;
    case KDF_SCHEME_BCRYPT:
        return a->bcrypt_minor == b->bcrypt_minor;
    case KDF_SCHEME_PBKDF2_SHA1:
    case KDF_SCHEME_PBKDF2_SHA256:
    case KDF_SCHEME_PBKDF2_SHA512:
        return a->format == b->format;
    case KDF_SCHEME_LEGACY:
        return a->xcrypt == b->xcrypt;
    default:
        return 1;
    }
}

/* xcrypt-only as stored: NUL-terminated inside its array and zero after
 * the NUL, "" or at most KDF_XCRYPT_ONLY_MAX_NAMES entries joined by one
 * comma, each an optional '@' and a name [a-z_][a-z0-9_.-]* of 1 to
 * KDF_XCRYPT_ONLY_NAME_MAX bytes, none twice, never "none"; and setting
 * the key to that text (or "none") gives the same bytes. */
static void
check_xcrypt_only(const char *l)
{
    char again[KDF_XCRYPT_ONLY_CAP], err[256];
    const char *nul = memchr(l, '\0', KDF_XCRYPT_ONLY_CAP);
    size_t n, count = 0;
    struct kdf_policy p;

    CHECK(nul != NULL);
    n = (size_t)(nul - l);
    for (size_t i = n; i < KDF_XCRYPT_ONLY_CAP; i++)
        CHECK(l[i] == '\0');
    for (size_t i = 0; i < n;) {
        size_t j = i + (l[i] == '@'), k = j;
        while (k < n && l[k] != ',')
            k++;
        CHECK(k > j && k - j <= KDF_XCRYPT_ONLY_NAME_MAX);
        CHECK((l[j] >= 'a' && l[j] <= 'z') || l[j] == '_');
        for (size_t c = j + 1; c < k; c++)
            CHECK((l[c] >= 'a' && l[c] <= 'z') || (l[c] >= '0' && l[c] <= '9') ||
                  l[c] == '_' || l[c] == '.' || l[c] == '-');
        CHECK(!(k - i == 4 && memcmp(l + i, "none", 4) == 0));
        for (size_t p0 = 0; p0 < i;) {
            size_t q = p0;
            while (l[q] != ',')
                q++;
            CHECK(!(q - p0 == k - i && memcmp(l + p0, l + i, k - i) == 0));
            p0 = q + 1;
        }
        count++;
        CHECK(k == n || k + 1 < n); /* no trailing comma */
        i = k + (k < n);
    }
    CHECK(count <= KDF_XCRYPT_ONLY_MAX_NAMES);
    kdf_policy_default(&p);
    memcpy(again, l, sizeof again);
    CHECK(kdf_policy_set(&p, "xcrypt-only", n > 0 ? again : "none", err, sizeof err) == KDF_OK);
    CHECK(memcmp(p.xcrypt_only, l, KDF_XCRYPT_ONLY_CAP) == 0);
}

/* Invariants 2 to 4 on a policy that was accepted. */
static void
check_usable(const struct kdf_policy *pol)
{
    struct kdf_target t2;
    struct kdf_policy again;
    char text[256], text2[256], err[256];
    const char *why = NULL;

    CHECK(kdf_check_target(&pol->target, pol, &why) == KDF_OK);
#define B(key, part) kdf_policy_bound_get(pol, key, part)
    CHECK(B("min.bcrypt", 0) >= 4 && B("min.bcrypt", 0) <= 31);
    CHECK(B("max.bcrypt", 0) >= 4 && B("max.bcrypt", 0) <= 31);
    CHECK(B("min.argon2", 0) >= 8 && B("min.argon2", 1) >= 1 && B("min.argon2", 2) >= 1);
    CHECK(B("max.memory-hard", 0) >= 8 && B("max.memory-hard", 1) >= 1 &&
          B("max.memory-hard", 2) >= 1);
    CHECK(B("min.argon2", 2) <= 0xFFFFFFu && B("max.memory-hard", 2) <= 0xFFFFFFu);
    CHECK(B("min.pbkdf2-sha1", 0) >= 1 && B("min.pbkdf2-sha256", 0) >= 1 &&
          B("min.pbkdf2-sha512", 0) >= 1 && B("max.pbkdf2", 0) >= 1);
    CHECK(B("min.pbkdf2-len", 0) >= 1 && B("min.pbkdf2-len", 0) <= KDF_MAX_DIGEST);
    CHECK(B("min.pbkdf2-salt", 0) >= 1 && B("min.pbkdf2-salt", 0) <= KDF_MAX_SALT);
#undef B
    CHECK(pol->max_password_len >= 1 && pol->max_password_len <= 1024u * 1024);
    CHECK(pol->max_threads >= 1 && pol->max_threads <= 256);
    CHECK(pol->migrate == 0 || pol->migrate == 1);
    CHECK(pol->normalize == 0 || pol->normalize == 1);
    check_xcrypt_only(pol->xcrypt_only);
    /* accept names only the native schemes: never empty, locked or a
     * crypt(3) one. */
    CHECK((pol->accept_mask &
           ((1u << KDF_SCHEME_EMPTY) | (1u << KDF_SCHEME_LOCKED) |
            (1u << KDF_SCHEME_LEGACY) | ~((1u << KDF_SCHEME_COUNT) - 1u))) == 0);

    CHECK(kdf_target_format(&pol->target, text, sizeof text) == KDF_OK);
    CHECK(text[0] != '\0');
    memset(&t2, 0, sizeof t2);
    if (kdf_target_parse(text, &t2, err, sizeof err) != KDF_OK) {
        fprintf(stderr, "fuzz_policy: \"%s\" does not parse back: %s\n", text, err);
        CHECK(0 && "formatted target parses");
    }
    if (!same_target(&pol->target, &t2)) {
        fprintf(stderr, "fuzz_policy: \"%s\" parses to another target\n", text);
        CHECK(0 && "formatted target parses to the same target");
    }
    CHECK(kdf_target_format(&t2, text2, sizeof text2) == KDF_OK);
    CHECK(strcmp(text, text2) == 0);

    memcpy(&again, pol, sizeof again);
    CHECK(kdf_policy_set(&again, "target", text, err, sizeof err) == KDF_OK);
    CHECK(same_target(&again.target, &pol->target));
    memcpy(&again.target, &pol->target, sizeof again.target);
    CHECK(memcmp(&again, pol, sizeof again) == 0);
}

static void
check_load(const uint8_t *data, size_t size)
{
    struct kdf_policy pol, before;
    char err[512];
    enum kdf_status st;
    size_t plen = strlen(g_path);

    CHECK(ftruncate(g_fd, 0) == 0);
    CHECK(size == 0 || pwrite(g_fd, data, size, 0) == (ssize_t)size);

    kdf_policy_default(&pol);
    memcpy(&before, &pol, sizeof pol);
    memset(err, 'x', sizeof err);
    st = kdf_policy_load(&pol, g_path, 0, err, sizeof err);
    CHECK(memchr(err, '\0', sizeof err) != NULL);
    if (st != KDF_OK) {
        CHECK(st != KDF_INTERNAL && st != KDF_NOMEM);
        CHECK(memcmp(&pol, &before, sizeof pol) == 0);
        CHECK(strncmp(err, g_path, plen) == 0 && err[plen] == ':' &&
              err[plen + 1] != '\0');
        return;
    }
    CHECK(err[0] == '\0');
    check_usable(&pol);
}

static void
check_set(const uint8_t *data, size_t size)
{
    const uint8_t *eq = memchr(data, '=', size);
    struct kdf_policy pol, before;
    char *key, *value, err[512];
    size_t klen, vlen;
    enum kdf_status st;

    if (eq == NULL)
        return;
    klen = (size_t)(eq - data);
    vlen = size - klen - 1;
    key = malloc(klen + 1);
    value = malloc(vlen + 1);
    CHECK(key != NULL && value != NULL);
    memcpy(key, data, klen);
    key[klen] = '\0';
    memcpy(value, eq + 1, vlen);
    value[vlen] = '\0';

    kdf_policy_default(&pol);
    memcpy(&before, &pol, sizeof pol);
    memset(err, 'x', sizeof err);
    st = kdf_policy_set(&pol, key, value, err, sizeof err);
    CHECK(memchr(err, '\0', sizeof err) != NULL);
    if (st != KDF_OK) {
        CHECK(st != KDF_INTERNAL && st != KDF_NOMEM);
        CHECK(memcmp(&pol, &before, sizeof pol) == 0);
        CHECK(err[0] != '\0');
    } else {
        CHECK(err[0] == '\0');
        check_usable(&pol);
    }
    free(key);
    free(value);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    check_load(data, size);
    check_set(data, size);
    return 0;
}
