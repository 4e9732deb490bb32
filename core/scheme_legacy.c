/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_legacy.c - the crypt(3) schemes we do not implement ($1$ $5$ $6$
 * $y$ $gy$ $7$ $sha1$ $md5 DES BSDi ...), verified by delegating to the
 * system's libxcrypt (design.md section 2, issue 3 "Legacy").
 *
 * Why crypt_rn(): it is libxcrypt's re-entrant call that writes into a
 * caller-provided struct crypt_data and returns NULL on failure, so nothing
 * is allocated, nothing is shared between threads, and we can wipe every
 * byte it touched.  crypt_r() would also work but returns a failure token
 * instead of NULL; crypt_ra() allocates; crypt() uses static storage.
 *
 * Failure tokens: on error libxcrypt writes "*0" (or "*1" when the setting
 * itself starts with "*0") so that its output never equals the stored
 * string (reliability.md 3.1).  We do not rely on that alone: a NULL return
 * is never a match, an output starting with '*' is never a match, and a
 * stored string starting with '*' or '!' is refused before libxcrypt is
 * called (the parser classes those as LOCKED anyway).
 *
 * The password: crypt_rn() takes a C string, so a password with a NUL byte
 * is used up to that NUL (as every crypt(3) caller sees it; the same rule
 * as scheme_bcrypt.c).  libxcrypt refuses passphrases of 512 bytes or more
 * (CRYPT_MAX_PASSPHRASE_SIZE, ERANGE); we refuse a pw_len that large with
 * KDF_TOO_COSTLY before copying anything.
 *
 * The comparison: the output and the stored string are compared over their
 * whole length with kdf_ct_eq() (their lengths are public: the stored
 * string's length is known to whoever chose the scheme).
 */
#include "kdf_internal.h"

#include <crypt.h>
#include <errno.h>

#ifndef CRYPT_MAX_PASSPHRASE_SIZE
#define CRYPT_MAX_PASSPHRASE_SIZE 512
#endif

/* What a failed crypt_rn() means for the caller. */
static enum kdf_status
status_of_errno(int e)
{
    switch (e) {
    case EINVAL:
        return KDF_UNSUPPORTED; /* unknown method or a setting it refuses */
    case ERANGE:
        return KDF_TOO_COSTLY; /* passphrase too long */
    case ENOMEM:
        return KDF_NOMEM;
    default:
        return KDF_INTERNAL;
    }
}

/* crypt_rn() of phrase and setting into data, zeroed first as libxcrypt
 * wants: KDF_OK with its output (*res, *rlen; maybe a failure token, which
 * the caller judges), or the status its errno means. */
static enum kdf_status
run_crypt(const char *phrase, const char *setting, struct crypt_data *data, const char **res,
          size_t *rlen)
{
    memset(data, 0, sizeof *data);
    errno = 0;
    *res = crypt_rn(phrase, setting, data, (int)sizeof *data);
    if (*res == NULL)
        return status_of_errno(errno);
    *rlen = strnlen(*res, sizeof data->output);
    return KDF_OK;
}

enum kdf_status
kdf_legacy_verify(const char *pw, size_t pw_len, const struct kdf_hash *h)
{
    struct crypt_data data; /* 32 KiB on the stack: libxcrypt's scratch */
    char phrase[CRYPT_MAX_PASSPHRASE_SIZE];
    char setting[KDF_MAX_HASH_STR + 1];
    const char *res, *nul;
    size_t n, slen, rlen;
    enum kdf_status st;
    int saved_errno = errno;

    if (h == NULL || (pw == NULL && pw_len != 0) || h->scheme != KDF_SCHEME_LEGACY)
        return KDF_RANGE;
    slen = h->whole.len;
    if (h->whole.ptr == NULL || slen == 0 || slen > KDF_MAX_HASH_STR ||
        memchr(h->whole.ptr, '\0', slen) != NULL)
        return KDF_MALFORMED;
    /* Locked / failure-token shaped entries never verify. */
    if (h->whole.ptr[0] == '*' || h->whole.ptr[0] == '!')
        return KDF_MISMATCH;
    if (pw_len >= CRYPT_MAX_PASSPHRASE_SIZE)
        return KDF_TOO_COSTLY;

    /* The C string crypt_rn() would be given. */
    n = pw_len;
    nul = n != 0 ? memchr(pw, '\0', n) : NULL;
    if (nul != NULL)
        n = (size_t)(nul - pw);
    if (n != 0)
        memcpy(phrase, pw, n);
    phrase[n] = '\0';
    memcpy(setting, h->whole.ptr, slen);
    setting[slen] = '\0';

    st = run_crypt(phrase, setting, &data, &res, &rlen);
    if (st == KDF_OK) {
        if (rlen == 0 || res[0] == '*' || rlen != slen)
            st = KDF_MISMATCH;
        else
            st = kdf_ct_eq(res, setting, slen) == 0 ? KDF_OK : KDF_MISMATCH;
    }

    kdf_wipe(&data, sizeof data);
    kdf_wipe(phrase, sizeof phrase);
    kdf_wipe(setting, sizeof setting);
    errno = saved_errno;
    return st;
}

/* ---- making crypt(3) hashes: the targets that lead back to pam_unix ---- */

/* libxcrypt's prefix of each target (crypt(5)). */
const char *
kdf_xcrypt_prefix(enum kdf_xcrypt x)
{
    switch (x) {
    case KDF_XCRYPT_YESCRYPT:
        return "$y$";
    case KDF_XCRYPT_SHA512:
        return "$6$";
    case KDF_XCRYPT_SHA256:
        return "$5$";
    default:
        return NULL;
    }
}

/* The setting of t (salt from salt/salt_len, at least 16 bytes) made by
 * crypt_gensalt_rn(), into out[cap]. */
enum kdf_status
kdf_xcrypt_setting(const struct kdf_target *t, const uint8_t *salt, size_t salt_len,
                   char *out, size_t cap)
{
    const char *prefix = kdf_xcrypt_prefix(t->xcrypt);
    int saved_errno = errno;
    const char *r;

    if (prefix == NULL || salt == NULL || salt_len < 16 || salt_len > 64 || cap < 2)
        return KDF_RANGE;
    errno = 0;
    r = crypt_gensalt_rn(prefix, t->cost, (const char *)salt, (int)salt_len, out, (int)cap);
    errno = saved_errno;
    if (r == NULL || out[0] == '*')
        return KDF_UNSUPPORTED; /* a libxcrypt built without that scheme */
    return KDF_OK;
}

enum kdf_status
kdf_legacy_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                const uint8_t *salt, size_t salt_len, char *out, size_t out_cap)
{
    struct crypt_data data;
    char phrase[CRYPT_MAX_PASSPHRASE_SIZE];
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    const char *res;
    size_t rlen;
    enum kdf_status st;
    int saved_errno = errno;

    /* A NUL inside the password would cut what crypt(3) reads: the new
     * hash would not be of the password that was typed. */
    if (pw_len >= CRYPT_MAX_PASSPHRASE_SIZE)
        return KDF_TOO_COSTLY;
    if (pw_len != 0 && memchr(pw, '\0', pw_len) != NULL)
        return KDF_RANGE;
    st = kdf_xcrypt_setting(t, salt, salt_len, setting, sizeof setting);
    if (st != KDF_OK)
        return st;
    if (pw_len != 0)
        memcpy(phrase, pw, pw_len);
    phrase[pw_len] = '\0';
    st = run_crypt(phrase, setting, &data, &res, &rlen);
    if (st == KDF_OK) {
        if (rlen == 0 || res[0] == '*')
            st = KDF_INTERNAL;
        else if (rlen >= out_cap || rlen > KDF_MAX_HASH_STR)
            st = KDF_RANGE;
        else {
            memcpy(out, res, rlen + 1);
            st = KDF_OK;
        }
    }
    kdf_wipe(&data, sizeof data);
    kdf_wipe(phrase, sizeof phrase);
    errno = saved_errno;
    return st;
}
