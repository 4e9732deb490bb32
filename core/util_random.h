/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_random.h - random bytes from getrandom(2) (util_random.c).
 */
#ifndef KDF_UTIL_RANDOM_H
#define KDF_UTIL_RANDOM_H

#include "kdf_prelude.h"

/* Fill buf with random bytes from getrandom(); KDF_INTERNAL on failure. */
enum kdf_status kdf_random(void *buf, size_t n);

#endif /* KDF_UTIL_RANDOM_H */
