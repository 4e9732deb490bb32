/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdfhash_cpu.h - the CPU's features and the choice among the variants of
 * each primitive (doc/DESIGN.md "SIMD dispatch"): for `kdfhash cpu`,
 * `kdfhash bench` and `--isa`, the benchmarks and the tests.  The module,
 * the helper and the directory server plugin verify and hash through
 * kdfhash.h alone and never include this (tests/lint/test_layers.sh checks it):
 * the variant in use is the core's own choice there.
 */
#ifndef KDFHASH_CPU_H
#define KDFHASH_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "kdfhash.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KDF_CPU_SSSE3 0x01u
#define KDF_CPU_AVX2 0x02u
#define KDF_CPU_AVX512F 0x04u
#define KDF_CPU_SHANI 0x08u
#define KDF_CPU_BMI2 0x10u
#define KDF_CPU_NEON 0x20u
#define KDF_CPU_ARMSHA2 0x40u   /* ARMv8 SHA-256 */
#define KDF_CPU_BMI1 0x80u
#define KDF_CPU_ARMSHA1 0x100u   /* ARMv8 SHA-1 */
#define KDF_CPU_ARMSHA512 0x200u /* ARMv8.2 SHA-512 */

/* The features detected (CPUID + XGETBV on x86-64), read once. */
uint32_t kdf_cpu_features(void);
/* The CPU's vendor (CPUID leaf 0), for the rows measured slower on one:
 * KDF_VENDOR_INTEL, KDF_VENDOR_AMD (and Hygon), 0 for any other. */
#define KDF_VENDOR_INTEL 0x1u
#define KDF_VENDOR_AMD 0x2u
uint32_t kdf_cpu_vendor(void);

/* The primitives that have variants. */
enum kdf_prim { KDF_PRIM_SHA1 = 0, KDF_PRIM_SHA256, KDF_PRIM_SHA512, KDF_PRIM_BLAMKA,
                KDF_PRIM_BLOWFISH, KDF_PRIM_COUNT };
const char *kdf_prim_name(enum kdf_prim p);
/* Name of the variant in use for p ("portable", "shani", "avx2", ...). */
const char *kdf_impl_name(enum kdf_prim p);
/* List the variants compiled in for p, best first; returns the count.
 * usable[i] says whether this CPU can run names[i]. */
size_t kdf_impl_list(enum kdf_prim p, const char **names, int *usable, size_t cap);
/* 1 when row index of p was measured slower than the next row on this
 * CPU's vendor, so that the pick passes it over (forcing it still works). */
int kdf_impl_slow_here(enum kdf_prim p, size_t index);
/* Force the variant named for every primitive that has it and whose row
 * this CPU can run (others keep their pick; "portable" forces all to
 * portable).  KDF_UNSUPPORTED when no primitive can take it here (not
 * compiled in, or the CPU lacks it).  Process-wide: for the CLI and tests. */
enum kdf_status kdf_impl_force(const char *name) KDF_WUR;

#ifdef __cplusplus
}
#endif
#endif /* KDFHASH_CPU_H */
