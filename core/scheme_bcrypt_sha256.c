/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_bcrypt_sha256.c - passlib's bcrypt_sha256: bcrypt over a SHA-256
 * pre-hash of the password, so that every byte counts (bcrypt alone reads
 * 72, and NIST SP 800-63B rev. 4 forbids truncating a password).  Verified
 * only: a login on one is rewritten to the policy's target.
 *
 *   v2 (passlib 1.7.3 and later):
 *     $bcrypt-sha256$v=2,t=2b,r=R$<22 salt>$<31 digest>
 *     key = base64(HMAC-SHA256(key = the 22 salt characters, msg = password))
 *   v1:
 *     $bcrypt-sha256$2a,R$<22 salt>$<31 digest>   (also 2b)
 *     key = base64(SHA-256(password))
 *
 * base64 is the standard alphabet with '=' padding, so the key is 44 bytes
 * and bcrypt reads all of it; the digest is bcrypt's of that key with the
 * same salt and cost R (4..31, no leading zero).  Salt and digest are in
 * bcrypt's alphabet with canonical spare bits (passlib repairs other bits;
 * a second spelling of one hash is refused here, as everywhere).
 * kdf_hash.version holds 1 or 2, the syntax to write back.
 */
#include "kdf_prelude.h"

#include <stdio.h>

#include "alg_sha.h"
#include "hstr.h"
#include "kdf_scheme.h"

#define BS_SALT_CHARS 22
#define BS_DIGEST_CHARS 31
#define BS_KEY_CHARS 44 /* base64 of 32 bytes, padded */

static const char *const bs_prefixes[] = {"$bcrypt-sha256$", NULL};

/* A cost 4..31 without a leading zero at s[*pos]. */
static int
bs_cost(const char *s, size_t len, size_t *pos, uint32_t *cost)
{
    return kdf_dec_u32(s, len, pos, cost) && *cost >= 4 && *cost <= 31;
}

/* salt$digest at s[pos..len), checked as bcrypt checks its own: the same
 * fields spelt as a $2b$ string go through bcrypt's parser. */
static enum kdf_status
bs_salt_digest(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    char as_bcrypt[7 + BS_SALT_CHARS + BS_DIGEST_CHARS];
    struct kdf_hash b;
    const char *bwhy = NULL;
    size_t plen;

    if (len - pos != BS_SALT_CHARS + 1 + BS_DIGEST_CHARS || s[pos + BS_SALT_CHARS] != '$')
        return kdf_fail(why, KDF_MALFORMED, "bcrypt-sha256: salt and digest not 22$31");
    memcpy(as_bcrypt, "$2b$", 4);
    as_bcrypt[4] = (char)('0' + h->cost / 10);
    as_bcrypt[5] = (char)('0' + h->cost % 10);
    as_bcrypt[6] = '$';
    memcpy(as_bcrypt + 7, s + pos, BS_SALT_CHARS);
    memcpy(as_bcrypt + 7 + BS_SALT_CHARS, s + pos + BS_SALT_CHARS + 1, BS_DIGEST_CHARS);
    memset(&b, 0, sizeof b);
    if (!kdf_scheme_claims(&kdf_row_bcrypt, as_bcrypt, sizeof as_bcrypt, &plen) ||
        kdf_row_bcrypt.parse(as_bcrypt, sizeof as_bcrypt, plen, &b, &bwhy) != KDF_OK)
        return kdf_fail(why, KDF_MALFORMED, "bcrypt-sha256: bad salt or digest");
    h->scheme = KDF_SCHEME_BCRYPT;
    h->salt = (struct kdf_span){s + pos, BS_SALT_CHARS};
    h->digest = (struct kdf_span){s + pos + BS_SALT_CHARS + 1, BS_DIGEST_CHARS};
    h->salt_len = b.salt_len;
    h->dk_len = b.dk_len;
    return KDF_OK;
}

static enum kdf_status
bs_parse(const char *s, size_t len, size_t pos, struct kdf_hash *h, const char **why)
{
    if (KDF_HAS("v=2,t=2b,r=")) {
        pos += 11;
        h->version = 2;
        h->bcrypt_minor = 'b';
    } else if (KDF_HAS("2a,") || KDF_HAS("2b,")) {
        h->version = 1;
        h->bcrypt_minor = s[pos + 1];
        pos += 3;
    } else if (KDF_HAS("v=")) {
        return kdf_fail(why, KDF_UNSUPPORTED, "bcrypt-sha256: not version 2 with t=2b");
    } else {
        return kdf_fail(why, KDF_MALFORMED, "bcrypt-sha256: expected v=2,t=2b,r= or 2a,/2b,");
    }
    if (!bs_cost(s, len, &pos, &h->cost))
        return kdf_fail(why, KDF_MALFORMED, "bcrypt-sha256: cost not 4..31");
    if (!KDF_HAS("$"))
        return kdf_fail(why, KDF_MALFORMED, "bcrypt-sha256: '$' expected after the cost");
    return bs_salt_digest(s, len, pos + 1, h, why);
}

static enum kdf_status
bs_encode(const struct kdf_hash *h, struct kdf_wbuf *b)
{
    KDF_PUT(b, "$bcrypt-sha256$");
    if (h->version == 2) {
        KDF_PUT(b, "v=2,t=2b,r=");
    } else if (h->version == 1 && (h->bcrypt_minor == 'a' || h->bcrypt_minor == 'b')) {
        KDF_PUT(b, "2");
        kdf_put(b, &h->bcrypt_minor, 1);
        KDF_PUT(b, ",");
    } else {
        return KDF_RANGE;
    }
    kdf_put_u32(b, h->cost);
    kdf_put_salt_digest(b, h);
    return KDF_OK;
}

static int
bs_alphabet(const struct kdf_hash *h, int digest)
{
    (void)h;
    (void)digest;
    return KDF_B64_BCRYPT;
}

static void
bs_describe(const struct kdf_hash *h, enum kdf_describe what, char *out, size_t cap)
{
    if (what == KDF_DESC_FIELDS)
        snprintf(out, cap, "scheme=bcrypt-sha256 version=%u minor=%c cost=%u salt_len=%u "
                           "digest_len=%u",
                 (unsigned)h->version, h->bcrypt_minor, (unsigned)h->cost,
                 (unsigned)h->salt_len, (unsigned)h->dk_len);
    else if (what == KDF_DESC_PARAMS)
        snprintf(out, cap, "v=%u,minor=%c,cost=%u", (unsigned)h->version, h->bcrypt_minor,
                 (unsigned)h->cost);
    else
        snprintf(out, cap, "cost=%u", (unsigned)h->cost);
}

static enum kdf_status
bs_verify(const char *pw, size_t pw_len, const struct kdf_hash *h, const struct kdf_policy *pol,
          void *work, size_t work_sz)
{
    uint8_t mac[32];
    char key[BS_KEY_CHARS + 1];
    size_t key_len = 0;
    enum kdf_status st;

    if (h == NULL || (pw == NULL && pw_len != 0))
        return KDF_RANGE;
    if (pw == NULL)
        pw = "";
    if (h->version == 2)
        st = kdf_hmac(KDF_PRIM_SHA256, (const uint8_t *)h->salt.ptr, h->salt.len, pw,
                      pw_len, mac, sizeof mac);
    else
        st = kdf_sha_digest(KDF_PRIM_SHA256, pw, pw_len, mac, sizeof mac);
    if (st == KDF_OK)
        st = kdf_b64_encode(KDF_B64_STD_PAD, mac, sizeof mac, key, sizeof key, &key_len);
    if (st == KDF_OK && key_len != BS_KEY_CHARS)
        st = KDF_INTERNAL;
    if (st == KDF_OK)
        st = kdf_row_bcrypt.verify(key, key_len, h, pol, work, work_sz);
    kdf_wipe(mac, sizeof mac);
    kdf_wipe(key, sizeof key);
    return st;
}

/* Policy: bcrypt's, on the same cost. */
const struct kdf_scheme_desc kdf_row_bcrypt_sha256 = {
    .name = "bcrypt-sha256",
    .id = KDF_SCHEME_BCRYPT,
    .summary = "passlib's bcrypt_sha256 (v2 HMAC-SHA256, v1 SHA-256 pre-hash), verified only",
    .prefixes = bs_prefixes,
    .parse = bs_parse,
    .encode = bs_encode,
    .alphabet = bs_alphabet,
    .describe = bs_describe,
    .verify = bs_verify,
    .over_caps = kdf_bcrypt_over_caps,
    .below_min = kdf_bcrypt_below_min,
    .cost_kind = KDF_COST_STEP,
    .pkeys = kdf_bcrypt_pkeys,
    .npkeys = KDF_BCRYPT_NPKEYS,
};
