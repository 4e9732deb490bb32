/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_kdf.c - the entry points: verify, hash and the timing dummy, routed to
 * the scheme's row.
 *
 * Order of work for a verify: parse (zero allocation), caps (refuse absurd
 * costs and passwords before any work or allocation), then the row's
 * verify, which compares decoded bytes in constant time.  Empty and locked
 * fields never verify here: whether an empty field admits a login is the
 * PAM module's nullok decision, not the core's.
 *
 * Under normalize = nfkc a verify tries the password as typed first, and
 * one other form (NFKC, or NFD for a password typed in NFKC) only when that
 * does not match and the form differs: an entry made from any byte form
 * before normalization still verifies with the same bytes, at the cost of
 * one verification for ASCII, and with the composed or the decomposed
 * spelling of the same password.  A new hash is always of the NFKC form.
 */
#include "kdf_prelude.h"
#include "kdf_testing.h"
#include "api_wrapped.h"
#include "util_normalize.h"
#include "util_random.h"

#include <stdio.h>
#include <unistr.h>

#include "kdf_scheme.h"

/* Verifications run by a row, for the tests' count (kdf_testing.h). */
static unsigned long g_row_verifies;

unsigned long
kdf_test_row_verifies(void)
{
    return __atomic_load_n(&g_row_verifies, __ATOMIC_RELAXED);
}

static enum kdf_status
row_verify(const struct kdf_scheme_desc *row, const char *pw, size_t pw_len,
           const struct kdf_hash *h, const struct kdf_policy *pol, void *work, size_t work_sz)
{
    __atomic_add_fetch(&g_row_verifies, 1, __ATOMIC_RELAXED);
    if (h->scheme == KDF_SCHEME_WRAPPED)
        return kdf_wrapped_verify(pw, pw_len, h, pol, work, work_sz);
    return row->verify(pw, pw_len, h, pol, work, work_sz);
}

/* The second try (kdf_second_form()), when there is another form.  A form
 * over max.password cannot be an entry's (kdf_hash_ex() refuses to make
 * one): a mismatch. */
static enum kdf_status
verify_second(const struct kdf_scheme_desc *row, const char *pw, size_t pw_len,
              const struct kdf_hash *h, const struct kdf_policy *pol, void *work,
              size_t work_sz, enum kdf_form *form)
{
    struct kdf_nfkc n;
    enum kdf_form which;
    enum kdf_status st = kdf_second_form(&n, pw, pw_len, pol->max_password_len, &which);

    if (st == KDF_TOO_COSTLY || (st == KDF_OK && !n.differs))
        st = KDF_MISMATCH;
    else if (st == KDF_OK)
        st = row_verify(row, n.pw, n.len, h, pol, work, work_sz);
    kdf_nfkc_drop(&n);
    if (st == KDF_OK && form != NULL)
        *form = which;
    return st;
}

/* Under profile = fips every entry point runs the self-tests before the
 * first use of our algorithms in the process; after a failure it refuses
 * them (the PAM module steps aside).  crypt(3) schemes are libxcrypt's
 * work, not ours: they go on, so that a password change can still be
 * written at the libxcrypt target. */
static enum kdf_status
fips_ready(const struct kdf_policy *pol, enum kdf_scheme scheme)
{
    if (!(pol->profile & KDF_PROFILE_FIPS) || scheme == KDF_SCHEME_LEGACY)
        return KDF_OK;
    return kdf_selftest_once(NULL) == KDF_OK ? KDF_OK : KDF_INTERNAL;
}

enum kdf_status
kdf_verify_ex(const char *pw, size_t pw_len, const struct kdf_hash *h,
              const struct kdf_policy *pol, void *work, size_t work_sz)
{
    return kdf_verify_form(pw, pw_len, h, pol, work, work_sz, NULL);
}

enum kdf_status
kdf_verify_form(const char *pw, size_t pw_len, const struct kdf_hash *h,
                const struct kdf_policy *pol, void *work, size_t work_sz, enum kdf_form *form)
{
    const struct kdf_scheme_desc *row;
    struct kdf_policy def;
    const char *why = NULL;
    enum kdf_status st;

    if (form != NULL)
        *form = KDF_FORM_TYPED;
    if (h == NULL || (pw == NULL && pw_len != 0))
        return KDF_RANGE;
    if (pol == NULL) {
        kdf_policy_default(&def);
        pol = &def;
    }
    st = kdf_check_caps(h, pw_len, pol, &why);
    if (st == KDF_OK)
        st = fips_ready(pol, h->scheme);
    if (st != KDF_OK)
        return st;
    if (pw == NULL)
        pw = "";
    if (h->scheme == KDF_SCHEME_EMPTY || h->scheme == KDF_SCHEME_LOCKED)
        return KDF_MISMATCH;
    row = kdf_scheme_of_hash(h);
    if (h->scheme != KDF_SCHEME_WRAPPED && (row == NULL || row->verify == NULL))
        return KDF_UNSUPPORTED;
    st = row_verify(row, pw, pw_len, h, pol, work, work_sz);
    if (st != KDF_MISMATCH || !pol->normalize)
        return st;
    return verify_second(row, pw, pw_len, h, pol, work, work_sz, form);
}

enum kdf_status
kdf_verify(const char *pw, size_t pw_len, const char *hash, size_t hash_len)
{
    struct kdf_hash h;
    enum kdf_status st;

    if (hash == NULL)
        return KDF_RANGE;
    st = kdf_parse(hash, hash_len, &h, NULL);
    if (st != KDF_OK)
        return st;
    return kdf_verify_ex(pw, pw_len, &h, NULL, NULL, 0);
}

enum kdf_status
kdf_hash_ex(const char *pw, size_t pw_len, const struct kdf_target *t,
            const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
            size_t out_cap)
{
    const struct kdf_scheme_desc *row;
    struct kdf_policy def;
    uint8_t rnd[KDF_MAX_SALT];
    struct kdf_nfkc n;
    const char *why = NULL;
    enum kdf_status st;

    if (t == NULL || out == NULL || out_cap == 0 || (pw == NULL && pw_len != 0))
        return KDF_RANGE;
    out[0] = '\0';
    if (pol == NULL) {
        kdf_policy_default(&def);
        pol = &def;
    }
    /* The generator refuses every parameter set the verifier would refuse
     * under the same policy: one set of caps serves both. */
    st = kdf_check_target(t, pol, &why);
    if (st == KDF_OK)
        st = fips_ready(pol, t->scheme);
    if (st != KDF_OK)
        return st;
    if (pw_len > pol->max_password_len)
        return KDF_TOO_COSTLY;
    if (pw == NULL)
        pw = "";
    row = kdf_scheme_target_row(t);
    if (salt == NULL) {
        /* A fresh salt from getrandom(); formats that fix its size (bcrypt)
         * say so in their row's defaults. */
        salt_len = t->salt_len != 0 ? t->salt_len : row->defaults.salt_len;
        if (salt_len == 0 || salt_len > sizeof rnd)
            return KDF_RANGE;
        st = kdf_random(rnd, salt_len);
        if (st != KDF_OK)
            return st;
        salt = rnd;
    }
    st = pol->normalize ? kdf_nfkc_form(&n, pw, pw_len, pol->max_password_len) : KDF_OK;
    if (st == KDF_OK)
        st = pol->normalize ? row->hash(n.pw, n.len, t, pol, salt, salt_len, out, out_cap)
                            : row->hash(pw, pw_len, t, pol, salt, salt_len, out, out_cap);
    if (pol->normalize)
        kdf_nfkc_drop(&n);
    kdf_wipe(rnd, sizeof rnd);
    return st;
}

enum kdf_status
kdf_hash_salt(const char *pw, size_t pw_len, const struct kdf_target *t,
              const uint8_t *salt, size_t salt_len, char *out, size_t out_cap)
{
    if (salt == NULL)
        return KDF_RANGE;
    return kdf_hash_ex(pw, pw_len, t, NULL, salt, salt_len, out, out_cap);
}

enum kdf_status
kdf_hash(const char *pw, size_t pw_len, const struct kdf_target *t, char *out,
         size_t out_cap)
{
    return kdf_hash_ex(pw, pw_len, t, NULL, NULL, 0, out, out_cap);
}

/*
 * The dummy of the timing equalisation: a refusal with no entry to verify
 * (unknown user, locked, empty, malformed, over the caps) must cost what a
 * wrong password on an entry at the target costs.  The dummy is a string
 * of the target's scheme and costs, spelt by the row's own writer with an
 * all-zero salt and digest (text salts: 'A's), then parsed: the caller runs
 * the same caps and verify calls as for a real entry.
 */
enum kdf_status
kdf_dummy_hash(const struct kdf_target *t, char *buf, size_t cap, struct kdf_hash *h)
{
    static const uint8_t zero[KDF_MAX_SALT > KDF_MAX_DIGEST ? KDF_MAX_SALT : KDF_MAX_DIGEST];
    uint8_t text[KDF_MAX_SALT];
    const struct kdf_scheme_desc *row;
    struct kdf_hash d;
    enum kdf_status st;
    size_t len;

    if (t == NULL || buf == NULL || h == NULL)
        return KDF_RANGE;
    row = kdf_scheme_target_row(t);
    if (row == NULL || row->fill == NULL)
        return KDF_UNSUPPORTED; /* crypt(3): libxcrypt spells those */
    memset(&d, 0, sizeof d);
    row->fill(t, &d);
    if (d.salt_len > sizeof zero || d.dk_len > sizeof zero)
        return KDF_RANGE;
    memset(text, 'A', sizeof text);
    st = kdf_spell(row, t, row->alphabet(&d, 0) == -1 ? text : zero, d.salt_len, zero,
                   d.dk_len, buf, cap);
    if (st != KDF_OK)
        return st;
    len = strlen(buf);
    return kdf_parse(buf, len, h, NULL);
}

int
kdf_reads_whole_password(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    const struct kdf_scheme_desc *row;

    if (h == NULL || pw_len == 0)
        return 1;
    if (h->scheme == KDF_SCHEME_WRAPPED)
        return kdf_wrapped_reads_whole(pw, pw_len, h);
    row = kdf_scheme_of_hash(h);
    if (row == NULL || row->reads_whole == NULL)
        return 1;
    return row->reads_whole(pw, pw_len, h);
}

size_t
kdf_password_length(const char *pw, size_t pw_len, const struct kdf_policy *pol)
{
    struct kdf_policy def;
    struct kdf_nfkc n;
    size_t r = (size_t)-1;

    if (pw == NULL && pw_len != 0)
        return r;
    if (pol == NULL) {
        kdf_policy_default(&def);
        pol = &def;
    }
    if (!pol->normalize) {
        n.pw = pw;
        n.len = pw_len;
        n.heap = NULL;
    } else if (kdf_nfkc_form(&n, pw, pw_len, pol->max_password_len) != KDF_OK) {
        kdf_nfkc_drop(&n);
        return r;
    }
    if (n.len == 0)
        r = 0;
    else if (u8_check((const uint8_t *)n.pw, n.len) != NULL)
        r = n.len; /* not UTF-8: each byte is one */
    else
        r = u8_mbsnlen((const uint8_t *)n.pw, n.len);
    if (pol->normalize)
        kdf_nfkc_drop(&n);
    return r;
}

int
kdf_form_outdated(const char *pw, size_t pw_len, enum kdf_form form,
                  const struct kdf_policy *pol)
{
    struct kdf_nfkc n;
    int r;

    if (pol == NULL || !pol->normalize || form == KDF_FORM_NFKC)
        return 0;
    if (form == KDF_FORM_NFD)
        return 1;
    /* Typed: outdated when its NFKC form differs; one that cannot be had
     * (over max.password) could not be hashed either. */
    r = kdf_nfkc_form(&n, pw, pw_len, pol->max_password_len) == KDF_OK && n.differs;
    kdf_nfkc_drop(&n);
    return r;
}

int
kdf_reads_whole_form(const char *pw, size_t pw_len, const struct kdf_hash *h,
                     const struct kdf_policy *pol, enum kdf_form form)
{
    struct kdf_policy def;
    struct kdf_nfkc n;
    enum kdf_form which;
    int r = 0;

    if (form == KDF_FORM_TYPED)
        return kdf_reads_whole_password(pw, pw_len, h);
    if (pol == NULL) {
        kdf_policy_default(&def);
        pol = &def;
    }
    if (kdf_second_form(&n, pw, pw_len, pol->max_password_len, &which) == KDF_OK && n.differs && which == form)
        r = kdf_reads_whole_password(n.pw, n.len, h);
    kdf_nfkc_drop(&n);
    return r;
}

void
kdf_hash_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    const struct kdf_scheme_desc *row;

    if (out == NULL || cap == 0)
        return;
    out[0] = '\0';
    if (h == NULL)
        return;
    row = kdf_scheme_of_hash(h);
    if (h->scheme == KDF_SCHEME_WRAPPED)
        kdf_wrapped_describe(h, what, out, cap);
    else if (row != NULL && row->describe != NULL)
        row->describe(h, what, out, cap);
    else if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=%s", kdf_scheme_name(h->scheme));
    else
        snprintf(out, cap, "-");
}
