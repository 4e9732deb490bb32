#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Secrets in a core dump: a core dump (gdb's gcore) of a PAM host taken
# after pam_end() holds no byte run of the password it logged in with,
# upgrades included.  The work is in tests/pam/secrets_core_host.c; this script
# finds gcore and a scratch directory.  Needs the Debian package gdb.
set -u
: "${top_builddir:=.}"
host="$top_builddir/tests/pam/secrets_core_host"
gcore=$(command -v gcore 2>/dev/null || true)
if [ -z "$gcore" ]; then
    echo "SKIP: gcore not found (install gdb): a core dump cannot be taken here"
    exit 77
fi
if [ ! -x "$host" ]; then
    echo "FAIL: $host is not built"
    exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/kdfcore.XXXXXX") || exit 99
trap 'rm -rf "$dir"' EXIT HUP INT TERM
# ASan keeps its shadow out of the dump (MADV_DONTDUMP); LSan would report
# the marker the host keeps alive on purpose.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# Never let a dump fill the disk (an ASan host's shadow once made 77 GB):
# 1 GiB is a thousand times what a dump of this host takes.
ulimit -f 1048576 2>/dev/null || true
"$host" "$dir" "$gcore"
