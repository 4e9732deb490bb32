#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-packaging.sh - the packaging gate (`make check-packaging`,
# run by scripts/quickstart.sh test as root):
#   0. tools/kdfhash-foreign-count (the counter the maintainer scripts
#      run) counts a fixture shadow file right and lists its names;
#   1. build the .deb files with scripts/build-deb.sh: lintian reports no
#      error and no warning (the one expected warning, kdfhash-chkpwd's
#      setgid, is overridden in the package like unix_chkpwd's);
#      dpkg-deb -c/-f: kdfhash-chkpwd and kdfhash-chkpwd(8) are in
#      libpam-kdfhash-bin (Multi-Arch: foreign), mode 2755 root/shadow, and
#      in no other package; libpam-kdfhash depends on it and ships the
#      counter; kdfhash-tpm-hmac is in kdfhash-tpm, which libpam-kdfhash
#      suggests, and neither the module, its package, the helper's nor the
#      CLI's needs libtss2;
#   1b2. 389-ds-kdfhash holds the 389-ds plugin where 389-ds-base loads
#      plugins from (/usr/lib/<multiarch>/dirsrv/plugins), its LDIF and
#      389-ds-kdfhash(8) (lint-clean), and no other package does; the
#      plugin exports the kdfhash_*_init functions its version script lists
#      and nothing else (nm -D --defined-only), which are the ones the
#      LDIF's entries name; each scheme entry's nsslapd-pluginarg0
#      is /etc/dirsrv/kdfhash.conf (the directory profile, a conffile of
#      389-ds-kdfhash, the file the plugin may find missing); it depends on
#      389-ds-base and, through its shlibs, 389-ds-base-libs;
#   1c. the same packages cross-built for arm64 (build-deb.sh --arch):
#      lintian-clean, an AArch64 module where arm64's libpam looks, arm64's
#      libpam0g and libc6 in Depends, and no 389-ds-kdfhash (the
#      pkg.kdfhash.nodirsrv build profile: the sysroot has no
#      389-ds-base-dev);
#   2. apt-get install --no-install-recommends libpam-kdfhash from a
#      repository of the built .debs brings libpam-kdfhash-bin (and not
#      kdfhash); then dpkg -i kdfhash; check the files are where libpam, man
#      and bash look for them, and that the pam-auth-update profile is
#      registered but off (Default: no); both systemd units
#      (/usr/lib/systemd/system) pass systemd-analyze verify, the service's
#      systemd-analyze security score is at most 1.5, and the postinst
#      (re)starts only the path unit, never the service; the postinst is quiet for a shadow
#      file pam_unix can read, and names the accounts of the fixture when
#      no PAM service uses the module;
#   3. log in through pamtester against a temporary /etc/pam.d service that
#      names the INSTALLED module (pam_kdfhash.so, found in the multiarch
#      security directory) with the installed /etc/security/kdfhash.conf and
#      shadow= a temporary file holding an outdated bcrypt entry made by
#      python3-bcrypt: right password ok, wrong one refused, the entry
#      upgraded to the policy target (checked by argon2-cffi), and the next
#      login ok with the new hash; then, as a temporary user who cannot read
#      /etc/shadow, through the installed setgid helper: own password ok,
#      wrong one refused, another user refused, the /etc/shadow entry left
#      as it was;
#   4. pam-auth-update --enable kdfhash puts the module right before
#      pam_unix in /etc/pam.d/common-auth (and the postinst is quiet then);
#      kdfhash-stranded.path is enabled and watches common-auth, and after
#      pam-auth-update --disable kdfhash its service's command walls and
#      logs the fixture's accounts and how to migrate them;
#   4b. on the stack pam-auth-update makes without and with pam_pwquality,
#      with the profile enabled: unix-options, the postinst and the service
#      give no advice about use_authtok, try_first_pass or use_first_pass,
#      and a real passwd of a temporary user succeeds as root and as the user;
#   5. dpkg --purge all three: the prerm warns about the fixture's accounts
#      that pam_unix cannot verify; none of the files `dpkg -L` listed is
#      left, /etc/security/kdfhash.conf, /usr/share/pam-configs/kdfhash and
#      every pam_kdfhash line of /etc/pam.d/common-* is gone;
#      /var/lib/kdfhash (the helper's records) is gone; the key store is
#      kept while a history entry names one of its keys, the purge naming
#      that key and its count (and not the unused one), and is removed by
#      the purge after a reinstall once no entry names any;
#   5c. 389-ds-kdfhash beside 389-ds-base: its removal is refused, naming
#      the instance, while a fixture instance's dse.ldif names the plugin;
#      a reinstall says which instances run the previous library; a folded
#      pluginPath is read; without the fixture the purge removes it;
#   5b, 6. scripts/check-rpm.sh on the tarball of step 1 (KDF_TARBALL, else
#      `make dist`'s): the spec's version and library directories, rpmbuild
#      -ta, what the RPMs hold (what the .debs do), rpmlint with
#      pam_kdfhash.rpmlintrc.
# The maintainer scripts count KDFHASH_MAINTSCRIPT_SHADOW instead of
# /etc/shadow when it is set: steps 2, 4 and 5 point it at fixtures.
# Once the tools are installed, the script runs again in a private mount
# namespace (unshare -m) with a throw-away copy of /etc bound over /etc:
# dpkg's conffiles, pam-auth-update's common-* files, the test service, the
# temporary user and the units' symlinks all land in the copy, and the
# machine's own /etc is never written.  Whatever happens, the packages this
# script installed are purged (dpkg's database and /usr are the machine's).
set -eu

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
py=/usr/bin/python3
svc=kdfhash-pkgtest
fails=0

say() { echo "check-packaging: $*"; }
ok() { say "ok: $*"; }
bad() {
    say "FAIL: $*"
    fails=$((fails + 1))
}

pkgs="kdfhash libpam-kdfhash libpam-kdfhash-bin"
if [ -z "${KDF_PKG_NS:-}" ]; then
if [ "$(id -u)" != 0 ]; then
    say "must run as root: it installs and purges .deb packages, in a private mount namespace" >&2
    exit 2
fi
for p in $pkgs; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
        say "$p is already installed here; refusing to replace and purge it" >&2
        exit 2
    fi
done
# The tools (Debian package names; CI installs them, as root we add what
# is missing like scripts/quickstart.sh does), and 389-ds-base-dev, the one
# Build-Depends that the build of the tree itself does not need.
need="dpkg-dev debhelper lintian fakeroot rpm rpmlint cpio pamtester python3-bcrypt python3-argon2 mandoc
 389-ds-base-dev 389-ds-base binutils libpam-pwquality cracklib-runtime systemd"
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
fi
# Run again in a private mount namespace, /etc a copy (tests/common/etc_ns.sh).
. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_PKG_NS "$@"

# ---- inside the namespace, /etc a copy ---------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-pkgcheck.XXXXXX")
chmod 755 "$work"
installed=0
tuser=
ds_installed=0
cleanup() {
    rm -f "/etc/pam.d/$svc"
    if [ "$ds_installed" = 1 ]; then
        rm -rf /etc/dirsrv/slapd-pkgtest
        dpkg --purge 389-ds-kdfhash >/dev/null 2>&1 || true
    fi
    [ -z "$tuser" ] || userdel "$tuser" >/dev/null 2>&1 || true
    if [ "$installed" = 1 ]; then
        # shellcheck disable=SC2086
        dpkg --purge $pkgs >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
    etc_ns_leave
}
trap cleanup EXIT
trap 'exit 1' INT TERM

start=$(date +%s)

# ---- 0. the counter of the maintainer scripts ------------------------------
# One entry of each kind: five that only pam_kdfhash verifies (Argon2id,
# passlib PBKDF2-SHA256, Django PBKDF2-SHA256, a locked Argon2id, which
# "usermod -U" would hand back to pam_unix unreadable, and passlib's
# scrypt), and four that pam_unix verifies or has nothing to verify in.
cat > "$work/foreign.shadow" <<'FIXTURE'
root:*:19000:0:99999:7:::
fa2id:$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$qkRaUQ7tMZW0URyrBpHfcY6nFGTpmm5m+6oVLUvpaEI:19000:0:99999:7:::
fpass:$pbkdf2-sha256$29000$N2YuJUTo3fu/F6J0rpWy9g$7Bd9Ym/d7tDuYWF7Ui9tPmQzvM8mRBH9SQE3Y4ScmSE:19000:0:99999:7:::
fdjango:pbkdf2_sha256$600000$c2FsdHNhbHQ$Wd8gMvZyEJr6cG3Y3HH6TMV0S6o/N0hGOVyjpZPU6hU=:19000:0:99999:7:::
flocked:!$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$qkRaUQ7tMZW0URyrBpHfcY6nFGTpmm5m+6oVLUvpaEI:19000:0:99999:7:::
fscrypt:$scrypt$ln=4,r=8,p=1$wBFGwfMSDPDiWIwE0or3Eg$7CKhMwtjsg1+X7GhqwVfldhD+igSwXzBHd60CQw4nzI:19000:0:99999:7:::
usha:$6$saltsalt$IxDD3jeSOLLP5Nbt1G1Q/LQkzi1zW3HZH9jBnWp5u7lA3yUpnvI4HkqFOEiWoXDA8fE2mGjKRdH.W6ox8Wxcf/:19000:0:99999:7:::
ubcrypt:$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW:19000:0:99999:7:::
uempty::19000:0:99999:7:::
FIXTURE
grep -v '^f' "$work/foreign.shadow" > "$work/clean.shadow"
fc=$top_srcdir/tools/kdfhash-foreign-count
# The source tree's counter reads the prefix list beside it (the package's
# reads the one installed next to it, checked below).
fc_pre=$top_srcdir/tools/kdfhash-foreign-prefixes
n=$(KDFHASH_FOREIGN_PREFIXES=$fc_pre sh "$fc" "$work/foreign.shadow" 2>&1)
if [ "$n" = 5 ]; then ok "foreign-count: 5 of the fixture's 9 entries"; else
    bad "foreign-count says '$n' for the fixture (5 expected)"
fi
names=$(KDFHASH_FOREIGN_PREFIXES=$fc_pre sh "$fc" -l "$work/foreign.shadow" 2>&1 | tr '\n' ' ')
if [ "$names" = "fa2id fpass fdjango flocked fscrypt " ]; then ok "foreign-count -l: $names"; else
    bad "foreign-count -l says '$names'"
fi
n=$(KDFHASH_FOREIGN_PREFIXES=$fc_pre sh "$fc" "$work/clean.shadow" 2>&1)
if [ "$n" = 0 ]; then ok "foreign-count: 0 without the Argon2, PBKDF2 and scrypt entries"; else
    bad "foreign-count says '$n' without the Argon2, PBKDF2 and scrypt entries"
fi
if KDFHASH_FOREIGN_PREFIXES=$fc_pre sh "$fc" "$work/no-such-file" > /dev/null 2>&1; then bad "foreign-count succeeds on a missing file"; else
    ok "foreign-count fails on a missing file"
fi

# ---- 1. build -------------------------------------------------------------
# KDF_TARBALL: build from that release tarball (make distcheck's) rather
# than making one; KDF_DEBS_KEEP: copy the built packages there (deb/ and
# deb-arm64/), for the gates that install them next.
sh "$top_srcdir/scripts/build-deb.sh" ${KDF_TARBALL:+--tarball "$KDF_TARBALL"} "$work/deb" \
    > "$work/build-deb.out" 2>&1 || {
    cat "$work/build-deb.out"
    bad "scripts/build-deb.sh failed"
    exit 1
}
ok "debs built and lintian-clean of errors in $(($(date +%s) - start)) s"
sed -n '/lintian says:/,$p' "$work/build-deb.out"
# Warnings too: each expected one is overridden in the package, with why.
if grep -q '^[EW]: ' "$work/deb/lintian.txt"; then
    bad "lintian warnings: $(grep '^[EW]: ' "$work/deb/lintian.txt" | tr '\n' ';')"
else ok "lintian: no error, no warning"; fi

# ---- 1b. what each package holds ------------------------------------------
deb_lib=$(ls "$work"/deb/libpam-kdfhash_*.deb)
deb_bin=$(ls "$work"/deb/libpam-kdfhash-bin_*.deb)
deb_cli=$(ls "$work"/deb/kdfhash_*.deb)
version=$(dpkg-deb -f "$deb_lib" Version)
# (Into files first: grep -q would close the pipe under dpkg-deb.)
dpkg-deb -c "$deb_bin" > "$work/bin.contents"
dpkg-deb -c "$deb_lib" > "$work/lib.contents"
dpkg-deb -c "$deb_cli" > "$work/cli.contents"
if grep -Eq '^-rwxr-sr-x root/shadow .* \./usr/sbin/kdfhash-chkpwd$' "$work/bin.contents"; then
    ok "libpam-kdfhash-bin: kdfhash-chkpwd is -rwxr-sr-x root/shadow (2755, setgid shadow)"
else
    bad "libpam-kdfhash-bin: kdfhash-chkpwd is not 2755 root/shadow: $(grep kdfhash-chkpwd "$work/bin.contents")"
fi
if grep -q ' \./usr/share/man/man8/kdfhash-chkpwd\.8\.gz$' "$work/bin.contents"; then
    ok "libpam-kdfhash-bin ships kdfhash-chkpwd(8)"
else bad "libpam-kdfhash-bin does not ship kdfhash-chkpwd(8)"; fi
# Keys held by a TPM: built --with-tpm, the child in a package of its own
# (kdfhash-tpm), so that neither the module nor its helper brings the TPM2
# Software Stack; the module does not load it either.
deb_tpm=$(ls "$work"/deb/kdfhash-tpm_*.deb 2>/dev/null | head -1)
if [ -n "$deb_tpm" ] && dpkg-deb -c "$deb_tpm" > "$work/tpm.contents" &&
    grep -Eq '^-rwxr-xr-x root/root .* \./usr/libexec/kdfhash/kdfhash-tpm-hmac$' "$work/tpm.contents"; then
    ok "kdfhash-tpm ships /usr/libexec/kdfhash/kdfhash-tpm-hmac (0755)"
else bad "no kdfhash-tpm package with /usr/libexec/kdfhash/kdfhash-tpm-hmac"; fi
for d in "$deb_lib" "$deb_bin" "$deb_cli"; do
    if dpkg-deb -f "$d" Depends | grep -q libtss2; then
        bad "$(basename "$d") depends on libtss2: $(dpkg-deb -f "$d" Depends)"
    else ok "$(basename "$d") does not depend on libtss2"; fi
done
dpkg-deb -f "$deb_lib" Suggests | grep -q kdfhash-tpm &&
    ok "libpam-kdfhash suggests kdfhash-tpm" || bad "libpam-kdfhash does not suggest kdfhash-tpm"
mkdir -p "$work/lib.x"
dpkg-deb -x "$deb_lib" "$work/lib.x"
so=$(find "$work/lib.x" -name pam_kdfhash.so | head -1)
if [ -n "$so" ] && ! readelf -d "$so" | grep -q 'libtss2'; then
    ok "pam_kdfhash.so needs no libtss2 (the TPM is asked through the child)"
else bad "pam_kdfhash.so links libtss2: $(readelf -d "$so" 2>&1 | grep NEEDED | tr '\n' ' ')"; fi
for d in lib cli; do
    if grep -q 'kdfhash-chkpwd' "$work/$d.contents"; then
        bad "the $d package ships kdfhash-chkpwd too"
    else ok "the $d package has no kdfhash-chkpwd"; fi
done
if grep -Eq '^-rwxr-xr-x root/root .* \./usr/share/libpam-kdfhash/foreign-count$' "$work/lib.contents"; then
    ok "libpam-kdfhash ships /usr/share/libpam-kdfhash/foreign-count (0755)"
else bad "libpam-kdfhash lacks /usr/share/libpam-kdfhash/foreign-count"; fi
if grep -Eq '^-rw-r--r-- root/root .* \./usr/share/libpam-kdfhash/foreign-prefixes$' "$work/lib.contents"; then
    ok "libpam-kdfhash ships the scheme table's prefix list for it (0644)"
else bad "libpam-kdfhash lacks /usr/share/libpam-kdfhash/foreign-prefixes"; fi
if dpkg-deb -f "$deb_lib" Depends | tr ',' '\n' | grep -qx " *libpam-kdfhash-bin (= $version)"; then
    ok "libpam-kdfhash Depends: libpam-kdfhash-bin (= $version)"
else bad "libpam-kdfhash does not depend on libpam-kdfhash-bin (= $version): $(dpkg-deb -f "$deb_lib" Depends)"; fi
ma_lib=$(dpkg-deb -f "$deb_lib" Multi-Arch)
ma_bin=$(dpkg-deb -f "$deb_bin" Multi-Arch)
if [ "$ma_lib" = same ] && [ "$ma_bin" = foreign ]; then
    ok "Multi-Arch: libpam-kdfhash same, libpam-kdfhash-bin foreign"
else bad "Multi-Arch: libpam-kdfhash '$ma_lib', libpam-kdfhash-bin '$ma_bin'"; fi

# ---- 1b2. the 389-ds plugin's package ---------------------------------------
deb_ds=$(ls "$work"/deb/389-ds-kdfhash_*.deb 2>/dev/null | head -1)
if [ -n "$deb_ds" ]; then
    dpkg-deb -c "$deb_ds" > "$work/ds.contents"
    ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    plug=usr/lib/$ma/dirsrv/plugins/libkdfhash-pwdstorage-plugin.so
    for f in "$plug" usr/share/389-ds-kdfhash/kdfhash-schemes.ldif usr/share/389-ds-kdfhash/instances \
        usr/share/389-ds-kdfhash/values usr/sbin/kdfhash-ds-check usr/share/man/man8/389-ds-kdfhash.8.gz \
        usr/share/man/man8/kdfhash-ds-check.8.gz usr/sbin/kdfhash-ds-wrap \
        usr/share/man/man8/kdfhash-ds-wrap.8.gz; do
        if grep -q " \./$f\$" "$work/ds.contents"; then ok "389-ds-kdfhash ships /$f"; else
            bad "389-ds-kdfhash lacks /$f"
        fi
    done
    for d in lib bin cli; do
        if grep -q 'libkdfhash-pwdstorage-plugin\|389-ds-kdfhash' "$work/$d.contents"; then
            bad "the $d package ships a file of the 389-ds plugin too"
        else ok "the $d package has nothing of the 389-ds plugin"; fi
    done
    mkdir -p "$work/ds"
    dpkg-deb -x "$deb_ds" "$work/ds"
    # Every defined dynamic symbol: the version script's global list (the
    # init functions that nsslapd-pluginInitfunc names), the core stays local.
    syms=$(nm -D --defined-only "$work/ds/$plug" 2>/dev/null | awk '{ print $NF }' | sort | tr '\n' ' ')
    want=$(sed -n '/global:/,/local:/s/^[[:space:]]*\(kdfhash_[a-z0-9_]*\);.*/\1/p' \
        "$top_srcdir/ds_plugin/kdfhash_ds.map" | sort | tr '\n' ' ')
    if [ "$syms" = "$want" ]; then ok "the plugin exports only $syms"; else
        bad "the plugin exports '$syms', not '$want'"
    fi
    ldif=$work/ds/usr/share/389-ds-kdfhash/kdfhash-schemes.ldif
    named=$(sed -n 's/^nsslapd-pluginInitfunc: *//p' "$ldif" | sort | tr '\n' ' ')
    paths=$(sed -n 's/^nsslapd-pluginPath: *//p' "$ldif" | sort -u)
    if [ "$named" = "$want" ] && [ "$paths" = libkdfhash-pwdstorage-plugin ]; then
        ok "the LDIF's entries name the library and its init functions: $named"
    else bad "the LDIF names '$paths' and '$named'"; fi
    # The policy file each entry names: the directory profile, a path the
    # plugin may find missing (built-in defaults) and still start, shipped
    # by the same package as a conffile.
    confs=$(sed -n 's/^nsslapd-pluginarg0: *//p' "$ldif" | sort | uniq -c | awk '{ print $1 " " $2 }')
    nschemes=$(grep -ci '^nsslapd-pluginType: *pwdstoragescheme *$' "$ldif")
    if [ "$nschemes" -ge 3 ] && [ "$confs" = "$nschemes /etc/dirsrv/kdfhash.conf" ]; then
        ok "the LDIF's $nschemes scheme entries name /etc/dirsrv/kdfhash.conf"
    else bad "the LDIF's nsslapd-pluginarg0 values: '$(echo "$confs" | tr '\n' ';')', not $nschemes x /etc/dirsrv/kdfhash.conf"; fi
    if dpkg-deb -f "$deb_ds" Conffiles 2>/dev/null | grep -q '^ */etc/dirsrv/kdfhash.conf ' ||
        dpkg-deb --ctrl-tarfile "$deb_ds" | tar -xOf - ./conffiles 2>/dev/null | grep -qx /etc/dirsrv/kdfhash.conf; then
        # The plugin's built-in target is the profile: the file leaves it be.
        if dpkg-deb --fsys-tarfile "$deb_ds" | tar -xOf - ./etc/dirsrv/kdfhash.conf |
            cmp -s - "$top_srcdir/packaging/dirsrv/kdfhash.conf" &&
            ! grep -q '^[[:space:]]*target[[:space:]]*=' "$top_srcdir/packaging/dirsrv/kdfhash.conf"; then
            ok "389-ds-kdfhash: /etc/dirsrv/kdfhash.conf is a conffile, the shipped one, setting no target (the profile)"
        else bad "389-ds-kdfhash: /etc/dirsrv/kdfhash.conf is not the shipped file or sets a target"; fi
    else bad "389-ds-kdfhash: /etc/dirsrv/kdfhash.conf is not a conffile"; fi
    deps=$(dpkg-deb -f "$deb_ds" Depends)
    case ", $deps," in
    *", 389-ds-base,"*"389-ds-base-libs"*) ok "389-ds-kdfhash Depends: $deps" ;;
    *) bad "389-ds-kdfhash Depends lacks 389-ds-base or 389-ds-base-libs (shlibs): $deps" ;;
    esac
    if mandoc -Tlint -Wwarning "$work/ds/usr/share/man/man8/389-ds-kdfhash.8.gz" > "$work/mandoc-ds.out" 2>&1 &&
        [ ! -s "$work/mandoc-ds.out" ]; then
        ok "the packaged 389-ds-kdfhash(8) is lint-clean"
    else bad "389-ds-kdfhash(8): $(cat "$work/mandoc-ds.out")"; fi
else bad "no 389-ds-kdfhash package was built"; fi

# ---- 1c. a cross build for arm64, as Debian's buildds make one -------------
# dpkg-buildpackage -a arm64 against a sysroot of arm64's own packages: the
# packages are lintian-clean, the module is an AArch64 object in arm64's
# multiarch security directory, and the dependencies name arm64's libpam
# and libc (from their shlibs, not the build machine's).
if sh "$top_srcdir/scripts/build-deb.sh" --arch arm64 "$work/deb-arm64" \
    > "$work/build-deb-arm64.out" 2>&1; then
    ok "dpkg-buildpackage -a arm64: $(ls "$work"/deb-arm64/*.deb | xargs -n1 basename | tr '\n' ' ')"
    if grep -q '^[EW]: ' "$work/deb-arm64/lintian.txt"; then
        bad "lintian (arm64): $(grep '^[EW]: ' "$work/deb-arm64/lintian.txt" | tr '\n' ';')"
    else ok "lintian (arm64): no error, no warning"; fi
    xlib=$(ls "$work"/deb-arm64/libpam-kdfhash_*_arm64.deb 2>/dev/null | head -1)
    if [ -n "$xlib" ]; then
        mkdir -p "$work/x"
        dpkg-deb -x "$xlib" "$work/x"
        so=$work/x/usr/lib/aarch64-linux-gnu/security/pam_kdfhash.so
        if [ -f "$so" ] && readelf -h "$so" 2>/dev/null | grep -q 'Machine: *AArch64'; then
            ok "libpam-kdfhash (arm64): an AArch64 pam_kdfhash.so in /usr/lib/aarch64-linux-gnu/security"
        else bad "libpam-kdfhash (arm64): no AArch64 module in the multiarch security directory"; fi
        deps=$(dpkg-deb -f "$xlib" Depends)
        case $deps in
        *libpam0g*libc6*|*libc6*libpam0g*) ok "libpam-kdfhash (arm64) Depends: $deps" ;;
        *) bad "libpam-kdfhash (arm64) Depends lacks libpam0g or libc6: $deps" ;;
        esac
    else bad "no libpam-kdfhash arm64 package"; fi
    if ls "$work"/deb-arm64/389-ds-kdfhash_*.deb > /dev/null 2>&1; then
        bad "a 389-ds-kdfhash arm64 package was built without 389-ds-base-dev in the sysroot"
    else ok "arm64: no 389-ds-kdfhash (the pkg.kdfhash.nodirsrv build profile)"; fi
else
    tail -30 "$work/build-deb-arm64.out"
    bad "scripts/build-deb.sh --arch arm64 failed"
fi

if [ -n "${KDF_DEBS_KEEP:-}" ]; then
    mkdir -p "$KDF_DEBS_KEEP" && rm -rf "$KDF_DEBS_KEEP/deb" "$KDF_DEBS_KEEP/deb-arm64" &&
        cp -R "$work/deb" "$KDF_DEBS_KEEP/deb" &&
        { [ ! -d "$work/deb-arm64" ] || cp -R "$work/deb-arm64" "$KDF_DEBS_KEEP/deb-arm64"; } ||
        bad "cannot keep the packages in $KDF_DEBS_KEEP"
fi

# ---- 2. install -----------------------------------------------------------
# From a repository of the built packages, the way a user installs: the
# module alone, without recommends, must bring its helper.  The lists,
# caches and auto-installed marks live in $work, so the system's apt state
# is left alone.
mkdir -p "$work/repo" "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
cp "$work"/deb/*.deb "$work/repo/"
(cd "$work/repo" && dpkg-scanpackages . /dev/null > Packages 2> /dev/null)
echo "deb [trusted=yes] file:$work/repo ./" > "$work/apt/sources.list"
apt_local() {
    apt-get -q -o Dir::Etc::SourceList="$work/apt/sources.list" \
        -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$work/apt/lists" \
        -o Dir::State::extended_states="$work/apt/extended_states" \
        -o Dir::Cache="$work/apt/cache" -o DPkg::Lock::Timeout=300 "$@"
}
apt_local update > "$work/apt-update.out" 2>&1 || {
    cat "$work/apt-update.out"
    bad "apt-get update of the local repository failed"
    exit 1
}
installed=1
KDFHASH_MAINTSCRIPT_SHADOW=$work/clean.shadow DEBIAN_FRONTEND=noninteractive \
    apt_local install -y --no-install-recommends libpam-kdfhash > "$work/apt-install.out" 2>&1 || {
    cat "$work/apt-install.out"
    bad "apt-get install --no-install-recommends libpam-kdfhash failed"
    exit 1
}
st() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null; }
if [ "$(st libpam-kdfhash-bin)" = "install ok installed" ] && [ "$(st kdfhash)" != "install ok installed" ]; then
    ok "apt-get install --no-install-recommends libpam-kdfhash brought libpam-kdfhash-bin (and not kdfhash)"
else bad "--no-install-recommends libpam-kdfhash: libpam-kdfhash-bin '$(st libpam-kdfhash-bin)', kdfhash '$(st kdfhash)'"; fi
if grep -q 'pam_unix cannot verify' "$work/apt-install.out"; then
    bad "the postinst warned about a shadow file pam_unix can read: $(cat "$work/apt-install.out")"
else ok "postinst quiet when every hash is one pam_unix reads"; fi
DEBIAN_FRONTEND=noninteractive dpkg -i "$deb_cli" > "$work/dpkg-i.out" 2>&1 || {
    cat "$work/dpkg-i.out"
    bad "dpkg -i kdfhash failed"
    exit 1
}
ok "dpkg -i kdfhash"
# TPM keys stay optional: what apt would install for the CLI and the
# module on a machine with nothing installed (an empty dpkg status: the
# build here has pulled libtss2 in) holds no libtss2, and the installed
# CLI, without kdfhash-tpm, says to install it.
: > "$work/empty.status"
if apt-get -s -q -o Dir::State::status="$work/empty.status" install --no-install-recommends \
    "$deb_cli" "$deb_lib" "$deb_bin" > "$work/apt-sim.out" 2>&1 &&
    grep -q '^Inst kdfhash ' "$work/apt-sim.out"; then
    if grep -q '^Inst libtss2' "$work/apt-sim.out"; then
        bad "apt-get install --no-install-recommends kdfhash libpam-kdfhash would install: $(grep '^Inst libtss2' "$work/apt-sim.out" | cut -d' ' -f2 | tr '\n' ' ')"
    else ok "apt-get install --no-install-recommends kdfhash libpam-kdfhash, on an empty root: no libtss2 ($(grep -c '^Inst ' "$work/apt-sim.out") packages)"; fi
else bad "apt-get -s install of kdfhash and libpam-kdfhash on an empty status: $(tail -3 "$work/apt-sim.out")"; fi
kdfhash keys --dir "$work/tpm-keys" --tpm new > "$work/tpm-new.out" 2>&1 && rc=0 || rc=$?
if [ "$rc" = 2 ] && grep -q '/usr/libexec/kdfhash/kdfhash-tpm-hmac is not installed: install kdfhash-tpm' "$work/tpm-new.out"; then
    ok "without kdfhash-tpm, kdfhash keys --tpm new: exit 2, \"install kdfhash-tpm\""
else bad "without kdfhash-tpm, kdfhash keys --tpm new: exit $rc, $(cat "$work/tpm-new.out")"; fi
# shellcheck disable=SC2086
dpkg -L $pkgs | sort -u > "$work/files.all"
while IFS= read -r f; do
    # /lib is a symlink to usr/lib on a merged-/usr system: not a file.
    { [ -f "$f" ] || [ -L "$f" ]; } && [ ! -d "$f" ] && printf '%s\n' "$f"
done < "$work/files.all" > "$work/files"

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
module=/usr/lib/$multiarch/security/pam_kdfhash.so
for f in "$module" /etc/security/kdfhash.conf /usr/share/pam-configs/kdfhash \
    /usr/bin/kdfhash /usr/share/man/man8/pam_kdfhash.8.gz /usr/share/man/man5/kdfhash.conf.5.gz \
    /usr/share/man/man1/kdfhash.1.gz /usr/share/bash-completion/completions/kdfhash; do
    if grep -qx "$f" "$work/files" && [ -e "$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
for f in /usr/sbin/kdfhash-chkpwd /usr/share/man/man8/kdfhash-chkpwd.8.gz /usr/share/libpam-kdfhash/foreign-count \
    /usr/share/libpam-kdfhash/stranded-notice /usr/share/libpam-kdfhash/unix-options \
    /usr/lib/systemd/system/kdfhash-stranded.path \
    /usr/lib/systemd/system/kdfhash-stranded.service; do
    if grep -qx "$f" "$work/files" && [ -e "$f" ]; then ok "installed $f"; else bad "missing $f"; fi
done
if [ "$(stat -c '%a %U %G' /usr/sbin/kdfhash-chkpwd 2>/dev/null)" = "2755 root shadow" ]; then
    ok "kdfhash-chkpwd installed 2755 root:shadow (setgid shadow, like unix_chkpwd)"
else bad "kdfhash-chkpwd is $(stat -c '%a %U:%G' /usr/sbin/kdfhash-chkpwd 2>&1), not 2755 root:shadow"; fi
if mandoc -Tlint -Wwarning /usr/share/man/man8/kdfhash-chkpwd.8.gz > "$work/mandoc.out" 2>&1 &&
    [ ! -s "$work/mandoc.out" ]; then
    ok "the installed kdfhash-chkpwd(8) is lint-clean"
else bad "kdfhash-chkpwd(8): $(cat "$work/mandoc.out")"; fi
# kdfhash-stranded.path is enabled by the postinst (deb-systemd-helper works
# without a running systemd: it makes the symlink), and both units pass
# systemd-analyze verify (--man=no: man(1) need not be installed).
if [ -L /etc/systemd/system/paths.target.wants/kdfhash-stranded.path ]; then
    ok "kdfhash-stranded.path enabled (paths.target.wants)"
else bad "kdfhash-stranded.path is not enabled: $(ls /etc/systemd/system/paths.target.wants 2>&1 | tr '\n' ' ')"; fi
if command -v systemd-analyze > /dev/null 2>&1; then
    if systemd-analyze verify --man=no /usr/lib/systemd/system/kdfhash-stranded.path \
        /usr/lib/systemd/system/kdfhash-stranded.service > "$work/verify.out" 2>&1; then
        ok "systemd-analyze verify: both units"
    else bad "systemd-analyze verify: $(cat "$work/verify.out")"; fi
    # The service is confined (its own comment says to what); 8.4 before.
    score=$(systemd-analyze security --offline=true \
        /usr/lib/systemd/system/kdfhash-stranded.service 2>&1 |
        sed -n 's/.*Overall exposure level for kdfhash-stranded.service: \([0-9.]*\).*/\1/p')
    if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }'; then
        ok "systemd-analyze security kdfhash-stranded.service: $score (<= 1.5)"
    else bad "systemd-analyze security kdfhash-stranded.service: '$score', over 1.5"; fi
fi
# Only the path unit starts the service: no maintainer script starts or
# restarts it (an install or an upgrade would wall every terminal).
if grep -Eq "deb-systemd-invoke [^ ]*(start|action)[^ ]* 'kdfhash-stranded.service'" \
    "$(dpkg-query --control-path libpam-kdfhash postinst)" \
    "$(dpkg-query --control-path libpam-kdfhash preinst)" 2>/dev/null ||
    ! grep -q "deb-systemd-invoke .* 'kdfhash-stranded.path'" \
        "$(dpkg-query --control-path libpam-kdfhash postinst)"; then
    bad "the postinst starts kdfhash-stranded.service, or not its path unit"
else ok "the postinst (re)starts kdfhash-stranded.path, never kdfhash-stranded.service"; fi
# The postinst when accounts hold Argon2, PBKDF2 or scrypt hashes and no service
# uses the module (as after a removal and a new install): the names, said
# on stderr, without a prompt (stdin closed) and without failing.
# (Multi-Arch: same, so the file is named libpam-kdfhash:ARCH.postinst.)
postinst=$(dpkg-query --control-path libpam-kdfhash postinst)
if KDFHASH_MAINTSCRIPT_SHADOW=$work/foreign.shadow DEBIAN_FRONTEND=noninteractive \
    DPKG_MAINTSCRIPT_PACKAGE=libpam-kdfhash DPKG_MAINTSCRIPT_NAME=postinst \
    sh "$postinst" configure "$version" < /dev/null > "$work/postinst.out" 2> "$work/postinst.err"; then
    if grep -q '5 accounts in .* have an Argon2, PBKDF2, scrypt or web-application' "$work/postinst.err" &&
        grep -q 'fa2id fpass fdjango flocked fscrypt' "$work/postinst.err" &&
        grep -q 'pam-auth-update --enable kdfhash' "$work/postinst.err" &&
        grep -q 'migrate = yes' "$work/postinst.err"; then
        ok "postinst names the 5 accounts only pam_kdfhash can verify, and how to migrate (on stderr)"
    else bad "postinst did not warn: stdout '$(cat "$work/postinst.out")' stderr '$(cat "$work/postinst.err")'"; fi
else bad "postinst configure failed: $(cat "$work/postinst.err")"; fi
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

# A caller that cannot read /etc/shadow (a screen locker): the module runs
# the installed helper, which reads it as group shadow, answers for the
# caller's own name only, and writes nothing.  The user gets the bcrypt
# hash of $pw, which the helper verifies and must not upgrade.
tuser=kdfpkg$$
if useradd -M -N -r -d /nonexistent -s /usr/sbin/nologin "$tuser" > "$work/useradd.out" 2>&1 &&
    usermod -p "$old" "$tuser" >> "$work/useradd.out" 2>&1; then
    tuid=$(id -u "$tuser")
    tgid=$(id -g "$tuser")
    printf 'auth required pam_kdfhash.so\naccount required pam_permit.so\n' > "/etc/pam.d/$svc"
    as_user() { setpriv --reuid="$tuid" --regid="$tgid" --clear-groups -- "$@"; }
    user_login() { # user_login NAME PASSWORD -> pamtester's status, run as $tuser
        printf '%s\n' "$2" | as_user pamtester "$svc" "$1" authenticate > "$work/pamtester.out" 2>&1
    }
    before=$(grep "^$tuser:" /etc/shadow)
    if as_user cat /etc/shadow > /dev/null 2>&1; then
        bad "$tuser can read /etc/shadow: the helper would not be needed"
    fi
    if user_login "$tuser" "$pw"; then ok "non-root caller: own password ok through the setgid helper"; else
        bad "non-root caller: own password refused: $(cat "$work/pamtester.out")"
    fi
    if user_login "$tuser" "wrong $pw"; then bad "non-root caller: wrong password accepted"; else
        ok "non-root caller: wrong password refused"
    fi
    if user_login root "$pw"; then bad "non-root caller: a check of root succeeded"; else
        ok "non-root caller: another user's check refused"
    fi
    if [ "$(grep "^$tuser:" /etc/shadow)" = "$before" ]; then ok "the helper left the /etc/shadow entry as it was"; else
        bad "the /etc/shadow entry changed through the helper"
    fi
    userdel "$tuser" > /dev/null 2>&1 || bad "userdel $tuser"
    tuser=
else
    bad "cannot create a test user: $(cat "$work/useradd.out")"
fi
rm -f "/etc/pam.d/$svc"

# ---- 4. the pam-auth-update profile ----------------------------------------
DEBIAN_FRONTEND=noninteractive pam-auth-update --package --enable kdfhash > "$work/pau.out" 2>&1 ||
    bad "pam-auth-update --enable kdfhash: $(cat "$work/pau.out")"
kline=$(grep -n 'pam_kdfhash.so' /etc/pam.d/common-auth | head -1 | cut -d: -f1)
uline=$(grep -n '^auth.*pam_unix.so' /etc/pam.d/common-auth | head -1 | cut -d: -f1)
if [ -n "$kline" ] && [ -n "$uline" ] && [ "$kline" -lt "$uline" ] &&
    sed -n "${kline}p" /etc/pam.d/common-auth | grep -q '\[success=[0-9][0-9]*[] ]'; then
    ok "enabled: $(sed -n "${kline}p" /etc/pam.d/common-auth | tr -s ' \t' ' ')"
else
    bad "pam_kdfhash is not right before pam_unix in common-auth:"
    grep -n '^auth' /etc/pam.d/common-auth
fi
# The same control value in both groups: a refusal of an entry the module
# owns ends the stack, "not mine" goes on to pam_unix.
for grp in auth password; do
    f=/etc/pam.d/common-$grp
    kl=$(grep -n "^$grp.*pam_kdfhash.so" "$f" | head -1 | cut -d: -f1)
    ul=$(grep -n "^$grp.*pam_unix.so" "$f" | head -1 | cut -d: -f1)
    if [ -n "$kl" ] && [ -n "$ul" ] && [ "$kl" -lt "$ul" ] &&
        sed -n "${kl}p" "$f" | grep -q 'user_unknown=ignore authinfo_unavail=ignore service_err=ignore ignore=ignore default=die' &&
        sed -n "${kl}p" "$f" | grep -q 'nullok'; then
        ok "common-$grp: $(sed -n "${kl}p" "$f" | tr -s ' \t' ' ')"
    else
        bad "common-$grp: pam_kdfhash line missing, misplaced or with the wrong controls:"
        grep -n "^$grp" "$f"
    fi
done
# Now that a service uses the module, the postinst has nothing to say.
if KDFHASH_MAINTSCRIPT_SHADOW=$work/foreign.shadow DEBIAN_FRONTEND=noninteractive \
    DPKG_MAINTSCRIPT_PACKAGE=libpam-kdfhash DPKG_MAINTSCRIPT_NAME=postinst \
    sh "$postinst" configure "$version" < /dev/null > "$work/postinst.out" 2> "$work/postinst.err" &&
    [ ! -s "$work/postinst.err" ]; then
    ok "postinst quiet once the profile is enabled"
else bad "postinst with the profile enabled: '$(cat "$work/postinst.err")'"; fi

# Disabling the profile by hand: pam-auth-update has no hook, but the path
# unit sees /etc/pam.d/common-auth change and starts kdfhash-stranded.service.
# Without a running systemd here, its ExecStart line is run as systemd would
# (wall and logger are stand-ins that record what they are given, so no
# terminal of this machine is written to).
DEBIAN_FRONTEND=noninteractive pam-auth-update --package --disable kdfhash > "$work/pau.out" 2>&1 ||
    bad "pam-auth-update --disable kdfhash: $(cat "$work/pau.out")"
if grep -q pam_kdfhash /etc/pam.d/common-auth; then bad "--disable left pam_kdfhash in common-auth"; fi
if grep -q '^PathChanged=/etc/pam.d/common-auth$' /usr/lib/systemd/system/kdfhash-stranded.path; then
    ok "kdfhash-stranded.path watches /etc/pam.d/common-auth"
else bad "kdfhash-stranded.path does not watch /etc/pam.d/common-auth"; fi
# Each ExecStart= line in turn, as systemd runs a oneshot unit's, with
# the stand-ins first on PATH and the VAR=VALUE arguments in the
# environment; the first failing line fails the unit.
unit_run() {
    sed -n 's/^ExecStart=//p' /usr/lib/systemd/system/kdfhash-stranded.service > "$work/execstart"
    [ -s "$work/execstart" ] || return 1
    while IFS= read -r cmd; do
        # shellcheck disable=SC2086
        env PATH="$work/standin:$PATH" "$@" $cmd < /dev/null || return 1
    done < "$work/execstart"
}
mkdir -p "$work/standin"
cat > "$work/standin/logger" <<EOF
#!/bin/sh
printf '%s\\n' "\$*" >> "$work/logger.args"
EOF
cat > "$work/standin/wall" <<EOF
#!/bin/sh
cat >> "$work/wall.in"
EOF
chmod +x "$work/standin/logger" "$work/standin/wall"
if unit_run KDFHASH_MAINTSCRIPT_SHADOW="$work/foreign.shadow" > "$work/unit.out" 2> "$work/unit.err" &&
    grep -q '5 accounts in .* have an Argon2, PBKDF2, scrypt or web-application' "$work/wall.in" &&
    grep -q 'migrate = yes' "$work/wall.in" &&
    grep -q '^-p authpriv.warning -t kdfhash -- no file of /etc/pam.d uses pam_kdfhash while 5 accounts' \
        "$work/logger.args"; then
    ok "after --disable, kdfhash-stranded.service walls and logs the 5 accounts and how to migrate"
else bad "kdfhash-stranded.service after --disable: wall '$(cat "$work/wall.in" 2>&1)' logger '$(cat "$work/logger.args" 2>&1)'"; fi
rm -f "$work/wall.in" "$work/logger.args"
unit_run KDFHASH_MAINTSCRIPT_SHADOW="$work/clean.shadow" > "$work/unit.out" 2> "$work/unit.err"
if [ ! -e "$work/wall.in" ] && [ ! -e "$work/logger.args" ] && [ ! -s "$work/unit.err" ]; then
    ok "kdfhash-stranded.service is silent when every hash is one pam_unix reads"
else bad "kdfhash-stranded.service spoke for a clean file: '$(cat "$work/unit.err")'"; fi

# ---- 4b. advice tried on the stock stack ------------------------------------
# Whatever unix-options, the postinst or the service advise must work on
# the stack pam-auth-update makes.  Without pam_pwquality the module's line
# is the first password line (the profile's Password-Initial: "nullok"),
# where use_authtok would fail root's "passwd USER" ("Authentication token
# manipulation error"); with it, the profile's Password: line has
# use_authtok itself.  Both: no advice about use_authtok, try_first_pass or
# use_first_pass, and a real passwd as root and as the user succeeds.
tuser=kdfadv$$
if ! { useradd -M -N -r -d /nonexistent -s /bin/sh "$tuser" &&
    printf '%s:Adv-old-4711-Zq\n' "$tuser" | chpasswd; } > "$work/useradd.out" 2>&1; then
    bad "cannot create $tuser: $(cat "$work/useradd.out")"
fi
for pwq in disable enable; do
    { DEBIAN_FRONTEND=noninteractive pam-auth-update --package --$pwq pwquality &&
        DEBIAN_FRONTEND=noninteractive pam-auth-update --package --enable kdfhash; } \
        > "$work/pau.out" 2>&1 || bad "pam-auth-update --$pwq pwquality: $(cat "$work/pau.out")"
    kl=$(grep '^password.*pam_kdfhash.so' /etc/pam.d/common-password | tr -s ' \t' ' ') || :
    rm -f "$work/wall.in" "$work/logger.args"
    # (set -e: each may fail, and the files exist only when something was said.)
    {
        /usr/share/libpam-kdfhash/unix-options --verbose || :
        KDFHASH_MAINTSCRIPT_SHADOW=$work/clean.shadow DPKG_MAINTSCRIPT_PACKAGE=libpam-kdfhash \
            DPKG_MAINTSCRIPT_NAME=postinst sh "$postinst" configure "$version" < /dev/null ||
            echo "postinst configure failed"
        unit_run KDFHASH_MAINTSCRIPT_SHADOW="$work/clean.shadow" || echo "the service failed"
        cat "$work/wall.in" "$work/logger.args" 2> /dev/null || :
    } > "$work/advice.out" 2>&1
    if grep -Eq 'use_authtok|try_first_pass|use_first_pass' "$work/advice.out"; then
        bad "pwquality ${pwq}d ($kl): advice about use_authtok: $(cat "$work/advice.out")"
    else ok "pwquality ${pwq}d ($kl): no advice about use_authtok/try_first_pass/use_first_pass"; fi
    if printf 'Adv-root-9931-Yx\nAdv-root-9931-Yx\n' | passwd "$tuser" > "$work/passwd.out" 2>&1; then
        ok "pwquality ${pwq}d: root's passwd $tuser"
    else bad "pwquality ${pwq}d: root's passwd $tuser: $(cat "$work/passwd.out")"; fi
    if printf 'Adv-root-9931-Yx\nAdv-user-2718-Qw\nAdv-user-2718-Qw\n' |
        setpriv --reuid="$tuser" --regid="$(id -g "$tuser")" --clear-groups passwd > "$work/passwd.out" 2>&1; then
        ok "pwquality ${pwq}d: $tuser's own passwd"
    else bad "pwquality ${pwq}d: $tuser's own passwd: $(cat "$work/passwd.out")"; fi
    printf '%s:Adv-old-4711-Zq\n' "$tuser" | chpasswd || bad "chpasswd $tuser"
done
rm -f "$work/wall.in" "$work/logger.args"
DEBIAN_FRONTEND=noninteractive pam-auth-update --package --disable kdfhash > "$work/pau.out" 2>&1 ||
    bad "pam-auth-update --disable kdfhash: $(cat "$work/pau.out")"
userdel "$tuser" > /dev/null 2>&1 || bad "userdel $tuser"
tuser=

# ---- 5. purge: a warning, then nothing left -------------------------------
# stdin closed: the prerm must neither prompt nor wait.
# The key store holds a key that a history entry names (kept, said) and one
# nobody uses; the helper has a rate-limit record (removed).
mkdir -p /etc/security/kdfhash.keys.d /var/lib/kdfhash/chkpwd
touch /etc/security/kdfhash.keys.d/Pk1 /etc/security/kdfhash.keys.d/Pk2 /var/lib/kdfhash/chkpwd/4242
echo 'fa2id:1000:1:$argon2id$v=19$m=8,t=1,p=1,keyid=Pk1$c2FsdA$aGFzaA' > "$work/opasswd"
# shellcheck disable=SC2086
KDFHASH_OPASSWD=$work/opasswd \
KDFHASH_MAINTSCRIPT_SHADOW=$work/foreign.shadow DEBIAN_FRONTEND=noninteractive \
    dpkg --purge $pkgs < /dev/null > "$work/purge.out" 2> "$work/purge.err" ||
    bad "dpkg --purge: $(cat "$work/purge.out" "$work/purge.err")"
installed=0
lacks=
for t in '5 accounts in .*foreign.shadow have an Argon2, PBKDF2, scrypt or web-application' 'pam_unix cannot verify' \
    'fa2id fpass fdjango flocked fscrypt' 'target = yescrypt' 'migrate = yes' 'kdfhash audit'; do
    grep -q "$t" "$work/purge.err" || lacks="$lacks '$t'"
done
if [ -z "$lacks" ]; then
    ok "prerm warned on stderr: $(head -1 "$work/purge.err")"
else bad "prerm warning lacks$lacks: '$(cat "$work/purge.err")'"; fi
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
if grep -l pam_kdfhash /etc/pam.d/common-* > "$work/left.pam" 2>/dev/null; then
    bad "still naming pam_kdfhash: $(tr '\n' ' ' < "$work/left.pam")"
else ok "no /etc/pam.d/common-* file names pam_kdfhash"; fi
if [ -e /etc/systemd/system/paths.target.wants/kdfhash-stranded.path ] ||
    [ -L /etc/systemd/system/paths.target.wants/kdfhash-stranded.path ]; then
    bad "the purge left kdfhash-stranded.path enabled"
else ok "the purge disabled kdfhash-stranded.path"; fi
# shellcheck disable=SC2086
if dpkg-query -W $pkgs > /dev/null 2>&1 &&
    dpkg-query -W -f='${Status}\n' $pkgs | grep -qv 'not-installed'; then
    bad "dpkg still knows the packages"
else ok "dpkg forgot the three packages"; fi
if [ -e /var/lib/kdfhash ]; then bad "the purge left /var/lib/kdfhash"; else
    ok "the purge removed /var/lib/kdfhash (kdfhash-chkpwd's records)"
fi
if [ -f /etc/security/kdfhash.keys.d/Pk1 ] && grep -q '^  Pk1: 1 entry$' "$work/purge.err" &&
    ! grep -q Pk2 "$work/purge.err"; then
    ok "the purge kept the key store, naming the key in use: $(grep -c . "$work/purge.err") lines"
else bad "key store in use: $(ls /etc/security/kdfhash.keys.d 2>&1), said '$(cat "$work/purge.err")'"; fi
# No entry names its keys any more: the next purge removes it.
installed=1
DEBIAN_FRONTEND=noninteractive dpkg -i "$deb_bin" "$deb_lib" > "$work/dpkg-i.out" 2>&1 ||
    bad "dpkg -i again: $(cat "$work/dpkg-i.out")"
KDFHASH_OPASSWD=/nonexistent KDFHASH_MAINTSCRIPT_SHADOW=$work/clean.shadow DEBIAN_FRONTEND=noninteractive \
    dpkg --purge libpam-kdfhash libpam-kdfhash-bin < /dev/null > "$work/purge.out" 2> "$work/purge.err" ||
    bad "dpkg --purge again: $(cat "$work/purge.err")"
installed=0
if [ -e /etc/security/kdfhash.keys.d ]; then bad "an unused key store was kept: $(cat "$work/purge.err")"; else
    ok "the purge removed the key store no entry uses"
fi

# ---- 5c. 389-ds-kdfhash: no removal that leaves a server unable to start ----
# A fixture instance in the namespace's /etc/dirsrv names the plugin the way
# the shipped LDIF does; the real server's package provides the dependency.
ds_fix=/etc/dirsrv/slapd-pkgtest
if [ -z "$deb_ds" ]; then
    bad "no 389-ds-kdfhash package to install"
elif st 389-ds-kdfhash | grep -q 'install ok installed'; then
    bad "389-ds-kdfhash is already installed here: its removal is not checked"
else
    mkdir -p "$ds_fix"
    printf 'dn: cn=ARGON2,cn=Password Storage Schemes,cn=plugins,cn=config\ncn: ARGON2\nnsslapd-pluginPath: libkdfhash-pwdstorage-plugin\nnsslapd-pluginEnabled: on\n\n' \
        > "$ds_fix/dse.ldif"
    ds_plug=$(dpkg-deb -c "$deb_ds" | sed -n 's|.* \./\(.*libkdfhash-pwdstorage-plugin\.so\)$|/\1|p')
    if dpkg -i "$deb_ds" < /dev/null > "$work/ds-i.out" 2>&1; then
        ds_installed=1
        ok "389-ds-kdfhash installs beside 389-ds-base"
    else bad "dpkg -i 389-ds-kdfhash: $(cat "$work/ds-i.out")"; fi
    if dpkg -r 389-ds-kdfhash < /dev/null > "$work/ds-r.out" 2>&1; then
        bad "389-ds-kdfhash was removed while an instance loads its plugin"
    elif grep -q "not removed: the 389-ds instance(s) pkgtest" "$work/ds-r.out" &&
        [ -f "$ds_plug" ] && st 389-ds-kdfhash | grep -q 'install ok installed'; then
        ok "removal refused while instance pkgtest loads the plugin: $(grep -m1 'not removed' "$work/ds-r.out")"
    else bad "the refused removal: $(cat "$work/ds-r.out"); plugin $ds_plug: $(ls -l "$ds_plug" 2>&1)"; fi
    # The plugin's entries gone, a value of its schemes left (a stopped
    # instance, read from its files): the stored string would bind.
    printf 'dn: cn=config\ncn: config\n\ndn: cn=replication manager,cn=config\ncn: replication manager\nuserPassword: {ARGON2}$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$dGFn\n\n' \
        > "$ds_fix/dse.ldif.values"
    mv "$ds_fix/dse.ldif" "$ds_fix/dse.ldif.plugin"
    mv "$ds_fix/dse.ldif.values" "$ds_fix/dse.ldif"
    if dpkg -r 389-ds-kdfhash < /dev/null > "$work/ds-v.out" 2>&1; then
        bad "389-ds-kdfhash was removed while instance pkgtest holds an {ARGON2} value"
    elif grep -q "^pkgtest	cn=config	ARGON2	1\$" "$work/ds-v.out" &&
        grep -q 'ROLLBACK' "$work/ds-v.out" && st 389-ds-kdfhash | grep -q 'install ok installed'; then
        ok "removal refused while a value of the plugin's schemes is left, with the instance and count"
    else bad "the removal with a value left: $(cat "$work/ds-v.out")"; fi
    mv "$ds_fix/dse.ldif.plugin" "$ds_fix/dse.ldif"
    if dpkg -i "$deb_ds" < /dev/null > "$work/ds-u.out" 2>&1 &&
        grep -q "the instance(s) pkgtest run the library of .* until restarted" "$work/ds-u.out"; then
        ok "an upgrade says which instances run the previous library"
    else bad "the upgrade's note: $(cat "$work/ds-u.out")"; fi
    # LDIF folds long lines (RFC 2849): an absolute path folded in two.
    mkdir -p "$work/dsetc/slapd-folded" "$work/dsetc/slapd-other"
    printf 'dn: cn=BCRYPT,cn=Password Storage Schemes,cn=plugins,cn=config\nnsslapd-pluginPath: /usr/lib/x86_64-linux-gnu/dirsrv/plugins/libkdfhash-pw\n dstorage-plugin.so\n' \
        > "$work/dsetc/slapd-folded/dse.ldif"
    printf 'dn: cn=SSHA512,cn=Password Storage Schemes,cn=plugins,cn=config\nnsslapd-pluginPath: libpwdstorage-plugin\n' \
        > "$work/dsetc/slapd-other/dse.ldif"
    if [ "$(KDFHASH_DIRSRV_ETC=$work/dsetc /usr/share/389-ds-kdfhash/instances)" = folded ]; then
        ok "a folded nsslapd-pluginPath is read; another plugin's is not"
    else bad "instances read: '$(KDFHASH_DIRSRV_ETC=$work/dsetc /usr/share/389-ds-kdfhash/instances)'"; fi
    rm -rf "$ds_fix"
    if dpkg --purge 389-ds-kdfhash < /dev/null > "$work/ds-p.out" 2>&1 && [ ! -e "$ds_plug" ]; then
        ds_installed=0
        ok "once no instance names the plugin, 389-ds-kdfhash is removed"
    else bad "purge without instances: $(cat "$work/ds-p.out")"; fi
fi

# ---- 5b, 6. RPM: the spec, rpmbuild -ta, the packages, rpmlint ---------------
# From the tarball the .debs came from, when given: no second make dist.
if top_srcdir=$top_srcdir top_builddir=$top_builddir \
    sh "$top_srcdir/scripts/check-rpm.sh" ${KDF_TARBALL:+"$KDF_TARBALL"}; then
    ok "check-rpm.sh"
else bad "check-rpm.sh (its FAIL lines above)"; fi

say "$fails failure(s) in $(($(date +%s) - start)) s"
[ "$fails" -eq 0 ]
