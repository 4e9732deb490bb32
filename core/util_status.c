/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_status.c - the words for a status, and the formatter of the short,
 * secret-free error texts that the policy and target parsers (and the PAM
 * module's writer and helpers) hand back.
 */
#include "kdf_prelude.h"

#include <stdarg.h>
#include <stdio.h>

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
    case KDF_OVER_BUDGET:
        /* Not "busy": waiting cannot help, the budget itself is too small
         * for this entry, and the admin must raise max.memory (or lower
         * the entry's cost). */
        return "needs more memory than the whole budget (max.memory) allows";
    case KDF_NOKEY:
        return "the key (pepper) it names is not available";
    }
    return "unknown status";
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
