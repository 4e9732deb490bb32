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
BUILD_PKGS="build-essential autoconf automake libtool pkg-config libpam0g-dev libcrypt-dev libcmocka-dev libaudit-dev libunistring-dev"
TEST_PKGS="clang libclang-rt-14-dev valgrind strace whois libssl-dev libargon2-dev libsodium-dev argon2
 python3 python3-passlib python3-argon2 python3-bcrypt python3-django python3-prometheus-client pamtester fail2ban libpam-wrapper libpamtest0-dev
 libselinux1-dev selinux-policy-dev selinux-policy-default setools mandoc gdb bash-completion auditd
 debhelper dpkg-dev fakeroot lintian rpm
 openssh-server openssh-client libpam-pwquality cracklib-runtime wamerican login passwd sudo
 gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross
 qemu-user-static binutils-multiarch
 libtss2-dev swtpm tpm2-tools
 git autopkgtest piuparts debootstrap rpmlint cpio apt-utils"
# The directory server plugin's build and its two test servers (dsconf's
# replication setup runs /sbin/ip: iproute2, which a minimal Debian lacks),
# and SSSD with its PAM and NSS modules, the client check-ds logs in through.
DS_PKGS="389-ds-base 389-ds-base-dev ldap-utils iproute2 sssd-ldap libpam-sss libnss-sss"

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
    # Stages record their name, wall and CPU time and status in a file, so
    # that stages run in a background lane count like the others.
    rec=$here/_build/.quickstart-stages
    mkdir -p "$here/_build"
    : >"$rec"
    # timed CPUFILE command...: run command, then write the user+sys CPU
    # seconds of everything it ran to CPUFILE (the shell's own times(1) of
    # its children, in the same process that waited for them).
    timed() {
        sh -c 'f=$1; shift; "$@"; rc=$?; times >"$f"; exit $rc' sh "$@"
        timed_rc=$?
        awk 'NR == 2 { split($1, u, "m"); split($2, s, "m");
            printf "%.0f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1" >"$1.s" 2>/dev/null &&
            mv "$1.s" "$1"
        return $timed_rc
    }
    record() { # record NAME SECONDS CPU STATUS
        printf '%-24s %5s s %6s s CPU  %s\n' "$1" "$2" "$3" "$4" >>"$rec"
    }
    record install "$t_install" - ok
    stage() { # stage NAME DIR command...
        name=$1 dir=$2
        shift 2
        echo "quickstart: stage $name"
        t0=$(date +%s)
        if (cd "$dir" && timed "$rec.$name.cpu" "$@"); then
            record "$name" $(( $(date +%s) - t0 )) "$(cat "$rec.$name.cpu" 2>/dev/null)" ok
        else
            record "$name" $(( $(date +%s) - t0 )) "$(cat "$rec.$name.cpu" 2>/dev/null)" FAILED
            echo "quickstart: stage $name FAILED" >&2
            [ -f "$dir/test-suite.log" ] && tail -200 "$dir/test-suite.log" >&2
        fi
    }
    run_build() { # run_build NAME DIR [configure args...]
        name=$1
        shift
        t0=$(date +%s)
        if build "$@"; then
            record "build-$name" $(( $(date +%s) - t0 )) - ok
        else
            record "build-$name" $(( $(date +%s) - t0 )) - FAILED
            echo "quickstart: build $name FAILED" >&2
            return 1
        fi
    }
    # lane NAME FUNCTION: run FUNCTION's stages in the background, its
    # output in a log that is printed whole when the lane has ended
    # (lane_join), so that two lanes' lines never interleave.
    lanes=
    lane() {
        log=$here/_build/.lane-$1.log
        ( "$2" ) >"$log" 2>&1 &
        lanes="$lanes $!:$1"
    }
    lane_join() {
        for l in $lanes; do
            wait "${l%%:*}"
            echo "quickstart: ==== lane ${l#*:} ===="
            cat "$here/_build/.lane-${l#*:}.log"
        done
        lanes=
    }
    # 1. The whole suite, optimised build: first and alone, so that its
    # timing tests run on a quiet machine.
    run_build gcc "$here/_build" && stage check "$here/_build" make -s -j"$jobs" check
    # The suite runs twice more (check-san, distcheck) for other faults:
    # memory, a file the tarball lacks.  There the timing test is a smoke
    # run, and each fuzzer (built ASan+UBSan in every build alike) runs its
    # seeds and 2 s (KDF_SKIP_MEASUREMENTS, KDF_FUZZ_SECONDS).
    measured="the check stage measured it"
    # The rest in three lanes at once.  Each stage runs even when an
    # earlier one failed.
    tree_lane() {
        # 2. The whole suite again under ASan + UBSan (Linux-PAM's CI flags).
        run_build san "$here/_build-san" --enable-sanitizers --enable-debug &&
            stage check-san "$here/_build-san" env KDF_SKIP_MEASUREMENTS="$measured" KDF_FUZZ_SECONDS=2 \
                KDF_SKIP_POLICY="the check stage built and searched it" \
                make -s -j"$jobs" check
        # 3. -Wall -Wextra -Werror clean with clang too: everything, tests
        # included.
        run_build clang "$here/_build-clang" CC=clang &&
            stage clang-tests-build "$here/_build-clang" make -s -j"$jobs" check TESTS=
        # 4. The threaded tests under TSan (lane threads and their barrier).
        run_build tsan "$here/_build-tsan" --enable-sanitizers=thread &&
            stage check-threads "$here/_build-tsan" make -s -j"$jobs" check-threads
        # 5. valgrind memcheck over the plain build's test programs.
        [ -f "$here/_build/Makefile" ] && stage check-valgrind "$here/_build" make -s check-valgrind
        # 6. The real tree cross-built, its test programs under qemu-user:
        # arm64 on a CPU without SHA-512 and with the portable code alone,
        # and s390x (big-endian, portable); `make check-cross` does all
        # five release architectures.  The baseline reuses _cross/arm64,
        # which the other lane's first stage builds: it must stay last here.
        [ -f "$here/_build/Makefile" ] || return 0
        stage check-cross-baseline "$here/_build" make -s check-cross-baseline
        # s390x: the programs whose outcome can depend on the byte order
        # (cross-check.sh --core); arm64 runs them all.
        stage check-cross-s390x "$here/_build" make -s check-cross CROSS_ARCHS=s390x CROSS_FLAGS=--core
    }
    # 8. The 389-ds plugin in two real servers in replication: a lane of
    # its own, as it mostly waits on the servers (about 130 s of CPU in 400).
    ds_lane() {
        [ -f "$here/_build/Makefile" ] || return 0
        stage check-ds "$here/_build" make -s check-ds
    }
    gate_lane() {
        [ -f "$here/_build/Makefile" ] || return 0
        # 7. arm64 (little-endian, NEON, ARMv8 SHA) cross-built, under qemu-user.
        stage check-cross-arm64 "$here/_build" make -s check-cross CROSS_ARCHS=arm64
        # 9. The release tarball builds and passes its own make check
        # (without the third-party vectors, which it skips with a printed
        # reason).
        stage distcheck "$here/_build" env KDF_SKIP_MEASUREMENTS="$measured" KDF_FUZZ_SECONDS=2 \
            make -s -j"$jobs" distcheck
        # 10. The packages, as a distribution takes them: built from that
        # tarball (source and binary, lintian --pedantic; an arm64 cross
        # build), installed, enabled and purged, the RPMs; then the
        # autopkgtest, piuparts, a live upgrade from the previous release,
        # the refused downgrade and two architectures' copies
        # (scripts/check-*.sh say what each proves).
        pk=$here/_build/pkg
        tarball=$(ls "$here"/_build/kdfhash-*.tar.xz 2>/dev/null | tail -1)
        stage check-packaging "$here/_build" env KDF_TARBALL="$tarball" KDF_DEBS_KEEP="$pk" \
            make -s check-packaging
        stage old-debs "$here" sh scripts/old-debs.sh prev "$pk/prev"
        stage check-autopkgtest "$here" sh scripts/check-autopkgtest.sh "$pk/deb"
        stage check-upgrade "$here" sh scripts/check-upgrade.sh "$pk/deb" "$pk/prev"
        stage check-downgrade "$here" sh scripts/check-downgrade.sh "$pk/deb" "$pk/prev"
        stage check-multiarch "$here" sh scripts/check-multiarch.sh "$pk/deb" "$pk/deb-arm64"
        stage check-piuparts "$here" sh scripts/check-piuparts.sh "$pk/deb" "$pk/prev"
    }
    lane tree tree_lane
    lane gates gate_lane
    lane ds ds_lane
    lane_join
    echo "quickstart: stage times (wall clock, and CPU time of the stage's processes):"
    cat "$rec"
    failed_stages=$(awk '$NF == "FAILED" { printf " %s", $1 }' "$rec")
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
