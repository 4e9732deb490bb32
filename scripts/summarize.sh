#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Add up automake's test-suite.log summaries of the build dirs given and print
# one closing line "N passed, N failed, N skipped" (CI reads it).
# KDF_EXTRA_FAILED adds the caller's failed gates to the failures.
set -eu
pass=0 fail=0 skip=0
for d in "$@"; do
    log=$d/test-suite.log
    [ -f "$log" ] || continue
    p=$(sed -n 's/^# PASS: *//p' "$log" | head -1)
    f=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
    x=$(sed -n 's/^# XPASS: *//p' "$log" | head -1)
    e=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
    s=$(sed -n 's/^# SKIP: *//p' "$log" | head -1)
    pass=$((pass + ${p:-0}))
    fail=$((fail + ${f:-0} + ${x:-0} + ${e:-0}))
    skip=$((skip + ${s:-0}))
    # Name the skipped tests and their reasons: nothing skips silently.
    # (The .trs files say which; the test's own log says why.)
    for trs in $(find "$d/tests" -name '*.trs' 2>/dev/null | sort); do
        grep -q '^:test-result: SKIP' "$trs" || continue
        t=${trs%.trs}
        echo "skipped in $d: ${t#"$d"/}: $(grep -m1 -i 'skip' "$t.log" 2>/dev/null || echo 'no reason printed')"
    done
done
# make check-ds (two 389-ds servers) writes its own cases' count.
for d in "$@"; do
    log=$d/check-ds.log
    [ -f "$log" ] || continue
    p=$(sed -n 's/^ds: \([0-9]*\) passed, [0-9]* failed$/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^ds: [0-9]* passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
    pass=$((pass + ${p:-0}))
    fail=$((fail + ${f:-0}))
    if [ -z "$p" ] && grep -q '^SKIP:' "$log"; then
        skip=$((skip + 1))
        echo "skipped in $d: check-ds: $(grep -m1 '^SKIP:' "$log")"
    fi
done
# Gates that are not automake suites (builds, valgrind, cross, packaging)
# and failed are counted by the caller.
fail=$((fail + ${KDF_EXTRA_FAILED:-0}))
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
