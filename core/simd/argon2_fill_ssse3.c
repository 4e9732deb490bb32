/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_fill_ssse3.c - the Argon2 segment walker on the SSSE3 BlaMka
 * (compiled with -mssse3 only, in core/libkdf_ssse3.la).
 */
#include "kdf_prelude.h"

#include "blamka_ssse3.h"
#include "argon2_fill.h"

KDF_ARGON2_DEFINE_FILL(ssse3)
