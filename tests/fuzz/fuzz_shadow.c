/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_shadow.c - libFuzzer target for what a login reaches: a whole
 * shadow-style file and a typed password through the module's own
 * kdf_lookup_user() (pam_module/lookup.c) and kdf_pam_verdict()
 * (pam_module/verdict.c), with the whole core (portable kernels) compiled
 * in and instrumented (tests/local.mk, fuzz section).
 *
 * Input:
 *   byte 0      flags: bit 0 nullok; bit 1 keep NUL bytes inside the
 *               password (otherwise it ends at the first NUL, as the C
 *               string PAM hands over does); bit 2 stretch the first line
 *               of the file to 65528 + (flags >> 3) bytes (0..31 more), so
 *               that lines on both sides of KDF_LOOKUP_MAX_LINE are met;
 *   line 1      the user name (a C string: it ends at a NUL);
 *   line 2      the password;
 *   the rest    the file, written as it is to a temp file made once.
 * A missing line is empty.  Seeds are plain text: '0' and '1' as byte 0
 * give nullok off and on.
 *
 * The policy is cheap (target argon2id m=8,t=1,p=1; caps bcrypt 5, Argon2
 * m=64,t=2,p=4, PBKDF2 and sha-crypt 2000 rounds, one thread, no memory
 * gate) so that every execution is fast; the caps refuse the costly
 * entries as they would refuse them at the real caps.
 *
 * Properties checked, besides "no crash, no sanitizer report":
 *   1. The lookup agrees with an independent model of the file as
 *      lookup.h and kdfhash.h describe it (exact field 1, '#' comments,
 *      CR before LF, lines over KDF_LOOKUP_MAX_LINE skipped, duplicates,
 *      field 2 over KDF_LOOKUP_MAX_FIELD or holding NUL refused, the
 *      aging fields), and nothing is left in the entry when it finds
 *      nothing.  The shared scanner (kdf_shadow_next(), kdf_shadow_find(),
 *      which the writer and the audit use) finds the same lines, and its
 *      spans stay inside their line.
 *   2. A found hash has no ':' or '\n', is at most KDF_LOOKUP_MAX_FIELD
 *      bytes and NUL-terminated.
 *   3. The verdict is the one that kdf_parse(), kdf_check_caps() and
 *      kdf_verify_ex() give on an independent copy of the field: OK only
 *      when kdf_verify_ex agrees, never OK for a field starting with '!'
 *      or '*', NULLOK only for an empty field, an empty password and
 *      nullok; *h is wiped whenever nothing was parsed.
 *   4. After OK, as the module's upgrade does: a new hash of the password
 *      at the target parses, fits the caps, verifies the password and is
 *      not outdated (else every login would rewrite it).
 * A failed property prints the line and calls abort(), which libFuzzer
 * reports as a crash and saves as an artifact.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "kdfhash.h"
#include "lookup.h"
#include "options.h"
#include "shadow_line.h"
#include "verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                         \
    do {                                                                                 \
        if (!(x)) {                                                                      \
            fprintf(stderr, "fuzz_shadow: %s:%d: check failed: %s\n", __FILE__,          \
                    __LINE__, #x);                                                       \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#define FLAG_NULLOK 0x01u
#define FLAG_RAW_PW 0x02u
#define FLAG_LONG_LINE 0x04u
#define LONG_LINE_BASE (KDF_LOOKUP_MAX_LINE - 8)

static char g_dir[4096], g_path[4200];
static int g_fd = -1;
static struct kdf_policy g_pol;

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
set_or_die(struct kdf_policy *pol, const char *key, const char *value)
{
    char err[256];

    if (kdf_policy_set(pol, key, value, err, sizeof err) != KDF_OK) {
        fprintf(stderr, "fuzz_shadow: policy %s=%s: %s\n", key, value, err);
        abort();
    }
}

/* The temp file (in $TMPDIR, which the test script points at its own work
 * directory) and the cheap policy, once per process. */
static void
setup(void)
{
    char err[256];

    if (g_fd >= 0)
        return;
    fuzz_make_dir(g_dir, sizeof g_dir, "fuzz-shadow");
    g_fd = fuzz_open_file(g_dir, "shadow", g_path, sizeof g_path, "fuzz_shadow");
    atexit(cleanup);

    kdf_policy_default(&g_pol);
    set_or_die(&g_pol, "target", "argon2id m=8,t=1,p=1");
    set_or_die(&g_pol, "max.argon2", "m=64,t=2,p=4");
    set_or_die(&g_pol, "max.bcrypt", "5");
    set_or_die(&g_pol, "max.pbkdf2", "2000");
    set_or_die(&g_pol, "max.threads", "1");
    /* No machine-wide memory gate for a fuzzer (a tree without the key
     * has no gate either). */
    (void)kdf_policy_set(&g_pol, "max.memory", "off", err, sizeof err);
}

/* ---- the model of the lookup (lookup.h) ----------------------------------- */

struct model {
    enum kdf_lookup_status st;
    int matches;
    size_t f2s, f2len; /* field 2 of the match, as offsets into the file */
    long aging[6];
};

static long
model_aging_field(const char *p, size_t n)
{
    long v = 0;

    if (n == 0 || n > 9)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

static int
model_name_ok(const char *user)
{
    size_t n = strlen(user);

    return n >= 1 && n <= KDF_LOOKUP_MAX_NAME && user[0] != '+' && user[0] != '-' &&
           user[0] != '#' && strpbrk(user, ":\n\r") == NULL;
}

static void
model_lookup(const char *f, size_t len, const char *user, struct model *m)
{
    size_t ulen = strlen(user), pos = 0;
    int matches = 0, bad = 0;

    memset(m, 0, sizeof *m);
    for (int i = 0; i < 6; i++)
        m->aging[i] = -1;
    if (!model_name_ok(user)) {
        m->st = KDF_LOOKUP_NOT_FOUND;
        return;
    }
    while (pos < len) {
        const char *line = f + pos, *nl = memchr(line, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - line) : len - pos;
        size_t f2, f2e, k;

        pos += n + (nl != NULL);
        if (n > KDF_LOOKUP_MAX_LINE)
            continue;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (n == 0 || line[0] == '#')
            continue;
        for (k = 0; k < n && line[k] != ':'; k++)
            ;
        if (k == n || k != ulen || memcmp(line, user, ulen) != 0)
            continue;
        if (++matches > 1)
            continue;
        f2 = k + 1;
        for (f2e = f2; f2e < n && line[f2e] != ':'; f2e++)
            ;
        if (f2e - f2 > KDF_LOOKUP_MAX_FIELD ||
            memchr(line + f2, '\0', f2e - f2) != NULL) {
            bad = 1;
            continue;
        }
        m->f2s = (size_t)(line - f) + f2;
        m->f2len = f2e - f2;
        /* Fields 3 to 8: split the rest of the line at ':'. */
        if (f2e < n) {
            size_t s = f2e + 1;
            for (int i = 0; i < 6; i++) {
                size_t e = s;
                while (e < n && line[e] != ':')
                    e++;
                m->aging[i] = model_aging_field(line + s, e - s);
                if (e >= n)
                    break;
                s = e + 1;
            }
        }
    }
    m->matches = matches;
    m->st = matches == 0  ? KDF_LOOKUP_NOT_FOUND
            : matches > 1 ? KDF_LOOKUP_DUPLICATE
            : bad         ? KDF_LOOKUP_BAD_FIELD
                          : KDF_LOOKUP_FOUND;
}

/* ---- the shared scanner ------------------------------------------------- */

static int
inside(const struct kdf_span *in, const struct kdf_span *outer)
{
    return in->ptr >= outer->ptr && in->len <= outer->len &&
           (size_t)(in->ptr - outer->ptr) <= outer->len - in->len;
}

/* Every line's spans lie in its text, fields 1 to 8 hold no ':', and the
 * entries of user are the model's. */
static void
check_scanner(const char *f, size_t len, const char *user, const struct model *m)
{
    struct kdf_shadow_line l, first;
    size_t pos = 0, lines = 0, count;

    while (kdf_shadow_next(f, len, &pos, &l)) {
        lines++;
        CHECK(pos <= len && l.text.ptr >= f && l.text.ptr + l.text.len <= f + len);
        CHECK(memchr(l.text.ptr, '\n', l.text.len) == NULL);
        CHECK(l.nfields <= KDF_SHADOW_FIELDS);
        CHECK(l.kind != KDF_SHADOW_ENTRY || l.nfields >= 2);
        for (unsigned i = 0; i < l.nfields; i++) {
            CHECK(inside(&l.field[i], &l.text));
            CHECK(i + 1 == KDF_SHADOW_FIELDS ||
                  memchr(l.field[i].ptr, ':', l.field[i].len) == NULL);
        }
    }
    CHECK(lines == 0 || pos == len);
    if (!model_name_ok(user))
        return;
    count = kdf_shadow_find(f, len, user, strlen(user), &first);
    CHECK(count == (size_t)m->matches);
    if (m->st == KDF_LOOKUP_FOUND)
        CHECK(first.field[1].ptr == f + m->f2s && first.field[1].len == m->f2len);
}

/* ---- the verdict, independently ------------------------------------------ */

static int
all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return 0;
    return 1;
}

/* What kdf_pam_verdict() must answer for stored (an exact-size copy, no
 * terminator: any read past it is an ASan report). */
static enum kdf_pam_verdict
expected_verdict(const char *stored, size_t len, int nullok, const char *pw,
                 size_t pw_len, enum kdf_status *st)
{
    struct kdf_hash h;

    *st = KDF_OK;
    if (len == 0)
        return nullok && pw_len == 0 ? KDF_PAM_V_NULLOK : KDF_PAM_V_EMPTY;
    if (stored[0] == '!' || stored[0] == '*')
        return KDF_PAM_V_LOCKED;
    *st = kdf_parse(stored, len, &h, NULL);
    if (*st != KDF_OK)
        return KDF_PAM_V_MALFORMED;
    CHECK(h.scheme != KDF_SCHEME_EMPTY && h.scheme != KDF_SCHEME_LOCKED);
    *st = kdf_check_caps(&h, pw_len, &g_pol, NULL);
    if (*st != KDF_OK)
        return KDF_PAM_V_CAPS;
    *st = kdf_verify_ex(pw, pw_len, &h, &g_pol, NULL, 0);
    return *st == KDF_OK ? KDF_PAM_V_OK : KDF_PAM_V_FAILED;
}

/* The module's next steps after a match (pam_kdfhash.c upgrade()), minus
 * the write: the new hash must log the same password in, and must not be
 * outdated itself. */
static void
check_new_hash(const char *pw, size_t pw_len, const struct kdf_hash *old)
{
    char out[KDF_MAX_HASH_STR + 1];
    struct kdf_hash nh;

    (void)kdf_needs_rehash(old, &g_pol);
    if (!kdf_reads_whole_password(pw, pw_len, old))
        return;
    CHECK(kdf_hash_ex(pw, pw_len, &g_pol.target, &g_pol, NULL, 0, out, sizeof out) ==
          KDF_OK);
    CHECK(strlen(out) <= KDF_MAX_HASH_STR);
    CHECK(strchr(out, ':') == NULL);
    CHECK(kdf_parse(out, strlen(out), &nh, NULL) == KDF_OK);
    CHECK(nh.scheme == g_pol.target.scheme);
    CHECK(kdf_check_caps(&nh, pw_len, &g_pol, NULL) == KDF_OK);
    CHECK(kdf_verify_ex(pw, pw_len, &nh, &g_pol, NULL, 0) == KDF_OK);
    CHECK(kdf_needs_rehash(&nh, &g_pol) == KDF_REHASH_NO);
    kdf_wipe(out, sizeof out);
}

static void
run(const char *file, size_t flen, const char *user, const char *pw, size_t pw_len,
    int nullok)
{
    struct kdf_lookup_entry e;
    struct model m;
    struct kdf_hash h;
    enum kdf_status st, est;
    enum kdf_lookup_status ls;
    enum kdf_pam_verdict v, ev;
    const char *reason = NULL;
    char *copy;

    CHECK(ftruncate(g_fd, 0) == 0);
    CHECK(flen == 0 || pwrite(g_fd, file, flen, 0) == (ssize_t)flen);

    ls = kdf_lookup_user(g_path, user, &e);
    model_lookup(file, flen, user, &m);
    CHECK(ls == m.st);
    check_scanner(file, flen, user, &m);
    if (ls != KDF_LOOKUP_FOUND) {
        CHECK(e.hash_len == 0 && all_zero(e.hash, sizeof e.hash));
        return;
    }
    CHECK(e.hash_len <= KDF_LOOKUP_MAX_FIELD);
    CHECK(e.hash[e.hash_len] == '\0');
    CHECK(memchr(e.hash, ':', e.hash_len) == NULL &&
          memchr(e.hash, '\n', e.hash_len) == NULL);
    CHECK(e.hash_len == m.f2len && memcmp(e.hash, file + m.f2s, m.f2len) == 0);
    CHECK(e.aging.lastchg == m.aging[0] && e.aging.min == m.aging[1] &&
          e.aging.max == m.aging[2] && e.aging.warn == m.aging[3] &&
          e.aging.inact == m.aging[4] && e.aging.expire == m.aging[5]);

    v = kdf_pam_verdict(&g_pol, e.hash, e.hash_len, nullok, pw, pw_len, &h, &st, &reason);

    copy = malloc(m.f2len ? m.f2len : 1);
    CHECK(copy != NULL);
    memcpy(copy, file + m.f2s, m.f2len);
    ev = expected_verdict(copy, m.f2len, nullok, pw, pw_len, &est);
    free(copy);

    CHECK(v == ev);
    switch (v) {
    case KDF_PAM_V_NULLOK:
        CHECK(e.hash_len == 0 && pw_len == 0 && nullok);
        /* fall through */
    case KDF_PAM_V_EMPTY:
        CHECK(e.hash_len == 0);
        /* fall through */
    case KDF_PAM_V_LOCKED:
        CHECK(st == KDF_OK);
        CHECK(all_zero(&h, sizeof h));
        break;
    case KDF_PAM_V_MALFORMED:
        CHECK(st == est && (st == KDF_MALFORMED || st == KDF_UNSUPPORTED));
        CHECK(all_zero(&h, sizeof h));
        break;
    case KDF_PAM_V_CAPS:
        CHECK(st == est && st == KDF_TOO_COSTLY);
        break;
    case KDF_PAM_V_FAILED:
        CHECK(st == est && st != KDF_OK);
        break;
    case KDF_PAM_V_OK:
        CHECK(st == KDF_OK && est == KDF_OK);
        CHECK(e.hash_len > 0 && e.hash[0] != '!' && e.hash[0] != '*');
        CHECK(h.whole.ptr == e.hash && h.whole.len == e.hash_len);
        check_new_hash(pw, pw_len, &h);
        break;
    }
    kdf_wipe(&h, sizeof h);
    kdf_wipe(e.hash, sizeof e.hash);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *uline, *pline;
    size_t n = size, ulen, plen;
    unsigned flags;
    char user[KDF_LOOKUP_MAX_NAME + 2];
    char *pw, *file = NULL;
    size_t pw_len, flen;

    if (size == 0)
        return 0;
    setup();
    flags = data[0];
    p++;
    n--;
    ulen = fuzz_take_line(&p, &n, &uline);
    plen = fuzz_take_line(&p, &n, &pline);

    /* Longer names are refused before any lookup; keep one byte over the
     * limit so that the refusal is exercised too. */
    if (ulen > KDF_LOOKUP_MAX_NAME + 1)
        ulen = KDF_LOOKUP_MAX_NAME + 1;
    memcpy(user, uline, ulen);
    user[ulen] = '\0';

    pw_len = plen;
    if (!(flags & FLAG_RAW_PW)) {
        const uint8_t *z = memchr(pline, '\0', plen);
        if (z != NULL)
            pw_len = (size_t)(z - pline);
    }
    /* Exactly pw_len bytes: a read past the password is an ASan report. */
    pw = malloc(pw_len ? pw_len : 1);
    CHECK(pw != NULL);
    memcpy(pw, pline, pw_len);

    if (flags & FLAG_LONG_LINE) {
        const uint8_t *q = p, *first;
        size_t qn = n, fl = fuzz_take_line(&q, &qn, &first);
        size_t want = LONG_LINE_BASE + (flags >> 3);
        size_t rest = n - fl;

        flen = want + rest;
        file = malloc(flen);
        CHECK(file != NULL);
        for (size_t i = 0; i < want; i++)
            file[i] = fl > 0 ? (char)first[i % fl] : 'x';
        memcpy(file + want, p + fl, rest);
    } else {
        flen = n;
        file = malloc(flen ? flen : 1);
        CHECK(file != NULL);
        memcpy(file, p, n);
    }

    run(file, flen, user, pw, pw_len, (flags & FLAG_NULLOK) != 0);

    kdf_wipe(pw, pw_len);
    free(pw);
    free(file);
    return 0;
}
