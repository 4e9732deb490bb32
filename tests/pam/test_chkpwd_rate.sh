#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_chkpwd_rate.sh - kdfhash-chkpwd's delay is a rate limit: a caller who
# owns the helper's process may kill it, or run many at once, and still
# learns no more than one guess per delay (2 s: 0.5 guesses per second).
#
# The helper is the test build tests/pam/kdfhash-chkpwd-rate (the installed
# delay; a shadow path from argv; records in /etc/kdfhash-chkpwd-test,
# which exists only in this script's private copy of /etc: tests/common/etc_ns.sh)
# copied setuid root, run by a temporary system user (setpriv) over a
# root-only test shadow file with a bcrypt cost-4 hash, so that the limit,
# not the hash, sets the pace.  The test build appends a time stamp to
# $KDF_CHKPWD_TEST_VERIFIED after each verification: one line is one guess
# learned.  Three drivers, RATE_WINDOW seconds each, wrong guesses only:
#   a. sequential, each helper SIGKILLed as soon as its verification is
#      done (before its delay);
#   b. 8 workers in parallel, each running helpers to their answer;
#   c. plain sequential.
# Each must stay at or under 0.5 guesses/s, measured from the first to the
# last verification of the window (with 2 % for the few milliseconds that a
# stamp after the verification lies off the record's time before it).  Then:
#   d. the right password passes, within a delay, and the next one at once
#      (a success clears the record);
#   e. root (real uid 0) is not limited: two checks at once are not queued;
#   f. a record directory writable by others, or missing, is not used: the
#      check costs one delay before the verification and still passes;
#   g. and then 8 helpers at once still verify one per delay (they queue
#      on a lock of the shadow file).
# Measure another build with KDF_CHKPWD_RATE_HELPER=path.
# CI runs as root; without root this cannot be set up: exit 77.
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
: "${KDF_CHKPWD_RATE_HELPER:=$top_builddir/tests/pam/kdfhash-chkpwd-rate}"
: "${RATE_WINDOW:=16}"
helper=$KDF_CHKPWD_RATE_HELPER
inc="$top_srcdir/tests/pam/pam_hashes.inc"
state=/etc/kdfhash-chkpwd-test
pw='S3cret-p4ss!'
delay_ms=2000

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root to create a test user and a setuid helper (CI runs as root)"
    exit 77
fi
[ -f "$helper" ] || { echo "FAIL: $helper not built"; exit 1; }
for c in useradd userdel setpriv; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: $c missing (passwd, util-linux)"; exit 1; }
done

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_RATE_NS "$@"

bc=$(sed -n 's/^PAM_HASH(bc2b, "\(.*\)")$/\1/p' "$inc")
case $bc in '$2b$04$'*) ;; *) echo "FAIL: no bcrypt cost-4 hash in $inc"; exit 1 ;; esac

u="kdfrl$$"
tmp=$(mktemp -d /tmp/kdfrate.XXXXXX) || exit 1
wpids=
cleanup() {
    for p in $wpids; do kill "$p" 2>/dev/null; done
    for f in "$tmp"/hpid.*; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
    wait
    rm -rf "$tmp"
    userdel "$u" >/dev/null 2>&1
    etc_ns_leave
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
useradd -M -N -r -d /nonexistent -s /usr/sbin/nologin "$u" || { echo "FAIL: useradd"; exit 1; }
uid=$(id -u "$u")
gid=$(id -g "$u")
chmod 755 "$tmp"
cp "$helper" "$tmp/chkpwd"
chown root:root "$tmp/chkpwd"
chmod 4755 "$tmp/chkpwd"
ASAN_OPTIONS=detect_leaks=0
export ASAN_OPTIONS
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\n' > "$tmp/kdfhash.conf"
chmod 644 "$tmp/kdfhash.conf"
printf 'root:*:19000:0:99999:7:::\n%s:%s:19000:0:99999:7:::\n' "$u" "$bc" > "$tmp/shadow"
chmod 600 "$tmp/shadow"
printf '%s' "$pw" > "$tmp/right"
printf 'wrong-guess' > "$tmp/wrong"
chmod 644 "$tmp/right" "$tmp/wrong"
: > "$tmp/verified"
chown "$uid:$gid" "$tmp/verified"
KDF_CHKPWD_TEST_VERIFIED=$tmp/verified
export KDF_CHKPWD_TEST_VERIFIED
rm -rf "$state"
mkdir -m 0700 "$state"

fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# helper GUESS-FILE: run as the user, in the background; $! is the helper
# (setpriv execs it).
helper_bg() {
    setpriv --reuid="$uid" --regid="$gid" --clear-groups -- \
        "$tmp/chkpwd" "$u" nonull "$tmp/shadow" "$tmp/kdfhash.conf" < "$1" >/dev/null 2>&1 &
}
helper_fg() { # GUESS-FILE -> exit status
    setpriv --reuid="$uid" --regid="$gid" --clear-groups -- \
        "$tmp/chkpwd" "$u" nonull "$tmp/shadow" "$tmp/kdfhash.conf" < "$1" >/dev/null 2>&1
}
count() { wc -l < "$tmp/verified" | tr -d ' '; }
# rate NAME FROM-LINE: the guesses learned since line FROM-LINE, per second
# between the first and the last of them; checks the limit.
rate() {
    tail -n +"$(($2 + 1))" "$tmp/verified" > "$tmp/window"
    r=$(awk -v w="$RATE_WINDOW" '
        NR == 1 { first = $1 } { last = $1; n = NR }
        END {
            if (n < 2) { printf "%d %.3f %.3f\n", n, n / w, n / w; exit }
            printf "%d %.3f %.3f\n", n, (n - 1) / ((last - first) / 1e9), n / w
        }' "$tmp/window")
    set -- "$1" $r
    echo "$1: $2 guesses verified in ${RATE_WINDOW} s: $3 guesses/s between the first and the last ($4 over the window)"
    if awk -v r="$3" 'BEGIN { exit !(r <= 0.5 * 1.02) }'; then
        ok "$1: $3 guesses/s <= 0.5"
    else
        bad "$1: $3 guesses/s > 0.5"
    fi
}

# a. Kill each helper as soon as its verification is done.
n0=$(count)
end=$(($(now_ms) + RATE_WINDOW * 1000))
while [ "$(now_ms)" -lt "$end" ]; do
    c0=$(count)
    helper_bg "$tmp/wrong"
    hp=$!
    echo "$hp" > "$tmp/hpid.a"
    while kill -0 "$hp" 2>/dev/null; do
        if [ "$(count)" -gt "$c0" ] || [ "$(now_ms)" -ge "$end" ]; then
            kill -9 "$hp" 2>/dev/null
            break
        fi
        sleep 0.01
    done
    wait "$hp" 2>/dev/null
done
rm -f "$tmp/hpid.a"
rate "a. SIGKILL after each verification" "$n0"

# b. 8 workers at once.
n0=$(count)
end=$(($(now_ms) + RATE_WINDOW * 1000))
i=0
while [ "$i" -lt 8 ]; do
    (
        while [ "$(now_ms)" -lt "$end" ]; do
            helper_bg "$tmp/wrong"
            echo "$!" > "$tmp/hpid.$i"
            wait "$!"
        done
    ) &
    wpids="$wpids $!"
    i=$((i + 1))
done
while [ "$(now_ms)" -lt "$end" ]; do sleep 0.1; done
cp "$tmp/verified" "$tmp/verified.b"
for p in $wpids; do kill "$p" 2>/dev/null; done
for p in $wpids; do wait "$p" 2>/dev/null; done
wpids=
for f in "$tmp"/hpid.*; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; rm -f "$f"; done
sleep 0.2
# Only what was verified within the window counts: helpers still queued at
# its end were killed.
head -n "$(wc -l < "$tmp/verified.b")" "$tmp/verified" > "$tmp/verified.cut"
cat "$tmp/verified.cut" > "$tmp/verified"
rate "b. 8 in parallel" "$n0"
[ "$(($(count) - n0))" -ge 1 ] && ok "b. the parallel helpers were answered at all" ||
    bad "b. no verification in the parallel window"

# c. Plain sequential.
n0=$(count)
end=$(($(now_ms) + RATE_WINDOW * 1000))
while [ "$(now_ms)" -lt "$end" ]; do
    helper_fg "$tmp/wrong"
done
rate "c. sequential" "$n0"

# d. The right password, after all that: at most one delay, then none.
t0=$(now_ms)
helper_fg "$tmp/right"
x=$?
t1=$(now_ms)
[ "$x" = 0 ] && [ $((t1 - t0)) -lt $((delay_ms + 1000)) ] &&
    ok "d. right password passes after the refusals ($((t1 - t0)) ms)" ||
    bad "d. right password after the refusals: exit $x in $((t1 - t0)) ms"
t0=$(now_ms)
helper_fg "$tmp/right"
x=$?
t1=$(now_ms)
[ "$x" = 0 ] && [ $((t1 - t0)) -lt $((delay_ms / 2)) ] &&
    ok "d. and again at once: the success cleared the record ($((t1 - t0)) ms)" ||
    bad "d. right password after a success: exit $x in $((t1 - t0)) ms"

# e. Root is not limited: two wrong checks at once are not queued (each is
# one delay; queued they would take two).
t0=$(now_ms)
"$tmp/chkpwd" "$u" nonull "$tmp/shadow" "$tmp/kdfhash.conf" < "$tmp/wrong" >/dev/null 2>&1 &
r1=$!
"$tmp/chkpwd" "$u" nonull "$tmp/shadow" "$tmp/kdfhash.conf" < "$tmp/wrong" >/dev/null 2>&1 &
r2=$!
wait "$r1"
x1=$?
wait "$r2"
x2=$?
t1=$(now_ms)
[ "$x1" = 1 ] && [ "$x2" = 1 ] && [ $((t1 - t0)) -lt $((delay_ms * 3 / 2)) ] &&
    ok "e. root: two refusals at once in $((t1 - t0)) ms, not queued" ||
    bad "e. root: exits $x1 $x2 in $((t1 - t0)) ms"
[ ! -e "$state/0" ] && ok "e. no record for root" || bad "e. a record for root exists"

# f. Directories the helper must not trust, or none: one delay before the
# verification, the right password still passes, a refusal costs one delay.
degraded() { # NAME
    t0=$(now_ms)
    helper_fg "$tmp/right"
    x=$?
    t1=$(now_ms)
    [ "$x" = 0 ] && [ $((t1 - t0)) -ge "$delay_ms" ] &&
        ok "f. $1: right password passes after the fixed delay ($((t1 - t0)) ms)" ||
        bad "f. $1: right password: exit $x in $((t1 - t0)) ms"
    t0=$(now_ms)
    helper_fg "$tmp/wrong"
    x=$?
    t1=$(now_ms)
    [ "$x" = 1 ] && [ $((t1 - t0)) -ge "$delay_ms" ] && [ $((t1 - t0)) -lt $((delay_ms * 2)) ] &&
        ok "f. $1: a refusal costs one delay ($((t1 - t0)) ms)" ||
        bad "f. $1: wrong password: exit $x in $((t1 - t0)) ms"
}
rm -f "$state/$uid"
chmod 0777 "$state"
degraded "a directory writable by others"
[ ! -e "$state/$uid" ] && ok "f. no record written there" || bad "f. a record written in a directory others may write"
rmdir "$state"
ln -s "$tmp" "$state"
degraded "a symbolic link"
[ ! -e "$tmp/$uid" ] && ok "f. no record written through the link" || bad "f. a record written through the link"
rm -f "$state"
degraded "a missing directory"

# g. Without a record the helpers still queue (on a lock of the shadow
# file): 8 wrong guesses at once are verified one per delay, never two
# within one delay, and take a delay each in all.
n0=$(count)
t0=$(now_ms)
gp=
i=0
while [ "$i" -lt 8 ]; do
    helper_bg "$tmp/wrong"
    gp="$gp $!"
    i=$((i + 1))
done
for p in $gp; do wait "$p"; done
t1=$(now_ms)
tail -n +"$((n0 + 1))" "$tmp/verified" | sort -n > "$tmp/window"
n=$(wc -l < "$tmp/window" | tr -d ' ')
close=$(awk -v d="$delay_ms" 'NR > 1 && ($1 - prev) < d * 1e6 * 0.99 { c++ } { prev = $1 }
    END { print c + 0 }' "$tmp/window")
echo "g. 8 in parallel without a record: $n verified in $((t1 - t0)) ms"
[ "$n" -ge 2 ] && [ "$close" = 0 ] &&
    ok "g. no two verifications within one delay ($n verified)" ||
    bad "g. $close of $n verifications within one delay of the one before"
[ "$n" -ge 2 ] && [ $((t1 - t0)) -ge $((n * delay_ms)) ] &&
    ok "g. $n verifications took at least $n delays ($((t1 - t0)) ms)" ||
    bad "g. $n verifications in $((t1 - t0)) ms, under $n delays"

[ "$fails" = 0 ] || exit 1
exit 0
