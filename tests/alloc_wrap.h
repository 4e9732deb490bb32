/* SPDX-License-Identifier: BSD-3-Clause */
/* alloc_wrap.h - the per-thread allocation count of alloc_wrap.c. */
#ifndef KDF_TEST_ALLOC_WRAP_H
#define KDF_TEST_ALLOC_WRAP_H

/* Calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and mmap
 * made by this thread from our objects since the start. */
extern _Thread_local unsigned long kdf_test_allocs;

#endif /* KDF_TEST_ALLOC_WRAP_H */
