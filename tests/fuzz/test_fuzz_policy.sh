#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fuzz_policy.sh - kdfhash.conf through kdf_policy_load() and one
# key=value through kdf_policy_set() (tests/fuzz/fuzz_policy.c), through
# tests/fuzz/run_fuzzer.sh.  Inputs up to 4 KiB: lines over the 1024-byte
# limit and files of many keys.
exec sh "${top_srcdir:?}/tests/fuzz/run_fuzzer.sh" policy -max_len=4096
