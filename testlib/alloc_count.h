/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc_count.h - heap and mmap calls counted per thread, for the tests and
 * bench programs linked with $(ALLOC_COUNT_LDFLAGS) (Makefile.am):
 * -Wl,--wrap= malloc, calloc, realloc, free, posix_memalign, aligned_alloc
 * and mmap.  The linker sends every such call made by our objects (the
 * core, the test or bench itself) to alloc_count.c, which counts it and
 * calls the real function; calls made inside shared libraries (libc,
 * libcrypt.so, cmocka) are not seen.
 *
 * The counters only grow: take a copy before the code under test and
 * compare after (alloc_count_allocs() for "no allocation at all").
 */
#ifndef KDF_TESTLIB_ALLOC_COUNT_H
#define KDF_TESTLIB_ALLOC_COUNT_H

#include <stddef.h>

struct alloc_count {
    unsigned long n_malloc, n_calloc, n_realloc, n_memalign, n_mmap;
    unsigned long n_free;
};

/* This thread's calls since it started.  volatile: the compiler may assume
 * that malloc() leaves user globals alone and fold a before/after pair. */
extern _Thread_local volatile struct alloc_count alloc_count;

/* Allocating calls (all but free) this thread has made. */
static inline unsigned long
alloc_count_allocs(void)
{
    return alloc_count.n_malloc + alloc_count.n_calloc + alloc_count.n_realloc +
           alloc_count.n_memalign + alloc_count.n_mmap;
}

/* The real allocator, uncounted (a peer's own allocation hooks). */
void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

#endif /* KDF_TESTLIB_ALLOC_COUNT_H */
