#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-autopkgtest.sh [DEBDIR] - run the package's autopkgtest
# (packaging/debian/tests) against the .debs in DEBDIR (default: built with
# scripts/build-deb.sh into a temporary directory) on this machine:
# `autopkgtest DEBS... SRCDIR/ -- null`, SRCDIR a tree holding only
# packaging/debian's tests and changelog as debian/ (the tests use the
# installed packages, never a build tree).
#
# The tests install the packages, enable the PAM profile, add users, log
# them in through /etc/pam.d/common-auth and purge: run it as root in a
# throw-away root only (scripts/fresh-root.sh).  It refuses a machine whose
# PID 1 is an init (a real system; KDF_AUTOPKGTEST_ANY_ROOT=1 overrides),
# and one where libpam-kdfhash is already installed.  The null runner
# cannot revert, so autopkgtest would skip the breaks-testbed tests:
# --ignore-restrictions=breaks-testbed, since the root is thrown away.
#
# Every test of debian/tests/control must PASS: autopkgtest's exit status
# 2 (a test skipped) fails here too, as do 4 (failed), 8 (no tests) and
# the rest.  Prints "check-autopkgtest: ok: ..." / "FAIL: ..." lines and
# the wall time.
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
fails=0
say() { echo "check-autopkgtest: $*"; }
ok() { say "ok: $*"; }
bad() { say "FAIL: $*"; fails=$((fails + 1)); }

[ "$(id -u)" = 0 ] || { say "must run as root (it installs and purges packages)" >&2; exit 2; }
if [ -z "${KDF_AUTOPKGTEST_ANY_ROOT:-}" ]; then
    case $(cat /proc/1/comm 2>/dev/null) in
    systemd|init|runit|openrc-init|s6-svscan)
        say "PID 1 is $(cat /proc/1/comm): this looks like a real system; run it in scripts/fresh-root.sh" >&2
        exit 2 ;;
    esac
fi
if dpkg-query -W -f='${Status}' libpam-kdfhash 2>/dev/null | grep -q 'installed'; then
    say "libpam-kdfhash is already installed here; refusing to purge it" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-autopkgtest.XXXXXX")
trap 'rm -rf "$work"' EXIT

need="autopkgtest apt-utils"
missing=
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    say "installing:$missing"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing > "$work/apt.out" 2>&1 ||
        { cat "$work/apt.out"; bad "apt-get install$missing"; exit 1; }
fi

debdir=${1:-}
if [ -z "$debdir" ]; then
    debdir=$work/debs
    say "building the .debs (scripts/build-deb.sh $debdir)"
    sh "$src/scripts/build-deb.sh" "$debdir" > "$work/build.out" 2>&1 ||
        { tail -30 "$work/build.out"; bad "scripts/build-deb.sh failed"; exit 1; }
fi
debs=$(find "$debdir" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' | sort)
[ -n "$debs" ] || { bad "no .deb in $debdir"; exit 1; }

# debian/tests and debian/changelog alone: without debian/control,
# autopkgtest takes the tree as built and does not install dpkg-dev to
# unpack it (the tests name their packages; none uses "@").
mkdir -p "$work/src/debian"
cp -R "$src/packaging/debian/tests" "$src/packaging/debian/changelog" "$work/src/debian/"
tests=$(sed -n 's/^Tests: *//p' "$work/src/debian/tests/control" | tr ',' ' ' | tr -s ' ' '\n' | sed '/^$/d')
[ -n "$tests" ] || { bad "no Tests: in packaging/debian/tests/control"; exit 1; }

t0=$(date +%s)
# shellcheck disable=SC2086
autopkgtest --ignore-restrictions=breaks-testbed --summary-file="$work/summary" \
    $debs "$work/src/" -- null > "$work/autopkgtest.out" 2>&1
rc=$?
took=$(($(date +%s) - t0))
case $rc in
0) ok "autopkgtest exit 0 in ${took} s" ;;
2) bad "autopkgtest exit 2: a test was skipped" ;;
4) bad "autopkgtest exit 4: a test failed" ;;
8) bad "autopkgtest exit 8: no tests in this package" ;;
12) bad "autopkgtest exit 12: erroneous package (dependencies not installable?)" ;;
16) bad "autopkgtest exit 16: testbed failure" ;;
*) bad "autopkgtest exit $rc" ;;
esac
for t in $tests; do
    line=$(grep -E "^${t}[[:space:]]" "$work/summary" 2>/dev/null)
    case $line in
    *PASS*) ok "$t: $(echo "$line" | tr -s ' ')" ;;
    *) bad "$t: '${line:-not in the summary}'" ;;
    esac
done
if [ "$fails" -gt 0 ] || [ -n "${KDF_AUTOPKGTEST_VERBOSE:-}" ]; then
    cat "$work/autopkgtest.out"
else
    # The tests' own verdict lines, for the log.
    grep -E '^(ok|FAIL): ' "$work/autopkgtest.out" | sed 's/^/  /'
fi

say "$fails failure(s) in $(($(date +%s) - start)) s"
[ "$fails" -eq 0 ]
