/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * api_policy_text.h - the strict lexer (api_policy_text.c) that api_policy.c
 * (kdfhash.conf, module arguments) and api_target.c (target text) share.
 * Hidden from the module's exports.
 */
#ifndef KDF_POLICY_TEXT_H
#define KDF_POLICY_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kdfhash.h"

static inline int
kdf_pol_is_space(char c)
{
    return c == ' ' || c == '\t';
}

static inline int
kdf_pol_span_eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* Strict decimal of s[0..n) into 32 bits: 0, or -1. */
KDF_HIDDEN int kdf_pol_u32(const char *s, size_t n, uint32_t *out);

/* A scheme the accept list may name (a row we make): 0, or -1. */
KDF_HIDDEN int kdf_pol_scheme(const char *s, size_t n, enum kdf_scheme *out);

/* Next "k=v" item of s[0..n) from *pos, separated by commas and/or blanks;
 * *first is 1 before the first item.  1 with the item, 0 at the end, -1 on
 * an empty or malformed item. */
KDF_HIDDEN int kdf_pol_item(const char *s, size_t n, size_t *pos, int *first, const char **k,
                            size_t *klen, const char **v, size_t *vlen);

#endif /* KDF_POLICY_TEXT_H */
