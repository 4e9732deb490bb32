#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fail2ban.sh - fail2ban's stock pam-generic filter, given the module's
# name (__pam_auth=pam_kdfhash, as the jail in pam_kdfhash(8) sets it),
# bans on the lines the real module writes.  pamtester logs in through
# pam_kdfhash.so and then through pam_unix.so, with the remote host and tty
# set as sshd sets them (-I rhost= -I tty=); glibc's syslog() writes to a
# stand-in /dev/log (a datagram socket, in a private mount namespace with
# its own /dev), which writes the lines out as a syslog daemon does.
# Pass: pam_kdfhash's failure lines are pam_unix's word for word but for
# the module's name (a wrong password, an unknown user); fail2ban-regex
# with pam-generic[__pam_auth="pam_kdfhash"] finds the wrong password's
# host and user, the unknown user's host without a name, and nothing for a
# right password, as the stock filter finds the same in pam_unix's lines;
# the facility is authpriv.  Needs root (/etc/pam.d, the namespace),
# pamtester and fail2ban.
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
module="$top_builddir/pam_module/.libs/pam_kdfhash.so"
inc="$top_srcdir/tests/pam/pam_hashes.inc"
py=${PYTHON3_SYSTEM:-/usr/bin/python3}
[ -x "$py" ] || py=python3
pw='S3cret-p4ss!'
user=kdff2b

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root to write /etc/pam.d and mount a /dev of its own (CI runs as root)"
    exit 77
fi
for c in pamtester fail2ban-regex; do
    if ! command -v "$c" >/dev/null 2>&1; then
        echo "FAIL: $c not installed (Debian packages pamtester, fail2ban)"
        exit 1
    fi
done
if [ ! -f "$module" ]; then
    echo "FAIL: $module not built"
    exit 1
fi
# A sanitizer build: as in test_pamtester.sh.
preload=
if nm -D "$module" 2>/dev/null | grep -q ' U __asan_init'; then
    preload=$(ldd "$module" 2>/dev/null | awk '/libasan/ { print $3; exit }')
    if [ -z "$preload" ]; then
        rt=$(${CLANG:-clang} -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
        [ -n "$rt" ] && [ -f "$rt" ] && preload=$rt
    fi
    if [ -z "$preload" ]; then
        echo "SKIP: the module is built with AddressSanitizer and no ASan runtime was found to preload into pamtester"
        exit 77
    fi
    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
    export ASAN_OPTIONS
fi

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_F2B_NS "$@"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdff2b.XXXXXX") || exit 1
logger_pid=
cleanup() {
    [ -n "$logger_pid" ] && kill "$logger_pid" 2>/dev/null
    umount -l /dev 2>/dev/null
    umount -l "$tmp/olddev" 2>/dev/null
    rm -rf "$tmp"
    etc_ns_leave
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# A /dev of our own: the machine's nodes by symlink, and /dev/log ours.
mkdir "$tmp/olddev" && mount --rbind /dev "$tmp/olddev" &&
    mount -t tmpfs -o mode=0755 kdff2b-dev /dev || { echo "FAIL: cannot mount a /dev"; exit 1; }
for e in "$tmp"/olddev/* "$tmp"/olddev/.[!.]*; do
    [ -e "$e" ] || [ -L "$e" ] || continue
    [ "$(basename "$e")" = log ] && continue
    ln -s "$e" "/dev/$(basename "$e")"
done

# The stand-in syslog daemon: "<PRI>Mmm dd hh:mm:ss ident: text" from
# glibc, written as rsyslog's traditional format, with a host name.
"$py" - "$tmp/auth.log" "$tmp/ready" <<'EOF' &
import os, signal, socket, sys
out = open(sys.argv[1], "w")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
os.chmod("/dev/log", 0o666)
open(sys.argv[2], "w").close()
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
while True:
    d = s.recv(65536).decode("utf-8", "replace").rstrip("\n")
    end = d.index(">")
    pri = int(d[1:end])
    rest = d[end + 1:]
    out.write("%s kdfhost %s\tfacility=%d\n" % (rest[:15], rest[16:], pri >> 3))
    out.flush()
EOF
logger_pid=$!
i=0
while [ ! -e "$tmp/ready" ]; do
    i=$((i + 1))
    [ "$i" -gt 100 ] && { echo "FAIL: the stand-in /dev/log did not start"; exit 1; }
    sleep 0.1
done

hash_of() { sed -n "s/^PAM_HASH($1, \"\\(.*\\)\")\$/\\1/p" "$inc"; }
a2=$(hash_of a2id_target)
[ -n "$a2" ] || { echo "FAIL: cannot read $inc"; exit 1; }
: > "$tmp/kdfhash.conf"
printf '%s:%s:19000:0:99999:7:::\n' "$user" "$a2" > "$tmp/shadow"
chmod 600 "$tmp/shadow"
# pam_unix's user, with the same password, in the namespace's /etc.
useradd -M -N -s /usr/sbin/nologin "$user" && printf '%s:%s\n' "$user" "$pw" | chpasswd ||
    { echo "FAIL: useradd/chpasswd"; exit 1; }
cat > "/etc/pam.d/kdff2b-mod-$$" <<EOS
auth required $module shadow=$tmp/shadow conf=$tmp/kdfhash.conf target=argon2id:m=256,t=1,p=1 upgrade=off nodelay
account required pam_permit.so
EOS
cat > "/etc/pam.d/kdff2b-unix-$$" <<EOS
auth required pam_unix.so nodelay
account required pam_permit.so
EOS

fails=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }

# which user password rhost.  The sanitizer runtime is preloaded for our
# module only: pam_unix, the reference, runs as the distribution built it
# (under the preload its lookups of a known user failed without a line).
attempt() {
    _pre=
    [ "$1" = mod ] && _pre=$preload
    printf '%s\n' "$3" | LD_PRELOAD=$_pre pamtester -I "rhost=$4" -I tty=ssh \
        "kdff2b-$1-$$" "$2" authenticate >/dev/null 2>&1
}
for which in mod unix; do
    attempt "$which" "$user" wrong-pass 203.0.113.7 && notok "$which: a wrong password succeeded"
    attempt "$which" nosuchuser "$pw" 2001:db8::5 && notok "$which: an unknown user succeeded"
    attempt "$which" "$user" "$pw" 192.0.2.50 || notok "$which: the right password failed"
done
kill "$logger_pid"
wait "$logger_pid" 2>/dev/null
logger_pid=
sed 's/\tfacility=[0-9]*$//' "$tmp/auth.log" > "$tmp/log"
echo "# the lines written:"
sed 's/^/#   /' "$tmp/log"

# Word for word: pam_unix's lines of the two refusals, under our name.
grep -o 'pam_unix(kdff2b-unix-[0-9]*:auth): \(authentication failure;\|check pass;\).*' "$tmp/log" |
    sed 's/^pam_unix(kdff2b-unix-[0-9]*:auth)//' > "$tmp/unix.lines"
grep -o 'pam_kdfhash(kdff2b-mod-[0-9]*:auth): \(authentication failure;\|check pass;\).*' "$tmp/log" |
    sed 's/^pam_kdfhash(kdff2b-mod-[0-9]*:auth)//' > "$tmp/mod.lines"
if [ -s "$tmp/unix.lines" ] && cmp -s "$tmp/unix.lines" "$tmp/mod.lines"; then
    ok "the module's failure lines are pam_unix's ($(wc -l < "$tmp/mod.lines") lines)"
else
    notok "the module's failure lines differ from pam_unix's:"
    diff "$tmp/unix.lines" "$tmp/mod.lines" | sed 's/^/#   /'
fi
if grep 'pam_kdfhash(' "$tmp/auth.log" | grep -qv 'facility=10$'; then
    notok "a line of the module not at facility authpriv"
else
    ok "the module's lines at facility authpriv"
fi

# fail2ban: the module's lines through the stock filter given its name,
# pam_unix's through the stock filter as shipped.
f2b() { # filter -> "ip user" per match, and the summary line
    fail2ban-regex -o '<ip> <F-USER>' "$tmp/log" "$1" > "$tmp/f2b.out" 2>&1
    fail2ban-regex "$tmp/log" "$1" 2>&1 | grep '^Lines:'
}
want='203.0.113.7 kdff2b
2001:db8::5'
for which in 'pam-generic[__pam_auth="pam_kdfhash"]' pam-generic; do
    summary=$(f2b "$which")
    got=$(sed 's/ *$//' "$tmp/f2b.out")
    echo "# fail2ban-regex $which: $summary"
    if [ "$got" = "$want" ]; then
        ok "fail2ban-regex $which: the refusals' hosts (and the known user), nothing for the right password"
    else
        notok "fail2ban-regex $which matched:"
        sed 's/^/#   /' "$tmp/f2b.out"
    fi
done

if [ "$fails" -eq 0 ]; then
    echo "PASS"
    exit 0
fi
echo "FAIL: $fails"
exit 1
