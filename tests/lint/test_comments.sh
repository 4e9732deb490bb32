#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_comments.sh - the tree explains itself: no source, header, script,
# Makefile.am, configure.ac, m4 file, man page source or packaging file
# points its reader at something that is not in the tree.  Fails on:
#   - the team's out-of-tree notes, by file name (the design, reliability,
#     style and developers documents, *.md; doc/DESIGN.md is ours and fine);
#   - issue numbers ("issue N", "issues N and M", "Issue #N"): the tracker
#     is not shipped; history belongs in commit messages and NEWS;
#   - the team's shared directory beside the checkout, by its relative path;
#   - doc/DESIGN.md cited by section number ("section 4", "sections 5 and
#     7", ", section 10", a bare number, or "section N" opening the line
#     after one that ends with the file name): numbers move when a section
#     is added and then point at the wrong one, so cite the heading, as in
#     doc/DESIGN.md "Policy".
# Every line is checked, code as well as comments: a printed string that
# cites a document is as opaque to the reader as a comment.  One exception,
# by pattern: code (not a comment) may name the vectors directory of that
# shared directory, where the third-party vectors runner reads its data at
# run time.
#
# Not checked: NEWS (history), doc/DESIGN.md, README.md, data (tests/data,
# tests/fuzz/corpus_*), .git, and build or install directories (_build,
# _inst and the like at the top, or any directory holding a config.status).
#
# Prints file:line: text for each offence; exit 0 pass, 1 fail.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
top=$top_srcdir
[ -f "$top/core/kdfhash.h" ] || {
    echo "FAIL: top_srcdir=$top is not the kdfhash tree"
    exit 1
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The matcher.  Run on one or more files; prints file:line: text.  The
# patterns are written with bracket expressions so that this script does not
# match itself.
check() {
    awk '
    {
        line = $0
        code = line
        cmt = ""
        # A comment line, or the comment part of a code line.
        if (line ~ /^[ \t]*(#|\/\/|\/\*|\*|;|dnl([ \t]|$))/) {
            code = ""
            cmt = line
        } else if (match(line, /[ \t](#|\/\/)|\/\*/)) {
            code = substr(line, 1, RSTART)
            cmt = substr(line, RSTART + 1)
        }
        # The one legitimate run-time path, in code only.
        gsub(/[.][.]\/shared\/vectors(\/[A-Za-z0-9_.-]*)?/, "", code)
        t = code " " cmt
        gsub(/DESIGN[.]md/, "", t)      # doc/DESIGN.md: in the tree
        t = tolower(t)
        if (t ~ /(design|reliability|style|developers)[.]md/ ||
            t ~ /[.][.]\/shared|\/work\/shared/ ||
            t ~ /(^|[^a-z])issues? #?[0-9]/)
            printf "%s:%d: %s\n", FILENAME, FNR, line
    }' "$@"
}

# The second matcher: doc/DESIGN.md by section number, on one line or with
# the number opening the next one.
check_numbers() {
    awk '
    FNR == 1 { tail = 0 }
    {
        line = $0
        if (line ~ /DESIGN[.]md,?[ \t]*[(]?(sections?[ \t]+)?[0-9]/ ||
            (tail && line ~ /^[ \t]*([*#;]|\/\/|dnl)?[ \t]*[(]?sections?[ \t]+[0-9]/))
            printf "%s:%d: %s\n", FILENAME, FNR, line
        tail = line ~ /DESIGN[.]md,?[ \t]*$/
    }' "$@"
}

# ---- 1. the matchers themselves, on lines made up here ----
d=design r=reliability i=issue v=DEVELOPERS
sh_=$(printf '%s/%s' .. shared)
cat >"$tmp/bad" <<EOF
/* see $d.md section 4 */
 * $r.md test 12(d)
# as $v.md says
x = 1; /* ${i} 12 */
# ${i} #3
    printf("## ${i} 4 targets\n");
run $sh_/docs/notes.txt
# runs $sh_/vectors/run_third_party.py
EOF
cat >"$tmp/good" <<EOF
/* doc/DESIGN.md "Policy": the no-downgrade rule */
 * see DESIGN.md "SIMD dispatch"
py=\$top_srcdir/$sh_/vectors/run_third_party.py
"\$py" "\$top_srcdir/$sh_/vectors/third-party.tsv"
/* the tissue 3 layers deep */
# this is an ${i} of taste, not of numbers
EOF
fail=0
# selftest MATCHER SUFFIX N NAME: MATCHER flags all N lines of
# $tmp/badSUFFIX and none of $tmp/goodSUFFIX.
selftest() {
    n=$("$1" "$tmp/bad$2" | wc -l)
    if [ "$n" -ne "$3" ]; then
        echo "FAIL: the $4 found $n of the $3 planted citations:"
        "$1" "$tmp/bad$2"
        fail=1
    fi
    if "$1" "$tmp/good$2" | grep . >/dev/null; then
        echo "FAIL: the $4 flags legitimate lines:"
        "$1" "$tmp/good$2"
        fail=1
    fi
}
selftest check "" 8 matcher
D=DESIGN
cat >"$tmp/bad_numbers" <<EOF
/* the no-downgrade rules (doc/$D.md section 4) */
 * apply (doc/$D.md sections 5 and 7).
 * see $D.md, section 10
# ---- SIMD (doc/$D.md 10) --
 * the reply time does not tell (doc/$D.md (section 7))
 * which case it was (doc/$D.md
 * section 7).
EOF
cat >"$tmp/good_numbers" <<EOF
/* the no-downgrade rules (doc/$D.md "Policy") */
 * apply (doc/$D.md "Policy" and "The PAM module").
 * (RFC 9106 section 4, FIPS 180-4 section 5.3.1)
 * the reply time does not tell (doc/$D.md
 * "The PAM module"), section 7 of nothing
x = 4; /* the line before ends in $D.md */
y = 5; /* section 2 of a struct, not of a document */
EOF
selftest check_numbers _numbers 6 "number matcher"

# ---- 2. the tree ----
# Tracked files when this is a git checkout; otherwise (a tarball) every
# file, minus build directories (those holding a config.status).
if command -v git >/dev/null 2>&1 &&
    [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$top" && pwd -P)" ]; then
    git -C "$top" ls-files >"$tmp/all"
else
    (cd "$top" && find . -name .git -prune -o -type f -print | sed 's|^\./||') >"$tmp/all"
    for cs in $(cd "$top" && find . -mindepth 2 -name config.status | sed 's|^\./||'); do
        dir=${cs%/config.status}
        grep -v "^$dir/" "$tmp/all" >"$tmp/all.new"
        mv "$tmp/all.new" "$tmp/all"
    done
fi
while IFS= read -r f; do
    case $f in
    NEWS | doc/DESIGN.md | README.md | COPYING) continue ;;
    .git/* | _*/* | build*/* | autom4te.cache/*) continue ;;
    tests/data/* | tests/fuzz/corpus_*/* | */__pycache__/* | *.pyc) continue ;;
    esac
    case $f in
    *.c | *.h | *.inc | *.sh | *.py | *.awk | *.m4 | *.am | *.mk | *.scd | *.map | \
        *.supp | configure.ac | .ci/* | scripts/* | tools/* | packaging/* | tests/fuzz/*)
        [ -f "$top/$f" ] && printf '%s\n' "$f"
        ;;
    esac
done <"$tmp/all" | LC_ALL=C sort >"$tmp/files"
if [ ! -s "$tmp/files" ]; then
    echo "FAIL: no files to check under $top"
    exit 1
fi
# Names relative to the top, so the report reads file:line.  The names are
# git's or find's, without blanks; no globbing of them.
set -f
# shellcheck disable=SC2046
(cd "$top" && check $(cat "$tmp/files")) >"$tmp/hits"
set +f
if [ -s "$tmp/hits" ]; then
    cat "$tmp/hits"
    echo "FAIL: $(wc -l <"$tmp/hits") line(s) cite documents outside the tree;" \
        "say why in place, or cite doc/DESIGN.md"
    fail=1
fi
set -f
# shellcheck disable=SC2046
(cd "$top" && check_numbers $(cat "$tmp/files")) >"$tmp/numbers"
set +f
if [ -s "$tmp/numbers" ]; then
    cat "$tmp/numbers"
    echo "FAIL: $(wc -l <"$tmp/numbers") line(s) cite doc/DESIGN.md by section" \
        "number; cite the heading instead"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: $(wc -l <"$tmp/files") files cite nothing outside the tree," \
    "and doc/DESIGN.md by heading"
exit "$fail"
