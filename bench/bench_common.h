/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_common.h - what the bench programs share: a monotonic clock in
 * seconds and the comparator their medians sort with.
 */
#ifndef KDF_BENCH_COMMON_H
#define KDF_BENCH_COMMON_H

#include <time.h>

/* CLOCK_MONOTONIC in seconds. */
static inline double
bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort() comparator for doubles, ascending. */
static inline int
bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* KDF_BENCH_COMMON_H */
