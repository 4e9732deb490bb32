/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_rehash.c - is a stored hash outdated under the policy (kdf_needs_rehash)?
 * A pure function of its arguments: no allocation, no I/O, no global
 * state, so the PAM module may call it from any thread.
 *
 * The order of the questions, each answered by the hash's row:
 *   1. a flaw that outdates it whatever its costs ($2x$, Argon2 1.0, a
 *      PBKDF2 salt below min.pbkdf2-salt);
 *   2. a crypt(3) target: entries of our schemes stay unless too cheap
 *      (moving them is migrate's job); crypt(3) entries of another scheme
 *      are LEGACY;
 *   3. another scheme than the target's: OTHER_SCHEME, unless accepted,
 *      then judged by its minimums;
 *   4. the target's own scheme: the row's no-downgrade rules
 *      (doc/DESIGN.md "Policy"): never rewritten when at least the target
 *      in every cost dimension.
 * migrate = yes then moves whatever is not in the target's scheme, pepper
 * whatever is not keyed with its key, and heavy = N what the rules keep
 * of the target's own row at more than N times the target's work.
 */
#include "kdf_prelude.h"

#include "kdf_scheme.h"

const char *
kdf_rehash_reason(enum kdf_rehash r)
{
    switch (r) {
    case KDF_REHASH_NO:
        return "none";
    case KDF_REHASH_OTHER_SCHEME:
        return "other-scheme";
    case KDF_REHASH_TOO_CHEAP:
        return "too-cheap";
    case KDF_REHASH_BUGGY:
        return "bcrypt-2x";
    case KDF_REHASH_LEGACY:
        return "legacy";
    case KDF_REHASH_OLD_VERSION:
        return "old-version";
    case KDF_REHASH_MIGRATE:
        return "migration";
    case KDF_REHASH_PEPPER:
        return "pepper";
    case KDF_REHASH_HEAVY:
        return "heavy";
    case KDF_REHASH_FORM:
        return "password-form";
    case KDF_REHASH_FIPS:
        return "not-fips-approved";
    case KDF_REHASH_WRAPPED:
        return "wrapped";
    }
    return "unknown";
}

static int
below_min(const struct kdf_scheme_desc *row, const struct kdf_hash *h,
          const struct kdf_policy *pol)
{
    return row->below_min != NULL && row->below_min(h, pol, NULL);
}

static enum kdf_rehash
rules(const struct kdf_hash *h, const struct kdf_policy *pol,
      const struct kdf_scheme_desc *hr, const struct kdf_scheme_desc *tr)
{
    int accepted;
    enum kdf_rehash r;

    if (h->scheme == KDF_SCHEME_LEGACY) {
        if (hr == tr && tr->vs_target != NULL)
            return tr->vs_target(h, pol);
        return KDF_REHASH_LEGACY;
    }
    accepted = (unsigned)h->scheme < 32 && ((pol->accept_mask >> h->scheme) & 1u);
    if (hr->flaw != NULL && (r = hr->flaw(h, pol, accepted)) != KDF_REHASH_NO)
        return r;
    if (tr == NULL || tr->id == KDF_SCHEME_LEGACY)
        return below_min(hr, h, pol) ? KDF_REHASH_TOO_CHEAP : KDF_REHASH_NO;
    if (hr != tr) {
        if (!accepted)
            return KDF_REHASH_OTHER_SCHEME;
        return below_min(hr, h, pol) ? KDF_REHASH_TOO_CHEAP : KDF_REHASH_NO;
    }
    return hr->vs_target(h, pol);
}

/* heavy = N: h, of the target's own row, costs more than N times the
 * target to verify.  Only within a row, whose work() has one unit; the
 * target's work is that of a hash of it (row->fill()). */
static int
heavy(const struct kdf_hash *h, const struct kdf_policy *pol, const struct kdf_scheme_desc *row)
{
    struct kdf_hash th;
    uint64_t tw;

    if (pol->heavy == 0 || row->work == NULL || row->fill == NULL)
        return 0;
    memset(&th, 0, sizeof th);
    row->fill(&pol->target, &th);
    tw = row->work(&th);
    /* A target whose N-fold work does not fit 64 bits has no heavier entry. */
    return tw != 0 && tw <= UINT64_MAX / pol->heavy && row->work(h) > tw * pol->heavy;
}

enum kdf_rehash
kdf_needs_rehash(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    const struct kdf_scheme_desc *hr, *tr;
    enum kdf_rehash r;

    if (h == NULL || pol == NULL)
        return KDF_REHASH_NO;
    /* Wrapped, whatever its costs: the next login writes a direct hash. */
    if (h->scheme == KDF_SCHEME_WRAPPED)
        return KDF_REHASH_WRAPPED;
    hr = kdf_scheme_of_hash(h); /* NULL: empty, locked: nothing to upgrade */
    if (hr == NULL)
        return KDF_REHASH_NO;
    tr = kdf_scheme_target_row(&pol->target);
    r = rules(h, pol, hr, tr);
    /* profile = fips: what NIST does not approve moves to the (approved)
     * target, even a scheme accept = keeps. */
    if (r == KDF_REHASH_NO && (pol->profile & KDF_PROFILE_FIPS) && !kdf_hash_fips_approved(h))
        return KDF_REHASH_FIPS;
    /* migrate = yes: whatever is not in the target's scheme moves to it. */
    if (r == KDF_REHASH_NO && pol->migrate && hr != tr)
        return KDF_REHASH_MIGRATE;
    /* pepper = ID: every entry not keyed with ID moves to the keyed target
     * (only a target that takes a key can have a pepper: api_policy.c). */
    if (r == KDF_REHASH_NO && pol->pepper[0] != '\0' && tr != NULL && tr->keyed &&
        !(hr->keyed && h->keyid.len == strlen(pol->pepper) &&
          memcmp(h->keyid.ptr, pol->pepper, h->keyid.len) == 0))
        return KDF_REHASH_PEPPER;
    /* heavy = N: the one downgrade, of what the rules keep of the target's
     * own row (other rows have no unit in common with the target). */
    if (r == KDF_REHASH_NO && hr == tr && heavy(h, pol, hr))
        return KDF_REHASH_HEAVY;
    return r;
}
