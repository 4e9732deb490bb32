/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_b64.h - the base64 internals the parser and the scheme helpers use
 * (util_b64.c).
 */
#ifndef KDF_UTIL_B64_H
#define KDF_UTIL_B64_H

#include "kdf_prelude.h"

/* Strict validation without decoding: alphabet, length, canonical spare
 * bits; *out_len gets the decoded length.  What kdf_parse() runs. */
enum kdf_status kdf_b64_check(enum kdf_b64 alpha, const char *in, size_t in_len,
                              size_t *out_len);
/* bcrypt alphabet and length only (the spare low bits of the last character
 * are not looked at; kdf_parse() requires them to be zero).  1 when valid. */
int kdf_b64_bcrypt_valid(const char *in, size_t in_len);
/* Decode bcrypt base64 ignoring those spare bits (salt 22 -> 16 bytes,
 * digest 31 -> 23 bytes). */
enum kdf_status kdf_b64_bcrypt_decode_lenient(const char *in, size_t in_len,
                                              uint8_t *out, size_t cap,
                                              size_t *out_len);

#endif /* KDF_UTIL_B64_H */
