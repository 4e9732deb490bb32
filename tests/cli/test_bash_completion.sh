#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_bash_completion.sh - packaging/bash-completion/kdfhash loads, registers
# a completion for kdfhash, and completes subcommands (keys and its own
# words too), options and values (disable --history drop|keep), both alone
# and under Debian's bash-completion framework (_init_completion).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
comp=$top_srcdir/packaging/bash-completion/kdfhash
kdf=$top_builddir/cli/kdfhash
fail=0
pass=0

if ! command -v bash >/dev/null 2>&1; then
    echo "SKIP: no bash on this system"
    exit 77
fi

# complete WORDS...: print the candidates for the last word, one per line.
# $1 is an optional framework file to source first.
complete_words() {
    fw=$1
    shift
    bash -c '
        fw=$1; comp=$2; kdf=$3; shift 3
        [ -n "$fw" ] && . "$fw"
        . "$comp"
        PATH=$(dirname "$kdf"):$PATH
        COMP_WORDS=("$@")
        COMP_CWORD=$(( $# - 1 ))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        _kdfhash kdfhash "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"
    ' sh "$fw" "$comp" "$kdf" "$@"
}

# expect NAME FRAMEWORK WANTED WORDS...: WANTED is among the candidates.
expect() {
    name=$1 fw=$2 want=$3
    shift 3
    got=$(complete_words "$fw" "$@")
    if printf '%s\n' "$got" | grep -qx -- "$want"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $name: '$want' not in: $(printf '%s ' $got)"
        fail=$((fail + 1))
    fi
}
# refuse NAME FRAMEWORK UNWANTED WORDS...
refuse() {
    name=$1 fw=$2 bad=$3
    shift 3
    if complete_words "$fw" "$@" | grep -qx -- "$bad"; then
        echo "FAIL: $name: '$bad' offered"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

reg=$(bash -c ". '$comp'; complete -p kdfhash" 2>&1)
if [ "$reg" = "complete -F _kdfhash kdfhash" ]; then
    pass=$((pass + 1))
else
    echo "FAIL: registration: got '$reg'"
    fail=$((fail + 1))
fi

fws=""
[ -f /usr/share/bash-completion/bash_completion ] &&
    fws=/usr/share/bash-completion/bash_completion
for fw in "" $fws; do
    tag=${fw:+framework}
    tag=${tag:-plain}
    for c in parse needs-rehash audit verify hash cpu calibrate bench; do
        expect "$tag: subcommand $c" "$fw" "$c" kdfhash ""
    done
    expect "$tag: cal<TAB>" "$fw" calibrate kdfhash cal
    refuse "$tag: cal<TAB> only calibrate" "$fw" cpu kdfhash cal
    expect "$tag: --version" "$fw" --version kdfhash --v
    expect "$tag: calibrate --target-ms" "$fw" --target-ms kdfhash calibrate --
    expect "$tag: calibrate --max-memory" "$fw" --max-memory kdfhash calibrate --target-ms 9 --
    expect "$tag: calibrate --json" "$fw" --json kdfhash calibrate --j
    expect "$tag: calibrate --scheme all" "$fw" all kdfhash calibrate --scheme a
    refuse "$tag: hash --scheme has no all" "$fw" all kdfhash hash --scheme a
    expect "$tag: hash --scheme argon2id" "$fw" argon2id kdfhash hash --scheme argon2i
    expect "$tag: hash --param m=" "$fw" m= kdfhash hash --param m
    expect "$tag: bench --plot" "$fw" --plot kdfhash bench --p
    expect "$tag: bench --quick" "$fw" --quick kdfhash bench --q
    expect "$tag: audit --json" "$fw" --json kdfhash audit --
    expect "$tag: needs-rehash --conf" "$fw" --conf kdfhash needs-rehash --c
    refuse "$tag: parse has no --json" "$fw" --json kdfhash parse --
    expect "$tag: help <cmd>" "$fw" bench kdfhash help be
    expect "$tag: subcommand keys" "$fw" keys kdfhash ""
    expect "$tag: keys list" "$fw" list kdfhash keys l
    expect "$tag: keys --drop-history" "$fw" --drop-history kdfhash keys --dr
    expect "$tag: keys --history" "$fw" --history kdfhash keys --hi
    expect "$tag: check-conf --keys" "$fw" --keys kdfhash check-conf --k
    expect "$tag: audit --keys" "$fw" --keys kdfhash audit --k
    expect "$tag: disable --history-file" "$fw" --history-file kdfhash disable --history-
    expect "$tag: disable --history drop" "$fw" drop kdfhash disable --history d
    expect "$tag: disable --history keep" "$fw" keep kdfhash disable --history k
    # --isa: the names `kdfhash cpu` reports as usable; portable always is.
    expect "$tag: --isa portable" "$fw" portable kdfhash verify --isa p
done

echo "test_bash_completion: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
