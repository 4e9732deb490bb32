#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-multiarch.sh [DEBDIR [FOREIGNDEBDIR]] - the Multi-Arch gate:
# libpam-kdfhash is Multi-Arch: same, so a machine may hold one copy per
# architecture, and the prerm runs for each copy removed.  Removing one
# architecture's copy while another stays must leave the module in the PAM
# stack: else every user whose entry the module upgraded is locked out.
# And removing the last copy must take it out: else the stack names a
# module that is gone and every login fails.  DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT
# alone (libpam-systemd's guard) does not tell the two apart once a copy
# was removed without purge: dpkg counts copies in config-files state.
#
# DEBDIR: the native .debs (default: built with scripts/build-deb.sh);
# FOREIGNDEBDIR: the same version cross-built for another architecture
# (default: scripts/build-deb.sh --arch arm64).  As root, in a private
# mount namespace with a copy of /etc (tests/common/etc_ns.sh; dpkg's
# database, /usr and the foreign architecture are the machine's: run it in
# a fresh root):
#   0. the files both copies ship are byte-identical (dpkg refuses a
#      second copy otherwise: both must come from one source);
#   1. dpkg --add-architecture; apt-get installs both copies and the
#      foreign copy's libraries (libc6, libpam0g... of that architecture)
#      from the mirror.  Where the mirror has none, the foreign .deb is
#      repacked without its foreign library dependencies (the reason is
#      printed): its maintainer scripts are what is tested, and they are
#      shell;
#   2. pam-auth-update --enable kdfhash; a bcrypt user logs in through
#      common-auth and is upgraded to argon2id (which pam_unix cannot read);
#   3. dpkg -r the foreign copy: pam_kdfhash stays in common-auth and the
#      user still logs in;
#   4. dpkg -r the last copy (the first one is left in config-files
#      state, as apt-get remove leaves it, and dpkg still counts it in
#      DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT): pam_kdfhash leaves common-auth
#      and /usr/share/pam-configs, and a pam_unix user logs in.
set -eu

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
export top_srcdir
svc=kdfhash-matest
fails=0
say() { echo "check-multiarch: $*"; }
ok() { say "ok: $*"; }
bad() {
    say "FAIL: $*"
    fails=$((fails + 1))
}

if [ -z "${KDF_MA_NS:-}" ]; then
    if [ "$(id -u)" != 0 ]; then
        say "must run as root (it installs two architectures' packages); run it in a fresh root" >&2
        exit 2
    fi
    if dpkg-query -W -f='${Status}' libpam-kdfhash 2>/dev/null | grep -q installed; then
        say "libpam-kdfhash is already installed here; refusing to replace and purge it" >&2
        exit 2
    fi
    KDF_MA_T0=$(date +%s)
    export KDF_MA_T0
    missing=
    for p in pamtester python3-bcrypt; do
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
etc_ns_enter KDF_MA_NS "$@"

# ---- inside the namespace, /etc a copy ---------------------------------------
start=${KDF_MA_T0:-$(date +%s)}
work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-ma.XXXXXX")
chmod 755 "$work"
farch=
cleanup() {
    dpkg --purge libpam-kdfhash:"$(dpkg --print-architecture)" ${farch:+libpam-kdfhash:$farch} \
        libpam-kdfhash-bin > /dev/null 2>&1 || :
    rm -rf "$work"
    etc_ns_leave
}
trap cleanup EXIT
trap 'exit 1' INT TERM

arch=$(dpkg --print-architecture)
newdir=${1:-}
fdir=${2:-}
if [ -z "$newdir" ]; then
    newdir=$work/deb
    sh "$top_srcdir/scripts/build-deb.sh" "$newdir" > "$work/build.out" 2>&1 ||
        { tail -30 "$work/build.out"; bad "scripts/build-deb.sh failed"; exit 1; }
fi
if [ -z "$fdir" ]; then
    fdir=$work/deb-arm64
    sh "$top_srcdir/scripts/build-deb.sh" --arch arm64 "$fdir" > "$work/build-x.out" 2>&1 ||
        { tail -30 "$work/build-x.out"; bad "scripts/build-deb.sh --arch arm64 failed"; exit 1; }
fi
lib=$(ls "$newdir"/libpam-kdfhash_*_"$arch".deb 2>/dev/null | head -1)
bin=$(ls "$newdir"/libpam-kdfhash-bin_*_"$arch".deb 2>/dev/null | head -1)
flib=
for f in "$fdir"/libpam-kdfhash_*.deb; do
    case $f in *"_$arch.deb" | *'_*.deb') ;; *) flib=$f; break ;; esac
done
[ -n "$lib" ] && [ -n "$bin" ] || { bad "no libpam-kdfhash(-bin) for $arch in $newdir"; exit 1; }
[ -n "$flib" ] || { bad "no foreign libpam-kdfhash in $fdir"; exit 1; }
farch=$(dpkg-deb -f "$flib" Architecture)
v=$(dpkg-deb -f "$lib" Version)
fv=$(dpkg-deb -f "$flib" Version)
[ "$v" = "$fv" ] || { bad "$arch's copy is $v, $farch's $fv: Multi-Arch: same needs one version"; exit 1; }
[ "$(dpkg-deb -f "$flib" Multi-Arch)" = same ] || bad "libpam-kdfhash ($farch) is not Multi-Arch: same"
# dpkg refuses a second copy whose shared files (the same path in both)
# differ: both must come from one source, built the same way.
mkdir -p "$work/a" "$work/b"
dpkg-deb -x "$lib" "$work/a"
dpkg-deb -x "$flib" "$work/b"
differ=$(cd "$work/a" && find . -type f | while IFS= read -r f; do
    [ ! -f "$work/b/$f" ] || cmp -s "$f" "$work/b/$f" || printf '%s ' "${f#.}"
done)
if [ -z "$differ" ]; then ok "the files both copies ship are identical"; else
    bad "files both copies ship differ (built from different sources?): $differ"
    exit 1
fi

# ---- 1. both copies ------------------------------------------------------------
dpkg --add-architecture "$farch"
inst() { # inst DEB...: apt-get installs them with what they depend on
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" \
        < /dev/null > "$work/apt.out" 2>&1
}
apt-get update -q > "$work/update.out" 2>&1 || :
cand=$(apt-cache policy "libc6:$farch" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
if [ -n "$cand" ] && [ "$cand" != "(none)" ]; then
    if inst "$lib" "$bin" "$flib"; then
        ok "apt-get installed libpam-kdfhash $v for $arch and $farch (with $farch's libraries from the mirror)"
    else
        tail -25 "$work/apt.out"
        bad "apt-get install of both copies failed"
        exit 1
    fi
else
    # Reason first: what the mirror said.
    say "the mirror has no $farch packages here (libc6:$farch: no candidate): $(grep -E '^(E|W):' "$work/update.out" | head -3 | tr '\n' ' ')"
    say "so the $farch copy is repacked without its $farch library dependencies (its maintainer scripts are shell)"
    mkdir -p "$work/x"
    dpkg-deb -R "$flib" "$work/x/d"
    deps=$(dpkg-deb -f "$flib" Depends | tr ',' '\n' | grep -E '^ *(libpam-kdfhash-bin|libpam-runtime)[ (]' |
        sed 's/^ *//' | paste -sd, - | sed 's/,/, /g')
    sed -i "s/^Depends: .*/Depends: $deps/" "$work/x/d/DEBIAN/control"
    dpkg-deb -b "$work/x/d" "$work/x/flib.deb" > /dev/null
    if inst "$lib" "$bin" && dpkg -i --force-architecture "$work/x/flib.deb" > "$work/apt.out" 2>&1; then
        ok "installed $arch's copy and the repacked $farch one"
    else
        tail -25 "$work/apt.out"
        bad "cannot install both copies"
        exit 1
    fi
fi
n=$(dpkg-query -W -f='${binary:Package} ${Status}\n' 'libpam-kdfhash:*' 2>/dev/null | grep -c 'install ok installed' || :)
[ "$n" = 2 ] && ok "two copies of libpam-kdfhash installed" || bad "$n copies of libpam-kdfhash installed, not 2"

# ---- 2. enabled, and a user the module upgraded ----------------------------------
DEBIAN_FRONTEND=noninteractive pam-auth-update --enable kdfhash > "$work/pau.out" 2>&1 ||
    bad "pam-auth-update --enable kdfhash: $(cat "$work/pau.out")"
instack() { grep -q '^auth.*pam_kdfhash\.so' /etc/pam.d/common-auth; }
instack && ok "pam_kdfhash in common-auth" || bad "pam_kdfhash not in common-auth after --enable"
pw=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
h=$(PW=$pw python3 -c 'import bcrypt, os; print(bcrypt.hashpw(os.environ["PW"].encode(), bcrypt.gensalt(5)).decode())')
u=kdfma
useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$u" && usermod -p "$h" "$u" || bad "useradd $u"
# A user pam_unix verifies, who logs in only after the last copy is gone:
# the stack must then work without the module.
u6=kdfma6
h6=$(PW=$pw python3 -W ignore -c 'import crypt, os; print(crypt.crypt(os.environ["PW"], crypt.mksalt(crypt.METHOD_SHA512)))')
useradd -M -N -d /nonexistent -s /usr/sbin/nologin "$u6" && usermod -p "$h6" "$u6" || bad "useradd $u6"
printf '@include common-auth\n' > "/etc/pam.d/$svc"
login() { printf '%s\n' "$1" | pamtester "$svc" "$u" authenticate > "$work/pamtester.out" 2>&1; }
entry() { sed -n "s/^$u:\([^:]*\):.*/\1/p" /etc/shadow; }
login "$pw" && ok "$u logs in (bcrypt)" || bad "$u: login refused: $(cat "$work/pamtester.out")"
case $(entry) in
'$argon2id$'*) ok "$u upgraded to argon2id (pam_unix cannot verify it)" ;;
*) bad "$u not upgraded to argon2id: $(entry | cut -c1-12)..." ;;
esac

# ---- 3. remove the foreign copy: the module stays --------------------------------
if dpkg -r "libpam-kdfhash:$farch" > "$work/rm1.out" 2>&1; then
    ok "dpkg -r libpam-kdfhash:$farch"
else bad "dpkg -r libpam-kdfhash:$farch: $(cat "$work/rm1.out")"; fi
if instack; then ok "pam_kdfhash still in common-auth while libpam-kdfhash:$arch stays"; else
    bad "removing libpam-kdfhash:$farch took pam_kdfhash out of common-auth though libpam-kdfhash:$arch stays (no DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT guard in the prerm?)"
fi
login "$pw" && ok "$u still logs in" || bad "$u locked out after removing the $farch copy"
login "x$pw" && bad "$u: wrong password accepted" || ok "$u: wrong password refused"

# ---- 4. remove the last copy: the module leaves ------------------------------------
if dpkg -r "libpam-kdfhash:$arch" > "$work/rm2.out" 2>&1; then
    ok "dpkg -r libpam-kdfhash:$arch"
else bad "dpkg -r libpam-kdfhash:$arch: $(cat "$work/rm2.out")"; fi
instack && bad "pam_kdfhash still in common-auth with no copy installed" ||
    ok "pam_kdfhash left common-auth with the last copy"
if printf '%s\n' "$pw" | pamtester "$svc" "$u6" authenticate > "$work/pamtester.out" 2>&1; then
    ok "$u6 (sha512crypt, pam_unix) logs in with no copy installed"
else bad "$u6 (sha512crypt, pam_unix) refused with no copy installed: the stack is broken ($(cat "$work/pamtester.out"))"; fi
[ -e /usr/share/pam-configs/kdfhash ] && bad "/usr/share/pam-configs/kdfhash left" ||
    ok "/usr/share/pam-configs/kdfhash gone"
au=$(dpkg --audit 2>&1 || :)
[ -z "$au" ] && ok "dpkg --audit clean" || bad "dpkg --audit: $au"

echo "check-multiarch: $fails failure(s), wall time $(($(date +%s) - start)) s"
[ "$fails" = 0 ]
