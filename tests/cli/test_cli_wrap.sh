#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_cli_wrap.sh - `kdfhash wrap` on a temporary shadow file and history:
# md5-crypt, DES, sha512-crypt, cost-5 bcrypt, passlib's pbkdf2-sha256 and
# a locked sha512-crypt entry are wrapped ("$kdfw$", the '!' kept), their
# digests in neither FILE nor FILE-, and each opens with its password and
# no other (kdfhash verify); root (xcrypt-only), an entry at the target, ''
# and '*' are left as they were; the summary counts; a second run wraps
# nothing and rewrites nothing; --dry-run counts per scheme and changes
# nothing; the history's legacy entries are wrapped, or dropped with
# --history drop; a refusal (Django's text salt) counted by its reason, the
# others wrapped, exit 1; under a pepper a legacy entry wrapped keyed, a
# keyed entry skipped; batches the writer refuses (a symlink) said and
# counted, exit 1; --values: one answer per line in order (wrapped, as
# {KDF-WRAPPED} for a directory value, opening with its password and no
# other; keep and refused with their reasons), no input digest in the
# answers, its wraps kept on a rerun, --dry-run naming schemes, each answer
# given before the next line is sent, a keyed wrap under a pepper, the
# options it refuses; usage errors; the bash completion of wrap.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
K="$top_builddir/cli/kdfhash"
PY=/usr/bin/python3
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
command -v mkpasswd >/dev/null ||
    { echo "FAIL: mkpasswd missing (apt-get install whois)"; exit 1; }
$PY -c 'import passlib.hash' 2>/dev/null ||
    { echo "FAIL: $PY lacks passlib (apt-get install python3-passlib)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_wrap.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
good() { pass=$((pass + 1)); }
check() { if eval "$2"; then good; else bad "$1"; fi; }

conf=$tmp/kdfhash.conf
cat >"$conf" <<EOF
target = argon2id m=256,t=1,p=1
min.argon2 = m=256,t=1,p=1
EOF

# user password hash: the accounts to wrap.
h_md5=$(mkpasswd -m md5crypt 'md5 secret')
h_des=$(mkpasswd -m descrypt 'desPass1')
h_sha=$(mkpasswd -m sha512crypt -R 5000 'sha secret')
h_bcr=$(mkpasswd -m bcrypt -R 5 'bcrypt secret')
h_pbk=$($PY -c 'import passlib.hash as h; print(h.pbkdf2_sha256.hash("pbkdf2 secret"))')
h_lck=$(mkpasswd -m sha512crypt 'locked secret')
h_root=$(mkpasswd -m yescrypt 'root secret')
h_arg=$(printf 'argon secret' | "$K" hash --conf "$conf")
check "fixtures made" '[[ $h_md5 == \$1\$* && ${#h_des} = 13 && $h_sha == \$6\$* &&
    $h_bcr == \$2b\$05\$* && $h_pbk == \$pbkdf2-sha256\$* && $h_root == \$y\$* &&
    $h_arg == \$argon2id\$* ]]'

make_files() {
    cat >"$tmp/shadow" <<EOF
root:$h_root:19000:0:99999:7:::
alice:$h_md5:19000:0:99999:7:::
bob:$h_des:19000:0:99999:7:::
carol:$h_sha:19000:0:99999:7:::
dave:$h_bcr:19000:0:99999:7:::
erin:$h_pbk:19000:0:99999:7:::
frank:!!$h_lck:19000:0:99999:7:::
grace:$h_arg:19000:0:99999:7:::
henry::19000:0:99999:7:::
ivan:*:19000:0:99999:7:::
EOF
    # The history keeps a ',' of an Argon2 string as ';'.
    cat >"$tmp/opasswd" <<EOF
alice:1001:2:$h_md5,$h_sha
grace:1007:2:${h_arg//,/;},$h_des
EOF
    chmod 600 "$tmp/shadow" "$tmp/opasswd"
    rm -f "$tmp/shadow-"
}

# The digest of a legacy hash: after its last '$', or DES's last 11.
digest() {
    case $1 in
    \$*) printf '%s\n' "${1##*\$}" ;;
    *) printf '%s\n' "${1:2}" ;;
    esac
}
field() { awk -F: -v u="$1" '$1 == u { print $2 }' "$2"; }
verify() { printf '%s' "$2" | "$K" verify --conf "$conf" "$1" 2>&1; }

# ---- --dry-run ----------------------------------------------------------------
make_files
cp "$tmp/shadow" "$tmp/shadow.orig"
cp "$tmp/opasswd" "$tmp/opasswd.orig"
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow" --opasswd "$tmp/opasswd" --dry-run)
rc=$?
check "dry-run: exit 0 ($rc)" '[ $rc = 0 ]'
check "dry-run: would wrap 6: $out" 'grep -qx "would wrap: 6" <<<"$out"'
check "dry-run: per scheme" 'grep -qx "would wrap sha512crypt: 2" <<<"$out" &&
    grep -qx "would wrap bcrypt: 1" <<<"$out" && grep -qx "would wrap legacy: 2" <<<"$out"'
check "dry-run: history would wrap 3" '[ "$(grep -c "^would wrap: 3$" <<<"$out")" = 1 ]'
check "dry-run: nothing written" 'cmp -s "$tmp/shadow" "$tmp/shadow.orig" &&
    cmp -s "$tmp/opasswd" "$tmp/opasswd.orig" && [ ! -e "$tmp/shadow-" ]'

# ---- the run --------------------------------------------------------------------
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow" --opasswd "$tmp/opasswd" --jobs 2 \
    --batch 2 --quiet 2>"$tmp/err")
rc=$?
check "wrap: exit 0 ($rc; $(cat "$tmp/err"))" '[ $rc = 0 ]'
expect_line() {
    want=$1
    check "summary has '$want'" 'grep -qxF "$want" <<<"$out"'
}
expect_line "wrapped: 6"
expect_line "wrapped locked: 1"
expect_line "skipped empty: 1"
expect_line "skipped locked: 1"
expect_line "skipped xcrypt-only: 1"
expect_line "skipped current: 1"
expect_line "refused: 0"
expect_line "changed meanwhile: 0"
expect_line "wrapped: 3"
for f in shadow shadow- opasswd; do
    for h in "$h_md5" "$h_des" "$h_sha" "$h_bcr" "$h_pbk" "$h_lck"; do
        d=$(digest "$h")
        check "no legacy digest in $f" '! grep -qF -- "$d" "$tmp/$f"'
    done
done
check "shadow- is the new content" 'cmp -s "$tmp/shadow" "$tmp/shadow-"'
for u in alice bob carol dave erin; do
    check "$u wrapped" '[[ $(field $u "$tmp/shadow") == \$kdfw\$* ]]'
done
lk=$(field frank "$tmp/shadow")
check "frank still locked and wrapped" '[[ $lk == '\''!!$kdfw$'\''* ]]'
while read -r u pw; do
    h=$(field "$u" "$tmp/shadow")
    h=${h##*!}
    check "$u opens with its password" '[ "$(verify "$h" "$pw")" = ok ]'
    check "$u refuses another" '[ "$(verify "$h" "${pw}x")" = mismatch ]'
done <<EOF
alice md5 secret
carol sha secret
dave bcrypt secret
erin pbkdf2 secret
frank locked secret
EOF
# DES reads 8 characters: the other password differs within them.
h=$(field bob "$tmp/shadow")
check "bob opens with its password" '[ "$(verify "$h" desPass1)" = ok ]'
check "bob refuses another" '[ "$(verify "$h" desPass2)" = mismatch ]'
check "root, grace, henry, ivan untouched" '
    [ "$(field root "$tmp/shadow")" = "$h_root" ] && [ "$(field grace "$tmp/shadow")" = "$h_arg" ] &&
    grep -qx "henry::19000:0:99999:7:::" "$tmp/shadow" && grep -qx "ivan:\*:19000:0:99999:7:::" "$tmp/shadow"'
check "other fields kept" '[ "$(cut -d: -f1,3- "$tmp/shadow")" = "$(cut -d: -f1,3- "$tmp/shadow.orig")" ]'
# History: alice's two entries wrapped and opening, grace's Argon2 kept.
hl=$(grep '^alice:' "$tmp/opasswd")
check "history alice: 2 wrapped entries: ${hl:0:40}" '[[ $hl == alice:1001:2:\$kdfw\$*\;\$kdfw\$* || $hl == alice:1001:2:\$kdfw\$*,\$kdfw\$* ]]'
e1=$(cut -d: -f4 <<<"$hl" | sed 's/\$kdfw\$/\n&/g' | sed -n 2p | sed 's/[,;]$//; s/;/,/g')
check "history entry opens with the old password" '[ "$(verify "$e1" "md5 secret")" = ok ]'
check "history grace: Argon2 kept, DES wrapped" '
    [[ $(grep "^grace:" "$tmp/opasswd") == "grace:1007:2:${h_arg//,/;},\$kdfw\$"* ]]'

# ---- a second run: nothing to do, nothing rewritten --------------------------
ino=$(stat -c %i:%Y "$tmp/shadow")
hino=$(stat -c %i:%Y "$tmp/opasswd")
cp "$tmp/shadow" "$tmp/shadow.1"
sleep 1
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow" --opasswd "$tmp/opasswd" --quiet)
rc=$?
check "rerun: exit 0 ($rc)" '[ $rc = 0 ]'
check "rerun: wrapped 0 twice" '[ "$(grep -c "^wrapped: 0$" <<<"$out")" = 2 ]'
check "rerun: skipped wrapped 6" 'grep -qx "skipped wrapped: 6" <<<"$out"'
check "rerun: files not rewritten" '[ "$(stat -c %i:%Y "$tmp/shadow")" = "$ino" ] &&
    [ "$(stat -c %i:%Y "$tmp/opasswd")" = "$hino" ] && cmp -s "$tmp/shadow" "$tmp/shadow.1"'

# ---- --history drop, --no-opasswd ---------------------------------------------
make_files
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow" --opasswd "$tmp/opasswd" \
    --history drop --quiet)
rc=$?
check "drop: exit 0 ($rc)" '[ $rc = 0 ]'
check "drop: dropped 3: $out" 'grep -qx "dropped: 3" <<<"$out"'
check "drop: alice's line gone, grace's count fixed" '! grep -q "^alice:" "$tmp/opasswd" &&
    [ "$(cat "$tmp/opasswd")" = "grace:1007:1:${h_arg//,/;}" ]'
make_files
cp "$tmp/opasswd" "$tmp/opasswd.orig"
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow" --no-opasswd --quiet)
check "no-opasswd: history untouched" 'cmp -s "$tmp/opasswd" "$tmp/opasswd.orig" &&
    ! grep -q "^# history" <<<"$out" && grep -qx "wrapped: 6" <<<"$out"'

# ---- a refusal: counted by its reason, the others wrapped, exit 1 ------------------
# Django's pbkdf2 keeps its salt as text, which kdf_wrap() cannot make again.
h_dj=$($PY -c 'import base64, hashlib
d = hashlib.pbkdf2_hmac("sha256", b"django secret", b"saltsaltsalt", 1000)
print("pbkdf2_sha256$1000$saltsaltsalt$" + base64.b64encode(d).decode())')
printf 'judy:%s:1::\nalice:%s:1::\n' "$h_dj" "$h_md5" >"$tmp/shadow2"
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow2" --no-opasswd --quiet)
rc=$?
check "refusal: exit 1 ($rc)" '[ $rc = 1 ]'
check "refusal: counted by reason: $out" 'grep -qx "refused: 1" <<<"$out" &&
    grep -q "^refused (.*Django.*): 1$" <<<"$out" && grep -qx "wrapped: 1" <<<"$out"'
check "refusal: judy as she was, alice wrapped" '[ "$(field judy "$tmp/shadow2")" = "$h_dj" ] &&
    [[ $(field alice "$tmp/shadow2") == \$kdfw\$* ]]'

# ---- a pepper: a legacy entry wrapped keyed, a keyed entry skipped ------------------
D=$tmp/keys.d
kid=$("$K" keys --dir "$D" new) || bad "keys new: exit $?"
kconf=$tmp/keyed.conf
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\npepper = %s\nadmins = none\n' \
    "$kid" >"$kconf"
h_key=$(printf 'keyed secret' | "$K" hash --keys "$D" --conf "$kconf")
printf 'kate:%s:1::\nalice:%s:1::\n' "$h_key" "$h_md5" >"$tmp/shadow3"
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow3" --no-opasswd --quiet)
rc=$?
check "keyed, no pepper: exit 0, skipped keyed 1 ($rc): $out" '[ $rc = 0 ] &&
    grep -qx "skipped keyed: 1" <<<"$out" && [ "$(field kate "$tmp/shadow3")" = "$h_key" ]'
printf 'alice:%s:1::\n' "$h_md5" >"$tmp/shadow3"
out=$("$K" wrap --keys "$D" --conf "$kconf" --shadow "$tmp/shadow3" --no-opasswd --quiet)
rc=$?
h=$(field alice "$tmp/shadow3")
check "pepper: alice wrapped keyed ($rc)" '[ $rc = 0 ] && [[ $h == \$kdfw\$*keyid=$kid* ]]'
check "pepper: opens with the key" '[ "$(printf "md5 secret" |
    "$K" verify --keys "$D" --conf "$kconf" "$h")" = ok ]'

# ---- a batch the writer refuses (a symlink): said, counted, exit 1 -------------------
make_files
mv "$tmp/shadow" "$tmp/shadow.real"
ln -s shadow.real "$tmp/shadow"
out=$("$K" wrap --conf "$conf" --shadow "$tmp/shadow" --no-opasswd --batch 4 --quiet \
    2>"$tmp/err")
rc=$?
check "symlink: exit 1 ($rc)" '[ $rc = 1 ]'
check "symlink: 6 not written: $out" 'grep -qx "not written (batch failed): 6" <<<"$out" &&
    grep -qx "wrapped: 0" <<<"$out"'
check "symlink: each batch said: $(cat "$tmp/err")" '[ "$(grep -c "a batch of [0-9]* entries (.* to .*) was not written" "$tmp/err")" = 2 ]'
check "symlink: file unchanged" '[ "$(field alice "$tmp/shadow.real")" = "$h_md5" ]'
rm -f "$tmp/shadow" "$tmp/shadow.real"
make_files

# ---- --values: a filter of hash strings and directory values ----------------------
# Directory values as 389-ds and OpenLDAP store them, made by passlib.
d_ssha=$($PY -c 'import passlib.hash as h; print(h.ldap_salted_sha512.hash("ssha secret"))')
d_pbk=$($PY -c 'import passlib.hash as h; print(h.ldap_pbkdf2_sha256.using(rounds=1000).hash("ldap secret"))')
d_md5=$($PY -c 'import passlib.hash as h; print(h.ldap_md5.hash("md5 plain"))')
check "directory fixtures made" '[[ $d_ssha == "{SSHA512}"* && $d_pbk == "{PBKDF2-SHA256}"* &&
    $d_md5 == "{MD5}"* ]]'
long=$(head -c 3000 /dev/zero | tr '\0' a)
# input line|the answer expected|its password ("-": none)
cat >"$tmp/values.spec" <<SPEC
$h_md5|wrapped|md5 secret
$h_sha|wrapped|sha secret
$h_bcr|wrapped|bcrypt secret
$h_pbk|wrapped|pbkdf2 secret
$h_arg|keep|-
|keep|-
*|keep|-
{CRYPT}$h_md5|wrapped|md5 secret
$d_ssha|wrapped|ssha secret
$d_pbk|wrapped|ldap secret
$d_md5|refused|-
$h_dj|refused|-
not a hash|refused|-
$long|refused|-
SPEC
cut -d"|" -f1 "$tmp/values.spec" >"$tmp/values.in"
"$K" wrap --values --conf "$conf" --jobs 2 --batch 3 <"$tmp/values.in" >"$tmp/values.out" 2>"$tmp/err"
rc=$?
check "values: exit 0 ($rc; $(cat "$tmp/err"))" '[ $rc = 0 ]'
check "values: one answer per line" '[ "$(wc -l <"$tmp/values.out")" = "$(wc -l <"$tmp/values.in")" ]'
n=0
while IFS='|' read -r in want pw <&3 && IFS=$'\t' read -r got text <&4; do
    n=$((n + 1))
    check "values line $n: $want (got $got: ${text:0:50})" '[ "$got" = "$want" ]'
    [[ $got == wrapped ]] || continue
    case $in in
    "{"*) check "values line $n: a directory value's wrap is {KDF-WRAPPED}" \
        '[[ $text == "{KDF-WRAPPED}\$kdfw\$"* ]]' ;;
    *) check "values line $n: a wrap" '[[ $text == "\$kdfw\$"* ]]' ;;
    esac
    w=${text#\{KDF-WRAPPED\}}
    check "values line $n opens with its password" '[ "$(verify "$w" "$pw")" = ok ]'
    check "values line $n refuses another" '[ "$(verify "$w" "${pw}x")" = mismatch ]'
done 3<"$tmp/values.spec" 4<"$tmp/values.out"
check "values: every line checked ($n)" '[ $n = 14 ]'
check "values: the keeps say why" '[ "$(sed -n 5p "$tmp/values.out")" = "keep	current" ] &&
    [ "$(sed -n 6p "$tmp/values.out")" = "keep	empty" ] &&
    [ "$(sed -n 7p "$tmp/values.out")" = "keep	locked" ]'
check "values: the refusals say why" 'sed -n 11p "$tmp/values.out" | grep -q "^refused	{MD5}" &&
    sed -n 12p "$tmp/values.out" | grep -q "^refused	.*Django" &&
    [ "$(sed -n 14p "$tmp/values.out")" = "refused	too long for a hash string" ]'
for h in "$h_md5" "$h_sha" "$h_bcr" "$h_pbk" "$d_ssha" "$d_pbk"; do
    d=$(digest "${h#\{*\}}")
    check "values: no input digest in the answers" '! grep -qF -- "$d" "$tmp/values.out"'
done
# Its own answers again: every wrap is kept as wrapped.
grep '^wrapped' "$tmp/values.out" | cut -f2 >"$tmp/values.in2"
out=$("$K" wrap --values --conf "$conf" <"$tmp/values.in2")
check "values: the wraps are kept as wrapped: ${out:0:80}" '[ "$(grep -c "^keep	wrapped$" <<<"$out")" = 7 ] &&
    [ "$(wc -l <<<"$out")" = 7 ]'
out=$(printf '%s\n' "{kdf-wrapped}$(sed -n 's/^wrapped	{KDF-WRAPPED}//p' "$tmp/values.out" | head -1)" \
    "{KDF-WRAPPED}$h_md5" | "$K" wrap --values --conf "$conf")
check "values: {KDF-WRAPPED} in any case; holding no wrap refused: $out" '
    [ "$(sed -n 1p <<<"$out")" = "keep	wrapped" ] &&
    [ "$(sed -n 2p <<<"$out")" = "refused	{KDF-WRAPPED} holding no wrapped hash" ]'
# --dry-run: the scheme of each, no hash made.
out=$(printf '%s\n' "$h_sha" "$h_arg" "$d_ssha" | "$K" wrap --values --dry-run --conf "$conf")
check "values --dry-run: $out" '[ "$(sed -n 1p <<<"$out")" = "would-wrap	sha512crypt" ] &&
    [ "$(sed -n 2p <<<"$out")" = "keep	current" ] &&
    [[ $(sed -n 3p <<<"$out") == "would-wrap	"?* ]] && [ "$(wc -l <<<"$out")" = 3 ]'
# A filter: each answer comes before the next line is sent (no wait for EOF).
coproc KV { "$K" wrap --values --conf "$conf" --jobs 1; }
printf '%s\n' "$h_md5" >&"${KV[1]}"
IFS= read -r -t 20 a1 <&"${KV[0]}"
printf '%s\n' "$d_ssha" >&"${KV[1]}"
IFS= read -r -t 20 a2 <&"${KV[0]}"
kv_pid=$KV_PID
eval "exec ${KV[1]}>&-"
wait "$kv_pid"
rc=$?
check "values: answers one line at a time (${a1:0:20}, ${a2:0:30}), exit 0 ($rc)" \
    '[[ $a1 == "wrapped	\$kdfw\$"* && $a2 == "wrapped	{KDF-WRAPPED}\$kdfw\$"* && $rc = 0 ]]'
# Under a pepper: wrapped keyed; a keyed value kept as keyed.
out=$(printf '%s\n' "$d_ssha" "$h_key" | "$K" wrap --values --keys "$D" --conf "$kconf")
check "values under a pepper: keyed wrap, keyed kept: ${out:0:60}" '
    [[ $(sed -n 1p <<<"$out") == "wrapped	{KDF-WRAPPED}\$kdfw\$"*keyid=$kid* ]] &&
    [ "$(sed -n 2p <<<"$out")" = "keep	keyed" ]'
w=$(sed -n '1s/^wrapped	{KDF-WRAPPED}//p' <<<"$out")
check "values under a pepper: opens with the key" '[ "$(printf "ssha secret" |
    "$K" verify --keys "$D" --conf "$kconf" "$w")" = ok ]'
for args in "--shadow $tmp/shadow" "--no-opasswd" "--history drop" "--quiet"; do
    # shellcheck disable=SC2086
    "$K" wrap --values --conf "$conf" $args </dev/null >/dev/null 2>"$tmp/err"
    rc=$?
    check "values usage '$args': exit 2 ($rc)" '[ $rc = 2 ] && grep -q "^kdfhash: wrap: --values" "$tmp/err"'
done

# ---- usage ------------------------------------------------------------------------
for args in "--history keep" "--jobs 0" "--batch x" "--nice 20" "--nice -1" "--bogus" "extra"; do
    # shellcheck disable=SC2086
    "$K" wrap --conf "$conf" --shadow "$tmp/shadow" --no-opasswd $args >/dev/null 2>"$tmp/err"
    rc=$?
    check "usage '$args': exit 2 ($rc)" '[ $rc = 2 ] && grep -q "^kdfhash: wrap: " "$tmp/err" &&
        cmp -s "$tmp/shadow" "$tmp/shadow.orig"'
done
"$K" wrap --conf "$conf" --shadow "$tmp/none" --no-opasswd >/dev/null 2>&1
rc=$?
check "missing shadow: exit 2 ($rc)" '[ $rc = 2 ]'

# ---- bash completion ----------------------------------------------------------------
comp() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _kdfhash; printf "%s\n" "${COMPREPLY[@]}"' sh \
        "$top_srcdir/packaging/bash-completion/kdfhash" "$@"
}
check "completion: wrap" 'comp kdfhash wr | grep -qx wrap'
check "completion: wrap --dry-run" 'comp kdfhash wrap --dr | grep -qx -- --dry-run'
check "completion: wrap --history drop" 'comp kdfhash wrap --history d | grep -qx drop'
check "completion: wrap --values" 'comp kdfhash wrap --va | grep -qx -- --values'

echo "test_cli_wrap: $pass passed, $fail failed"
[ "$fail" = 0 ]
