#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fuzz_ds_values.sh - the 389-ds plugin's compare and encode over
# fuzzed stored values and passwords, against a model
# (tests/fuzz/fuzz_ds_values.c), through tests/fuzz/run_fuzzer.sh.  Inputs
# up to 1 KiB: past the plugin's 512-byte limit on a stored value and its
# max.password of 256 there.
exec sh "${top_srcdir:?}/tests/fuzz/run_fuzzer.sh" ds_values -max_len=1024
