#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_fuzz_parse.sh - run the libFuzzer target of kdf_parse() and the base64
# codecs (tests/fuzz/fuzz_parse.c, ASan+UBSan) for KDF_FUZZ_SECONDS seconds
# (60 in `make check`, 600 in `make check-soak`) on a copy of the seed corpus.
# Any crash, sanitizer report, leak, timeout (> 5 s) or RSS above 512 MiB
# fails the test; the offending input is kept under tests/fuzz/ in the build
# tree for reproduction (`tests/fuzz/fuzz_parse FILE`).
set -u

: "${top_srcdir:?}" "${top_builddir:?}"
fuzzer="$top_builddir/tests/fuzz/fuzz_parse"
seeds="$top_srcdir/tests/fuzz/corpus_parse"
secs="${KDF_FUZZ_SECONDS:-60}"
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

work=$(mktemp -d "${TMPDIR:-/tmp}/kdf-fuzz-parse.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/corpus" "$work/out"
cp "$seeds"/* "$work/corpus/"

# The code under test allocates nothing; a smaller ASan quarantine (it holds
# libFuzzer's own freed input copies) keeps a 600 s run far below 512 MiB.
ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=64}"
export ASAN_OPTIONS
echo "fuzz_parse: ${secs}s on $(ls "$work/corpus" | wc -l) seeds"
"$fuzzer" -max_total_time="$secs" -rss_limit_mb=512 -timeout=5 -max_len=4200 \
    -print_final_stats=1 -artifact_prefix="$work/out/" "$work/corpus" \
    >"$work/log" 2>&1
rc=$?
tail -n 15 "$work/log"
if [ "$rc" -ne 0 ] || ls "$work/out/" | grep -q .; then
    echo "FAIL: fuzz_parse exited $rc"
    grep -E 'ERROR|SUMMARY|runtime error' "$work/log" | head -n 20
    mkdir -p "$top_builddir/tests/fuzz"
    for f in "$work"/out/*; do
        [ -f "$f" ] || continue
        cp "$f" "$top_builddir/tests/fuzz/" && echo "kept $top_builddir/tests/fuzz/${f##*/}"
    done
    exit 1
fi
echo "PASS: no crash in ${secs}s"
exit 0
