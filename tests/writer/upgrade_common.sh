# SPDX-License-Identifier: BSD-3-Clause
# upgrade_common.sh - sourced by test_upgrade_concurrency.sh and
# test_upgrade_crash.sh: finds tests/writer/upgrade_torture and makes the scratch
# directory $dir (removed on exit) named kdf-upd-$kdf_upd_tag.XXXXXX.
: "${top_builddir:=.}"
prog="$top_builddir/tests/writer/upgrade_torture"
[ -x "$prog" ] || { echo "missing $prog (make check builds it)"; exit 1; }
# On tmpfs when there is one: this checks locking and compare-and-swap, not
# the disk, and fsync latency on a busy CI disk would dominate the run
# (soak_upgrade.sh runs the same on $TMPDIR).
base=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
dir=$(mktemp -d "$base/kdf-upd-$kdf_upd_tag.XXXXXX")
trap 'rm -rf "$dir"' EXIT
