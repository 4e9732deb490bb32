/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_fill_avx512f.c - the Argon2 segment walker on the AVX-512F
 * BlaMka (compiled with -mavx512f only, in core/libkdf_avx512f.la).
 */
#include "kdf_prelude.h"

#include "blamka_avx512f.h"
#include "argon2_fill.h"

KDF_ARGON2_DEFINE_FILL(avx512f)
