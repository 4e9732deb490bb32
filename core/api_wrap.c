/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_wrap.c - kdf_wrap(): a legacy hash wrapped at the target (the format:
 * api_wrapped.c).  Its inner setting is proved to make the same hashes as
 * the entry before anything is written, and the result is read back and
 * its outer hash verified, as a new hash at a login is.
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "api_wrapped.h"
#include "hstr.h"
#include "kdf_scheme.h"

/* The password of the proof that a zeroed setting stands alone. */
#define KDF_WRAP_PROBE "kdfhash wrap probe"

static void
put_str(char *out, size_t *pos, const char *s, size_t n)
{
    memcpy(out + *pos, s, n);
    *pos += n;
}

enum kdf_status
kdf_wrap(const char *legacy, size_t len, const struct kdf_target *t,
         const struct kdf_policy *pol, char *out, size_t cap, const char **why)
{
    const struct kdf_scheme_desc *tr;
    char z[KDF_MAX_HASH_STR + 1], zs[KDF_MAX_HASH_STR + 1], s[KDF_MAX_HASH_STR + 1];
    char o[KDF_MAX_HASH_STR + 1], dummy[KDF_MAX_HASH_STR + 1], num[12];
    struct kdf_hash in, zin, sh, oh, dh, back;
    struct kdf_policy def;
    size_t sn = 0, on, pos = 0, zn;
    const char *w = NULL;
    enum kdf_status st;

    if (why == NULL)
        why = &w;
    *why = NULL;
    if (legacy == NULL || t == NULL || out == NULL || cap == 0)
        return kdf_fail(why, KDF_RANGE, "invalid argument");
    out[0] = '\0';
    if (pol == NULL) {
        kdf_policy_default(&def);
        pol = &def;
    }
    st = kdf_parse(legacy, len, &in, why);
    if (st != KDF_OK)
        return st;
    if (in.scheme == KDF_SCHEME_EMPTY || in.scheme == KDF_SCHEME_LOCKED)
        return kdf_fail(why, KDF_RANGE, "no hash to wrap (empty or locked)");
    if (in.scheme == KDF_SCHEME_WRAPPED)
        return kdf_fail(why, KDF_UNSUPPORTED, "already wrapped");
    if (in.keyid.len != 0)
        return kdf_fail(why, KDF_UNSUPPORTED, "keyed entries are not wrapped");
    /* A salt kept as text (Django's) is made from random bytes by its row:
     * the same text cannot be asked of it again. */
    if (in.scheme != KDF_SCHEME_LEGACY && kdf_scheme_of_hash(&in) != NULL &&
        kdf_scheme_of_hash(&in)->alphabet(&in, 0) == -1)
        return kdf_fail(why, KDF_UNSUPPORTED, "its salt is text (Django): not made again here");
    tr = kdf_scheme_target_row(t);
    if (tr == NULL || t->scheme == KDF_SCHEME_LEGACY || tr->hash == NULL)
        return kdf_fail(why, KDF_UNSUPPORTED, "the target is libxcrypt's: nothing to wrap with");
    /* The outer hash must read the whole legacy string (bcrypt stops at 72). */
    if (tr->reads_whole != NULL &&
        (kdf_dummy_hash(t, dummy, sizeof dummy, &dh) != KDF_OK ||
         !tr->reads_whole(legacy, len, &dh)))
        return kdf_fail(why, KDF_UNSUPPORTED, "the target does not read a whole legacy hash");

    /* The inner setting, and proof that it makes the same hashes as the
     * entry: a probe's hash with the zeroed setting, zeroed, is the
     * zeroed setting again. */
    st = kdf_wrap_zero_digest(&in, z, sizeof z);
    if (st != KDF_OK)
        return kdf_fail(why, st, "its digest cannot be told from its setting");
    zn = strlen(z);
    if (kdf_parse(z, zn, &zin, why) != KDF_OK || kdf_scheme_of_hash(&zin) != kdf_scheme_of_hash(&in))
        return kdf_fail(why, KDF_UNSUPPORTED, "its setting does not stand alone");
    st = kdf_wrap_inner_hash(KDF_WRAP_PROBE, sizeof KDF_WRAP_PROBE - 1, &zin, pol, s, sizeof s, &sn);
    if (st != KDF_OK)
        return kdf_fail(why, st, "its scheme cannot be computed here");
    if (kdf_parse(s, sn, &sh, why) != KDF_OK || kdf_wrap_zero_digest(&sh, zs, sizeof zs) != KDF_OK ||
        strcmp(zs, z) != 0)
        return kdf_fail(why, KDF_UNSUPPORTED, "its setting makes another spelling");

    /* The outer hash of the whole legacy string (ASCII: no other form). */
    st = kdf_hash_ex(legacy, len, t, pol, NULL, 0, o, sizeof o);
    if (st != KDF_OK)
        return kdf_fail(why, st, "the target hash failed");
    on = strlen(o);
    snprintf(num, sizeof num, "%zu", zn);
    if (o[0] != '$' || sizeof KDF_WRAP_PREFIX - 1 + strlen(num) + 1 + zn + on > KDF_MAX_HASH_STR ||
        sizeof KDF_WRAP_PREFIX - 1 + strlen(num) + 1 + zn + on >= cap) {
        kdf_wipe(o, sizeof o);
        return kdf_fail(why, KDF_RANGE, "the wrapped entry would be too long");
    }
    put_str(out, &pos, KDF_WRAP_PREFIX, sizeof KDF_WRAP_PREFIX - 1);
    put_str(out, &pos, num, strlen(num));
    put_str(out, &pos, "$", 1);
    put_str(out, &pos, z, zn);
    put_str(out, &pos, o, on);
    out[pos] = '\0';
    kdf_wipe(o, sizeof o);

    /* Read back: it parses as wrapped, and its outer hash opens with the
     * legacy string (a broken computation must never replace an entry). */
    st = kdf_parse(out, pos, &back, why);
    if (st == KDF_OK && back.scheme != KDF_SCHEME_WRAPPED)
        st = KDF_INTERNAL;
    if (st == KDF_OK) {
        st = kdf_wrapped_parts(&back, NULL, &oh);
        if (st == KDF_OK)
            st = kdf_scheme_of_hash(&oh)->verify(legacy, len, &oh, pol, NULL, 0);
    }
    if (st != KDF_OK) {
        kdf_wipe(out, cap);
        out[0] = '\0';
        return kdf_fail(why, st == KDF_MISMATCH ? KDF_INTERNAL : st,
                        "the wrapped entry does not verify");
    }
    return KDF_OK;
}
