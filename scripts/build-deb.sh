#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# build-deb.sh [--arch ARCH] [--tarball FILE] [OUTDIR] - build the Debian
# source and binary packages of kdfhash from this tree, without touching it,
# the way a distribution builds them: from the release tarball.
#
#   1. The tarball is FILE (--tarball), or what `make dist` makes of a
#      scratch copy of the tree (git's tracked and new files when it is a
#      checkout, everything when it is an unpacked tarball; autoreconf and
#      configure run there, never here), with its files' owners, order and
#      times fixed so that the same tree gives the same bytes.
#   2. It is copied to kdfhash_VERSION.orig.tar.xz, unpacked, and
#      packaging/debian becomes its ./debian (3.0 (quilt): the packaging is
#      not part of the upstream tarball's tree).
#   3. `dpkg-buildpackage -us -uc` builds the source package and the
#      binary packages; dpkg takes SOURCE_DATE_EPOCH from the changelog.
#   4. lintian --pedantic --display-info checks the source package
#      (the .dsc: lintian-source.txt) and the binary upload (a binary-only
#      .changes: lintian.txt); an error or a warning fails the script.
# Everything lands in OUTDIR (default ${TMPDIR:-/tmp}/kdfhash-debs, outside
# the tree): .orig.tar.xz, .debian.tar.xz, .dsc, .deb, .changes, .buildinfo
# and the two lintian reports.
#
# --arch ARCH cross-builds the binary packages only for Debian architecture
# ARCH as a buildd would (dpkg-buildpackage -a ARCH -b; a source package
# made there would be the native one's), from the scratch copy of the
# tree (or FILE's unpacked tree), against a sysroot of ARCH's own packages
# (scripts/cross-sysroot.sh; cached in $CROSS_DIR, default ./_cross):
# ARCH's Build-Depends are not installed (-d), the sysroot stands in for
# them through pkg-config, the compiler flags and debian/shlibs.local.  The
# sysroot has no 389-ds-base-dev and no libtss2-dev, so the
# pkg.kdfhash.nodirsrv and pkg.kdfhash.notpm build profiles (-P) leave out
# the 389-ds plugin with its package 389-ds-kdfhash, and the TPM keys with
# kdfhash-tpm.
#
# Needs: dpkg-dev debhelper fakeroot lintian + the Build-Depends of
# packaging/debian/control (for --arch: gcc-TRIPLE instead of gcc).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
arch= tarball=
while [ $# -gt 0 ]; do
    case $1 in
    --arch) arch=${2:?--arch needs an architecture}; shift 2 ;;
    --tarball) tarball=${2:?--tarball needs a file}; shift 2 ;;
    --*) echo "build-deb: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ -n "$tarball" ]; then
    [ -f "$tarball" ] || { echo "build-deb: no tarball $tarball" >&2; exit 2; }
    tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
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
changelog=$src/packaging/debian/changelog
version=$(dpkg-parsechangelog -l "$changelog" -SVersion)
upstream=${version#*:}
upstream=${upstream%-*}
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$changelog" -STimestamp)
export SOURCE_DATE_EPOCH
tree=$work/kdfhash-$upstream

# A scratch copy of the sources (no build products, no ./debian) in $1.
copy_tree() {
    mkdir -p "$1"
    if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$src" && git ls-files -z --cached --others --exclude-standard) |
            (cd "$src" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
            (cd "$src" && tar --null -T - -cf -) | (cd "$1" && tar -xf -)
    else
        (cd "$src" && tar --exclude=./debian --exclude='./_build*' -cf - .) | (cd "$1" && tar -xf -)
    fi
    rm -rf "$1/debian"
}

# 1. The upstream tarball.
if [ -z "$tarball" ] && [ -z "$arch" ]; then
    echo "build-deb: make dist (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
    copy_tree "$work/dist"
    (
        cd "$work/dist"
        [ -x configure ] || autoreconf -fi
        mkdir _dist && cd _dist
        ../configure -q --disable-ds-plugin --without-tpm
        # GNU tar reads TAR_OPTIONS: the same tree gives the same bytes,
        # whatever its files' owners and times (every file gets the
        # changelog's date, not only the newer ones: a checkout's are).
        TAR_OPTIONS="--sort=name --owner=0 --group=0 --numeric-owner --mtime=@$SOURCE_DATE_EPOCH" \
            make -s dist
    ) > "$out/dist.log" 2>&1 || {
        tail -30 "$out/dist.log" >&2
        echo "build-deb: make dist failed; full log in $out/dist.log" >&2
        exit 1
    }
    tarball=$(ls "$work"/dist/_dist/kdfhash-*.tar.xz)
fi
if [ -n "$tarball" ]; then
    case ${tarball##*/} in
    "kdfhash-$upstream.tar.xz" | "kdfhash_$upstream.orig.tar.xz") ;;
    *)
        echo "build-deb: ${tarball##*/} is not kdfhash-$upstream.tar.xz, the version of debian/changelog ($version)" >&2
        exit 1
        ;;
    esac
    cp "$tarball" "$work/kdfhash_$upstream.orig.tar.xz"
    (cd "$work" && tar -xf "kdfhash_$upstream.orig.tar.xz")
    [ -d "$tree" ] || { echo "build-deb: the tarball holds no kdfhash-$upstream/" >&2; exit 1; }
else
    copy_tree "$tree"
fi
cp -R "$src/packaging/debian" "$tree/debian"
chmod +x "$tree/debian/rules"

# 2. Build (debhelper builds with as many jobs as DEB_BUILD_OPTIONS allows:
# one unless told).
DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=$(nproc 2>/dev/null || echo 1)}
set -- -us -uc
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
    # System headers, as natively (scripts/cross-check.sh says why).
    export DEB_CPPFLAGS_APPEND="-isystem $root/usr/include -isystem $root/usr/include/$multi"
    export DEB_LDFLAGS_APPEND="-L$root/usr/lib/$multi -L$root/lib/$multi -Wl,-rpath-link,$root/usr/lib/$multi -Wl,-rpath-link,$root/lib/$multi"
    DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS nocheck"
    set -- "$@" -b -a"$arch" -d -Ppkg.kdfhash.nodirsrv,pkg.kdfhash.notpm
fi
export DEB_BUILD_OPTIONS
echo "build-deb: building $version in $tree ($DEB_BUILD_OPTIONS${arch:+, for $arch})"
(cd "$tree" && dpkg-buildpackage "$@") > "$out/build.log" 2>&1 || {
    tail -40 "$out/build.log" >&2
    echo "build-deb: dpkg-buildpackage failed; full log in $out/build.log" >&2
    exit 1
}

# 3. lintian, the source package and the binary upload apart: errors and
# warnings fail; every expected tag is overridden in the package, with why.
lint() {
    lintian --pedantic --display-info --fail-on error,warning "$@" 2>&1 |
        grep -v '^running with root privileges is not recommended!$'
    return 0
}
lrc=0
host=$(dpkg-architecture ${arch:+-a"$arch"} -qDEB_HOST_ARCH 2>/dev/null)
rm -f "$out/lintian-source.txt"
if [ -z "$arch" ]; then
    lint "$work/kdfhash_${version#*:}.dsc" > "$out/lintian-source.txt"
    # The binary packages alone, as a binary-only upload would carry them.
    (cd "$tree" && dpkg-genchanges -b -O"$work/kdfhash_${version#*:}_${host}_binary.changes") \
        >> "$out/build.log" 2>&1
    binchanges=$work/kdfhash_${version#*:}_${host}_binary.changes
else
    binchanges=$work/kdfhash_${version#*:}_${host}.changes
fi
lint "$binchanges" > "$out/lintian.txt"
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
[ -n "$arch" ] || cp "$work"/*.dsc "$work"/*.orig.tar.xz "$work"/*.debian.tar.* "$out"/
echo "build-deb: packages in $out:"
ls -1 "$out"/*.deb "$out"/*.dsc 2>/dev/null || true
for f in lintian-source.txt lintian.txt; do
    [ -f "$out/$f" ] || continue
    if [ -s "$out/$f" ]; then
        echo "build-deb: lintian says: ($f)"
        cat "$out/$f"
    fi
    grep -q '^[EW]: ' "$out/$f" && lrc=1
done
if [ $lrc -ne 0 ]; then
    echo "build-deb: lintian reported errors or warnings" >&2
    exit 1
fi
echo "build-deb: lintian: no errors, no warnings"
