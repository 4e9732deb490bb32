#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# build-deb.sh [--arch ARCH] [OUTDIR] - build the Debian packages
# libpam-kdfhash, libpam-kdfhash-bin, kdfhash and 389-ds-kdfhash from this
# tree, without touching it: the tree is copied to a scratch directory
# (git's tracked and new files when it is a checkout, everything when it is
# an unpacked tarball), packaging/debian becomes ./debian there,
# `dpkg-buildpackage -us -uc -b` builds, and lintian checks the result
# (errors fail the script; warnings are printed).  The .deb, .changes and
# .buildinfo files and lintian.txt land in OUTDIR (default
# ${TMPDIR:-/tmp}/kdfhash-debs, outside the tree).
#
# --arch ARCH cross-builds for Debian architecture ARCH as a buildd would
# (dpkg-buildpackage -a ARCH) against a sysroot of ARCH's own packages
# (scripts/cross-sysroot.sh; cached in $CROSS_DIR, default ./_cross):
# ARCH's Build-Depends are not installed (-d), the sysroot stands in for
# them through pkg-config, the compiler flags and debian/shlibs.local.  The
# sysroot has no 389-ds-base-dev and no libtss2-dev, so the nodirsrv and
# notpm build profiles (-P) leave out the 389-ds plugin with its package
# 389-ds-kdfhash, and the TPM keys with kdfhash-tpm-hmac.
#
# Needs: dpkg-dev debhelper fakeroot lintian + the Build-Depends of
# packaging/debian/control (for --arch: gcc-TRIPLE instead of gcc).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
arch=
if [ "${1:-}" = --arch ]; then
    arch=${2:?--arch needs an architecture}
    shift 2
fi
out=${1:-${TMPDIR:-/tmp}/kdfhash-debs${arch:+-$arch}}
mkdir -p "$out"
out=$(cd "$out" && pwd)

for tool in dpkg-buildpackage dh lintian fakeroot; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "build-deb: $tool not found (apt-get install dpkg-dev debhelper lintian fakeroot)" >&2
        exit 2
    }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
version=$(sed -n '1s/^kdfhash (\([^)]*\)).*/\1/p' "$src/packaging/debian/changelog")
tree=$work/kdfhash-$version
mkdir -p "$tree"

# 1. A scratch copy of the sources (no build products, no ./debian).
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard) |
        (cd "$src" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
        (cd "$src" && tar --null -T - -cf -) | (cd "$tree" && tar -xf -)
else
    (cd "$src" && tar --exclude=./debian --exclude='./_build*' -cf - .) | (cd "$tree" && tar -xf -)
fi
rm -rf "$tree/debian"
cp -R "$src/packaging/debian" "$tree/debian"
chmod +x "$tree/debian/rules"

# 2. Build the binary packages (debhelper builds with as many jobs as
# DEB_BUILD_OPTIONS allows: one unless told).
DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$(nproc 2>/dev/null || echo 1)}
set -- -us -uc -b
if [ -n "$arch" ]; then
    multi=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
    gnu=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null)
    command -v "$gnu-gcc" >/dev/null 2>&1 || {
        echo "build-deb: $gnu-gcc not found (apt-get install gcc-$gnu)" >&2
        exit 2
    }
    sysdir=${CROSS_DIR:-$src/_cross}/$arch/sysroot
    sh "$src/scripts/cross-sysroot.sh" "$arch" "$sysdir"
    root=$(cd "$sysdir/root" && pwd)
    # Which package each sysroot library is (their shlibs control files).
    for deb in "$sysdir"/debs/*.deb; do
        dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./shlibs 2>/dev/null || true
    done > "$tree/debian/shlibs.local"
    export PKG_CONFIG_LIBDIR="$root/usr/lib/$multi/pkgconfig:$root/usr/share/pkgconfig"
    export PKG_CONFIG_SYSROOT_DIR="$root" KDF_SYSROOT="$root" CC="$gnu-gcc"
    export DEB_CPPFLAGS_APPEND="-I$root/usr/include -I$root/usr/include/$multi"
    export DEB_LDFLAGS_APPEND="-L$root/usr/lib/$multi -L$root/lib/$multi -Wl,-rpath-link,$root/usr/lib/$multi -Wl,-rpath-link,$root/lib/$multi"
    DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS nocheck"
    set -- "$@" -a"$arch" -d -Pnodirsrv,notpm
fi
export DEB_BUILD_OPTIONS
echo "build-deb: building in $tree ($DEB_BUILD_OPTIONS${arch:+, for $arch})"
(cd "$tree" && dpkg-buildpackage "$@") > "$out/build.log" 2>&1 || {
    tail -40 "$out/build.log" >&2
    echo "build-deb: dpkg-buildpackage failed; full log in $out/build.log" >&2
    exit 1
}

# 3. lintian: errors fail, the rest is reported.
changes=$(ls "$work"/*.changes)
set +e
lintian --fail-on error --display-info "$changes" > "$out/lintian.txt" 2>&1
lrc=$?
set -e
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
echo "build-deb: packages in $out:"
ls -1 "$out"/*.deb
if [ -s "$out/lintian.txt" ]; then
    echo "build-deb: lintian says:"
    cat "$out/lintian.txt"
fi
if [ $lrc -ne 0 ]; then
    echo "build-deb: lintian reported errors" >&2
    exit 1
fi
echo "build-deb: lintian: no errors"
