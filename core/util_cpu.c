/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util_cpu.c - which SIMD and crypto extensions this CPU (and its OS) offers.
 *
 * x86-64: CPUID leaf 1 and 7, plus XGETBV: a CPU can advertise AVX2 or
 * AVX-512 while the kernel has not enabled saving their register state, in
 * which case using them faults.  XCR0 bits 1-2 (SSE, AVX) must both be set
 * for AVX/AVX2, and bits 5-7 (opmask, ZMM_Hi256, Hi16_ZMM) as well for
 * AVX-512 (Intel SDM vol. 1, 13.3; BLAKE3's dispatch does the same).
 * aarch64: NEON (Advanced SIMD) is mandatory; the SHA-1, SHA-256 and
 * SHA-512 extensions are read from the auxiliary vector (the kernel's
 * HWCAP_SHA1, HWCAP_SHA2, HWCAP_SHA512: Linux arch/arm64 uapi hwcap.h).
 */
#include "kdf_prelude.h"

#include <pthread.h>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_SHA1
#define HWCAP_SHA1 (1 << 5)
#endif
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1 << 6)
#endif
#ifndef HWCAP_SHA512
#define HWCAP_SHA512 (1 << 21)
#endif
#endif

static uint32_t g_cpu_features, g_cpu_vendor;
static pthread_once_t g_cpu_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__)
static uint64_t
read_xcr0(void)
{
    uint32_t eax, edx;
    /* xgetbv with ecx = 0; spelt as bytes for assemblers without the name */
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

/* CPUID leaf 0: the vendor string in EBX, EDX, ECX. */
static uint32_t
detect_vendor(void)
{
    unsigned a, b, c, d;
    char v[13];

    if (__get_cpuid(0, &a, &b, &c, &d) == 0)
        return 0;
    memcpy(v, &b, 4);
    memcpy(v + 4, &d, 4);
    memcpy(v + 8, &c, 4);
    v[12] = '\0';
    if (strcmp(v, "GenuineIntel") == 0)
        return KDF_VENDOR_INTEL;
    if (strcmp(v, "AuthenticAMD") == 0 || strcmp(v, "HygonGenuine") == 0)
        return KDF_VENDOR_AMD;
    return 0;
}

static uint32_t
detect(void)
{
    unsigned a, b, c, d, max;
    uint32_t f = 0;

    max = (unsigned int)__get_cpuid_max(0, NULL); /* int in clang's cpuid.h */
    if (max < 1)
        return 0;
    __cpuid(1, a, b, c, d);
    if (c & bit_SSSE3)
        f |= KDF_CPU_SSSE3;
    int osxsave = (c & bit_OSXSAVE) != 0;
    int avx = (c & bit_AVX) != 0;
    uint64_t xcr0 = osxsave ? read_xcr0() : 0;
    int ymm_ok = osxsave && (xcr0 & 0x6) == 0x6;
    int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;

    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (avx && ymm_ok && (b & bit_AVX2))
            f |= KDF_CPU_AVX2;
        if (zmm_ok && (b & bit_AVX512F))
            f |= KDF_CPU_AVX512F;
        if (b & bit_BMI)
            f |= KDF_CPU_BMI1;
        if (b & bit_BMI2)
            f |= KDF_CPU_BMI2;
        /* SHA-NI works on XMM registers: SSE state is always enabled in
         * 64-bit mode, and the instructions need SSE4.1 as a companion. */
        if ((b & (1u << 29)) && (f & KDF_CPU_SSSE3))
            f |= KDF_CPU_SHANI;
    }
    return f;
}
#elif defined(__aarch64__)
static uint32_t
detect(void)
{
    unsigned long hw = getauxval(AT_HWCAP);
    uint32_t f = KDF_CPU_NEON;

    if (hw & HWCAP_SHA1)
        f |= KDF_CPU_ARMSHA1;
    if (hw & HWCAP_SHA2)
        f |= KDF_CPU_ARMSHA2;
    if (hw & HWCAP_SHA512)
        f |= KDF_CPU_ARMSHA512;
    return f;
}
#else
static uint32_t
detect(void)
{
    return 0;
}
#endif

#if !defined(__x86_64__)
static uint32_t
detect_vendor(void)
{
    return 0; /* no row of another architecture is vendor-dependent yet */
}
#endif

static void
cpu_init(void)
{
    g_cpu_features = detect();
    g_cpu_vendor = detect_vendor();
}

uint32_t
kdf_cpu_vendor(void)
{
    pthread_once(&g_cpu_once, cpu_init);
    return g_cpu_vendor;
}

uint32_t
kdf_cpu_features(void)
{
    pthread_once(&g_cpu_once, cpu_init);
    return g_cpu_features;
}
