#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-piuparts.sh [DEBDIR [OLDDEBDIR]] - the piuparts gate, as Debian's
# piuparts.debian.org runs it on every upload: in a new Debian 12 chroot,
#   - install and purge the current packages (DEBDIR; default: built with
#     scripts/build-deb.sh): nothing left behind, nothing of another
#     package changed, no broken symlink, maintainer scripts that work
#     without a running init;
#   - upgrade from the released packages (OLDDEBDIR; default: the
#     previous release, built by scripts/old-debs.sh prev), which piuparts finds in a
#     local repository given as an extra apt source: it installs them by
#     name, upgrades to DEBDIR's, then purges and compares again.
# The packages: libpam-kdfhash, libpam-kdfhash-bin, kdfhash and
# kdfhash-tpm together; 389-ds-kdfhash in a second run of its own (it
# brings 389-ds-base and its Python stack, whose own leftovers are not
# ours), unless KDF_PIUPARTS_DS=no.
#
# piuparts makes its chroot with debootstrap from the mirror (about a
# minute), or unpacks KDF_PIUPARTS_BASETGZ, a Debian 12 minbase tarball
# (scripts/fresh-root.sh keeps one on the host: hand it in with --with),
# and saves what it made there for the next run when that path is free.
# Runs as root; inside scripts/fresh-root.sh's root too (piuparts' mounts
# land in its mount namespace).  Prints each run's wall time.
set -eu

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
fails=0
say() { echo "check-piuparts: $*"; }
ok() { say "ok: $*"; }
bad() {
    say "FAIL: $*"
    fails=$((fails + 1))
}
start=$(date +%s)
if [ "$(id -u)" != 0 ]; then
    say "must run as root (piuparts makes a chroot)" >&2
    exit 2
fi
missing=
for p in piuparts debootstrap; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    say "installing:$missing"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing > /dev/null 2>&1 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends $missing > /dev/null; }
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/kdfhash-piu.XXXXXX")
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

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
pick() { # pick DIR PACKAGE: the host architecture's .deb of PACKAGE, if any
    for f in "$1/$2"_*_"$arch".deb; do [ -f "$f" ] && echo "$f" && return; done
    return 0
}

# Two repositories piuparts' chroot sees through bind mounts: the old
# release, as an extra apt source (what the upgrade starts from), and the
# current packages, as piuparts' "testdebs" repository (apt installs them
# from it, so that libpam-kdfhash's Depends on libpam-kdfhash-bin (= its
# version) is met; piuparts turns .deb files into one dummy package's
# Depends, which apt cannot meet).  The Packages file holds the control
# fields, as dpkg-scanpackages writes it (without needing dpkg-dev).
mkrepo() { # mkrepo DIR FROMDIR PACKAGE...
    r=$1 from=$2
    shift 2
    mkdir "$r"
    for p in "$@"; do
        f=$(pick "$from" "$p")
        [ -n "$f" ] && cp "$f" "$r/"
    done
    for f in "$r"/*.deb; do
        [ -f "$f" ] || continue
        dpkg-deb -f "$f"
        echo "Filename: ./$(basename "$f")"
        echo "Size: $(stat -c %s "$f")"
        echo "SHA256: $(sha256sum "$f" | cut -d' ' -f1)"
        echo
    done > "$r/Packages"
}
mkrepo "$work/old" "$olddir" libpam-kdfhash libpam-kdfhash-bin kdfhash kdfhash-tpm 389-ds-kdfhash
mkrepo "$work/new" "$newdir" libpam-kdfhash libpam-kdfhash-bin kdfhash kdfhash-tpm 389-ds-kdfhash

mirror=${KDF_PIUPARTS_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -v security | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}
base=${KDF_PIUPARTS_BASETGZ:-/var/cache/kdfhash-piuparts/bookworm-minbase-$arch.tar.gz}
if [ -s "$base" ]; then
    baseopt="-b $base"
    say "base chroot: $base"
else
    mkdir -p "$(dirname "$base")" 2>/dev/null || :
    baseopt="-s $base"
    say "base chroot: debootstrap bookworm from $mirror (saved in $base)"
fi

run() { # run NAME DEB...: one piuparts run over those packages, timed
    name=$1
    shift
    t0=$(date +%s)
    # shellcheck disable=SC2086
    if piuparts -d bookworm -m "$mirror" $baseopt -t "$work" \
        --bindmount="$work/old" --extra-repo="deb [trusted=yes] file://$work/old ./" \
        --bindmount="$work/new" --testdebs-repo="deb [trusted=yes] file://$work/new ./" \
        --warn-on-others -l "$work/$name.log" "$@" > "$work/$name.out" 2>&1; then
        ok "piuparts $name: install/purge and upgrade from $oldv pass ($(($(date +%s) - t0)) s)"
    else
        grep -E ' (ERROR|FAIL):|^  ' "$work/$name.out" | tail -40
        bad "piuparts $name ($(($(date +%s) - t0)) s; the end of its log above)"
    fi
    # The upgrade test is what this gate is for: it must have run.
    if grep -q 'Can.t test upgrade' "$work/$name.out"; then
        bad "piuparts $name skipped the upgrade test: $(grep 'Can.t test upgrade' "$work/$name.out" | head -1)"
    elif grep -q "Unpacking .* over ($oldv)" "$work/$name.out"; then
        ok "piuparts $name upgraded the packages over $oldv"
    else bad "piuparts $name: no upgrade over $oldv in its log"; fi
    [ -s "$base" ] && baseopt="-b $base"
}

oldv=$(dpkg-deb -f "$(pick "$olddir" libpam-kdfhash)" Version)
set --
for p in libpam-kdfhash libpam-kdfhash-bin kdfhash kdfhash-tpm; do
    f=$(pick "$newdir" "$p")
    if [ -n "$f" ]; then set -- "$@" "$f"; else bad "no $p .deb in $newdir"; fi
done
run pam "$@"
if [ "${KDF_PIUPARTS_DS:-yes}" != no ]; then
    f=$(pick "$newdir" 389-ds-kdfhash)
    # What 389-ds-base's dependencies (systemd's tmpfiles, openssh's
    # client) leave after their purge: not ours, and piuparts' upgrade
    # test fails on it even with --warn-on-others.
    if [ -n "$f" ]; then
        run 389-ds -i /root/.ssh/ -i /var/cache/private/ -i /var/lib/private/ \
            -i /var/lib/systemd/coredump/ -i /var/lib/systemd/pstore/ -i /var/log/private/ "$f"
    else bad "no 389-ds-kdfhash .deb in $newdir"; fi
fi

echo "check-piuparts: $fails failure(s), wall time $(($(date +%s) - start)) s"
[ "$fails" = 0 ]
