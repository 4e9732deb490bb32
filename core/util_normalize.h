/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_normalize.h - the NFKC form of a password (util_normalize.c).
 */
#ifndef KDF_UTIL_NORMALIZE_H
#define KDF_UTIL_NORMALIZE_H

#include "kdf_prelude.h"

/* Bytes of an NFKC form kept on the caller's stack; a longer one (up to
 * max.password) goes to the heap, wiped before it is freed. */
#define KDF_NFKC_STACK 1024

/* pw[0..len) in Unicode NFKC into out[0..cap), its length in *out_len
 * (no NUL is added):
 *   KDF_OK         the form is written (it may equal the input: ASCII is
 *                  copied as it is);
 *   KDF_MALFORMED  pw is not valid UTF-8: use the bytes as given (out is
 *                  left zero-filled, *out_len 0);
 *   KDF_TOO_COSTLY the form is longer than cap (out is zero-filled and
 *                  libunistring's copy wiped and freed);
 *   KDF_NOMEM      libunistring could not allocate;
 *   KDF_RANGE      a NULL argument. */
enum kdf_status kdf_normalize_nfkc(const char *pw, size_t len, char *out, size_t cap,
                                   size_t *out_len) KDF_WUR;

/* The form of a password an entry point hashes or tries second: in the
 * stack area when it fits, else on the heap (up to max bytes). */
struct kdf_nfkc {
    char stack[KDF_NFKC_STACK];
    char *heap;
    size_t heap_cap;
    const char *pw; /* the form: pw as given, or stack or heap */
    size_t len;
    int differs; /* 1 when the form is not the bytes as given */
};

/* Fill n with the NFKC form of pw[0..len) under the cap max (bytes of the
 * form): KDF_OK, with n->pw the bytes as given when they are not UTF-8 or
 * already in NFKC; KDF_TOO_COSTLY when the form is longer than max;
 * KDF_NOMEM.  Always pair with kdf_nfkc_drop(), whatever the status. */
enum kdf_status kdf_nfkc_form(struct kdf_nfkc *n, const char *pw, size_t len,
                              size_t max) KDF_WUR;

/* The one other form a verify tries (kdf_verify_form()): the NFKC form
 * when it differs from pw (KDF_FORM_NFKC in *form), else the NFD form
 * (KDF_FORM_NFD), which differs when pw is in NFKC but has characters
 * that decompose.  n->differs is 0 when there is no other form (ASCII,
 * not UTF-8, nothing to compose or decompose): then no second try.
 * Statuses as kdf_nfkc_form(); pair with kdf_nfkc_drop(). */
enum kdf_status kdf_second_form(struct kdf_nfkc *n, const char *pw, size_t len, size_t max,
                                enum kdf_form *form) KDF_WUR;

/* Wipe the form (stack and heap) and free the heap copy. */
void kdf_nfkc_drop(struct kdf_nfkc *n);

#endif /* KDF_UTIL_NORMALIZE_H */
