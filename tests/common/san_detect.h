/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * san_detect.h - KDF_UNDER_ASAN is defined when this translation unit is
 * built with AddressSanitizer: gcc says __SANITIZE_ADDRESS__, clang
 * __has_feature(address_sanitizer), and KDF_UNDER_TSAN with
 * ThreadSanitizer.  Tests that ASan (or TSan) cannot share a
 * process with (free() scans, core dumps, address-space limits, timing)
 * test it, and kdf_test_emulated() those that qemu-user cannot run as the
 * CPU would.  RUNNING_ON_VALGRIND is valgrind's own client request where
 * its header is installed (make check-valgrind), else 0.
 */
#ifndef KDF_SAN_DETECT_H
#define KDF_SAN_DETECT_H

#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define KDF_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KDF_UNDER_ASAN 1
#endif
#endif

/* KDF_UNDER_TSAN likewise for ThreadSanitizer (gcc: __SANITIZE_THREAD__). */
#if defined(__SANITIZE_THREAD__)
#define KDF_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KDF_UNDER_TSAN 1
#endif
#endif

/* Under qemu-user (tests/cross-run.sh sets KDF_EMULATED) the address space
 * and the signal masks of new threads are the emulator's: RLIMIT_AS limits
 * qemu's own reservation, not the program's. */
#define KDF_EMULATED_WHY "under qemu-user: RLIMIT_AS limits the emulator, not this program"
static inline int
kdf_test_emulated(void)
{
    return getenv("KDF_EMULATED") != NULL;
}

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#endif /* KDF_SAN_DETECT_H */
