#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# cross-sysroot.sh ARCH DIR - a sysroot of Debian's own ARCH packages in
# DIR/root, for building and testing kdfhash as Debian's buildds would
# (./configure --host=TRIPLE against ARCH's libpam, libcrypt and cmocka).
#
# The packages come through a private apt state in DIR/apt (the machine's
# sources, APT::Architecture=ARCH): nothing is installed, and the machine's
# dpkg architectures are left alone, because co-installing ARCH packages
# through multiarch fails or removes amd64 packages whenever the mirror's
# ARCH versions lag amd64's.  Each package is unpacked with dpkg -x.  A
# second run with the same DIR and package list reuses what is there.
set -eu

arch=${1:?usage: cross-sysroot.sh ARCH DIR}
dir=${2:?usage: cross-sysroot.sh ARCH DIR}
# What the tree links (PAM, libcrypt, cmocka), what libpam itself needs at
# run time (libaudit, libcap-ng), the oracles of the differential tests
# (OpenSSL's PBKDF2, the reference libargon2), and what the tests run on
# (ARCH's libc, and libpam's modules such as pam_permit): DIR/root is then
# a whole ARCH root for qemu-user's -L.
pkgs="libpam0g libpam0g-dev libcrypt1 libcrypt-dev libcmocka0 libcmocka-dev libaudit1 libcap-ng0 libunistring2 libunistring-dev
 libssl3 libssl-dev libargon2-1 libargon2-dev libc6 libgcc-s1 libpam-modules"

want=$(echo $pkgs)
if [ -f "$dir/root/.complete" ] && [ "$(head -1 "$dir/root/.complete")" = "$want" ]; then
    exit 0
fi
rm -rf "$dir/root" "$dir/debs"
mkdir -p "$dir/apt/state/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs" "$dir/root"
: > "$dir/apt/status"
set -- -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch" \
    -o "Dir::State=$dir/apt/state" -o "Dir::State::status=$dir/apt/status" \
    -o "Dir::Cache=$dir/apt/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root -q
apt-get "$@" update >"$dir/apt/update.log" 2>&1 || {
    cat "$dir/apt/update.log" >&2
    echo "cross-sysroot: apt-get update for $arch failed" >&2
    exit 1
}
(cd "$dir/debs" && apt-get "$@" download $(for p in $pkgs; do printf '%s:%s ' "$p" "$arch"; done)) \
    >"$dir/apt/download.log" 2>&1 || {
    cat "$dir/apt/download.log" >&2
    echo "cross-sysroot: apt-get download for $arch failed" >&2
    exit 1
}
for deb in "$dir"/debs/*.deb; do
    dpkg -x "$deb" "$dir/root"
done
# Absolute symlinks (lib/x.so -> /lib/TRIPLE/x.so.1) point into the
# sysroot instead of the machine.
find "$dir/root" -type l | while read -r l; do
    t=$(readlink "$l")
    case $t in
    /*) ln -sf "$dir/root$t" "$l" ;;
    esac
done
{ echo "$want"; ls "$dir"/debs/*.deb | sed 's|.*/||'; } > "$dir/root/.complete"
