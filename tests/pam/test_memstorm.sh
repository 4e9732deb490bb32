#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_memstorm.sh - a login storm in a small memory cgroup: N logins at
# once (tests/pam/memstorm, through the real libpam), right passwords with
# wrong passwords and unknown users mixed in, against an entry at an
# Argon2id target of 64 MiB, in a memory cgroup whose limit is far below
# N x 64 MiB.  With the machine-wide budget (max.memory) every login
# succeeds or is refused as busy, none is killed, no OOM kill happens in the
# cgroup and its peak stays within the budget plus the processes' own
# memory.  A control run with max.memory = off in the same cgroup shows the
# OOM killer at work, i.e. that the cgroup was small enough for the test to
# mean something (reported, not judged: swap may absorb it).
#
# Runs in a private mount namespace with its own /run (the budget's lock
# file), so nothing else on the machine shares the test's budget.  Needs
# root and a memory cgroup (v1 or v2); otherwise exit 77 with the reason.
#
# Environment: KDF_STORM_N (default 12 logins), KDF_STORM_MIB (cgroup
# limit, default 448), KDF_STORM_BUDGET_MIB (default 128).
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
module=$top_builddir/pam_module/.libs/pam_kdfhash.so
storm=$top_builddir/tests/pam/memstorm
n=${KDF_STORM_N:-12}
limit_mib=${KDF_STORM_MIB:-448}
budget_mib=${KDF_STORM_BUDGET_MIB:-128}
py=${PYTHON3_SYSTEM:-/usr/bin/python3}
[ -x "$py" ] || py=python3

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (a memory cgroup and a private /run)"
    exit 77
fi
if ! unshare -m true 2>/dev/null; then
    echo "FAIL: running as root, yet unshare -m fails (is / a mount point? a chroot must bind its root onto itself)"
    exit 1
fi
for f in "$module" "$storm"; do
    [ -f "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
if nm -D "$module" 2>/dev/null | grep -q ' U __asan_init'; then
    echo "SKIP: a sanitizer build's shadow memory would count against the cgroup (the plain build runs this test)"
    exit 77
fi
"$py" -c 'import argon2' 2>/dev/null || { echo "FAIL: python3-argon2 not installed"; exit 1; }

if [ "${KDF_STORM_NS:-}" = "" ]; then
    KDF_STORM_NS=1 exec unshare -m sh "$0" "$@"
fi
mount --make-rprivate / && mount -t tmpfs -o mode=755 tmpfs /run || {
    echo "FAIL: cannot mount a private /run"
    exit 1
}

# ---- the memory cgroup ----
cg=
if rel=$(awk -F: '$2 == "memory" { print $3; exit }' /proc/self/cgroup) && [ -n "$rel" ] &&
    [ -w "/sys/fs/cgroup/memory$rel" ]; then
    cg=/sys/fs/cgroup/memory$rel/kdfstorm.$$
    mkdir "$cg" || cg=
    if [ -n "$cg" ]; then
        echo $((limit_mib << 20)) > "$cg/memory.limit_in_bytes"
        # No escape into swap: the limit is on memory and swap together.
        [ -f "$cg/memory.memsw.limit_in_bytes" ] &&
            echo $((limit_mib << 20)) > "$cg/memory.memsw.limit_in_bytes" 2>/dev/null
        peak_file=$cg/memory.max_usage_in_bytes
        events() { sed -n 's/^oom_kill //p' "$cg/memory.oom_control"; }
    fi
fi
if [ -z "$cg" ] && [ -f /sys/fs/cgroup/cgroup.controllers ] &&
    grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
    rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
    cg=/sys/fs/cgroup$rel/kdfstorm.$$
    mkdir "$cg" 2>/dev/null || cg=
    if [ -n "$cg" ]; then
        echo $((limit_mib << 20)) > "$cg/memory.max"
        echo 0 > "$cg/memory.swap.max" 2>/dev/null
        peak_file=$cg/memory.peak
        events() { sed -n 's/^oom_kill //p' "$cg/memory.events"; }
    fi
fi
if [ -z "$cg" ]; then
    echo "SKIP: no writable memory cgroup (v1 or v2) here"
    exit 77
fi
tmp=$(mktemp -d /tmp/kdfstorm.XXXXXX) || exit 1
cleanup() {
    rmdir "$cg" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

pw='storm-S3cret'
hash=$("$py" -c '
import sys, argon2.low_level as a
print(a.hash_secret(sys.argv[1].encode(), b"kdfstormsaltsalt", time_cost=1, memory_cost=65536,
                    parallelism=1, hash_len=32, type=a.Type.ID).decode())' "$pw")
printf 'alice:%s:19000:0:99999:7:::\n' "$hash" > "$tmp/shadow"
mkdir "$tmp/pam.d"
run() { # run MAX_MEMORY: the storm inside the cgroup; prints its report
    printf 'target = argon2id m=65536,t=1,p=1\nmin.argon2 = m=65536,t=1,p=1\nmax.memory = %s\nmax.memory-wait = 60000\n' "$1" \
        > "$tmp/kdfhash.conf"
    echo "auth required $module shadow=$tmp/shadow conf=$tmp/kdfhash.conf upgrade=off nodelay" \
        > "$tmp/pam.d/kdftest"
    [ -f "$cg/memory.max_usage_in_bytes" ] && echo 0 > "$cg/memory.max_usage_in_bytes"
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
        "$storm" "$tmp/pam.d" alice "$pw" "$n" 4 5
}

fail=0
oom0=$(events)
out=$(run $((budget_mib << 10)))
rc=$?
oom1=$(events)
peak=$(($(cat "$peak_file") >> 20))
echo "with max.memory = $budget_mib MiB, $n logins in a $limit_mib MiB cgroup:"
echo "$out" | sed 's/^/    /'
echo "    cgroup peak: $peak MiB; OOM kills: $((oom1 - oom0))"
if [ "$rc" -ne 0 ]; then
    echo "FAIL: a login was killed or ended wrongly"
    fail=1
fi
if [ "$oom1" != "$oom0" ]; then
    echo "FAIL: the OOM killer ran in the cgroup"
    fail=1
fi
# The budget, plus what N small processes with libpam hold themselves.
if [ "$peak" -gt $((budget_mib + n * 12 + 32)) ]; then
    echo "FAIL: peak $peak MiB above the budget $budget_mib MiB + $n x 12 + 32 MiB of processes"
    fail=1
fi

# The control: the same storm without the budget.
oom0=$(events)
out=$(run off)
oom1=$(events)
echo "control, max.memory = off:"
echo "$out" | sed 's/^/    /'
if [ "$oom1" != "$oom0" ]; then
    echo "    OOM kills: $((oom1 - oom0)) (the cgroup is small enough for the test to mean something)"
else
    echo "    note: no OOM kill without the budget either (swap, or a faster machine)"
fi
[ "$fail" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$fail"
