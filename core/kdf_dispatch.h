/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf_dispatch.h - variant tables and the walker that picks one row of a
 * table (util_dispatch.c).  Not installed.
 *
 * Calls go one way: an algorithm file owns its table and asks the walker
 * for its row; alg_impls.c lists the tables for the public kdf_impl_* calls.
 * The walker knows no primitive, and no algorithm file calls alg_impls.c.
 */
#ifndef KDF_DISPATCH_H
#define KDF_DISPATCH_H

#include "kdf_prelude.h"

#include <stdatomic.h>

/* One variant of a primitive.  fn is cast to the primitive's own function
 * type by the table's owner; `more` holds the variant's other entry points
 * (a const struct the owner defines) when it has more than one. */
typedef void (*kdf_generic_fn)(void);
struct kdf_impl_desc {
    const char *name;  /* "portable", "shani", "avx2", "bmi1", ... */
    uint32_t needs;    /* KDF_CPU_* bits */
    kdf_generic_fn fn; /* the variant's main entry point */
    const void *more;  /* owner-defined, may be NULL */
    /* Known answer run before the row is picked: 0 = ok; NULL = none. */
    int (*selftest)(const struct kdf_impl_desc *row);
    /* KDF_VENDOR_* bits: the CPU vendors on which this row was measured
     * slower than the row after it (doc/DESIGN.md, "SIMD dispatch").  The
     * walker passes it over there; forcing it (--isa) still works. */
    uint32_t slow_on;
};


/* A primitive's best-first table and its cached pick.  The last row is the
 * portable one (needs == 0).  pick is valid when gen equals the walker's
 * current generation; kdf_dispatch_force_mask() bumps that generation, so
 * every table re-picks on its next use. */
struct kdf_dispatch_table {
    const char *prim; /* "sha256", "blamka", "blowfish", ... */
    const struct kdf_impl_desc *rows;
    size_t nrows;
    _Atomic size_t pick;
    _Atomic unsigned gen; /* 0: never picked */
};
#define KDF_DISPATCH_TABLE(name, rows) {(name), (rows), KDF_ARRAY_LEN(rows), 0, 0}

/* ---- the walker (util_dispatch.c) ---- */
/* The row in use for t: on first use (and after a force_mask), the first
 * row whose needs are met and whose self-test passes. */
const struct kdf_impl_desc *kdf_dispatch_pick(struct kdf_dispatch_table *t);
/* Use row `index` of t until the next force_mask: KDF_RANGE for a row that
 * does not exist, KDF_UNSUPPORTED when this CPU lacks its features. */
enum kdf_status kdf_dispatch_force_row(struct kdf_dispatch_table *t, size_t index);
/* Whether this CPU (ignoring any force_mask) has what row d needs. */
int kdf_dispatch_row_usable(const struct kdf_impl_desc *d);

/* ---- the tables, each defined by its primitive's file ---- */
extern struct kdf_dispatch_table kdf_sha1_table;     /* alg_sha1.c */
extern struct kdf_dispatch_table kdf_sha256_table;   /* alg_sha256.c */
extern struct kdf_dispatch_table kdf_sha512_table;   /* alg_sha512.c */
extern struct kdf_dispatch_table kdf_blamka_table;   /* alg_blamka.c */
extern struct kdf_dispatch_table kdf_blowfish_table; /* alg_blowfish.c */

/* ---- the registry (alg_impls.c) ---- */
/* The main entry point of the row in use for p (picks on first use). */
kdf_generic_fn kdf_dispatch_get(enum kdf_prim p);

#endif /* KDF_DISPATCH_H */
