/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fipsfail_hook.c - linked into the test build of pam_kdfhash.so that
 * tests/pam/test_pam_fips.c loads: its self-test fails from the moment the
 * module is loaded, as a broken primitive would make it.
 */
#include "kdf_testing.h"

__attribute__((constructor)) static void
fipsfail(void)
{
    kdf_selftest_force_fail("hmac-sha256");
}
