#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Lost updates, `make check` size: 32 processes x 12 compare-and-swap
# upgrades of each of 500 users in a 10,000-entry file, while an admin
# process rewrites 50 other users and 20 of the 500 under a classic fcntl
# lock on the same lock file (lckpwdf style).  The final file must equal the
# model: 0 admin writes lost, 0 upgrades reverted, 10,000 lines.
# The long tier is tests/soak/soak_upgrade.sh (make check-soak).
set -eu
: "${top_srcdir:=.}"
kdf_upd_tag=conc
. "$top_srcdir/tests/writer/upgrade_common.sh"
"$prog" concurrency "$dir" "${KDF_UPD_PROCS:-32}" "${KDF_UPD_GENS:-12}" "${KDF_UPD_ROUNDS:-200}"
