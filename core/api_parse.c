/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_parse.c - kdf_parse(): the zero-allocation front of every hash string.
 * It tells the field states apart (empty, locked), then hands the string
 * to the first row of the scheme table whose prefix (or claim) matches;
 * the grammar itself lives with each scheme (scheme_*.c, on hstr.h).
 *
 * Rules that hold for every form:
 *   - Only s[0..len) is read, nothing calls strlen, and a NUL byte is just
 *     a bad character.
 *   - Canonical spelling only: kdf_encode() rebuilds the input byte for
 *     byte from what the row recorded.
 *   - Broken strings are KDF_MALFORMED, well-formed strings of a scheme or
 *     variant we do not implement are KDF_UNSUPPORTED; either way *reason is
 *     a short static string that never contains input bytes (it is logged).
 *   - Costs are only range-checked against the specs here; the policy's
 *     caps are kdf_check_caps()'s job.
 */
#include "kdf_prelude.h"

#include "api_wrapped.h"
#include "hstr.h"
#include "kdf_scheme.h"

/* The row that claims a string may parse it into another id that a row of
 * the same grammar owns (every "pbkdf2_" string is claimed by the first
 * PBKDF2 row; pbkdf2_sha256$ is the SHA-256 row's): that row's index, i
 * when row i keeps it (Django's argon2$ reads argon2id and argon2i, and no
 * other row has its grammar). */
static size_t
same_grammar(size_t i, enum kdf_scheme id)
{
    if (kdf_schemes[i]->id == id)
        return i;
    for (size_t j = 0; j < kdf_nschemes; j++)
        if (kdf_schemes[j]->id == id && kdf_schemes[j]->parse == kdf_schemes[i]->parse)
            return j;
    return i;
}

static enum kdf_status parse_sub(const char *s, size_t len, struct kdf_hash *h,
                                 const char **why);

/* The parts of a wrapped string s[0..len) whose prefix is plen bytes. */
struct wparts {
    struct kdf_hash inner, outer;
};

static enum kdf_status
split(const char *s, size_t len, size_t plen, struct wparts *w, const char **why)
{
    const struct kdf_scheme_desc *orow;
    const char *sub = NULL;
    size_t pos = plen;
    uint32_t n;

    if (!kdf_dec_u32(s, len, &pos, &n) || n == 0 || !KDF_HAS("$") || n > len - pos - 1)
        return kdf_fail(why, KDF_MALFORMED, "wrapped: expected <length>$ after $kdfw$");
    pos++;
    if (parse_sub(s + pos, n, &w->inner, &sub) != KDF_OK)
        return kdf_fail(why, KDF_MALFORMED, "wrapped: the inner hash does not parse");
    if (w->inner.scheme == KDF_SCHEME_EMPTY || w->inner.scheme == KDF_SCHEME_LOCKED ||
        w->inner.scheme == KDF_SCHEME_WRAPPED || w->inner.keyid.len != 0)
        return kdf_fail(why, KDF_MALFORMED, "wrapped: the inner hash cannot be wrapped");
    if (!kdf_wrap_digest_zero(&w->inner))
        return kdf_fail(why, KDF_MALFORMED, "wrapped: the inner digest is not zero");
    pos += n;
    if (len - pos < 2 || s[pos] != '$' || parse_sub(s + pos, len - pos, &w->outer, &sub) != KDF_OK)
        return kdf_fail(why, KDF_MALFORMED, "wrapped: the outer hash does not parse");
    orow = kdf_scheme_of_hash(&w->outer);
    if (orow == NULL || w->outer.scheme == KDF_SCHEME_LEGACY ||
        w->outer.scheme == KDF_SCHEME_WRAPPED || orow->hash == NULL || orow->verify == NULL)
        return kdf_fail(why, KDF_MALFORMED, "wrapped: the outer hash is not a target's");
    return KDF_OK;
}

static enum kdf_status
wrapped_parse(const char *s, size_t len, struct kdf_hash *h, const char **why)
{
    struct wparts w;
    enum kdf_status st = split(s, len, sizeof KDF_WRAP_PREFIX - 1, &w, why);

    if (st != KDF_OK)
        return st;
    /* The outer's fields describe the entry (its costs, its key); the
     * inner hash is the prefix span, the outer the data span. */
    h->scheme = KDF_SCHEME_WRAPPED;
    h->version = w.outer.version;
    h->cost = w.outer.cost;
    h->m_kib = w.outer.m_kib;
    h->lanes = w.outer.lanes;
    h->block_size = w.outer.block_size;
    h->dk_len = w.outer.dk_len;
    h->salt_len = w.outer.salt_len;
    h->salt = w.outer.salt;
    h->digest = w.outer.digest;
    h->keyid = w.outer.keyid;
    h->prefix = w.inner.whole;
    h->data = w.outer.whole;
    return KDF_OK;
}

enum kdf_status
kdf_wrapped_parts(const struct kdf_hash *h, struct kdf_hash *inner, struct kdf_hash *outer)
{
    const char *why = NULL;
    struct wparts w;
    enum kdf_status st;

    if (h == NULL || h->scheme != KDF_SCHEME_WRAPPED || h->whole.ptr == NULL ||
        h->whole.len <= sizeof KDF_WRAP_PREFIX - 1)
        return KDF_RANGE;
    st = split(h->whole.ptr, h->whole.len, sizeof KDF_WRAP_PREFIX - 1, &w, &why);
    if (st == KDF_OK && inner != NULL)
        *inner = w.inner;
    if (st == KDF_OK && outer != NULL)
        *outer = w.outer;
    return st;
}

static enum kdf_status
parse_any(const char *s, size_t len, struct kdf_hash *h, const char **why)
{
    size_t plen;

    if (len == 0) {
        h->scheme = KDF_SCHEME_EMPTY;
        return KDF_OK;
    }
    /* "!" (passwd -l) or "*" may precede anything, even a valid hash: the
     * entry is locked whatever follows. */
    if (s[0] == '!' || s[0] == '*') {
        h->scheme = KDF_SCHEME_LOCKED;
        return KDF_OK;
    }
    if (len > KDF_MAX_HASH_STR)
        return kdf_fail(why, KDF_MALFORMED, "hash string too long");
    if (len > sizeof KDF_WRAP_PREFIX - 1 &&
        memcmp(s, KDF_WRAP_PREFIX, sizeof KDF_WRAP_PREFIX - 1) == 0)
        return wrapped_parse(s, len, h, why);
    for (size_t i = 0; i < kdf_nschemes; i++)
        if (kdf_scheme_claims(kdf_schemes[i], s, len, &plen)) {
            enum kdf_status st = kdf_schemes[i]->parse(s, len, plen, h, why);
            h->row = (uint32_t)same_grammar(i, h->scheme) + 1;
            return st;
        }
    if (s[0] == '$')
        return kdf_fail(why, KDF_UNSUPPORTED, "unknown $ prefix");
    return kdf_fail(why, KDF_MALFORMED, "not a recognised hash string");
}

/* One of a wrapped entry's two hashes: a parse of its own (never
 * wrapped again: the split refuses an inner or outer one). */
static enum kdf_status
parse_sub(const char *s, size_t len, struct kdf_hash *h, const char **why)
{
    enum kdf_status st;

    memset(h, 0, sizeof *h);
    h->whole = (struct kdf_span){s, len};
    if (len > sizeof KDF_WRAP_PREFIX - 1 &&
        memcmp(s, KDF_WRAP_PREFIX, sizeof KDF_WRAP_PREFIX - 1) == 0)
        return kdf_fail(why, KDF_MALFORMED, "wrapped: wrapped twice");
    st = parse_any(s, len, h, why);
    if (st != KDF_OK)
        memset(h, 0, sizeof *h);
    return st;
}

enum kdf_status
kdf_parse(const char *s, size_t len, struct kdf_hash *out, const char **reason)
{
    const char *why = NULL;
    enum kdf_status st;

    if (out == NULL || (s == NULL && len != 0)) {
        if (reason != NULL)
            *reason = "invalid argument";
        return KDF_RANGE;
    }
    memset(out, 0, sizeof *out);
    if (s == NULL)
        s = "";
    out->whole = (struct kdf_span){s, len};
    st = parse_any(s, len, out, &why);
    if (st != KDF_OK) {
        /* Leave no half-filled struct behind for a careless caller. */
        memset(out, 0, sizeof *out);
        out->scheme = KDF_SCHEME_COUNT;
    }
    if (reason != NULL)
        *reason = why;
    return st;
}
