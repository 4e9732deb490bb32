#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fuzz_shadow.sh - the login path on a fuzzed shadow file and password:
# kdf_lookup_user() then kdf_pam_verdict() under a cheap policy
# (tests/fuzz/fuzz_shadow.c), through tests/fuzz/run_fuzzer.sh.  Inputs up
# to 8 KiB: passwords over max.password (4096) and files of many lines.
exec sh "${top_srcdir:?}/tests/fuzz/run_fuzzer.sh" shadow -max_len=8192
