#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_maintscripts.sh - libpam-kdfhash's prerm and postrm and
# libpam-kdfhash-bin's postrm (packaging/debian), run from the source tree
# with a stand-in for pam-auth-update first on PATH and fixtures for the
# key store, /etc/shadow and opasswd:
#   - prerm remove takes the profile out when no other architecture's copy
#     holds the module (none, or one left as config-files, which dpkg's
#     refcount still counts); with one installed or unpacked it runs
#     nothing; an upgrade runs nothing either;
#   - postrm purge: a key store whose key an entry of the shadow file or of
#     opasswd names (",keyid=ID", several hashes on an opasswd line) is
#     kept, stderr naming each key in use with its count and not the unused
#     one; with no entry naming any it is removed; with refcount 2, or on
#     remove, it is left alone; exit 0 every time;
#   - libpam-kdfhash-bin's postrm removes /var/lib/kdfhash on purge.
set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
deb=$top_srcdir/packaging/debian
tmp=$(mktemp -d) || exit 1
case $tmp in /tmp/* | /var/tmp/* | "${TMPDIR:-/tmp}"/*) ;; *) exit 1 ;; esac
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() {
    echo "FAIL: $*"
    fail=$((fail + 1))
}

mkdir -p "$tmp/bin"
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> "%s/pau.args"\n' "$tmp" > "$tmp/bin/pam-auth-update"
chmod +x "$tmp/bin/pam-auth-update"

# prerm ARG STATUS...: dpkg-query (a stand-in) lists this copy, installed,
# and one line per STATUS for another architecture's copy ("-": none);
# pam-auth-update's arguments land in pau.args.  The notice
# (/usr/share/libpam-kdfhash/stranded-notice) may be absent: the prerm's
# "|| true" keeps that from failing it.
prerm() {
    a=$1
    shift
    rm -f "$tmp/pau.args"
    {
        echo '#!/bin/sh'
        echo 'echo "libpam-kdfhash:amd64 installed"'
        for st; do [ "$st" = - ] || echo "echo 'libpam-kdfhash:arm64 $st'"; done
    } > "$tmp/bin/dpkg-query"
    chmod +x "$tmp/bin/dpkg-query"
    env DPKG_MAINTSCRIPT_PACKAGE=libpam-kdfhash DPKG_MAINTSCRIPT_ARCH=amd64 \
        DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT=2 PATH="$tmp/bin:$PATH" \
        sh "$deb/libpam-kdfhash.prerm" "$a" > /dev/null 2>&1
}
pau() { cat "$tmp/pau.args" 2> /dev/null; }
prerm remove -
if [ "$(pau)" = "--package --remove kdfhash" ]; then
    ok "prerm remove, the only copy: pam-auth-update --package --remove kdfhash"
else bad "prerm remove, the only copy: '$(pau)'"; fi
prerm remove config-files
if [ "$(pau)" = "--package --remove kdfhash" ]; then
    ok "prerm remove, the other copy removed (config-files, refcount still 2): the profile taken out"
else bad "prerm remove beside a config-files copy: '$(pau)'"; fi
prerm remove installed
if [ ! -e "$tmp/pau.args" ]; then ok "prerm remove, another architecture's copy installed: the profile stays"; else
    bad "prerm remove beside an installed copy ran pam-auth-update $(pau)"
fi
prerm remove unpacked
if [ ! -e "$tmp/pau.args" ]; then ok "prerm remove, another copy unpacked: the profile stays"; else
    bad "prerm remove beside an unpacked copy ran pam-auth-update $(pau)"
fi
prerm upgrade -
if [ ! -e "$tmp/pau.args" ]; then ok "prerm upgrade: the profile stays"; else
    bad "prerm upgrade ran pam-auth-update $(pau)"
fi

# postrm ARG [VAR=VALUE...]: status in rc, stderr in err.
postrm() {
    a=$1
    shift
    env "$@" KDFHASH_KEYS_DIR="$tmp/keys" KDFHASH_MAINTSCRIPT_SHADOW="$tmp/shadow" \
        KDFHASH_OPASSWD="$tmp/opasswd" sh "$deb/libpam-kdfhash.postrm" "$a" > "$tmp/out" 2> "$tmp/err"
    echo $? > "$tmp/rc"
}
mkdir -p "$tmp/keys"
touch "$tmp/keys/Ab12" "$tmp/keys/Zz9" "$tmp/keys/Un1"
printf 'root:*:19000::::::\nu1:$argon2id$v=19$m=8,t=1,p=1,keyid=Ab12$c2FsdA$aGFzaA:19000::::::\n' > "$tmp/shadow"
printf 'u1:1000:2:$argon2id$v=19$m=8,t=1,p=1,keyid=Ab12$c2FsdA$aGFzaA,$argon2id$v=19$m=8,t=1,p=1,keyid=Zz9,data=eA$c2FsdA$aGFzaA\n' \
    > "$tmp/opasswd"
postrm purge
if [ "$(cat "$tmp/rc")" = 0 ] && [ -f "$tmp/keys/Ab12" ] && grep -qx '  Ab12: 2 entries' "$tmp/err" &&
    grep -qx '  Zz9: 1 entry' "$tmp/err" && ! grep -q Un1 "$tmp/err" && grep -q ' kept: ' "$tmp/err"; then
    ok "purge keeps a key store in use, naming Ab12 (2) and Zz9 (1), not Un1"
else bad "purge with keys in use: rc $(cat "$tmp/rc"), keys '$(ls "$tmp/keys" 2>&1)', said '$(cat "$tmp/err")'"; fi
postrm remove
if [ -f "$tmp/keys/Ab12" ] && [ ! -s "$tmp/err" ]; then ok "remove: the key store left alone, silent"; else
    bad "remove: '$(ls "$tmp/keys" 2>&1)' '$(cat "$tmp/err")'"
fi
: > "$tmp/opasswd"
printf 'root:*:19000::::::\nu1:$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA:19000::::::\n' > "$tmp/shadow"
postrm purge DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT=2
if [ -f "$tmp/keys/Ab12" ]; then ok "purge with refcount 2: the key store left alone"; else
    bad "purge with refcount 2 removed the key store"
fi
postrm purge
if [ "$(cat "$tmp/rc")" = 0 ] && [ ! -e "$tmp/keys" ] && [ ! -s "$tmp/err" ]; then
    ok "purge removes a key store no entry uses, silently"
else bad "purge of an unused store: rc $(cat "$tmp/rc"), '$(ls "$tmp/keys" 2>&1)', said '$(cat "$tmp/err")'"; fi
postrm purge
if [ "$(cat "$tmp/rc")" = 0 ] && [ ! -s "$tmp/err" ]; then ok "purge without a key store: silent, exit 0"; else
    bad "purge without a key store: rc $(cat "$tmp/rc") '$(cat "$tmp/err")'"
fi

# The helper's records: removed on purge, and only then (the real path: no
# variable, so this reads the script rather than running it).
if grep -q '^if \[ "$1" = "purge" \]; then$' "$deb/libpam-kdfhash-bin.postrm" &&
    grep -q '^    rm -rf /var/lib/kdfhash$' "$deb/libpam-kdfhash-bin.postrm"; then
    ok "libpam-kdfhash-bin's postrm removes /var/lib/kdfhash on purge"
else bad "libpam-kdfhash-bin's postrm: no purge of /var/lib/kdfhash"; fi

[ "$fail" = 0 ] || exit 1
exit 0
