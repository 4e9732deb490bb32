/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf.c - the entry points: verify and hash, routed to the scheme files.
 *
 * Order of work for a verify (design.md section 1): parse (zero allocation),
 * caps (refuse absurd costs and passwords before any work or allocation),
 * then the scheme's own verify, which compares decoded bytes in constant
 * time.  Empty and locked fields never verify here: whether an empty field
 * admits a login is the PAM module's nullok decision, not the core's.
 */
#include "kdf_internal.h"

/* The longest password libxcrypt hashes (CRYPT_MAX_PASSPHRASE_SIZE). */
#define CRYPT_PROBE_MAX 512

enum kdf_status
kdf_verify_ex(const char *pw, size_t pw_len, const struct kdf_hash *h,
              const struct kdf_policy *pol, void *work, size_t work_sz)
{
    struct kdf_policy def;
    const char *why = NULL;
    enum kdf_status st;

    if (h == NULL || (pw == NULL && pw_len != 0))
        return KDF_RANGE;
    if (pol == NULL) {
        kdf_policy_default(&def);
        pol = &def;
    }
    st = kdf_check_caps(h, pw_len, pol, &why);
    if (st != KDF_OK)
        return st;
    if (pw == NULL)
        pw = "";

    switch (h->scheme) {
    case KDF_SCHEME_EMPTY:
    case KDF_SCHEME_LOCKED:
        return KDF_MISMATCH;
    case KDF_SCHEME_BCRYPT:
        return kdf_bcrypt_verify(pw, pw_len, h);
    case KDF_SCHEME_PBKDF2_SHA1:
    case KDF_SCHEME_PBKDF2_SHA256:
    case KDF_SCHEME_PBKDF2_SHA512:
        return kdf_pbkdf2_verify(pw, pw_len, h);
    case KDF_SCHEME_ARGON2D:
    case KDF_SCHEME_ARGON2I:
    case KDF_SCHEME_ARGON2ID:
        return kdf_argon2_verify(pw, pw_len, h, pol, work, work_sz);
    case KDF_SCHEME_LEGACY:
        return kdf_legacy_verify(pw, pw_len, h);
    case KDF_SCHEME_COUNT:
        break;
    }
    return KDF_UNSUPPORTED;
}

enum kdf_status
kdf_verify(const char *pw, size_t pw_len, const char *hash, size_t hash_len)
{
    struct kdf_hash h;
    enum kdf_status st;

    if (hash == NULL)
        return KDF_RANGE;
    st = kdf_parse(hash, hash_len, &h, NULL);
    if (st != KDF_OK)
        return st;
    return kdf_verify_ex(pw, pw_len, &h, NULL, NULL, 0);
}

enum kdf_status
kdf_hash_ex(const char *pw, size_t pw_len, const struct kdf_target *t,
            const struct kdf_policy *pol, const uint8_t *salt, size_t salt_len, char *out,
            size_t out_cap)
{
    struct kdf_policy def;
    uint8_t rnd[KDF_MAX_SALT];
    const char *why = NULL;
    enum kdf_status st;

    if (t == NULL || out == NULL || out_cap == 0 || (pw == NULL && pw_len != 0))
        return KDF_RANGE;
    out[0] = '\0';
    if (pol == NULL) {
        kdf_policy_default(&def);
        pol = &def;
    }
    /* The generator refuses every parameter set the verifier would refuse
     * under the same policy (reliability.md test 6): the same caps serve
     * both, so a conf that raises a cap raises it for hashing too. */
    st = kdf_check_target(t, pol, &why);
    if (st != KDF_OK)
        return st;
    if (pw_len > pol->max_password_len)
        return KDF_TOO_COSTLY;
    if (pw == NULL)
        pw = "";
    if (salt == NULL) {
        /* A fresh salt from getrandom(); bcrypt's is always 16 bytes. */
        salt_len = t->scheme == KDF_SCHEME_BCRYPT ? 16 : t->salt_len;
        if (salt_len == 0 || salt_len > sizeof rnd)
            return KDF_RANGE;
        st = kdf_random(rnd, salt_len);
        if (st != KDF_OK)
            return st;
        salt = rnd;
    }

    switch (t->scheme) {
    case KDF_SCHEME_BCRYPT:
        st = kdf_bcrypt_hash(pw, pw_len, t, salt, salt_len, out, out_cap);
        break;
    case KDF_SCHEME_PBKDF2_SHA1:
    case KDF_SCHEME_PBKDF2_SHA256:
    case KDF_SCHEME_PBKDF2_SHA512:
        st = kdf_pbkdf2_hash(pw, pw_len, t, salt, salt_len, out, out_cap);
        break;
    case KDF_SCHEME_ARGON2D:
    case KDF_SCHEME_ARGON2I:
    case KDF_SCHEME_ARGON2ID:
        st = kdf_argon2_hash(pw, pw_len, t, pol, salt, salt_len, out, out_cap);
        break;
    case KDF_SCHEME_LEGACY:
        st = kdf_legacy_hash(pw, pw_len, t, salt, salt_len, out, out_cap);
        break;
    default:
        st = KDF_UNSUPPORTED;
        break;
    }
    kdf_wipe(rnd, sizeof rnd);
    return st;
}

enum kdf_status
kdf_hash_salt(const char *pw, size_t pw_len, const struct kdf_target *t,
              const uint8_t *salt, size_t salt_len, char *out, size_t out_cap)
{
    if (salt == NULL)
        return KDF_RANGE;
    return kdf_hash_ex(pw, pw_len, t, NULL, salt, salt_len, out, out_cap);
}

enum kdf_status
kdf_hash(const char *pw, size_t pw_len, const struct kdf_target *t, char *out,
         size_t out_cap)
{
    return kdf_hash_ex(pw, pw_len, t, NULL, NULL, 0, out, out_cap);
}

/*
 * Did a successful verify of pw against h depend on every byte of pw?  An
 * upgrade stores a hash of the whole typed password: after a scheme that
 * stopped early (DES reads 8 bytes, bcrypt 72), a typo past that point
 * verifies, and the upgrade would make the typo the password and lock the
 * user out of the real one.  bcrypt's limit is known; for the crypt(3)
 * schemes of fixed, small cost (DES, BSDi, NT, md5crypt, bigcrypt...) the
 * answer is measured rather than tabled: pw with its last byte changed is
 * verified too, and verifying as well means the tail was never read.  The
 * costly crypt(3) schemes (sha-crypt, yescrypt, scrypt, sha1-crypt,
 * SunMD5) and ours hash every byte.
 */
int
kdf_reads_whole_password(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    struct kdf_xcrypt_cost c;
    char probe[CRYPT_PROBE_MAX];
    enum kdf_status st;

    if (h == NULL || pw_len == 0)
        return 1;
    if (h->scheme == KDF_SCHEME_BCRYPT)
        return pw_len <= KDF_BCRYPT_MAX_PW;
    if (h->scheme != KDF_SCHEME_LEGACY ||
        kdf_xcrypt_cost(h->whole.ptr, h->whole.len, &c) != 1)
        return 1;
    if (pw_len >= sizeof probe)
        return 0; /* libxcrypt refuses such passwords anyway */
    memcpy(probe, pw, pw_len);
    /* Another byte, never NUL (crypt(3) would stop there). */
    probe[pw_len - 1] = probe[pw_len - 1] == 'x' ? 'y' : 'x';
    st = kdf_legacy_verify(probe, pw_len, h);
    kdf_wipe(probe, sizeof probe);
    return st != KDF_OK;
}
