#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fuzz_parse.sh - kdf_parse() and the base64 codecs on fuzzed strings
# (tests/fuzz/fuzz_parse.c, ASan+UBSan), through tests/fuzz/run_fuzzer.sh:
# 60 s in `make check` (the parser reads every stored hash first), 600 s in
# `make check-soak`; inputs up to 4200 bytes, past the longest hash string.
# The code under test allocates nothing, so its limits are tighter than
# the runner's: 5 s per input and 512 MiB (later flags win in libFuzzer).
KDF_FUZZ_SECONDS=${KDF_FUZZ_SECONDS:-60}
export KDF_FUZZ_SECONDS
exec sh "${top_srcdir:?}/tests/fuzz/run_fuzzer.sh" parse -max_len=4200 -rss_limit_mb=512 -timeout=5
