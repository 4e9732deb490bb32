#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Crash trials, `make check` size: 20 trials of 8 upgrade workers on a
# 10,000-entry file, one SIGKILLed and restarted every 5-50 ms (8 times per
# trial).  After each trial every line is its user's line at a generation no
# older than before, 10,000 lines, the lock is free at once, leftover temps
# are never more permissive than the target and the next upgrade sweeps them.
# KDF_TEST_SEED=<n> replays a run.  The long tier is tests/soak/soak_upgrade.sh.
set -eu
: "${top_srcdir:=.}"
kdf_upd_tag=crash
. "$top_srcdir/tests/writer/upgrade_common.sh"
"$prog" crash "$dir" "${KDF_UPD_TRIALS:-20}" "${KDF_UPD_WORKERS:-8}" "${KDF_UPD_KILLS:-8}"
