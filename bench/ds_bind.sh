#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# ds_bind.sh - binds per second and bind latency: the kdfhash plugin's
# directory profile against 389-ds's own PBKDF2-SHA512, side by side in one
# server, in one run.
#
#   ds_bind.sh PLUGIN.so LDIF CONF BENCH_ARGON2 [SECONDS]
#
# One throw-away 389-ds instance (tests/ds/ds-lib.sh), the plugin with the
# policy file CONF (the directory profile, packaging/dirsrv/kdfhash.conf),
# and one user per row, each stored in the row's scheme:
#   PBKDF2-SHA512 i=10000    389-ds's own scheme at its default cost (what
#                            Debian 12's 389-ds 2.3 writes; it cannot be
#                            raised there), below OWASP's minimum for it
#   PBKDF2-SHA512 i=210000   the same at OWASP's minimum for PBKDF2-SHA512;
#                            OWASP lists it and Argon2id m=19456,t=2,p=1
#                            each as its algorithm's minimum, not as equals
#   ARGON2 (profile)         the plugin at CONF's target, its work areas
#                            kept between binds (workareas=cpus, the default)
#   ARGON2, fresh areas      the same value after a restart with
#                            workareas=0: an area mapped for every bind
#   KDF-PBKDF2 sha512 10000  the plugin's PBKDF2: the work of the first row
#                            through the core's SHA-512
#   SSHA512                  one salted SHA-512: what a bind costs besides
#                            its hash (the LDAP exchange, the entry lookup)
# Each row: 1 connection (latency) and 4 (throughput), SECONDS each.  Then
# the ARGON2 row's latency (1 connection) beside two connections binding
# as a user whose value is Argon2id m=262144,t=8,p=1 (within the caps),
# with kept areas and with fresh ones: a kept area must never make a cheap
# bind wait for an expensive one, so the p99 with kept areas must be within
# 2x of the p99 without (exit 1 otherwise).  Then a storm: a correct
# user's binds alone and beside 64 connections binding wrong passwords as
# four other users, for ARGON2 and for 389-ds's PBKDF2-SHA512 i=10000; the
# plugin's user must keep at least half its rate alone (exit 1 otherwise;
# 389-ds's own scheme has no gate: only shown).  The
# floor is BENCH_ARGON2 --floor: the core's Argon2id at the profile on one
# thread in a kept area, in-process, the least one bind can cost.  Ratios
# are of figures measured in this run only.
set -u

plugin=${1:?usage: ds_bind.sh PLUGIN.so LDIF CONF BENCH_ARGON2 [SECONDS]}
ldif=${2:?}
conf=${3:?}
floorprog=${4:?}
secs=${5:-5}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tests/ds/ds-lib.sh"

why=$(ds_unavailable)
if [ -n "$why" ]; then
    echo "ds_bind: skipped: 389-ds cannot run here: $why"
    exit 0
fi
for f in "$plugin" "$ldif" "$conf" "$floorprog"; do
    [ -f "$f" ] || { echo "ds_bind: no $f"; exit 1; }
done
ds_in_ns "$0" "$(ds_abs "$plugin")" "$(ds_abs "$ldif")" "$(ds_abs "$conf")" \
    "$(ds_abs "$floorprog")" "$secs"

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
ratio() { $PY -c "print('%.2f' % ($1 / $2))"; }
passlib() { # passlib HANDLER ROUNDS
    $PY -c "from passlib import hash as h; print(h.$1.using(rounds=$2).hash('Bench-Secret-1'))"
}

ds_set_scheme "$P" PBKDF2-SHA512
add pbkdf2 Bench-Secret-1
ds_set_scheme "$P" ARGON2
add argon2 Bench-Secret-1
ds_set_scheme "$P" SSHA512
add ssha Bench-Secret-1
add pbkdf2owasp "$(passlib ldap_pbkdf2_sha512 210000)"
add kdfpbkdf2 "{KDF-PBKDF2}$(passlib pbkdf2_sha512 10000)"
# The storm's targets: four users of each scheme, whose passwords the
# storm does not know.
for i in 1 2 3 4; do
    ds_set_scheme "$P" ARGON2
    add "storma$i" "Storm-Target-$i"
    ds_set_scheme "$P" PBKDF2-SHA512
    add "stormp$i" "Storm-Target-$i"
done
add argon2dear "{ARGON2}$($PY -c "import argon2; print(argon2.PasswordHasher(time_cost=8, memory_cost=262144, parallelism=1).hash('Bench-Secret-1'))")"
a2=$(ds_stored "$P" argon2)
d2=$(ds_stored "$P" pbkdf2)
case $a2 in
'{ARGON2}$argon2id$v=19$m=19456,t=2,p=1$'*) ;;
*) echo "ds_bind: the ARGON2 value is not at the directory profile: ${a2%\$*}\$..."; exit 1 ;;
esac
case $d2 in
'{PBKDF2-SHA512}10000$'*) ;;
*) echo "ds_bind: 389-ds's PBKDF2-SHA512 value is not at 10000 rounds: $(echo "$d2" | cut -c1-24)..."; exit 1 ;;
esac

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
[ -n "$cpu" ] || cpu=$(uname -m)
echo "ds_bind: 389-ds $(dpkg-query -W -f='${Version}' 389-ds-base 2>/dev/null), $(nproc) CPUs ($cpu), $secs s per figure"
echo "ds_bind: target: $(sed -n 's/^target *= *//p' "$conf" | grep . || echo 'the directory profile (built in)')"
fmt='%-40s %8s %8s %8s %8s %10s %10s\n'
printf "$fmt" "row" "p50 x1" "p99 x1" "p50 x4" "p99 x4" "binds/s x1" "binds/s x4"
printf "$fmt" "" "ms" "ms" "ms" "ms" "" ""
beside() { # beside LABEL: the ARGON2 row's 1-connection latency beside 2 expensive binds
    $PY "$here/ds_bind_client.py" "$(ds_url "$P")" "uid=argon2dear,ou=people,$DS_SUFFIX" \
        "Bench-Secret-1" "$((secs + 2))" 2 > "$DS_ROOT/dear.json" &
    dp=$!
    sleep 1
    one=$(run argon2 1)
    wait "$dp"
    dear=$(cat "$DS_ROOT/dear.json")
    case "$one$dear" in *error*) echo "ds_bind: argon2 beside argon2dear: $one $dear"; exit 1 ;; esac
    b50=$(field "$one" p50_ms) b99=$(field "$one" p99_ms)
    printf "$fmt" "$1" "$b50" "$b99" "-" "-" "$(field "$one" per_s)" "-"
}
row() { # row UID LABEL
    one=$(run "$1" 1)
    four=$(run "$1" 4)
    case "$one$four" in *error*) echo "ds_bind: $1: $one $four"; exit 1 ;; esac
    eval "p50_$1=$(field "$one" p50_ms) p99_$1=$(field "$one" p99_ms)"
    eval "q50_$1=$(field "$four" p50_ms) q99_$1=$(field "$four" p99_ms)"
    eval "t1_$1=$(field "$one" per_s) t4_$1=$(field "$four" per_s)"
    eval "printf \"\$fmt\" \"\$2\" \$p50_$1 \$p99_$1 \$q50_$1 \$q99_$1 \$t1_$1 \$t4_$1"
}
row pbkdf2 "389-ds PBKDF2-SHA512 i=10000 (default)"
row pbkdf2owasp "389-ds PBKDF2-SHA512 i=210000 (OWASP)"
# The floor right before and right after the ARGON2 row, so that the ratio
# of the two does not take in a drift of the machine's speed.
fl1=$("$floorprog" --floor 19456 2 1) || { echo "ds_bind: $floorprog --floor failed"; exit 1; }
row argon2 "kdfhash ARGON2 m=19456,t=2,p=1"
fl2=$("$floorprog" --floor 19456 2 1) || { echo "ds_bind: $floorprog --floor failed"; exit 1; }
# Where the server's kept areas live: huge pages unless THP is off.
hp=$(awk '/^AnonHugePages:/ { print $2 " kB" }' "/proc/$(ds_pid b1)/smaps_rollup" 2>/dev/null)
beside "kdfhash ARGON2 beside 2 m=262144,t=8"
b99_kept=$b99
row kdfpbkdf2 "kdfhash KDF-PBKDF2 sha512 i=10000"
row ssha "389-ds SSHA512 (a bind besides its hash)"

# A storm of wrong passwords beside a correct user, in this server as it
# runs (the plugin's gate at its defaults: 389-ds-kdfhash(8), WRONG-PASSWORD
# STORMS).  The victim binds on 1 connection alone, then beside 64
# connections binding wrong passwords as four other users of its scheme.
STORM_CONNS=64
sfmt='%-40s %9s %7s %7s %9s %7s %7s %9s %6s %6s\n'
storm() { # storm VICTIM LABEL TARGET-UID...
    victim=$1 label=$2
    shift 2
    alone=$(run "$victim" 1)
    dns=
    for u; do dns="$dns uid=$u,ou=people,$DS_SUFFIX"; done
    c0=$(slapd_cpu)
    # shellcheck disable=SC2086 # one DN per word
    nice -n 19 $PY "$here/ds_bind_client.py" --wrong "$(ds_url "$P")" Wrong-Secret-9 "$((secs + 2))" \
        "$STORM_CONNS" $dns > "$DS_ROOT/storm.json" &
    sp=$!
    sleep 1
    beside=$(run "$victim" 1)
    wait "$sp"
    c1=$(slapd_cpu)
    st=$(cat "$DS_ROOT/storm.json")
    case "$alone$beside$st" in *error*) echo "ds_bind: storm, $victim: $alone $beside $st"; exit 1 ;; esac
    a=$(field "$alone" per_s) b=$(field "$beside" per_s)
    eval "kept_$victim=$(ratio "$b" "$a")"
    printf "$sfmt" "$label" "$a" "$(field "$alone" p50_ms)" "$(field "$alone" p99_ms)" "$b" \
        "$(field "$beside" p50_ms)" "$(field "$beside" p99_ms)" "$(field "$st" per_s)" \
        "$(ratio "$b" "$a")" "$($PY -c "print('%.2f' % (($c1 - $c0) / $tck / ($secs + 2)))")"
}
tck=$(getconf CLK_TCK)
slapd_cpu() { awk '{ print $14 + $15 }' "/proc/$(ds_pid b1)/stat"; }
echo "storm: a correct user on 1 connection, alone and beside $STORM_CONNS connections binding wrong passwords as 4 other users of its scheme"
echo "  (the storm's client runs at nice 19: an attacker's CPU is not the server's; CPUs: ns-slapd's during the storm)"
printf "$sfmt" "victim's scheme" "alone/s" "p50 ms" "p99 ms" "beside/s" "p50 ms" "p99 ms" "storm/s" "kept" "CPUs"
storm argon2 "kdfhash ARGON2 m=19456,t=2,p=1" storma1 storma2 storma3 storma4
storm pbkdf2 "389-ds PBKDF2-SHA512 i=10000" stormp1 stormp2 stormp3 stormp4

# The same ARGON2 value with an area mapped for every bind: workareas=0 on
# every scheme entry (the setting is the process's, the last entry loaded
# sets it), then a restart.
for cn in ARGON2 BCRYPT KDF-PBKDF2; do
    printf 'dn: cn=%s,cn=Password Storage Schemes,cn=plugins,cn=config\nchangetype: modify\nadd: nsslapd-pluginarg1\nnsslapd-pluginarg1: workareas=0\n' "$cn"
    echo
done | ds_modify "$P" || exit 1
ds_restart b1 || exit 1
uid=argon2
one=$(run argon2 1) four=$(run argon2 4)
case "$one$four" in *error*) echo "ds_bind: argon2 (fresh): $one $four"; exit 1 ;; esac
p50_fresh=$(field "$one" p50_ms) p99_fresh=$(field "$one" p99_ms)
q50_fresh=$(field "$four" p50_ms) q99_fresh=$(field "$four" p99_ms)
t1_fresh=$(field "$one" per_s) t4_fresh=$(field "$four" per_s)
printf "$fmt" "kdfhash ARGON2, an area mapped per bind" \
    "$p50_fresh" "$p99_fresh" "$q50_fresh" "$q99_fresh" "$t1_fresh" "$t4_fresh"
beside "the same beside 2 m=262144,t=8"
b99_fresh=$b99

mean() { $PY -c "print('%.2f' % (($(field "$fl1" "$1") + $(field "$fl2" "$1")) / 2))"; }
warm=$(mean warm_ms)
echo "floor: the core's Argon2id m=19456,t=2,p=1 in-process, one thread, kept area: $warm ms (mean of $(field "$fl1" warm_ms) before and $(field "$fl2" warm_ms) after the ARGON2 row; $(mean warm_cpu_ms) ms of CPU); an area mapped per call: $(mean fresh_ms) ms, $(mean fresh_cpu_ms) ms of CPU of which $(mean fresh_sys_ms) system"
echo "ns-slapd's anonymous huge pages after the ARGON2 row: ${hp:-unknown}"
echo "ratios (side by side, this run, $cpu):"
echo "  ARGON2 m=19456,t=2,p=1 / 389-ds's default PBKDF2-SHA512 i=10000 (Debian 12; below OWASP's minimum), binds/s x1: $(ratio "$t1_argon2" "$t1_pbkdf2")x, x4: $(ratio "$t4_argon2" "$t4_pbkdf2")x; p50 latency: $(ratio "$p50_argon2" "$p50_pbkdf2")x"
echo "  ARGON2 m=19456,t=2,p=1 / PBKDF2-SHA512 i=210000 (OWASP's minimum for it), binds/s x1: $(ratio "$t1_argon2" "$t1_pbkdf2owasp")x, x4: $(ratio "$t4_argon2" "$t4_pbkdf2owasp")x"
echo "  one ARGON2 bind (p50, 1 connection) / the floor: $(ratio "$p50_argon2" "$warm")x"
echo "  kept areas / an area per bind: binds/s x4: $(ratio "$t4_argon2" "$t4_fresh")x, p50: $(ratio "$p50_argon2" "$p50_fresh")x"
echo "  KDF-PBKDF2 i=10000 / PBKDF2-SHA512 i=10000, binds/s x4: $(ratio "$t4_kdfpbkdf2" "$t4_pbkdf2")x"
r=$(ratio "$b99_kept" "$b99_fresh")
echo "  beside 2 expensive binds, ARGON2 p99 x1: kept areas / an area per bind: ${r}x (at most 2)"
echo "  storm: kept of the rate alone: ARGON2 ${kept_argon2}x (at least 0.5), 389-ds PBKDF2-SHA512 i=10000 ${kept_pbkdf2}x"
rc=0
$PY -c "import sys; sys.exit(0 if $r <= 2 else 1)" || { echo "ds_bind: FAIL: a cheap bind waits for expensive ones with kept areas"; rc=1; }
$PY -c "import sys; sys.exit(0 if $kept_argon2 >= 0.5 else 1)" || { echo "ds_bind: FAIL: a storm of wrong passwords took more than half the rate of a correct ARGON2 user"; rc=1; }
exit $rc
