#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The crash trials of test_upgrade_crash.sh with every write made by
# kdfhash-update (its test build), as the module makes them with
# write_helper=always: 20 trials of 4 upgrade workers on a 10,000-entry
# file, a running helper SIGKILLed at a random moment 16 times per trial.
# After each trial every line is its user's own line, once, at a generation
# no older than before (nothing lost, doubled or reverted), the lock is free
# at once, leftover temps are never more permissive than the target and the
# next upgrade sweeps them.  KDF_TEST_SEED=<n> replays a run.
set -eu
: "${top_srcdir:=.}"
kdf_upd_tag=crash-helper
. "$top_srcdir/tests/writer/upgrade_common.sh"
helper=$(cd "$top_builddir/tests/writer" && pwd)/kdfhash-update-test
[ -x "$helper" ] || { echo "missing $helper (make check builds it)"; exit 1; }
# The helper answers root alone (pam_module/update.c).
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: kdfhash-update answers root only (CI runs as root)"
    exit 77
fi
"$prog" crash-helper "$dir" "${KDF_UPD_TRIALS:-20}" "${KDF_UPD_WORKERS:-4}" \
    "${KDF_UPD_KILLS:-16}" "$helper"
