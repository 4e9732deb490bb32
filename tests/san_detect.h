/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * san_detect.h - KDF_UNDER_ASAN is defined when this translation unit is
 * built with AddressSanitizer: gcc says __SANITIZE_ADDRESS__, clang
 * __has_feature(address_sanitizer).  Tests that ASan cannot share a
 * process with (free() scans, core dumps, address-space limits, timing)
 * test it.
 */
#ifndef KDF_SAN_DETECT_H
#define KDF_SAN_DETECT_H

#if defined(__SANITIZE_ADDRESS__)
#define KDF_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KDF_UNDER_ASAN 1
#endif
#endif

#endif /* KDF_SAN_DETECT_H */
