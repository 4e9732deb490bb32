#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_rollback.sh - the README's restore_entry function, taken from the
# README itself (so the text an admin copies is the text tested), run with
# the real chpasswd -e against a throw-away copy of /etc bound over /etc in a
# private mount namespace (unshare -m): the machine's own /etc is never
# touched.
#
#   1. a user in the copy: field 2 comes back byte for byte;
#   2. a user missing from the copy: refused, /etc/shadow unchanged;
#   3. an empty field 2 in the copy: refused (Debian's nullok would let
#      anyone in), unchanged;
#   4. a user listed twice in the copy: refused, unchanged;
#   5. the hash never appears in the argv of any process the function runs
#      (checked by running it under strace -f -e execve).
set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root for unshare -m and chpasswd (CI runs as root)"
    exit 77
fi
for p in chpasswd useradd awk; do
    if ! command -v "$p" >/dev/null 2>&1; then
        echo "FAIL: $p not installed (Debian package passwd)"
        exit 1
    fi
done

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_ROLLBACK_NS "$@"

# ---- inside the namespace, /etc a copy ----
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdf-rollback.XXXXXX") || exit 1
trap 'rm -rf "$tmp"; etc_ns_leave' EXIT

# The function, exactly as the README writes it (its indentation removed).
awk '/^  restore_entry\(\) \{$/ { on = 1 } on { sub(/^  /, ""); print } on && /^}$/ { exit }' \
    "$top_srcdir/README.md" >"$tmp/restore.sh"
if ! grep -q 'chpasswd -e' "$tmp/restore.sh"; then
    echo "FAIL: no restore_entry function in README.md"
    exit 1
fi
. "$tmp/restore.sh"

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

for u in kdfrb1 kdfrb2 kdfrb3 kdfrb4; do
    useradd -M -s /usr/sbin/nologin "$u" || { echo "FAIL: useradd $u"; exit 1; }
done
new='$argon2id$v=19$m=256,t=1,p=1$nNH2fmSorgU0GpQlEAfpUA$CkX6P0OS4fP32dE2sS8s/He2/0HUrBgthQ3m8cex6sE'
old='$6$rounds=1000$4p014VHUvlhZd3u3$SGBXKM46vdh0fLkNUZqG5JV8eIiS0TnGNW.O.zbBTAMm0IfAkUZJKGabNbE5xN5sEsgFe1rwejThJiG9yIO8H/'
# The upgraded state: every test user has an Argon2id entry now.
for u in kdfrb1 kdfrb2 kdfrb3 kdfrb4; do
    printf '%s:%s\n' "$u" "$new" | chpasswd -e || { echo "FAIL: chpasswd -e"; exit 1; }
done
# The copy made before enabling: kdfrb1 with its old hash, kdfrb2 absent,
# kdfrb3 with an empty field, kdfrb4 twice.
{
    echo "root:*:19000:0:99999:7:::"
    echo "kdfrb1:$old:19000:0:99999:7:::"
    echo "kdfrb3::19000:0:99999:7:::"
    echo "kdfrb4:$old:19000:0:99999:7:::"
    echo "kdfrb4:$old:19000:0:99999:7:::"
} >"$tmp/copy"
chmod 600 "$tmp/copy"

field2() { awk -F: -v u="$1" '$1 == u { print $2 }' /etc/shadow; }

restore_entry kdfrb1 "$tmp/copy" && [ "$(field2 kdfrb1)" = "$old" ] &&
    ok "a user in the copy gets field 2 back" || bad "restore of kdfrb1: $(field2 kdfrb1 | cut -c1-12)"

for u in kdfrb2 kdfrb3 kdfrb4; do
    cp /etc/shadow "$tmp/before"
    if restore_entry "$u" "$tmp/copy" 2>"$tmp/err"; then
        bad "restore_entry $u succeeded"
    elif ! cmp -s /etc/shadow "$tmp/before"; then
        bad "restore_entry $u refused but /etc/shadow changed"
    elif [ "$(field2 "$u")" != "$new" ] || ! grep -q 'no single non-empty entry' "$tmp/err"; then
        bad "restore_entry $u: entry or message wrong"
    else
        ok "restore_entry $u refused (missing, empty or twice in the copy), /etc/shadow unchanged"
    fi
done

if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
    printf '%s:%s\n' kdfrb1 "$new" | chpasswd -e
    strace -f -qq -s 4096 -e trace=execve -o "$tmp/trace" \
        sh -c ". '$tmp/restore.sh'; restore_entry kdfrb1 '$tmp/copy'" >/dev/null 2>&1
    if [ "$(field2 kdfrb1)" = "$old" ] && ! grep -qF 'SGBXKM46vdh0fLkN' "$tmp/trace"; then
        ok "the hash is never in a process's argv"
    else
        bad "the hash shows in argv or the restore failed"
    fi
else
    echo "strace cannot trace here: argv check not run"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
