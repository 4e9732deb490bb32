/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dispatch.c - pick one variant per primitive, once, best first.
 *
 * Each primitive owns a best-first table (struct kdf_impl_desc); the last
 * row is portable C.  The pick runs under pthread_once because the PAM
 * module is dlopened into threaded hosts.  A candidate must be (a) compiled
 * in (it is in the table only then), (b) supported by this CPU and OS
 * (kdf_cpu_features()), and (c) pass its tiny known answer: miscompiles ship
 * (libxcrypt's reasoning for its bcrypt self-test), so a failing variant is
 * skipped and the next one tried.  There is deliberately no environment
 * override: the module runs inside su and sudo.
 */
#include "kdf_internal.h"

#include <pthread.h>
#include <stdatomic.h>

struct prim_table {
    const char *name;
    const struct kdf_impl_desc *rows;
    const size_t *nrows;
};

static const struct prim_table g_tables[KDF_PRIM_COUNT] = {
    [KDF_PRIM_SHA1] = {"sha1", kdf_sha1_impls, &kdf_sha1_nimpls},
    [KDF_PRIM_SHA256] = {"sha256", kdf_sha256_impls, &kdf_sha256_nimpls},
    [KDF_PRIM_SHA512] = {"sha512", kdf_sha512_impls, &kdf_sha512_nimpls},
    [KDF_PRIM_BLAMKA] = {"blamka", kdf_blamka_impls, &kdf_blamka_nimpls},
};

/* Index of the chosen row per primitive.  Atomic because a test or the CLI
 * may force a variant while another thread reads it. */
static _Atomic size_t g_pick[KDF_PRIM_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static size_t
pick_one(enum kdf_prim p, uint32_t avail)
{
    const struct prim_table *t = &g_tables[p];
    size_t n = *t->nrows;

    for (size_t i = 0; i < n; i++) {
        const struct kdf_impl_desc *d = &t->rows[i];
        if ((d->needs & avail) != d->needs)
            continue;
        if (d->selftest != NULL && d->selftest(d->fn) != 0)
            continue; /* miscompiled or broken: fall through to the next */
        return i;
    }
    return n - 1; /* portable: always last, always present */
}

static void
pick_all(uint32_t avail)
{
    for (int p = 0; p < KDF_PRIM_COUNT; p++)
        atomic_store(&g_pick[p], pick_one((enum kdf_prim)p, avail));
}

static void
dispatch_init(void)
{
    pick_all(kdf_cpu_features());
}

kdf_generic_fn
kdf_dispatch_get(enum kdf_prim p)
{
    pthread_once(&g_once, dispatch_init);
    return g_tables[p].rows[atomic_load_explicit(&g_pick[p], memory_order_relaxed)].fn;
}

const char *
kdf_prim_name(enum kdf_prim p)
{
    if ((unsigned)p >= KDF_PRIM_COUNT)
        return "unknown";
    return g_tables[p].name;
}

const char *
kdf_impl_name(enum kdf_prim p)
{
    if ((unsigned)p >= KDF_PRIM_COUNT)
        return "unknown";
    pthread_once(&g_once, dispatch_init);
    return g_tables[p].rows[atomic_load(&g_pick[p])].name;
}

size_t
kdf_impl_list(enum kdf_prim p, const char **names, int *usable, size_t cap)
{
    if ((unsigned)p >= KDF_PRIM_COUNT)
        return 0;
    const struct prim_table *t = &g_tables[p];
    uint32_t avail = kdf_cpu_features();
    size_t n = *t->nrows;

    for (size_t i = 0; i < n && i < cap; i++) {
        if (names != NULL)
            names[i] = t->rows[i].name;
        if (usable != NULL)
            usable[i] = (t->rows[i].needs & avail) == t->rows[i].needs;
    }
    return n;
}

void
kdf_dispatch_force_mask(uint32_t mask)
{
    pthread_once(&g_once, dispatch_init);
    pick_all(kdf_cpu_features() & mask);
}

enum kdf_status
kdf_dispatch_force_index(enum kdf_prim p, size_t index)
{
    if ((unsigned)p >= KDF_PRIM_COUNT || index >= *g_tables[p].nrows)
        return KDF_RANGE;
    const struct kdf_impl_desc *d = &g_tables[p].rows[index];
    if ((d->needs & kdf_cpu_features()) != d->needs)
        return KDF_UNSUPPORTED;
    pthread_once(&g_once, dispatch_init);
    atomic_store(&g_pick[p], index);
    return KDF_OK;
}

enum kdf_status
kdf_impl_force(const char *name)
{
    int found = 0;

    if (name == NULL)
        return KDF_RANGE;
    pthread_once(&g_once, dispatch_init);
    for (int p = 0; p < KDF_PRIM_COUNT; p++) {
        const struct prim_table *t = &g_tables[p];
        for (size_t i = 0; i < *t->nrows; i++) {
            if (strcmp(t->rows[i].name, name) != 0)
                continue;
            if ((t->rows[i].needs & kdf_cpu_features()) != t->rows[i].needs)
                return KDF_UNSUPPORTED;
            atomic_store(&g_pick[p], i);
            found = 1;
        }
    }
    return found ? KDF_OK : KDF_UNSUPPORTED;
}
