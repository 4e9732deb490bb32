/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rehash.c - is a stored hash outdated (kdf_needs_rehash), and is it (or a
 * target) within the caps (kdf_check_caps, kdf_check_target)?
 *
 * All three are pure functions of their arguments: no allocation, no I/O,
 * no global state, so the PAM module may call them from any thread.
 *
 * The no-downgrade rule (design.md section 4, reliability.md test 22).
 * For a hash of the target's own scheme:
 *   1. If the hash is at least the target in every cost dimension (bcrypt:
 *      cost; PBKDF2: iterations; Argon2: m and t, hence also m*t), the
 *      answer is NO, whatever the minimums say: rewriting it to the target
 *      would make it weaker somewhere and stronger nowhere.
 *   2. bcrypt and PBKDF2 have one dimension, so otherwise it is TOO_CHEAP.
 *   3. Argon2 below the target in one of m, t and above in the other (a
 *      "mixed" hash): TOO_CHEAP when it is below an absolute minimum
 *      (min.argon2) that the target itself meets, or when the target is at
 *      least as strong in m*t (the work of one guess, RFC 9106 section 4);
 *      NO when the hash's m*t is strictly greater.  A rewrite therefore
 *      never lowers m*t, except to lift a dimension to a minimum.
 * Lanes (p) are parallelism, not cost, and do not count in 1 or 3; a hash
 * below min.argon2 p is TOO_CHEAP unless rule 1 keeps it.
 * Schemes listed in accept_mask are judged by their minimums only.
 */
#include "kdf_internal.h"

static int
pbkdf2_index(enum kdf_scheme s)
{
    switch (s) {
    case KDF_SCHEME_PBKDF2_SHA1:
        return 0;
    case KDF_SCHEME_PBKDF2_SHA256:
        return 1;
    case KDF_SCHEME_PBKDF2_SHA512:
        return 2;
    default:
        return -1;
    }
}

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
    }
    return "unknown";
}

/* Below the scheme's absolute minimums (accepted schemes, and Argon2 mixed
 * hashes where the target meets the minimum: rule 3 above). */
static int
below_minimum(const struct kdf_hash *h, const struct kdf_policy *pol,
              const struct kdf_target *tg)
{
    int pi = pbkdf2_index(h->scheme);

    if (h->scheme == KDF_SCHEME_BCRYPT)
        return h->cost < pol->min_bcrypt_cost;
    if (pi >= 0)
        return h->cost < pol->min_pbkdf2_iter[pi];
    if (kdf_scheme_is_argon2(h->scheme)) {
        uint32_t tm = tg ? tg->m_kib : UINT32_MAX, tt = tg ? tg->cost : UINT32_MAX,
                 tp = tg ? tg->lanes : UINT32_MAX;
        return (h->m_kib < pol->min_argon2_m_kib && tm >= pol->min_argon2_m_kib) ||
               (h->cost < pol->min_argon2_t && tt >= pol->min_argon2_t) ||
               (h->lanes < pol->min_argon2_p && tp >= pol->min_argon2_p);
    }
    return 0;
}

/* The crypt(3) prefix of a stored legacy entry is the target's. */
static int
same_xcrypt(const struct kdf_hash *h, const struct kdf_target *tg)
{
    const char *p = kdf_xcrypt_prefix(tg->xcrypt);
    size_t n = p != NULL ? strlen(p) : 0;

    return n != 0 && h->whole.ptr != NULL && h->whole.len > n &&
           memcmp(h->whole.ptr, p, n) == 0;
}

/* A legacy entry of the target's own crypt(3) scheme is at the target when
 * its cost is: sha-crypt rounds (5000 when the setting names none), yescrypt
 * memory against that of the setting libxcrypt makes for the target. */
static int
xcrypt_cost_ok(const struct kdf_hash *h, const struct kdf_target *tg)
{
    static const uint8_t zero[16];
    char setting[192];
    struct kdf_xcrypt_cost have, want;

    if (kdf_xcrypt_cost(h->whole.ptr, h->whole.len, &have) != 0)
        return 0;
    if (tg->xcrypt != KDF_XCRYPT_YESCRYPT)
        return have.rounds >= tg->cost;
    if (kdf_xcrypt_setting(tg, zero, sizeof zero, setting, sizeof setting) != KDF_OK ||
        kdf_xcrypt_cost(setting, strlen(setting), &want) != 0)
        return 1; /* libxcrypt cannot tell: keep what verified */
    return have.mem_kib >= want.mem_kib;
}

static enum kdf_rehash
rules(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    const struct kdf_target *tg;
    uint32_t accepted;

    if (h == NULL || pol == NULL)
        return KDF_REHASH_NO;
    tg = &pol->target;
    switch (h->scheme) {
    case KDF_SCHEME_EMPTY:
    case KDF_SCHEME_LOCKED:
        return KDF_REHASH_NO; /* nothing to upgrade; never verifies anyway */
    case KDF_SCHEME_LEGACY:
        if (tg->scheme == KDF_SCHEME_LEGACY && same_xcrypt(h, tg))
            return xcrypt_cost_ok(h, tg) ? KDF_REHASH_NO : KDF_REHASH_TOO_CHEAP;
        return KDF_REHASH_LEGACY;
    case KDF_SCHEME_COUNT:
        return KDF_REHASH_NO;
    default:
        break;
    }
    if ((unsigned)h->scheme >= 32)
        return KDF_REHASH_NO;
    accepted = (pol->accept_mask >> h->scheme) & 1u;
    /* A salt below min.pbkdf2-salt is rewritten whatever the costs: a fresh
     * hash gets a full-length salt. */
    if (pbkdf2_index(h->scheme) >= 0 && h->salt_len < pol->min_pbkdf2_salt)
        return KDF_REHASH_TOO_CHEAP;

    /* $2x$ keeps crypt_blowfish's sign-extension bug (CVE-2011-2483): its
     * 8-bit passwords collide, whatever the cost. */
    if (h->scheme == KDF_SCHEME_BCRYPT && h->bcrypt_minor == 'x')
        return KDF_REHASH_BUGGY;
    /* Argon2 1.0 (0x10) overwrote instead of XORing blocks in later passes
     * (RFC 9106 section 3.2 specifies 0x13 only). */
    if (kdf_scheme_is_argon2(h->scheme) && h->version == 0x10 &&
        (kdf_scheme_is_argon2(tg->scheme) || accepted))
        return KDF_REHASH_OLD_VERSION;

    /* A crypt(3) target is where new passwords go; entries of our own
     * schemes are left alone unless too cheap (moving them is migrate's
     * job). */
    if (tg->scheme == KDF_SCHEME_LEGACY)
        return below_minimum(h, pol, NULL) ? KDF_REHASH_TOO_CHEAP : KDF_REHASH_NO;
    if (h->scheme != tg->scheme) {
        if (!accepted)
            return KDF_REHASH_OTHER_SCHEME;
        return below_minimum(h, pol, NULL) ? KDF_REHASH_TOO_CHEAP : KDF_REHASH_NO;
    }

    /* The target's own scheme: rules 1-3 of the header comment. */
    if (!kdf_scheme_is_argon2(h->scheme))
        return h->cost >= tg->cost ? KDF_REHASH_NO : KDF_REHASH_TOO_CHEAP;
    if (h->m_kib >= tg->m_kib && h->cost >= tg->cost)
        return KDF_REHASH_NO;
    if (below_minimum(h, pol, tg))
        return KDF_REHASH_TOO_CHEAP;
    if ((uint64_t)h->m_kib * h->cost > (uint64_t)tg->m_kib * tg->cost)
        return KDF_REHASH_NO;
    return KDF_REHASH_TOO_CHEAP;
}

enum kdf_rehash
kdf_needs_rehash(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    enum kdf_rehash r;

    if (h == NULL || pol == NULL)
        return KDF_REHASH_NO;
    r = rules(h, pol);
    if (r != KDF_REHASH_NO || !pol->migrate || h->scheme == KDF_SCHEME_EMPTY ||
        h->scheme == KDF_SCHEME_LOCKED || h->scheme >= KDF_SCHEME_COUNT)
        return r;
    /* migrate = yes: whatever is not in the target's scheme moves to it. */
    if (h->scheme != pol->target.scheme ||
        (h->scheme == KDF_SCHEME_LEGACY && !same_xcrypt(h, &pol->target)))
        return KDF_REHASH_MIGRATE;
    return KDF_REHASH_NO;
}

/* The caps of the crypt(3) schemes, with those of ours: iterated schemes
 * (sha-crypt, SM3-crypt, sha1-crypt, SunMD5, BSDi) by max.pbkdf2, the other
 * iteration cap; memory-hard ones (yescrypt, scrypt) by max.argon2's m for
 * their memory and m * t for their memory traffic, the work of an Argon2
 * hash at the caps.  A setting that does not decode is over the caps. */
static const char *
legacy_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol)
{
    struct kdf_xcrypt_cost c;
    int r = kdf_xcrypt_cost(h->whole.ptr, h->whole.len, &c);

    if (r > 0)
        return NULL;
    if (r < 0)
        return "crypt(3) setting whose cost does not decode";
    if (c.rounds > pol->max_pbkdf2_iter) {
        if (strcmp(c.what, "sha-crypt rounds") == 0)
            return "sha-crypt rounds above max.pbkdf2";
        if (strcmp(c.what, "sha1-crypt rounds") == 0)
            return "sha1-crypt rounds above max.pbkdf2";
        if (strcmp(c.what, "SunMD5 rounds") == 0)
            return "SunMD5 rounds above max.pbkdf2";
        if (strcmp(c.what, "BSDi rounds") == 0)
            return "BSDi rounds above max.pbkdf2";
        return "crypt(3) rounds above max.pbkdf2";
    }
    if (c.mem_kib > pol->max_argon2_m_kib)
        return "yescrypt/scrypt memory above max.argon2 m";
    if (c.work_kib > (uint64_t)pol->max_argon2_m_kib * pol->max_argon2_t)
        return "yescrypt/scrypt work (p, t) above max.argon2 m*t";
    return NULL;
}

enum kdf_status
kdf_check_caps(const struct kdf_hash *h, size_t pw_len, const struct kdf_policy *pol,
               const char **reason)
{
    const char *why = NULL;

    if (reason != NULL)
        *reason = NULL;
    if (h == NULL || pol == NULL) {
        if (reason != NULL)
            *reason = "no hash or policy";
        return KDF_RANGE;
    }
    if (pw_len > pol->max_password_len)
        why = "password longer than max.password";
    else if (h->scheme == KDF_SCHEME_BCRYPT && h->cost > pol->max_bcrypt_cost)
        why = "bcrypt cost above max.bcrypt";
    else if (kdf_scheme_is_argon2(h->scheme) && h->m_kib > pol->max_argon2_m_kib)
        why = "argon2 m above max.argon2";
    else if (kdf_scheme_is_argon2(h->scheme) && h->cost > pol->max_argon2_t)
        why = "argon2 t above max.argon2";
    else if (kdf_scheme_is_argon2(h->scheme) && h->lanes > pol->max_argon2_p)
        why = "argon2 p above max.argon2";
    else if (pbkdf2_index(h->scheme) >= 0 && h->cost > pol->max_pbkdf2_iter)
        why = "pbkdf2 iterations above max.pbkdf2";
    else if (pbkdf2_index(h->scheme) >= 0 && h->dk_len < pol->min_pbkdf2_len)
        why = "pbkdf2 digest shorter than min.pbkdf2-len";
    else if (h->scheme == KDF_SCHEME_LEGACY)
        why = legacy_over_caps(h, pol);
    if (why == NULL)
        return KDF_OK;
    if (reason != NULL)
        *reason = why;
    return KDF_TOO_COSTLY;
}

/* Validity of a target (what the generators can make and the parser will
 * read back), then the same caps as kdf_check_caps(): reliability.md test 6
 * wants the generator to refuse whatever the verifier would refuse. */
enum kdf_status
kdf_check_target(const struct kdf_target *t, const struct kdf_policy *pol,
                 const char **reason)
{
    const char *bad = NULL, *over = NULL;

    if (reason != NULL)
        *reason = NULL;
    if (t == NULL || pol == NULL) {
        if (reason != NULL)
            *reason = "no target or policy";
        return KDF_RANGE;
    }
    if (t->scheme == KDF_SCHEME_BCRYPT) {
        /* The format fixes salt (16) and digest (23 bytes); 0 means the same. */
        if (t->bcrypt_minor != 'a' && t->bcrypt_minor != 'b' && t->bcrypt_minor != 'x' &&
            t->bcrypt_minor != 'y')
            bad = "bcrypt minor must be a, b, x or y";
        else if (t->cost < 4 || t->cost > 31)
            bad = "bcrypt cost outside 4..31";
        else if (t->salt_len != 16 && t->salt_len != 0)
            bad = "bcrypt salt is 16 bytes";
        else if (t->dk_len != 23 && t->dk_len != 0)
            bad = "bcrypt digest is 23 bytes";
        else if (t->cost > pol->max_bcrypt_cost)
            over = "bcrypt cost above max.bcrypt";
    } else if (kdf_scheme_is_argon2(t->scheme)) {
        /* RFC 9106 section 3.1 bounds, narrowed to what we encode: salt
         * 8..64 bytes (KDF_MAX_SALT), tag 4..64 (KDF_MAX_DIGEST). */
        if (t->version != 0x13 && t->version != 0x10)
            bad = "argon2 version must be 16 or 19";
        else if (t->cost < 1)
            bad = "argon2 t below 1";
        else if (t->lanes < 1 || t->lanes > 0xFFFFFFu)
            bad = "argon2 p outside 1..2^24-1";
        else if ((uint64_t)t->m_kib < 8u * (uint64_t)t->lanes)
            bad = "argon2 m below 8*p KiB";
        else if (t->salt_len < 8 || t->salt_len > KDF_MAX_SALT)
            bad = "argon2 salt outside 8..64 bytes";
        else if (t->dk_len < 4 || t->dk_len > KDF_MAX_DIGEST)
            bad = "argon2 tag outside 4..64 bytes";
        else if (t->m_kib > pol->max_argon2_m_kib)
            over = "argon2 m above max.argon2";
        else if (t->cost > pol->max_argon2_t)
            over = "argon2 t above max.argon2";
        else if (t->lanes > pol->max_argon2_p)
            over = "argon2 p above max.argon2";
    } else if (pbkdf2_index(t->scheme) >= 0) {
        if (t->format != KDF_FMT_PASSLIB && t->format != KDF_FMT_PHC &&
            t->format != KDF_FMT_DJANGO)
            bad = "pbkdf2 format must be passlib, phc or django";
        else if (t->cost < 1)
            bad = "pbkdf2 iterations below 1";
        else if (t->salt_len < 1 || t->salt_len > KDF_MAX_SALT)
            bad = "pbkdf2 salt outside 1..64 bytes";
        else if (t->dk_len < 1 || t->dk_len > KDF_MAX_DIGEST)
            bad = "pbkdf2 length outside 1..64 bytes";
        else if (t->dk_len < pol->min_pbkdf2_len)
            bad = "pbkdf2 length below min.pbkdf2-len";
        else if (t->salt_len < pol->min_pbkdf2_salt)
            bad = "pbkdf2 salt below min.pbkdf2-salt";
        else if (t->cost > pol->max_pbkdf2_iter)
            over = "pbkdf2 iterations above max.pbkdf2";
    } else if (t->scheme == KDF_SCHEME_LEGACY && t->xcrypt != KDF_XCRYPT_NONE) {
        enum kdf_status xs = kdf_xcrypt_check(t, &bad);
        if (xs == KDF_UNSUPPORTED) {
            if (reason != NULL)
                *reason = bad;
            return xs;
        }
        if (xs == KDF_OK) {
            bad = NULL;
            /* The same caps as a stored entry of that scheme. */
            if (t->xcrypt != KDF_XCRYPT_YESCRYPT && t->cost > pol->max_pbkdf2_iter)
                over = "sha-crypt rounds above max.pbkdf2";
        }
    } else {
        if (reason != NULL)
            *reason = "scheme cannot be a target";
        return KDF_UNSUPPORTED;
    }
    if (reason != NULL)
        *reason = bad ? bad : over;
    return bad ? KDF_RANGE : over ? KDF_TOO_COSTLY : KDF_OK;
}
