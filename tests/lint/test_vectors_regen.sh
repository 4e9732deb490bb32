#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The committed vectors under tests/vectors/ must be exactly what
# tests/vectors/gen-vectors.py produces: re-run it into a temporary directory and
# compare every file byte for byte (the generator also re-checks each row
# against a second oracle, so this proves the data as well as the script).
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
py=/usr/bin/python3
if ! [ -x "$py" ]; then
    echo "SKIP: $py not found (Debian package python3)"
    exit 77
fi
for m in passlib argon2 bcrypt; do
    if ! "$py" -c "import $m" 2>/dev/null; then
        echo "SKIP: $py lacks module $m (Debian packages python3-passlib python3-argon2 python3-bcrypt)"
        exit 77
    fi
done
# webapp.inc's oracles include Django's hashers: without python3-django the
# generator leaves that file alone, and it is not compared.
files="bcrypt.inc argon2.inc argon2_argon2cli.inc argon2_keyed.inc pbkdf2.inc legacy.inc scrypt.inc"
if "$py" -c "import django" 2>/dev/null; then
    files="$files webapp.inc"
else
    echo "note: $py lacks module django (Debian package python3-django): webapp.inc not checked"
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$py" "$srcdir/tests/vectors/gen-vectors.py" --out "$tmp" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    echo "FAIL: tests/vectors/gen-vectors.py failed"
    exit 1
fi
cat "$tmp/log"
rc=0
n=0
for f in $files; do
    n=$((n + 1))
    if ! [ -f "$tmp/$f" ]; then
        echo "FAIL: generator did not write $f"
        rc=1
    elif ! cmp "$srcdir/tests/vectors/$f" "$tmp/$f"; then
        echo "FAIL: tests/vectors/$f differs from a fresh run (make regen-vectors?)"
        rc=1
    fi
done
# Nothing generated that is not committed, nothing committed that is not generated.
for f in "$tmp"/*.inc; do
    b=$(basename "$f")
    [ -f "$srcdir/tests/vectors/$b" ] || { echo "FAIL: $b generated but not committed"; rc=1; }
done
[ $rc -eq 0 ] && echo "PASS: $n vector files reproduce byte for byte"
exit $rc
