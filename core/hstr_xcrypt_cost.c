/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hstr_xcrypt_cost.c - what a crypt(3) setting asks of libxcrypt, read from the
 * string alone, before libxcrypt is called: the rounds of the iterated
 * schemes and the memory and memory traffic of the memory-hard ones.
 *
 * One line of a shadow file chooses these numbers, and anyone who can start
 * a login makes the machine pay them: "$sha1$4294967295$..." is hours of
 * HMAC-SHA1, "$7$" with p = 2^30 is unbounded time at small memory,
 * "$y$jzT$" terabytes.  kdf_check_caps() compares them with the policy's
 * caps (one table, api_rehash.c) and refuses before any work.
 *
 * The encodings are libxcrypt's (crypt(5), crypt-sha1.c, crypt-sunmd5.c,
 * crypt-bsdi.c, crypt-scrypt.c, crypt-yescrypt.c):
 *   $5$ $6$ $sm3$   [rounds=N$]            decimal, 5000 when absent
 *   $sha1$N$                               decimal
 *   $md5,rounds=N$ / $md5$rounds=N$        decimal, plus 4096 base rounds
 *   _CCCC                                  24 bits, itoa64, least first
 *   $7$ N rrrrr ppppp                      log2 N; r and p 30 bits each
 *   $y$ / $gy$ flavor N r [have [p] [t] [g] [NROM]]
 *                                          yescrypt's variable-length
 *                                          numbers (decode64_uint32)
 * Every other setting ($1$, $3$, DES, ...) has a fixed, small cost.  A
 * setting of one of the schemes above that does not decode is reported as
 * such: the caller fails closed rather than guess what libxcrypt would make
 * of it.
 */
#include "kdf_prelude.h"
#include "hstr_xcrypt_cost.h"

#include <crypt.h>

/* Saturation point: costs above this are all "too much". */
#define COST_MAX ((uint64_t)1 << 62)

static int
itoa64(char c)
{
    if (c == '.' || c == '/')
        return c == '.' ? 0 : 1;
    if (c >= '0' && c <= '9')
        return c - '0' + 2;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 12;
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 38;
    return -1;
}

static int
has_prefix(const char *s, size_t n, const char *p)
{
    size_t pl = strlen(p);
    return n >= pl && memcmp(s, p, pl) == 0;
}

/* Decimal at s[*pos] up to a non-digit; saturates.  -1 when no digit. */
static int
decimal(const char *s, size_t n, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = *pos;

    if (i >= n || s[i] < '0' || s[i] > '9')
        return -1;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        v = v > COST_MAX / 10 ? COST_MAX : v * 10 + (uint64_t)(s[i] - '0');
    *pos = i;
    *out = v > COST_MAX ? COST_MAX : v;
    return 0;
}

/* yescrypt's decode64_uint32(): 0 and *pos advanced, or -1.  Checked
 * against libxcrypt: "$y$j9kD$" (r = 64) takes 32 MiB, twice "$y$j9T$". */
static int
yes_decode(const char *s, size_t n, size_t *pos, uint32_t min, uint32_t *out)
{
    uint32_t start = 0, end = 47, chars = 1, bits = 0;
    uint64_t v = min;
    int c;

    if (*pos >= n || (c = itoa64(s[*pos])) < 0)
        return -1;
    (*pos)++;
    while ((uint32_t)c > end) {
        v += (uint64_t)(end + 1 - start) << bits;
        start = end + 1;
        end = start + (62 - end) / 2;
        chars++;
        bits += 6;
    }
    v += (uint64_t)((uint32_t)c - start) << bits;
    /* The first character carried the highest bits; the others follow
     * from high to low. */
    while (--chars) {
        if (*pos >= n || (c = itoa64(s[*pos])) < 0)
            return -1;
        (*pos)++;
        bits -= 6;
        v += (uint64_t)c << bits;
    }
    if (v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* a * b, saturating at COST_MAX. */
static uint64_t
mul_sat(uint64_t a, uint64_t b)
{
    if (a != 0 && b > COST_MAX / a)
        return COST_MAX;
    return a * b;
}

/* a + b, saturating at COST_MAX. */
static uint64_t
add_sat(uint64_t a, uint64_t b)
{
    return a > COST_MAX - (b > COST_MAX ? COST_MAX : b) ? COST_MAX : a + b;
}

/* 128 * r * 2^nlog2 bytes (V, one chain's area) in KiB, rounded up and
 * saturating: one block of 128 bytes is already an eighth of a KiB, so
 * rounding down would call a small-N setting free. */
static uint64_t
v_kib(uint32_t nlog2, uint64_t r)
{
    if (nlog2 >= 62)
        return COST_MAX;
    return (mul_sat(r, (uint64_t)1 << nlog2) + 7) / 8;
}

/* 128 * r * p bytes (B, the PBKDF2 output the chains start from) in KiB,
 * rounded up. */
static uint64_t
b_kib(uint64_t r, uint64_t p)
{
    return (mul_sat(r, p) + 7) / 8;
}

/*
 * What libxcrypt's yescrypt_kdf_body() (alg-yescrypt-opt.c, the code both
 * "$7$" and "$y$" run, built without OpenMP) really spends:
 *
 * Memory: V (128 r N) once, B (128 r p), XY (256 r) and, in the RW flavors,
 * one pwxform S-box context per lane (Salloc, a little over 12 KiB).  All
 * of it is taken from the memory budget; the caps compare V and B each with
 * max.memory-hard m (V is what Argon2's m is: the area the walk fills), so the
 * largest setting libxcrypt makes ("$y$jFT$", V = 1 GiB) sits at the
 * default cap as Argon2's m = 1 GiB does.
 *
 * Work, counted in KiB passes as Argon2's caps are: classic scrypt (flavor
 * 0, every "$7$") and YESCRYPT_WORM (flavor 1) run p chains one after the
 * other, each filling V and reading it back (N + 1.5 t N block mixes, so at
 * most 2 + 2t passes over V); the RW flavors split one such walk (at most
 * 2 + t passes) between p lanes.  Then PBKDF2-HMAC-SHA256 makes B and
 * hashes it again: two SHA-256 compressions per 32 bytes, far slower per
 * byte than a block mix, weighted below as XCRYPT_PBKDF2_WEIGHT passes.
 * That term is why a tiny N r with a huge p costs seconds and hundreds of
 * MiB while N r alone says nothing.  Our own scrypt (alg_scrypt.c) has the
 * same shape and is counted by the same function.
 */
#define XCRYPT_SALLOC_KIB 13
#define XCRYPT_PBKDF2_WEIGHT 16
#define YESCRYPT_RW 2 /* the first RW flavor (yescrypt.h: YESCRYPT_RW) */

void
kdf_scrypt_like_cost(uint32_t flavor, uint32_t nlog2, uint64_t r, uint64_t p, uint64_t t,
                     struct kdf_xcrypt_cost *c)
{
    uint64_t v = v_kib(nlog2, r), b = b_kib(r, p), passes, walk;
    int rw = flavor >= YESCRYPT_RW;

    c->mem_kib = add_sat(add_sat(v, b), (r + 3) / 4);
    if (rw)
        c->mem_kib = add_sat(c->mem_kib, mul_sat(p, XCRYPT_SALLOC_KIB));
    passes = rw ? add_sat(2, t) : add_sat(2, mul_sat(2, t));
    walk = mul_sat(v, passes);
    if (!rw)
        walk = mul_sat(walk, p);
    c->work_kib = add_sat(walk, mul_sat(b, XCRYPT_PBKDF2_WEIGHT));
    c->lanes = p;
    c->v_kib = v;
    c->b_kib = b;
}

/* The rounds= of sha-crypt and SM3-crypt after the prefix. */
static int
rounds_eq(const char *s, size_t n, size_t pos, uint64_t dflt, uint64_t *out)
{
    static const char key[] = "rounds=";

    if (n - pos < sizeof key - 1 || memcmp(s + pos, key, sizeof key - 1) != 0) {
        *out = dflt;
        return 0;
    }
    pos += sizeof key - 1;
    return decimal(s, n, &pos, out);
}

static int
scrypt_cost(const char *s, size_t n, struct kdf_xcrypt_cost *c)
{
    uint64_t r = 0, p = 0;
    int ln;

    if (n < 14 || (ln = itoa64(s[3])) < 0)
        return -1;
    for (int i = 0; i < 5; i++) {
        int d = itoa64(s[4 + i]), e = itoa64(s[9 + i]);
        if (d < 0 || e < 0)
            return -1;
        r |= (uint64_t)d << (6 * i);
        p |= (uint64_t)e << (6 * i);
    }
    c->what = "scrypt";
    kdf_scrypt_like_cost(0, (uint32_t)ln, r, p, 0, c);
    return 0;
}

static int
yescrypt_cost(const char *s, size_t n, size_t pos, struct kdf_xcrypt_cost *c)
{
    uint32_t flavor, nlog2, r, have = 0, p = 1, t = 0, g = 0;

    if (yes_decode(s, n, &pos, 0, &flavor) != 0 || yes_decode(s, n, &pos, 1, &nlog2) != 0 ||
        yes_decode(s, n, &pos, 1, &r) != 0)
        return -1;
    /* Optional parameters, only when the setting goes on before its salt
     * (libxcrypt: "if (*src != '$')"). */
    if (pos < n && s[pos] != '$') {
        if (yes_decode(s, n, &pos, 1, &have) != 0)
            return -1;
        if ((have & 1) && yes_decode(s, n, &pos, 2, &p) != 0)
            return -1;
        if ((have & 2) && yes_decode(s, n, &pos, 1, &t) != 0)
            return -1;
        if ((have & 4) && yes_decode(s, n, &pos, 1, &g) != 0)
            return -1;
        if (have & ~7u)
            return -1; /* NROM and unknown bits: not for a shadow file */
    }
    c->what = "yescrypt";
    kdf_scrypt_like_cost(flavor, nlog2, r, p, t, c);
    /* g (hash upgrades) would repeat the whole computation; libxcrypt
     * refuses it today (EINVAL), counted in case it comes back. */
    c->work_kib = mul_sat(c->work_kib, 1 + (uint64_t)g);
    return 0;
}

int
kdf_xcrypt_cost(const char *s, size_t n, struct kdf_xcrypt_cost *c)
{
    size_t pos;

    memset(c, 0, sizeof *c);
    if (s == NULL)
        return 1;
    if (has_prefix(s, n, "$5$") || has_prefix(s, n, "$6$")) {
        c->what = "sha-crypt rounds";
        return rounds_eq(s, n, 3, 5000, &c->rounds);
    }
    if (has_prefix(s, n, "$sm3$")) {
        c->what = "sm3-crypt rounds";
        return rounds_eq(s, n, 5, 5000, &c->rounds);
    }
    if (has_prefix(s, n, "$sha1$")) {
        c->what = "sha1-crypt rounds";
        pos = 6;
        return decimal(s, n, &pos, &c->rounds);
    }
    if (has_prefix(s, n, "$md5,rounds=") || has_prefix(s, n, "$md5$rounds=")) {
        c->what = "SunMD5 rounds";
        pos = 12;
        if (decimal(s, n, &pos, &c->rounds) != 0)
            return -1;
        c->rounds = c->rounds + 4096 > COST_MAX ? COST_MAX : c->rounds + 4096;
        return 0;
    }
    if (has_prefix(s, n, "$md5")) {
        c->what = "SunMD5 rounds";
        c->rounds = 4096;
        return 0;
    }
    if (has_prefix(s, n, "_")) {
        c->what = "BSDi rounds";
        if (n < 5)
            return -1;
        for (int i = 0; i < 4; i++) {
            int d = itoa64(s[1 + i]);
            if (d < 0)
                return -1;
            c->rounds |= (uint64_t)d << (6 * i);
        }
        return 0;
    }
    if (has_prefix(s, n, "$7$"))
        return scrypt_cost(s, n, c);
    if (has_prefix(s, n, "$y$"))
        return yescrypt_cost(s, n, 3, c);
    if (has_prefix(s, n, "$gy$"))
        return yescrypt_cost(s, n, 4, c);
    return 1; /* a fixed, small cost */
}

int
kdf_xcrypt_knows(const char *s, size_t n)
{
    char setting[KDF_MAX_HASH_STR + 1];

    if (s == NULL || n == 0 || s[0] != '$' || n > KDF_MAX_HASH_STR)
        return 0;
    memcpy(setting, s, n);
    setting[n] = '\0';
    switch (crypt_checksalt(setting)) {
    case CRYPT_SALT_OK:
    case CRYPT_SALT_METHOD_LEGACY: /* weak, but libxcrypt still verifies it */
        return 1;
    default:
        return 0;
    }
}
