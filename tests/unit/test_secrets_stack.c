/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_secrets_stack.c - nothing secret is left on the stack after a
 * verify or a hash (every secret is wiped with kdf_wipe() on every return
 * path: doc/DESIGN.md "Memory, threads and secrets").
 *
 * Method (libxcrypt test/explicit-bzero.c): run the call on a private stack
 * (makecontext/swapcontext) that was filled with a known pattern, switch
 * back, then scan every byte the call used for any 8-byte window of
 *   - the password (a random 32-byte one, and a wrong one of the same kind),
 *     as bytes and as the big-endian 32/64-bit words a hash loads them as;
 *   - the derived digest/tag (bytes and word forms);
 *   - the expanded key where we can compute it on the normal stack:
 *     bcrypt's P-array and S-boxes after EksBlowfish (cost 4), the HMAC
 *     ipad/opad chaining values of PBKDF2, Argon2's H0 (RFC 9106 3.2).
 * Required: 0 hits, for every scheme (bcrypt, PBKDF2 in its three spellings
 * and three hashes, Argon2id, legacy $6$) and every SHA/BlaMka variant this
 * CPU can run (kdf_impl_force), on the match and the mismatch paths.
 *
 * A positive control (a function that leaves the password in a local on
 * purpose) proves the scan finds what is there; under ASan with a fake
 * stack, locals are not on the machine stack and the case is skipped with
 * that reason.
 */
#include "kdf_prelude.h"
#include "util_random.h"

#include <crypt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cmocka.h>

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
/* Under valgrind the private stack is dead stack once we switch back:
 * tell memcheck that reading and refilling it is meant (no-ops natively). */
#include <valgrind/memcheck.h>
#define KDF_HAVE_MEMCHECK_H 1
#endif
#endif
#ifndef KDF_HAVE_MEMCHECK_H
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#define VALGRIND_STACK_REGISTER(lo, hi) ((void)(lo), (void)(hi), 0u)
#define VALGRIND_STACK_DEREGISTER(id) ((void)(id))
#endif

#include "alg_blake2b.h"
#include "alg_blowfish.h"
#include "alg_sha.h"

#define STACK_SZ (1024 * 1024)
#define FILL 0x5a
#define PW_LEN 32
#define MAX_PATS 8192

enum cat { C_PW, C_WRONG, C_DIGEST, C_KEY, C_COUNT };
static const char *const cat_name[C_COUNT] = {"password", "wrong password", "digest/tag",
                                              "expanded key"};

struct pat {
    uint64_t v;
    int cat;
};

static struct pat g_pat[MAX_PATS];
static size_t g_npat;

static uint8_t *g_map, *g_stack; /* g_stack: above one PROT_NONE guard page */
static ucontext_t g_main_ctx, g_work_ctx;
static void (*g_fn)(void);
static unsigned g_vg_stack; /* valgrind's id of the private stack */
static char g_pw[PW_LEN + 1], g_wrong[PW_LEN + 1];

/* ---- patterns -------------------------------------------------------- */

static void
pat_add64(uint64_t v, int cat)
{
    if (g_npat < MAX_PATS && v != 0 && v != ~(uint64_t)0)
        g_pat[g_npat++] = (struct pat){v, cat};
}

/* Every 8-byte window of buf[0..n) as bytes; plus the windows of the same
 * bytes read as big-endian 32-bit and 64-bit words stored natively (how the
 * SHA and Blowfish code hold them). */
static void
pat_add_bytes(const uint8_t *buf, size_t n, int cat)
{
    uint8_t sw[256];
    uint64_t v;

    if (n > sizeof sw)
        n = sizeof sw;
    for (size_t i = 0; i + 8 <= n; i++) {
        memcpy(&v, buf + i, 8);
        pat_add64(v, cat);
    }
    for (size_t i = 0; i + 4 <= n; i += 4) {
        uint32_t w = kdf_load32_be(buf + i);
        memcpy(sw + i, &w, 4);
    }
    for (size_t i = 0; i + 8 <= (n & ~(size_t)3); i += 4) {
        memcpy(&v, sw + i, 8);
        pat_add64(v, cat);
    }
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w = kdf_load64_be(buf + i);
        pat_add64(w, cat);
    }
}

/* Native in-memory words (uint32 arrays): 8-byte windows at 4-byte steps. */
static void
pat_add_words(const void *mem, size_t n, int cat)
{
    const uint8_t *p = mem;
    uint64_t v;
    for (size_t i = 0; i + 8 <= n; i += 4) {
        memcpy(&v, p + i, 8);
        pat_add64(v, cat);
    }
}

static int
pat_cmp(const void *a, const void *b)
{
    const struct pat *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

static void
pats_reset(void)
{
    g_npat = 0;
    pat_add_bytes((const uint8_t *)g_pw, PW_LEN, C_PW);
    pat_add_bytes((const uint8_t *)g_wrong, PW_LEN, C_WRONG);
}

/* ---- the private stack ----------------------------------------------- */

static void
trampoline(void)
{
    g_fn();
}

/* Run fn on a freshly filled private stack. */
static void
run_on_stack(void (*fn)(void))
{
    VALGRIND_MAKE_MEM_UNDEFINED(g_stack, STACK_SZ);
    memset(g_stack, FILL, STACK_SZ);
    g_fn = fn;
    assert_int_equal(getcontext(&g_work_ctx), 0);
    g_work_ctx.uc_stack.ss_sp = g_stack;
    g_work_ctx.uc_stack.ss_size = STACK_SZ;
    g_work_ctx.uc_link = &g_main_ctx;
    makecontext(&g_work_ctx, trampoline, 0);
    assert_int_equal(swapcontext(&g_main_ctx, &g_work_ctx), 0);
    VALGRIND_MAKE_MEM_DEFINED(g_stack, STACK_SZ);
}

/* Scan the part of the private stack the call touched (the stack grows
 * down from the top: everything above the lowest changed byte) and count
 * hits per category; print each hit's place for the report. */
static size_t
scan_stack(const char *what, size_t per_cat[C_COUNT])
{
    size_t lo = 0, hits = 0;

    qsort(g_pat, g_npat, sizeof g_pat[0], pat_cmp);
    while (lo < STACK_SZ && g_stack[lo] == FILL)
        lo++;
    assert_true(lo > 4096); /* the call did not run into the guard page */
    for (size_t i = lo; i + 8 <= STACK_SZ; i++) {
        struct pat key, *hit;
        memcpy(&key.v, g_stack + i, 8);
        hit = bsearch(&key, g_pat, g_npat, sizeof g_pat[0], pat_cmp);
        if (hit != NULL) {
            if (per_cat != NULL)
                per_cat[hit->cat]++;
            if (hits < 8)
                print_message("[  HIT     ] %s: %s at stack top - %zu\n", what,
                              cat_name[hit->cat], (size_t)STACK_SZ - i);
            hits++;
        }
    }
    return hits;
}

/* ---- the cases ------------------------------------------------------- */

struct scase {
    const char *name;
    char hash[KDF_MAX_HASH_STR + 1];
};

static const struct scase *g_case;
static enum kdf_status g_st_ok, g_st_bad;
static struct kdf_policy g_pol1; /* default caps, one Argon2 thread */

static void
do_verify(void)
{
    struct kdf_hash h;
    g_st_ok = kdf_verify(g_pw, PW_LEN, g_case->hash, strlen(g_case->hash));
    g_st_bad = kdf_verify(g_wrong, PW_LEN, g_case->hash, strlen(g_case->hash));
    /* The same with the lanes in this thread (no helper threads whose
     * stacks we cannot see). */
    if (kdf_parse(g_case->hash, strlen(g_case->hash), &h, NULL) == KDF_OK &&
        (kdf_verify_ex(g_pw, PW_LEN, &h, &g_pol1, NULL, 0) != g_st_ok ||
         kdf_verify_ex(g_wrong, PW_LEN, &h, &g_pol1, NULL, 0) != g_st_bad))
        g_st_ok = KDF_INTERNAL;
}

static char g_out[KDF_MAX_HASH_STR + 1];
static struct kdf_target g_tgt;

static void
do_hash(void)
{
    g_st_ok = kdf_hash(g_pw, PW_LEN, &g_tgt, g_out, sizeof g_out);
}

/* Positive control: a copy of the password left in a local on purpose.
 * Its address goes to a function the compiler cannot see through, so the
 * array is one contiguous object (clang splits an unescaped volatile array
 * into scattered byte slots). */
static void
use_copy(const char *p)
{
    g_st_ok = p[3] == g_pw[3] ? KDF_OK : KDF_INTERNAL;
}

static void (*volatile g_use_copy)(const char *) = use_copy;

static __attribute__((noinline)) void
leave_password(void)
{
    char copy[PW_LEN];
    memcpy(copy, g_pw, PW_LEN);
    g_use_copy(copy);
}

static void
rand_pw(char *pw)
{
    uint8_t r[PW_LEN];
    if (kdf_random(r, sizeof r) != KDF_OK)
        abort(); /* the harness, not the code under test */
    for (size_t i = 0; i < PW_LEN; i++)
        pw[i] = (char)(r[i] == 0 ? 1 : r[i]); /* C strings for crypt(3) */
    pw[PW_LEN] = '\0';
}

/* The expanded key of each scheme, computed on the normal stack. */
static void
add_expanded_bcrypt(const struct kdf_hash *h)
{
    static struct kdf_bf_ctx ctx;
    uint8_t salt[KDF_MAX_SALT];
    uint32_t sw[4], out[6];
    size_t n = 0;

    assert_int_equal(kdf_decode_salt(h, salt, sizeof salt, &n), KDF_OK);
    assert_int_equal(n, 16);
    for (size_t i = 0; i < 4; i++)
        sw[i] = kdf_load32_be(salt + 4 * i);
    kdf_bf_bcrypt(&ctx, g_pw, 0, sw, h->cost, out);
    pat_add_words(ctx.st.P, sizeof ctx.st.P, C_KEY);
    pat_add_words(ctx.st.S, sizeof ctx.st.S, C_KEY);
    kdf_wipe(&ctx, sizeof ctx);
}

static void
add_expanded_hmac(enum kdf_prim hash, const char *pw)
{
    struct kdf_md md;
    struct kdf_hmac_key k;
    assert_int_equal(kdf_md_bind(&md, hash), KDF_OK);
    kdf_hmac_key_init(&k, &md, (const uint8_t *)pw, PW_LEN);
    pat_add_words(&k.ipad, md.state_len, C_KEY);
    pat_add_words(&k.opad, md.state_len, C_KEY);
    kdf_wipe(&k, sizeof k);
}

/* H0 of RFC 9106 section 3.2 for a hash without secret and AD. */
static void
add_argon2_h0(const struct kdf_hash *h, const char *pw)
{
    uint8_t in[4 * 10 + PW_LEN + KDF_MAX_SALT], h0[64], salt[KDF_MAX_SALT];
    uint32_t f[6] = {h->lanes, h->dk_len, h->m_kib, h->cost, h->version, 2 /* id */};
    size_t n = 0, sl = 0;

    assert_int_equal(kdf_decode_salt(h, salt, sizeof salt, &sl), KDF_OK);
    for (size_t i = 0; i < 6; i++, n += 4)
        kdf_store32_le(in + n, f[i]);
    kdf_store32_le(in + n, PW_LEN), n += 4;
    memcpy(in + n, pw, PW_LEN), n += PW_LEN;
    kdf_store32_le(in + n, (uint32_t)sl), n += 4;
    memcpy(in + n, salt, sl), n += sl;
    kdf_store32_le(in + n, 0), n += 4; /* K */
    kdf_store32_le(in + n, 0), n += 4; /* X */
    assert_int_equal(kdf_blake2b(h0, 64, in, n, NULL, 0), 0);
    pat_add_bytes(h0, 64, C_KEY);
    pat_add_words(h0, 64, C_KEY);
    kdf_wipe(in, sizeof in);
}

#define NCASES 12
static struct scase g_cases[NCASES];
static size_t g_ncases;

static void
make_cases(void)
{
    static const struct {
        enum kdf_scheme s;
        enum kdf_format f;
        uint32_t dk;
    } pb[] = {
        {KDF_SCHEME_PBKDF2_SHA1, KDF_FMT_PASSLIB, 20},
        {KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_PASSLIB, 32},
        {KDF_SCHEME_PBKDF2_SHA512, KDF_FMT_PASSLIB, 64},
        {KDF_SCHEME_PBKDF2_SHA1, KDF_FMT_PHC, 20},
        {KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_PHC, 32},
        {KDF_SCHEME_PBKDF2_SHA512, KDF_FMT_PHC, 64},
        {KDF_SCHEME_PBKDF2_SHA256, KDF_FMT_DJANGO, 32},
        {KDF_SCHEME_PBKDF2_SHA1, KDF_FMT_DJANGO, 20},
    };
    struct crypt_data *cd = calloc(1, sizeof *cd);
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    uint8_t salt[16];

    assert_non_null(cd);
    rand_pw(g_pw);
    rand_pw(g_wrong);
    g_ncases = 0;
    /* bcrypt and $6$ made by libxcrypt (an independent implementation). */
    assert_non_null(crypt_gensalt_rn("$2b$", 4, NULL, 0, setting, sizeof setting));
    assert_non_null(crypt_rn(g_pw, setting, cd, (int)sizeof *cd));
    g_cases[g_ncases].name = "bcrypt $2b$04$";
    snprintf(g_cases[g_ncases++].hash, sizeof g_cases[0].hash, "%s", cd->output);
    assert_non_null(crypt_gensalt_rn("$6$", 1000, NULL, 0, setting, sizeof setting));
    assert_non_null(crypt_rn(g_pw, setting, cd, (int)sizeof *cd));
    g_cases[g_ncases].name = "legacy $6$rounds=1000";
    snprintf(g_cases[g_ncases++].hash, sizeof g_cases[0].hash, "%s", cd->output);
    explicit_bzero(cd, sizeof *cd);
    free(cd);
    /* PBKDF2 and Argon2id fixtures from our own hasher: what is tested is
     * the stack after the verify, not the value (the KATs do that). */
    for (size_t i = 0; i < sizeof pb / sizeof pb[0]; i++) {
        struct kdf_target t = {pb[i].s, pb[i].f, 0, 0, 1000, 0, 0, 16, pb[i].dk, KDF_XCRYPT_NONE, 0, {0}};
        assert_int_equal(kdf_random(salt, sizeof salt), KDF_OK);
        if (pb[i].f == KDF_FMT_DJANGO)
            for (size_t k = 0; k < sizeof salt; k++)
                salt[k] = (uint8_t)('a' + salt[k] % 26); /* Django: a text salt */
        assert_int_equal(kdf_hash_salt(g_pw, PW_LEN, &t, salt, sizeof salt, g_cases[g_ncases].hash,
                                       sizeof g_cases[0].hash),
                         KDF_OK);
        g_cases[g_ncases++].name = pb[i].f == KDF_FMT_DJANGO    ? "pbkdf2 django"
                                   : pb[i].f == KDF_FMT_PASSLIB ? "pbkdf2 passlib"
                                                                : "pbkdf2 phc";
    }
    {
        struct kdf_target t = {KDF_SCHEME_ARGON2ID, KDF_FMT_NATIVE, 0, 0x13, 1, 1024, 1, 16, 32, KDF_XCRYPT_NONE, 0, {0}};
        assert_int_equal(kdf_random(salt, sizeof salt), KDF_OK);
        assert_int_equal(kdf_hash_salt(g_pw, PW_LEN, &t, salt, sizeof salt, g_cases[g_ncases].hash,
                                       sizeof g_cases[0].hash),
                         KDF_OK);
        g_cases[g_ncases++].name = "argon2id m=1024";
    }
}

/* The patterns of one case: passwords, digest, expanded key. */
static void
case_patterns(const struct scase *c)
{
    struct kdf_hash h;
    uint8_t dig[KDF_MAX_DIGEST];
    size_t dn = 0;

    pats_reset();
    assert_int_equal(kdf_parse(c->hash, strlen(c->hash), &h, NULL), KDF_OK);
    if (h.scheme != KDF_SCHEME_LEGACY) {
        assert_int_equal(kdf_decode_digest(&h, dig, sizeof dig, &dn), KDF_OK);
        pat_add_bytes(dig, dn, C_DIGEST);
    }
    switch (h.scheme) {
    case KDF_SCHEME_BCRYPT:
        add_expanded_bcrypt(&h);
        break;
    case KDF_SCHEME_PBKDF2_SHA1:
    case KDF_SCHEME_PBKDF2_SHA256:
    case KDF_SCHEME_PBKDF2_SHA512: {
        /* The algorithms name the scheme's hash by its primitive. */
        enum kdf_prim hash = h.scheme == KDF_SCHEME_PBKDF2_SHA1     ? KDF_PRIM_SHA1
                             : h.scheme == KDF_SCHEME_PBKDF2_SHA256 ? KDF_PRIM_SHA256
                                                                    : KDF_PRIM_SHA512;
        add_expanded_hmac(hash, g_pw);
        add_expanded_hmac(hash, g_wrong);
        break;
    }
    case KDF_SCHEME_ARGON2ID:
        add_argon2_h0(&h, g_pw);
        add_argon2_h0(&h, g_wrong);
        break;
    default:
        break;
    }
}

static int
control_works(void)
{
    pats_reset();
    run_on_stack(leave_password);
    return scan_stack("control", NULL) > 0;
}

/* Every case under the variant currently forced. */
static size_t
scan_all_cases(const char *variant, size_t per_cat[C_COUNT])
{
    size_t total = 0;
    char what[128];

    for (size_t i = 0; i < g_ncases; i++) {
        size_t hits;
        g_case = &g_cases[i];
        case_patterns(g_case);
        run_on_stack(do_verify);
        assert_int_equal(g_st_ok, KDF_OK);
        assert_int_equal(g_st_bad, KDF_MISMATCH);
        snprintf(what, sizeof what, "%s [%s] verify", g_case->name, variant);
        hits = scan_stack(what, per_cat);
        print_message("[          ] %-22s %-9s %4zu patterns, %zu hits\n", g_case->name,
                      variant, g_npat, hits);
        total += hits;
    }
    return total;
}

static void
test_control(void **state)
{
    (void)state;
    if (!control_works()) {
        print_message("a local copy of the password is not on the machine stack "
                      "(ASan fake stack?): the scan cannot see locals here\n");
        skip();
    }
}

static void
test_verify_every_variant(void **state)
{
    const char *names[16];
    int usable[16];
    const char *done[32];
    size_t ndone = 0, total = 0, per_cat[C_COUNT] = {0};
    (void)state;

    if (!control_works()) {
        print_message("stack scan blind in this build (ASan fake stack): skipped\n");
        skip();
    }
    make_cases();
    kdf_policy_default(&g_pol1);
    g_pol1.max_threads = 1;
    /* portable first, then each other variant name of any primitive; a
     * forced name applies to every primitive that has it, the others keep
     * their last pick. */
    assert_int_equal(kdf_impl_force("portable"), KDF_OK);
    total += scan_all_cases("portable", per_cat);
    done[ndone++] = "portable";
    for (int p = 0; p < KDF_PRIM_COUNT; p++) {
        size_t n = kdf_impl_list((enum kdf_prim)p, names, usable, 16);
        for (size_t i = 0; i < n && i < 16; i++) {
            int seen = 0;
            for (size_t k = 0; k < ndone; k++)
                seen |= strcmp(done[k], names[i]) == 0;
            if (seen || !usable[i] || ndone == 32)
                continue;
            done[ndone++] = names[i];
            assert_int_equal(kdf_impl_force(names[i]), KDF_OK);
            total += scan_all_cases(names[i], per_cat);
        }
    }
    for (int c = 0; c < C_COUNT; c++)
        print_message("[          ] %s: %zu hits\n", cat_name[c], per_cat[c]);
    assert_int_equal(total, 0);
}

static void
test_hash(void **state)
{
    static const struct kdf_target tg[] = {
        {KDF_SCHEME_ARGON2ID, KDF_FMT_NATIVE, 0, 0x13, 1, 1024, 1, 16, 32, KDF_XCRYPT_NONE, 0, {0}},
        {KDF_SCHEME_BCRYPT, KDF_FMT_NATIVE, 'b', 0, 4, 0, 0, 16, 23, KDF_XCRYPT_NONE, 0, {0}},
        {KDF_SCHEME_PBKDF2_SHA512, KDF_FMT_PHC, 0, 0, 1000, 0, 0, 16, 64, KDF_XCRYPT_NONE, 0, {0}},
    };
    size_t total = 0;
    (void)state;

    if (!control_works()) {
        print_message("stack scan blind in this build (ASan fake stack): skipped\n");
        skip();
    }
    rand_pw(g_pw);
    rand_pw(g_wrong);
    for (size_t i = 0; i < sizeof tg / sizeof tg[0]; i++) {
        size_t hits;
        pats_reset();
        g_tgt = tg[i];
        run_on_stack(do_hash);
        assert_int_equal(g_st_ok, KDF_OK);
        hits = scan_stack(kdf_scheme_name(tg[i].scheme), NULL);
        print_message("[          ] kdf_hash %-14s %zu hits\n", kdf_scheme_name(tg[i].scheme),
                      hits);
        total += hits;
    }
    assert_int_equal(total, 0);
}

static int
setup(void **state)
{
    (void)state;
    g_map = mmap(NULL, STACK_SZ + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
    if (g_map == MAP_FAILED || mprotect(g_map, 4096, PROT_NONE) != 0)
        return -1;
    g_stack = g_map + 4096;
    g_vg_stack = VALGRIND_STACK_REGISTER(g_stack, g_stack + STACK_SZ);
    rand_pw(g_pw);
    rand_pw(g_wrong);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    VALGRIND_STACK_DEREGISTER(g_vg_stack);
    munmap(g_map, STACK_SZ + 4096);
    explicit_bzero(g_pw, sizeof g_pw);
    explicit_bzero(g_wrong, sizeof g_wrong);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control),
        cmocka_unit_test(test_verify_every_variant),
        cmocka_unit_test(test_hash),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
