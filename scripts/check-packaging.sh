#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-packaging.sh - the packaging gate of issue 6 (`make check-packaging`,
# run by scripts/quickstart.sh test as root):
#   1. build the .deb files with scripts/build-deb.sh (lintian: no errors);
#   2. dpkg -i libpam-kdfhash and kdfhash; check the files are where libpam,
#      man and bash look for them, and that the pam-auth-update profile is
#      registered but off (Default: no);
#   3. log in through pamtester against a temporary /etc/pam.d service that
#      names the INSTALLED module (pam_kdfhash.so, found in the multiarch
#      security directory) with the installed /etc/security/kdfhash.conf and
#      shadow= a temporary file holding an outdated bcrypt entry made by
#      python3-bcrypt: right password ok, wrong one refused, the entry
#      upgraded to the policy target (checked by argon2-cffi), and the next
#      login ok with the new hash;
#   4. pam-auth-update --enable kdfhash puts the module right before
#      pam_unix in /etc/pam.d/common-auth;
#   5. dpkg --purge both: none of the files `dpkg -L` listed is left,
#      /etc/security/kdfhash.conf, /usr/share/pam-configs/kdfhash and every
#      pam_kdfhash line of /etc/pam.d/common-auth are gone;
#   6. rpmbuild -tb on the `make dist` tarball (Debian's rpm; --nodeps since
#      Fedora's build dependencies cannot be checked here) and the RPMs hold
#      the module, the conf as %config(noreplace), the CLI and the pages.
# Whatever happens, the service file is removed, packages this script
# installed are purged and common-auth is put back.
set -eu

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
py=/usr/bin/python3
svc=kdfhash-pkgtest
fails=0

say() { echo "check-packaging: $*"; }
ok() { say "ok: $*"; }
bad() {
    say "FAIL: $*"
    fails=$((fails + 1))
}

if [ "$(id -u)" != 0 ]; then
    say "must run as root: it installs and purges .deb packages and writes /etc/pam.d/$svc" >&2
    exit 2
fi
for p in libpam-kdfhash kdfhash; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
        say "$p is already installed here; refusing to replace and purge it" >&2
        exit 2
    fi
done
if [ -e "/etc/pam.d/$svc" ]; then
    say "/etc/pam.d/$svc exists (another run?); remove it first" >&2
    exit 2
fi

# The tools (Debian package names; CI installs them, as root we add what
# is missing like scripts/quickstart.sh does).
need="dpkg-dev debhelper lintian fakeroot rpm pamtester python3-bcrypt python3-argon2"
missing=
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    say "installing:$missing"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
        >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-pkgcheck.XXXXXX")
chmod 755 "$work"
cp -p /etc/pam.d/common-auth "$work/common-auth.saved"
installed=0
cleanup() {
    rm -f "/etc/pam.d/$svc"
    if [ "$installed" = 1 ]; then
        dpkg --purge kdfhash libpam-kdfhash >/dev/null 2>&1 || true
    fi
    if ! cmp -s "$work/common-auth.saved" /etc/pam.d/common-auth; then
        cp -p "$work/common-auth.saved" /etc/pam.d/common-auth
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- 1. build -------------------------------------------------------------
start=$(date +%s)
sh "$top_srcdir/scripts/build-deb.sh" "$work/deb" > "$work/build-deb.out" 2>&1 || {
    cat "$work/build-deb.out"
    bad "scripts/build-deb.sh failed"
    exit 1
}
ok "debs built and lintian-clean of errors in $(($(date +%s) - start)) s"
sed -n '/lintian says:/,$p' "$work/build-deb.out"

# ---- 2. install -----------------------------------------------------------
debs=$(ls "$work"/deb/libpam-kdfhash_*.deb "$work"/deb/kdfhash_*.deb)
installed=1
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive dpkg -i $debs > "$work/dpkg-i.out" 2>&1 || {
    cat "$work/dpkg-i.out"
    bad "dpkg -i failed"
    exit 1
}
ok "dpkg -i libpam-kdfhash kdfhash"
dpkg -L libpam-kdfhash kdfhash | sort -u > "$work/files.all"
while IFS= read -r f; do
    [ -f "$f" ] || [ -L "$f" ] && printf '%s\n' "$f"
done < "$work/files.all" > "$work/files"

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
module=/usr/lib/$multiarch/security/pam_kdfhash.so
for f in "$module" /etc/security/kdfhash.conf /usr/share/pam-configs/kdfhash \
    /usr/bin/kdfhash /usr/share/man/man8/pam_kdfhash.8.gz /usr/share/man/man5/kdfhash.conf.5.gz \
    /usr/share/man/man1/kdfhash.1.gz /usr/share/bash-completion/completions/kdfhash; do
    if grep -qx "$f" "$work/files" && [ -e "$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
if [ "$(stat -c '%a %U' /usr/sbin/kdfhash-chkpwd 2>/dev/null)" = "4755 root" ]; then
    ok "kdfhash-chkpwd installed setuid root"
else bad "kdfhash-chkpwd missing or not setuid root"; fi
if dpkg-query --showformat='${Conffiles}\n' --show libpam-kdfhash | grep -q '/etc/security/kdfhash.conf'; then
    ok "kdfhash.conf is a conffile"
else bad "kdfhash.conf is not a conffile"; fi
if grep -q pam_kdfhash /etc/pam.d/common-auth; then
    bad "the profile is enabled by installing (Default: no expected)"
else ok "profile registered but not enabled"; fi
if kdfhash --version | grep -q '^kdfhash '; then ok "kdfhash --version"; else bad "kdfhash --version"; fi
if bash -c '. /usr/share/bash-completion/completions/kdfhash; complete -p kdfhash' | grep -q _kdfhash; then
    ok "bash completion loads"
else bad "bash completion"; fi

# ---- 3. a login through the installed module ------------------------------
pw='pkg-test correct horse'
old=$(PW=$pw "$py" -c 'import bcrypt, os; print(bcrypt.hashpw(os.environ["PW"].encode(), bcrypt.gensalt(5)).decode())')
printf 'root:*:19000:0:99999:7:::\npkgtest:%s:19000:0:99999:7:::\nother:!:19000:0:99999:7:::\n' \
    "$old" > "$work/shadow"
chmod 600 "$work/shadow"
cp -p "$work/shadow" "$work/shadow.before"
# By name: libpam finds it in its own module directory, where dpkg put it.
printf 'auth required pam_kdfhash.so shadow=%s\naccount required pam_permit.so\n' \
    "$work/shadow" > "/etc/pam.d/$svc"

login() { # login USER PASSWORD -> pamtester's exit status
    printf '%s\n' "$2" | pamtester "$svc" "$1" authenticate > "$work/pamtester.out" 2>&1
}
if login pkgtest "wrong $pw"; then bad "wrong password accepted"; else ok "wrong password refused"; fi
if cmp -s "$work/shadow" "$work/shadow.before"; then ok "a failed login writes nothing"; else
    bad "a failed login changed the file"
fi
if login pkgtest "$pw"; then ok "bcrypt cost 5 login through the installed module"; else
    bad "login failed: $(cat "$work/pamtester.out")"
fi
new=$(sed -n 's/^pkgtest:\([^:]*\):.*/\1/p' "$work/shadow")
target=$(kdfhash parse "$new" 2>&1 || true)
case $target in
scheme=argon2id\ version=19\ m=65536\ t=3\ p=4*) ok "entry upgraded to the installed conf's target ($target)" ;;
*) bad "entry not upgraded to argon2id m=65536,t=3,p=4: '$target'" ;;
esac
if H=$new PW=$pw "$py" -c 'import os, argon2; argon2.PasswordHasher().verify(os.environ["H"], os.environ["PW"])' \
    2>/dev/null; then ok "argon2-cffi verifies the upgraded entry"; else bad "argon2-cffi rejects the upgraded entry"; fi
if [ "$(grep -v '^pkgtest:' "$work/shadow")" = "$(grep -v '^pkgtest:' "$work/shadow.before")" ]; then
    ok "other lines untouched"
else bad "other lines changed"; fi
if login pkgtest "$pw"; then ok "next login with the new hash"; else bad "next login failed"; fi
if login other "$pw"; then bad "locked account logged in"; else ok "locked account refused"; fi
rm -f "/etc/pam.d/$svc"

# ---- 4. the pam-auth-update profile ----------------------------------------
DEBIAN_FRONTEND=noninteractive pam-auth-update --package --enable kdfhash > "$work/pau.out" 2>&1 ||
    bad "pam-auth-update --enable kdfhash: $(cat "$work/pau.out")"
kline=$(grep -n 'pam_kdfhash.so' /etc/pam.d/common-auth | head -1 | cut -d: -f1)
uline=$(grep -n '^auth.*pam_unix.so' /etc/pam.d/common-auth | head -1 | cut -d: -f1)
if [ -n "$kline" ] && [ -n "$uline" ] && [ "$kline" -lt "$uline" ] &&
    sed -n "${kline}p" /etc/pam.d/common-auth | grep -q '\[success=[0-9]* default=ignore\]'; then
    ok "enabled: $(sed -n "${kline}p" /etc/pam.d/common-auth | tr -s ' \t' ' ')"
else
    bad "pam_kdfhash is not right before pam_unix in common-auth:"
    grep -n '^auth' /etc/pam.d/common-auth
fi

# ---- 5. purge: nothing left ----------------------------------------------
DEBIAN_FRONTEND=noninteractive dpkg --purge kdfhash libpam-kdfhash > "$work/purge.out" 2>&1 ||
    bad "dpkg --purge: $(cat "$work/purge.out")"
installed=0
left=0
while IFS= read -r f; do
    if [ -e "$f" ] || [ -L "$f" ]; then
        bad "left behind: $f"
        left=$((left + 1))
    fi
done < "$work/files"
[ "$left" -eq 0 ] && ok "none of the $(wc -l < "$work/files") packaged files is left"
for f in /etc/security/kdfhash.conf /usr/share/pam-configs/kdfhash "$module"; do
    [ -e "$f" ] && bad "$f still exists"
done
if grep -q pam_kdfhash /etc/pam.d/common-auth; then
    bad "common-auth still names pam_kdfhash"
else ok "common-auth has no pam_kdfhash line"; fi
if dpkg-query -W libpam-kdfhash kdfhash > /dev/null 2>&1 &&
    dpkg-query -W -f='${Status}\n' libpam-kdfhash kdfhash | grep -qv 'not-installed'; then
    bad "dpkg still knows the packages"
else ok "dpkg forgot both packages"; fi

# ---- 6. RPM from the dist tarball --------------------------------------------
if [ -f "$top_builddir/Makefile" ]; then
    (cd "$top_builddir" && make -s dist > "$work/dist.out" 2>&1) || {
        tail -20 "$work/dist.out"
        bad "make dist failed"
    }
    tarball=$(ls -t "$top_builddir"/kdfhash-*.tar.xz 2>/dev/null | head -1)
    if [ -n "$tarball" ]; then
        mkdir -p "$work/rpm"
        # Debian's rpm has no find-debuginfo: no debuginfo subpackage here.
        if rpmbuild --define "_topdir $work/rpm" --define "debug_package %{nil}" --nodeps \
            -tb "$tarball" > "$work/rpmbuild.out" 2>&1; then
            rpms=$(find "$work/rpm/RPMS" -name '*.rpm')
            ok "rpmbuild -tb $(basename "$tarball"): $(echo $rpms | xargs -n1 basename | tr '\n' ' ')"
            # shellcheck disable=SC2086
            rpm -qlp $rpms 2>/dev/null > "$work/rpm.files"
            for f in /security/pam_kdfhash.so /etc/security/kdfhash.conf /usr/bin/kdfhash /usr/sbin/kdfhash-chkpwd \
                man8/pam_kdfhash.8 man5/kdfhash.conf.5 man1/kdfhash.1 completions/kdfhash; do
                grep -q "$f" "$work/rpm.files" && ok "rpm has $f" || bad "rpm lacks $f"
            done
            # shellcheck disable=SC2086
            if rpm -qcp $rpms 2>/dev/null | grep -qx /etc/security/kdfhash.conf; then
                ok "rpm: kdfhash.conf is %config"
            else bad "rpm: kdfhash.conf is not %config"; fi
        else
            tail -30 "$work/rpmbuild.out"
            bad "rpmbuild -tb failed"
        fi
    fi
else
    bad "no configured build tree at $top_builddir for make dist"
fi

say "$fails failure(s) in $(($(date +%s) - start)) s"
[ "$fails" -eq 0 ]
