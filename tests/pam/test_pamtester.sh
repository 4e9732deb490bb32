#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_pamtester.sh - pam_kdfhash.so in a real PAM application: pamtester
# (Debian package pamtester) against a temporary service
# /etc/pam.d/kdfhash-test-$$ with shadow= pointing at a test file.  Right
# password succeeds, wrong fails, an outdated bcrypt entry is upgraded to the
# target (the file shows the new hash) and the next login succeeds with it.
# Keyed hashes: keys made by kdfhash keys new, pepper = A in the policy
# file moves both entries to A at login, pepper = B rotates them to B, with
# kdfhash audit's counts per key before and after; A is retired once no
# entry uses it, and with B's key file gone the right password is refused.
# Needs root (writes /etc/pam.d; CI runs as root), in a private mount
# namespace with a copy of /etc (tests/common/etc_ns.sh): the machine's own
# /etc/pam.d never holds the service.  In a sanitizer build
# the ASan runtime is preloaded into pamtester (which is not instrumented).
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
module="$top_builddir/pam_module/.libs/pam_kdfhash.so"
inc="$top_srcdir/tests/pam/pam_hashes.inc"
pw='S3cret-p4ss!'

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root to write /etc/pam.d (CI runs as root)"
    exit 77
fi
if ! command -v pamtester >/dev/null 2>&1; then
    echo "FAIL: pamtester not installed (Debian package pamtester)"
    exit 1
fi
if [ ! -f "$module" ]; then
    echo "FAIL: $module not built"
    exit 1
fi
# A sanitizer build: pamtester is not instrumented, so the ASan runtime
# must be loaded first (gcc: the libasan the module needs; clang: its
# shared runtime).  Leak checking is pamtester's business, not ours here
# (test_pam runs the module under LeakSanitizer).
preload=
if nm -D "$module" 2>/dev/null | grep -q ' U __asan_init'; then
    preload=$(ldd "$module" 2>/dev/null | awk '/libasan/ { print $3; exit }')
    if [ -z "$preload" ]; then
        rt=$(${CLANG:-clang} -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
        [ -n "$rt" ] && [ -f "$rt" ] && preload=$rt
    fi
    if [ -z "$preload" ]; then
        echo "SKIP: the module is built with AddressSanitizer and no ASan runtime was found to preload into pamtester"
        exit 77
    fi
    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
    export ASAN_OPTIONS
fi

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_PAMTESTER_NS "$@"

hash_of() { sed -n "s/^PAM_HASH($1, \"\\(.*\\)\")\$/\\1/p" "$inc"; }
bc=$(hash_of bc2b)
a2=$(hash_of a2id_target)
[ -n "$bc" ] && [ -n "$a2" ] || { echo "FAIL: cannot read $inc"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdfpamtester.XXXXXX") || exit 1
svc="kdfhash-test-$$"
trap 'rm -rf "$tmp"; etc_ns_leave' EXIT
trap 'exit 1' INT TERM HUP
: > "$tmp/kdfhash.conf"
printf 'root:*:19000:0:99999:7:::\nalice:%s:19000:0:99999:7:::\nbob:%s:19000:0:99999:7:::\n' \
    "$bc" "$a2" > "$tmp/shadow"
chmod 600 "$tmp/shadow"
cat > "/etc/pam.d/$svc" <<EOS
auth required $module shadow=$tmp/shadow conf=$tmp/kdfhash.conf target=argon2id:m=256,t=1,p=1
account required pam_permit.so
EOS

fails=0
check() { # want user password
    if printf '%s\n' "$3" | LD_PRELOAD=$preload pamtester "$svc" "$2" authenticate \
        >"$tmp/out" 2>&1; then
        got=0
    else
        got=1
    fi
    if [ "$got" = "$1" ]; then
        echo "ok: $2 ($4)"
    else
        echo "FAIL: $2 ($4): pamtester exit $got"
        sed 's/^/    /' "$tmp/out"
        fails=$((fails + 1))
    fi
}

check 0 bob "$pw" "right password, argon2id at target"
check 1 bob "wrong-pass" "wrong password"
check 1 nosuchuser "$pw" "unknown user"
cp "$tmp/shadow" "$tmp/before"
check 0 alice "$pw" "right password, bcrypt, upgraded"
if grep -q '^alice:\$argon2id\$v=19\$m=256,t=1,p=1\$' "$tmp/shadow"; then
    echo "ok: alice's entry is now the target hash"
else
    echo "FAIL: alice's entry was not upgraded:"; grep '^alice:' "$tmp/shadow"
    fails=$((fails + 1))
fi
if [ "$(grep -v '^alice:' "$tmp/shadow")" = "$(grep -v '^alice:' "$tmp/before")" ] &&
   [ "$(grep '^alice:' "$tmp/shadow" | cut -d: -f3-)" = \
     "$(grep '^alice:' "$tmp/before" | cut -d: -f3-)" ]; then
    echo "ok: nothing but alice's field 2 changed"
else
    echo "FAIL: other bytes of the file changed"; fails=$((fails + 1))
fi
check 0 alice "$pw" "next login with the new hash"
check 1 alice "wrong-pass" "wrong password against the new hash"

# ---- keyed hashes, through the real CLI and pamtester ---------------------
K="$top_builddir/cli/kdfhash"
keys=$tmp/keys
expect() { # what got: one check of a value
    if [ "$2" = "$3" ]; then echo "ok: $1"; else
        echo "FAIL: $1: got '$3', want '$2'"; fails=$((fails + 1)); fi
}
count() { # a "# by key" count of kdfhash audit: a key's ID, or "unkeyed"
    "$K" audit --keys "$keys" --conf "$tmp/kdfhash.conf" "$tmp/shadow" |
        sed -n -e "s/^$1: //p" -e "s/^keyed with $1 ([a-z]*): //p"
}
A=$("$K" keys --dir "$keys" new)
B=$("$K" keys --dir "$keys" new)
printf 'pepper = %s\n' "$A" > "$tmp/kdfhash.conf"
sed -i "s|^auth required .*|& keys=$keys|" "/etc/pam.d/$svc"
expect "before: both entries unkeyed" "2" "$(count unkeyed)"
check 0 bob "$pw" "pepper A: bob logs in"
check 0 alice "$pw" "pepper A: alice logs in"
expect "after A: two entries keyed with A" "2" "$(count "$A")"
expect "after A: none unkeyed" "0" "$(count unkeyed)"
check 0 bob "$pw" "bob again, keyed with A"
printf 'pepper = %s\n' "$B" > "$tmp/kdfhash.conf"
check 0 alice "$pw" "pepper B: alice logs in (rotated)"
expect "mid-rotation: one entry per key" "1 1" "$(count "$A") $(count "$B")"
"$K" keys --dir "$keys" --shadow "$tmp/shadow" --history "$tmp/opasswd" retire "$A" >/dev/null 2>&1
expect "retire A refused while bob uses it" "1" "$?"
check 0 bob "$pw" "pepper B: bob logs in (rotated)"
expect "after B: both keyed with B" "2" "$(count "$B")"
"$K" keys --dir "$keys" --shadow "$tmp/shadow" --history "$tmp/opasswd" retire "$A" >/dev/null 2>&1
expect "retire A once unused" "0" "$?"
check 0 bob "$pw" "bob after A is retired"
rm "$keys/$B"
check 1 bob "$pw" "B's key file gone: the right password is refused"

[ "$fails" = 0 ] || exit 1
exit 0
