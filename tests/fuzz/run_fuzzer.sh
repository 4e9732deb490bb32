#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# run_fuzzer.sh NAME [LIBFUZZER-FLAG...] - run the libFuzzer target
# tests/fuzz/fuzz_NAME (ASan+UBSan) for KDF_FUZZ_SECONDS seconds: 15 by
# default in `make check`, 600 in `make check-soak`, which exports it.
# tests/test_fuzz_NAME.sh call it; so may a person, with top_srcdir and
# top_builddir set.
#
# Corpora: the committed seeds (tests/fuzz/corpus_NAME) are read, never
# written; what the fuzzer finds goes to tests/fuzz/fuzz_NAME.corpus in the
# build tree, merged down after each run, which later runs start from, so
# that a short `make check` builds on the soak runs (distclean removes it).
#
# Any crash, broken invariant, sanitizer report, leak, timeout (> 10 s) or
# RSS above 1 GiB fails the test; the offending input is kept as
# tests/fuzz/fuzz_NAME-crash-... (or -leak-, -timeout-, -oom-) in the build
# tree for reproduction (`tests/fuzz/fuzz_NAME FILE`).  The targets' temp
# files live in a private directory that is removed at the end.
set -u

name=${1:?usage: run_fuzzer.sh NAME [LIBFUZZER-FLAG...]}
shift
: "${top_srcdir:?}" "${top_builddir:?}"
fuzzer="$top_builddir/tests/fuzz/fuzz_$name"
seeds="$top_srcdir/tests/fuzz/corpus_$name"
keep="$top_builddir/tests/fuzz/fuzz_$name.corpus"
secs="${KDF_FUZZ_SECONDS:-15}"
# libFuzzer reads -max_total_time=0 as "no limit": never let a typo hang CI.
case "$secs" in
'' | *[!0-9]* | 0) echo "KDF_FUZZ_SECONDS must be a positive number of seconds" >&2; exit 1 ;;
esac

if [ ! -x "$fuzzer" ]; then
    # Only in TESTS when configure found clang with libFuzzer, so a missing
    # binary is a build problem, not a reason to skip.
    echo "FAIL: $fuzzer was not built"
    exit 1
fi
if [ ! -d "$seeds" ]; then
    echo "FAIL: no seed corpus $seeds"
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kdf-fuzz-$name.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
mkdir "$work/out" "$work/tmp" || exit 1
mkdir -p "$keep" || exit 1

# The targets make their temp files under $TMPDIR: here, inside $work.
TMPDIR="$work/tmp"
export TMPDIR
# A smaller ASan quarantine (it holds libFuzzer's freed input copies) keeps
# a 600 s run well below the RSS limit.
ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=64}"
export ASAN_OPTIONS
count() { find "$1" -type f | wc -l; }
echo "fuzz_$name: ${secs}s on $(count "$seeds") seeds and $(count "$keep") kept inputs"
"$fuzzer" -max_total_time="$secs" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$work/out/" "$@" "$keep" "$seeds" >"$work/log" 2>&1
rc=$?
# The first and last progress lines (cov: edges, ft: features, corp:
# inputs/bytes, exec/s) and the final statistics.
grep -E '^#[0-9]+' "$work/log" |
    awk 'NR == 1 { print } { last = $0 } END { if (NR > 1) print last }'
grep -E '^stat::' "$work/log"
if [ "$rc" -ne 0 ] || [ "$(count "$work/out")" -ne 0 ]; then
    echo "FAIL: fuzz_$name exited $rc"
    grep -E 'ERROR|SUMMARY|runtime error|check failed' "$work/log" | head -n 20
    mkdir -p "$top_builddir/tests/fuzz"
    for f in "$work"/out/*; do
        [ -f "$f" ] || continue
        cp "$f" "$top_builddir/tests/fuzz/fuzz_$name-${f##*/}" &&
            echo "kept $top_builddir/tests/fuzz/fuzz_$name-${f##*/}"
    done
    exit 1
fi
# libFuzzer only ever adds to the kept corpus: merge it down to the inputs
# that still add coverage (each runs once), so that soak after soak does not
# pile up files.  Should the merge fail, the corpus stays as it was.
mkdir "$work/merged" || exit 1
if "$fuzzer" -merge=1 -rss_limit_mb=1024 -timeout=10 "$@" "$work/merged" "$keep" \
    >"$work/merge.log" 2>&1; then
    find "$keep" -type f -exec rm -f {} +
    find "$work/merged" -type f -exec mv {} "$keep"/ \;
else
    echo "note: could not merge $keep (kept as it is)"
fi
echo "PASS: no crash in ${secs}s ($(count "$keep") inputs kept in $keep)"
exit 0
