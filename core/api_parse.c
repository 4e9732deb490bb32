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
