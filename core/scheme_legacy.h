/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scheme_legacy.h - the legacy crypt(3) schemes through libxcrypt's
 * crypt_rn() (scheme_legacy.c).
 */
#ifndef KDF_SCHEME_LEGACY_H
#define KDF_SCHEME_LEGACY_H

#include "kdf_prelude.h"

enum kdf_status kdf_legacy_verify(const char *pw, size_t pw_len, const struct kdf_hash *h);
enum kdf_status kdf_xcrypt_setting(const struct kdf_target *t, const uint8_t *salt,
                                   size_t salt_len, char *out, size_t cap);
enum kdf_status kdf_legacy_hash(const char *pw, size_t pw_len, const struct kdf_target *t,
                                const uint8_t *salt, size_t salt_len, char *out,
                                size_t out_cap);
enum kdf_status kdf_legacy_crypt(const char *pw, size_t pw_len, const char *setting,
                                 size_t slen, const struct kdf_policy *pol, char *out,
                                 size_t cap, size_t *olen);

#endif /* KDF_SCHEME_LEGACY_H */
