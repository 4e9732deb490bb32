/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alg_impls.c - the registry: which table belongs to which enum kdf_prim, for
 * the public kdf_impl_* calls, the CLI's --isa and the test hooks.
 *
 * It reads the algorithm files' tables and calls the walker; neither calls
 * back here, so adding a primitive is one table and one line below.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"
#if defined(KDF_TEST_HOOKS) || defined(KDF_CORE_BUILD)
#include "kdf_testing.h"
#endif

static struct kdf_dispatch_table *const g_tables[KDF_PRIM_COUNT] = {
    [KDF_PRIM_SHA1] = &kdf_sha1_table,
    [KDF_PRIM_SHA256] = &kdf_sha256_table,
    [KDF_PRIM_SHA512] = &kdf_sha512_table,
    [KDF_PRIM_BLAMKA] = &kdf_blamka_table,
    [KDF_PRIM_BLOWFISH] = &kdf_blowfish_table,
};

static struct kdf_dispatch_table *
table(enum kdf_prim p)
{
    return (unsigned)p < KDF_PRIM_COUNT ? g_tables[p] : NULL;
}

kdf_generic_fn
kdf_dispatch_get(enum kdf_prim p)
{
    return kdf_dispatch_pick(g_tables[p])->fn;
}

const char *
kdf_prim_name(enum kdf_prim p)
{
    struct kdf_dispatch_table *t = table(p);
    return t != NULL ? t->prim : "unknown";
}

const char *
kdf_impl_name(enum kdf_prim p)
{
    struct kdf_dispatch_table *t = table(p);
    return t != NULL ? kdf_dispatch_pick(t)->name : "unknown";
}

size_t
kdf_impl_list(enum kdf_prim p, const char **names, int *usable, size_t cap)
{
    struct kdf_dispatch_table *t = table(p);

    if (t == NULL)
        return 0;
    for (size_t i = 0; i < t->nrows && i < cap; i++) {
        if (names != NULL)
            names[i] = t->rows[i].name;
        if (usable != NULL)
            usable[i] = kdf_dispatch_row_usable(&t->rows[i]);
    }
    return t->nrows;
}

int
kdf_impl_slow_here(enum kdf_prim p, size_t index)
{
    struct kdf_dispatch_table *t = table(p);

    return t != NULL && index < t->nrows && (t->rows[index].slow_on & kdf_cpu_vendor()) != 0;
}

enum kdf_status
kdf_dispatch_force_index(enum kdf_prim p, size_t index)
{
    struct kdf_dispatch_table *t = table(p);
    return t != NULL ? kdf_dispatch_force_row(t, index) : KDF_RANGE;
}

enum kdf_status
kdf_impl_force(const char *name)
{
    int found = 0;

    if (name == NULL)
        return KDF_RANGE;
    /* One name may need different features per primitive ("armv8": a CPU
     * with the SHA-1/SHA-256 extensions may lack SHA-512's): each primitive
     * that has the row and can run it takes it; the name is refused only
     * when none can. */
    for (int p = 0; p < KDF_PRIM_COUNT; p++) {
        struct kdf_dispatch_table *t = g_tables[p];
        for (size_t i = 0; i < t->nrows; i++) {
            if (strcmp(t->rows[i].name, name) != 0)
                continue;
            if (kdf_dispatch_force_row(t, i) == KDF_OK)
                found = 1;
        }
    }
    return found ? KDF_OK : KDF_UNSUPPORTED;
}
