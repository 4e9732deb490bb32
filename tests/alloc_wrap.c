/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc_wrap.c - allocation counter for programs linked with
 * $(BCRYPT_ALLOC_WRAP) (-Wl,--wrap=malloc,calloc,realloc,posix_memalign,
 * aligned_alloc,mmap): every such call made by our objects (the core, the
 * test) lands here and is counted per thread; calls from inside shared
 * libraries (libcrypt.so, libc itself) are not wrapped and not counted.
 * Shared by tests/test_bcrypt_kat.c (zero-allocation assertions) and
 * bench/bench_bcrypt.c (allocations per verify).
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "alloc_wrap.h"

_Thread_local unsigned long kdf_test_allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__real_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);
int __wrap_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);
void *__wrap_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off);

void *
__wrap_malloc(size_t n)
{
    kdf_test_allocs++;
    return __real_malloc(n);
}
void *
__wrap_calloc(size_t a, size_t b)
{
    kdf_test_allocs++;
    return __real_calloc(a, b);
}
void *
__wrap_realloc(void *p, size_t n)
{
    kdf_test_allocs++;
    return __real_realloc(p, n);
}
int
__wrap_posix_memalign(void **p, size_t a, size_t n)
{
    kdf_test_allocs++;
    return __real_posix_memalign(p, a, n);
}
void *
__wrap_aligned_alloc(size_t a, size_t n)
{
    kdf_test_allocs++;
    return __real_aligned_alloc(a, n);
}
void *
__wrap_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
    kdf_test_allocs++;
    return __real_mmap(a, n, prot, fl, fd, off);
}
