/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_random.c - salts from getrandom(2), the kernel's CSPRNG.
 */
#include "kdf_prelude.h"
#include "util_random.h"

#include <errno.h>
#include <sys/random.h>

enum kdf_status
kdf_random(void *buf, size_t n)
{
    uint8_t *p = (uint8_t *)buf;

    while (n > 0) {
        /* getrandom(2) never returns short for <= 256 bytes once the pool is
         * ready, but handle EINTR and short reads anyway. */
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return KDF_INTERNAL;
        }
        p += r;
        n -= (size_t)r;
    }
    return KDF_OK;
}
