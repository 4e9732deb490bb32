#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# cross-check.sh [--disable-simd] [--cpu CPU] [--core] ARCH... - the real tree, built
# as Debian's buildds build it for each Debian architecture ARCH (arm64,
# armhf, i386, ppc64el, s390x): ./configure --host=TRIPLE with Debian's
# cross compiler, against a sysroot of ARCH's own packages
# (scripts/cross-sysroot.sh), then every test program of `make check` run
# under qemu-user (tests/cross-run.sh is the LOG_COMPILER).  s390x is
# big-endian, armhf and i386 are 32-bit: every byte-order and size_t
# assumption of the core runs.
#
#   --disable-simd   configure the portable code alone
#   --cpu CPU        qemu's -cpu (default: max on arm64, so that every
#                    ARMv8 kernel runs, qemu's own default elsewhere; a
#                    baseline CPU shows that the dispatch never runs an
#                    instruction the CPU lacks)
#   --core           run only the programs whose outcome can depend on the
#                    CPU or the byte order: tests/unit/ (the core, its
#                    dispatch and kernels, and accounts/) and
#                    tests/pam/test_pam_blocklist (the list's little-endian
#                    file, read through the module).  The rest (the module,
#                    the helper, the writer) holds no byte-order or
#                    CPU-feature code: the full runs cover it (CI's
#                    check-cross-arm64, natively make check)
#
# Work goes to $CROSS_DIR (default ./_cross) : ARCH/sysroot, ARCH/build.
# Prints, per architecture, pass or fail, the kernels picked and the time.
# Script tests are not run: they drive the host's shell around the built
# programs.  Needs root to install the cross compiler and qemu when
# missing.
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
top=${CROSS_DIR:-$PWD/_cross}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
simd=
cpu=
core=
archs=
while [ $# -gt 0 ]; do
    case $1 in
    --disable-simd) simd=--disable-simd ;;
    --cpu) cpu=$2; shift ;;
    --core) core=1 ;;
    -*) echo "usage: cross-check.sh [--disable-simd] [--cpu CPU] [--core] ARCH..." >&2; exit 2 ;;
    *) archs="$archs $1" ;;
    esac
    shift
done
[ -n "$archs" ] || archs="arm64 armhf i386 ppc64el s390x"

# ARCH -> compiler triple, multiarch directory, qemu, cross libc package
info() {
    case $1 in
    arm64) echo "aarch64-linux-gnu aarch64-linux-gnu aarch64 arm64" ;;
    armhf) echo "arm-linux-gnueabihf arm-linux-gnueabihf arm armhf" ;;
    i386) echo "i686-linux-gnu i386-linux-gnu i386 i386" ;;
    ppc64el) echo "powerpc64le-linux-gnu powerpc64le-linux-gnu ppc64le ppc64el" ;;
    s390x) echo "s390x-linux-gnu s390x-linux-gnu s390x s390x" ;;
    *) return 1 ;;
    esac
}

need=
for a in $archs; do
    set -- $(info "$a") || { echo "cross-check: unknown architecture $a" >&2; exit 2; }
    command -v "$1-gcc" >/dev/null 2>&1 || need="$need gcc-$1 libc6-dev-$4-cross"
    command -v "qemu-$3-static" >/dev/null 2>&1 || need="$need qemu-user-static"
done
if [ -n "$need" ]; then
    echo "cross-check: installing$need"
    if [ "$(id -u)" != 0 ]; then
        echo "cross-check: need root to apt-get install$need" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null ||
        exit 1
fi
if [ ! -x "$srcdir/configure" ]; then
    (cd "$srcdir" && autoreconf -fi >/dev/null 2>&1) || exit 1
fi

# Programs a test starts (the CLI, exec hooks, the helper) are ARCH
# binaries too: binfmt_misc hands them to qemu while this script runs.  An
# entry of our own is registered (Debian's magic for the architecture,
# /usr/lib/binfmt.d) and removed on exit; one already there is used as is.
bm=/proc/sys/fs/binfmt_misc
registered=
mounted=
binfmt_off() {
    for r in $registered; do
        [ -e "$bm/$r" ] && echo -1 > "$bm/$r"
    done
    # Another cross-check may run beside this one (the test command runs
    # two architectures at once): unmount only when no kdfhash entry of
    # anyone's is left.
    if [ -n "$mounted" ] && ! ls "$bm" 2>/dev/null | grep -q '^kdfhash-'; then
        umount "$bm" 2>/dev/null
    fi
    registered= mounted=
}
trap binfmt_off EXIT
trap 'binfmt_off; exit 1' INT TERM
binfmt_on() { # binfmt_on QEMU_ARCH
    [ -d "$bm" ] || return 1
    if [ ! -e "$bm/register" ]; then
        mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null || return 1
        mounted=1
    fi
    if [ -e "$bm/qemu-$1" ] && grep -q '^enabled' "$bm/qemu-$1"; then
        return 0
    fi
    [ -e "$bm/kdfhash-$1" ] && return 0
    magic=$(sed -n "s/^:qemu-$1:\(M::[^:]*:[^:]*\):.*/\1/p" "/usr/lib/binfmt.d/qemu-$1.conf" 2>/dev/null)
    # Debian registers no i386 entry (an x86-64 kernel runs i386 itself,
    # but this machine has no i386 libraries): qemu's own pattern for it.
    if [ -z "$magic" ] && [ "$1" = i386 ]; then
        magic='M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
    fi
    [ -n "$magic" ] || return 1
    printf ':kdfhash-%s:%s:%s:F\n' "$1" "$magic" "$(command -v "qemu-$1-static")" \
        > "$bm/register" 2>/dev/null || return 1
    registered="$registered kdfhash-$1"
}

rc=0
summary=
for a in $archs; do
    set -- $(info "$a")
    triple=$1 multi=$2 qarch=$3
    acpu=${cpu:-$([ "$a" = arm64 ] && echo max)}
    start=$(date +%s)
    root=$top/$a/sysroot/root
    build=$top/$a/build${simd:+-portable}
    log=$top/$a/cross-check${simd:+-portable}.log
    mkdir -p "$top/$a"
    echo "cross-check: $a ($triple, qemu -cpu ${acpu:-default}${simd:+, portable only})"
    status=fail
    picked=
    # A build configured by an older configure starts again.
    if [ -f "$build/config.status" ] && [ "$srcdir/configure" -nt "$build/config.status" ]; then
        rm -rf "$build"
    fi
    # -isystem: the sysroot's headers are system headers, as /usr/include
    # is natively, so their own warnings (libunistring's inline functions
    # under -Wconversion) are not the build's.
    if sh "$srcdir/scripts/cross-sysroot.sh" "$a" "$top/$a/sysroot" &&
        mkdir -p "$build" &&
        (cd "$build" &&
            { [ -f Makefile ] ||
                PKG_CONFIG_LIBDIR="$root/usr/lib/$multi/pkgconfig:$root/usr/share/pkgconfig" \
                PKG_CONFIG_SYSROOT_DIR="$root" \
                CPPFLAGS="-isystem $root/usr/include -isystem $root/usr/include/$multi" \
                LDFLAGS="-L$root/usr/lib/$multi -L$root/lib/$multi -Wl,-rpath-link,$root/usr/lib/$multi -Wl,-rpath-link,$root/lib/$multi" \
                "$srcdir/configure" -q --host="$triple" --enable-debug $simd; } &&
            make -s -j"$jobs" >/dev/null &&
            make -s -j"$jobs" check TESTS= >/dev/null) >"$log" 2>&1; then
        export CROSS_QEMU="qemu-$qarch-static" CROSS_ROOT="$root" CROSS_CPU="$acpu"
        binfmt_on "$qarch" || echo "cross-check: no binfmt_misc for $qarch: the tests that start built programs fail" >&2
        tests=$(cd "$build" && make -s print-prog-tests | tr ' ' '\n' |
            grep -vx -e tests/writer/test_upgrade_exec |
            if [ -n "$core" ]; then grep -e '^tests/unit/' -e '^tests/pam/test_pam_blocklist$'; else cat; fi |
            tr '\n' ' ')
        # Run natively by make check, not here: the exec hook's helpers run
        # in a PID namespace (unshare + fork of an init), which qemu-user
        # does not run as the kernel does.
        echo "cross-check: $a: not under qemu: tests/writer/test_upgrade_exec (PID namespaces)"
        [ -z "$core" ] ||
            echo "cross-check: $a: --core: $(echo "$tests" | wc -w) programs (tests/unit/, tests/pam/test_pam_blocklist)"
        # An empty list would pass without running anything.
        if [ -n "$tests" ] && (cd "$build" && make -s -j"$jobs" check TESTS="$tests" \
                LOG_COMPILER="$srcdir/tests/cross-run.sh") >>"$log" 2>&1; then
            status=pass
        fi
        picked=$(sh "$srcdir/tests/cross-run.sh" "$build/cli/kdfhash" cpu 2>/dev/null |
            sed -n 's/^\([a-z0-9]*\) .*in use: \([a-z0-9]*\).*/\1=\2/p' | tr '\n' ' ')
    fi
    secs=$(( $(date +%s) - start ))
    if [ "$status" = pass ]; then
        echo "cross-check: $a: pass in $secs s; kernels: $picked"
    else
        rc=1
        echo "cross-check: $a: FAIL in $secs s (log: $log)" >&2
        grep -E '^(FAIL|ERROR)' "$build/test-suite.log" 2>/dev/null >&2
        tail -40 "$log" >&2
    fi
    summary="$summary $a=$status(${secs}s)"
done
echo "cross-check:$summary"
exit "$rc"
