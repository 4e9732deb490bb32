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
#
# The two differential tests run fewer random cases here than in the
# native make check: at their full counts they took half the CPU time of
# all the programs under qemu, and what a run here adds is the
# architecture's code, which every case takes.
: "${CROSS_QEMU:?set by scripts/cross-check.sh}"
export KDF_EMULATED=1 QEMU_LD_PREFIX="${CROSS_ROOT:?set by scripts/cross-check.sh}"
[ -n "${CROSS_CPU:-}" ] && export QEMU_CPU="$CROSS_CPU"
prog=${1:?usage: cross-run.sh PROGRAM [ARGS...]}
shift
case ${prog##*/} in
test_bcrypt) set -- --count 200 "$@" ;;
test_argon2_diff) set -- --sets 60 --max-m 1024 "$@" ;;
esac
exec "$CROSS_QEMU" "$prog" "$@"
