/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_wrapped.c - verifying wrapped entries: a legacy hash hashed again at
 * the target, for the accounts whose owners do not log in (kdf_wrap(),
 * api_wrap.c), so that no stored digest cracks at the legacy speed.  The
 * next login verifies one and rewrites it as a direct hash at the target
 * (the usual upgrade, reason "wrapped").
 *
 *   $kdfw$<n>$<inner: n bytes><outer>
 *
 * inner: the legacy hash with every digest bit zero, which keeps its
 *   setting (scheme, salt, rounds or cost) and nothing of the password;
 * outer: a hash at the target (Argon2id by default, keyed with the pepper
 *   when one is set) whose password is the whole legacy hash string.
 *
 * Verification makes the legacy hash of the typed password from the inner
 * setting (libxcrypt for crypt(3) schemes, the core for its own), then
 * verifies it against the outer hash, in constant time as the outer's row
 * does: a wrong password costs a legacy hash plus one at the target, as a
 * right one does.  n is a canonical decimal (api_parse.c splits), so the
 * string is its own canonical spelling.
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "api_wrapped.h"
#include "kdf_scheme.h"
#include "scheme_legacy.h"

struct wparts {
    struct kdf_hash inner, outer;
};

/* The target that makes hashes like h (a row of ours). */
static void
target_of(const struct kdf_hash *h, const struct kdf_scheme_desc *row, struct kdf_target *t)
{
    *t = row->defaults;
    t->scheme = h->scheme;
    t->format = h->format;
    t->xcrypt = row->xcrypt;
    if (h->bcrypt_minor != 0)
        t->bcrypt_minor = h->bcrypt_minor;
    memset(t->keyid, 0, sizeof t->keyid);
    for (size_t k = 0; k < row->nkeys; k++) {
        uint32_t *f = kdf_target_field(t, row->keys[k].field);
        uint32_t v;

        switch (row->keys[k].field) {
        case KDF_TF_COST: v = h->cost; break;
        case KDF_TF_M: v = h->m_kib; break;
        case KDF_TF_P: v = h->lanes; break;
        case KDF_TF_BLOCK: v = h->block_size; break;
        case KDF_TF_V: v = h->version; break;
        case KDF_TF_SALT: v = h->salt_len; break;
        case KDF_TF_LEN: v = h->dk_len; break;
        default: continue;
        }
        if (f != NULL)
            *f = v;
    }
}

/* The legacy hash string of pw with in's setting into out[cap] (*olen). */
enum kdf_status
kdf_wrap_inner_hash(const char *pw, size_t pw_len, const struct kdf_hash *in,
           const struct kdf_policy *pol, char *out, size_t cap, size_t *olen)
{
    const struct kdf_scheme_desc *row = kdf_scheme_of_hash(in);
    uint8_t salt[KDF_MAX_SALT];
    char s[KDF_MAX_HASH_STR + 1];
    size_t salt_len = 0;
    struct kdf_target t;
    struct kdf_hash h;
    enum kdf_status st;

    if (in->scheme == KDF_SCHEME_LEGACY)
        return kdf_legacy_crypt(pw, pw_len, in->whole.ptr, in->whole.len, pol, out, cap, olen);
    if (row == NULL || row->hash == NULL || in->keyid.len != 0)
        return KDF_UNSUPPORTED;
    st = kdf_decode_salt(in, salt, sizeof salt, &salt_len);
    if (st != KDF_OK)
        return st;
    target_of(in, row, &t);
    st = row->hash(pw, pw_len, &t, pol, salt, salt_len, s, sizeof s);
    /* Spelt as the entry was: the flags say what is optional in a
     * spelling (PBKDF2 PHC's l=, Argon2's v=). */
    if (st == KDF_OK)
        st = kdf_parse(s, strnlen(s, sizeof s), &h, NULL);
    if (st == KDF_OK) {
        h.flags = in->flags;
        st = kdf_encode(&h, out, cap, olen);
    }
    if (st != KDF_OK)
        *olen = 0;
    kdf_wipe(s, sizeof s);
    kdf_wipe(&h, sizeof h);
    return st;
}

void
kdf_wrapped_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    const struct kdf_scheme_desc *orow;
    struct wparts w;
    char o[160];

    if (kdf_wrapped_parts(h, &w.inner, &w.outer) != KDF_OK) {
        snprintf(out, cap, "scheme=wrapped");
        return;
    }
    orow = kdf_scheme_of_hash(&w.outer);
    o[0] = '\0';
    if (orow != NULL && orow->describe != NULL)
        orow->describe(&w.outer, what == KDF_DESC_FIELDS ? KDF_DESC_PARAMS : what, o, sizeof o);
    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=wrapped inner=%s outer=%s %s",
                 kdf_hash_scheme_name(&w.inner), kdf_hash_scheme_name(&w.outer), o);
    else
        snprintf(out, cap, "%s", o);
}

enum kdf_status
kdf_wrapped_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
               const struct kdf_policy *pol, void *work, size_t work_sz)
{
    const struct kdf_scheme_desc *orow;
    char s[KDF_MAX_HASH_STR + 1];
    size_t n = 0;
    struct wparts w;
    enum kdf_status st = kdf_wrapped_parts(h, &w.inner, &w.outer);

    if (st != KDF_OK)
        return st;
    orow = kdf_scheme_of_hash(&w.outer);
    st = kdf_wrap_inner_hash(pw, pw_len, &w.inner, pol, s, sizeof s, &n);
    if (st == KDF_OK)
        st = orow->verify(s, n, &w.outer, pol, work, work_sz);
    kdf_wipe(s, sizeof s);
    return st;
}

/* Did the match read every bit of pw?  The inner scheme decides: the DES
 * family never (as for a direct DES entry, scheme_legacy.c), another
 * crypt(3) scheme when pw with its last byte changed makes another inner
 * hash, a row of ours by its own rule. */
int
kdf_wrapped_reads_whole(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    const struct kdf_scheme_desc *irow;
    char a[KDF_MAX_HASH_STR + 1], b[KDF_MAX_HASH_STR + 1], probe[KDF_MAX_HASH_STR];
    size_t an = 0, bn = 0;
    struct wparts w;
    int whole;

    if (kdf_wrapped_parts(h, &w.inner, &w.outer) != KDF_OK)
        return 0;
    irow = kdf_scheme_of_hash(&w.inner);
    if (w.inner.scheme != KDF_SCHEME_LEGACY)
        return irow == NULL || irow->reads_whole == NULL ||
               irow->reads_whole(pw, pw_len, &w.inner);
    if (w.inner.prefix.len == 0 || (w.inner.prefix.len == 1 && w.inner.prefix.ptr[0] == '_'))
        return 0;
    if (pw_len == 0)
        return 1;
    if (pw_len > sizeof probe)
        return 0;
    memcpy(probe, pw, pw_len);
    probe[pw_len - 1] = probe[pw_len - 1] == 'x' ? 'y' : 'x';
    whole = kdf_wrap_inner_hash(pw, pw_len, &w.inner, NULL, a, sizeof a, &an) == KDF_OK &&
            kdf_wrap_inner_hash(probe, pw_len, &w.inner, NULL, b, sizeof b, &bn) == KDF_OK &&
            (an != bn || memcmp(a, b, an) != 0);
    kdf_wipe(a, sizeof a);
    kdf_wipe(b, sizeof b);
    kdf_wipe(probe, sizeof probe);
    return whole;
}

const char *
kdf_wrapped_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    const struct kdf_scheme_desc *r;
    const char *why;
    struct wparts w;

    if (kdf_wrapped_parts(h, &w.inner, &w.outer) != KDF_OK)
        return "wrapped: does not parse";
    r = kdf_scheme_of_hash(&w.inner);
    if (r != NULL && r->over_caps != NULL && (why = r->over_caps(&w.inner, pol)) != NULL)
        return why;
    r = kdf_scheme_of_hash(&w.outer);
    if (r != NULL && r->over_caps != NULL && (why = r->over_caps(&w.outer, pol)) != NULL)
        return why;
    return NULL;
}


int
kdf_wrap_is_of(const struct kdf_hash *wrapped, const char *legacy, size_t len)
{
    char z[KDF_MAX_HASH_STR + 1];
    struct kdf_hash in, lg;
    int same;

    if (wrapped == NULL || legacy == NULL ||
        kdf_wrapped_parts(wrapped, &in, NULL) != KDF_OK ||
        kdf_parse(legacy, len, &lg, NULL) != KDF_OK || lg.scheme == KDF_SCHEME_WRAPPED ||
        lg.scheme == KDF_SCHEME_EMPTY || lg.scheme == KDF_SCHEME_LOCKED ||
        kdf_wrap_zero_digest(&lg, z, sizeof z) != KDF_OK)
        return 0;
    /* Settings, not secrets: a plain compare is enough. */
    same = strlen(z) == in.whole.len && memcmp(z, in.whole.ptr, in.whole.len) == 0;
    kdf_wipe(z, sizeof z);
    return same;
}
