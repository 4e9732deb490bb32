#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_cli_blocklist.sh - the compromised-password list through kdfhash(1):
# build from a plain list and from Pwned Passwords lines (either case of
# hex, CRLF line ends), the file's bytes against a reading in Python (the
# header, the checksum, the sorted table of every distinct password's
# truncated SHA-1), check on a listed and an unlisted password (exit 1 and
# 0, the password never printed), duplicates within a file, across files
# and across sorted chunks, an empty list; mixed and malformed sources
# refused with FILE:LINE and the old file left as it was; a flipped byte, a
# truncated file, a wrong magic and a bad header refused at open (exit 2).
set -u

top_builddir=${top_builddir:-.}
K="$top_builddir/cli/kdfhash"
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_blocklist.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
good() { pass=$((pass + 1)); }
check() { if eval "$2"; then good; else bad "$1"; fi; }

sha1() { printf %s "$1" | sha1sum | cut -c1-40; }
# check FILE PASSWORD: the exit status in $rc, stdout in $out, stderr in $err
lookup() {
    out=$(printf %s "$2" | "$K" blocklist check "$1" 2>"$tmp/err")
    rc=$?
    err=$(cat "$tmp/err")
}

# ---- a plain list and a Pwned Passwords file --------------------------------
printf 'password\r\n123456\nhunter2\n\npassword\nc0rrect horse\n' >"$tmp/plain.txt"
{
    printf '%s:3861493\n' "$(sha1 letmein | tr a-f A-F)"
    printf '%s:7\r\n' "$(sha1 qwerty)"
    printf '%s:1\n' "$(sha1 123456 | tr a-f A-F)"
} >"$tmp/pwned.txt"
B=$tmp/list.blk
out=$("$K" blocklist build -o "$B" "$tmp/plain.txt" "$tmp/pwned.txt" 2>"$tmp/err")
rc=$?
check "build: exit $rc, '$out' $(cat "$tmp/err")" \
    '[ $rc = 0 ] && [ "$out" = "$B: 6 entries (8 read, 2 duplicates dropped)" ]'
check "build leaves no temporary file" '[ "$(ls "$tmp" | grep -c "list.blk")" = 1 ]'
check "mode 0644" '[ "$(stat -c %a "$B")" = 644 ]'
info=$("$K" blocklist info "$B")
check "info: $info" '[ "$info" = "$(printf "entries 6\ndigest_bytes 8\nnormalization none\nbytes 112")" ]'

for pw in password 123456 hunter2 'c0rrect horse' letmein qwerty; do
    lookup "$B" "$pw"
    check "listed: '$pw': exit $rc, '$out'" '[ $rc = 1 ] && [ "$out" = listed ] && [ -z "$err" ]'
done
for pw in Password 'password ' hunter 'c0rrect  horse' ''; do
    lookup "$B" "$pw"
    check "not listed: '$pw': exit $rc, '$out'" '[ $rc = 0 ] && [ "$out" = "not listed" ]'
done
lookup "$B" $'hunter2\n'
check "one trailing newline is not the password's" '[ $rc = 1 ]'
lookup "$B" "$(head -c 1025 /dev/zero | tr '\0' a)"
check "a password over 1024 bytes: exit 2: $err" '[ $rc = 2 ] && [[ $err == *"too long"* ]]'

# The bytes, read independently: header fields, checksum, the sorted table.
python3 - "$B" "$tmp/plain.txt" "$tmp/pwned.txt" <<'PY' >"$tmp/py" 2>&1
import hashlib, struct, sys
b = open(sys.argv[1], "rb").read()
magic, ver, dlen, count, norm = struct.unpack_from("<8sIIQ8s", b, 0)
assert magic == b"KDFHBLK\n" and ver == 1 and dlen == 8, (magic, ver, dlen)
assert norm == b"none\0\0\0\0" and b[52:64] == bytes(12), norm
table = b[64:]
assert len(table) == count * 8, (len(table), count)
want = set()
for line in open(sys.argv[2], "rb").read().split(b"\n"):
    line = line.rstrip(b"\r")
    if line:
        want.add(hashlib.sha1(line).digest()[:8])
for line in open(sys.argv[3], "rb").read().split(b"\n"):
    line = line.rstrip(b"\r")
    if line:
        want.add(bytes.fromhex(line.split(b":")[0].decode())[:8])
entries = [table[i:i + 8] for i in range(0, len(table), 8)]
assert entries == sorted(want), "table is not the sorted distinct digests"
inner = hashlib.sha1(table).digest()
assert b[32:52] == hashlib.sha1(b[:32] + inner).digest(), "checksum"
print("ok")
PY
check "the file as blocklist.h describes it: $(cat "$tmp/py")" '[ "$(cat "$tmp/py")" = ok ]'

# ---- duplicates across sorted chunks: the same file, whatever the chunk ---------
for n in 1 2 3; do
    "$K" blocklist build --chunk $n -o "$tmp/c$n.blk" "$tmp/pwned.txt" "$tmp/plain.txt" \
        >/dev/null 2>&1
    check "--chunk $n: the same bytes" 'cmp -s "$tmp/c$n.blk" "$B"'
done
"$K" blocklist build --chunk 0 -o "$tmp/c0.blk" "$tmp/plain.txt" 2>"$tmp/err"
check "--chunk 0 refused" '[ $? = 2 ] && grep -q -- --chunk "$tmp/err"'

# ---- empty lists ------------------------------------------------------------
: >"$tmp/empty.txt"
printf '\n\r\n\n' >"$tmp/blank.txt"
"$K" blocklist build -o "$tmp/e.blk" "$tmp/empty.txt" "$tmp/blank.txt" >/dev/null 2>&1
check "an empty list builds" '[ $? = 0 ] && [ "$(stat -c %s "$tmp/e.blk")" = 64 ]'
lookup "$tmp/e.blk" password
check "nothing is listed in an empty list" '[ $rc = 0 ] && [ "$out" = "not listed" ]'

# ---- refused sources: FILE:LINE, never the line, the old file kept --------------
cp "$B" "$tmp/keep.blk"
refused() { # NAME CONTENT WANT
    local name=$1 want=$3
    printf "$2" >"$tmp/$name"
    "$K" blocklist build -o "$tmp/keep.blk" "$tmp/$name" >/dev/null 2>"$tmp/err"
    rc=$?
    check "$name refused: exit $rc: $(cat "$tmp/err")" \
        '[ $rc = 2 ] && grep -qF "$tmp/$name:$want" "$tmp/err" && ! grep -q s3cret "$tmp/err"'
    check "$name: the old file kept, no temporary left" \
        'cmp -s "$B" "$tmp/keep.blk" && [ "$(ls "$tmp" | grep -c "^keep.blk")" = 1 ]'
}
h=$(sha1 letmein)
refused mixed1.txt "s3cret\nother\n$h:5\n" "3: a Pwned Passwords line"
refused mixed2.txt "$h:5\n\ns3cret\n" "3: not a Pwned Passwords line"
refused badhex.txt "$h:5\n${h%?}g:5\n" "2: not a Pwned Passwords line"
refused nocount.txt "$h:5\n$h:\n" "2: not a Pwned Passwords line"
refused nul.txt "s3cret\nab\0cd\n" "2: a NUL byte"
refused long.txt "s3cret\n$(head -c 1025 /dev/zero | tr '\0' x)\n" "2: a password longer"
"$K" blocklist build -o "$tmp/keep.blk" "$tmp/nonexistent" 2>"$tmp/err"
check "a missing source: exit 2" '[ $? = 2 ] && grep -q "nonexistent" "$tmp/err"'

# ---- corrupt files refused at open --------------------------------------------
corrupt() { # NAME WANT (the file in $tmp/NAME)
    local want=$2
    lookup "$tmp/$1" password
    check "$1 refused: exit $rc: $err" '[ $rc = 2 ] && [[ $err == *"$want"* ]] && [ -z "$out" ]'
}
flip() { # FILE OFFSET
    python3 -c 'import sys; p, o = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, "rb").read())
b[o] ^= 1; open(p, "wb").write(b)' "$1" "$2"
}
cp "$B" "$tmp/flip-table.blk" && flip "$tmp/flip-table.blk" 100
corrupt flip-table.blk "corrupt (checksum mismatch)"
cp "$B" "$tmp/flip-sum.blk" && flip "$tmp/flip-sum.blk" 40
corrupt flip-sum.blk "corrupt (checksum mismatch)"
cp "$B" "$tmp/flip-norm.blk" && flip "$tmp/flip-norm.blk" 24
corrupt flip-norm.blk "corrupt (unknown normalization)"
cp "$B" "$tmp/flip-count.blk" && flip "$tmp/flip-count.blk" 16
corrupt flip-count.blk "truncated"
cp "$B" "$tmp/flip-magic.blk" && flip "$tmp/flip-magic.blk" 0
corrupt flip-magic.blk "not a blocklist file (wrong magic)"
cp "$B" "$tmp/flip-ver.blk" && flip "$tmp/flip-ver.blk" 8
corrupt flip-ver.blk "unsupported version"
head -c 100 "$B" >"$tmp/trunc.blk"
corrupt trunc.blk "truncated (fewer entries than the header says)"
head -c 40 "$B" >"$tmp/short.blk"
corrupt short.blk "truncated (no header)"
{ cat "$B"; printf 'x'; } >"$tmp/long.blk"
corrupt long.blk "corrupt (bytes after the table)"
cp "$tmp/plain.txt" "$tmp/text.blk"
corrupt text.blk "truncated (no header)"
corrupt missing.blk "No such file"

echo "pass: $pass, fail: $fail"
[ "$fail" = 0 ]
