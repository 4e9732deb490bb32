#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fuzz_writer.sh - the upgrade and password-change writer
# (kdf_write_hash(), kdf_write_entry()) on a fuzzed shadow file in a
# private temp directory (tests/fuzz/fuzz_writer.c), through
# tests/fuzz/run_fuzzer.sh.  Inputs up to 4 KiB: new hashes over the
# 1024-byte limit and files of many lines.
exec sh "${top_srcdir:?}/tests/fuzz/run_fuzzer.sh" writer -max_len=4096
