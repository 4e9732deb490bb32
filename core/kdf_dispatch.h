/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf_dispatch.h - the variant tables of the primitives (SHA-1, SHA-256,
 * SHA-512, BlaMka) and the walker that picks one row of each (dispatch.c).
 * Not installed.
 */
#ifndef KDF_DISPATCH_H
#define KDF_DISPATCH_H

#include "kdf_prelude.h"

/* ---- dispatch (dispatch.c) ----
 * Each primitive with variants exports a best-first table of these.  The
 * pick happens once under pthread_once: the first row whose `needs` are all
 * in (detected & compiled-in) and whose self-test passes wins; the last row
 * is always the portable one (needs == 0).  fn is cast to the primitive's own
 * function type by its owner. */
typedef void (*kdf_generic_fn)(void);
struct kdf_impl_desc {
    const char *name;            /* "portable", "shani", "ssse3", "avx2", ... */
    uint32_t needs;              /* KDF_CPU_* bits */
    kdf_generic_fn fn;           /* the variant's entry point */
    int (*selftest)(kdf_generic_fn fn); /* 0 = ok; may be NULL */
};

/* Tables, defined by the primitives' files. */
extern const struct kdf_impl_desc kdf_sha1_impls[];
extern const size_t kdf_sha1_nimpls;
extern const struct kdf_impl_desc kdf_sha256_impls[];
extern const size_t kdf_sha256_nimpls;
extern const struct kdf_impl_desc kdf_sha512_impls[];
extern const size_t kdf_sha512_nimpls;
extern const struct kdf_impl_desc kdf_blamka_impls[];
extern const size_t kdf_blamka_nimpls;

/* The chosen entry point of primitive p (picks on first use). */
kdf_generic_fn kdf_dispatch_get(enum kdf_prim p);

#endif /* KDF_DISPATCH_H */
