#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The soak tier of the upgrade writer's lost-update and crash tests
# (make check-soak): 100 lost-update trials and 1,000 SIGKILL trials
# (about 10^4 kills; raise KDF_UPD_KILLS for 10^5).  On a real disk (fsync
# latency) this takes about an hour; set TMPDIR=/dev/shm for a quicker run.
set -eu
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
prog="$top_builddir/tests/writer/upgrade_torture"
# check-soak depends on "all" only: build the helper if needed
[ -x "$prog" ] || make -C "$top_builddir" tests/writer/upgrade_torture
dir=$(mktemp -d "${TMPDIR:-/tmp}/kdf-upd-soak.XXXXXX")
trap 'rm -rf "$dir"' EXIT
i=0
while [ "$i" -lt "${KDF_UPD_CONC_TRIALS:-100}" ]; do
    "$prog" concurrency "$dir" 32 12 200
    i=$((i + 1))
done
"$prog" crash "$dir" "${KDF_UPD_TRIALS:-1000}" 8 "${KDF_UPD_KILLS:-10}"
