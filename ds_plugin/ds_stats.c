/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ds_stats.c - the plugin's counters, for an operator's dashboard.
 *
 * One process-wide atomic per event, counted where the event happens
 * (ds_schemes.c, ds_fair.c, ds_upgrade.c, ds_wrap.c), and shown with the
 * core's work-area figures as attributes of the upgrade entry itself when
 * it is read with a base search (the entry's search callback, registered
 * at its start: ds_upgrade.c).  The plugin's own entry rather than one
 * under cn=monitor: it exists in every server that loads the plugin, and
 * nothing has to be added to the configuration or kept in step with it.
 * Counts since the server started; never a DN, a value or a password.
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <stdio.h>

/* The attribute of each counter, in enum kds_stat's order: the one list
 * the callback, the tests and the man page read. */
static const char *const g_attr[KDS_ST_COUNT] = {
    [KDS_ST_COMPARES] = "kdfhashCompares",
    [KDS_ST_MATCHES] = "kdfhashMatches",
    [KDS_ST_MISMATCHES] = "kdfhashMismatches",
    [KDS_ST_REFUSED] = "kdfhashRefusedValues",
    [KDS_ST_OVER_CAPS] = "kdfhashOverCaps",
    [KDS_ST_BUSY] = "kdfhashBusy",
    [KDS_ST_STORM_REFUSED] = "kdfhashStormRefused",
    [KDS_ST_STORM_WAITS] = "kdfhashStormWaits",
    [KDS_ST_UPGRADES] = "kdfhashUpgrades",
    [KDS_ST_UPGRADES_LOST] = "kdfhashUpgradesChangedMeanwhile",
    [KDS_ST_UPGRADE_ERRORS] = "kdfhashUpgradeErrors",
    [KDS_ST_WRAP_MODIFIES] = "kdfhashWrapModifies",
};

static atomic_ullong g_count[KDS_ST_COUNT];

void
kds_stat_add(enum kds_stat s)
{
    if ((unsigned)s < KDS_ST_COUNT)
        atomic_fetch_add_explicit(&g_count[s], 1, memory_order_relaxed);
}

uint64_t
kds_stat_get(enum kds_stat s)
{
    return (unsigned)s < KDS_ST_COUNT
               ? atomic_load_explicit(&g_count[s], memory_order_relaxed)
               : 0;
}

const char *
kds_stat_attr(enum kds_stat s)
{
    return (unsigned)s < KDS_ST_COUNT ? g_attr[s] : NULL;
}

size_t
kds_stat_pool(struct kds_stat_pair out[KDS_STAT_POOL_N])
{
    struct kdf_workpool_stats w;

    kdf_workpool_stats(&w);
    out[0] = (struct kds_stat_pair){"kdfhashWorkAreaSlots", w.slots};
    out[1] = (struct kds_stat_pair){"kdfhashWorkAreasReused", w.reused};
    out[2] = (struct kds_stat_pair){"kdfhashWorkAreasMapped", w.mapped};
    out[3] = (struct kds_stat_pair){"kdfhashWorkAreaAllBusy", w.missed};
    out[4] = (struct kds_stat_pair){"kdfhashWorkAreaTooLarge", w.large};
    out[5] = (struct kds_stat_pair){"kdfhashWorkAreasKeptKiB", w.kept_kib};
    return KDS_STAT_POOL_N;
}
