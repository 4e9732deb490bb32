#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# kdfhash-update (pam_module/update.c), driven through its stdin as the
# module drives it (pam_module/update_client.h):
#   - the three writes: an upgrade changes field 2 of that one line and no
#     other byte, a change also field 3, a history entry lands in opasswd as
#     "user:uid:1:hash"; a stale old field (1), a missing user (2) and a
#     held lock (3) leave the file byte-identical, with their status;
#   - hostile requests, each refused with status 4 and a reason that says
#     which, the file byte-identical: a caller that is not root, a bad user
#     name, a new hash that does not parse, one of a scheme no target names
#     ($1$), a locked one, a request over the size limit, unknown, repeated,
#     missing or foreign keys, a NUL byte, no final newline, a number out
#     of range, a hard-linked file; the installed build refuses any file but
#     /etc/shadow;
#   - no hash in any answer;
#   - faults in the helper (tests/writer/faultinject.so preloaded into it):
#     the n-th open, openat, fcntl, fchown, fchmod, write, fsync, close or
#     rename of an upgrade failed (n = 1..10, EIO; write also cut short):
#     either exit 0 and exactly the upgraded file, or an error status with a
#     reason and the file byte-identical; never a temp left; for each call
#     some failure fails the write (a short write is continued).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
H="$top_builddir/tests/writer/kdfhash-update-test"
P="$top_builddir/pam_module/kdfhash-update"
for f in "$H" "$P"; do
    [ -x "$f" ] || { echo "FAIL: missing $f (make check builds it)"; exit 1; }
done
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: kdfhash-update answers root only (CI runs as root)"
    exit 77
fi
command -v setpriv >/dev/null 2>&1 || { echo "FAIL: setpriv missing (util-linux)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdf-update.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
S=$tmp/shadow
salt='AAAAAAAAAAAAAAAAAAAAA.'
h() { printf '$2b$04$%s%025dAAAAA.' "$salt" "$1"; }
OLD=$(h 01)
NEW=$(h 02)
printf 'root:*:19000:0:99999:7:::\nalice:%s:19000:0:99999:7:::\n' "$OLD" > "$S"
printf '# a comment\nbob:!locked:19000::::::\n' >> "$S"
chmod 640 "$S"
fails=0
n=0
# run NAME WANT_EXIT WANT_TEXT [RUNNER...]: the request in $R, one answer
# checked (no pipe into it: the counters live in this shell)
R=$tmp/request
run() {
    name=$1 want=$2 text=$3
    shift 3
    n=$((n + 1))
    cp -p "$S" "$tmp/before"
    "${@:-$H}" < "$R" > "$tmp/out" 2> /dev/null
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: $name: exit $got, want $want ($(cat "$tmp/out"))"
        fails=$((fails + 1))
    elif [ -n "$text" ] && ! grep -qF -- "$text" "$tmp/out"; then
        echo "FAIL: $name: answer '$(cat "$tmp/out")' does not say '$text'"
        fails=$((fails + 1))
    elif grep -qF '$2b$' "$tmp/out"; then
        echo "FAIL: $name: a hash in the answer"
        fails=$((fails + 1))
    elif [ "$want" != 0 ] && ! cmp -s "$S" "$tmp/before"; then
        echo "FAIL: $name: the file changed"
        fails=$((fails + 1))
    else
        echo "ok $n: $name: exit $got ($(head -c 80 "$tmp/out"))"
    fi
}
req() { printf 'op=%s\nshadow=%s\nuser=%s\nold=%s\nnew=%s\nwait=200\n' "$@"; }

# ---- the writes ------------------------------------------------------------
req upgrade "$S" alice "$NEW" "$(h 03)" > "$R"
run "stale old field" 1 "changed since it was verified"
req upgrade "$S" carol "$OLD" "$NEW" > "$R"
run "user not in the file" 2 "user not in the file"
python3 -c '
import fcntl, sys, time
f = open(sys.argv[1] + ".lock", "w"); fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[1] + ".held", "w").close(); time.sleep(3)' "$S" &
lockpid=$!
i=0
while [ ! -e "$S.held" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
req upgrade "$S" alice "$OLD" "$NEW" > "$R"
run "lock held by another process" 3 "lock held by another process"
kill "$lockpid" 2> /dev/null
wait "$lockpid" 2> /dev/null
rm -f "$S.held" "$S.lock"
cp "$S" "$tmp/pre"
req upgrade "$S" alice "$OLD" "$NEW" > "$R"
run "upgrade" 0 ""
if [ "$(sed "s|$NEW|$OLD|" "$S")" = "$(cat "$tmp/pre")" ] && grep -qF "alice:$NEW:19000:" "$S"; then
    echo "ok: the upgrade changed field 2 of alice's line and nothing else"
else
    echo "FAIL: the upgrade changed more than field 2 of alice's line"; fails=$((fails + 1))
fi
[ "$(stat -c %a "$S")" = 640 ] || { echo "FAIL: mode not kept"; fails=$((fails + 1)); }
printf 'op=change\nshadow=%s\nuser=alice\nold=%s\nnew=%s\nlastchg=20000\nwait=200\n' \
    "$S" "$NEW" "$OLD" > "$R"
run "change" 0 ""
grep -qF "alice:$OLD:20000:0:" "$S" ||
    { echo "FAIL: change: $(grep alice "$S")"; fails=$((fails + 1)); }
printf 'op=history\nshadow=%s\nopasswd=%s\nuser=alice\nold=%s\nuid=1001\nkeep=5\nwait=200\n' \
    "$S" "$tmp/opasswd" "$NEW" > "$R"
run "history" 0 ""
[ "$(cat "$tmp/opasswd" 2> /dev/null)" = "alice:1001:1:$NEW" ] ||
    { echo "FAIL: history: $(cat "$tmp/opasswd")"; fails=$((fails + 1)); }

# ---- hostile requests ------------------------------------------------------
ok_req=$(req upgrade "$S" alice "$OLD" "$NEW")
printf '%s\n' "$ok_req" > "$R"
run "caller not root" 4 "only root" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$H"
printf '%s\n' "$ok_req" > "$R"
run "root group, user id not root" 4 "only root" \
    setpriv --reuid=65534 --clear-groups "$H"
for u in -alice 'a:b' '+nis' '#x' ''; do
    req upgrade "$S" "$u" "$OLD" "$NEW" > "$R"
run "user name '$u'" 4 "not a valid user name"
done
req upgrade "$S" alice "$OLD" 'h$00001$7' > "$R"
run "new hash that does not parse" 4 "does not parse"
req upgrade "$S" alice "$OLD" '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/' > "$R"
run "md5-crypt, a scheme no target names" 4 "not of a scheme a target names"
req upgrade "$S" alice "$OLD" "!$NEW" > "$R"
run "a locked new hash" 4 "not storable"
req upgrade "$S" alice "$OLD" "$NEW:0" > "$R"
run "a ':' in the new hash" 4 "not storable"
req upgrade "$S" alice "" "$NEW" > "$R"
run "upgrade of an empty field" 4 "empty field"
req upgrade "$S" alice "a:b" "$NEW" > "$R"
run "a ':' in the old field" 4 "old field"
{ req upgrade "$S" alice "$OLD" "$NEW"; head -c 20000 /dev/zero | tr '\0' x; echo; } > "$R"
run "a request of 20 kB" 4 "request too large"
{ printf '%s\nx=1\n' "$ok_req"; } > "$R"
run "an unknown key" 4 "unknown key"
{ printf '%s\nuser=bob\n' "$ok_req"; } > "$R"
run "a key given twice" 4 "twice"
printf 'op=upgrade\nshadow=%s\nuser=alice\nold=%s\nwait=200\n' "$S" "$OLD" > "$R"
run "a missing key" 4 "keys missing"
{ printf '%s\nlastchg=1\n' "$ok_req"; } > "$R"
run "a key of another op" 4 "keys missing or not of the op"
printf 'op=upgrade\nshadow=%s\nuser=alice\0\nold=%s\nnew=%s\nwait=200\n' "$S" "$OLD" "$NEW" > "$R"
run "a NUL byte" 4 "not a request"
printf '%s' "$ok_req" > "$R"
run "no final newline" 4 "not a request"
printf 'op=upgrade\nshadow=%s\nuser=alice\nold=%s\nnew=%s\nwait=99999999\n' \
    "$S" "$OLD" "$NEW" > "$R"
run "a wait out of range" 4 "out of range"
printf 'op=remove\nshadow=%s\nuser=alice\n' "$S" > "$R"
run "an unknown op" 4 "unknown op"
: > "$R"
run "an empty request" 4 "not a request"
req upgrade "relative/shadow" alice "$OLD" "$NEW" > "$R"
run "a relative path" 4 "not the shadow file"
ln "$S" "$tmp/link"
req upgrade "$S" alice "$OLD" "$NEW" > "$R"
run "a hard-linked file" 4 "hard links"
rm -f "$tmp/link"
printf '%s\n' "$ok_req" > "$R"
run "the installed build: a file but /etc/shadow" 4 \
    "not the shadow file this helper writes" "$P"
printf 'op=history\nshadow=/etc/shadow\nopasswd=%s\nuser=alice\nold=%s\nuid=1\nkeep=5\nwait=200\n' \
    "$tmp/opasswd" "$NEW" > "$R"
run "the installed build: a history file but opasswd" 4 \
    "not the history file this helper writes" "$P"

# ---- faults inside the helper -------------------------------------------
shim="$top_builddir/tests/writer/faultinject.so"
case "$shim" in /*) ;; *) shim="$PWD/$shim" ;; esac
[ -e "$shim" ] || { echo "FAIL: missing $shim (make check builds it)"; exit 1; }
printf 'root:*:19000:0:99999:7:::\nalice:%s:19000:0:99999:7:::\n' "$OLD" > "$tmp/pristine"
chmod 640 "$tmp/pristine"
sed "s|^alice:$OLD:|alice:$NEW:|" "$tmp/pristine" > "$tmp/upgraded"
req upgrade "$S" alice "$OLD" "$NEW" > "$R"
closed=0 harmless=0
for fn in open openat fcntl fchown fchmod write fsync close rename; do
    for mode in 1 2; do
        [ "$mode" = 2 ] && [ "$fn" != write ] && continue
        hit=0
        for nth in 1 2 3 4 5 6 7 8 9 10; do
            rm -f "$S" "$S-" "$S.lock"
            cp -p "$tmp/pristine" "$S"
            rc=0
            FI_FUNC=$fn FI_NTH=$nth FI_ERRNO=5 FI_MODE=$mode LD_PRELOAD="$shim" \
                ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
                "$H" < "$R" > "$tmp/out" 2> /dev/null || rc=$?
            if ls -a "$tmp" | grep -q '\.kdfhash-'; then
                echo "FAIL: fault $fn#$nth: a temp left"; fails=$((fails + 1))
                rm -f "$tmp"/.*.kdfhash-*
            fi
            if [ "$rc" = 0 ] && cmp -s "$S" "$tmp/upgraded"; then
                harmless=$((harmless + 1))
            elif [ "$rc" != 0 ] && [ -s "$tmp/out" ] && cmp -s "$S" "$tmp/pristine"; then
                closed=$((closed + 1))
                hit=1
            else
                echo "FAIL: fault $fn#$nth mode $mode: exit $rc ($(cat "$tmp/out")), file $(
                    cmp -s "$S" "$tmp/pristine" && echo kept || echo changed)"
                fails=$((fails + 1))
            fi
        done
        # A short write is continued, not a failure (write.c's write_all()).
        [ "$hit" = 1 ] || [ "$mode" = 2 ] ||
            { echo "FAIL: no $fn fault failed the write"; fails=$((fails + 1)); }
    done
done
echo "# faults: $closed failed closed (file byte-identical), $harmless harmless (file upgraded)"

echo "# $n requests, $fails failed"
[ "$fails" = 0 ]
