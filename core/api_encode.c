/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_encode.c - kdf_encode(): a parsed hash back to its string, through its
 * row's encoder, and the decoders of a parsed hash's salt and digest.
 * For every string kdf_parse() accepts, the output is byte-identical to
 * it (the round trip that test_parse and the fuzz target check).
 */
#include "kdf_prelude.h"

#include "api_wrapped.h"
#include "hstr.h"
#include "kdf_scheme.h"

static int
span_ok(const struct kdf_span *sp)
{
    return (sp->ptr != NULL || sp->len == 0) && sp->len <= KDF_MAX_HASH_STR;
}

enum kdf_status
kdf_encode(const struct kdf_hash *h, char *out, size_t cap, size_t *out_len)
{
    struct kdf_wbuf b = {out, cap, 0, 0};
    const struct kdf_scheme_desc *row;
    enum kdf_status st;

    if (out_len != NULL)
        *out_len = 0;
    if (out == NULL || cap == 0)
        return KDF_RANGE;
    out[0] = '\0';
    if (h == NULL || !span_ok(&h->salt) || !span_ok(&h->digest) || !span_ok(&h->keyid) ||
        !span_ok(&h->data) || !span_ok(&h->whole))
        return KDF_RANGE;
    if (h->scheme == KDF_SCHEME_EMPTY)
        return KDF_OK;
    if (h->scheme == KDF_SCHEME_LOCKED || h->scheme == KDF_SCHEME_WRAPPED) {
        if (h->whole.len == 0)
            return KDF_RANGE;
        kdf_put_span(&b, &h->whole); /* what was stored is written back */
        st = KDF_OK;
    } else {
        row = kdf_scheme_of_hash(h);
        st = row != NULL ? row->encode(h, &b) : KDF_RANGE;
    }
    if (st == KDF_OK && b.over)
        st = KDF_RANGE;
    if (st != KDF_OK) {
        out[0] = '\0';
        return st;
    }
    out[b.n] = '\0';
    if (out_len != NULL)
        *out_len = b.n;
    return KDF_OK;
}

static enum kdf_status
decode(const struct kdf_hash *h, int digest, uint8_t *out, size_t cap, size_t *out_len)
{
    const struct kdf_scheme_desc *row = h != NULL ? kdf_scheme_of_hash(h) : NULL;

    if (out_len != NULL)
        *out_len = 0;
    if (h == NULL)
        return KDF_RANGE;
    if (row == NULL)
        return KDF_UNSUPPORTED; /* empty, locked: nothing to decode */
    return kdf_span_decode(row, h, digest, out, cap, out_len);
}

enum kdf_status
kdf_decode_salt(const struct kdf_hash *h, uint8_t *out, size_t cap, size_t *out_len)
{
    return decode(h, 0, out, cap, out_len);
}

enum kdf_status
kdf_decode_digest(const struct kdf_hash *h, uint8_t *out, size_t cap, size_t *out_len)
{
    return decode(h, 1, out, cap, out_len);
}

/* ---- the digest of a wrapped entry's inner hash (api_wrapped.h) ---- */

/* The digest of a legacy hash string: for crypt(3) strings after the last
 * '$', or the last 11 characters of traditional and BSDi DES; for the
 * core's rows the span its parser found.  0 when there is none. */
static int
digest_at(const struct kdf_hash *h, size_t *start, size_t *n)
{
    const char *s = h->whole.ptr;
    size_t len = h->whole.len;

    if (h->scheme != KDF_SCHEME_LEGACY) {
        if (h->digest.ptr == NULL || h->digest.len == 0)
            return 0;
        *start = (size_t)(h->digest.ptr - s);
        *n = h->digest.len;
        return 1;
    }
    if (len > 0 && s[0] == '$') {
        const char *d = s + len;
        while (d > s && d[-1] != '$')
            d--;
        *start = (size_t)(d - s);
    } else {
        if (len < 11)
            return 0;
        *start = len - 11;
    }
    *n = len - *start;
    return *n != 0 && *start > 0;
}

/* 1 when h's digest is all zero bits (crypt(3): all '.'). */
int
kdf_wrap_digest_zero(const struct kdf_hash *h)
{
    uint8_t d[KDF_MAX_DIGEST];
    size_t start, n, dn = 0;
    int zero = 1;

    if (!digest_at(h, &start, &n))
        return 0;
    if (h->scheme == KDF_SCHEME_LEGACY) {
        for (size_t i = 0; i < n; i++)
            zero &= h->whole.ptr[start + i] == '.';
        return zero;
    }
    if (kdf_decode_digest(h, d, sizeof d, &dn) != KDF_OK || dn == 0)
        return 0;
    for (size_t i = 0; i < dn; i++)
        zero &= d[i] == 0;
    return zero;
}

/* A KDF_ALPHA_JOINED blob at out[start..start+n) with its digest zeroed:
 * the salt's bits, which share characters with the digest's, stay. */
static enum kdf_status
zero_joined(const struct kdf_hash *h, char *out, size_t start, size_t n)
{
    uint8_t blob[KDF_MAX_DIGEST + KDF_MAX_SALT];
    size_t bn = 0, en = 0;
    enum kdf_status st;

    st = kdf_b64_decode(KDF_B64_STD_PAD, out + start, n, blob, sizeof blob, &bn);
    if (st == KDF_OK && (h->dk_len == 0 || h->dk_len > bn))
        st = KDF_UNSUPPORTED;
    if (st == KDF_OK) {
        memset(blob, 0, h->dk_len);
        st = kdf_b64_encode(KDF_B64_STD_PAD, blob, bn, out + start, n + 1, &en);
    }
    kdf_wipe(blob, sizeof blob);
    if (st != KDF_OK || en != n)
        return KDF_UNSUPPORTED;
    out[h->whole.len] = '\0';
    return KDF_OK;
}

/* Write h's string into out[cap] with its digest zeroed (the inner form). */
enum kdf_status
kdf_wrap_zero_digest(const struct kdf_hash *h, char *out, size_t cap)
{
    static const uint8_t zeros[KDF_MAX_DIGEST];
    const struct kdf_scheme_desc *row = kdf_scheme_of_hash(h);
    size_t start, n, en = 0;
    int alpha;

    if (!digest_at(h, &start, &n) || h->whole.len >= cap)
        return KDF_UNSUPPORTED;
    memcpy(out, h->whole.ptr, h->whole.len);
    out[h->whole.len] = '\0';
    if (h->scheme == KDF_SCHEME_LEGACY) {
        memset(out + start, '.', n);
        return KDF_OK;
    }
    alpha = row != NULL && row->alphabet != NULL ? row->alphabet(h, 1) : -2;
    if (alpha == KDF_ALPHA_JOINED)
        return zero_joined(h, out, start, n);
    if (alpha < 0 || h->dk_len == 0 || h->dk_len > sizeof zeros)
        return KDF_UNSUPPORTED;
    if (kdf_b64_encode((enum kdf_b64)alpha, zeros, h->dk_len, out + start, n + 1, &en) !=
            KDF_OK ||
        en != n)
        return KDF_UNSUPPORTED;
    out[h->whole.len] = '\0';
    return KDF_OK;
}
