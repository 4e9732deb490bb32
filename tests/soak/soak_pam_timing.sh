#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# soak_pam_timing.sh - user-enumeration timing, soak tier: unknown, locked and
# empty-field logins must take as long as an existing user's wrong password
# at the policy's default target (tests/pam/pam_timing.c).  PAM_TIMING_N sets the
# logins per class (default 2000; each costs one verification at that target,
# which `kdfhash bench` times on the machine at hand).
set -eu
: "${top_builddir:?}"
prog="$top_builddir/tests/pam/pam_timing"
[ -x "$prog" ] || make -C "$top_builddir" tests/pam/pam_timing >/dev/null
exec "$prog" -n "${PAM_TIMING_N:-2000}"
