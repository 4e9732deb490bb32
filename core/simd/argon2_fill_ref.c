/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argon2_fill_ref.c - the portable Argon2 segment filler: the walker of
 * argon2_fill.h on the scalar BlaMka of blamka_ref.h.  Always built (the
 * last row of kdf_blamka_table), and the reference the vector variants
 * are tested against.
 */
#include "kdf_prelude.h"

#include "blamka_ref.h"
#include "argon2_fill.h"

KDF_ARGON2_DEFINE_FILL(ref)
