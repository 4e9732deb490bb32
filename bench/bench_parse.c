/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_parse.c - kdf_parse() and kdf_needs_rehash() against libxcrypt's
 * crypt_checksalt() on the same string, per hash family.
 *
 *   bench_parse [-n ITER] [-r REPS]    markdown table: ns/op (best of REPS
 *                                      runs of ITER calls), ratios, and heap
 *                                      allocations per call
 *   bench_parse --callgrind FAMILY N   N calls of each function on FAMILY's
 *                                      string, for `make bench-callgrind`
 *                                      (valgrind --toggle-collect=FUNCTION)
 *
 * crypt_checksalt() is the natural peer: libxcrypt's own "is this setting
 * usable, is it outdated" check, run on every login by pam_unix.  It scans
 * the whole string for bad characters and matches the prefix, so on our
 * families (which libxcrypt does not know) it still does its full scan; the
 * strings have the same length for both.
 *
 * Allocations are counted by interposing malloc/calloc/realloc/free in this
 * executable (forwarding to glibc's __libc_* entry points), which also sees
 * the calls made inside libcrypt.so; not under ASan, which owns malloc.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kdfhash.h"

#if defined(__SANITIZE_ADDRESS__)
#define BENCH_COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_COUNT_ALLOCS 0
#endif
#endif
#ifndef BENCH_COUNT_ALLOCS
#define BENCH_COUNT_ALLOCS 1
#endif

static unsigned long n_allocs;

#if BENCH_COUNT_ALLOCS
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);
void *malloc(size_t n);
void *calloc(size_t n, size_t m);
void *realloc(void *p, size_t n);
void free(void *p);

void *
malloc(size_t n)
{
    n_allocs++;
    return __libc_malloc(n);
}

void *
calloc(size_t n, size_t m)
{
    n_allocs++;
    return __libc_calloc(n, m);
}

void *
realloc(void *p, size_t n)
{
    n_allocs++;
    return __libc_realloc(p, n);
}

void
free(void *p)
{
    __libc_free(p);
}
#endif

struct family {
    const char *name;
    const char *s; /* NUL-terminated for crypt_checksalt() */
};

/* Realistic strings: policy-default costs, 16-byte salts, full digests. */
static const struct family fams[] = {
    {"bcrypt", "$2b$12$abcdefghijklmnopqrstuughE8Ev8uGFaUgY2cNEySvxngrb/Jzdm"},
    {"argon2id", "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$"
                 "nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"},
    {"pbkdf2-passlib", "$pbkdf2-sha256$29000$MDEyMzQ1Njc4OWFiY2RlZg$"
                       "G/O7bynZBig0xpI9OJ2.zH5iXh/vIAuDcj9JVCTUa3k"},
    {"pbkdf2-phc", "$pbkdf2-sha256$i=600000,l=32$c2FsdHNhbHRzYWx0c2FsdA$"
                   "8nX7hwFEzIB8aPajJTYK8weHQc5Ngz0pFVAKvSu4jQA"},
    {"pbkdf2-django", "pbkdf2_sha256$600000$seasaltseasaltsea$"
                      "YIWkt6M1JFXrHg5s0jZjBSc7C2Cz6QvchSJ0h8Y+i7c="},
    {"legacy-sha512",
     "$6$saltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/jctKu9YterLp8"
     "wwnSq.qc.eoxqOmSuNp2xS0ktL3nh/"},
};

static volatile unsigned long sink;

static double
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

enum fn { FN_PARSE, FN_REHASH, FN_CHECKSALT, FN_COUNT };

/* iter calls of fn on f; returns allocations made. */
static unsigned long
run(enum fn fn, const struct family *f, size_t len, const struct kdf_hash *parsed,
    const struct kdf_policy *pol, unsigned long iter)
{
    struct kdf_hash h;
    unsigned long a0 = n_allocs, acc = 0;

    for (unsigned long i = 0; i < iter; i++) {
        switch (fn) {
        case FN_PARSE:
            acc += (unsigned long)kdf_parse(f->s, len, &h, NULL);
            acc += h.cost;
            break;
        case FN_REHASH:
            acc += (unsigned long)kdf_needs_rehash(parsed, pol);
            break;
        default:
            acc += (unsigned long)crypt_checksalt(f->s);
            break;
        }
        /* keep the compiler from hoisting the call out of the loop */
        __asm__ __volatile__("" : : : "memory");
    }
    sink += acc;
    return n_allocs - a0;
}

static int
callgrind_mode(const char *fam, unsigned long n)
{
    struct kdf_policy pol;
    struct kdf_hash h;

    kdf_policy_default(&pol);
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        if (strcmp(fams[i].name, fam) != 0)
            continue;
        size_t len = strlen(fams[i].s);
        if (kdf_parse(fams[i].s, len, &h, NULL) != KDF_OK)
            return 1;
        for (int f = 0; f < FN_COUNT; f++)
            run((enum fn)f, &fams[i], len, &h, &pol, n);
        return 0;
    }
    fprintf(stderr, "bench_parse: unknown family %s\n", fam);
    return 2;
}

int
main(int argc, char **argv)
{
    unsigned long iter = 1000000, reps = 5;
    struct kdf_policy pol;

    if (argc == 4 && strcmp(argv[1], "--callgrind") == 0)
        return callgrind_mode(argv[2], strtoul(argv[3], NULL, 10));
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            iter = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            reps = strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr,
                    "usage: bench_parse [-n ITER] [-r REPS] | --callgrind FAMILY N\n");
            return 2;
        }
    }
    if (iter == 0 || reps == 0)
        return 2;
    kdf_policy_default(&pol);
    if (BENCH_COUNT_ALLOCS) {
        /* prove the counter is live before trusting its zeros */
        void *(*volatile m)(size_t) = malloc;
        unsigned long a0 = n_allocs;
        free(m(16));
        if (n_allocs != a0 + 1) {
            fprintf(stderr, "bench_parse: allocation counter not working\n");
            return 1;
        }
    }

    printf("kdf_parse / kdf_needs_rehash vs crypt_checksalt: best of %lu runs of %lu "
           "calls, ns per call\n\n",
           reps, iter);
    printf("| family | len | kdf_parse ns | kdf_needs_rehash ns | crypt_checksalt ns | "
           "parse / checksalt | parse+rehash / checksalt | allocs/call (parse, rehash, "
           "checksalt) |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        const struct family *f = &fams[i];
        size_t len = strlen(f->s);
        struct kdf_hash h;
        double best[FN_COUNT];
        unsigned long allocs[FN_COUNT] = {0, 0, 0};

        if (kdf_parse(f->s, len, &h, NULL) != KDF_OK) {
            fprintf(stderr, "bench_parse: %s string refused\n", f->name);
            return 1;
        }
        for (int fn = 0; fn < FN_COUNT; fn++) {
            best[fn] = 1e300;
            run((enum fn)fn, f, len, &h, &pol, iter / 10 + 1); /* warm up */
        }
        /* Interleaved: each repetition times all three, so a burst of load
         * on this shared machine hits every function alike. */
        for (unsigned long r = 0; r < reps; r++) {
            for (int fn = 0; fn < FN_COUNT; fn++) {
                double t0 = now_ns();
                allocs[fn] += run((enum fn)fn, f, len, &h, &pol, iter);
                double dt = (now_ns() - t0) / (double)iter;
                if (dt < best[fn])
                    best[fn] = dt;
            }
        }
        printf("| %s | %zu | %.1f | %.1f | %.1f | %.2f | %.2f |", f->name, len,
               best[FN_PARSE], best[FN_REHASH], best[FN_CHECKSALT],
               best[FN_PARSE] / best[FN_CHECKSALT],
               (best[FN_PARSE] + best[FN_REHASH]) / best[FN_CHECKSALT]);
        if (BENCH_COUNT_ALLOCS)
            printf(" %g, %g, %g |\n", (double)allocs[FN_PARSE] / (double)(iter * reps),
                   (double)allocs[FN_REHASH] / (double)(iter * reps),
                   (double)allocs[FN_CHECKSALT] / (double)(iter * reps));
        else
            printf(" n/a (ASan) |\n");
    }
    printf("\nratio < 1: kdfhash is faster than crypt_checksalt on the same string.\n");
    return 0;
}
