/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_dispatch.c - the walker: pick one row of a variant table, best first.
 *
 * It knows no primitive: each algorithm file hands it its own table.  A row
 * is taken when this CPU and OS have its features (kdf_cpu_features()), it
 * was not measured slower on this CPU's vendor, and its known answer passes; a miscompiled variant then costs speed, not
 * wrong hashes.  The pick is cached in the table; the generation counter
 * lets the force_mask test hook make every table pick again without a list
 * of them.  No environment override: the PAM module runs inside su and sudo.
 */
#include "kdf_prelude.h"
#include "kdf_dispatch.h"
#if defined(KDF_TEST_HOOKS) || defined(KDF_CORE_BUILD)
#include "kdf_testing.h"
#endif

#include <pthread.h>

/* Self-tests run under this lock, so each table runs them once per
 * generation however many threads arrive together; a self-test must not
 * ask the walker for a row. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned g_gen = 1; /* never 0: 0 marks a table never picked */
static uint32_t g_mask = ~0u;      /* under g_lock */

static size_t
first_good(const struct kdf_dispatch_table *t, uint32_t avail)
{
    for (size_t i = 0; i < t->nrows; i++) {
        const struct kdf_impl_desc *d = &t->rows[i];
        if ((d->needs & avail) != d->needs)
            continue;
        if (d->slow_on & kdf_cpu_vendor())
            continue; /* measured slower than the next row on this vendor */
        if (d->selftest != NULL && d->selftest(d) != 0)
            continue; /* miscompiled or broken: try the next one */
        return i;
    }
    return t->nrows - 1; /* portable: always last, always present */
}

const struct kdf_impl_desc *
kdf_dispatch_pick(struct kdf_dispatch_table *t)
{
    unsigned gen = atomic_load_explicit(&g_gen, memory_order_acquire);

    if (atomic_load_explicit(&t->gen, memory_order_acquire) != gen) {
        pthread_mutex_lock(&g_lock);
        gen = atomic_load(&g_gen);
        if (atomic_load(&t->gen) != gen) {
            atomic_store(&t->pick, first_good(t, kdf_cpu_features() & g_mask));
            atomic_store_explicit(&t->gen, gen, memory_order_release);
        }
        pthread_mutex_unlock(&g_lock);
    }
    return &t->rows[atomic_load_explicit(&t->pick, memory_order_relaxed)];
}

int
kdf_dispatch_row_usable(const struct kdf_impl_desc *d)
{
    return (d->needs & kdf_cpu_features()) == d->needs;
}

enum kdf_status
kdf_dispatch_force_row(struct kdf_dispatch_table *t, size_t index)
{
    if (index >= t->nrows)
        return KDF_RANGE;
    if (!kdf_dispatch_row_usable(&t->rows[index]))
        return KDF_UNSUPPORTED;
    pthread_mutex_lock(&g_lock);
    atomic_store(&t->pick, index);
    atomic_store_explicit(&t->gen, atomic_load(&g_gen), memory_order_release);
    pthread_mutex_unlock(&g_lock);
    return KDF_OK;
}

void
kdf_dispatch_force_mask(uint32_t mask)
{
    pthread_mutex_lock(&g_lock);
    g_mask = mask;
    unsigned next = atomic_load(&g_gen) + 1;
    atomic_store(&g_gen, next != 0 ? next : 1);
    pthread_mutex_unlock(&g_lock);
}
