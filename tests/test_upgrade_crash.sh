#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# reliability.md test 15 (PR size): 20 trials of 8 upgrade workers on a
# 10,000-entry file, one SIGKILLed and restarted every 5-50 ms (8 times per
# trial).  After each trial every line is its user's line at a generation no
# older than before, 10,000 lines, the lock is free at once, leftover temps
# are never more permissive than the target and the next upgrade sweeps them.
# KDF_TEST_SEED=<n> replays a run.  The long tier is tests/soak_upgrade.sh.
set -eu
: "${top_builddir:=.}"
prog="$top_builddir/tests/upgrade_torture"
[ -x "$prog" ] || { echo "missing $prog (make check builds it)"; exit 1; }
# On tmpfs when there is one: this checks locking and compare-and-swap, not
# the disk, and fsync latency on a busy CI disk would dominate the run
# (soak_upgrade.sh runs the same on $TMPDIR).
base=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
dir=$(mktemp -d "$base/kdf-upd-crash.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$prog" crash "$dir" "${KDF_UPD_TRIALS:-20}" "${KDF_UPD_WORKERS:-8}" "${KDF_UPD_KILLS:-8}"
