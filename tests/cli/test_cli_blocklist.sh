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
# refused with FILE:LINE and the old file left as it was; a flipped byte
# refused by info (the checksum), a truncated file, a wrong magic and a bad
# header refused by the open check does (header and size only, as the PAM
# module opens it), exit 2; plain entries in NFKC and lookups of a
# password's NFKC form and its bytes as typed; the interpolation search at
# the table's edges, with one entry and on a table that is not uniform;
# check-conf on a missing, corrupt, foreign-owned or group-writable list.
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
check "info: $info" '[ "$info" = "$(printf "entries 6\ndigest_bytes 8\nnormalization nfkc\nbytes 112")" ]'

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
import hashlib, struct, sys, unicodedata
def nfkc(b):
    try:
        return unicodedata.normalize("NFKC", b.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        return b
b = open(sys.argv[1], "rb").read()
magic, ver, dlen, count, norm = struct.unpack_from("<8sIIQ8s", b, 0)
assert magic == b"KDFHBLK\n" and ver == 1 and dlen == 8, (magic, ver, dlen)
assert norm == b"nfkc\0\0\0\0" and b[52:64] == bytes(12), norm
table = b[64:]
assert len(table) == count * 8, (len(table), count)
want = set()
for line in open(sys.argv[2], "rb").read().split(b"\n"):
    line = line.rstrip(b"\r")
    if line:
        want.add(hashlib.sha1(nfkc(line)).digest()[:8])
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
corrupt() { # NAME WANT (the file in $tmp/NAME): refused by check's open
    local want=$2
    lookup "$tmp/$1" password
    check "$1 refused: exit $rc: $err" '[ $rc = 2 ] && [[ $err == *"$want"* ]] && [ -z "$out" ]'
}
badsum() { # NAME: check's open reads the header only; info verifies the table
    lookup "$tmp/$1" password
    check "$1: check opens it (header only): exit $rc" '[ $rc = 0 ] || [ $rc = 1 ]'
    out=$("$K" blocklist info "$tmp/$1" 2>"$tmp/err")
    rc=$?
    check "$1 refused by info: exit $rc: $(cat "$tmp/err")" \
        '[ $rc = 2 ] && grep -q "corrupt (checksum mismatch)" "$tmp/err" && [ -z "$out" ]'
}
flip() { # FILE OFFSET
    python3 -c 'import sys; p, o = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, "rb").read())
b[o] ^= 1; open(p, "wb").write(b)' "$1" "$2"
}
cp "$B" "$tmp/flip-table.blk" && flip "$tmp/flip-table.blk" 100
badsum flip-table.blk
cp "$B" "$tmp/flip-sum.blk" && flip "$tmp/flip-sum.blk" 40
badsum flip-sum.blk
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

# ---- NFKC: plain entries in their NFKC form; lookups in both forms ----------
# U+FB03 (the "ffi" ligature) folds onto "ffi"; a full-width "Ｐ" onto "P".
lig=$(printf 'o\xef\xac\x83ce2024')
fw=$(printf '\xef\xbc\xb0assword9')
printf '%s\n' "$lig" >"$tmp/nfkc.txt"
printf '%s:2\n' "$(sha1 "$fw")" >"$tmp/nfkc-pwned.txt"
"$K" blocklist build -o "$tmp/nfkc.blk" "$tmp/nfkc.txt" "$tmp/nfkc-pwned.txt" >/dev/null 2>&1
check "build with NFKC entries" '[ $? = 0 ]'
lookup "$tmp/nfkc.blk" office2024
check "a plain entry is listed in its NFKC form: exit $rc" '[ $rc = 1 ]'
lookup "$tmp/nfkc.blk" "$lig"
check "and as typed (its NFKC form is listed): exit $rc" '[ $rc = 1 ]'
lookup "$tmp/nfkc.blk" "$fw"
check "a Pwned digest of the bytes as typed matches them: exit $rc" '[ $rc = 1 ]'
lookup "$tmp/nfkc.blk" Password9
check "and not their NFKC form, which no one listed: exit $rc" '[ $rc = 0 ]'
lookup "$tmp/nfkc.blk" $'\xff\xfeoffice'
check "bytes that are not UTF-8 are looked up as given: exit $rc $err" '[ $rc = 0 ]'

# ---- the interpolation search at the table's edges --------------------------
# 2000 passwords; the ones with the smallest and largest digest, and
# unlisted ones whose digests fall before the first and after the last.
python3 - "$tmp" <<'PY' >"$tmp/edges" 2>&1
import hashlib, sys
d = sys.argv[1]
pw = ["edge%d" % i for i in range(2000)]
open(d + "/edges.txt", "w").write("\n".join(pw) + "\n")
h = lambda s: hashlib.sha1(s.encode()).digest()[:8]
keys = sorted(h(p) for p in pw)
first = min(pw, key=h)
last = max(pw, key=h)
below = next(p for p in ("x%d" % i for i in range(10**6)) if h(p) < keys[0])
above = next(p for p in ("x%d" % i for i in range(10**6)) if h(p) > keys[-1])
# A table that is not uniform: 5000 digests packed below 2^40, then ours.
with open(d + "/skew.txt", "w") as f:
    for i in range(5000):
        f.write("%016x%024x:1\n" % (i * 7, 0))
    for p in ("skewA", "skewB"):
        f.write(hashlib.sha1(p.encode()).hexdigest() + ":1\n")
print(first, last, below, above)
PY
read -r first last below above <"$tmp/edges"
"$K" blocklist build -o "$tmp/edges.blk" "$tmp/edges.txt" >/dev/null 2>&1
for pw in "$first" "$last" edge0 edge1999; do
    lookup "$tmp/edges.blk" "$pw"
    check "edges: '$pw' listed: exit $rc" '[ $rc = 1 ]'
done
for pw in "$below" "$above" edge2000; do
    lookup "$tmp/edges.blk" "$pw"
    check "edges: '$pw' not listed: exit $rc" '[ $rc = 0 ]'
done
printf 'only\n' >"$tmp/one.txt"
"$K" blocklist build -o "$tmp/one.blk" "$tmp/one.txt" >/dev/null 2>&1
lookup "$tmp/one.blk" only
check "one entry: listed: exit $rc" '[ $rc = 1 ]'
for pw in "$below" "$above" onl; do
    lookup "$tmp/one.blk" "$pw"
    check "one entry: '$pw' not listed: exit $rc" '[ $rc = 0 ]'
done
"$K" blocklist build -o "$tmp/skew.blk" "$tmp/skew.txt" >/dev/null 2>&1
for pw in skewA skewB; do
    lookup "$tmp/skew.blk" "$pw"
    check "a table that is not uniform: '$pw' listed: exit $rc" '[ $rc = 1 ]'
done
lookup "$tmp/skew.blk" skewC
check "a table that is not uniform: skewC not listed: exit $rc" '[ $rc = 0 ]'

# ---- check-conf: the list as the PAM module opens it, and its checksum ------
conf() { # BLOCKLIST-LINE: check-conf's exit in $rc, stderr in $err
    printf 'blocklist = %s\n' "$1" >"$tmp/k.conf"
    chmod 0644 "$tmp/k.conf"
    "$K" check-conf "$tmp/k.conf" >/dev/null 2>"$tmp/err"
    rc=$?
    err=$(cat "$tmp/err")
}
if [ "$(id -u)" = 0 ]; then
    cp "$B" "$tmp/ok.blk"
    conf "$tmp/ok.blk"
    check "check-conf: a good list: exit $rc $err" '[ $rc = 0 ]'
    conf "$tmp/none.blk"
    check "check-conf: a missing list: exit $rc $err" \
        '[ $rc = 1 ] && [[ $err == *"No such file"* ]] && [[ $err == *"changes are allowed"* ]]'
    conf "$tmp/flip-table.blk"
    check "check-conf: a corrupt table: exit $rc $err" \
        '[ $rc = 1 ] && [[ $err == *"checksum mismatch"* ]]'
    cp "$B" "$tmp/gw.blk" && chmod 0664 "$tmp/gw.blk"
    conf "$tmp/gw.blk"
    check "check-conf: a group-writable list: exit $rc $err" \
        '[ $rc = 1 ] && [[ $err == *"writable by group or others"* ]]'
    cp "$B" "$tmp/nobody.blk" && chown 65534 "$tmp/nobody.blk"
    conf "$tmp/nobody.blk"
    check "check-conf: a list owned by another user: exit $rc $err" \
        '[ $rc = 1 ] && [[ $err == *"not owned by root"* ]]'
else
    echo "note: check-conf cases need root (the conf must be root's): not run"
fi

echo "pass: $pass, fail: $fail"
[ "$fail" = 0 ]
