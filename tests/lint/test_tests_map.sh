#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_tests_map.sh - tests/README.md maps every test: each test program
# and script (tests/AREA/test_*, tests/soak/soak_*, tests/fuzz/fuzz_*.c) is
# named in it, and each file it names exists, so the map cannot fall behind
# the tests or point at one that was renamed.  The top of tests/ holds the
# runners and the build fragment only: a test file left there, outside the
# folders by concern, fails too.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
map=$top/tests/README.md
[ -f "$map" ] || { echo "FAIL: $map is missing"; exit 1; }
fail=0 n=0
for f in "$top"/tests/*; do
    [ -d "$f" ] && continue
    case ${f##*/} in
    README.md | local.mk | check-valgrind.sh | cross-run.sh | valgrind.supp) ;;
    *)
        echo "FAIL: tests/${f##*/} is outside the folders by concern"
        fail=1
        ;;
    esac
done
for f in "$top"/tests/*/test_*.c "$top"/tests/*/test_*.sh "$top"/tests/soak/soak_*.sh \
    "$top"/tests/fuzz/fuzz_*.c; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    b=${f#"$top"/tests/}
    if ! grep -q -F "\`$b\`" "$map"; then
        echo "FAIL: tests/$b is not in tests/README.md"
        fail=1
    fi
done
# Every `name.c`, `name.sh`, `name.py` or `dir/name` the map cites exists
# under tests/ (or testlib/, for the allocation counter).
for b in $(grep -o '`[A-Za-z0-9_./-]*\.\(c\|sh\|py\|h\|inc\)`' "$map" | tr -d '`' | sort -u); do
    if [ ! -e "$top/tests/$b" ] && [ ! -e "$top/$b" ]; then
        echo "FAIL: tests/README.md names $b, which does not exist"
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no tests found under $top/tests"; exit 1; }
[ "$fail" -eq 0 ] && echo "ok: tests/README.md names all $n tests and only files that exist"
exit "$fail"
