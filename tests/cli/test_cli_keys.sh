#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_cli_keys.sh - keyed hashes through kdfhash(1): keys new, list,
# export and retire; hash and verify under a policy with pepper = ID and
# the keys of --keys DIR, checked by the reference implementation (libargon2 with
# the secret set, through argon2-cffi) and refused by it without the key;
# needs-rehash's "pepper"; audit's count per key with the key's state, and
# its "heavy"; the failures a missing, unsafe or broken key file and a bad
# policy give; check-conf and keys list saying which key cannot be used
# (the pepper, the keys shadow and history entries name) and exiting 1;
# retire refusing while the history (opasswd) holds entries keyed with the
# key, and --drop-history dropping just those; the warning of keys new on a
# TCP simulator's TCTI.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
K="$top_builddir/cli/kdfhash"
# TPM keys through the built child, as the installed CLI uses kdfhash-tpm's.
export KDFHASH_TPM_HELPER="$top_builddir/pam_module/kdfhash-tpm-hmac"
PY=/usr/bin/python3
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
$PY -c 'import argon2.low_level' 2>/dev/null ||
    { echo "FAIL: /usr/bin/python3 lacks argon2-cffi (apt-get install python3-argon2)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_keys.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
good() { pass=$((pass + 1)); }
check() { if eval "$2"; then good; else bad "$1"; fi; }

D=$tmp/keys.d
# ---- keys new, list, export -----------------------------------------------
a=$("$K" keys --dir "$D" new) || bad "keys new: exit $?"
b=$("$K" keys --dir "$D" new) || bad "keys new (2): exit $?"
check "new prints an 8-character ID: '$a'" '[[ $a =~ ^[A-Za-z0-9]{8}$ ]]'
check "two keys, two IDs" '[ "$a" != "$b" ]'
check "key dir 0750" '[ "$(stat -c %a "$D")" = 750 ]'
check "key file 0640" '[ "$(stat -c %a "$D/$a")" = 640 ]'
check "key file format" 'grep -qxE "kdfhash-key-v1 [0-9a-f]{64}" "$D/$a"'
check "no temporary file left" '[ "$(ls -A "$D" | wc -l)" = 2 ]'
: >"$tmp/empty.shadow"
: >"$tmp/empty.conf"
out=$("$K" keys --dir "$D" --conf "$tmp/empty.conf" --shadow "$tmp/empty.shadow" \
    --history "$tmp/no-history" list)
rc=$?
check "list: '$out'" '[ $rc = 0 ] && [ "$(printf "%s\n" "$out" | grep -c " 256 bits ")" = 2 ] &&
    printf "%s\n" "$out" | grep -qx "$a 256 bits [0-9-]* file: 0 entries, 0 history entries"'
check "export is the file's line" '[ "$("$K" keys --dir "$D" export "$a")" = "$(cat "$D/$a")" ]'
"$K" keys --dir "$D" export 'ab/../x' >/dev/null 2>"$tmp/err"
rc=$?
check "export of a path: exit 2" '[ $rc = 2 ] && grep -q "not a key ID" "$tmp/err"'

# ---- hash and verify with a pepper ---------------------------------------------
conf=$tmp/kdfhash.conf
cat >"$conf" <<EOF
target = argon2id m=256,t=1,p=1
min.argon2 = m=256,t=1,p=1
pepper = $a
EOF
chmod 644 "$conf"
h=$(printf 'correct horse' | "$K" hash --keys "$D" --conf "$conf") || bad "hash with pepper: exit $?"
check "keyed hash: '$h'" '[[ $h == "\$argon2id\$v=19\$m=256,t=1,p=1,keyid=$a\$"* ]]'
check "verify ok" '[ "$(printf "correct horse" | "$K" verify --keys "$D" --conf "$conf" "$h")" = ok ]'
printf 'correct horsE' | "$K" verify --keys "$D" --conf "$conf" "$h" >/dev/null
rc=$?
check "verify wrong: exit 1" '[ $rc = 1 ]'
# The reference implementation, given the key, agrees; without it, not.
ref() {
    $PY - "$1" "$2" "$3" <<'EOF'
import base64, sys
import argon2.low_level as a2
h, keyfile, pw = sys.argv[1], sys.argv[2], sys.argv[3].encode()
def d(s):
    return base64.b64decode(s + "=" * (-len(s) % 4))
parts = h.split("$")
params = dict(kv.split("=") for kv in parts[3].split(","))
salt, tag = d(parts[4]), d(parts[5])
key = bytes.fromhex(open(keyfile).read().split()[1]) if keyfile != "-" else b""
ffi = a2.ffi
out = ffi.new("uint8_t[]", len(tag))
bufs = [ffi.new("uint8_t[]", b) if b else ffi.NULL for b in (pw, salt, key)]
ctx = ffi.new("argon2_context *", dict(
    out=out, outlen=len(tag), pwd=bufs[0], pwdlen=len(pw), salt=bufs[1], saltlen=len(salt),
    secret=bufs[2], secretlen=len(key), ad=ffi.NULL, adlen=0, t_cost=int(params["t"]),
    m_cost=int(params["m"]), lanes=int(params["p"]), threads=1, version=0x13,
    allocate_cbk=ffi.NULL, free_cbk=ffi.NULL, flags=0))
assert a2.core(ctx, a2.Type.ID.value) == 0
print("match" if bytes(ffi.buffer(out, len(tag))) == tag else "differs")
EOF
}
check "libargon2 with the key matches" '[ "$(ref "$h" "$D/$a" "correct horse")" = match ]'
check "libargon2 without it differs (the stolen file)" \
    '[ "$(ref "$h" - "correct horse")" = differs ]'

# ---- a key that is not at hand ---------------------------------------------------
printf 'correct horse' | "$K" verify --keys "$tmp/none" --conf "$conf" "$h" >/dev/null 2>"$tmp/err"
rc=$?
check "missing key dir: exit 2, names it ($(cat "$tmp/err"))" \
    '[ $rc = 2 ] && grep -qF "key $a: $tmp/none: missing" "$tmp/err"'
chmod 644 "$D/$a"
printf 'correct horse' | "$K" verify --keys "$D" --conf "$conf" "$h" >/dev/null 2>"$tmp/err"
rc=$?
check "key readable by others: refused ($(cat "$tmp/err"))" \
    '[ $rc = 2 ] && grep -q "readable by others" "$tmp/err"'
chmod 640 "$D/$a"
cp "$D/$a" "$tmp/saved"
printf 'kdfhash-key-v1 00\n' >"$D/$a"
printf 'correct horse' | "$K" verify --keys "$D" --conf "$conf" "$h" >/dev/null 2>"$tmp/err"
rc=$?
check "broken key file: refused" '[ $rc = 2 ] && grep -q "not a key file" "$tmp/err"'
cp "$tmp/saved" "$D/$a"
pepper_missing=$tmp/pm.conf
sed "s/^pepper = .*/pepper = AAAAAAAA/" "$conf" >"$pepper_missing"
printf 'x' | "$K" hash --keys "$D" --conf "$pepper_missing" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "hash with a missing pepper: exit 2, nothing printed" \
    '[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "AAAAAAAA: missing" "$tmp/err"'

# ---- the policy --------------------------------------------------------------------
printf 'target = bcrypt cost=10\npepper = %s\n' "$a" >"$tmp/b.conf"
"$K" check-conf "$tmp/b.conf" >/dev/null 2>"$tmp/err"
rc=$?
check "pepper with bcrypt: refused at line 2" \
    '[ $rc = 1 ] && grep -q ":2: target: pepper is set, and this target cannot take a key" "$tmp/err"'
for v in 'ab/c' '../k' 'A' 'AAAAAAAAAAAA'; do
    printf 'pepper = %s\n' "$v" >"$tmp/p.conf"
    "$K" check-conf "$tmp/p.conf" >/dev/null 2>&1
    rc=$?
    check "pepper = $v refused" '[ $rc = 1 ]'
done
check "check-conf --keys lists pepper" '"$K" check-conf --keys | grep -qx pepper'

# ---- needs-rehash and audit ------------------------------------------------------
plain=$(printf 'pw' | "$K" hash --scheme argon2id --param m=256 --param t=1 --param p=1)
out=$("$K" needs-rehash --conf "$conf" "$plain")
rc=$?
check "unkeyed: rehash pepper ('$out')" '[ $rc = 1 ] && [ "$out" = "rehash: pepper" ]'
out=$("$K" needs-rehash --conf "$conf" "$h")
rc=$?
check "keyed with the pepper: ok ('$out')" '[ $rc = 0 ]'
sed "s/^pepper = .*/pepper = $b/" "$conf" >"$tmp/b2.conf"
hb=$(printf 'pw' | "$K" hash --keys "$D" --conf "$tmp/b2.conf")
shadow=$tmp/shadow
printf 'root:!:19000::::::\nu1:%s:19000::::::\nu2:%s:19000::::::\nu3:%s:19000::::::\nu4:%s:19000::::::\n' \
    "$h" "$h" "$hb" "$plain" >"$shadow"
out=$("$K" audit --keys "$D" --conf "$conf" "$shadow")
check "audit counts per key, with its state" 'printf "%s\n" "$out" | grep -qx "keyed with $a (file): 2" &&
    printf "%s\n" "$out" | grep -qx "keyed with $b (file): 1" &&
    printf "%s\n" "$out" | grep -qx "unkeyed: 1" &&
    printf "%s\n" "$out" | grep -qx "keyed with a key that cannot be used: 0"'
check "audit: two outdated by pepper" 'printf "%s\n" "$out" | grep -qx "rehash:pepper: 2"'
check "audit shows the keyid of an entry" 'printf "%s\n" "$out" | grep -q "^u1 argon2id .*keyid=$a "'
$PY -c 'import json, sys; j = json.load(sys.stdin); k = j["summary"]["keys"]
assert k["'"$a"'"] == 2 and k["'"$b"'"] == 1 and k["none"] == 1, k
s = j["summary"]; assert s["unkeyed"] == 1 and s["key_unusable"] == 0, s
assert s["key_states"] == {"'"$a"'": "file", "'"$b"'": "file"}, s' \
    < <("$K" audit --keys "$D" --json --conf "$conf" "$shadow") && good || bad "audit --json keys"
# A key that is gone: its entries are named with the state, and flagged.
mv "$D/$b" "$tmp/b.saved"
out=$("$K" audit --keys "$D" --conf "$conf" "$shadow")
rc=$?
check "audit: a missing key's entries ('$out')" '[ $rc = 1 ] &&
    printf "%s\n" "$out" | grep -qx "keyed with $b (missing): 1" &&
    printf "%s\n" "$out" | grep -qx "keyed with a key that cannot be used: 1"'
$PY -c 'import json, sys; s = json.load(sys.stdin)["summary"]
assert s["key_states"]["'"$b"'"] == "missing" and s["key_unusable"] == 1, s' \
    < <("$K" audit --keys "$D" --json --conf "$conf" "$shadow") && good || bad "audit --json: missing key"
# Only the missing key makes the exit status: entries all ok but for it.
printf 'u3:%s:19000::::::\n' "$hb" >"$tmp/only-b.shadow"
"$K" audit --keys "$D" --conf "$tmp/b2.conf" "$tmp/only-b.shadow" >/dev/null
rc=$?
check "audit: an entry ok but for its missing key: exit 1" '[ $rc = 1 ]'
mv "$tmp/b.saved" "$D/$b"
"$K" audit --keys "$D" --conf "$tmp/b2.conf" "$tmp/only-b.shadow" >/dev/null
rc=$?
check "audit: the same entry with its key: exit 0" '[ $rc = 0 ]'
# An entry of the target's scheme far above its work: "heavy".
big=$(printf 'pw' | "$K" hash --scheme argon2id --param m=8192 --param t=2 --param p=1)
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\n' >"$tmp/heavy.conf"
printf 'big:%s:19000::::::\n' "$big" >"$tmp/heavy.shadow"
out=$("$K" audit --conf "$tmp/heavy.conf" "$tmp/heavy.shadow")
check "audit: heavy entry ('$out')" 'printf "%s\n" "$out" | grep -q "^big argon2id .* rehash:heavy$" &&
    printf "%s\n" "$out" | grep -qx "rehash:heavy: 1"'
$PY -c 'import json, sys; j = json.load(sys.stdin)
assert j["accounts"][0]["reason"] == "heavy" and j["summary"]["rehash"]["heavy"] == 1, j' \
    < <("$K" audit --json --conf "$tmp/heavy.conf" "$tmp/heavy.shadow") && good || bad "audit --json heavy"

# ---- check-conf and keys list: a key that cannot be used -----------------------
out=$("$K" check-conf --keys "$D" "$conf" 2>"$tmp/err")
rc=$?
check "check-conf: the pepper's key is there ('$out')" '[ $rc = 0 ] && [[ $out == *"pepper = $a (file)" ]]'
"$K" check-conf --keys "$tmp/none" "$conf" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "check-conf: the pepper's key dir is missing: exit 1 ($(cat "$tmp/err"))" \
    '[ $rc = 1 ] && [ ! -s "$tmp/out" ] && grep -qF "pepper = $a: key $a cannot be used (missing): $tmp/none: missing" "$tmp/err" &&
    grep -q "install -m 0640 -o root -g shadow" "$tmp/err" && grep -q "pepper = none" "$tmp/err"'
chmod 644 "$D/$a"
"$K" check-conf --keys "$D" "$conf" >/dev/null 2>"$tmp/err"
rc=$?
check "check-conf: the pepper's key readable by others: exit 1 ($(cat "$tmp/err"))" \
    '[ $rc = 1 ] && grep -qF "key $a cannot be used (refused): $D/$a: readable by others" "$tmp/err"'
chmod 640 "$D/$a"
printf 'kdfhash-key-v1 00\n' >"$D/$a"
"$K" check-conf --keys "$D" "$conf" >/dev/null 2>"$tmp/err"
rc=$?
check "check-conf: the pepper's key is not a key file: exit 1" '[ $rc = 1 ] && grep -q "not a key file" "$tmp/err"'
cp "$tmp/saved" "$D/$a"
"$K" check-conf --keys "$D" "$pepper_missing" >/dev/null 2>"$tmp/err"
rc=$?
check "check-conf: a pepper without its file: exit 1" \
    '[ $rc = 1 ] && grep -qF "key AAAAAAAA cannot be used (missing): $D/AAAAAAAA: missing" "$tmp/err"'
# A TPM key whose TPM does not answer (nothing listens on port 1; a build
# without TPM support has no way to it either): refused, with the TPM's word.
printf 'kdfhash-tpm-v1 0x81006b00 swtpm:host=127.0.0.1,port=1\n' >"$D/TPMkey01"
chmod 640 "$D/TPMkey01"
sed "s/^pepper = .*/pepper = TPMkey01/" "$conf" >"$tmp/tpm.conf"
"$K" check-conf --keys "$D" "$tmp/tpm.conf" >/dev/null 2>"$tmp/err"
rc=$?
check "check-conf: the pepper's TPM does not answer: exit 1 ($(cat "$tmp/err"))" \
    '[ $rc = 1 ] && grep -qF "key TPMkey01 cannot be used (refused): $D/TPMkey01: TPM swtpm:host=127.0.0.1,port=1: " "$tmp/err"'
rm -f "$D/TPMkey01"
# keys list: the pepper, every key file and every key an entry names.
hist=$tmp/opasswd
ha=$(printf '%s' "$h" | tr , ';')
hz=$(printf '%s' "$h" | sed "s/keyid=$a/keyid=ZZZZZZZZ/" | tr , ';')
printf 'u1:1001:3:$1$abcdefgh$0123456789012345678901,%s,%s\r\nu5:1005:1:%s\nzed:1009:1:$6$s$h' \
    "$ha" "$hz" "$ha" >"$hist"
chmod 600 "$hist"
cp "$hist" "$tmp/opasswd.orig"
out=$("$K" keys --dir "$D" --conf "$conf" --shadow "$shadow" --history "$hist" list 2>"$tmp/err")
rc=$?
check "list: needed key ZZZZZZZZ missing: exit 1 ('$out' $(cat "$tmp/err"))" '[ $rc = 1 ] &&
    printf "%s\n" "$out" | grep -qx "$a 256 bits [0-9-]* file: 2 entries, 2 history entries, the pepper" &&
    printf "%s\n" "$out" | grep -qx "$b 256 bits [0-9-]* file: 1 entry, 0 history entries" &&
    printf "%s\n" "$out" | grep -qx "ZZZZZZZZ missing ($D/ZZZZZZZZ: missing): 0 entries, 1 history entry" &&
    grep -q "0 entries and 1 history entry cannot be verified" "$tmp/err"'
out=$("$K" keys --dir "$D" --conf "$conf" --shadow "$shadow" --history "$tmp/no-history" list 2>"$tmp/err")
rc=$?
check "list: every needed key usable: exit 0 ($(cat "$tmp/err"))" '[ $rc = 0 ]'
out=$("$K" keys --dir "$tmp/none" --conf "$conf" --shadow "$shadow" --history "$tmp/no-history" list 2>"$tmp/err")
rc=$?
check "list: no key directory: says so, exit 1 ('$out')" '[ $rc = 1 ] &&
    printf "%s\n" "$out" | grep -qx "# $tmp/none: missing: no key files" &&
    printf "%s\n" "$out" | grep -q "^$a missing .*: 2 entries, 0 history entries, the pepper$" &&
    grep -q "3 entries and 0 history entries cannot be verified" "$tmp/err" &&
    grep -q "the pepper, key $a, cannot be used" "$tmp/err"'
"$K" keys --dir "$D" --conf "$conf" --shadow "$tmp/nosuch" --history "$hist" list >/dev/null 2>&1
rc=$?
check "list: an unreadable shadow file: exit 2" '[ $rc = 2 ]'

# ---- retire ------------------------------------------------------------------------
out=$("$K" keys --dir "$D" --shadow "$shadow" retire "$a" 2>"$tmp/err")
rc=$?
check "retire a key in use: exit 1, says who ('$out')" \
    '[ $rc = 1 ] && [ "$out" = "still keyed with it: u1 u2 ($shadow)" ] && [ -f "$D/$a" ]'
check "retire names the count" 'grep -q "2 entries are still keyed with it" "$tmp/err"'
# The history: entries keyed with the key keep it (their reuse check needs
# it); --drop-history drops those entries, and only those.
: >"$tmp/nobody.shadow"
out=$("$K" keys --dir "$D" --shadow "$tmp/nobody.shadow" --history "$hist" retire "$a" 2>"$tmp/err")
rc=$?
check "retire a key the history uses: exit 1, says whose ('$out')" \
    '[ $rc = 1 ] && [ "$out" = "still keyed with it in the history: u1 u5 ($hist)" ] && [ -f "$D/$a" ] &&
    grep -q "2 history entries are still keyed with it; --drop-history drops them" "$tmp/err" &&
    cmp -s "$hist" "$tmp/opasswd.orig"'
out=$("$K" keys --dir "$D" --shadow "$tmp/nobody.shadow" --history "$hist" --drop-history retire "$a")
rc=$?
# u1 keeps its other entries (its count follows, its CRLF stays), u5's line
# goes, zed's line (no final newline) is copied as it is.
printf 'u1:1001:2:$1$abcdefgh$0123456789012345678901,%s\r\nzed:1009:1:$6$s$h' "$hz" >"$tmp/want"
check "retire --drop-history: drops u1's and u5's entries keyed with it ('$out')" \
    '[ $rc = 0 ] && [ ! -e "$D/$a" ] && [ -f "$D/$a.retired" ] &&
    cmp -s "$hist" "$tmp/want" && [ "$(stat -c %a "$hist")" = 600 ] &&
    printf "%s\n" "$out" | grep -qx "dropped 2 history entries keyed with $a ($hist)" &&
    [ ! -e "$tmp/nobody.shadow.lock" ] && [ "$(ls -A "$tmp" | grep -c kdfhash-)" = 0 ]'
mv "$D/$a.retired" "$D/$a"
c=$("$K" keys --dir "$D" new)
out=$("$K" keys --dir "$D" --shadow "$shadow" --history "$hist" retire "$c")
rc=$?
check "retire an unused key ('$out')" '[ $rc = 0 ] && [ ! -e "$D/$c" ] && [ -f "$D/$c.retired" ]'
check "a retired key is not listed" '! "$K" keys --dir "$D" list | grep -q "^$c "'
"$K" keys --dir "$D" --shadow "$shadow" --history "$hist" retire "$c" >/dev/null 2>"$tmp/err"
rc=$?
check "retire it again: exit 2" '[ $rc = 2 ] && grep -q "no such key" "$tmp/err"'
"$K" keys --dir "$D" --shadow "$tmp/nosuch" retire "$b" >/dev/null 2>&1
rc=$?
check "retire with an unreadable shadow file: exit 2, key kept" '[ $rc = 2 ] && [ -f "$D/$b" ]'

# ---- a TPM key on a TCP simulator ------------------------------------------------
# The warning comes first, whether the key is then made or not (no simulator
# listens on port 1; a build without TPM support refuses --tpm after it).
"$K" keys --dir "$tmp/tpm.d" --tpm --tcti swtpm:host=127.0.0.1,port=1 new >"$tmp/out" 2>"$tmp/err"
check "keys --tpm new on swtpm: warns ($(cat "$tmp/err"))" \
    'grep -q "warning: TCTI swtpm:host=127.0.0.1,port=1 is a TPM simulator over TCP, for tests" "$tmp/err" &&
    grep -q "fails at the 5 s deadline" "$tmp/err"'
"$K" keys --dir "$tmp/tpm.d" --tpm --tcti device:/dev/null-tpm new >/dev/null 2>"$tmp/err"
check "keys --tpm new on a device: no such warning" '! grep -q "simulator" "$tmp/err"'

# No key byte in any output but export's.
for k in "$a" "$b"; do
    hex=$(cut -d' ' -f2 "$D/$k")
    check "key $k not in the audit" '! printf "%s\n" "$out" | grep -q "$hex"'
done

echo "test_cli_keys.sh: $pass passed, $fail failed"
[ $fail = 0 ]
