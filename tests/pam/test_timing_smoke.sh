#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_timing_smoke.sh - test_pam_timing.sh's smoke run
# (KDF_SKIP_MEASUREMENTS, set by scripts/quickstart.sh for the suite's runs
# after the measured one), against a stand-in pam_timing that records its
# arguments and answers as told: each run is one run of a few logins per
# class whose verdict (exit 1 or 3) is not judged; a class that logs in, or
# a run that fails to start, still fails the test; without the variable the
# verdict is judged (three attempts, then FAIL).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
timing=$top_srcdir/tests/pam/test_pam_timing.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdftsmoke.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$tmp/tests/pam"
# No HAVE_TPM: the script stops after its two runs without a pepper.
: > "$tmp/config.h"
# The stand-in: one line of arguments per run, then STUB_MSG on stderr and
# exit STUB_RC.
cat > "$tmp/tests/pam/pam_timing" <<'EOF'
#!/bin/sh
echo "$*" >> "$STUB_LOG"
[ -n "$STUB_MSG" ] && echo "$STUB_MSG" >&2
exit "$STUB_RC"
EOF
chmod +x "$tmp/tests/pam/pam_timing"
fails=0
# run SKIP RC MSG: test_pam_timing.sh's exit status; the stand-in's calls
# are in $tmp/calls.
run() {
    : > "$tmp/calls"
    STUB_LOG=$tmp/calls STUB_RC=$2 STUB_MSG=$3 KDF_SKIP_MEASUREMENTS=$1 top_builddir=$tmp \
        sh "$timing" > "$tmp/out" 2>&1
}
calls() { wc -l < "$tmp/calls" | tr -d ' '; }
check() { # WHAT EXPECTED-STATUS STATUS EXPECTED-CALLS
    if [ "$3" = "$2" ] && [ "$(calls)" = "$4" ]; then
        echo "ok: $1 (exit $3, $4 runs)"
    else
        echo "FAIL: $1: exit $3 (want $2), $(calls) runs (want $4)"
        sed 's/^/  /' "$tmp/out"
        fails=$((fails + 1))
    fi
}
for rc in 0 1 3; do
    run "a test" "$rc" ""
    check "smoke: a verdict of $rc is not judged" 0 $? 2
done
if grep -q -- '-n 8 ' "$tmp/calls"; then
    echo "ok: the smoke run asks 8 logins per class"
else
    echo "FAIL: no -n 8 in: $(head -1 "$tmp/calls")"
    fails=$((fails + 1))
fi
run "a test" 1 "pam_timing: unknown user authenticated?"
check "smoke: a class that logs in fails" 1 $? 1
if grep -q 'a wrong password logged in' "$tmp/out"; then
    echo "ok: and says so"
else
    echo "FAIL: no reason printed"
    fails=$((fails + 1))
fi
run "a test" 99 ""
check "smoke: a run that cannot start fails" 1 $? 1
run "" 1 ""
check "measured: a differing class is retried, then fails" 1 $? 3
[ "$fails" = 0 ]
