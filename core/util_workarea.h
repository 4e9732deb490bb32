/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_workarea.h - the areas memory-hard work runs in and the pool a server
 * keeps them in (util_workarea.c).
 */
#ifndef KDF_UTIL_WORKAREA_H
#define KDF_UTIL_WORKAREA_H

#include "kdf_prelude.h"

/* Areas for memory-hard work: map len bytes (2 MiB aligned,
 * huge page hint, not yet populated; *map_len is what unmap gets), get its
 * pages (-1 when the kernel cannot give them), unmap. */
enum kdf_status kdf_area_map(size_t len, void **mem, size_t *map_len);
int kdf_area_populate(void *p, size_t len);
void kdf_area_unmap(void *mem, size_t map_len);
/* A kept area of at least need bytes, populated and all zeros, from the
 * pool (kdf_workpool_set()); NULL with *st KDF_OK when the pool is off,
 * full or keeps no area that large (map one then: never a wait), NULL with
 * *st the budget's refusal or KDF_NOMEM.  admin: kdf_memgate_take()'s. */
struct kdf_pool_slot;
struct kdf_pool_slot *kdf_workpool_take(size_t need, uint32_t budget_kib, unsigned wait_ms,
                                        int admin, void **mem, enum kdf_status *st);
/* Back to the pool, every block the verification wrote wiped already. */
void kdf_workpool_give(struct kdf_pool_slot *s);

#endif /* KDF_UTIL_WORKAREA_H */
