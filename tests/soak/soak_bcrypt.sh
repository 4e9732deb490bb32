#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Soak tier of the bcrypt differential (`make check-soak`):
# 25,000 random passwords x 4 minors against libxcrypt, fresh seed each run
# (printed, so a failure can be replayed with --seed).
set -eu
: "${top_builddir:=.}"
bin="$top_builddir/tests/unit/test_bcrypt"
if [ ! -x "$bin" ]; then
    make -C "$top_builddir" tests/unit/test_bcrypt >/dev/null
fi
seed=${BCRYPT_SOAK_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
count=${BCRYPT_SOAK_COUNT:-25000}
echo "soak_bcrypt: count $count seed $seed"
exec "$bin" --count "$count" --seed "$seed"
