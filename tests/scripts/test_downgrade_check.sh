#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_downgrade_check.sh - tools/kdfhash-downgrade-check, which the
# maintainer scripts run before a downgrade, on fixtures (a root directory
# with etc/shadow and the policy files):
#   - keyed entries: listed per key ID with their count and users, with
#     what to do (the pepper line, passwd USER); exit 1;
#   - a changed kdfhash.conf: each key 0.2.0 does not know with its line
#     number, comments and blanks as the parser reads them; exit 1;
#   - kdfhash.conf as shipped (its md5 in dpkg's record): not in the way;
#   - nothing keyed and known keys only: silent, exit 0;
#   - a target of 0.3.0~ or later: not checked, exit 0, even with keyed
#     entries; 0.1.0 is checked;
#   - --ds: /etc/dirsrv/kdfhash.conf, whatever dpkg's record, no shadow;
#   - the prerm blocks of libpam-kdfhash-bin (upgrade and deconfigure in
#     favour of the older module refused, with the list; an upgrade, a
#     removal, other deconfigures and KDFHASH_ALLOW_DOWNGRADE=yes go on)
#     and of 389-ds-kdfhash (refused over /etc/dirsrv/kdfhash.conf);
#   - an unreadable shadow file or a missing key list: exit 2;
#   - the key list is the one scripts/gen-keys-0.2.0.sh makes from 0.2.0's
#     source (where the git history is there to read it from).
set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
DC=$top_srcdir/tools/kdfhash-downgrade-check
# Debian's packaging: the check compares versions as dpkg does.
if ! command -v dpkg > /dev/null; then
    echo "SKIP: no dpkg here (the check is for Debian's maintainer scripts)"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

KDFHASH_DOWNGRADE_KEYS=$top_srcdir/tools/kdfhash-keys-0.2.0
KDFHASH_DOWNGRADE_ROOT=$tmp/root
KDFHASH_DOWNGRADE_CONFFILES=$tmp/conffiles
export KDFHASH_DOWNGRADE_KEYS KDFHASH_DOWNGRADE_ROOT KDFHASH_DOWNGRADE_CONFFILES
r=$tmp/root
mkdir -p "$r/etc/security" "$r/etc/dirsrv"
# shellcheck disable=SC2016 # literal hash strings
a2='$argon2id$v=19$m=65536,t=3,p=4'
# shellcheck disable=SC2016
tail='$c2FsdHNhbHRzYWx0$dGFndGFndGFndGFndGFndGFndGFndGFndGFn'
cat > "$r/etc/shadow" <<EOF
root:\$y\$j9T\$abc\$def:19000:0:99999:7:::
alice:$a2,keyid=Key1$tail:19000:0:99999:7:::
bob:$a2$tail:19000:0:99999:7:::
carol:$a2,keyid=Key1$tail:19000:0:99999:7:::
dave:$a2,keyid=Key2,data=ZGF0YQ$tail:19000:0:99999:7:::
EOF
cat > "$r/etc/security/kdfhash.conf" <<'EOF'
# a comment: pepper = x
target = argon2id m=65536,t=3,p=4,salt=16,len=32

  heavy=4
min.bcrypt = 12 # trailing comment
pepper = Key1
EOF
: > "$tmp/conffiles"

run() { # run ARGS...: output in $tmp/out, status in $rc
    rc=0
    sh "$DC" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
}
has() { grep -qF -- "$1" "$tmp/out"; }

run 0.2.0
if [ $rc -eq 1 ] && has "  Key1 2 alice,carol" && has "  Key2 1 dave" && ! has bob &&
    has 'passwd USER' && has '"pepper" line'; then
    ok "keyed entries: per key ID, count and users, and what to do (exit 1)"
else bad "keyed entries: rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
if has "kdfhash.conf:4: heavy" && has "kdfhash.conf:6: pepper" && ! has ": target" &&
    ! has ": min.bcrypt" && ! has ":1:" && has "remove these lines"; then
    ok "unknown keys of a changed kdfhash.conf: names and line numbers"
else bad "unknown keys: $(cat "$tmp/out")"; fi

run 0.1.0
if [ $rc -eq 1 ] && has "Key1 2"; then ok "0.1.0 is checked too"; else bad "0.1.0: rc=$rc"; fi

for v in 0.3.0 0.3.0-1 0.3.0~rc1 1.0; do
    run "$v"
    if [ $rc -eq 0 ] && [ ! -s "$tmp/out" ]; then ok "$v: not older, not checked"; else
        bad "$v: rc=$rc $(cat "$tmp/out")"
    fi
done

# kdfhash.conf as shipped: dpkg replaces it, so it is not in the way.
echo "/etc/security/kdfhash.conf $(md5sum < "$r/etc/security/kdfhash.conf" | cut -d' ' -f1)" \
    > "$tmp/conffiles"
run 0.2.0
if [ $rc -eq 1 ] && has "Key1 2" && ! has "heavy"; then
    ok "an unchanged kdfhash.conf is not listed"
else bad "unchanged conf: rc=$rc $(cat "$tmp/out")"; fi

# Nothing keyed, known keys only.
grep -v keyid "$r/etc/shadow" > "$tmp/s" && cat "$tmp/s" > "$r/etc/shadow"
printf 'target = bcrypt cost=12\nmigrate = no\n' > "$r/etc/security/kdfhash.conf"
run 0.2.0
if [ $rc -eq 0 ] && [ ! -s "$tmp/out" ]; then ok "nothing in the way: silent, exit 0"; else
    bad "nothing in the way: rc=$rc $(cat "$tmp/out")"
fi

# --ds: the directory server's policy, whatever dpkg's record says.
printf 'target = argon2id m=19456,t=2,p=1\noffline.max-age = 30\n' > "$r/etc/dirsrv/kdfhash.conf"
echo "/etc/dirsrv/kdfhash.conf $(md5sum < "$r/etc/dirsrv/kdfhash.conf" | cut -d' ' -f1)" \
    >> "$tmp/conffiles"
run --ds 0.2.0
if [ $rc -eq 1 ] && has "dirsrv/kdfhash.conf:2: offline.max-age" && ! has "security/"; then
    ok "--ds: /etc/dirsrv/kdfhash.conf's unknown keys"
else bad "--ds: rc=$rc $(cat "$tmp/out")"; fi
rm "$r/etc/dirsrv/kdfhash.conf"
run --ds 0.2.0
if [ $rc -eq 0 ]; then ok "--ds: no policy file, nothing in the way"; else bad "--ds without a file: rc=$rc"; fi

# The maintainer scripts' blocks, with the check from the tree.
mkdir -p "$tmp/share"
ln -s "$DC" "$tmp/share/downgrade-check"
prerm() { # prerm PACKAGE ARGS...: status in $rc, stderr in $tmp/err
    p=$1
    shift
    rc=0
    KDFHASH_BIN_SHARE=$tmp/share KDFHASH_DS_SHARE=$tmp/share \
        sh "$top_srcdir/packaging/debian/$p.prerm" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
}
printf 'offline.max-age = 30\n' > "$r/etc/dirsrv/kdfhash.conf"
printf 'bob:%s,keyid=Key3%s:19000:0:99999:7:::\n' "$a2" "$tail" >> "$r/etc/shadow"
prerm libpam-kdfhash-bin upgrade 0.2.0
if [ $rc -eq 1 ] && grep -q 'not downgraded to 0.2.0' "$tmp/err" && grep -q 'Key3 1 bob' "$tmp/err" &&
    grep -q 'KDFHASH_ALLOW_DOWNGRADE=yes' "$tmp/err"; then
    ok "libpam-kdfhash-bin prerm upgrade 0.2.0: refused, with the list"
else bad "bin prerm upgrade 0.2.0: rc=$rc $(cat "$tmp/err")"; fi
prerm libpam-kdfhash-bin deconfigure in-favour libpam-kdfhash:amd64 0.2.0
if [ $rc -eq 1 ]; then ok "prerm deconfigure in-favour libpam-kdfhash:amd64 0.2.0: refused"; else
    bad "bin prerm deconfigure in-favour the older module: rc=$rc"
fi
for args in "deconfigure in-favour kdfhash 0.2.0" "upgrade 0.3.1" "remove" "failed-upgrade 0.2.0"; do
    # shellcheck disable=SC2086
    prerm libpam-kdfhash-bin $args
    if [ $rc -eq 0 ]; then ok "libpam-kdfhash-bin prerm $args: goes on"; else
        bad "bin prerm $args: rc=$rc $(cat "$tmp/err")"
    fi
done
KDFHASH_ALLOW_DOWNGRADE=yes prerm libpam-kdfhash-bin upgrade 0.2.0
if [ $rc -eq 0 ]; then ok "KDFHASH_ALLOW_DOWNGRADE=yes: the downgrade goes on"; else
    bad "KDFHASH_ALLOW_DOWNGRADE=yes: rc=$rc"
fi
prerm 389-ds-kdfhash upgrade 0.2.0
if [ $rc -eq 1 ] && grep -q '389-ds-kdfhash: not downgraded' "$tmp/err" &&
    grep -q 'kdfhash.conf:1: offline.max-age' "$tmp/err"; then
    ok "389-ds-kdfhash prerm upgrade 0.2.0: refused over /etc/dirsrv/kdfhash.conf"
else bad "389-ds prerm upgrade 0.2.0: rc=$rc $(cat "$tmp/err")"; fi
rm "$r/etc/dirsrv/kdfhash.conf"
prerm 389-ds-kdfhash upgrade 0.2.0
if [ $rc -eq 0 ]; then ok "389-ds-kdfhash prerm upgrade 0.2.0 with known keys only: goes on"; else
    bad "389-ds prerm upgrade, nothing in the way: rc=$rc $(cat "$tmp/err")"
fi

# Errors.
run
if [ $rc -eq 2 ]; then ok "no VERSION: exit 2"; else bad "no VERSION: rc=$rc"; fi
mv "$r/etc/shadow" "$r/etc/shadow.gone"
run 0.2.0
if [ $rc -eq 2 ] && grep -q 'cannot read' "$tmp/err"; then ok "no shadow file: exit 2"; else
    bad "no shadow file: rc=$rc"
fi
mv "$r/etc/shadow.gone" "$r/etc/shadow"
KDFHASH_DOWNGRADE_KEYS=$tmp/none run 0.2.0
if [ $rc -eq 2 ]; then ok "no key list: exit 2"; else bad "no key list: rc=$rc"; fi

# The committed list is what the generator makes from 0.2.0's source.
if git -C "$top_srcdir" cat-file -e ed524c445f77dfd64d247e37074dd842c3c1538b 2> /dev/null; then
    if sh "$top_srcdir/scripts/gen-keys-0.2.0.sh" "$tmp/keys" &&
        cmp -s "$tmp/keys" "$top_srcdir/tools/kdfhash-keys-0.2.0"; then
        ok "tools/kdfhash-keys-0.2.0 is what gen-keys-0.2.0.sh makes"
    else bad "tools/kdfhash-keys-0.2.0 differs from gen-keys-0.2.0.sh's output"; fi
else
    echo "note: no git history of 0.2.0 here (a tarball): the key list is not regenerated"
fi
if grep -qx 'max.memory-wait' "$top_srcdir/tools/kdfhash-keys-0.2.0" &&
    ! grep -qx 'pepper' "$top_srcdir/tools/kdfhash-keys-0.2.0"; then
    ok "the key list has 0.2.0's last key and not pepper"
else bad "the key list is not 0.2.0's"; fi

[ $fail -eq 0 ] || exit 1
