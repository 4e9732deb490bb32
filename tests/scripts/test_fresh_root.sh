#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fresh_root.sh - scripts/fresh-root.sh leaves nothing behind.
#
# Run on the host as root (.ci/run does, before it uses the script; also
# `make check-fresh-root`).  Each case runs the script and then asserts
# that no copy of a root is left under the work directory, that no mount
# of one is visible, and that nothing CMD started is still running:
#   - a command that succeeds, and what it sees inside (a Debian 12 root,
#     the tree, PID 1 of its own namespace, tmpfs /run and /tmp, a working
#     unshare -m, no host package such as debootstrap);
#   - a command that fails (its status comes back);
#   - a command killed by SIGKILL, with a background sleeper of its own;
#   - the script itself terminated (SIGTERM) while CMD sleeps;
#   - the script itself SIGKILLed: its copy stays, and the next run
#     removes it.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
fr="$here/scripts/fresh-root.sh"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (debootstrap, chroot, namespaces)"
    exit 77
fi
if ! git -C "$here" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    echo "SKIP: $here is not a git checkout (the script copies git archive HEAD)"
    exit 77
fi
work=$(mktemp -d /var/tmp/kdf-frtest.XXXXXX) || exit 1
export KDF_FRESH_WORK="$work"
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
check() { # check NAME COMMAND...
    name=$1
    shift
    if "$@"; then ok "$name"; else notok "$name"; fi
}
# Nothing left: no copy, no mount under the work directory, no process
# carrying the case's marker.
clean() { # clean MARKER
    [ -z "$(ls -A "$work")" ] || { echo "#   left in $work: $(ls -A "$work")"; return 1; }
    ! grep -q " $work/" /proc/self/mountinfo || { echo "#   a mount is left under $work"; return 1; }
    ! pgrep -f "^sleep $1\$" >/dev/null || { echo "#   still running: $(pgrep -af "^sleep $1\$")"; return 1; }
}
trap 'pkill -KILL -f "^sleep 300[0-9]$" 2>/dev/null; rm -rf --one-file-system "$work"' EXIT

# 1. success, and the inside
out=$(sh "$fr" sh -c '
    . /etc/os-release; echo "version=$VERSION_ID"
    [ -f /build/kdfhash/configure.ac ] && echo tree=yes
    ps -o pid= -p 1 >/dev/null 2>&1 || true
    echo "init=$(cat /proc/1/comm)"
    awk "\$2 == \"/run\" || \$2 == \"/tmp\" { print \"mnt\" \$2 \"=\" \$3 }" /proc/mounts
    unshare -m true && echo unshare=yes
    command -v debootstrap >/dev/null || echo debootstrap=absent
    [ "$(id -u)" = 0 ] && echo root=yes' 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/#   /'
check "a command that succeeds exits 0" [ "$rc" = 0 ]
for want in version=12 tree=yes mnt/run=tmpfs mnt/tmp=tmpfs unshare=yes debootstrap=absent root=yes; do
    check "inside: $want" sh -c "printf '%s\n' \"\$1\" | grep -qx \"\$2\"" sh "$out" "$want"
done
check "inside: PID 1 is the namespace's own" sh -c "printf '%s\n' \"\$1\" | grep -qx 'init=sh'" sh "$out"
check "after success: nothing left" clean 3000

# 2. failure
sh "$fr" sh -c 'exit 3' >/dev/null 2>&1
check "a failing command's status comes back (3)" [ $? = 3 ]
check "after failure: nothing left" clean 3000

# 3. CMD killed, with a sleeper of its own in the background
sh "$fr" sh -c 'sleep 3003 & exec sh -c "kill -KILL \$\$"' >/dev/null 2>&1
rc=$?
check "a killed command reports SIGKILL (137)" [ "$rc" = 137 ]
sleep 1
check "after a killed command: nothing left, sleeper gone" clean 3003

# start_sleeping N: the script in the background with CMD "sleep N", once
# that sleep runs (60 s at most); $p is the script's pid.
start_sleeping() {
    sh "$fr" sh -c "sleep $1" >/dev/null 2>&1 &
    p=$!
    i=0
    while ! pgrep -f "^sleep $1\$" >/dev/null && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}

# 4. the script terminated while CMD runs
start_sleeping 3004
kill -TERM "$p"
wait "$p"
rc=$?
check "the script terminated exits 143" [ "$rc" = 143 ]
sleep 1
check "after the script is terminated: nothing left" clean 3004

# 5. the script SIGKILLed: the copy stays, the next run sweeps it
start_sleeping 3005
kill -KILL "$p"
wait "$p" 2>/dev/null
sleep 1
check "after a SIGKILL of the script: CMD is gone with it" sh -c '! pgrep -f "^sleep 3005$" >/dev/null'
check "after a SIGKILL of the script: its copy is still there" [ -n "$(ls -A "$work")" ]
sh "$fr" true >/dev/null 2>&1
check "the next run exits 0" [ $? = 0 ]
check "the next run removed the orphaned copy" clean 3005

echo "1..$n"
[ "$fail" = 0 ] && echo "fresh-root self-test: all $n checks passed" || echo "fresh-root self-test: $fail of $n checks FAILED"
[ "$fail" = 0 ]
