#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_function_length.sh - product functions stay short enough to read:
# at most MAX_LONG functions of core/, accounts/, keys/, pam_module/, cli/
# and ds_plugin/ run over LIMIT lines.  A function's length is counted from
# the line that names it (its declarator) to its closing brace, for the
# tree's style: name at column 0, braces of the body at column 0.  Each
# long function is printed as file:line: name length, so a new one is seen
# in the log even while the count holds.
#
# Prints the long functions; exit 0 pass, 1 fail.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
top=$top_srcdir
LIMIT=100
MAX_LONG=3
[ -f "$top/core/kdfhash.h" ] || {
    echo "FAIL: top_srcdir=$top is not the kdfhash tree"
    exit 1
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# lengths FILE...: "file:line: name length" for every function definition.
# A declarator is a line at column 0 that holds "name(" and does not end a
# declaration (';'); the body opens with '{' at column 0 (or at the end of
# the declarator line) and ends with '}' at column 0.
lengths() {
    awk '
    FNR == 1 { cand = 0; infn = 0 }
    infn {
        if ($0 ~ /^}/) {
            printf "%s:%d: %s %d\n", FILENAME, start, name, FNR - start + 1
            infn = 0
        }
        next
    }
    /^[A-Za-z_][A-Za-z0-9_ \t*]*\(/ && $0 !~ /^(if|for|while|switch|return)[ \t(]/ {
        s = $0
        sub(/\(.*/, "", s)
        n = split(s, w, /[ \t*]+/)
        if (n > 0 && w[n] != "") {
            cand = 1
            start = FNR
            name = w[n]
        }
    }
    cand && /;[ \t]*(\/\*.*)?$/ && $0 !~ /\{/ { cand = 0 }
    cand && (/^\{/ || /\)[ \t]*\{[ \t]*$/) {
        cand = 0
        infn = 1
        if ($0 ~ /^}|\}[ \t]*$/ && $0 !~ /^\{[ \t]*$/ && $0 ~ /\{.*\}/) {
            printf "%s:%d: %s %d\n", FILENAME, start, name, FNR - start + 1
            infn = 0
        }
    }
    ' "$@"
}

# long_ones: the entries of lengths() over LIMIT.
long_ones() {
    lengths "$@" | awk -v lim="$LIMIT" '$NF > lim'
}

fail=0
# ---- 1. the counter itself, on a file made up here ----
{
    printf 'static int\nshort_one(int a)\n{\n    return a;\n}\n\n'
    printf 'int long_one(int a) {\n'
    i=0
    while [ "$i" -lt 101 ]; do
        printf '    a += %d;\n' "$i"
        i=$((i + 1))
    done
    printf '    return a;\n}\n\n'
    printf 'int declared_only(int a);\n\n'
    printf 'enum kdf_status\nlong_two(const char *p,\n         size_t n)\n{\n'
    i=0
    while [ "$i" -lt 99 ]; do
        printf '    if (p[%d] == 0)\n' "$i"
        i=$((i + 1))
    done
    printf '    return 0;\n}\n'
} >"$tmp/planted.c"
lengths "$tmp/planted.c" >"$tmp/planted.all"
got=$(sed "s|^$tmp/||" "$tmp/planted.all" | tr '\n' ' ')
want="planted.c:2: short_one 4 planted.c:7: long_one 104 planted.c:115: long_two 104 "
if [ "$got" != "$want" ]; then
    echo "FAIL: the counter read the planted file as: $got"
    echo "      expected: $want"
    fail=1
fi
if [ "$(long_ones "$tmp/planted.c" | wc -l)" -ne 2 ]; then
    echo "FAIL: the planted long functions were not both flagged"
    fail=1
fi

# ---- 2. the product ----
(cd "$top" && find core accounts keys pam_module cli ds_plugin -name '*.c' -type f |
    LC_ALL=C sort) >"$tmp/files"
if [ ! -s "$tmp/files" ]; then
    echo "FAIL: no product sources under $top"
    exit 1
fi
set -f
# shellcheck disable=SC2046
(cd "$top" && lengths $(cat "$tmp/files")) >"$tmp/all"
set +f
n_fn=$(wc -l <"$tmp/all")
# A counter that finds almost nothing has lost the tree's style.
if [ "$n_fn" -lt 200 ]; then
    echo "FAIL: only $n_fn functions found in $(wc -l <"$tmp/files") files"
    fail=1
fi
awk -v lim="$LIMIT" '$NF > lim' "$tmp/all" | sort -t' ' -k3,3nr >"$tmp/long"
n_long=$(wc -l <"$tmp/long")
if [ "$n_long" -gt 0 ]; then
    echo "functions over $LIMIT lines:"
    sed 's/^/  /' "$tmp/long"
fi
if [ "$n_long" -gt "$MAX_LONG" ]; then
    echo "FAIL: $n_long product functions run over $LIMIT lines (at most $MAX_LONG);" \
        "split one into helpers named for what they do"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: $n_fn functions, $n_long over $LIMIT lines (at most $MAX_LONG)"
exit "$fail"
