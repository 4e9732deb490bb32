/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ct.c - constant-time comparison, wiping, randomness and status names.
 */
#include "kdf_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>

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

const char *
kdf_status_str(enum kdf_status st)
{
    switch (st) {
    case KDF_OK:
        return "ok";
    case KDF_MISMATCH:
        return "mismatch";
    case KDF_MALFORMED:
        return "malformed";
    case KDF_UNSUPPORTED:
        return "unsupported";
    case KDF_TOO_COSTLY:
        return "parameters exceed policy";
    case KDF_NOMEM:
        return "out of memory";
    case KDF_RANGE:
        return "buffer too small or invalid argument";
    case KDF_INTERNAL:
        return "internal error";
    case KDF_BUSY:
        return "busy: the memory budget stayed full";
    }
    return "unknown status";
}

const char *
kdf_scheme_name(enum kdf_scheme s)
{
    static const char *const names[KDF_SCHEME_COUNT] = {
        [KDF_SCHEME_EMPTY] = "empty",
        [KDF_SCHEME_LOCKED] = "locked",
        [KDF_SCHEME_BCRYPT] = "bcrypt",
        [KDF_SCHEME_ARGON2D] = "argon2d",
        [KDF_SCHEME_ARGON2I] = "argon2i",
        [KDF_SCHEME_ARGON2ID] = "argon2id",
        [KDF_SCHEME_PBKDF2_SHA1] = "pbkdf2-sha1",
        [KDF_SCHEME_PBKDF2_SHA256] = "pbkdf2-sha256",
        [KDF_SCHEME_PBKDF2_SHA512] = "pbkdf2-sha512",
        [KDF_SCHEME_LEGACY] = "legacy",
    };
    if ((unsigned)s >= KDF_SCHEME_COUNT)
        return "unknown";
    return names[s];
}

void
kdf_errf(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || cap == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}
