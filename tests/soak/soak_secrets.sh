#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Soak tier of the secrets tests (`make check-soak`):
#   timing of the constant-time compare: test_ct with 10^6 samples per case;
#   memory under load: 16 concurrent Argon2id verifications at the default
#   policy's m cap (1 GiB): peak RSS <= 16 GiB + 64 MiB, RLIMIT_AS -> KDF_NOMEM.
#   A machine without ~21 GiB available skips the second (printed).
# KDF_SOAK_MEMLOAD_M_KIB / KDF_SOAK_MEMLOAD_THREADS override the load.
set -u
: "${top_builddir:=.}"
rc=0
echo "== test_ct, 10^6 samples per case"
"$top_builddir/tests/unit/test_ct" --samples 1000000 || rc=1
m=${KDF_SOAK_MEMLOAD_M_KIB:-1048576}
n=${KDF_SOAK_MEMLOAD_THREADS:-16}
echo "== test_memload, $n x $m KiB"
"$top_builddir/tests/unit/test_memload" --threads "$n" --m-kib "$m"
st=$?
if [ "$st" -eq 77 ]; then
    echo "(skipped: not enough memory on this machine)"
elif [ "$st" -ne 0 ]; then
    rc=1
fi
exit $rc
