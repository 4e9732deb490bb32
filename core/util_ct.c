/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_ct.c - constant-time comparison and wiping: the two calls every secret
 * passes through.
 */
#include "kdf_prelude.h"


/* Compare n bytes without a data-dependent branch or early exit: the time
 * depends on n only.  Returns 0 when equal (like memcmp), 1 otherwise. */
int
kdf_ct_eq(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = (const volatile uint8_t *)a;
    const volatile uint8_t *y = (const volatile uint8_t *)b;
    uint8_t acc = 0;

    for (size_t i = 0; i < n; i++)
        acc |= (uint8_t)(x[i] ^ y[i]);
    /* (acc - 1) >> 8 is all ones only when acc == 0; no branch on acc. */
    return (int)((1u & (((unsigned)acc - 1u) >> 8)) ^ 1u);
}

/* explicit_bzero (glibc >= 2.25) is never elided by the optimiser. */
void
kdf_wipe(void *p, size_t n)
{
    if (p != NULL && n != 0)
        explicit_bzero(p, n);
}
