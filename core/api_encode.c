/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_encode.c - kdf_encode(): a parsed hash back to its string, through its
 * row's encoder, and the decoders of a parsed hash's salt and digest.
 * For every string kdf_parse() accepts, the output is byte-identical to
 * it (the round trip that test_parse and the fuzz target check).
 */
#include "kdf_prelude.h"

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
    if (h->scheme == KDF_SCHEME_LOCKED) {
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
