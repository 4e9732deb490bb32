#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_unix_options.sh - tools/kdfhash-unix-options, which names the
# options of pam_unix's password line that stop applying once
# pam_kdfhash's line comes first (the postinst and kdfhash-stranded.service
# run it):
#   - Debian 12's default line (obscure use_authtok try_first_pass
#     yescrypt) under the profile's line: nothing lost, nothing printed;
#   - the same under the profile's Password-Initial line (nullok alone:
#     the stock stack without pam_pwquality, where the module asks first):
#     silent too, use_authtok/try_first_pass/use_first_pass never advised
#     (use_authtok there makes every password change fail);
#   - remember=2, minlen=8, debug, authtok_type= and an unknown option on
#     pam_unix's line: each named with what to add to the module's line,
#     scheme options, rounds= and obscure as done differently;
#   - the same options on the module's line too: silent again;
#   - no module line, the module after pam_unix, comment lines only, or a
#     file that cannot be read: silent;
#   - --log hands logger(1) one authpriv.warning line naming the lost
#     options, --wall hands wall(1) the message (stand-ins first on PATH);
#   - exit status 0 in every case, an unknown option included.
set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
UO=$top_srcdir/tools/kdfhash-unix-options
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

mkdir -p "$tmp/bin" "$tmp/pamd"
cat > "$tmp/bin/logger" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >> "$tmp/logger.args"
EOF
cat > "$tmp/bin/wall" <<EOF
#!/bin/sh
cat >> "$tmp/wall.in"
EOF
chmod +x "$tmp/bin/logger" "$tmp/bin/wall"

KDF='[success=end user_unknown=ignore authinfo_unavail=ignore service_err=ignore ignore=ignore default=die]'
# stack KDF-ARGS UNIX-ARGS: common-password as pam-auth-update writes it
# with the profile enabled ("-" for no line of that module).
stack() {
    {
        echo "# here are the per-package modules (the \"Primary\" block)"
        echo "password	requisite			pam_pwquality.so retry=3"
        [ "$1" = - ] || printf 'password\t%s\tpam_kdfhash.so %s\n' "$KDF" "$1"
        [ "$2" = - ] || printf 'password\t[success=1 default=ignore]\tpam_unix.so %s\n' "$2"
        echo "password	requisite			pam_deny.so"
        echo "password	required			pam_permit.so"
    } > "$tmp/pamd/common-password"
}

# run ARGS...: the script on the fixture; stderr in err, status in rc.
run() {
    rm -f "$tmp/logger.args" "$tmp/wall.in"
    PATH="$tmp/bin:$PATH" KDFHASH_PAMD=$tmp/pamd sh "$UO" "$@" > "$tmp/out" 2> "$tmp/err"
    echo $? > "$tmp/rc"
}

silent() {
    if [ "$(cat "$tmp/rc")" = 0 ] && [ ! -s "$tmp/err" ] && [ ! -s "$tmp/out" ] &&
        [ ! -e "$tmp/logger.args" ] && [ ! -e "$tmp/wall.in" ]; then
        ok "$1: silent, exit 0"
    else
        bad "$1: rc $(cat "$tmp/rc"), said: $(cat "$tmp/out" "$tmp/err")"
    fi
}

says() {
    if grep -qF -- "$2" "$tmp/err"; then ok "$1"; else bad "$1: no '$2' in: $(cat "$tmp/err")"; fi
}

PROFILE='nullok use_authtok try_first_pass'
DEBIAN='obscure use_authtok try_first_pass yescrypt'

stack "$PROFILE" "$DEBIAN"
run --log --wall
silent "Debian 12's default pam_unix line"

# No pam_pwquality: the module's line is the first password line.
INITIAL='nullok'
stack "$INITIAL" "$DEBIAN use_first_pass"
sed -i '/pam_pwquality/d' "$tmp/pamd/common-password"
run --log --wall
silent "the stock stack without pam_pwquality (Password-Initial line)"

stack "$PROFILE" "$DEBIAN remember=2 minlen=8 debug rounds=7 authtok_type=UNIX frobnicate"
run --log --wall
[ "$(cat "$tmp/rc")" = 0 ] && ok "exit 0 with options lost" || bad "exit $(cat "$tmp/rc")"
says "remember=2 named" "add remember=2 to pam_kdfhash's password line"
says "minlen=8 named" "add minlen=8 to pam_kdfhash's password line"
says "debug named" "debug: add debug to pam_kdfhash's password line"
says "authtok_type= named" "add authtok_type=UNIX to pam_kdfhash's password line"
says "an unknown option named" "frobnicate: not known to this check"
says "rounds= as done differently" "rounds=7: the cost of a new hash is the target's"
says "yescrypt as done differently" "yescrypt: a new password is hashed at kdfhash.conf's target"
says "obscure as done differently" "obscure: the module does no such checks"
if grep -qF 'use_authtok:' "$tmp/err" || grep -qF 'try_first_pass:' "$tmp/err"; then
    bad "options the module's line has are named: $(cat "$tmp/err")"
else ok "options the module's line has are not named"; fi
if [ "$(wc -l < "$tmp/logger.args" 2> /dev/null)" = 1 ] &&
    grep -q '^-p authpriv.warning -t kdfhash -- .*remember=2 minlen=8 debug authtok_type=UNIX frobnicate' \
        "$tmp/logger.args"; then
    ok "--log: one authpriv.warning line naming the lost options"
else bad "--log: logger got '$(cat "$tmp/logger.args" 2> /dev/null)'"; fi
if [ -s "$tmp/wall.in" ] && cmp -s "$tmp/wall.in" "$tmp/err"; then
    ok "--wall: wall(1) got the message"
else bad "--wall: wall got '$(cat "$tmp/wall.in" 2> /dev/null)'"; fi

run
if [ -s "$tmp/err" ] && [ ! -e "$tmp/logger.args" ] && [ ! -e "$tmp/wall.in" ]; then
    ok "stderr only without --log and --wall"
else bad "logger or wall ran without --log/--wall"; fi

stack "$PROFILE remember=2 minlen=8 debug authtok_type=UNIX" "$DEBIAN remember=2 minlen=8 debug"
run --log
silent "the options on the module's line too"

stack "$PROFILE remember=3" "$DEBIAN remember=2"
run
says "a different remember= on the module's line" "add remember=2"

stack "$PROFILE" "$DEBIAN minlen=6 remember=0"
run
silent "minlen=6 and remember=0, the defaults"

stack - "$DEBIAN remember=2"
run --log --wall
silent "no pam_kdfhash line"

{
    printf 'password\t[success=1 default=ignore]\tpam_unix.so remember=2\n'
    printf 'password\t%s\tpam_kdfhash.so nullok\n' "$KDF"
} > "$tmp/pamd/common-password"
run
silent "pam_kdfhash after pam_unix"

{
    printf '#password\t%s\tpam_kdfhash.so nullok\n' "$KDF"
    printf 'password\t[success=1 default=ignore]\tpam_unix.so remember=2\n'
} > "$tmp/pamd/common-password"
run
silent "a commented-out pam_kdfhash line"

run "$tmp/no-such-file"
silent "a file that cannot be read"

stack "$PROFILE" "$DEBIAN remember=2"
run --frobnicate
[ "$(cat "$tmp/rc")" = 0 ] && ok "an unknown option: exit 0" || bad "unknown option: exit $(cat "$tmp/rc")"

[ "$fail" = 0 ] || exit 1
exit 0
