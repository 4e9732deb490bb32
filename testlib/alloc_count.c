/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc_count.c - the counting wrappers of alloc_count.h.  Built once as
 * testlib/liballoccount.la; a program links it together with
 * $(ALLOC_COUNT_LDFLAGS), which routes its objects' calls here.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "alloc_count.h"

_Thread_local volatile struct alloc_count alloc_count;

void *__real_calloc(size_t a, size_t b);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__real_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
int __wrap_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);
void *__wrap_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off);

void *
__wrap_malloc(size_t n)
{
    alloc_count.n_malloc++;
    return __real_malloc(n);
}

void *
__wrap_calloc(size_t a, size_t b)
{
    alloc_count.n_calloc++;
    return __real_calloc(a, b);
}

void *
__wrap_realloc(void *p, size_t n)
{
    alloc_count.n_realloc++;
    return __real_realloc(p, n);
}

void
__wrap_free(void *p)
{
    alloc_count.n_free++;
    __real_free(p);
}

int
__wrap_posix_memalign(void **p, size_t a, size_t n)
{
    alloc_count.n_memalign++;
    return __real_posix_memalign(p, a, n);
}

void *
__wrap_aligned_alloc(size_t a, size_t n)
{
    alloc_count.n_memalign++;
    return __real_aligned_alloc(a, n);
}

void *
__wrap_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
    alloc_count.n_mmap++;
    return __real_mmap(a, n, prot, fl, fd, off);
}
