/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_argon2.c - the Argon2 scheme: verify a parsed PHC string, make a
 * new one, and the public raw entry point (RFC 9106 with secret and
 * associated data).
 *
 * A PHC string $argon2{d,i,id}$v=19$m=..,t=..,p=..[,keyid=..][,data=..]$salt$tag
 * carries data= as Argon2's associated data X (the reference's encoding.c
 * does the same); keyid= names a secret we do not have, so it is carried
 * and otherwise ignored.  The tag is recomputed with the stored length and
 * compared with kdf_ct_eq().  Every secret buffer is wiped on every path.
 */
#include "kdf_internal.h"

#include <stdio.h>

#include "argon2_core.h"

/* data= is bounded by the longest string we accept. */
#define MAX_AD (KDF_MAX_HASH_STR / 4 * 3 + 3)

static int
scheme_type(enum kdf_scheme s, enum kdf_argon2_type *t)
{
    switch (s) {
    case KDF_SCHEME_ARGON2D:
        *t = KDF_ARGON2_D;
        return 0;
    case KDF_SCHEME_ARGON2I:
        *t = KDF_ARGON2_I;
        return 0;
    case KDF_SCHEME_ARGON2ID:
        *t = KDF_ARGON2_ID;
        return 0;
    default:
        return -1;
    }
}

enum kdf_status
kdf_argon2_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
                  const struct kdf_policy *pol, void *work, size_t work_sz)
{
    uint8_t salt[KDF_MAX_SALT], want[KDF_MAX_DIGEST], got[KDF_MAX_DIGEST], ad[MAX_AD];
    size_t salt_len = 0, want_len = 0, ad_len = 0;
    struct kdf_argon2_args a;
    enum kdf_status st;

    memset(&a, 0, sizeof a);
    if (h == NULL || scheme_type(h->scheme, &a.type) != 0)
        return KDF_UNSUPPORTED;
    st = kdf_decode_salt(h, salt, sizeof salt, &salt_len);
    if (st == KDF_OK)
        st = kdf_decode_digest(h, want, sizeof want, &want_len);
    if (st == KDF_OK && h->data.len > 0)
        st =
            kdf_b64_decode(KDF_B64_STD, h->data.ptr, h->data.len, ad, sizeof ad, &ad_len);
    if (st == KDF_OK && want_len < 4)
        st = KDF_MALFORMED; /* RFC 9106 section 3.1: T >= 4 */
    if (st == KDF_OK) {
        a.version = h->version;
        a.t_cost = h->cost;
        a.m_kib = h->m_kib;
        a.lanes = h->lanes;
        a.max_threads = pol != NULL ? pol->max_threads : 0;
        a.mem_budget_kib = pol != NULL ? pol->max_memory_kib : KDF_MEMGATE_AUTO;
        a.mem_wait_ms = pol != NULL ? pol->memory_wait_ms : 0;
        a.pw = (const uint8_t *)pw;
        a.pw_len = pw_len;
        a.salt = salt;
        a.salt_len = salt_len;
        a.ad = ad_len > 0 ? ad : NULL;
        a.ad_len = ad_len;
        st = kdf_argon2_compute(&a, got, want_len, work, work_sz);
        if (st == KDF_RANGE && work == NULL)
            st = KDF_MALFORMED; /* parameters no Argon2 can take */
    }
    if (st == KDF_OK)
        st = kdf_ct_eq(got, want, want_len) == 0 ? KDF_OK : KDF_MISMATCH;
    kdf_wipe(got, sizeof got);
    kdf_wipe(want, sizeof want);
    kdf_wipe(salt, sizeof salt);
    kdf_wipe(ad, sizeof ad);
    kdf_wipe(&a, sizeof a);
    return st;
}

enum kdf_status
kdf_argon2_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len,
                char *out, size_t cap)
{
    uint8_t tag[KDF_MAX_DIGEST];
    char buf[KDF_MAX_HASH_STR + 1];
    struct kdf_argon2_args a;
    struct kdf_hash chk;
    size_t n, el;
    enum kdf_status st;
    int w;

    memset(&a, 0, sizeof a);
    if (t == NULL || out == NULL || cap == 0 || scheme_type(t->scheme, &a.type) != 0)
        return KDF_RANGE;
    out[0] = '\0';
    if (t->dk_len < 4 || t->dk_len > KDF_MAX_DIGEST || salt_len == 0 ||
        salt_len > KDF_MAX_SALT || salt == NULL)
        return KDF_RANGE;
    a.version = t->version == 0 ? 0x13 : t->version;
    a.t_cost = t->cost;
    a.m_kib = t->m_kib;
    a.lanes = t->lanes;
    a.max_threads = pol != NULL ? pol->max_threads : 0;
    a.mem_budget_kib = pol != NULL ? pol->max_memory_kib : KDF_MEMGATE_AUTO;
    a.mem_wait_ms = pol != NULL ? pol->memory_wait_ms : 0;
    a.pw = (const uint8_t *)pw;
    a.pw_len = pw_len;
    a.salt = salt;
    a.salt_len = salt_len;
    st = kdf_argon2_compute(&a, tag, t->dk_len, NULL, 0);
    if (st != KDF_OK)
        goto out;

    /* $argon2id$v=19$m=..,t=..,p=..$salt$tag, standard base64 unpadded. */
    w = snprintf(buf, sizeof buf, "$%s$v=%u$m=%u,t=%u,p=%u$", kdf_scheme_name(t->scheme),
                 (unsigned)a.version, (unsigned)a.m_kib, (unsigned)a.t_cost,
                 (unsigned)a.lanes);
    st = KDF_RANGE;
    if (w < 0 || (size_t)w >= sizeof buf)
        goto out;
    n = (size_t)w;
    if (kdf_b64_encode(KDF_B64_STD, salt, salt_len, buf + n, sizeof buf - n, &el) !=
        KDF_OK)
        goto out;
    n += el;
    if (n + 1 >= sizeof buf)
        goto out;
    buf[n++] = '$';
    if (kdf_b64_encode(KDF_B64_STD, tag, t->dk_len, buf + n, sizeof buf - n, &el) !=
        KDF_OK)
        goto out;
    n += el;
    buf[n] = '\0';
    /* Self-check: what we emit must parse back as the same scheme. */
    st = KDF_INTERNAL;
    if (kdf_parse(buf, n, &chk, NULL) != KDF_OK || chk.scheme != t->scheme ||
        chk.m_kib != a.m_kib || chk.cost != a.t_cost || chk.lanes != a.lanes)
        goto out;
    st = KDF_RANGE;
    if (n + 1 > cap)
        goto out;
    memcpy(out, buf, n + 1);
    st = KDF_OK;
out:
    kdf_wipe(tag, sizeof tag);
    kdf_wipe(&a, sizeof a);
    return st;
}

enum kdf_status
kdf_argon2_raw(const struct kdf_argon2_params *p, const uint8_t *pw, size_t pw_len,
               uint8_t *out, size_t out_len, void *work, size_t work_sz)
{
    struct kdf_argon2_args a;
    enum kdf_status st;

    if (p == NULL || out == NULL)
        return KDF_RANGE;
    memset(&a, 0, sizeof a);
    if (scheme_type(p->type, &a.type) != 0)
        return KDF_UNSUPPORTED;
    a.version = p->version;
    a.t_cost = p->t_cost;
    a.m_kib = p->m_kib;
    a.lanes = p->lanes;
    a.max_threads = p->threads; /* 0: min(p, CPUs online) */
    /* No policy here (tests, benchmarks): no machine-wide budget either. */
    a.mem_budget_kib = KDF_MEMGATE_OFF;
    a.pw = pw;
    a.pw_len = pw_len;
    a.salt = p->salt;
    a.salt_len = p->salt_len;
    a.secret = p->secret;
    a.secret_len = p->secret_len;
    a.ad = p->ad;
    a.ad_len = p->ad_len;
    st = kdf_argon2_compute(&a, out, out_len, work, work_sz);
    kdf_wipe(&a, sizeof a);
    return st;
}
