/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_fill_neon.c - the Argon2 segment walker on the AArch64 NEON
 * BlaMka (core/libkdf_neon.la; NEON needs no -m flag on AArch64).
 */
#include "kdf_prelude.h"

#include "blamka_neon.h"
#include "argon2_fill.h"

KDF_ARGON2_DEFINE_FILL(neon)
