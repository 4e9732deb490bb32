#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The valgrind half of the sanitizer checks: run the cmocka test programs
# under valgrind memcheck; any memcheck error or any definitely-lost block
# fails.
#
#   make check-valgrind            (the Makefile passes the programs)
#   tests/check-valgrind.sh tests/unit/test_parse tests/unit/test_b64 ...
#
# Not for sanitizer builds (ASan and valgrind cannot share a process) and not
# for the fuzz targets.  Small parameters through the environment the tests
# read (KDF_CT_SAMPLES, KDF_MEMLOAD_M_KIB).  KDF_VALGRIND_JOBS (default 2)
# programs run at a time; each one's log is PROGRAM.valgrind.log beside it.
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
: "${VALGRIND:=valgrind}"
: "${LIBTOOL:=$top_builddir/libtool}"
jobs=${KDF_VALGRIND_JOBS:-2}
supp="${top_srcdir:-.}/tests/valgrind.supp"

if ! command -v "${VALGRIND%% *}" >/dev/null 2>&1; then
    echo "check-valgrind: valgrind not found (Debian package valgrind)"
    exit 1
fi
if [ -n "${SAN_CFLAGS:-}" ]; then
    echo "check-valgrind: this build uses sanitizers ($SAN_CFLAGS); use a plain build"
    exit 1
fi
if [ $# -eq 0 ]; then
    echo "usage: $0 PROGRAM..."
    exit 1
fi

KDF_CT_SAMPLES=${KDF_CT_SAMPLES:-4000}
KDF_MEMLOAD_M_KIB=${KDF_MEMLOAD_M_KIB:-2048}
export KDF_CT_SAMPLES KDF_MEMLOAD_M_KIB

# One program: "name status seconds" on stdout; status pass, skip, fail
# (the test failed), memcheck (errors or definite leaks).
run_one() {
    prog=$1
    case $prog in
    /*) log=$prog.valgrind.log ;;
    *) log=$top_builddir/$prog.valgrind.log ;;
    esac
    t0=$(date +%s)
    lt=
    [ -n "$LIBTOOL" ] && lt="$LIBTOOL --mode=execute"
    # Small parameters for the programs that take them (valgrind runs
    # them 20-50x slower; their full sizes stay with make check).
    case $(basename "$prog") in
    test_pamwrap)
        # It re-executes /proc/self/exe under pam_wrapper, which under
        # valgrind is valgrind's tool binary, not the test.
        echo "$(basename "$prog") skip 0 (re-executes /proc/self/exe)"
        return 0
        ;;
    test_bcrypt) set -- --count 40 ;;
    test_argon2_diff) set -- --sets 12 --max-m 512 ;;
    *) set -- ;;
    esac
    # --error-exitcode=1; the log tells memcheck from the test.  Children
    # are traced (test_pamwrap re-executes itself under pam_wrapper), except
    # system programs the tests start (hooks' /bin/sh, gdb).
    $lt $VALGRIND --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite --num-callers=30 --log-file="$log.vg.%p" \
        --suppressions="$supp" --trace-children=yes \
        --trace-children-skip='/bin/*,/usr/bin/*,/usr/sbin/*,/sbin/*,*/upgrade_hook' \
        "$prog" "$@" >"$log" 2>&1
    st=$?
    cat "$log".vg.* >>"$log" 2>/dev/null
    rm -f "$log".vg.*
    t1=$(date +%s)
    if grep -q 'ERROR SUMMARY: [1-9]' "$log" || grep -q 'definitely lost: [1-9]' "$log"; then
        res=memcheck
    elif [ "$st" -eq 77 ]; then
        res=skip
    elif [ "$st" -ne 0 ]; then
        res=fail
    else
        res=pass
    fi
    echo "$(basename "$prog") $res $((t1 - t0))"
}

if [ "$1" = "--one" ]; then
    run_one "$2"
    exit 0
fi

tmp=$(mktemp "${TMPDIR:-/tmp}/kdfvg.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT INT TERM
start=$(date +%s)
export top_srcdir top_builddir VALGRIND LIBTOOL
# $jobs programs at a time, each through this script's --one mode.
for p in "$@"; do printf '%s\n' "$p"; done | xargs -P "$jobs" -n 1 sh "$0" --one >"$tmp"
end=$(date +%s)

echo "| program | valgrind | seconds |"
echo "|---|---|---|"
sort "$tmp" | awk '{ note = ""; for (i = 4; i <= NF; i++) note = note " " $i;
    printf "| %s | %s%s | %s |\n", $1, $2, note, $3 }'
bad=$(awk '$2 == "fail" || $2 == "memcheck"' "$tmp" | wc -l)
echo
echo "check-valgrind: $# programs, $bad failed, $((end - start)) s wall with $jobs jobs" \
    "(logs: tests/*/*.valgrind.log)"
[ "$bad" -eq 0 ]
