#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_readme.sh - README.md stays a short page for users that points only at
# what is in the tree:
#   1. at most 200 lines (build, test and measured detail live in
#      doc/HACKING.md and bench/README.md, which must exist);
#   2. its "Quick start" section holds, in a ```sh block, the two commands
#      CI and newcomers run, each a line of its own (a comment may follow):
#      scripts/quickstart.sh demo and scripts/quickstart.sh test;
#   3. every man page it names as name(N) is a page of doc/ (name.N.scd);
#   4. every Markdown link target and every path into the tree it names
#      (scripts/..., doc/..., tests/... and the other top folders) exists.
# The checker is first run on a planted README with one fault of each kind,
# so a checker that finds nothing cannot pass.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
top=$top_srcdir
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# check FILE: prints one line per fault of FILE, judged against the tree.
check() {
    f=$1
    n=$(wc -l <"$f")
    [ "$n" -le 200 ] || echo "$f has $n lines, more than 200"
    for c in demo test; do
        awk -v c="scripts/quickstart.sh $c" '
            /^## / { in_qs = ($0 ~ /^## Quick start/) }
            in_qs && /^```sh$/ { blk = 1; next }
            blk && /^```/ { blk = 0 }
            blk { l = $0; sub(/[ \t]+(#.*)?$/, "", l); if (l == c) found = 1 }
            END { exit !found }' "$f" ||
            echo "$f: no 'scripts/quickstart.sh $c' in a sh block of Quick start"
    done
    grep -o '[a-z0-9][a-z0-9_.-]*([1-8])' "$f" | sort -u | while IFS= read -r m; do
        page=${m%(*}
        sec=${m#*(}
        sec=${sec%)}
        [ -f "$top/doc/$page.$sec.scd" ] || echo "$f names $m, which is not doc/$page.$sec.scd"
    done
    {
        grep -o '](\([^)#]*\)' "$f" | sed 's/^](//'
        grep -o '\(^\|[^A-Za-z0-9_./-]\)\(scripts\|doc\|tests\|bench\|packaging\|core\|accounts\|cli\|pam_module\|ds_plugin\|testlib\)/[A-Za-z0-9_./-]*' "$f" |
            sed 's/^[^a-z]//; s/[.,]*$//'
    } | sort -u | while IFS= read -r p; do
        case $p in http://* | https://* | '') continue ;; esac
        [ -e "$top/$p" ] || echo "$f names $p, which is not in the tree"
    done
}

# ---- 1. the checker, on a planted README: one fault of each kind ----
{
    echo '# planted'
    echo '## Quick start'
    echo '```sh'
    echo 'scripts/quickstart.sh demo'
    echo '```'
    # shellcheck disable=SC2016
    echo 'See no-such-page(8), [gone](doc/no-such-file.md) and `scripts/no-such.sh`.'
    i=0
    while [ "$i" -lt 200 ]; do
        echo x
        i=$((i + 1))
    done
} >"$tmp/planted.md"
check "$tmp/planted.md" >"$tmp/planted.out"
fail=0
for want in 'more than 200' 'quickstart.sh test' 'no-such-page(8)' 'doc/no-such-file.md' \
    'scripts/no-such.sh'; do
    if ! grep -q -F "$want" "$tmp/planted.out"; then
        echo "FAIL: the checker missed the planted fault '$want':"
        cat "$tmp/planted.out"
        fail=1
    fi
done
if grep -q 'quickstart.sh demo' "$tmp/planted.out"; then
    echo "FAIL: the checker flags the planted demo command, which is there"
    fail=1
fi

# ---- 2. the tree ----
for d in README.md doc/HACKING.md bench/README.md; do
    [ -f "$top/$d" ] || { echo "FAIL: $d is missing"; exit 1; }
done
check "$top/README.md" >"$tmp/out"
if [ -s "$tmp/out" ]; then
    sed 's/^/FAIL: /' "$tmp/out"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: README.md is $(wc -l <"$top/README.md") lines, has the quick start," \
    "and names only man pages and paths of the tree"
exit "$fail"
