#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Soak tier of the Argon2 differential against libargon2 (`make check-soak`):
# 3,000 random parameter sets with m up to 64 MiB, every type and version,
# fresh seed each run (printed, so a failure can be replayed with
# ARGON2_SOAK_SEED).
set -eu
: "${top_builddir:=.}"
bin="$top_builddir/tests/unit/test_argon2_diff"
if [ ! -x "$bin" ]; then
    make -C "$top_builddir" tests/unit/test_argon2_diff >/dev/null
fi
if [ ! -x "$bin" ]; then
    echo "soak_argon2: no test_argon2_diff (libargon2-dev missing)"
    exit 77
fi
seed=${ARGON2_SOAK_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
sets=${ARGON2_SOAK_SETS:-3000}
maxm=${ARGON2_SOAK_MAX_M:-65536}
echo "soak_argon2: sets $sets max-m $maxm seed $seed"
exec "$bin" --sets "$sets" --max-m "$maxm" --seed "$seed"
