/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_nfkc.c - kdf_password_nfkc(): the core's NFKC form of a password
 * (util_normalize.c) for the files above the core, which include
 * kdfhash.h alone: the compromised-password list normalizes its entries
 * and its lookups the way verification does.
 */
#include "kdf_prelude.h"
#include "util_normalize.h"

enum kdf_status
kdf_password_nfkc(const char *pw, size_t len, char *out, size_t cap, size_t *out_len)
{
    enum kdf_status st;

    if (pw == NULL || out == NULL || out_len == NULL)
        return KDF_RANGE;
    st = kdf_normalize_nfkc(pw, len, out, cap, out_len);
    if (st != KDF_MALFORMED)
        return st;
    /* Not UTF-8: the bytes as given, as verification uses them. */
    if (len > cap)
        return KDF_TOO_COSTLY;
    memcpy(out, pw, len);
    *out_len = len;
    return KDF_OK;
}
