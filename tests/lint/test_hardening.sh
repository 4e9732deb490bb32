#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_hardening.sh - what configure's hardening gives every build, checked
# on the ELF files that matter: pam_kdfhash.so (loaded into sshd, su,
# login), kdfhash-chkpwd (setuid or setgid), kdfhash-update and the kdfhash CLI.
#   - a GNU_RELRO segment and BIND_NOW (-z relro -z now): the GOT is
#     read-only before main();
#   - __stack_chk_fail imported (-fstack-protector-strong);
#   - fortified libc calls (__*_chk, -D_FORTIFY_SOURCE=2), except in a
#     sanitizer build, where configure leaves _FORTIFY_SOURCE out.
# A build configured with --disable-hardening is skipped, saying so.
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
mk=$top_builddir/Makefile
if ! grep -q '^HARDEN_CFLAGS = .*-fstack-protector-strong' "$mk"; then
    echo "SKIP: configured without hardening (--disable-hardening, or the compiler lacks -fstack-protector-strong)"
    exit 77
fi
if ! command -v readelf >/dev/null 2>&1; then
    echo "FAIL: readelf not installed (Debian package binutils)"
    exit 1
fi
fortify=yes
grep -q '^HARDEN_CFLAGS = .*_FORTIFY_SOURCE' "$mk" || fortify=no

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

for f in pam_module/.libs/pam_kdfhash.so pam_module/kdfhash-chkpwd pam_module/kdfhash-update \
    cli/kdfhash; do
    p=$top_builddir/$f
    # libtool may leave a wrapper script in front of the real binary.
    [ -f "$top_builddir/$(dirname "$f")/.libs/$(basename "$f")" ] &&
        p=$top_builddir/$(dirname "$f")/.libs/$(basename "$f")
    if [ ! -f "$p" ]; then
        bad "$f not built"
        continue
    fi
    readelf -lW "$p" 2>/dev/null | grep -q GNU_RELRO && ok "$f: RELRO" || bad "$f: no GNU_RELRO segment"
    readelf -dW "$p" 2>/dev/null | grep -Eq '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' &&
        ok "$f: BIND_NOW" || bad "$f: not linked with -z now"
    syms=$(readelf --dyn-syms -W "$p" 2>/dev/null)
    printf '%s\n' "$syms" | grep -q ' __stack_chk_fail' && ok "$f: stack protector" ||
        bad "$f: no __stack_chk_fail (not built with -fstack-protector-strong)"
    if [ "$fortify" = yes ]; then
        printf '%s\n' "$syms" | grep -Eq ' __[a-z_]+_chk(@|$)' && ok "$f: fortified calls" ||
            bad "$f: no __*_chk call (not built with _FORTIFY_SOURCE)"
    fi
done
[ "$fortify" = yes ] || echo "note: _FORTIFY_SOURCE not in HARDEN_CFLAGS (set by the caller, or a sanitizer build): fortified calls not checked"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
