#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-rpm.sh [TARBALL] - the RPM gate (run by scripts/check-packaging.sh
# at its steps 5b and 6, or alone, as root in a fresh root, where it
# installs rpm and rpmlint):
#   1. the tarball (TARBALL, else `make dist` in $top_builddir, else a
#      configured copy of the tree) holds packaging/rpm/pam_kdfhash.spec,
#      whose Version is the tarball's;
#   2. the spec puts the module in %{_libdir}/security and the 389-ds
#      plugin in %{_libdir}/dirsrv/plugins on 64- and 32-bit targets
#      (rpmspec -P --target), --without dirsrv leaves the plugin out and
#      --without tpm the TPM child;
#   3. rpmbuild -ta (Debian's rpm; --nodeps since Fedora's build
#      dependencies cannot be checked here) makes the SRPM and the RPMs,
#      which hold what the .debs hold: the module, the helper setuid root
#      and its page, the conf as %config, the notice scripts and the
#      systemd units (the path unit enabled by a preset), the CLI, the TPM
#      child, the plugin with its LDIF, page and %config directory profile;
#      the erase warning is a %preun; no scriptlet starts the service;
#   4. rpmlint, with packaging/rpm/pam_kdfhash.rpmlintrc (each filter says
#      why), reports no error on the SRPM and the RPMs.
set -eu

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
start=$(date +%s)
fails=0
say() { echo "check-rpm: $*"; }
ok() { say "ok: $*"; }
bad() {
    say "FAIL: $*"
    fails=$((fails + 1))
}

if [ "$(id -u)" = 0 ]; then
    miss=
    for p in rpm rpmlint xz-utils cpio; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q ' installed' || miss="$miss $p"
    done
    if [ -n "$miss" ]; then
        say "installing$miss"
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $miss > /dev/null
    fi
fi
for t in rpm rpmbuild rpmspec rpmlint; do
    command -v "$t" > /dev/null 2>&1 || {
        say "FAIL: $t not found (Debian packages rpm, rpmlint)"
        exit 1
    }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- 1. the tarball and its spec ----------------------------------------------
tarball=${1:-}
if [ -z "$tarball" ]; then
    if [ -f "$top_builddir/Makefile" ]; then
        bt=$top_builddir
    else
        # Not configured: a configured copy (autotools and the build
        # dependencies are needed, as for any build).
        bt=$work/tree
        cp -a "$top_srcdir" "$bt"
        (cd "$bt" && { [ -x configure ] || autoreconf -fi; } && ./configure -q) \
            > "$work/conf.out" 2>&1 || {
            tail -20 "$work/conf.out"
            bad "configure of a copy of the tree failed"
        }
    fi
    (cd "$bt" && make -s dist) > "$work/dist.out" 2>&1 || {
        tail -20 "$work/dist.out"
        bad "make dist failed"
    }
    tarball=$(ls -t "$bt"/kdfhash-*.tar.xz 2>/dev/null | head -1)
fi
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    bad "no tarball"
    say "$fails failure(s) in $(($(date +%s) - start)) s"
    exit 1
fi
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
ver=$(basename "$tarball" .tar.xz)
ver=${ver#kdfhash-}
spec=$work/pam_kdfhash.spec
if tar -xJOf "$tarball" "kdfhash-$ver/packaging/rpm/pam_kdfhash.spec" > "$spec" 2> /dev/null &&
    [ "$(rpmspec -q --srpm --qf '%{VERSION}' "$spec" 2> /dev/null)" = "$ver" ]; then
    ok "$(basename "$tarball") holds the spec, Version $ver"
else bad "$(basename "$tarball") holds no spec of Version $ver"; fi

# ---- 2. %{_libdir} on 64- and 32-bit targets, the build conditions -----------
# The module goes to the target's own libdir (/usr/lib64 on x86_64, ppc64le,
# aarch64, s390x; /usr/lib on i686 and armv7hl), as Fedora's libpam looks.
for tl in x86_64:/usr/lib64 aarch64:/usr/lib64 s390x:/usr/lib64 ppc64le:/usr/lib64 \
    i686:/usr/lib armv7hl:/usr/lib; do
    t=${tl%%:*} lib=${tl#*:}
    rpmspec -P --target="$t" "$spec" > "$work/spec-$t" 2> /dev/null || :
    if grep -qx "$lib/security/pam_kdfhash.so" "$work/spec-$t" &&
        grep -q -- "--enable-securedir=$lib/security" "$work/spec-$t"; then
        ok "spec for $t: the module in $lib/security"
    else bad "spec for $t: the module is not in $lib/security"; fi
done
for tl in x86_64:/usr/lib64 i686:/usr/lib; do
    t=${tl%%:*} lib=${tl#*:}
    if grep -qx "$lib/dirsrv/plugins/libkdfhash-pwdstorage-plugin.so" "$work/spec-$t"; then
        ok "spec for $t: the 389-ds plugin in $lib/dirsrv/plugins"
    else bad "spec for $t: the 389-ds plugin is not in $lib/dirsrv/plugins"; fi
done
if rpmspec -P --without dirsrv "$spec" 2> /dev/null > "$work/spec-nods" &&
    grep -q -- '--disable-ds-plugin' "$work/spec-nods" &&
    ! grep -q '^%package -n 389-ds-kdfhash' "$work/spec-nods"; then
    ok "spec --without dirsrv: no plugin, no 389-ds-kdfhash"
else bad "spec --without dirsrv still builds the plugin or its subpackage"; fi
if rpmspec -P --without tpm "$spec" 2> /dev/null > "$work/spec-notpm" &&
    grep -q -- '--without-tpm' "$work/spec-notpm" &&
    ! grep -q '^%package -n kdfhash-tpm' "$work/spec-notpm" &&
    grep -q '^%package -n 389-ds-kdfhash' "$work/spec-notpm"; then
    ok "spec --without tpm: no TPM child, no kdfhash-tpm, the plugin kept"
else bad "spec --without tpm still builds the TPM child, or lost the plugin"; fi
if grep -n 'lib64\|/usr/lib/' "$spec" > /dev/null; then
    bad "spec hard-codes a library directory: $(grep -n 'lib64\|/usr/lib/' "$spec" | head -3)"
else ok "spec names no library directory but %{_libdir}"; fi

# ---- 3. rpmbuild -ta ---------------------------------------------------------
# Debian's rpm has no find-debuginfo: no debuginfo subpackage here.
top=$work/rpm
mkdir -p "$top"
t0=$(date +%s)
if rpmbuild --define "_topdir $top" --define "debug_package %{nil}" --nodeps \
    -ta "$tarball" > "$work/rpmbuild.out" 2>&1; then
    ok "rpmbuild -ta $(basename "$tarball") in $(($(date +%s) - t0)) s:" \
        "$(find "$top/RPMS" "$top/SRPMS" -name '*.rpm' -exec basename {} \; | sort | tr '\n' ' ')"
else
    tail -30 "$work/rpmbuild.out"
    bad "rpmbuild -ta failed"
fi
rpms=$(find "$top/RPMS" -name '*.rpm' | sort)
srpm=$(find "$top/SRPMS" -name '*.src.rpm' | head -1)
pick() { echo "$rpms" | grep "/$1-[0-9]" | head -1; }
listing() {
    rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' "$1" 2> /dev/null
}
rpm_mod=$(pick pam_kdfhash)
rpm_cli=$(pick kdfhash)
rpm_tpm=$(pick kdfhash-tpm)
rpm_ds=$(pick 389-ds-kdfhash)
if [ -n "$srpm" ] && rpm -qlp "$srpm" 2> /dev/null | grep -qx 'pam_kdfhash.spec' &&
    rpm -qlp "$srpm" 2> /dev/null | grep -qx "kdfhash-$ver.tar.xz"; then
    ok "SRPM $(basename "$srpm") holds the spec and the tarball"
else bad "no SRPM with the spec and the tarball"; fi

# What each package holds: "PACKAGE MODE-OWNER:GROUP-PATH" regexes.
if [ -n "$rpm_mod" ] && [ -n "$rpm_cli" ] && [ -n "$rpm_ds" ] && [ -n "$rpm_tpm" ]; then
    listing "$rpm_mod" > "$work/mod.l"
    listing "$rpm_cli" > "$work/cli.l"
    listing "$rpm_tpm" > "$work/tpm.l"
    listing "$rpm_ds" > "$work/ds.l"
    while read -r pkg re; do
        if grep -q "$re" "$work/$pkg.l"; then ok "$pkg: $re"; else bad "$pkg lacks $re"; fi
    done << 'EOF'
mod ^-rwxr-xr-x root:root /usr/lib64/security/pam_kdfhash\.so$
mod ^-rwsr-xr-x root:root /usr/sbin/kdfhash-chkpwd$
mod ^drwx------ root:root /var/lib/kdfhash/chkpwd$
mod ^-rw-r--r-- root:root /usr/share/man/man8/kdfhash-chkpwd\.8
mod ^-rw-r--r-- root:root /usr/share/man/man8/pam_kdfhash\.8
mod ^-rw-r--r-- root:root /usr/share/man/man5/kdfhash\.conf\.5
mod ^-rw-r--r-- root:root /etc/security/kdfhash\.conf$
mod ^-rwxr-xr-x root:root /usr/share/pam_kdfhash/stranded-notice$
mod ^-rwxr-xr-x root:root /usr/share/pam_kdfhash/unix-options$
mod ^-rwxr-xr-x root:root /usr/share/pam_kdfhash/foreign-count$
mod ^-rw-r--r-- root:root /usr/share/pam_kdfhash/foreign-prefixes$
mod ^-rw-r--r-- root:root /usr/lib/systemd/system/kdfhash-stranded\.path$
mod ^-rw-r--r-- root:root /usr/lib/systemd/system/kdfhash-stranded\.service$
mod ^-rw-r--r-- root:root /usr/lib/systemd/system-preset/90-pam_kdfhash\.preset$
cli ^-rwxr-xr-x root:root /usr/bin/kdfhash$
cli /usr/share/man/man1/kdfhash\.1
cli /usr/share/bash-completion/completions/kdfhash$
tpm ^-rwxr-xr-x root:root /usr/libexec/kdfhash/kdfhash-tpm-hmac$
ds /usr/lib64/dirsrv/plugins/libkdfhash-pwdstorage-plugin\.so$
ds /usr/share/389-ds-kdfhash/kdfhash-schemes\.ldif$
ds /usr/share/man/man8/389-ds-kdfhash\.8
ds /etc/dirsrv/kdfhash\.conf$
EOF
    # The same conffiles as the .debs: one policy file per package.
    if [ "$(rpm -qcp "$rpm_mod" 2> /dev/null)" = /etc/security/kdfhash.conf ] &&
        [ "$(rpm -qcp "$rpm_ds" 2> /dev/null)" = /etc/dirsrv/kdfhash.conf ] &&
        [ -z "$(rpm -qcp "$rpm_cli" "$rpm_tpm" 2> /dev/null)" ]; then
        ok "%config: /etc/security/kdfhash.conf (pam_kdfhash), /etc/dirsrv/kdfhash.conf (389-ds-kdfhash)"
    else bad "%config set: $(rpm -qcp $rpms 2> /dev/null | tr '\n' ' ')"; fi
    # The units name the package's scripts, and the path unit is enabled.
    mkdir -p "$work/x"
    (cd "$work/x" && rpm2cpio "$rpm_mod" | cpio -id --quiet) 2> /dev/null || :
    for f in $(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$work/x/usr/lib/systemd/system/kdfhash-stranded.service" 2> /dev/null); do
        if [ -x "$work/x$f" ]; then ok "kdfhash-stranded.service runs $f, in the package"
        else bad "kdfhash-stranded.service runs $f, which the package lacks"; fi
    done
    if grep -qx 'enable kdfhash-stranded.path' "$work/x/usr/lib/systemd/system-preset/90-pam_kdfhash.preset" 2> /dev/null &&
        ! grep -q 'kdfhash-stranded.service' "$work/x/usr/lib/systemd/system-preset/90-pam_kdfhash.preset"; then
        ok "the preset enables kdfhash-stranded.path and not its service"
    else bad "the preset does not enable kdfhash-stranded.path alone"; fi
    # The notice as the RPM installs it finds its counter beside it: it names
    # an account only pam_kdfhash verifies, and exits 0.
    fix=$work/shadow
    printf '%s\n' 'root:*:19000:0:99999:7:::' \
        'fa2id:$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzb21lc2FsdA$qkRaUQ7tMZW0URyrBpHfcY6nFGTpmm5m+6oVLUvpaEI:19000:0:99999:7:::' \
        > "$fix"
    if sh "$work/x/usr/share/pam_kdfhash/stranded-notice" --removing "$fix" > "$work/notice.out" 2>&1 &&
        grep -q 'fa2id' "$work/notice.out" && grep -q '^libpam-kdfhash: WARNING: 1 account' "$work/notice.out"; then
        ok "the RPM's stranded-notice --removing names the fixture's Argon2 account"
    else bad "the RPM's stranded-notice: $(head -3 "$work/notice.out" | tr '\n' ' ')"; fi
    # Scriptlets: the erase warning in %preun (never failing), no start of
    # the service at install or upgrade, the records removed on erase.
    rpm -qp --scripts "$rpm_mod" 2> /dev/null > "$work/mod.scripts"
    awk '/^preuninstall scriptlet/ { p = 1; next } /scriptlet/ { p = 0 } p' "$work/mod.scripts" > "$work/preun"
    if grep -q 'stranded-notice --removing || :' "$work/preun"; then
        ok "%preun warns on erase (stranded-notice --removing), never failing"
    else bad "%preun has no erase warning: $(tr '\n' ' ' < "$work/preun")"; fi
    if grep -q 'start.*kdfhash-stranded\.service\|restart.*kdfhash-stranded\.service' "$work/mod.scripts"; then
        bad "a scriptlet starts kdfhash-stranded.service: $(grep -n 'kdfhash-stranded\.service' "$work/mod.scripts")"
    else ok "no scriptlet starts or restarts kdfhash-stranded.service"; fi
    if awk '/^postuninstall scriptlet/ { p = 1; next } /scriptlet/ { p = 0 } p' "$work/mod.scripts" |
        grep -q 'rm -rf /var/lib/kdfhash/chkpwd'; then
        ok "%postun removes the helper's records on erase"
    else bad "%postun leaves /var/lib/kdfhash/chkpwd"; fi
    # The 389-ds description names the directory profile.
    desc=$(rpm -qp --qf '%{DESCRIPTION}' "$rpm_ds" 2> /dev/null | tr '\n' ' ')
    case $desc in
    */etc/dirsrv/kdfhash.conf*) ok "389-ds-kdfhash's description names /etc/dirsrv/kdfhash.conf" ;;
    *) bad "389-ds-kdfhash's description does not name /etc/dirsrv/kdfhash.conf" ;;
    esac
    case $desc in
    */etc/security/kdfhash.conf*) bad "389-ds-kdfhash's description names /etc/security/kdfhash.conf" ;;
    esac
else bad "rpmbuild made no pam_kdfhash, kdfhash, kdfhash-tpm and 389-ds-kdfhash: $rpms"; fi

# ---- 4. rpmlint -------------------------------------------------------------
# The package's filters (packaging/rpm/pam_kdfhash.rpmlintrc, Fedora's
# reasons), then those of this host: Debian's rpmlint runs openSUSE's
# defaults, and Debian's rpm neither signs, strips (no find-debuginfo) nor
# compresses man pages as Fedora's build system does.
rc_file=$work/rpmlintrc
cat "$top_srcdir/packaging/rpm/pam_kdfhash.rpmlintrc" - > "$rc_file" << 'EOF'
# Fedora's packages are signed by its build system, not by rpmbuild.
addFilter(": E: no-signature")
# Fedora forbids Group, Packager and BuildRoot (Packaging Guidelines, Tags).
addFilter(": E: no-group-tag")
addFilter(": E: no-packager-tag")
addFilter(": W: no-buildroot-tag")
# BSD-3-Clause is the SPDX name Fedora requires; Debian's list predates it.
addFilter(": W: invalid-license BSD-3-Clause")
# Fedora's brp-compress gzips the pages, after which rpmlint finds them and
# reads the section right; Debian's rpm leaves them plain.
addFilter(": W: manpage-not-compressed ")
addFilter(": W: no-manual-page-for-binary ")
addFilter(": E: bad-manual-page-folder /usr/share/man/man5/kdfhash.conf.5 ")
# find-debuginfo strips on Fedora; Debian's rpm has none (debug_package nil).
addFilter(": W: unstripped-binary-or-object ")
# openSUSE's language-subpackage rule reads "-tpm" as a locale (Tok Pisin).
addFilter("kdfhash-tpm[.][^:]+: E: no-dependency-on locales-tpm")
EOF
if [ -n "$srpm" ] && [ -n "$rpms" ]; then
    # shellcheck disable=SC2086
    rpmlint -r "$rc_file" "$srpm" $rpms > "$work/rpmlint.out" 2>&1 || :
    sed 's/^/  /' "$work/rpmlint.out"
    sum=$(grep -E '[0-9]+ errors?, [0-9]+ warnings?' "$work/rpmlint.out" | tail -1)
    if [ -n "$sum" ] && echo "$sum" | grep -Eq ' 0 errors?,'; then
        ok "rpmlint -r pam_kdfhash.rpmlintrc: $sum"
    else bad "rpmlint: unfiltered errors: ${sum:-no summary}"; fi
else bad "no packages for rpmlint"; fi

say "$fails failure(s) in $(($(date +%s) - start)) s"
[ "$fails" -eq 0 ]
