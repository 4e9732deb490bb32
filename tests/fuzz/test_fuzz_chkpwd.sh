#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fuzz_chkpwd.sh - kdfhash-chkpwd's argument vector and stdin framing
# (pam_module/chkpwd_args.c, tests/fuzz/fuzz_chkpwd.c) against the
# protocol's model, through tests/fuzz/run_fuzzer.sh.  Inputs up to 8 KiB:
# passwords past the 4096-byte maximum.
exec sh "${top_srcdir:?}/tests/fuzz/run_fuzzer.sh" chkpwd -max_len=8192
