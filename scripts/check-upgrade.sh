#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-upgrade.sh [DEBDIR [OLDDEBDIR]] - the live upgrade gate: users keep
# logging in, with the right verdict every time, while a machine with the
# released packages (OLDDEBDIR; default: scripts/old-debs.sh prev builds
# the previous release's) is upgraded to the current ones (DEBDIR;
# default: built with scripts/build-deb.sh).  A PAM module is the package whose bad upgrade
# locks every user out at once, so this is what a distribution must see.
#
# As root, in a private mount namespace with a throw-away copy of /etc
# bound over /etc (tests/common/etc_ns.sh: conffiles, pam.d and the users
# land in the copy; dpkg's database and /usr are the machine's, so run it
# in a fresh root, where the packages are purged at the end anyway):
#   1. dpkg -i the old libpam-kdfhash(-bin), pam-auth-update --enable
#      kdfhash; users with outdated entries: bcrypt cost 5 (python3-bcrypt),
#      sha512crypt (libxcrypt through python3's crypt), passlib
#      PBKDF2-SHA256 at 1000 rounds; the admin edits a value of
#      /etc/security/kdfhash.conf the old version knows (the target's
#      costs);
#   2. a loop logs the users in through the common-auth stack (pamtester,
#      a service that includes it) every ~100 ms, right and wrong passwords,
#      recording each verdict; meanwhile apt-get install upgrades to the new
#      .deb files, non-interactively with
#      --force-confdef --force-confold as unattended upgrades do;
#   3. after: 0 wrong verdicts out of N (printed, some during the
#      upgrade), every user's entry argon2id at the admin's costs, the
#      admin's edit kept and no conffile left half-installed (.dpkg-new),
#      the module still in common-auth, both units in /usr/lib/systemd/system
#      and the path unit still enabled, dpkg --audit clean.
set -eu

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
export top_srcdir
svc=kdfhash-upgtest
fails=0
say() { echo "check-upgrade: $*"; }
ok() { say "ok: $*"; }
bad() {
    say "FAIL: $*"
    fails=$((fails + 1))
}
pkgs="libpam-kdfhash libpam-kdfhash-bin"

if [ -z "${KDF_UPG_NS:-}" ]; then
    if [ "$(id -u)" != 0 ]; then
        say "must run as root (it installs and upgrades .deb packages); run it in a fresh root" >&2
        exit 2
    fi
    for p in $pkgs; do
        if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
            say "$p is already installed here; refusing to replace and purge it" >&2
            exit 2
        fi
    done
    KDF_UPG_T0=$(date +%s)
    export KDF_UPG_T0
    need="pamtester python3-bcrypt"
    missing=
    for p in $need; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        say "installing:$missing"
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing > /dev/null 2>&1 ||
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                --no-install-recommends $missing > /dev/null; }
    fi
fi
. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_UPG_NS "$@"

# ---- inside the namespace, /etc a copy ---------------------------------------
start=${KDF_UPG_T0:-$(date +%s)}
work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-upg.XXXXXX")
chmod 755 "$work"
loop_pid=
users=
cleanup() {
    # shellcheck disable=SC2086
    [ -z "$loop_pid" ] || kill $loop_pid 2>/dev/null || :
    # shellcheck disable=SC2086
    dpkg --purge $pkgs > /dev/null 2>&1 || :
    rm -rf "$work"
    etc_ns_leave
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- 0. the packages -----------------------------------------------------------
newdir=${1:-}
olddir=${2:-}
if [ -z "$newdir" ]; then
    newdir=$work/deb
    sh "$top_srcdir/scripts/build-deb.sh" "$newdir" > "$work/build.out" 2>&1 ||
        { tail -30 "$work/build.out"; bad "scripts/build-deb.sh failed"; exit 1; }
fi
if [ -z "$olddir" ]; then
    olddir=${KDF_OLD_DEBS:-/var/cache/kdfhash-old-debs/prev}
    sh "$top_srcdir/scripts/old-debs.sh" prev "$olddir" || { bad "no 0.2.0 packages"; exit 1; }
fi
arch=$(dpkg --print-architecture)
pick() { # pick DIR PACKAGE: the host architecture's .deb of PACKAGE
    ls "$1/$2"_*_"$arch".deb 2>/dev/null | head -1
}
for p in $pkgs; do
    [ -n "$(pick "$olddir" "$p")" ] || { bad "no $p .deb in $olddir"; exit 1; }
    [ -n "$(pick "$newdir" "$p")" ] || { bad "no $p .deb in $newdir"; exit 1; }
done
oldv=$(dpkg-deb -f "$(pick "$olddir" libpam-kdfhash)" Version)
newv=$(dpkg-deb -f "$(pick "$newdir" libpam-kdfhash)" Version)
if dpkg --compare-versions "$newv" gt "$oldv"; then ok "$oldv -> $newv is an upgrade for dpkg"; else
    bad "$newv does not sort after $oldv: dpkg would not upgrade (the version was not bumped)"
    exit 1
fi

# ---- 1. the old release, enabled, with users and an admin's edit ----------------
# shellcheck disable=SC2046
DEBIAN_FRONTEND=noninteractive dpkg -i $(for p in $pkgs; do pick "$olddir" "$p"; done) \
    < /dev/null > "$work/old-install.out" 2>&1 || { cat "$work/old-install.out"; bad "dpkg -i $oldv failed"; exit 1; }
DEBIAN_FRONTEND=noninteractive pam-auth-update --enable kdfhash > "$work/pau.out" 2>&1 ||
    bad "pam-auth-update --enable kdfhash: $(cat "$work/pau.out")"
grep -q pam_kdfhash /etc/pam.d/common-auth && ok "$oldv installed, kdfhash in common-auth" ||
    bad "$oldv: pam_kdfhash not in common-auth after pam-auth-update --enable"
conf=/etc/security/kdfhash.conf
# The admin's edit: cheaper target costs (still above min.argon2), a line
# 0.2.0 reads; the new package ships a changed conffile, so dpkg must keep
# the admin's version.
edit='target = argon2id m=19456,t=2,p=1,salt=16,len=32'
sed -i "s/^target = .*/$edit/" "$conf"
grep -qx "$edit" "$conf" && ok "admin's edit: $edit" || bad "cannot edit $conf"

mk_pw() { # a password per user, not logged anywhere
    head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n'
}
hash_of() { # hash_of KIND PASSWORD
    PW=$2 python3 -W ignore -c '
import base64, hashlib, os, sys
pw = os.environ["PW"]
kind = sys.argv[1]
if kind == "bcrypt":
    import bcrypt
    print(bcrypt.hashpw(pw.encode(), bcrypt.gensalt(5)).decode())
elif kind == "sha512":
    import crypt
    print(crypt.crypt(pw, crypt.mksalt(crypt.METHOD_SHA512)))
else:
    ab64 = lambda b: base64.b64encode(b).decode().rstrip("=").replace("+", ".")
    salt = os.urandom(16)
    dk = hashlib.pbkdf2_hmac("sha256", pw.encode(), salt, 1000)
    print("$pbkdf2-sha256$1000$%s$%s" % (ab64(salt), ab64(dk)))
' "$1"
}
for kind in bcrypt sha512 pbkdf2; do
    u=upg$kind
    pw=$(mk_pw)
    printf '%s' "$pw" > "$work/pw.$u"
    h=$(hash_of "$kind" "$pw")
    if useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$u" > "$work/useradd.out" 2>&1 &&
        usermod -p "$h" "$u" >> "$work/useradd.out" 2>&1; then
        users="$users $u"
        ok "user $u: $(printf '%s' "$h" | cut -c1-7)... ($kind)"
    else bad "useradd $u: $(cat "$work/useradd.out")"; fi
done
printf '@include common-auth\n' > "/etc/pam.d/$svc"

# ---- 2. the login loop, across the upgrade ---------------------------------------
# Each line: time user wanted got.  Two loops: the right passwords every
# ~100 ms, and the wrong ones beside them (a refusal costs libpam's fail
# delay, about 2 s, which would slow the right ones down).
login_loop() { # login_loop accept|refuse
    while [ ! -e "$work/stop" ]; do
        for u in $users; do
            pw=$(cat "$work/pw.$u")
            [ "$1" = accept ] || pw="x$pw"
            if printf '%s\n' "$pw" | pamtester "$svc" "$u" authenticate > /dev/null 2>&1; then
                got=accept
            else got=refuse; fi
            echo "$(date +%s.%N) $u $1 $got" >> "$work/verdicts"
            sleep 0.1
        done
    done
}
wait_logins() { # wait_logins N: until the log holds N more lines, at most 60 s
    n0=$(wc -l < "$work/verdicts")
    k=0
    while [ "$(wc -l < "$work/verdicts")" -lt $((n0 + $1)) ] && [ $k -lt 600 ]; do
        sleep 0.1
        k=$((k + 1))
    done
}
: > "$work/verdicts"
login_loop accept &
loop_pid=$!
login_loop refuse &
loop_pid="$loop_pid $!"
wait_logins 10

# apt-get install of the .deb files by path: apt resolves them as it does
# a repository's, and dpkg handles the conffile as in any upgrade.
set --
for p in $pkgs; do set -- "$@" "$(pick "$newdir" "$p")"; done
before=$(wc -l < "$work/verdicts")
t_up=$(date +%s.%N)
if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@" \
    < /dev/null > "$work/upgrade.out" 2>&1; then
    t_done=$(date +%s.%N)
    ok "apt-get install upgraded to $newv in $(echo "$t_up $t_done" | awk '{ printf "%.1f", $2 - $1 }') s"
else
    t_done=$(date +%s.%N)
    cat "$work/upgrade.out"
    bad "apt-get install of $newv failed"
fi
during=$(($(wc -l < "$work/verdicts") - before))
wait_logins 10
touch "$work/stop"
# shellcheck disable=SC2086
wait $loop_pid || :
loop_pid=

# ---- 3. after ------------------------------------------------------------------
n=$(wc -l < "$work/verdicts")
wrong=$(awk '$3 != $4' "$work/verdicts" | wc -l)
refused=$(awk '$3 == "refuse"' "$work/verdicts" | wc -l)
if [ "$wrong" = 0 ] && [ "$n" -ge 12 ] && [ "$refused" -gt 0 ]; then
    ok "$n logins ($refused with a wrong password, $during during the upgrade): 0 wrong verdicts"
else
    bad "$n logins, $wrong wrong verdicts (of which $refused wanted a refusal, $during during the upgrade):"
    awk '$3 != $4' "$work/verdicts" | head -10
fi
[ "$during" -gt 0 ] || say "note: no login ended while apt-get ran (a fast upgrade); the loop ran before and after"
for v in $pkgs; do
    got=$(dpkg-query -W -f='${Version} ${Status}' "$v" 2>/dev/null || :)
    [ "$got" = "$newv install ok installed" ] && ok "$v $newv installed" || bad "$v: '$got'"
done
# One more login each, then every entry must be the admin's target.
for u in $users; do
    printf '%s\n' "$(cat "$work/pw.$u")" | pamtester "$svc" "$u" authenticate > /dev/null 2>&1 ||
        bad "$u: right password refused after the upgrade"
    h=$(sed -n "s/^$u:\([^:]*\):.*/\1/p" /etc/shadow)
    case $h in
    '$argon2id$v=19$m=19456,t=2,p=1$'*) ok "$u on argon2id m=19456,t=2,p=1 (the admin's target)" ;;
    *) bad "$u not on the admin's argon2id target: $(printf '%s' "$h" | cut -c1-36)..." ;;
    esac
done
if grep -qx "$edit" "$conf"; then ok "the admin's edit of $conf kept"; else
    bad "the admin's edit of $conf is gone: $(grep '^target' "$conf")"
fi
if [ -e "$conf.dpkg-new" ]; then bad "$conf.dpkg-new left (a conffile half-installed)"; else
    ok "no $conf.dpkg-new$([ -e "$conf.dpkg-dist" ] && echo "; the new version is in $conf.dpkg-dist")"
fi
if grep -q 'Configuration file .*kdfhash.conf' "$work/upgrade.out"; then
    ok "dpkg kept the modified conffile without asking (--force-confold)"
fi
if grep -q '^auth.*pam_kdfhash.so' /etc/pam.d/common-auth; then ok "pam_kdfhash still in common-auth"; else
    bad "pam_kdfhash left common-auth in the upgrade"
fi
# The units moved from /lib to /usr/lib within the package: both there and
# the path unit still enabled.
for u in kdfhash-stranded.path kdfhash-stranded.service; do
    if [ -f "/usr/lib/systemd/system/$u" ]; then ok "$u in /usr/lib/systemd/system"; else
        bad "$u missing from /usr/lib/systemd/system after the upgrade"; fi
done
if [ -L /etc/systemd/system/paths.target.wants/kdfhash-stranded.path ]; then
    ok "kdfhash-stranded.path still enabled"
else bad "kdfhash-stranded.path no longer enabled after the upgrade"; fi
au=$(dpkg --audit 2>&1 || :)
[ -z "$au" ] && ok "dpkg --audit clean" || bad "dpkg --audit: $au"

echo "check-upgrade: $fails failure(s), wall time $(($(date +%s) - start)) s"
[ "$fails" = 0 ]
