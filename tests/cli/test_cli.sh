#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_cli.sh - kdfhash(1) end to end: parse, needs-rehash, audit (text and
# JSON), verify, hash and cpu, their outputs and exit codes (0 ok/match,
# 1 mismatch/needs rehash, 2 error: what scripts and PAM helpers test).
#
# Inputs: tests/data/demo.shadow, whose hashes were made by pyca bcrypt,
# passlib, argon2-cffi, hashlib, libxcrypt and mkpasswd
# (tests/data/gen-demo-shadow.py), with the passwords in demo.passwords.
# New hashes made by kdfhash are checked by the same independent
# implementations through Debian's /usr/bin/python3.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
K="$top_builddir/cli/kdfhash"
DATA="$top_srcdir/tests/data"
CONF="$top_srcdir/packaging/kdfhash.conf"
PY=/usr/bin/python3
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
$PY -c 'import passlib, argon2, bcrypt' 2>/dev/null ||
    { echo "FAIL: /usr/bin/python3 lacks passlib/argon2/bcrypt (apt-get install python3-passlib python3-argon2 python3-bcrypt)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
good() { pass=$((pass + 1)); }

# expect RC OUT CMD...: run CMD (stdin from $IN, default empty), compare
# exit status and stdout.  OUT "*" means any output.
IN=
expect() {
    local want_rc=$1 want_out=$2 out rc
    shift 2
    out=$(printf '%s' "$IN" | "$@" 2>"$tmp/err")
    rc=$?
    if [ "$rc" != "$want_rc" ]; then
        bad "$* -> exit $rc, want $want_rc (stdout '$out', stderr '$(cat "$tmp/err")')"
    elif [ "$want_out" != "*" ] && [ "$out" != "$want_out" ]; then
        bad "$* -> '$out', want '$want_out'"
    else
        good
    fi
    IN=
}
# expect_err RC SUBSTRING CMD...: exit status and a substring of stderr.
expect_err() {
    local want_rc=$1 want=$2 rc
    shift 2
    printf '%s' "$IN" | "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ "$rc" != "$want_rc" ] || ! grep -qF -- "$want" "$tmp/err"; then
        bad "$* -> exit $rc, stderr '$(cat "$tmp/err")'; want $want_rc and '$want'"
    else
        good
    fi
    IN=
}
hash_of() { awk -F: -v u="$1" '$1 == u { print $2; exit }' "$DATA/demo.shadow"; }
pw_of() { awk -F: -v u="$1" '$1 == u { print $2; exit }' "$DATA/demo.passwords"; }

# ---- parse ------------------------------------------------------------------
expect 0 "scheme=bcrypt minor=b cost=12 salt_len=16 digest_len=23" "$K" parse "$(hash_of alice)"
expect 0 "scheme=bcrypt minor=x cost=5 salt_len=16 digest_len=23" "$K" parse "$(hash_of carol)"
expect 0 "scheme=argon2id version=19 m=65536 t=3 p=4 salt_len=16 digest_len=32" \
    "$K" parse "$(hash_of erin)"
expect 0 "scheme=argon2id version=16 m=65536 t=3 p=4 salt_len=16 digest_len=32" \
    "$K" parse "$(hash_of fred)"
expect 0 "scheme=argon2i version=19 m=16384 t=2 p=1 salt_len=16 digest_len=32" \
    "$K" parse "$(hash_of grace)"
expect 0 "scheme=pbkdf2-sha256 format=passlib iterations=1000 salt_len=16 digest_len=32" \
    "$K" parse "$(hash_of heidi)"
expect 0 "scheme=pbkdf2-sha512 format=passlib iterations=210000 salt_len=16 digest_len=64" \
    "$K" parse "$(hash_of hank)"
expect 0 "scheme=pbkdf2-sha256 format=django iterations=1000 salt_len=12 digest_len=32" \
    "$K" parse "$(hash_of ivan)"
expect 0 "scheme=pbkdf2-sha256 format=phc iterations=2000 salt_len=16 digest_len=32" \
    "$K" parse "$(hash_of judy)"
expect 0 "scheme=pbkdf2-sha1 format=passlib iterations=1000 salt_len=16 digest_len=20" \
    "$K" parse "$(hash_of kim)"
expect 0 'scheme=legacy prefix=$6$' "$K" parse "$(hash_of mallory)"
expect 0 'scheme=legacy prefix=$y$' "$K" parse "$(hash_of yuri)"
expect 0 "scheme=locked" "$K" parse '!'
expect 0 "scheme=locked" "$K" parse "$(hash_of oscar)"
expect 0 "scheme=empty" "$K" parse ''
IN="$(hash_of erin)"
expect 0 "scheme=argon2id version=19 m=65536 t=3 p=4 salt_len=16 digest_len=32" "$K" parse -
expect_err 2 "malformed" "$K" parse "$(hash_of broken)"
expect_err 2 "malformed" "$K" parse '$2b$03$ThDBn9h5HLJcSv5/8KaWfOOOQBxN4lAA8BvxJd8cGkBTHCyGwkgk2'
expect_err 2 "unsupported" "$K" parse "$(hash_of weird)"
expect_err 2 "Usage" "$K" parse
expect_err 2 "Usage" "$K" parse a b

# ---- needs-rehash -------------------------------------------------------------
cat >"$tmp/bcrypt.conf" <<'EOF'
target = bcrypt cost=12
EOF
cat >"$tmp/accept.conf" <<'EOF'
accept = bcrypt, pbkdf2-sha256
min.pbkdf2-sha256 = 1000
EOF
cat >"$tmp/lowcap.conf" <<'EOF'
max.bcrypt = 11
EOF
cat >"$tmp/bad.conf" <<'EOF'
# fine
target = argon2id m=65536,t=3,p=4
frobnicate = 1
EOF
expect 0 "ok" "$K" needs-rehash --conf "$CONF" "$(hash_of erin)"
expect 1 "rehash: too-cheap" "$K" needs-rehash --conf "$CONF" "$(hash_of frank)"
expect 1 "rehash: old-version" "$K" needs-rehash --conf "$CONF" "$(hash_of fred)"
expect 1 "rehash: other-scheme" "$K" needs-rehash --conf "$CONF" "$(hash_of grace)"
expect 1 "rehash: other-scheme" "$K" needs-rehash --conf "$CONF" "$(hash_of alice)"
expect 1 "rehash: bcrypt-2x" "$K" needs-rehash --conf "$CONF" "$(hash_of carol)"
expect 1 "rehash: legacy" "$K" needs-rehash --conf "$CONF" "$(hash_of mallory)"
expect 1 "rehash: legacy" "$K" needs-rehash --conf "$CONF" "$(hash_of mona)"
expect 0 "ok" "$K" needs-rehash --conf "$CONF" '!'
expect 0 "ok" "$K" needs-rehash --conf "$tmp/bcrypt.conf" "$(hash_of alice)"
expect 0 "ok" "$K" needs-rehash --conf "$tmp/bcrypt.conf" "$(hash_of bert)"
expect 1 "rehash: too-cheap" "$K" needs-rehash --conf "$tmp/bcrypt.conf" "$(hash_of dave)"
expect 1 "rehash: other-scheme" "$K" needs-rehash --conf "$tmp/bcrypt.conf" "$(hash_of erin)"
expect 0 "ok" "$K" needs-rehash --conf "$tmp/accept.conf" "$(hash_of alice)"
expect 1 "rehash: too-cheap" "$K" needs-rehash --conf "$tmp/accept.conf" "$(hash_of bob)"
expect 0 "ok" "$K" needs-rehash --conf "$tmp/accept.conf" "$(hash_of heidi)"
expect 0 "ok" "$K" needs-rehash --conf "$tmp/accept.conf" "$(hash_of judy)"
expect 1 "rehash: other-scheme" "$K" needs-rehash --conf "$tmp/accept.conf" "$(hash_of hank)"
IN="$(hash_of frank)"
expect 1 "rehash: too-cheap" "$K" needs-rehash --conf "$CONF" -
expect_err 2 "max.bcrypt" "$K" needs-rehash --conf "$tmp/lowcap.conf" "$(hash_of alice)"
expect_err 2 "bad.conf:3: unknown key" "$K" needs-rehash --conf "$tmp/bad.conf" "$(hash_of erin)"
expect_err 2 "cannot open" "$K" needs-rehash --conf "$tmp/none.conf" "$(hash_of erin)"
expect_err 2 "malformed" "$K" needs-rehash --conf "$CONF" "$(hash_of broken)"

# ---- audit ---------------------------------------------------------------------
cat >"$tmp/audit.want" <<'EOF'
root locked - locked
daemon locked - locked
bin locked - locked
nopass empty - empty
alice bcrypt minor=b,cost=12 rehash:other-scheme
bob bcrypt minor=a,cost=5 rehash:other-scheme
bert bcrypt minor=a,cost=12 rehash:other-scheme
carol bcrypt minor=x,cost=5 rehash:bcrypt-2x
dave bcrypt minor=b,cost=5 rehash:other-scheme
erin argon2id v=19,m=65536,t=3,p=4 ok
frank argon2id v=19,m=8192,t=1,p=1 rehash:too-cheap
fred argon2id v=16,m=65536,t=3,p=4 rehash:old-version
grace argon2i v=19,m=16384,t=2,p=1 rehash:other-scheme
heidi pbkdf2-sha256 format=passlib,i=1000 rehash:other-scheme
hank pbkdf2-sha512 format=passlib,i=210000 rehash:other-scheme
ivan pbkdf2-sha256 format=django,i=1000 rehash:other-scheme
judy pbkdf2-sha256 format=phc,i=2000 rehash:other-scheme
kim pbkdf2-sha1 format=passlib,i=1000 rehash:other-scheme
mallory legacy prefix=$6$ rehash:legacy
yuri legacy prefix=$y$ rehash:legacy
mona legacy prefix=$1$ rehash:legacy
oscar locked - locked
broken - - malformed
weird - - unsupported

# summary: 24 accounts
ok: 1
rehash: 16
rehash:other-scheme: 10
rehash:too-cheap: 1
rehash:bcrypt-2x: 1
rehash:legacy: 3
rehash:old-version: 1
locked: 4
empty: 1
malformed: 1
unsupported: 1
over-cap: 0
# by scheme and cost
argon2i m=16384,t=2,p=1: 1
argon2id m=65536,t=3,p=4: 1
argon2id m=65536,t=3,p=4,v=16: 1
argon2id m=8192,t=1,p=1: 1
bcrypt cost=12: 2
bcrypt cost=5: 3
legacy prefix=$1$: 1
legacy prefix=$6$: 1
legacy prefix=$y$: 1
pbkdf2-sha1 i=1000: 1
pbkdf2-sha256 i=1000: 2
pbkdf2-sha256 i=2000: 1
pbkdf2-sha512 i=210000: 1
# by key
unkeyed: 17
keyed with a key that cannot be used: 0
# without pam_kdfhash
pam_unix cannot verify: 9
EOF
"$K" audit --conf "$CONF" "$DATA/demo.shadow" >"$tmp/audit.out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && good || bad "audit exit $rc, want 1"
diff -u "$tmp/audit.want" "$tmp/audit.out" >"$tmp/diff" && good ||
    { bad "audit output differs:"; cat "$tmp/diff"; }
"$K" audit --json --conf "$CONF" "$DATA/demo.shadow" >"$tmp/audit.json"
[ $? = 1 ] && good || bad "audit --json exit status"
"$K" audit --conf "$CONF" - <"$DATA/demo.shadow" >"$tmp/audit.stdin"
cmp -s "$tmp/audit.out" "$tmp/audit.stdin" && good || bad "audit - differs from audit FILE"

# xcrypt-only (root by default): root's Argon2id entry at the target is
# "ok" for anyone else, but sulogin cannot verify it, so the audit asks for
# the change the module makes at root's next login; with "none" it is ok.
printf 'root:%s:19000:0:99999:7:::\nerin:%s:19000:0:99999:7:::\n' \
    "$(hash_of erin)" "$(hash_of erin)" >"$tmp/xo.shadow"
"$K" audit --conf "$CONF" "$tmp/xo.shadow" >"$tmp/xo.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -qx 'root argon2id v=19,m=65536,t=3,p=4 rehash:migration' "$tmp/xo.out" &&
    grep -qx 'erin argon2id v=19,m=65536,t=3,p=4 ok' "$tmp/xo.out" && good ||
    { bad "audit of an xcrypt-only root entry (exit $rc):"; cat "$tmp/xo.out"; }
printf 'xcrypt-only = none\n' >"$tmp/xo.conf"
"$K" audit --conf "$tmp/xo.conf" "$tmp/xo.shadow" >"$tmp/xo.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -qx 'root argon2id v=19,m=65536,t=3,p=4 ok' "$tmp/xo.out" && good ||
    { bad "audit with xcrypt-only = none (exit $rc):"; cat "$tmp/xo.out"; }

# No hash, salt or digest of the input appears in any output: every
# 10-character window of every salt and digest field is searched for.
$PY - "$DATA/demo.shadow" "$tmp/audit.out" "$tmp/audit.json" <<'EOF' && good || bad "audit leaks"
import sys
outs = [open(p, "rb").read() for p in sys.argv[2:]]
n = 0
for line in open(sys.argv[1], "rb"):
    if line.startswith(b"#") or b":" not in line:
        continue
    h = line.split(b":")[1]
    fields = [f for f in h.split(b"$") if f and b"=" not in f.rstrip(b"=") and not f.isdigit()]
    secrets = [f for f in fields[-2:] if len(f) >= 10]
    for f in secrets:
        for i in range(len(f) - 9):
            w = f[i:i + 10]
            for o in outs:
                n += 1
                if w in o:
                    sys.exit("leak of %r from %r" % (w, line.split(b":")[0]))
assert n > 1000, n
EOF
$PY - "$tmp/audit.json" <<'EOF' && good || bad "audit --json content"
import json, sys
d = json.load(open(sys.argv[1]))
acc = {a["user"]: a for a in d["accounts"]}
assert len(d["accounts"]) == 24, len(d["accounts"])
assert acc["erin"]["status"] == "ok" and acc["erin"]["params"] == "v=19,m=65536,t=3,p=4"
assert acc["carol"]["status"] == "rehash" and acc["carol"]["reason"] == "bcrypt-2x"
assert acc["broken"]["status"] == "malformed" and acc["broken"]["reason"]
assert acc["root"]["status"] == "locked" and acc["nopass"]["status"] == "empty"
s = d["summary"]
assert s["accounts"] == 24 and s["status"]["rehash"] == 16 and s["status"]["locked"] == 4
assert s["rehash"]["other-scheme"] == 10 and s["rehash"]["legacy"] == 3
g = {(x["scheme"], x["costs"]): x["count"] for x in s["schemes"]}
assert g[("bcrypt", "cost=5")] == 3 and g[("argon2id", "m=65536,t=3,p=4")] == 1, g
# Argon2 (4) and PBKDF2 (5) entries: what pam_unix alone would lock out.
assert s["pam_unix_cannot_verify"] == 9, s["pam_unix_cannot_verify"]
EOF

# Hostile file: odd bytes in names, a line over 64 KiB, no ':', NIS,
# CRLF (the CR is the line end, as a login reads it), a missing final
# newline.
$PY - "$tmp/odd.shadow" "$(hash_of erin)" <<'EOF'
import sys
erin = sys.argv[2].encode()
with open(sys.argv[1], "wb") as f:
    f.write(b'ev"il\\\x1b[31m\xff:' + erin + b":1::::::\n")
    f.write(b"long:" + b"A" * 70000 + b":1::::::\n")
    f.write(b"after:" + erin + b":1::::::\n")
    f.write(b"no colon here\n")
    f.write(b"+nisuser::::::::\n")
    f.write(b"crlf:" + erin + b"\r\n")
    f.write(b"   \t\n")
    f.write(b"last:*")
EOF
"$K" audit --conf "$CONF" "$tmp/odd.shadow" >"$tmp/odd.out" 2>"$tmp/err"
rc=$?
cat >"$tmp/odd.want" <<'EOF'
ev"il\x5c\x1b[31m\xff argon2id v=19,m=65536,t=3,p=4 ok
long - - malformed
after argon2id v=19,m=65536,t=3,p=4 ok
- - - malformed
+nisuser - - unsupported
crlf argon2id v=19,m=65536,t=3,p=4 ok
last locked - locked
EOF
head -n 7 "$tmp/odd.out" >"$tmp/odd.head"
[ $rc = 1 ] && cmp -s "$tmp/odd.want" "$tmp/odd.head" && good ||
    { bad "audit of a hostile file (exit $rc):"; diff -u "$tmp/odd.want" "$tmp/odd.head"; }
"$K" audit --json --conf "$CONF" "$tmp/odd.shadow" >"$tmp/odd.json"
$PY - "$tmp/odd.json" <<'EOF' && good || bad "audit --json escaping"
import json, sys
raw = open(sys.argv[1], "rb").read()
assert all(b < 0x80 and (b >= 0x20 or b == 0x0a) for b in raw), "raw control or 8-bit byte"
d = json.load(open(sys.argv[1]))
assert d["accounts"][0]["user"] == 'ev"il\\\x1b[31m\xff', repr(d["accounts"][0]["user"])
assert d["accounts"][1]["status"] == "malformed"
assert d["summary"]["accounts"] == 7
EOF
grep -v '^last' "$DATA/demo.shadow" | grep -E '^(root|erin|nopass):' >"$tmp/allok.shadow"
expect 0 "*" "$K" audit --conf "$CONF" "$tmp/allok.shadow"
expect_err 2 "cannot open" "$K" audit --conf "$CONF" "$tmp/nonexistent"
expect_err 2 "unknown key" "$K" audit --conf "$tmp/bad.conf" "$DATA/demo.shadow"
expect 0 "*" "$K" audit --conf "$tmp/lowcap.conf" "$tmp/allok.shadow"
"$K" audit --conf "$tmp/lowcap.conf" "$DATA/demo.shadow" | grep -qx 'alice bcrypt minor=b,cost=12 over-cap' &&
    good || bad "audit over-cap status"
# Costly crypt(3) settings of every libxcrypt scheme are over-cap, not rehash.
{
    echo 'sha1:$sha1$4294967295$abcdefgh$O1FteT.8iBPfT8DbK4mxuL4uZH0E:1::'
    echo 'sunmd5:$md5,rounds=4294967295$abcdefgh$$51scbQtvil3e5sN.NDL54/:1::'
    echo 'bsdi:_zzzzabcdYLHPKzdrSe.:1::'
    echo 'scrypt:$7$CU......../....9wsrC6Q3diBfUXXcDQydi.$0tsBVxi1Z77deU5vngOKv0iHIA5a2tqRqrdmyxQegV1:1::'
    echo 'yes:$y$jWzSxvrD$JqsSXXKwbl1mPIm.f/8Ie0$6qM2kNKIHWHV5ocphjd0hxmOZJ1JV4Bjydbgx92AIy6:1::'
} >"$tmp/costly.shadow"
[ "$("$K" audit --conf "$CONF" "$tmp/costly.shadow" | grep -c ' over-cap$')" = 5 ] &&
    good || bad "audit: costly crypt(3) settings not all over-cap"

# ---- a wrapped entry (kdf_wrap() of libxcrypt's "$1$saltsalt$..." of password1234,
# outer Argon2id m=256,t=1,p=1): counted apart, always outdated, verified
# through both hashes, and one pam_unix cannot read.
WRAPPED='$kdfw$34$$1$saltsalt$......................$argon2id$v=19$m=256,t=1,p=1$N1lsEMqo1RvBNF48PmULjA$o87OXUMWke5qA2EKZDKb3DWhbEBUmKYk/ET5BMb5ong'
printf 'wanda:%s:19000::::::\nwill:!%s:19000::::::\n' "$WRAPPED" "$WRAPPED" >"$tmp/wrap.shadow"
"$K" audit --conf "$CONF" "$tmp/wrap.shadow" >"$tmp/wrap.out" 2>&1
[ $? = 1 ] && good || bad "audit of a wrapped entry: exit status"
grep -qx 'wanda wrapped v=19,m=256,t=1,p=1 rehash:wrapped' "$tmp/wrap.out" && good ||
    bad "audit: the wrapped entry's line"
grep -qx 'rehash:wrapped: 1' "$tmp/wrap.out" && good || bad "audit: wrapped not counted apart"
grep -qx 'wrapped m=256,t=1,p=1: 1' "$tmp/wrap.out" && good || bad "audit: wrapped scheme line"
grep -qx 'pam_unix cannot verify: 2' "$tmp/wrap.out" && good ||
    bad "audit: a wrapped entry (locked or not) is one pam_unix cannot verify"
expect 1 "rehash: wrapped" "$K" needs-rehash --conf "$CONF" "$WRAPPED"
IN=password1234
expect 0 "ok" "$K" verify --conf "$CONF" "$WRAPPED"
IN=password1235
expect 1 "mismatch" "$K" verify --conf "$CONF" "$WRAPPED"
expect 0 "scheme=wrapped inner=legacy outer=argon2id v=19,m=256,t=1,p=1" "$K" parse "$WRAPPED"

# ---- verify ----------------------------------------------------------------------
# Every demo user with a password, with the right one (exit 0); cheap ones
# with a wrong one too (exit 1).
while IFS=: read -r user pw how; do
    case "$user" in '#'* | '' | nopass | oscar) continue ;; esac
    IN="$pw"
    expect 0 "ok" "$K" verify --conf "$CONF" "$(hash_of "$user")"
    case "$user" in alice | bert | erin | fred | hank) continue ;; esac
    IN="${pw}x"
    expect 1 "mismatch" "$K" verify --conf "$CONF" "$(hash_of "$user")"
done <"$DATA/demo.passwords"
IN="oscar-pw"
expect 1 "mismatch" "$K" verify --conf "$CONF" "$(hash_of oscar)"   # locked
IN=""
expect 1 "mismatch" "$K" verify --conf "$CONF" ""                    # empty: no nullok here
# Exactly one trailing newline is removed.
IN=$'bob-pw\n'
expect 0 "ok" "$K" verify "$(hash_of bob)"
printf 'bob-pw\n\n' | "$K" verify "$(hash_of bob)" >/dev/null 2>&1
[ $? = 1 ] && good || bad "verify with two trailing newlines should mismatch"
printf 'bob-pw' | "$K" verify "$(hash_of bob)" >/dev/null 2>&1
[ $? = 0 ] && good || bad "verify without a newline"
# Caps: refused before work, password length capped.
IN=x
expect_err 2 "max.bcrypt" "$K" verify --conf "$CONF" \
    '$2b$17$ThDBn9h5HLJcSv5/8KaWfOOOQBxN4lAA8BvxJd8cGkBTHCyGwkgk2'
head -c 4097 /dev/zero | tr '\0' a >"$tmp/pw4097"
"$K" verify --conf "$CONF" "$(hash_of bob)" <"$tmp/pw4097" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "password too long" "$tmp/err" && good || bad "4097-byte password not refused"
head -c 4096 "$tmp/pw4097" >"$tmp/pw4096"
echo >>"$tmp/pw4096"
"$K" verify --conf "$CONF" "$(hash_of bob)" <"$tmp/pw4096" >/dev/null 2>&1
[ $? = 1 ] && good || bad "4096-byte password + newline should be a mismatch"
head -c 10000000 /dev/zero | "$K" verify "$(hash_of bob)" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && good || bad "10 MB password not refused"
expect_err 2 "malformed" "$K" verify "$(hash_of broken)"
expect_err 2 "unsupported" "$K" verify "$(hash_of weird)"
expect_err 2 "stdin" "$K" verify -
IN=bob-pw
expect 0 "ok" "$K" verify --isa portable "$(hash_of bob)"
expect_err 2 "--isa" "$K" verify --isa no-such-isa "$(hash_of bob)"
# bcrypt's Blowfish rows are in kdfhash cpu like the others, and each one
# this CPU runs, forced with --isa, verifies bob's bcrypt hash both ways.
bf_rows=$("$K" cpu | sed -n 's/^blowfish .*compiled in://p')
case "$bf_rows" in *" portable=yes"*) good ;; *) bad "cpu: no portable blowfish row: '$bf_rows'" ;; esac
if [ "$(uname -m)" = x86_64 ]; then
    case "$bf_rows" in *" bmi1="*) good ;; *) bad "cpu: no bmi1 blowfish row: '$bf_rows'" ;; esac
fi
# (a row measured slower on this CPU's vendor says slow-here: still runnable)
for v in $(printf '%s\n' $bf_rows | sed -n 's/=yes$//p; s/=slow-here$//p'); do
    IN=bob-pw
    expect 0 "ok" "$K" verify --isa "$v" "$(hash_of bob)"
    IN=not-bob-pw
    expect 1 "mismatch" "$K" verify --isa "$v" "$(hash_of bob)"
    "$K" cpu --isa "$v" | grep -q "^blowfish *in use: $v " && good ||
        bad "cpu --isa $v: blowfish not on $v"
done

# On a terminal: no echo while reading, echo back on return and after
# SIGTERM/SIGINT (a pseudo-terminal stands in for the tty).
$PY - "$K" "$(hash_of bob)" <<'EOF' && good || bad "verify on a terminal (echo off/restored)"
import os, pty, signal, subprocess, sys, termios, time
k, h = sys.argv[1], sys.argv[2]

def start():
    m, s = pty.openpty()
    p = subprocess.Popen([k, "verify", h], stdin=s, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    for _ in range(100):  # wait for echo to go off
        if not termios.tcgetattr(s)[3] & termios.ECHO:
            break
        time.sleep(0.05)
    assert not termios.tcgetattr(s)[3] & termios.ECHO, "echo not turned off"
    return m, s, p

m, s, p = start()
os.write(m, b"bob-pw\n")
out, err = p.communicate(timeout=30)
assert p.returncode == 0 and out == b"ok\n", (p.returncode, out, err)
assert termios.tcgetattr(s)[3] & termios.ECHO, "echo not restored after return"
echoed = b""
os.set_blocking(m, False)
try:
    echoed = os.read(m, 4096)
except BlockingIOError:
    pass
assert b"bob-pw" not in echoed, echoed
for sig in (signal.SIGTERM, signal.SIGINT):
    m, s, p = start()
    p.send_signal(sig)
    p.communicate(timeout=30)
    assert p.returncode == -sig, p.returncode
    assert termios.tcgetattr(s)[3] & termios.ECHO, "echo not restored after signal %d" % sig
EOF

# ---- schemes: the core's table ------------------------------------------------
names=$("$K" schemes --names)
[ "$(printf '%s\n' "$names" | wc -l)" -eq 11 ] && good || bad "schemes --names: $names"
for s in argon2id bcrypt pbkdf2-sha256 scrypt yescrypt sha512crypt; do
    printf '%s\n' "$names" | grep -qx "$s" && good || bad "schemes --names lacks $s"
done
printf '%s\n' "$names" | grep -qx legacy && bad "schemes --names lists legacy" || good
"$K" schemes > "$tmp/schemes" && good || bad "schemes exit $?"
grep -q "^scrypt  *scrypt ln=16,r=8,p=1,salt=16 " "$tmp/schemes" && good ||
    bad "schemes: no scrypt row with passlib's defaults"
grep -q "^legacy  *- " "$tmp/schemes" && good || bad "schemes: legacy is a target"
# no row lost (12 before the web applications' spellings), each name once
[ "$(wc -l < "$tmp/schemes")" -ge 17 ] && good || bad "schemes: $(wc -l < "$tmp/schemes") rows"
[ -z "$(awk '{ print $1 }' "$tmp/schemes" | sort | uniq -d)" ] && good || bad "schemes: a name twice"
for s in bcrypt-sha256 django-bcrypt django-bcrypt-sha256 django-argon2 django-scrypt ldap-sha; do
    grep -q "^$s  *- " "$tmp/schemes" && good || bad "schemes: $s is not a verified-only row"
done
# every name's default target text parses back as a target (hash with it)
for s in $names; do
    t=$(awk -v s="$s" '$1 == s { print $2 }' "$tmp/schemes")
    [ "$t" = "$s" ] && good || bad "schemes: $s row starts its target with '$t'"
done
expect_err 2 "Usage" "$K" schemes extra

# ---- hash: round trips through kdfhash and the independent oracles --------------
oracle() { # oracle PASSWORD HASH: exit 0 if the independent implementation agrees
    $PY - "$1" "$2" <<'EOF'
import base64, hashlib, hmac, sys
pw, h = sys.argv[1], sys.argv[2]
if h.startswith("$2"):
    import bcrypt
    ok = bcrypt.checkpw(pw.encode(), h.encode())
elif h.startswith("$argon2"):
    import argon2
    try:
        ok = argon2.PasswordHasher().verify(h, pw)
    except argon2.exceptions.VerifyMismatchError:
        ok = False
elif h.startswith("$scrypt$"):
    from passlib.hash import scrypt
    ok = scrypt.verify(pw, h)
elif h.startswith("pbkdf2_"):
    from passlib.hash import django_pbkdf2_sha1, django_pbkdf2_sha256
    ok = (django_pbkdf2_sha256 if h.startswith("pbkdf2_sha256") else django_pbkdf2_sha1).verify(pw, h)
elif "$i=" in h:  # PHC: hashlib, by hand
    _, name, params, salt, dk = h.split("$")
    md = {"pbkdf2": "sha1"}.get(name, name.replace("pbkdf2-", ""))
    kv = dict(x.split("=") for x in params.split(","))
    d = lambda s: base64.b64decode(s + "=" * (-len(s) % 4))
    want = d(dk)
    ok = hmac.compare_digest(hashlib.pbkdf2_hmac(md, pw.encode(), d(salt), int(kv["i"]), len(want)), want)
else:
    from passlib.hash import pbkdf2_sha1, pbkdf2_sha256, pbkdf2_sha512
    ok = {"$pbkdf2$": pbkdf2_sha1, "$pbkdf2-sha256$": pbkdf2_sha256,
          "$pbkdf2-sha512$": pbkdf2_sha512}[h[: h.index("$", 1) + 1]].verify(pw, h)
sys.exit(0 if ok else 1)
EOF
}
roundtrip() { # roundtrip SCHEME PARAMS...: hash, verify both ways, oracle both ways
    local scheme=$1 h pw
    pw="pässwörd $scheme"
    shift
    h=$(printf '%s\n' "$pw" | "$K" hash --conf "$CONF" --scheme "$scheme" "$@" 2>"$tmp/err")
    if [ $? != 0 ] || [ -z "$h" ]; then
        bad "hash --scheme $scheme $*: $(cat "$tmp/err")"
        return
    fi
    IN="$pw"
    expect 0 "ok" "$K" verify --conf "$CONF" "$h"
    IN="$pw!"
    expect 1 "mismatch" "$K" verify --conf "$CONF" "$h"
    oracle "$pw" "$h" && good || bad "oracle rejects $scheme hash $h"
    oracle "$pw!" "$h" && bad "oracle accepts a wrong password for $h" || good
}
roundtrip bcrypt --param cost=4
roundtrip bcrypt --param cost=5 --param minor=a
roundtrip bcrypt --param cost=4 --param minor=y
roundtrip argon2id --param m=256 --param t=2 --param p=2
roundtrip argon2i --param m=64 --param t=1 --param p=1
roundtrip argon2d --param m=128 --param t=3 --param p=1 --param salt=8 --param len=16
roundtrip pbkdf2-sha1 --param i=1000
roundtrip scrypt --param ln=4 --param r=8 --param p=1
roundtrip scrypt --param ln=6 --param r=2 --param p=3 --param salt=32
roundtrip pbkdf2-sha256 --param i=1000
roundtrip pbkdf2-sha512 --param i=1000 --param salt=32
roundtrip pbkdf2-sha256 --param i=1000 --param format=phc --param len=64
roundtrip pbkdf2-sha512 --param i=1000 --param format=phc
roundtrip pbkdf2-sha256 --param i=1000 --param format=django
roundtrip pbkdf2-sha1 --param i=1000 --param format=django
# The default target (argon2id m=65536,t=3,p=4), once.
h=$(printf 'default\n' | "$K" hash --conf "$CONF")
case "$h" in '$argon2id$v=19$m=65536,t=3,p=4$'*) good ;; *) bad "default target hash '$h'" ;; esac
oracle default "$h" && good || bad "oracle rejects the default target hash"
# The conf's target, and --param on top of it.
h=$(printf 'x\n' | "$K" hash --conf "$tmp/bcrypt.conf" --param cost=4)
case "$h" in '$2b$04$'*) good ;; *) bad "conf target + --param cost=4: '$h'" ;; esac
IN=x
expect_err 2 "max.bcrypt" "$K" hash --conf "$CONF" --scheme bcrypt --param cost=17
IN=x
expect_err 2 "max.memory-hard" "$K" hash --conf "$CONF" --param m=2097152
IN=x
expect_err 2 "unknown parameter" "$K" hash --conf "$CONF" --scheme bcrypt --param m=5
IN=x
expect_err 2 "KEY=VALUE" "$K" hash --conf "$CONF" --param cost
IN=x
expect_err 2 "unknown target scheme" "$K" hash --conf "$CONF" --scheme md5
IN=x
expect_err 2 "minor" "$K" hash --conf "$CONF" --scheme bcrypt --param minor=x
"$K" hash --conf "$CONF" --scheme bcrypt --param cost=4 <"$tmp/pw4097" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "password too long" "$tmp/err" && good || bad "hash: long password"
for isa in $("$K" cpu | sed -n 's/.*compiled in://p' | tr ' ' '\n' | grep -E '=(yes|slow-here)$' |
    sed 's/=.*//' | sort -u); do
    h=$(printf 'isa\n' | "$K" hash --isa "$isa" --scheme argon2id --param m=64 --param t=1 --param p=1)
    oracle isa "$h" && good || bad "--isa $isa: argon2id hash rejected by argon2-cffi"
    h=$(printf 'isa\n' | "$K" hash --isa "$isa" --scheme pbkdf2-sha512 --param i=100 --param format=phc)
    oracle isa "$h" && good || bad "--isa $isa: pbkdf2-sha512 hash rejected by hashlib"
    h=$(printf 'isa\n' | "$K" hash --isa "$isa" --scheme bcrypt --param cost=4)
    oracle isa "$h" && good || bad "--isa $isa: bcrypt hash rejected by the bcrypt module"
done

# ---- cpu, help, version ---------------------------------------------------------
"$K" cpu >"$tmp/cpu" && good || bad "cpu exit status"
for p in features sha1 sha256 sha512 blamka blowfish; do
    grep -q "^$p" "$tmp/cpu" && good || bad "cpu output lacks $p"
done
grep -q "in use: portable" <("$K" cpu --isa portable) && good || bad "cpu --isa portable"
for c in parse needs-rehash audit verify hash cpu check-conf disable; do
    expect 0 "*" "$K" "$c" --help
    expect 0 "*" "$K" help "$c"
done
expect 0 "*" "$K" --help
expect 0 "*" "$K" --version
expect_err 2 "unknown command" "$K" frobnicate
expect_err 2 "Usage" "$K"
expect_err 2 "Usage" "$K" audit --no-such-option

# check-conf: a file the module would load (exit 0, the effective target
# on one line) or FILE:LINE: reason and exit 1, for every refusal the
# module would run degraded on.
expect 0 "$CONF: ok: target = argon2id m=65536,t=3,p=4,salt=16,len=32" "$K" check-conf "$CONF"
printf 'target = bcrypt cost=13\n' >"$tmp/cc-ok.conf"
expect 0 "$tmp/cc-ok.conf: ok: target = bcrypt cost=13,minor=b" "$K" check-conf "$tmp/cc-ok.conf"
printf '# edited\ntargte = argon2id m=65536,t=3,p=4\n' >"$tmp/cc-typo.conf"
expect_err 1 "cc-typo.conf:2: unknown key 'targte'" "$K" check-conf "$tmp/cc-typo.conf"
# The old name of max.memory-hard loads, with a notice naming the line and
# the new name (exit status unchanged); the new name draws none.
printf '# old\nmax.argon2 = m=262144\n' >"$tmp/cc-alias.conf"
expect 0 "$tmp/cc-alias.conf: ok: target = argon2id m=65536,t=3,p=4,salt=16,len=32" \
    "$K" check-conf "$tmp/cc-alias.conf"
expect_err 0 "cc-alias.conf:2: 'max.argon2' is the old name of 'max.memory-hard'" \
    "$K" check-conf "$tmp/cc-alias.conf"
printf 'max.memory-hard = m=262144\n' >"$tmp/cc-new.conf"
if "$K" check-conf "$tmp/cc-new.conf" >/dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
    good
else
    bad "check-conf max.memory-hard: exit or stderr '$(cat "$tmp/err")'"
fi
printf 'max.memory = 32768\n' >"$tmp/cc-mem.conf"
expect_err 1 "cc-mem.conf:1: max.memory: 32768 KiB is below" "$K" check-conf "$tmp/cc-mem.conf"
printf 'target = pbkdf2-sha256 i=1\n' >"$tmp/cc-min.conf"
expect_err 1 "cc-min.conf:1: target: pbkdf2-sha256 is below the policy's own min.pbkdf2-sha256" \
    "$K" check-conf "$tmp/cc-min.conf"
printf 'target = argon2id m=8,t=1,p=1\n' >"$tmp/cc-min2.conf"
expect_err 1 "cc-min2.conf:1: target: argon2id is below the policy's own min.argon2" \
    "$K" check-conf "$tmp/cc-min2.conf"
printf 'max.bcrypt = 15\n' >"$tmp/cc-own.conf"
chmod 0646 "$tmp/cc-own.conf"
expect_err 1 "cc-own.conf: world-writable" "$K" check-conf "$tmp/cc-own.conf"
chmod 0644 "$tmp/cc-own.conf"
if [ "$(id -u)" = 0 ]; then
    chown 65534 "$tmp/cc-own.conf"
    expect_err 1 "cc-own.conf: owned by uid 65534, not root" "$K" check-conf "$tmp/cc-own.conf"
    chown 0:65534 "$tmp/cc-own.conf"
    chmod 0664 "$tmp/cc-own.conf"
    expect_err 1 "cc-own.conf: writable by group 65534" "$K" check-conf "$tmp/cc-own.conf"
    chown 0:0 "$tmp/cc-own.conf"
    expect 0 "$tmp/cc-own.conf: ok: target = argon2id m=65536,t=3,p=4,salt=16,len=32" \
        "$K" check-conf "$tmp/cc-own.conf"
else
    # An ordinary user's process may read that user's own file (a root
    # host never reads another owner's).
    expect 0 "$tmp/cc-own.conf: ok: target = argon2id m=65536,t=3,p=4,salt=16,len=32" \
        "$K" check-conf "$tmp/cc-own.conf"
fi
expect_err 1 "cannot open" "$K" check-conf "$tmp/nonexistent.conf"
expect_err 2 "Usage" "$K" check-conf "$CONF" "$CONF"
expect 0 "*" "$K" check-conf --help

# disable: pam-auth-update --disable kdfhash (a stand-in that records its
# arguments) only when no account is left that pam_unix cannot verify (a
# history file that is not there has no entries to weigh).
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> "%s/pau.called"\n' "$tmp" >"$tmp/pau"
chmod 755 "$tmp/pau"
export KDFHASH_PAM_AUTH_UPDATE="$tmp/pau"
grep -E '^[^:]*:\$(2b|y|6)\$' "$DATA/demo.shadow" >"$tmp/unix.shadow"
cp "$DATA/demo.shadow" "$tmp/mixed.shadow"
n_foreign=$("$K" audit "$tmp/mixed.shadow" | sed -n 's/^pam_unix cannot verify: //p')
[ "${n_foreign:-0}" -gt 0 ] && good || bad "demo.shadow has no entry pam_unix cannot verify"
[ "$(grep -c . "$tmp/unix.shadow")" -gt 0 ] && good || bad "no libxcrypt entry in demo.shadow"
rm -f "$tmp/pau.called"
expect_err 1 "$n_foreign accounts in $tmp/mixed.shadow have a hash that pam_unix cannot verify" \
    "$K" disable "$tmp/mixed.shadow"
[ ! -e "$tmp/pau.called" ] && good || bad "disable ran pam-auth-update while accounts were stranded"
grep -qF "THE WAY BACK" "$tmp/err" && good || bad "disable's refusal names no way back"
leak=0
for h in $(cut -d: -f2 "$tmp/mixed.shadow" | grep '\$'); do grep -qF -- "$h" "$tmp/err" && leak=1; done
[ "$leak" = 0 ] && good || bad "disable printed a hash"
expect_err 1 "would refuse" "$K" disable --dry-run "$tmp/mixed.shadow"
[ ! -e "$tmp/pau.called" ] && good || bad "disable --dry-run ran pam-auth-update"
expect 0 "kdfhash disable: pam_kdfhash is off ($tmp/pau --disable kdfhash)" \
    "$K" disable --force --history-file "$tmp/no-opasswd" "$tmp/mixed.shadow"
[ "$(cat "$tmp/pau.called" 2>/dev/null)" = "--disable kdfhash" ] && good ||
    bad "disable --force: pam-auth-update got '$(cat "$tmp/pau.called" 2>/dev/null)'"
rm -f "$tmp/pau.called"
expect 0 "kdfhash disable: pam_kdfhash is off ($tmp/pau --disable kdfhash)" \
    "$K" disable --history-file "$tmp/no-opasswd" "$tmp/unix.shadow"
[ "$(cat "$tmp/pau.called" 2>/dev/null)" = "--disable kdfhash" ] && good || bad "disable did not run pam-auth-update"
rm -f "$tmp/pau.called"
expect_err 2 "cannot read" "$K" disable "$tmp/no-such.shadow"
# The history of remember=N: entries pam_unix cannot read (Argon2, PBKDF2,
# keyed) are counted per user; without --history drop|keep, nothing changes.
argon=$(hash_of erin | tr , ';')
pbk=$(hash_of heidi)
printf 'alice:1000:3:$1$abcdefgh$0123456789012345678901,%s,%s\nbob:1001:1:%s\ncarol:1002:1:$6$salt$x\n' \
    "$argon" "$pbk" "$argon" >"$tmp/opasswd"
chmod 600 "$tmp/opasswd"
cp "$tmp/opasswd" "$tmp/opasswd.orig"
expect_err 1 "3 entries of the password history $tmp/opasswd (remember=N) are hashes that pam_unix cannot read (Argon2, PBKDF2 or keyed): alice (2) bob (1)" \
    "$K" disable --history-file "$tmp/opasswd" "$tmp/unix.shadow"
[ ! -e "$tmp/pau.called" ] && cmp -s "$tmp/opasswd" "$tmp/opasswd.orig" && good ||
    bad "disable with unreadable history entries changed something"
grep -qF -- "--history drop removes them, --history keep keeps them" "$tmp/err" && good ||
    bad "disable's history refusal names no choice"
leak=0
for h in "$argon" "$pbk"; do grep -qF -- "$h" "$tmp/err" && leak=1; done
[ "$leak" = 0 ] && good || bad "disable printed a history entry"
expect 0 "kdfhash disable: would run $tmp/pau --disable kdfhash
kdfhash disable: would drop 3 history entries ($tmp/opasswd)" \
    "$K" disable --dry-run --history drop --history-file "$tmp/opasswd" "$tmp/unix.shadow"
cmp -s "$tmp/opasswd" "$tmp/opasswd.orig" && good || bad "disable --dry-run changed the history"
expect 0 "kdfhash disable: pam_kdfhash is off ($tmp/pau --disable kdfhash)
kdfhash disable: kept 3 history entries pam_unix cannot read ($tmp/opasswd)" \
    "$K" disable --history keep --history-file "$tmp/opasswd" "$tmp/unix.shadow"
cmp -s "$tmp/opasswd" "$tmp/opasswd.orig" && good || bad "disable --history keep changed the history"
rm -f "$tmp/pau.called"
expect 0 "kdfhash disable: pam_kdfhash is off ($tmp/pau --disable kdfhash)
kdfhash disable: kept 3 history entries pam_unix cannot read ($tmp/opasswd)" \
    "$K" disable --force --history-file "$tmp/opasswd" "$tmp/unix.shadow"
cmp -s "$tmp/opasswd" "$tmp/opasswd.orig" && good || bad "disable --force changed the history"
rm -f "$tmp/pau.called"
expect 0 "kdfhash disable: pam_kdfhash is off ($tmp/pau --disable kdfhash)
kdfhash disable: dropped 3 history entries pam_unix cannot read ($tmp/opasswd)" \
    "$K" disable --history drop --history-file "$tmp/opasswd" "$tmp/unix.shadow"
[ "$(cat "$tmp/opasswd")" = 'alice:1000:1:$1$abcdefgh$0123456789012345678901
carol:1002:1:$6$salt$x' ] && [ "$(stat -c %a "$tmp/opasswd")" = 600 ] && good ||
    bad "disable --history drop: '$(cat "$tmp/opasswd")'"
[ "$(cat "$tmp/pau.called" 2>/dev/null)" = "--disable kdfhash" ] && good ||
    bad "disable --history drop did not run pam-auth-update"
rm -f "$tmp/pau.called"
expect_err 2 "Usage" "$K" disable --history maybe "$tmp/unix.shadow"
printf '#!/bin/sh\nexit 3\n' >"$tmp/pau"
expect_err 2 "failed" "$K" disable --history-file "$tmp/no-opasswd" "$tmp/unix.shadow"
unset KDFHASH_PAM_AUTH_UPDATE

# ---- a NUL in the password ------------------------------------------------------
# bcrypt and crypt(3) read a C string: "\0abc" would hash as the empty
# password (CVE-2024-3096's pattern).  Refused, with no hash printed; Argon2
# and PBKDF2 read every byte and take it.
for s in bcrypt yescrypt sha512crypt; do
    out=$(printf '\000abc' | "$K" hash --scheme "$s" 2>"$tmp/err")
    rc=$?
    if [ $rc = 2 ] && [ -z "$out" ] && grep -q 'NUL byte' "$tmp/err"; then good; else
        bad "hash --scheme $s of '\\0abc': exit $rc, '$out', $(cat "$tmp/err")"
    fi
done
h=$(printf '\000abc' | "$K" hash --scheme argon2id --param m=1024 --param t=1 --param p=1 2>"$tmp/err")
case $h in '$argon2id$'*) good ;; *) bad "argon2id refused a NUL: $(cat "$tmp/err")" ;; esac
out=$(printf '\000abc' | "$K" verify "$h") && [ "$out" = ok ] && good || bad "argon2id NUL: '$out'"
out=$(printf 'abc' | "$K" verify "$h"; echo "rc=$?") && [ "$out" = "mismatch
rc=1" ] && good || bad "argon2id without the NUL: '$out'"
h=$(printf '' | "$K" hash --scheme bcrypt --param cost=4)
expect_err 2 "" sh -c "printf '\\000abc' | '$K' verify '$h'"

# ---- scrypt-shaped costs: a tiny N r with a huge p ----------------------------
# N = 4, r = 1, p = 2^22: 512 MiB of PBKDF2 output and seconds of SHA-256 in
# libxcrypt; refused by the caps before any work.
IN=x expect_err 2 "p above max.memory-hard p" "$K" verify \
    '$7$0/.......E.abcdefghijklmnop$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
IN=x expect_err 2 "p above max.memory-hard p" "$K" verify \
    '$scrypt$ln=2,r=1,p=4194304$YWJjZGVmZ2hpamtsbW5vcA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

echo "test_cli.sh: $pass passed, $fail failed"
[ $fail = 0 ]
