/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_memgate.h - the machine-wide memory budget of memory-hard work
 * (util_memgate.c).
 */
#ifndef KDF_UTIL_MEMGATE_H
#define KDF_UTIL_MEMGATE_H

#include "kdf_prelude.h"

/* The machine-wide memory budget: take need_kib before mapping
 * an area (*fd_out is the holding descriptor, -1 when not gated), give it
 * back after.  KDF_BUSY when the budget (or the caller's real uid's share
 * of it, or the pool all capped uids share unless admin: kdf_policy's
 * mem_admin) stayed full for wait_ms; KDF_OVER_BUDGET at once when need_kib
 * is more than the whole budget. */
enum kdf_status kdf_memgate_take(uint64_t need_kib, uint32_t budget_kib, unsigned wait_ms,
                                 int admin, int *fd_out);
void kdf_memgate_give(int fd);
/* The "auto" budget in MiB: half the memory cgroup's limit or the RAM. */
uint64_t kdf_memgate_auto_mib(void);
/* A policy's budget (KDF_MEMGATE_AUTO, _OFF or KiB) in KiB, 0 for none:
 * how kdf_memgate_take() reads it, for the pool's bound on kept areas. */
uint64_t kdf_memgate_budget_kib(uint32_t budget_kib);

#endif /* KDF_UTIL_MEMGATE_H */
