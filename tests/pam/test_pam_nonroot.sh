#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_pam_nonroot.sh - the helper path: a non-root caller (a screen
# locker running as the user) cannot read the shadow file, so
# pam_kdfhash.so runs kdfhash-chkpwd.  A temporary system user (useradd, in
# a copy of /etc bound over /etc in a private mount namespace:
# tests/common/etc_ns.sh) runs tests/pam/test_pam_nonroot, a PAM application, with
# setpriv; the shadow file is root's (0600); the helper is the test build
# (tests/pam/kdfhash-chkpwd-test: honours a shadow path from argv even when
# setuid; never installed) copied setuid root into a temporary directory.
# Checks:
#   1. own password: PAM_SUCCESS, through the helper (the module alone
#      would say PAM_AUTHINFO_UNAVAIL);
#   2. own wrong password: PAM_AUTH_ERR;
#   3. another user's RIGHT password: PAM_AUTH_ERR (privileges dropped,
#      then refused: the CVE-2005-2977 pattern);
#   4. the helper with a tty stdin (script(1)): refused, exit 4, after its
#      sleep, with the "not designed" notice;
#   5. no upgrade attempted: the file is byte-identical after 1-3 although
#      the user's entry is an outdated bcrypt one;
#   6. a 70,000-byte password: PAM_AUTH_ERR in under 1 s (CVE-2015-3238:
#      the write to the helper's pipe must never block);
#   (every login through the host also checks that the host's SIGCHLD,
#   set to SIG_IGN, and its open fds are as before: rc 98 otherwise)
#   7. a keyed entry: PAM_SUCCESS with its key, PAM_AUTH_ERR without;
#   8. the installed helper (pam_module/kdfhash-chkpwd) made setuid refuses
#      a shadow path from argv (exit 3) and, run without privileges over a
#      file the caller owns, verifies (exit 0) and refuses (exit 1).
# CI runs as root; without root this cannot be set up: exit 77.
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
module="$top_builddir/pam_module/.libs/pam_kdfhash.so"
helper_test="$top_builddir/tests/pam/kdfhash-chkpwd-test"
helper_real="$top_builddir/pam_module/kdfhash-chkpwd"
host="$top_builddir/tests/pam/test_pam_nonroot"
inc="$top_srcdir/tests/pam/pam_hashes.inc"
pw='S3cret-p4ss!'

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root to create a test user and a setuid helper (CI runs as root)"
    exit 77
fi
for f in "$module" "$helper_test" "$helper_real" "$host"; do
    [ -f "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done
for c in useradd userdel setpriv script; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: $c missing (passwd, util-linux, bsdutils)"; exit 1; }
done

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_NONROOT_NS "$@"

hash_of() { sed -n "s/^PAM_HASH($1, \"\\(.*\\)\")\$/\\1/p" "$inc"; }
bc=$(hash_of bc2b)
a2=$(hash_of a2id_target)
[ -n "$bc" ] && [ -n "$a2" ] || { echo "FAIL: cannot read $inc"; exit 1; }

u="kdfnr$$"
tmp=$(mktemp -d /tmp/kdfnonroot.XXXXXX) || exit 1
cleanup() {
    rm -rf "$tmp"
    userdel "$u" >/dev/null 2>&1
    etc_ns_leave
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
useradd -M -N -r -d /nonexistent -s /usr/sbin/nologin "$u" || { echo "FAIL: useradd"; exit 1; }
# The test build's rate limit records (tests/pam/test_chkpwd_rate.sh checks
# the limit; without the directory every check would wait a delay first).
rm -rf /etc/kdfhash-chkpwd-test
mkdir -m 0700 /etc/kdfhash-chkpwd-test || { echo "FAIL: cannot create the record directory"; exit 1; }
uid=$(id -u "$u")
gid=$(id -g "$u")
chmod 755 "$tmp"
as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }

# Everything the user runs is copied out of the build tree (which may sit
# in a directory the user cannot enter).  A sanitizer build's binaries keep
# their runtime; its leak checker cannot work in a setuid process.
cp "$module" "$tmp/pam_kdfhash.so"
cp "$host" "$tmp/host"
cp "$helper_test" "$tmp/chkpwd"
cp "$helper_real" "$tmp/chkpwd-real"
cp "$helper_real" "$tmp/chkpwd-plain"
chmod 644 "$tmp/pam_kdfhash.so"
chmod 755 "$tmp/host" "$tmp/chkpwd-plain"
chown root:root "$tmp/chkpwd" "$tmp/chkpwd-real"
chmod 4755 "$tmp/chkpwd" "$tmp/chkpwd-real"
ASAN_OPTIONS=detect_leaks=0
export ASAN_OPTIONS

# A cheap target needs minimums as low (the policy refuses a target below
# its own min.argon2).
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\n' > "$tmp/kdfhash.conf"
chmod 644 "$tmp/kdfhash.conf"
printf 'root:*:19000:0:99999:7:::\n%s:%s:19000:0:99999:7:::\nbob:%s:19000:0:99999:7:::\n' \
    "$u" "$bc" "$a2" > "$tmp/shadow"
chmod 600 "$tmp/shadow"
cp "$tmp/shadow" "$tmp/before"
mkdir "$tmp/pam.d"
# The helper's delay (300 ms in its test build) is measured; libpam's is
# not slept (the host's PAM_FAIL_DELAY callback) but reported as delay=.
echo "auth required $tmp/pam_kdfhash.so shadow=$tmp/shadow conf=$tmp/kdfhash.conf chkpwd=$tmp/chkpwd target=argon2id:m=256,t=1,p=1" \
    > "$tmp/pam.d/kdfnr"
chmod -R a+rX "$tmp/pam.d"

fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
login() { # user password -> prints the host's rc
    printf '%s' "$2" | as_user "$tmp/host" "$tmp/pam.d" kdfnr "$1" 2>"$tmp/err" |
        tee "$tmp/out" | sed -n 's/^rc=\([0-9]*\).*/\1/p'
}

# PAM codes (Linux-PAM _pam_types.h): SUCCESS 0, AUTH_ERR 7, AUTHINFO_UNAVAIL 9.
rc=$(login "$u" "$pw")
[ "$rc" = 0 ] && ok "own password through the helper" || { bad "own password: rc=$rc"; cat "$tmp/err"; }
t0=$(date +%s%N)
rc=$(login "$u" "wrong-pass")
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
wrong_ms=$ms
[ "$rc" = 7 ] && ok "own wrong password: PAM_AUTH_ERR" || bad "own wrong password: rc=$rc"
# The helper answers a refusal only after its fail delay (300 ms in the
# test build, 2 s installed), so guesses through it are no faster than at a
# login; a right password is not delayed.
[ "$ms" -ge 300 ] && ok "wrong password through the helper: $ms ms (delay 300 ms)" ||
    bad "wrong password through the helper answered in $ms ms, before its delay"
# One delay, not two: the module asks libpam for none on top of the
# helper's (pam_unix's locker path, unix_chkpwd, has exactly one, libpam's).
grep -qx 'delay=0' "$tmp/out" && ok "no second delay from libpam after the helper's" ||
    bad "the module asked libpam for a delay after the helper's: $(grep delay= "$tmp/out")"
# Not delayed: faster than the wrong one by most of the delay (an absolute
# bound failed under a sanitizer build on a loaded machine, where the
# helper's start alone took 300 ms).  The quickest of three: one run beside
# a busy lane took 540 ms against the wrong one's 658, noise not a delay.
ms= rc=0
for i in 1 2 3; do
    t0=$(date +%s%N)
    r=$(login "$u" "$pw")
    t1=$(date +%s%N)
    t=$(((t1 - t0) / 1000000))
    [ "$r" = 0 ] || rc=$r
    [ -z "$ms" ] || [ "$t" -lt "$ms" ] && ms=$t
done
[ "$rc" = 0 ] && [ "$ms" -lt $((wrong_ms - 150)) ] &&
    ok "right password not delayed ($ms ms, the wrong one $wrong_ms ms)" ||
    bad "right password: rc=$rc in $ms ms, the wrong one $wrong_ms ms"
# An audit record is attempted for each answer where libaudit is linked in
# (the kernel may refuse it to a process without CAP_AUDIT_WRITE, as it
# does unix_chkpwd's).
if ldd "$helper_test" 2>/dev/null | grep -q libaudit; then
    if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
        cp "$tmp/before" "$tmp/shadow-own2"
        chown "$uid:$gid" "$tmp/shadow-own2"
        printf 'nope' | strace -f -qq -e trace=socket -o "$tmp/audit.trace" \
            setpriv --reuid="$uid" --regid="$gid" --clear-groups -- \
            "$tmp/chkpwd-plain" "$u" nonull "$tmp/shadow-own2" >/dev/null 2>&1
        grep -q 'NETLINK_AUDIT' "$tmp/audit.trace" && ok "audit record attempted (NETLINK_AUDIT socket)" ||
            bad "no audit socket opened by the helper"
    else
        echo "strace cannot trace here: audit record not checked"
    fi
else
    echo "note: helper built without libaudit (libaudit-dev): no audit record to check"
fi
rc=$(login bob "$pw")
[ "$rc" = 7 ] && ok "another user's right password refused" || bad "another user's password: rc=$rc"
# Without the helper, the same login cannot read the file: proves 1 went
# through it.
sed "s|chkpwd=$tmp/chkpwd|chkpwd=off|" "$tmp/pam.d/kdfnr" > "$tmp/pam.d/kdfnr-off"
chmod 644 "$tmp/pam.d/kdfnr-off"
rc=$(printf '%s' "$pw" | as_user "$tmp/host" "$tmp/pam.d" kdfnr-off "$u" | sed -n 's/^rc=\([0-9]*\).*/\1/p')
[ "$rc" = 9 ] && ok "chkpwd=off: PAM_AUTHINFO_UNAVAIL (the file is unreadable to the caller)" ||
    bad "chkpwd=off: rc=$rc"
cmp -s "$tmp/shadow" "$tmp/before" && ok "no upgrade attempted (file unchanged, entry outdated)" ||
    bad "the shadow file changed under a non-root caller"

# A tty on stdin: script(1) gives the helper a pty.
t0=$(date +%s%N)
script -q -e -c "setpriv --reuid=$uid --regid=$gid --clear-groups -- $tmp/chkpwd $u nonull $tmp/shadow" \
    "$tmp/typescript" </dev/null >"$tmp/ttyout" 2>&1
x=$?
t1=$(date +%s%N)
if [ "$x" = 4 ] && grep -q "not designed" "$tmp/ttyout" && [ $(((t1 - t0) / 1000000)) -ge 900 ]; then
    ok "tty stdin refused (exit 4 after $(((t1 - t0) / 1000000)) ms)"
else
    bad "tty stdin: exit $x, $(((t1 - t0) / 1000000)) ms"; sed 's/^/    /' "$tmp/ttyout"
fi

# CVE-2015-3238: a password larger than a pipe.
head -c 70000 /dev/zero | tr '\0' 'p' > "$tmp/longpw"
t0=$(date +%s%N)
rc=$(as_user "$tmp/host" "$tmp/pam.d" kdfnr "$u" < "$tmp/longpw" | sed -n 's/^rc=\([0-9]*\).*/\1/p')
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
if [ "$rc" = 7 ] && [ "$ms" -lt 1000 ]; then
    ok "70,000-byte password: PAM_AUTH_ERR in $ms ms"
else
    bad "70,000-byte password: rc=$rc in $ms ms"
fi

# A keyed entry through the helper: its key is read with the helper's
# privileges, before the drop (the test build's key directory is
# /etc/kdfhash-chkpwd-test/keys, in this private /etc).  The entry and key
# are the first row of tests/vectors/argon2_keyed.inc (libargon2).
mkdir -m 0750 /etc/kdfhash-chkpwd-test/keys
printf 'kdfhash-key-v1 %s\n' be56bbbc68821cc0109430afb092ebaefb9f3e98a223365596e3045093321fdc \
    > /etc/kdfhash-chkpwd-test/keys/5ykChnXa
chmod 0640 /etc/kdfhash-chkpwd-test/keys/5ykChnXa
pwa=$(printf '\346\320\207\331\265\227\341\246\241\272\273\337')
printf 'root:*:19000:0:99999:7:::\n%s:%s:19000:0:99999:7:::\n' "$u" \
    '$argon2id$v=19$m=8,t=1,p=1,keyid=5ykChnXa$BytvzpWziZWqIKa7mpE2Rw$qu4LCeWlzVNz1lcWXnreAvp2DWorDMGLmlwz17U0e40' \
    > "$tmp/shadow-keyed"
chmod 600 "$tmp/shadow-keyed"
echo "auth required $tmp/pam_kdfhash.so shadow=$tmp/shadow-keyed conf=$tmp/kdfhash.conf chkpwd=$tmp/chkpwd" \
    > "$tmp/pam.d/kdfnrk"
chmod a+r "$tmp/pam.d/kdfnrk"
rc=$(printf '%s' "$pwa" | as_user "$tmp/host" "$tmp/pam.d" kdfnrk "$u" 2>"$tmp/err" |
    sed -n 's/^rc=\([0-9]*\).*/\1/p')
[ "$rc" = 0 ] && ok "keyed entry through the helper" || { bad "keyed entry: rc=$rc"; cat "$tmp/err"; }
rm /etc/kdfhash-chkpwd-test/keys/5ykChnXa
rc=$(printf '%s' "$pwa" | as_user "$tmp/host" "$tmp/pam.d" kdfnrk "$u" 2>"$tmp/err" |
    sed -n 's/^rc=\([0-9]*\).*/\1/p')
[ "$rc" = 7 ] && ok "keyed entry, key missing: PAM_AUTH_ERR" || bad "keyed entry without its key: rc=$rc"

# The installable helper: setuid, a path from argv is refused.
printf '%s' "$pw" | as_user "$tmp/chkpwd-real" "$u" nonull "$tmp/shadow" >/dev/null 2>&1
x=$?
[ "$x" = 3 ] && ok "setuid helper refuses a shadow path from argv (exit 3)" || bad "setuid helper with a path: exit $x"
# Without privileges it may read what the caller can read anyway.
cp "$tmp/before" "$tmp/shadow-own"
chown "$uid:$gid" "$tmp/shadow-own"
printf '%s' "$pw" | as_user "$tmp/chkpwd-plain" "$u" nonull "$tmp/shadow-own" >/dev/null 2>&1
x=$?
[ "$x" = 0 ] && ok "unprivileged helper over the caller's own file: exit 0" || bad "unprivileged helper: exit $x"
printf 'nope' | as_user "$tmp/chkpwd-plain" "$u" nonull "$tmp/shadow-own" >/dev/null 2>&1
x=$?
[ "$x" = 1 ] && ok "unprivileged helper, wrong password: exit 1" || bad "unprivileged helper, wrong: exit $x"
printf '%s' "$pw" | as_user "$tmp/chkpwd-plain" bob nonull "$tmp/shadow-own" >/dev/null 2>&1
x=$?
[ "$x" = 1 ] && ok "unprivileged helper, another user's name: exit 1" || bad "unprivileged helper, bob: exit $x"

[ "$fails" = 0 ] || exit 1
exit 0
