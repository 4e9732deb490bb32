#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# cross-run.sh PROGRAM [ARGS...] - run a cross-built test program under
# qemu-user: the LOG_COMPILER of scripts/cross-check.sh.  CROSS_ROOT is the
# sysroot of the architecture's own packages (its libc, libpam and the PAM
# modules, libcrypt, cmocka): qemu looks up every absolute path there first
# (QEMU_LD_PREFIX, which programs the test starts inherit through
# binfmt_misc too).  KDF_EMULATED tells the tests that time and address
# space are the emulator's (constant-time and RLIMIT_AS measurements are
# not judged).
: "${CROSS_QEMU:?set by scripts/cross-check.sh}"
export KDF_EMULATED=1 QEMU_LD_PREFIX="${CROSS_ROOT:?set by scripts/cross-check.sh}"
[ -n "${CROSS_CPU:-}" ] && export QEMU_CPU="$CROSS_CPU"
exec "$CROSS_QEMU" "$@"
