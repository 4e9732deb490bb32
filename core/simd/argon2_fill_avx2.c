/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_fill_avx2.c - the Argon2 segment walker on the AVX2 BlaMka
 * (compiled with -mavx2 only, in core/libkdf_avx2.la).
 */
#include "kdf_prelude.h"

#include "blamka_avx2.h"
#include "argon2_fill.h"

KDF_ARGON2_DEFINE_FILL(avx2)
