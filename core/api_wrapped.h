/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_wrapped.h - wrapped entries ("$kdfw$", kdf_wrap()) between the entry
 * points that know them: the spelling of a zeroed digest (api_encode.c),
 * the split (api_parse.c), the work (api_wrapped.c) and the making
 * (api_wrap.c).  A wrapped entry is not a row of the scheme table: it is
 * two of the table's hashes, read through the entry points, which the
 * rows must not call.  Not installed.
 */
#ifndef KDF_API_WRAPPED_H
#define KDF_API_WRAPPED_H

#include "kdf_prelude.h"

#define KDF_WRAP_PREFIX KDF_WRAPPED_PREFIX

/* 1 when the digest of h (a parsed legacy hash) is all zero bits. */
int kdf_wrap_digest_zero(const struct kdf_hash *h);
/* h's string into out[cap] with its digest zeroed: the inner setting. */
enum kdf_status kdf_wrap_zero_digest(const struct kdf_hash *h, char *out, size_t cap);
/* The legacy hash string of pw made with in's setting, into out[cap]. */
enum kdf_status kdf_wrap_inner_hash(const char *pw, size_t pw_len, const struct kdf_hash *in,
                                    const struct kdf_policy *pol, char *out, size_t cap,
                                    size_t *olen);
/* What the entry points do with a wrapped h (scheme KDF_SCHEME_WRAPPED). */
enum kdf_status kdf_wrapped_verify(const char *pw, size_t pw_len, const struct kdf_hash *h,
                                   const struct kdf_policy *pol, void *work, size_t work_sz);
int kdf_wrapped_reads_whole(const char *pw, size_t pw_len, const struct kdf_hash *h);
const char *kdf_wrapped_over_caps(const struct kdf_hash *h, const struct kdf_policy *pol);
void kdf_wrapped_describe(const struct kdf_hash *h, enum kdf_describe what, char *out,
                          size_t cap);

#endif /* KDF_API_WRAPPED_H */
