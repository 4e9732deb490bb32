#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# quickstart.sh - the README's two commands.
#
#   scripts/quickstart.sh demo   install what is missing, build, run the demo
#   scripts/quickstart.sh test   install what is missing, build, run every test
#
# Meant for a fresh Debian 12 machine, run as root (apt-get, and the demo and
# the PAM tests write service files and users into a copy of /etc bound over
# /etc in a private mount namespace: the machine's own /etc is not
# changed).  As a non-root user it skips the package step and says what it
# could not do.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
jobs=$(nproc 2>/dev/null || echo 2)

# What the build needs, and what the tests and benchmarks compare against.
BUILD_PKGS="build-essential autoconf automake libtool pkg-config libpam0g-dev libcrypt-dev libcmocka-dev libaudit-dev"
TEST_PKGS="clang libclang-rt-14-dev valgrind strace whois libssl-dev libargon2-dev libsodium-dev argon2
 python3 python3-passlib python3-argon2 python3-bcrypt pamtester libpam-wrapper libpamtest0-dev
 libselinux1-dev mandoc gdb bash-completion
 debhelper dpkg-dev fakeroot lintian rpm
 openssh-server openssh-client libpam-pwquality login passwd
 gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross
 qemu-user-static binutils-multiarch"
# The directory server plugin's build and its two test servers.
DS_PKGS="389-ds-base 389-ds-base-dev"

usage() {
    echo "usage: $0 demo|test" >&2
    exit 2
}

install_missing() {
    missing=
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "quickstart: missing Debian packages:$missing (run as root to install them)" >&2
        return 1
    fi
    echo "quickstart: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

build() { # build DIR [configure args...]
    dir=$1
    shift
    if [ ! -x "$here/configure" ] || [ "$here/configure.ac" -nt "$here/configure" ]; then
        (cd "$here" && autoreconf -fi >/dev/null 2>&1) || (cd "$here" && autoreconf -fi)
    fi
    mkdir -p "$dir"
    (cd "$dir" && { [ -f Makefile ] || "$here/configure" -q "$@"; } && make -s -j"$jobs")
}

case "$mode" in
demo)
    install_missing $BUILD_PKGS python3 python3-passlib python3-argon2 python3-bcrypt pamtester whois
    build "$here/_build"
    exec sh "$here/scripts/demo.sh" "$here/_build"
    ;;
test)
    install_missing $BUILD_PKGS $TEST_PKGS
    t=$(date +%s)
    install_missing $DS_PKGS
    echo "quickstart: 389-ds packages present after $(( $(date +%s) - t )) s"
    start=$(date +%s)
    # Every stage runs even when an earlier one failed, and the run always
    # ends with the closing "N passed, N failed, N skipped" line: a failed
    # gate (a build, valgrind, cross, packaging) counts as one failure.
    failed_stages=
    stage() { # stage NAME DIR command...
        name=$1 dir=$2
        shift 2
        echo "quickstart: stage $name"
        if ! (cd "$dir" && "$@"); then
            echo "quickstart: stage $name FAILED" >&2
            [ -f "$dir/test-suite.log" ] && tail -200 "$dir/test-suite.log" >&2
            failed_stages="$failed_stages $name"
        fi
    }
    run_build() { # run_build NAME DIR [configure args...]
        name=$1
        shift
        build "$@" || { echo "quickstart: build $name FAILED" >&2; failed_stages="$failed_stages build-$name"; return 1; }
    }
    # 1. The whole suite, optimised build.
    run_build gcc "$here/_build" && stage check "$here/_build" make -s -j"$jobs" check
    # 2. The whole suite again under ASan + UBSan (Linux-PAM's CI flags).
    run_build san "$here/_build-san" --enable-sanitizers --enable-debug &&
        stage check-san "$here/_build-san" env KDF_FUZZ_SECONDS=15 make -s -j"$jobs" check
    # 3. -Wall -Wextra -Werror clean with clang too: everything, tests included.
    run_build clang "$here/_build-clang" CC=clang &&
        stage clang-tests-build "$here/_build-clang" make -s -j"$jobs" check TESTS=
    # 4. The threaded tests under TSan (lane threads and their barrier).
    run_build tsan "$here/_build-tsan" --enable-sanitizers=thread &&
        stage check-threads "$here/_build-tsan" make -s -j"$jobs" check-threads
    # 5. Extra gates: valgrind memcheck, packaging (with an arm64 cross
    # build), and the real tree cross-built for arm64 (little-endian, NEON,
    # ARMv8 SHA) and s390x (big-endian, portable), its test programs run
    # under qemu-user; `make check-cross` does all five release
    # architectures.
    if [ -f "$here/_build/Makefile" ]; then
        for t in check-valgrind check-packaging; do
            stage "$t" "$here/_build" make -s "$t"
        done
        # 6. The 389-ds plugin in two real servers in replication.
        stage check-ds "$here/_build" make -s check-ds
        stage check-cross "$here/_build" make -s check-cross CROSS_ARCHS="arm64 s390x"
        stage check-cross-baseline "$here/_build" make -s check-cross-baseline
    fi
    nstages=$(echo $failed_stages | wc -w)
    [ -n "$failed_stages" ] && echo "quickstart: failed stages:$failed_stages" >&2
    rc=0
    KDF_EXTRA_FAILED=$nstages sh "$here/scripts/summarize.sh" "$here/_build" "$here/_build-san" "$here/_build-tsan" || rc=1
    [ "$rc" -eq 0 ] && echo "quickstart: all tests passed in $(( $(date +%s) - start )) s"
    exit "$rc"
    ;;
*)
    usage
    ;;
esac
