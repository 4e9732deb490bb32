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
# Packages are installed with --no-install-recommends, so every package a
# test needs is named here, never reached through a Recommends only: a
# plain `apt install libpam-pwquality` brings cracklib-runtime and a word
# list (without them pam_pwquality refuses every new password with "error
# loading dictionary"); here they are listed.
BUILD_PKGS="build-essential autoconf automake libtool pkg-config libpam0g-dev libcrypt-dev libcmocka-dev libaudit-dev"
TEST_PKGS="clang libclang-rt-14-dev valgrind strace whois libssl-dev libargon2-dev libsodium-dev argon2
 python3 python3-passlib python3-argon2 python3-bcrypt pamtester libpam-wrapper libpamtest0-dev
 libselinux1-dev mandoc gdb bash-completion
 debhelper dpkg-dev fakeroot lintian rpm
 openssh-server openssh-client libpam-pwquality cracklib-runtime wamerican login passwd
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

# What configure can find: the versions of every package named above
# (missing ones as such) and the configure arguments.  A build directory
# remembers the set it was configured with; when what is installed now
# differs (389-ds-base-dev installed after `demo` configured _build/, say),
# configure runs again, so no optional part stays off because an earlier
# run came first.
configured_with() { # configured_with [configure args...]
    echo "args: $*"
    # shellcheck disable=SC2086
    dpkg-query -W -f='${Package} ${Status} ${Version}\n' $BUILD_PKGS $TEST_PKGS $DS_PKGS 2>&1 |
        sed 's/ install ok installed / /' | sort
}

build() { # build DIR [configure args...]
    dir=$1
    shift
    if [ ! -x "$here/configure" ] || [ "$here/configure.ac" -nt "$here/configure" ]; then
        (cd "$here" && autoreconf -fi >/dev/null 2>&1) || (cd "$here" && autoreconf -fi)
    fi
    mkdir -p "$dir"
    stamp=$dir/.quickstart-configured
    configured_with "$@" >"$stamp.now"
    if [ -f "$dir/Makefile" ] && ! cmp -s "$stamp.now" "$stamp"; then
        echo "quickstart: $dir was configured with other packages or arguments; configuring again"
        rm -f "$dir/Makefile"
    fi
    (cd "$dir" && { [ -f Makefile ] || "$here/configure" -q "$@"; }) || { rm -f "$stamp.now"; return 1; }
    mv "$stamp.now" "$stamp"
    (cd "$dir" && make -s -j"$jobs")
}

case "$mode" in
demo)
    install_missing $BUILD_PKGS python3 python3-passlib python3-argon2 python3-bcrypt pamtester whois
    build "$here/_build"
    exec sh "$here/scripts/demo.sh" "$here/_build"
    ;;
test)
    start=$(date +%s)
    install_missing $BUILD_PKGS $TEST_PKGS $DS_PKGS
    t_install=$(( $(date +%s) - start ))
    # Every stage runs even when an earlier one failed, and the run always
    # ends with the closing "N passed, N failed, N skipped" line: a failed
    # gate (a build, valgrind, cross, packaging) counts as one failure.
    failed_stages=
    # Each stage's wall time goes into the closing output.
    times=
    record() { # record NAME SECONDS STATUS
        times="$times$(printf '%-24s %5s s  %s' "$1" "$2" "$3")
"
    }
    record install "$t_install" ok
    stage() { # stage NAME DIR command...
        name=$1 dir=$2
        shift 2
        echo "quickstart: stage $name"
        t0=$(date +%s)
        if (cd "$dir" && "$@"); then
            record "$name" $(( $(date +%s) - t0 )) ok
        else
            record "$name" $(( $(date +%s) - t0 )) FAILED
            echo "quickstart: stage $name FAILED" >&2
            [ -f "$dir/test-suite.log" ] && tail -200 "$dir/test-suite.log" >&2
            failed_stages="$failed_stages $name"
        fi
    }
    run_build() { # run_build NAME DIR [configure args...]
        name=$1
        shift
        t0=$(date +%s)
        if build "$@"; then
            record "build-$name" $(( $(date +%s) - t0 )) ok
        else
            record "build-$name" $(( $(date +%s) - t0 )) FAILED
            echo "quickstart: build $name FAILED" >&2
            failed_stages="$failed_stages build-$name"
            return 1
        fi
    }
    # 1. The whole suite, optimised build.
    run_build gcc "$here/_build" && stage check "$here/_build" make -s -j"$jobs" check
    # The release tarball builds and passes its own make check (without
    # the third-party vectors, which it then skips with a printed reason).
    [ -f "$here/_build/Makefile" ] && stage distcheck "$here/_build" make -s -j"$jobs" distcheck
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
    echo "quickstart: stage times (wall clock):"
    printf '%s' "$times"
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
