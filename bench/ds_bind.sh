#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# ds_bind.sh - bind latency and binds per second: the kdfhash plugin's
# schemes against 389-ds's own PBKDF2-SHA512, side by side in one server.
#
#   ds_bind.sh PLUGIN.so LDIF CONF [SECONDS]
#
# One throw-away 389-ds instance (tests/ds/ds-lib.sh), the plugin with the
# policy file CONF (its target: what a fleet would run), and one user per
# row, each stored in the row's scheme:
#   PBKDF2-SHA512 10000   389-ds's own scheme at its default cost
#   ARGON2 (target)       the plugin at CONF's Argon2 target
#   PBKDF2-SHA512 N       389-ds's own scheme at the cost N that takes as
#                         long as the Argon2 target (calibrated here)
#   KDF-PBKDF2 sha512 10000  the plugin's PBKDF2: the same work as the first
#                         row, through the core's SHA-512
# Each row: 1 connection (latency) and 4 (throughput), for SECONDS each.
# Ratios are against 389-ds's PBKDF2-SHA512 rows, measured in this run.
set -u

plugin=${1:?usage: ds_bind.sh PLUGIN.so LDIF CONF [SECONDS]}
ldif=${2:?}
conf=${3:?}
secs=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/ds/ds-lib.sh"

why=$(ds_unavailable)
if [ -n "$why" ]; then
    echo "ds_bind: skipped: 389-ds cannot run here: $why"
    exit 0
fi
for f in "$plugin" "$ldif" "$conf"; do
    [ -f "$f" ] || { echo "ds_bind: no $f"; exit 1; }
done
ds_in_ns "$0" "$(ds_abs "$plugin")" "$(ds_abs "$ldif")" "$(ds_abs "$conf")" "$secs"

PY=/usr/bin/python3
trap 'ds_stop_all' EXIT
trap 'exit 1' INT TERM
ds_mount_scratch || exit 1
set -- $(ds_free_ports)
P=$1
cp "$plugin" "$DS_ROOT/lib/libkdfhash-pwdstorage-plugin.so"
cp "$conf" "$DS_ROOT/kdfhash.conf"
chmod 644 "$DS_ROOT/lib/libkdfhash-pwdstorage-plugin.so" "$DS_ROOT/kdfhash.conf"
ds_create b1 "$P" || exit 1
ds_register_plugin "$P" "$ldif" "$DS_ROOT/lib/libkdfhash-pwdstorage-plugin.so" \
    "$DS_ROOT/kdfhash.conf" || exit 1
ds_restart b1 || exit 1
printf 'dn: ou=people,%s\nobjectClass: organizationalUnit\nou: people\n' "$DS_SUFFIX" | ds_add "$P"
# The rows' values are stored as given: no rehash at bind may move them.
printf 'dn: cn=config\nchangetype: modify\nreplace: nsslapd-enable-upgrade-hash\nnsslapd-enable-upgrade-hash: off\n' |
    ds_modify "$P"

add() { # add UID VALUE-OR-PASSWORD
    printf 'dn: uid=%s,ou=people,%s\nobjectClass: inetOrgPerson\nuid: %s\ncn: b\nsn: b\nuserPassword: %s\n' \
        "$1" "$DS_SUFFIX" "$1" "$2" | ds_add "$P"
}
run() { # run UID THREADS -> JSON
    $PY "$here/ds_bind_client.py" "$(ds_url "$P")" "uid=$1,ou=people,$DS_SUFFIX" \
        "Bench-Secret-1" "$secs" "$2"
}
field() { # field JSON KEY
    printf '%s' "$1" | $PY -c "import json,sys; print('%.2f' % json.load(sys.stdin)['$2'])"
}

ds_set_scheme "$P" PBKDF2-SHA512
add pbkdf2 Bench-Secret-1
ds_set_scheme "$P" ARGON2
add argon2 Bench-Secret-1
ds_set_scheme "$P" SSHA512
add ssha Bench-Secret-1
kp=$($PY -c "from passlib import hash as h; print(h.pbkdf2_sha512.using(rounds=10000).hash('Bench-Secret-1'))")
add kdfpbkdf2 "{KDF-PBKDF2}$kp"
echo "stored: $(ds_stored "$P" pbkdf2 | cut -c1-24)... $(ds_stored "$P" argon2 | cut -c1-50)..."

# The cost of PBKDF2-SHA512 that takes as long as the Argon2 target:
# scale by the ratio of their latencies over a bind's own cost (an SSHA512
# bind), twice (the first guess from i=10000, then from the guess itself).
base=$(field "$(run ssha 1)" p50_ms)
a1=$(field "$(run argon2 1)" p50_ms)
n=10000 uid=pbkdf2
for step in 1 2; do
    p1=$(field "$(run $uid 1)" p50_ms)
    n=$($PY -c "b,a,p,n=$base,$a1,$p1,$n; print(max(10000, int(n*(a-b)/max(p-b,0.01))))")
    uid=pbkdf2eq$step
    add $uid "$($PY -c "from passlib import hash as h; print(h.ldap_pbkdf2_sha512.using(rounds=$n).hash('Bench-Secret-1'))")"
done

echo "ds_bind: 389-ds $(dpkg-query -W -f='${Version}' 389-ds-base 2>/dev/null), $(nproc) CPUs, $secs s per figure; target: $(grep -m1 '^target' "$conf")"
printf '%-34s %10s %10s %12s %12s\n' "row" "p50 ms" "p99 ms" "binds/s x1" "binds/s x4"
for row in "pbkdf2:389-ds PBKDF2-SHA512 i=10000" "argon2:kdfhash ARGON2 (target)" \
    "pbkdf2eq2:389-ds PBKDF2-SHA512 i=$n" "kdfpbkdf2:kdfhash KDF-PBKDF2 sha512 i=10000"; do
    uid=${row%%:*}
    one=$(run "$uid" 1)
    four=$(run "$uid" 4)
    case "$one$four" in *error*) echo "ds_bind: $uid: $one $four"; exit 1 ;; esac
    eval "p50_$uid=$(field "$one" p50_ms) p99_$uid=$(field "$one" p99_ms)"
    eval "t1_$uid=$(field "$one" per_s) t4_$uid=$(field "$four" per_s)"
    eval "printf '%-34s %10s %10s %12s %12s\n' \"\${row#*:}\" \$p50_$uid \$p99_$uid \$t1_$uid \$t4_$uid"
done
ratio() { $PY -c "print('%.2f' % ($1 / $2))"; }
echo "ratios (side by side, this run):"
echo "  ARGON2 target latency / 389-ds PBKDF2-SHA512 default:   $(ratio "$p50_argon2" "$p50_pbkdf2")x"
echo "  ARGON2 target latency / 389-ds PBKDF2-SHA512 equal-time: $(ratio "$p50_argon2" "$p50_pbkdf2eq2")x (i=$n)"
echo "  ARGON2 binds/s x4 / 389-ds PBKDF2-SHA512 equal-time x4:  $(ratio "$t4_argon2" "$t4_pbkdf2eq2")x"
echo "  KDF-PBKDF2 i=10000 binds/s x4 / 389-ds PBKDF2-SHA512 i=10000 x4: $(ratio "$t4_kdfpbkdf2" "$t4_pbkdf2")x"
