#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-downgrade.sh [DEBDIR [OLDDEBDIR]] - the downgrade gate, as root in
# a fresh root: a downgrade of libpam-kdfhash and libpam-kdfhash-bin to an
# older release (OLDDEBDIR: its .debs; default: scripts/old-debs.sh prev)
# is refused while the machine holds what that release cannot read, and
# goes through once nothing stands in the way.  DEBDIR: the current .debs
# (default: built with scripts/build-deb.sh).
#   1. install the current kdfhash, libpam-kdfhash and libpam-kdfhash-bin
#      (apt-get install of the files); key a user: kdfhash keys new, pepper = ID in
#      kdfhash.conf, a $6$ entry that a login through pamtester rewrites
#      as keyed Argon2id;
#   2. refused, each time with the current packages still installed and
#      configured, dpkg --audit clean, kdfhash.conf unchanged and the keyed
#      user still logging in: dpkg -i of the older packages at once; of the
#      older libpam-kdfhash alone (libpam-kdfhash-bin's Conflicts), also
#      with --auto-deconfigure; apt-get install
#      --allow-downgrades from a local repository;
#   3. kdfhash.conf back as shipped and the user's password reset (an
#      unkeyed $6$): the same apt-get downgrade goes through, and the user
#      logs in through the older module;
#   4. the upgrade back: apt-get, dpkg -i with the module first, and with
#      the helper first dpkg -i twice (the Conflicts refuses the helper
#      the first time), each leaving the current packages configured; the
#      user logs in.
# The downgrade-check listing itself is tested on fixtures by
# tests/scripts/test_downgrade_check.sh.  /etc is a throw-away copy
# (tests/common/etc_ns.sh); the packages are purged at the end.
set -eu

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
export top_srcdir
svc=kdfhash-downtest
tuser=kdfdown
pw='down-test correct horse'
fails=0
say() { echo "check-downgrade: $*"; }
ok() { say "ok: $*"; }
bad() {
    say "FAIL: $*"
    fails=$((fails + 1))
}
pkgs="kdfhash libpam-kdfhash libpam-kdfhash-bin"

if [ -z "${KDF_DOWN_NS:-}" ]; then
    start=$(date +%s)
    if [ "$(id -u)" != 0 ]; then
        say "must run as root: it installs .deb packages, in a private mount namespace" >&2
        exit 2
    fi
    for p in $pkgs; do
        if dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q installed; then
            say "$p is already installed here; refusing to replace it" >&2
            exit 2
        fi
    done
    missing=
    for p in pamtester apt-utils; do
        dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' ||
            missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        say "installing:$missing"
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
            > /dev/null
    fi
    new=${1:-}
    old=${2:-}
    if [ -z "$new" ]; then
        new=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-down-debs.XXXXXX")
        sh "$top_srcdir/scripts/build-deb.sh" "$new" > "$new/build.log" 2>&1 || {
            tail -30 "$new/build.log"
            bad "scripts/build-deb.sh failed"
            exit 1
        }
    fi
    if [ -z "$old" ]; then
        old=${TMPDIR:-/tmp}/kdfhash-old-debs-0.2.0
        sh "$top_srcdir/scripts/old-debs.sh" prev "$old" > /dev/null || {
            bad "no older .debs (scripts/old-debs.sh prev)"
            exit 1
        }
    fi
    KDF_DOWN_START=$start
    export KDF_DOWN_START
    set -- "$(cd "$new" && pwd)" "$(cd "$old" && pwd)"
fi
# shellcheck source=tests/common/etc_ns.sh
. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_DOWN_NS "$@"

# ---- inside the namespace, /etc a copy ---------------------------------------
new=$1
old=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-down.XXXXXX")
chmod 755 "$work"
cleanup() {
    rm -f "/etc/pam.d/$svc"
    userdel "$tuser" > /dev/null 2>&1 || true
    # shellcheck disable=SC2086
    dpkg --purge $pkgs > /dev/null 2>&1 || true
    rm -rf "$work"
    etc_ns_leave
}
trap cleanup EXIT
trap 'exit 1' INT TERM

debs() { # debs DIR: the three packages' files, one a line
    for p in $pkgs; do
        f=$(find "$1" -maxdepth 1 -name "${p}_*.deb" | head -1)
        [ -n "$f" ] || { bad "no ${p}_*.deb in $1" >&2 && exit 1; }
        echo "$f"
    done
}
new_debs=$(debs "$new")
old_debs=$(debs "$old")
newver=$(dpkg-deb -f "$(echo "$new_debs" | sed -n 2p)" Version)
oldver=$(dpkg-deb -f "$(echo "$old_debs" | sed -n 2p)" Version)
if dpkg --compare-versions "$newver" gt "$oldver"; then
    ok "downgrade $newver -> $oldver"
else
    bad "$newver is not newer than $oldver: no downgrade to try"
    exit 1
fi

# ---- 1. the current packages and a keyed user --------------------------------
# By apt-get, which brings their dependencies.
# shellcheck disable=SC2086
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $new_debs \
    > "$work/install.out" 2>&1; then
    cat "$work/install.out"
    bad "apt-get install of $newver failed"
    exit 1
fi
printf 'auth required pam_kdfhash.so\naccount required pam_permit.so\n' > "/etc/pam.d/$svc"
login() { # login PASSWORD -> pamtester's status
    printf '%s\n' "$1" | pamtester "$svc" "$tuser" authenticate > "$work/pamtester.out" 2>&1
}
entry() { sed -n "s/^$tuser:\\([^:]*\\):.*/\\1/p" /etc/shadow; }
conf=/etc/security/kdfhash.conf
cp -p "$conf" "$work/conf.shipped"
useradd -M -s /usr/sbin/nologin "$tuser"
printf '%s:%s\n' "$tuser" "$pw" | chpasswd -c SHA512
keyid=$(kdfhash keys new 2> "$work/keys.err") || {
    bad "kdfhash keys new failed: $(cat "$work/keys.err")"
    exit 1
}
sed -i "s/^pepper = .*/pepper = $keyid/" "$conf"
grep -q "^pepper = $keyid\$" "$conf" || printf 'pepper = %s\n' "$keyid" >> "$conf"
cp -p "$conf" "$work/conf.keyed"
if login "$pw"; then ok "\$6\$ login through the $newver module"; else
    bad "login failed: $(cat "$work/pamtester.out")"
fi
case $(entry) in
*",keyid=$keyid\$"*) ok "the login rewrote the entry keyed with $keyid" ;;
*)
    bad "entry not keyed after the login: $(entry | cut -c1-40)"
    exit 1
    ;;
esac

# ---- 2. refused ----------------------------------------------------------------
intact() { # intact WHAT LOG: the current packages, their state and the user
    for p in $pkgs; do
        s=$(dpkg-query -W -f='${Version} ${Status}' "$p" 2> /dev/null || true)
        [ "$s" = "$newver install ok installed" ] || [ "$p" = kdfhash ] || {
            bad "$1: $p is now '$s'"
            sed 's/^/    /' "$2"
            return 0
        }
    done
    a=$(dpkg --audit 2>&1 || true)
    [ -z "$a" ] || { bad "$1: dpkg --audit: $a" && return 0; }
    cmp -s "$conf" "$work/conf.keyed" || { bad "$1: kdfhash.conf changed" && return 0; }
    login "$pw" || { bad "$1: the keyed user no longer logs in: $(cat "$work/pamtester.out")" &&
        return 0; }
    ok "$1: refused; $newver installed and configured, dpkg --audit clean, the conffile kept, the keyed user logs in"
}
said() { # said FILE: the refusal names the key, the user and what to do
    grep -q 'not downgraded to' "$1" && grep -q "$keyid 1 $tuser" "$1" &&
        grep -q "pepper" "$1" && grep -q 'passwd USER' "$1"
}

# Back to the current packages after each try, so that one failure does
# not hide the next.
# shellcheck disable=SC2086
restore() { dpkg -i $new_debs > "$work/restore.out" 2>&1 || bad "cannot put $newver back: $(cat "$work/restore.out")"; }

# All three at once, in both orders (a shell's glob sorts
# libpam-kdfhash-bin_ first in the C locale, last in en_US.UTF-8).  The
# CLI has nothing to refuse with (its 0.2.0 is not a danger to logins).
bin_old=$(echo "$old_debs" | sed -n 3p)
mod_old=$(echo "$old_debs" | sed -n 2p)
cli_old=$(echo "$old_debs" | sed -n 1p)
for order in "$bin_old $mod_old" "$mod_old $bin_old"; do
    # shellcheck disable=SC2086
    if dpkg -i "$cli_old" $order > "$work/d1.out" 2>&1; then bad "dpkg -i of $oldver went through"; fi
    if said "$work/d1.out"; then ok "dpkg -i: the refusal names $keyid, $tuser and what to do"; else
        bad "dpkg -i: no refusal with the keyed user: $(cat "$work/d1.out")"
    fi
    intact "dpkg -i of all three (${order%% *})" "$work/d1.out"
    restore
done

# The module alone: the helper's Conflicts stops it (an installed
# package's Breaks would not: dpkg checks those only at configure, after
# the older module is on the disk).
if dpkg -i "$mod_old" > "$work/d2.out" 2>&1; then bad "dpkg -i of $oldver's module alone went through"; fi
if grep -q 'libpam-kdfhash-bin conflicts with libpam-kdfhash' "$work/d2.out"; then
    ok "the module alone: refused by libpam-kdfhash-bin's Conflicts"
else bad "the module alone: not the Conflicts: $(cat "$work/d2.out")"; fi
intact "dpkg -i of the module alone" "$work/d2.out"
restore
if dpkg -i --auto-deconfigure "$mod_old" > "$work/d3.out" 2>&1; then
    bad "dpkg -i --auto-deconfigure of $oldver's module went through"
fi
if grep -q 'libpam-kdfhash-bin conflicts with libpam-kdfhash' "$work/d3.out"; then
    ok "--auto-deconfigure: refused by the Conflicts"
else bad "--auto-deconfigure: not the Conflicts: $(cat "$work/d3.out")"; fi
intact "dpkg -i --auto-deconfigure of the module alone" "$work/d3.out"
restore

# apt, from a repository of the older packages.
mkdir -p "$work/repo" "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
# shellcheck disable=SC2086
cp $old_debs "$work/repo/"
(cd "$work/repo" && apt-ftparchive packages . > Packages 2> /dev/null)
echo "deb [trusted=yes] file:$work/repo ./" > "$work/apt/sources.list"
apt_local() {
    DEBIAN_FRONTEND=noninteractive apt-get -q -y -o Dir::Etc::SourceList="$work/apt/sources.list" \
        -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$work/apt/lists" \
        -o Dir::State::extended_states="$work/apt/extended_states" \
        -o Dir::Cache="$work/apt/cache" -o DPkg::Lock::Timeout=300 "$@"
}
apt_local update > "$work/apt-update.out" 2>&1 || bad "apt-get update: $(cat "$work/apt-update.out")"
apt_down() {
    apt_local install --allow-downgrades -o Dpkg::Options::=--force-confdef \
        -o Dpkg::Options::=--force-confold \
        "libpam-kdfhash=$oldver" "libpam-kdfhash-bin=$oldver" > "$work/apt.out" 2>&1
}
if apt_down; then bad "apt-get install --allow-downgrades went through"; fi
if said "$work/apt.out"; then ok "apt-get --allow-downgrades: refused, with the reason"; else
    bad "apt-get --allow-downgrades: no refusal: $(cat "$work/apt.out")"
fi
intact "apt-get install --allow-downgrades" "$work/apt.out"
restore

# ---- 3. nothing in the way: allowed -------------------------------------------
cp -p "$work/conf.shipped" "$conf"
printf '%s:%s\n' "$tuser" "$pw" | chpasswd -c SHA512
if /usr/share/libpam-kdfhash-bin/downgrade-check "$oldver" > "$work/dc.out"; then
    ok "downgrade-check $oldver: nothing left"
else bad "downgrade-check $oldver still lists: $(cat "$work/dc.out")"; fi
if apt_down; then ok "apt-get install --allow-downgrades went through"; else
    bad "the downgrade with nothing in the way failed: $(cat "$work/apt.out")"
fi
for p in libpam-kdfhash libpam-kdfhash-bin; do
    s=$(dpkg-query -W -f='${Version} ${Status}' "$p" 2> /dev/null || true)
    [ "$s" = "$oldver install ok installed" ] || bad "after the downgrade $p is '$s'"
done
a=$(dpkg --audit 2>&1 || true)
[ -z "$a" ] || bad "after the downgrade, dpkg --audit: $a"
if login "$pw"; then ok "the user logs in through the $oldver module"; else
    bad "login after the downgrade failed: $(cat "$work/pamtester.out")"
fi

# ---- 4. and up again -------------------------------------------------------
# The Conflicts must not stand in the way of the upgrade: dpkg -i in both
# orders, and apt-get from a repository of the current packages.
up_ok() { # up_ok WHAT LOG
    for p in $pkgs; do
        s=$(dpkg-query -W -f='${Version} ${Status}' "$p" 2> /dev/null || true)
        [ "$s" = "$newver install ok installed" ] || {
            bad "$1: $p is '$s'"
            sed 's/^/    /' "$2"
            return 0
        }
    done
    ok "$1: $newver installed and configured"
}
down_again() { # the helper first: the order in which the Conflicts lets dpkg -i through
    dpkg -i "$(echo "$old_debs" | sed -n 1p)" "$bin_old" "$mod_old" > "$work/down.out" 2>&1 ||
        bad "downgrade again: $(cat "$work/down.out")"
}
new_bin=$(echo "$new_debs" | sed -n 3p)
new_mod=$(echo "$new_debs" | sed -n 2p)
new_cli=$(echo "$new_debs" | sed -n 1p)
# With the helper first, its Conflicts refuses it while the older module
# is installed (dpkg does not look ahead in its queue); the module goes in,
# and a second dpkg -i (or apt-get -f install) brings the helper.
dpkg -i "$new_cli" "$new_bin" "$new_mod" > "$work/u1.out" 2>&1 || true
dpkg -i "$new_cli" "$new_bin" "$new_mod" >> "$work/u1.out" 2>&1 || true
up_ok "upgrade by dpkg -i twice (libpam-kdfhash-bin first)" "$work/u1.out"
down_again
dpkg -i "$new_cli" "$new_mod" "$new_bin" > "$work/u2.out" 2>&1 || true
up_ok "upgrade by dpkg -i (libpam-kdfhash first)" "$work/u2.out"
down_again
rm -f "$work"/repo/*.deb
# shellcheck disable=SC2086
cp $new_debs "$work/repo/"
(cd "$work/repo" && apt-ftparchive packages . > Packages 2> /dev/null)
apt_local update > "$work/apt-update.out" 2>&1 || bad "apt-get update: $(cat "$work/apt-update.out")"
apt_local install libpam-kdfhash libpam-kdfhash-bin kdfhash > "$work/u3.out" 2>&1 || true
up_ok "upgrade by apt-get" "$work/u3.out"
if login "$pw"; then ok "the user logs in through the $newver module again"; else
    bad "login after the upgrade failed: $(cat "$work/pamtester.out")"
fi

took=$(($(date +%s) - ${KDF_DOWN_START:-$(date +%s)}))
if [ "$fails" -eq 0 ]; then
    say "all passed in $took s"
else
    say "$fails failure(s) in $took s"
    exit 1
fi
