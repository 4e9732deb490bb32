/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_normalize.c - the NFKC form of a password, with libunistring.
 *
 * One person types one password in several byte forms: "é" composed
 * (U+00E9) or decomposed (e + U+0301) depending on the keyboard, the input
 * method or the terminal; full-width letters from a CJK input method.
 * NFKC (Unicode Standard Annex #15) folds them onto one form.  Bytes that
 * are not UTF-8 are used as given: a password in Latin-1 has no form to
 * fold onto.  ASCII is its own NFKC form and never reaches libunistring.
 *
 * Every copy of the password this file makes is wiped: the caller's buffer
 * on failure, and the buffer libunistring allocates when the form does not
 * fit the caller's before it is freed.  libunistring's own scratch (a run
 * of over 128 combining marks is sorted in a heap buffer) is freed by it
 * unwiped; the cap (max.password) bounds it.
 */
#include "kdf_prelude.h"
#include "util_normalize.h"

#include <stdlib.h>
#include <unistr.h>
#include <uninorm.h>

static int
is_ascii(const char *pw, size_t len)
{
    unsigned char any = 0;

    for (size_t i = 0; i < len; i++)
        any |= (unsigned char)pw[i];
    return any < 0x80;
}

/* pw in the normalization form nf into out: kdf_normalize_nfkc()'s
 * contract, for any form. */
static enum kdf_status
normalize(uninorm_t nf, const char *pw, size_t len, char *out, size_t cap, size_t *out_len)
{
    size_t n = cap;
    uint8_t *r;

    if (out_len == NULL || out == NULL || (pw == NULL && len != 0))
        return KDF_RANGE;
    *out_len = 0;
    if (is_ascii(pw, len)) {
        if (len > cap)
            return KDF_TOO_COSTLY;
        if (len != 0)
            memcpy(out, pw, len);
        *out_len = len;
        return KDF_OK;
    }
    if (u8_check((const uint8_t *)pw, len) != NULL)
        return KDF_MALFORMED;
    r = u8_normalize(nf, (const uint8_t *)pw, len, (uint8_t *)out, &n);
    if (r == NULL) {
        kdf_wipe(out, cap);
        return KDF_NOMEM;
    }
    if (r != (uint8_t *)out) {
        /* Longer than cap: libunistring copied what it had written to out
         * into a buffer of its own. */
        kdf_wipe(r, n);
        free(r);
        kdf_wipe(out, cap);
        return KDF_TOO_COSTLY;
    }
    *out_len = n;
    return KDF_OK;
}

enum kdf_status
kdf_normalize_nfkc(const char *pw, size_t len, char *out, size_t cap, size_t *out_len)
{
    return normalize(UNINORM_NFKC, pw, len, out, cap, out_len);
}

static enum kdf_status
form_of(struct kdf_nfkc *n, uninorm_t nf, const char *pw, size_t len, size_t max)
{
    enum kdf_status st;
    size_t cap = max < sizeof n->stack ? max : sizeof n->stack;
    char *buf = n->stack;

    n->heap = NULL;
    n->heap_cap = 0;
    n->pw = pw;
    n->len = len;
    n->differs = 0;
    if (is_ascii(pw, len))
        return len > max ? KDF_TOO_COSTLY : KDF_OK;
    st = normalize(nf, pw, len, buf, cap, &n->len);
    if (st == KDF_TOO_COSTLY && max > cap) {
        n->heap = malloc(max);
        if (n->heap == NULL)
            return KDF_NOMEM;
        n->heap_cap = max;
        buf = n->heap;
        st = normalize(nf, pw, len, buf, max, &n->len);
    }
    if (st == KDF_MALFORMED) {
        n->len = len; /* not UTF-8: the bytes as given */
        return len > max ? KDF_TOO_COSTLY : KDF_OK;
    }
    if (st != KDF_OK) {
        n->len = 0;
        return st;
    }
    n->differs = n->len != len || memcmp(buf, pw, len) != 0;
    if (n->differs)
        n->pw = buf;
    return KDF_OK;
}

enum kdf_status
kdf_nfkc_form(struct kdf_nfkc *n, const char *pw, size_t len, size_t max)
{
    return form_of(n, UNINORM_NFKC, pw, len, max);
}

/* A password already in NFKC has no compatibility characters, so its NFKD
 * is its NFD: the decomposed bytes an older system may have hashed. */
enum kdf_status
kdf_second_form(struct kdf_nfkc *n, const char *pw, size_t len, size_t max, enum kdf_form *form)
{
    enum kdf_status st = form_of(n, UNINORM_NFKC, pw, len, max);

    *form = KDF_FORM_NFKC;
    if (st != KDF_OK || n->differs)
        return st;
    kdf_nfkc_drop(n);
    *form = KDF_FORM_NFD;
    return form_of(n, UNINORM_NFD, pw, len, max);
}

void
kdf_nfkc_drop(struct kdf_nfkc *n)
{
    if (n == NULL)
        return;
    kdf_wipe(n->stack, sizeof n->stack);
    if (n->heap != NULL) {
        kdf_wipe(n->heap, n->heap_cap);
        free(n->heap);
    }
    n->heap = NULL;
    n->heap_cap = 0;
    n->pw = NULL;
    n->len = 0;
}
