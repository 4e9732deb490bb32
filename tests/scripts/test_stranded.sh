#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_stranded.sh - what tells an administrator that accounts are left
# with a hash only pam_kdfhash can verify (the way back):
#
#   1. tools/kdfhash-foreign-count (awk, for maintainer scripts) and
#      `kdfhash audit`'s "pam_unix cannot verify" (which asks the system's
#      libxcrypt, crypt_checksalt) give the same count, on the demo shadow
#      file and on one entry of each kind: Argon2 (three variants, one
#      locked), PBKDF2 (passlib, Django, PHC), passlib's $scrypt$ (which
#      libxcrypt cannot read) against libxcrypt's own $7$ scrypt, bcrypt,
#      yescrypt, SHA-crypt, DES, empty and locked-only fields;
#   2. tools/kdfhash-stranded-notice, which the postinst, the prerm and
#      kdfhash-stranded.service run:
#      - silent while a file of the PAM directory uses pam_kdfhash.so, and
#        a commented-out line does not count as a use;
#      - with no such file: the count, the names and how to migrate
#        (target = yescrypt, migrate = yes, kdfhash audit), on stderr only;
#      - --removing speaks whatever the PAM directory holds;
#      - silent when no account is stranded, or the file cannot be read;
#      - --log hands logger(1) one authpriv.warning line with the count
#        and the names, and --wall hands wall(1) the whole message (both
#        through stand-ins first on PATH, which record what they got);
#      - exit status 0 in every case, an unknown option included (it runs
#        from maintainer scripts that must not fail).
# The hashes are made here by independent implementations (passlib,
# argon2-cffi, pyca bcrypt, and libxcrypt through mkpasswd), not by kdfhash.
set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
K=$top_builddir/cli/kdfhash
FC=$top_srcdir/tools/kdfhash-foreign-count
SN=$top_srcdir/tools/kdfhash-stranded-notice
# The counter's list of prefixes (from the scheme table, committed).
FP=$top_srcdir/tools/kdfhash-foreign-prefixes
[ -s "$FP" ] || { echo "FAIL: $FP missing"; exit 1; }
PY=/usr/bin/python3
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
$PY -c 'import passlib, argon2, bcrypt' 2>/dev/null || {
    echo "FAIL: /usr/bin/python3 lacks passlib/argon2/bcrypt (apt-get install python3-passlib python3-argon2 python3-bcrypt)"
    exit 1
}
command -v mkpasswd > /dev/null 2>&1 || { echo "FAIL: mkpasswd not installed (package whois)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_stranded.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
good() { echo "ok: $*"; pass=$((pass + 1)); }

# audit FILE: kdfhash audit's "pam_unix cannot verify" count
audit_count() {
    "$K" audit --conf "$top_srcdir/packaging/kdfhash.conf" "$1" 2> /dev/null |
        sed -n 's/^pam_unix cannot verify: //p'
}

# ---- 1. two counters, one answer --------------------------------------------
n_fc=$(KDFHASH_FOREIGN_PREFIXES=$FP sh "$FC" "$top_srcdir/tests/data/demo.shadow")
n_au=$(audit_count "$top_srcdir/tests/data/demo.shadow")
if [ -n "$n_fc" ] && [ "$n_fc" = "$n_au" ] && [ "$n_fc" -gt 0 ]; then
    good "demo.shadow: foreign-count and kdfhash audit both say $n_fc"
else bad "demo.shadow: foreign-count says '$n_fc', kdfhash audit '$n_au'"; fi

$PY - "$tmp/kinds.shadow" <<'EOF' || { echo "FAIL: could not make the fixture"; exit 1; }
import sys, subprocess
from passlib.hash import pbkdf2_sha256, pbkdf2_sha512, django_pbkdf2_sha256, scrypt
import argon2, bcrypt
ph = lambda t: argon2.PasswordHasher(time_cost=1, memory_cost=64, parallelism=1, type=t)
def mk(method, *extra):
    return subprocess.run(["mkpasswd", "-m", method, *extra, "pw"], check=True,
                          capture_output=True, text=True).stdout.strip()
# (name, field 2, 1 if pam_unix cannot verify it)
rows = [
    ("sa2id", ph(argon2.Type.ID).hash("pw"), 1),
    ("sa2i", ph(argon2.Type.I).hash("pw"), 1),
    ("sa2d", ph(argon2.Type.D).hash("pw"), 1),
    ("sa2lock", "!" + ph(argon2.Type.ID).hash("pw"), 1),
    ("spass", pbkdf2_sha256.using(rounds=1000).hash("pw"), 1),
    ("spass512", pbkdf2_sha512.using(rounds=1000).hash("pw"), 1),
    ("sdjango", django_pbkdf2_sha256.using(rounds=1000).hash("pw"), 1),
    ("sscrypt", scrypt.using(rounds=4).hash("pw"), 1),
    ("u7", mk("scrypt"), 0),
    ("ubcrypt", bcrypt.hashpw(b"pw", bcrypt.gensalt(4)).decode(), 0),
    ("uy", mk("yescrypt"), 0),
    ("u6", mk("sha512crypt"), 0),
    ("udes", mk("descrypt"), 0),
    ("uempty", "", 0),
    ("ulocked", "!", 0),
    ("ustar", "*", 0),
]
with open(sys.argv[1], "w") as f:
    for name, h, _ in rows:
        f.write("%s:%s:19000:0:99999:7:::\n" % (name, h))
with open(sys.argv[1] + ".want", "w") as f:
    f.write("".join(n + "\n" for n, _, s in rows if s))
EOF
want_n=$(wc -l < "$tmp/kinds.shadow.want")
n_fc=$(KDFHASH_FOREIGN_PREFIXES=$FP sh "$FC" "$tmp/kinds.shadow")
n_au=$(audit_count "$tmp/kinds.shadow")
if [ "$n_fc" = "$want_n" ] && [ "$n_au" = "$want_n" ]; then
    good "one entry of each kind: both counters say $want_n"
else bad "one entry of each kind: foreign-count '$n_fc', kdfhash audit '$n_au', want $want_n"; fi
KDFHASH_FOREIGN_PREFIXES=$FP sh "$FC" -l "$tmp/kinds.shadow" > "$tmp/kinds.names"
if cmp -s "$tmp/kinds.names" "$tmp/kinds.shadow.want"; then
    good "foreign-count -l names exactly the stranded accounts"
else bad "foreign-count -l: $(tr '\n' ' ' < "$tmp/kinds.names"), want $(tr '\n' ' ' < "$tmp/kinds.shadow.want")"; fi

# ---- 2. the notice ------------------------------------------------------------
# The notice finds the counter next to it, as in the package.
mkdir -p "$tmp/share" "$tmp/bin" "$tmp/pamd-with" "$tmp/pamd-without" "$tmp/pamd-commented"
cp "$FC" "$tmp/share/foreign-count"
cp "$FP" "$tmp/share/foreign-prefixes"
cp "$SN" "$tmp/share/stranded-notice"
printf 'auth [success=end default=die] pam_kdfhash.so nullok\nauth required pam_unix.so\n' \
    > "$tmp/pamd-with/common-auth"
printf 'auth required pam_unix.so nullok\n' > "$tmp/pamd-without/common-auth"
printf 'auth required pam_unix.so nullok\n#auth [success=end] pam_kdfhash.so\n' \
    > "$tmp/pamd-commented/common-auth"
cat > "$tmp/bin/logger" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >> "$tmp/logger.args"
EOF
cat > "$tmp/bin/wall" <<EOF
#!/bin/sh
cat >> "$tmp/wall.in"
EOF
chmod +x "$tmp/bin/logger" "$tmp/bin/wall"

# notice PAMD ARGS...: run it; stdout, stderr and status into $tmp/out, err, rc
notice() {
    pamd=$1
    shift
    rm -f "$tmp/logger.args" "$tmp/wall.in"
    PATH="$tmp/bin:$PATH" KDFHASH_PAMD=$pamd sh "$tmp/share/stranded-notice" "$@" \
        > "$tmp/out" 2> "$tmp/err"
    echo $? > "$tmp/rc"
}

notice "$tmp/pamd-with" "$tmp/kinds.shadow"
if [ "$(cat "$tmp/rc")" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
    good "silent while a PAM file uses pam_kdfhash.so"
else bad "with the module in the stack: rc $(cat "$tmp/rc"), '$(cat "$tmp/out" "$tmp/err")'"; fi

names=$(tr '\n' ' ' < "$tmp/kinds.shadow.want")
for d in pamd-without pamd-commented; do
    notice "$tmp/$d" "$tmp/kinds.shadow"
    lacks=
    for t in "$want_n accounts in $tmp/kinds.shadow have an Argon2, PBKDF2, scrypt or web-application" \
        "$names" 'pam-auth-update --enable kdfhash' 'target = yescrypt' 'migrate = yes' \
        "kdfhash audit $tmp/kinds.shadow"; do
        grep -qF -- "$t" "$tmp/err" || lacks="$lacks [$t]"
    done
    if [ "$(cat "$tmp/rc")" = 0 ] && [ -z "$lacks" ] && [ ! -s "$tmp/out" ]; then
        good "$d: the count, the names and how to migrate, on stderr"
    else bad "$d: rc $(cat "$tmp/rc"), stdout '$(cat "$tmp/out")', lacks$lacks: $(cat "$tmp/err")"; fi
    if [ -e "$tmp/logger.args" ] || [ -e "$tmp/wall.in" ]; then
        bad "$d: logger or wall ran without --log/--wall"
    fi
done

notice "$tmp/pamd-with" --removing "$tmp/kinds.shadow"
if [ "$(cat "$tmp/rc")" = 0 ] && grep -q "^libpam-kdfhash: WARNING: $want_n accounts" "$tmp/err" &&
    grep -q 'reinstall libpam-kdfhash' "$tmp/err"; then
    good "--removing speaks with the module still in the stack"
else bad "--removing: rc $(cat "$tmp/rc"), '$(cat "$tmp/err")'"; fi

grep -v '^s' "$tmp/kinds.shadow" > "$tmp/clean.shadow"
notice "$tmp/pamd-without" --removing --log --wall "$tmp/clean.shadow"
if [ "$(cat "$tmp/rc")" = 0 ] && [ ! -s "$tmp/err" ] && [ ! -e "$tmp/logger.args" ] &&
    [ ! -e "$tmp/wall.in" ]; then
    good "silent when no account is stranded"
else bad "no stranded account: rc $(cat "$tmp/rc"), '$(cat "$tmp/err")'"; fi

notice "$tmp/pamd-without" --log --wall "$tmp/no-such-file"
if [ "$(cat "$tmp/rc")" = 0 ] && [ ! -s "$tmp/err" ]; then
    good "silent, status 0, when the shadow file cannot be read"
else bad "unreadable file: rc $(cat "$tmp/rc"), '$(cat "$tmp/err")'"; fi

# A counter without its list of prefixes (a broken installation) is said,
# not taken for "nobody stranded".
mkdir -p "$tmp/broken"
cp "$FC" "$tmp/broken/foreign-count"
cp "$SN" "$tmp/broken/stranded-notice"
KDFHASH_PAMD=$tmp/pamd-without sh "$tmp/broken/stranded-notice" "$tmp/kinds.shadow" \
    > /dev/null 2> "$tmp/broken.err"
rc=$?
if [ "$rc" = 0 ] && grep -q 'cannot tell which accounts' "$tmp/broken.err"; then
    good "no list of prefixes: the notice says it cannot count, status 0"
else bad "no list of prefixes: rc $rc, '$(cat "$tmp/broken.err")'"; fi

notice "$tmp/pamd-without" --log --wall "$tmp/kinds.shadow"
if [ "$(cat "$tmp/rc")" = 0 ] &&
    grep -q "^-p authpriv.warning -t kdfhash -- no file of $tmp/pamd-without uses pam_kdfhash while $want_n accounts" \
        "$tmp/logger.args" 2> /dev/null &&
    grep -qF "$names" "$tmp/logger.args" && [ "$(wc -l < "$tmp/logger.args")" = 1 ]; then
    good "--log: one authpriv.warning line with the count and the names"
else bad "--log: logger got '$(cat "$tmp/logger.args" 2> /dev/null)'"; fi
if cmp -s "$tmp/err" "$tmp/wall.in"; then
    good "--wall: wall gets the message printed on stderr"
else bad "--wall: wall got '$(cat "$tmp/wall.in" 2> /dev/null)'"; fi
# No hash of the file reaches any output.
leak=0
for h in $(cut -d: -f2 "$tmp/kinds.shadow" | sed 's/^!//' | grep '\$'); do
    for f in "$tmp/err" "$tmp/logger.args" "$tmp/wall.in"; do
        grep -qF -- "$h" "$f" && leak=1
    done
done
if [ "$leak" = 0 ]; then good "no hash in stderr, syslog or wall"; else bad "a hash reached the notice's output"; fi

KDFHASH_PAMD=$tmp/pamd-without sh "$tmp/share/stranded-notice" --bogus > /dev/null 2>&1
rc=$?
if [ "$rc" = 0 ]; then good "an unknown option still exits 0"; else bad "unknown option: exit $rc"; fi

# The notice's pointers lead somewhere: the section it names is in
# pam_kdfhash(8) (source and shipped page), and the command it names is one
# of kdfhash(1)'s.
notice "$tmp/pamd-without" "$tmp/kinds.shadow"
sect=$(sed -n 's/.*pam_kdfhash(8), \([A-Z][A-Z ]*[A-Z]\).*/\1/p' "$tmp/err" | head -1)
if [ -n "$sect" ] && grep -qx "# $sect" "$top_srcdir/doc/pam_kdfhash.8.scd" &&
    grep -qx ".SH $sect" "$top_srcdir/doc/pam_kdfhash.8"; then
    good "the notice's pam_kdfhash(8) section '$sect' exists"
else bad "the notice points at pam_kdfhash(8) section '$sect', which the page lacks"; fi
if grep -q '"kdfhash disable"' "$tmp/err" && "$K" --help | grep -q '^ *disable '; then
    good "the notice's kdfhash disable is a command of kdfhash"
else bad "the notice names kdfhash disable, which kdfhash --help lacks"; fi

echo "test_stranded: $pass passed, $fail failed"
[ "$fail" = 0 ]
