#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# check-repro.sh [DEBDIR] - build the .debs twice with scripts/build-deb.sh
# and require every .deb to be byte-identical, as reprotest would: the two
# builds run from two copies of the tree at different paths (different
# lengths, so that no embedded path can line up), with a different umask,
# locale (LC_ALL), time zone, TMPDIR and, being one after the other, build
# time: SOURCE_DATE_EPOCH, which dpkg-buildpackage takes from
# debian/changelog, is the only time that may reach a package.
#
# DEBDIR (the .debs another gate built from this same tree, as CI's
# earlier stages do) stands in for the first build, which halves the cost:
# only the second, varied build runs.
#
# Prints the sha256 of each .deb; on a difference, diffoscope's report when
# it is installed, else each differing .deb's differing members (the
# dpkg-deb -c listings, the control files, the data files' sums).  The
# copies hold git's tracked and new files of a checkout (everything of an
# unpacked tarball but build directories), so that build-deb.sh sees the
# same sources in both.  As root it installs what build-deb.sh needs (its
# tools and the Build-Depends) and `locales`, for the second locale.
# Prints "check-repro: ok: ..." / "FAIL: ..." lines and the wall time of
# each build.
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
fails=0
say() { echo "check-repro: $*"; }
ok() { say "ok: $*"; }
bad() { say "FAIL: $*"; fails=$((fails + 1)); }

work=$(mktemp -d "${TMPDIR:-/tmp}/kdfhash-repro.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# As root, what build-deb.sh needs: its tools and the Build-Depends
# (apt-get build-dep reads them from a directory holding debian/control).
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$work/bd/debian"
    cp "$src/packaging/debian/control" "$work/bd/debian/control"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        dpkg-dev debhelper lintian fakeroot > "$work/apt.out" 2>&1 ||
        ! DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends \
            "$work/bd" >> "$work/apt.out" 2>&1; then
        cat "$work/apt.out"
        bad "cannot install the build dependencies"
    fi
fi

# A second locale that differs from C in what a build could pick up
# (decimal comma, collation, translated messages).
loc2=fr_FR.UTF-8
if ! locale -a 2>/dev/null | grep -qi '^fr_FR\.utf-\{0,1\}8$'; then
    if [ ! -e /usr/share/i18n/locales/fr_FR ] && [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends locales \
            > "$work/apt.out" 2>&1 || { cat "$work/apt.out"; bad "apt-get install locales"; }
    fi
    if localedef -i fr_FR -f UTF-8 fr_FR.UTF-8 > "$work/localedef.out" 2>&1 &&
        locale -a 2>/dev/null | grep -qi '^fr_FR\.utf-\{0,1\}8$'; then
        ok "made the locale $loc2"
    else
        bad "no $loc2 locale (localedef: $(cat "$work/localedef.out")); the second build would run in C"
    fi
fi

# copy DIR: the sources into DIR.
copy() {
    mkdir -p "$1"
    if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        # shellcheck disable=SC2016
        (cd "$src" && git ls-files -z --cached --others --exclude-standard) |
            (cd "$src" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
            (cd "$src" && tar --null -T - -cf -) | (cd "$1" && tar -xf -)
    else
        (cd "$src" && tar --exclude=./debian --exclude='./_build*' -cf - .) | (cd "$1" && tar -xf -)
    fi
}

# build N DIR UMASK LOCALE TZ: build-deb.sh from DIR into $work/outN.
build() {
    n=$1 dir=$2
    mkdir -p "$work/tmp$n" "$work/out$n"
    t0=$(date +%s)
    if (cd "$dir" && umask "$3" && env LC_ALL="$4" LANG="$4" TZ="$5" TMPDIR="$work/tmp$n" \
        sh scripts/build-deb.sh "$work/out$n") > "$work/build$n.out" 2>&1; then
        ok "build $n in $(($(date +%s) - t0)) s: $dir, umask $3, LC_ALL=$4, TZ=$5"
    else
        tail -30 "$work/build$n.out"
        bad "build $n (scripts/build-deb.sh) failed"
        say "$fails failure(s) in $(($(date +%s) - start)) s"
        exit 1
    fi
}

if [ -n "${1:-}" ]; then
    [ -d "$1" ] || { bad "$1 is not a directory"; exit 1; }
    mkdir -p "$work/out1"
    cp "$1"/*.deb "$work/out1/" 2> /dev/null || { bad "no .deb in $1"; exit 1; }
    ok "build 1: the .debs of $1"
else
    copy "$work/a/kdfhash"
    build 1 "$work/a/kdfhash" 022 C.UTF-8 UTC0
fi
copy "$work/build-path-two/somewhere/else/kdfhash-src"
build 2 "$work/build-path-two/somewhere/else/kdfhash-src" 002 "$loc2" KDF-14

for n in 1 2; do
    find "$work/out$n" -maxdepth 1 -name '*.deb' -exec basename {} \; | LC_ALL=C sort > "$work/list$n"
done
if [ ! -s "$work/list1" ]; then
    bad "build 1 made no .deb"
elif ! cmp -s "$work/list1" "$work/list2"; then
    bad "the builds made different sets of .debs: $(diff "$work/list1" "$work/list2" | sed -n 's/^[<>] //p' | tr '\n' ' ')"
fi

# members A B NAME: what differs between two .debs, without diffoscope.
members() {
    for t in a b; do
        d=$work/x/$t
        rm -rf "$d" && mkdir -p "$d/data" "$d/ctrl"
        deb=$1; [ "$t" = b ] && deb=$2
        ar t "$deb" > "$d/ar" 2>&1
        dpkg-deb -c "$deb" > "$d/contents" 2>&1
        dpkg-deb -e "$deb" "$d/ctrl" > /dev/null 2>&1
        dpkg-deb -x "$deb" "$d/data" > /dev/null 2>&1
        (cd "$d/data" && find . -type f -exec sha256sum {} + | sort -k2) > "$d/sums"
    done
    cmp -s "$work/x/a/ar" "$work/x/b/ar" || echo "    ar members: $(diff "$work/x/a/ar" "$work/x/b/ar" | tr '\n' ' ')"
    diff "$work/x/a/contents" "$work/x/b/contents" | sed -n 's/^\([<>]\)/    contents \1/p'
    diff -r "$work/x/a/ctrl" "$work/x/b/ctrl" | sed 's/^/    control: /'
    diff "$work/x/a/sums" "$work/x/b/sums" | sed -n 's/^\([<>]\) [0-9a-f]*  /    data \1 /p' | sort -u
}

same=0
while IFS= read -r f; do
    [ -f "$work/out2/$f" ] || continue
    sum=$(sha256sum < "$work/out1/$f" | cut -d' ' -f1)
    if cmp -s "$work/out1/$f" "$work/out2/$f"; then
        ok "identical: $sum  $f"
        same=$((same + 1))
    else
        bad "differs: $f ($sum vs $(sha256sum < "$work/out2/$f" | cut -d' ' -f1))"
        if command -v diffoscope > /dev/null 2>&1; then
            diffoscope --text - "$work/out1/$f" "$work/out2/$f" | head -200
        else
            members "$work/out1/$f" "$work/out2/$f"
        fi
    fi
done < "$work/list1"
[ "$same" -gt 0 ] && [ "$fails" -eq 0 ] && ok "all $same .debs byte-identical across path, umask, locale, time zone and build time"

say "$fails failure(s) in $(($(date +%s) - start)) s"
[ "$fails" -eq 0 ]
