#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# old-debs.sh REV OUTDIR - the .deb files of a released commit (REV "prev":
# the one packaging/previous-release names), for the upgrade and downgrade
# gates (check-piuparts.sh, check-upgrade.sh, check-downgrade.sh):
# what an admin has installed is what that commit's own packaging built,
# so `git archive REV` is unpacked outside the tree and REV's own
# scripts/build-deb.sh builds it (not today's rules on old sources).
#
# Needs the git history (CI's clone of main has it; a shallow clone or a
# tarball does not: the script says so and exits 2).  Cached: when OUTDIR
# holds the stamp .old-debs-REV (full commit id) and the .debs it lists,
# nothing is built.  As root, the tools and REV's Build-Depends that are
# missing are installed (apt-get build-dep on REV's debian/control).
# DEB_BUILD_OPTIONS defaults to "nocheck": REV's tests ran when it was
# released; set it to build with them.  Prints the wall time.
set -eu

say() { echo "old-debs: $*"; }
[ $# = 2 ] || { echo "usage: old-debs.sh REV OUTDIR" >&2; exit 2; }
rev=$1
out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
[ "$rev" = prev ] && rev=$(awk '!/^#/ && NF == 2 { print $2 }' "$src/packaging/previous-release")
t0=$(date +%s)

if ! full=$(git -C "$src" rev-parse --verify -q "$rev^{commit}" 2>/dev/null); then
    say "FAIL: commit '$rev' is not in the history of $src (no .git, a shallow clone or a tarball?);" \
        "CI's clone of main has it; here: git fetch --unshallow, or pass a directory of its .debs" >&2
    exit 2
fi
stamp=$out/.old-debs-$full
if [ -s "$stamp" ]; then
    okc=1
    while IFS= read -r f; do [ -s "$out/$f" ] || okc=0; done < "$stamp"
    if [ "$okc" = 1 ]; then
        say "ok: cached: $(wc -l < "$stamp") .debs of $full in $out (0 s)"
        exit 0
    fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-old.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
# Not inside any git work tree: REV's build-deb.sh then copies the
# unpacked sources as a tarball's, all of them.
mkdir "$work/src"
git -C "$src" archive --format=tar "$full" | tar -C "$work/src" -xf -

if [ "$(id -u)" = 0 ]; then
    mkdir -p "$work/bd"
    cp -R "$work/src/packaging/debian" "$work/bd/debian"
    missing=
    for p in dpkg-dev debhelper lintian fakeroot; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
    done
    # shellcheck disable=SC2086
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
        > "$work/apt.out" 2>&1 ||
        ! DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends "$work/bd" \
            >> "$work/apt.out" 2>&1; then
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends $missing && DEBIAN_FRONTEND=noninteractive apt-get build-dep \
            -y -qq --no-install-recommends "$work/bd"; } >> "$work/apt.out" 2>&1 || {
            cat "$work/apt.out" >&2
            say "FAIL: cannot install the build dependencies of $full" >&2
            exit 1
        }
    fi
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-nocheck parallel=$(nproc 2>/dev/null || echo 1)}"
say "building $full with its own scripts/build-deb.sh ($DEB_BUILD_OPTIONS)"
if ! TMPDIR=$work sh "$work/src/scripts/build-deb.sh" "$work/out" > "$work/build.out" 2>&1; then
    tail -40 "$work/build.out" >&2
    say "FAIL: $rev's scripts/build-deb.sh failed" >&2
    exit 1
fi
rm -f "$out"/.old-debs-*
cp "$work"/out/*.deb "$out/"
(cd "$work/out" && ls -1 ./*.deb | sed 's|^\./||') > "$stamp"
say "ok: built $(wc -l < "$stamp") .debs of $full into $out in $(($(date +%s) - t0)) s"
