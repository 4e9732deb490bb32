#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_ds389.sh - the 389-ds plugin in two real servers on loopback.
#
#   test_ds389.sh PLUGIN.so LDIF
#
# Two 389 Directory Server instances made by dscreate, in two-way
# multi-supplier replication over ldap://127.0.0.1, the plugin registered
# on both through the shipped LDIF.  Each case asserts what ldapwhoami
# returns and the userPassword the servers store; upgrade-cases.sh holds
# the cases of the upgrade at bind, rollback-cases.sh the way back (the
# ROLLBACK of 389-ds-kdfhash(8), the removal guard).  Exit 77 (skip) only
# where 389-ds cannot run: not root, or not installed.
set -u

plugin=${1:?usage: test_ds389.sh PLUGIN.so LDIF}
ldif=${2:?usage: test_ds389.sh PLUGIN.so LDIF}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/ds-lib.sh"

why=$(ds_unavailable)
if [ -n "$why" ]; then
    echo "SKIP: 389-ds cannot run here: $why"
    exit 77
fi
[ -f "$plugin" ] || { echo "FAIL: no plugin at $plugin (configure found no 389-ds-base-dev?)"; exit 1; }
ds_in_ns "$0" "$(ds_abs "$plugin")" "$(ds_abs "$ldif")"

# Debian's python3, with python3-bcrypt and python3-passlib.
PY=/usr/bin/python3
$PY -c 'import bcrypt, passlib' 2>/dev/null ||
    { echo "FAIL: /usr/bin/python3 lacks bcrypt/passlib (apt-get install python3-bcrypt python3-passlib)"; exit 1; }
t0=$(date +%s)
pass=0 fail=0 n=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; [ $# -gt 1 ] && echo "#   $2"; }
check() { # check NAME COMMAND...
    name=$1
    shift
    if "$@"; then ok "$name"; else notok "$name"; fi
}
die() {
    echo "Bail out! $*"
    ds_stop_all
    exit 1
}
trap '[ -z "${sssd_pid:-}" ] || kill "$sssd_pid" 2>/dev/null; ds_stop_all' EXIT
trap 'exit 1' INT TERM

ds_mount_scratch || die "could not bind the scratch tree"
set -- $(ds_free_ports)
P1=$1 P2=$2
# The plugin and its policy where the server's user can read them.
cp "$plugin" "$DS_ROOT/lib/libkdfhash-pwdstorage-plugin.so"
# A small target (fast tests), a budget of two Argon2 areas (the storm),
# a cap far below the over-cap value.
cat >"$DS_ROOT/kdfhash.conf" <<EOC
target = argon2id m=16384,t=2,p=1
min.argon2 = m=8192,t=1,p=1
min.bcrypt = 4
min.pbkdf2-sha256 = 1000
min.pbkdf2-sha512 = 1000
max.argon2 = m=262144,t=16,p=16
max.memory = 32768
max.memory-wait = 20000
max.threads = 2
EOC
chmod 644 "$DS_ROOT/kdfhash.conf" "$DS_ROOT/lib/libkdfhash-pwdstorage-plugin.so"

for i in 1 2; do
    eval p=\$P$i
    ds_create s$i "$p" || die "dscreate s$i failed"
    ds_register_plugin "$p" "$ldif" "$DS_ROOT/lib/libkdfhash-pwdstorage-plugin.so" \
        "$DS_ROOT/kdfhash.conf" || die "registering the plugin on s$i failed"
    ds_restart s$i || die "s$i did not restart with the plugin"
    ds_set_scheme "$p" SSHA512 || die "passwordStorageScheme on s$i"
done
printf 'dn: ou=people,%s\nobjectClass: organizationalUnit\nou: people\n' "$DS_SUFFIX" | ds_add "$P1" ||
    die "ou=people"
ds_replicate "$P1" "$P2" || die "replication setup failed"
t_setup=$(($(date +%s) - t0))

# --- kdfhash-ds-check: the topology, found from one server ---
dscheck=$here/../../tools/kdfhash-ds-check
printf '%s' "$DS_DMPW" >"$DS_ROOT/dm.pw"
chmod 600 "$DS_ROOT/dm.pw"
# ds_check: kdfhash-ds-check from supplier 1; its output in $DS_ROOT/check.out
ds_check() { KDFHASH_DS_LDIF=$ldif sh "$dscheck" -y "$DS_ROOT/dm.pw" "$(ds_url "$P1")" >"$DS_ROOT/check.out" 2>&1; }
said() { grep -q -- "$1" "$DS_ROOT/check.out"; }
ds_check
rc=$?
check "ds-check: ready, supplier 2 found through supplier 1's agreement" \
    sh -c "[ $rc = 0 ] && grep -q 'replicates to ldap://127.0.0.1:$P2' '$DS_ROOT/check.out' &&
           grep -q '^ready: 2 server(s)' '$DS_ROOT/check.out'"
ds_set_scheme "$P2" ARGON2 || die "passwordStorageScheme ARGON2 on s2"
ds_check
rc=$?
check "ds-check: not ready while the suppliers' schemes differ" \
    sh -c "[ $rc = 1 ] && grep -q 'use different passwordStorageScheme' '$DS_ROOT/check.out'"
ds_set_scheme "$P2" SSHA512 || die "passwordStorageScheme SSHA512 on s2"
upg='cn=kdfhash upgrade at bind,cn=plugins,cn=config'
printf 'dn: %s\nchangetype: modify\nreplace: nsslapd-pluginEnabled\nnsslapd-pluginEnabled: off\n' "$upg" |
    ds_modify "$P2" || die "disable the upgrade entry on s2"
ds_check
rc=$?
check "ds-check: not ready while an entry is disabled on supplier 2" \
    sh -c "[ $rc = 1 ] && grep -q 'NOT READY: cn=kdfhash upgrade at bind is disabled' '$DS_ROOT/check.out'"
sleep 1 # the entry's modifyTimestamp must be after the server's start
printf 'dn: %s\nchangetype: modify\nreplace: nsslapd-pluginEnabled\nnsslapd-pluginEnabled: on\n' "$upg" |
    ds_modify "$P2" || die "enable the upgrade entry on s2"
ds_check
rc=$?
check "ds-check: not ready until supplier 2 restarts to load the changed entry" \
    sh -c "[ $rc = 1 ] && grep -q 'was changed after the server started: restart it' '$DS_ROOT/check.out'"
ds_restart s2 || die "restart s2"
ds_check
rc=$?
check "ds-check: ready again after the restart" test "$rc" = 0
check "ds-check never prints the password" sh -c "! grep -qF '$DS_DMPW' '$DS_ROOT/check.out'"
echo "# setup: two instances, plugin, replication in $t_setup s"
t1=$(date +%s)

# add_user PORT UID [PASSWORD|{HASH}]
add_user() {
    printf 'dn: uid=%s,ou=people,%s\nobjectClass: inetOrgPerson\nuid: %s\ncn: %s\nsn: %s\nuserPassword: %s\n' \
        "$2" "$DS_SUFFIX" "$2" "$2" "$2" "$3" | ds_add "$1"
}
# bind PORT UID PASSWORD: ldapwhoami's exit status; its output in $DS_ROOT/bind.out
bind() {
    ldapwhoami -x -H "$(ds_url "$1")" -D "uid=$2,ou=people,$DS_SUFFIX" -w "$3" \
        >"$DS_ROOT/bind.out" 2>&1
}
bind_ok() { bind "$@" && grep -q "^dn: uid=$2,ou=people," "$DS_ROOT/bind.out"; }
bind_49() {
    bind "$@"
    rc=$?
    [ $rc -eq 49 ] && grep -q "Invalid credentials (49)" "$DS_ROOT/bind.out"
}
has_prefix() { case "$1" in "$2"*) return 0 ;; *) return 1 ;; esac; }
target_prefix='{ARGON2}$argon2id$v=19$m=16384,t=2,p=1$'

# --- an {SSHA512} user is rehashed to {ARGON2} at bind; it replicates ---
add_user "$P1" alice 'Alice-Secret-1' || die "add alice"
ds_wait_value "$P2" alice "$(ds_stored "$P1" alice)" || die "alice did not replicate"
before=$(ds_stored "$P1" alice)
check "alice is stored as {SSHA512}" has_prefix "$before" '{SSHA512}'
ds_set_scheme "$P1" ARGON2 && ds_set_scheme "$P2" ARGON2 || die "passwordStorageScheme ARGON2"
check "alice binds on supplier 1" bind_ok "$P1" alice 'Alice-Secret-1'
after=$(ds_stored "$P1" alice)
check "alice is rehashed to {ARGON2} at the target" has_prefix "$after" "$target_prefix"
check "the {ARGON2} value replicates to supplier 2" ds_wait_value "$P2" alice "$after"
check "alice binds on supplier 2 through its plugin" bind_ok "$P2" alice 'Alice-Secret-1'

# --- a wrong password: 49 on both, nothing rewritten ---
check "a wrong password gets 49 on supplier 1" bind_49 "$P1" alice 'Alice-Secret-2'
check "a wrong password gets 49 on supplier 2" bind_49 "$P2" alice 'alice-secret-1'
check "a refused bind rewrites nothing" test "$(ds_stored "$P1" alice)" = "$after"

# --- imported values: bcrypt (web applications), OpenLDAP's Argon2 ---
bc=$($PY -c 'import bcrypt; print(bcrypt.hashpw(b"Bob-Secret-1", bcrypt.gensalt(6)).decode())')
add_user "$P1" bob "{BCRYPT}$bc" || die "add bob"
check "bob's imported {BCRYPT} is stored as given" test "$(ds_stored "$P1" bob)" = "{BCRYPT}$bc"
check "bob binds with his bcrypt password" bind_ok "$P1" bob 'Bob-Secret-1'
check "bob is moved to {ARGON2} at bind" has_prefix "$(ds_stored "$P1" bob)" "$target_prefix"
check "bob's wrong password gets 49" bind_49 "$P1" bob 'Bob-Secret-2'
# libargon2's own tool: what OpenLDAP's pw-argon2 module links against.
oa=$(printf '%s' 'Carol-Secret-1' | argon2 carolsaltcarolsalt -i -t 3 -m 14 -p 1 -e)
add_user "$P1" carol "{ARGON2}$oa" || die "add carol"
check "carol's OpenLDAP-made {ARGON2} (argon2i) binds" bind_ok "$P1" carol 'Carol-Secret-1'
# --- PBKDF2 from passlib, Django and OpenLDAP under {KDF-PBKDF2} ---
py_hash() { $PY -c "from passlib import hash as h; print(h.$1.using(rounds=2000).hash('$2'))"; }
add_user "$P1" erin "{KDF-PBKDF2}$(py_hash pbkdf2_sha256 Erin-Secret-1)" || die "add erin"
check "erin's passlib \$pbkdf2-sha256\$ under {KDF-PBKDF2} binds" bind_ok "$P1" erin 'Erin-Secret-1'
add_user "$P1" frank "{KDF-PBKDF2}$(py_hash django_pbkdf2_sha256 Frank-Secret-1)" || die "add frank"
check "frank's Django pbkdf2_sha256\$ under {KDF-PBKDF2} binds" bind_ok "$P1" frank 'Frank-Secret-1'
ol=$(py_hash ldap_pbkdf2_sha512 Grace-Secret-1)
add_user "$P1" grace "{KDF-PBKDF2}${ol#\{PBKDF2-SHA512\}}" || die "add grace"
check "grace's OpenLDAP pw-pbkdf2 SHA-512 body under {KDF-PBKDF2} binds" \
    bind_ok "$P1" grace 'Grace-Secret-1'
check "grace's wrong password gets 49" bind_49 "$P1" grace 'Grace-Secret-2'
# OpenLDAP's SHA-1 ({PBKDF2}) and SHA-256 bodies: the digest's length names it.
ol=$(py_hash ldap_pbkdf2_sha1 Judy-Secret-1)
add_user "$P1" judy "{KDF-PBKDF2}${ol#\{PBKDF2\}}" || die "add judy"
check "judy's OpenLDAP pw-pbkdf2 SHA-1 body under {KDF-PBKDF2} binds" bind_ok "$P1" judy 'Judy-Secret-1'
ol=$(py_hash ldap_pbkdf2_sha256 Kim-Secret-1)
add_user "$P1" kim "{KDF-PBKDF2}${ol#\{PBKDF2-SHA256\}}" || die "add kim"
check "kim's OpenLDAP pw-pbkdf2 SHA-256 body under {KDF-PBKDF2} binds" bind_ok "$P1" kim 'Kim-Secret-1'
check "kim's value moved to {ARGON2} at bind" has_prefix "$(ds_stored "$P1" kim)" "$target_prefix"

# --- values of our names outdated within their family: the upgrade entry ---
. "$here/upgrade-cases.sh"

# (For the man page: does 389-ds's own {PBKDF2-SHA512} read OpenLDAP's body?)
add_user "$P1" ivan "$(py_hash ldap_pbkdf2_sha512 Ivan-Secret-1)" || die "add ivan"
bind_ok "$P1" ivan 'Ivan-Secret-1' && echo "# 389-ds's own PBKDF2-SHA512 reads OpenLDAP's body" ||
    echo "# 389-ds's own PBKDF2-SHA512 does not read OpenLDAP's body"

# --- over the caps: refused before any work, and quickly ---
salt=$(printf 'heidisaltheidisalt' | base64 | tr -d '=\n')
tag=$(head -c 32 /dev/zero | base64 | tr -d '=\n')
add_user "$P1" heidi "{ARGON2}\$argon2id\$v=19\$m=4194304,t=1,p=1\$$salt\$$tag" || die "add heidi"
s=$(date +%s%N)
check "heidi's 4 GiB {ARGON2} is refused with 49" bind_49 "$P1" heidi 'Heidi-Secret-1'
ms=$((($(date +%s%N) - s) / 1000000))
echo "# over-cap refusal took $ms ms"
check "the over-cap refusal takes under 3 s" test "$ms" -lt 3000
check "the error log names the cap, not the value" \
    sh -c "grep -q 'over the caps' /var/log/dirsrv/slapd-s1/errors &&
           ! grep -q 'm=4194304' /var/log/dirsrv/slapd-s1/errors"

# --- 50 concurrent binds of 50 users, the server's memory bounded ---
ldif50=$DS_ROOT/storm.ldif
: >"$ldif50"
i=1
while [ $i -le 50 ]; do
    printf 'dn: uid=storm%d,ou=people,%s\nobjectClass: inetOrgPerson\nuid: storm%d\ncn: s\nsn: s\nuserPassword: Storm-Secret-%d\n\n' \
        $i "$DS_SUFFIX" $i $i >>"$ldif50"
    i=$((i + 1))
done
ds_add "$P1" <"$ldif50" || die "add the storm users"
check "users added under ARGON2 are encoded by the plugin" \
    has_prefix "$(ds_stored "$P1" storm50)" "$target_prefix"
# storm PORT INSTANCE: 50 concurrent binds of storm1..50; sets good, ms and
# grow (MiB the server's peak rose above its resident size before).
storm() {
    pid=$(ds_pid "$2")
    rss0=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
    echo 5 >"/proc/$pid/clear_refs" # reset the peak (VmHWM) to now
    rm -f "$DS_ROOT"/storm*.out
    s=$(date +%s%N)
    i=1
    while [ $i -le 50 ]; do
        ldapwhoami -x -H "$(ds_url "$1")" -D "uid=storm$i,ou=people,$DS_SUFFIX" \
            -w "Storm-Secret-$i" >"$DS_ROOT/storm$i.out" 2>&1 &
        i=$((i + 1))
    done
    wait
    ms=$((($(date +%s%N) - s) / 1000000))
    good=$(grep -l '^dn: uid=storm' "$DS_ROOT"/storm*.out | wc -l)
    hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
    grow=$(((hwm - rss0) / 1024))
}
storm "$P1" s1
echo "# 50 concurrent binds: $good succeeded in $ms ms; ns-slapd peak grew $grow MiB (max.memory 32 MiB)"
check "all 50 concurrent binds succeed" test "$good" = 50
check "the server's peak memory grows less than the budget + 32 MiB" test "$grow" -lt 64
# The control: supplier 2 without the budget (a plugin argument over the
# file), the same 50 binds of the replicated users.
ds_wait_value "$P2" storm50 "$(ds_stored "$P1" storm50)" || die "the storm users did not replicate"
printf 'dn: cn=ARGON2,cn=Password Storage Schemes,cn=plugins,cn=config\nchangetype: modify\nadd: nsslapd-pluginarg1\nnsslapd-pluginarg1: max.memory=off\n' |
    ds_modify "$P2" && ds_restart s2 || die "s2 with max.memory=off"
storm "$P2" s2
echo "# control, max.memory=off on supplier 2: $good succeeded in $ms ms; ns-slapd peak grew $grow MiB"
check "without the budget too, all 50 binds succeed (supplier 2)" test "$good" = 50

# --- a storm of wrong passwords beside a correct user ---
. "$here/storm-cases.sh"

# --- kdfhash-ds-wrap: the values of users who never bind ---
. "$here/wrap-cases.sh"

# --- a reconfiguration while binds run: with nsslapd-dynamic-plugins on,
# a modification of the plugin entry restarts the plugin (389-ds's
# plugin_restart), which calls the init function again while workers
# compare; every bind must still succeed, new values must come out at the
# new target, and a refused configuration must leave the old one ---
printf 'dn: cn=config\nchangetype: modify\nreplace: nsslapd-dynamic-plugins\nnsslapd-dynamic-plugins: on\n' |
    ds_modify "$P2" || die "nsslapd-dynamic-plugins on s2"
argon2_entry='dn: cn=ARGON2,cn=Password Storage Schemes,cn=plugins,cn=config'
(storm "$P2" s2; echo "$good" >"$DS_ROOT/reconf.good") &
sleep 0.2
printf '%s\nchangetype: modify\nadd: nsslapd-pluginarg2\nnsslapd-pluginarg2: target=argon2id m=8192,t=1,p=1\n' \
    "$argon2_entry" | ds_modify "$P2"
rc=$?
wait
check "the plugin entry is modified while 50 binds run (dynamic plugins)" test "$rc" = 0
check "all 50 binds around the reconfiguration succeed" test "$(cat "$DS_ROOT/reconf.good")" = 50
add_user "$P2" rita 'Rita-Secret-1' || die "add rita"
check "a value made after the reconfiguration is at its target" \
    has_prefix "$(ds_stored "$P2" rita)" '{ARGON2}$argon2id$v=19$m=8192,t=1,p=1$'
check "rita binds with the reconfigured scheme" bind_ok "$P2" rita 'Rita-Secret-1'
printf '%s\nchangetype: modify\nreplace: nsslapd-pluginarg2\nnsslapd-pluginarg2: bogus\n' \
    "$argon2_entry" | ds_modify "$P2" 2>/dev/null
check "a refused reconfiguration is said in the error log" \
    grep -q "ARGON2: plugin argument 2 is not key=value" /var/log/dirsrv/slapd-s2/errors
check "storm1 still binds after the refused reconfiguration" \
    bind_ok "$P2" storm1 'Storm-Secret-1'
add_user "$P2" sam 'Sam-Secret-1' || die "add sam"
check "after the refusal new values are still at the last accepted target" \
    has_prefix "$(ds_stored "$P2" sam)" '{ARGON2}$argon2id$v=19$m=8192,t=1,p=1$'

# --- dsctl healthcheck: DSCLE0002 for ARGON2, and the documented way past it ---
hs=$(date +%s)
dsctl -j s1 healthcheck >"$DS_ROOT/hc.json" 2>&1
check "the healthcheck reports DSCLE0002 while passwordStorageScheme is ARGON2" \
    grep -q '"DSCLE0002"' "$DS_ROOT/hc.json"
hc_checks=$(dsctl s1 healthcheck --list-checks 2>/dev/null | grep -vx config:passwordscheme)
check "--list-checks names config:passwordscheme among $(echo $hc_checks | wc -w) other checks" \
    sh -c 'dsctl s1 healthcheck --list-checks 2>/dev/null | grep -qx config:passwordscheme'
# shellcheck disable=SC2086
dsctl -j s1 healthcheck --check $hc_checks >"$DS_ROOT/hc2.json" 2>&1
check "every other check runs, without DSCLE0002 (the man page's command)" \
    sh -c "grep -q '^\[' '$DS_ROOT/hc2.json' && ! grep -q DSCLE0002 '$DS_ROOT/hc2.json'"
echo "# healthcheck: $(grep -o '"DS[A-Z]*[0-9]*"' "$DS_ROOT/hc.json" | tr '\n' ' ')in $(($(date +%s) - hs)) s"

# --- the plugin's counters, on a base search of its upgrade entry ---
ds_counter() { # PORT ATTR
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "cn=kdfhash upgrade at bind,cn=plugins,cn=config" -s base "$2" 2>/dev/null |
        sed -n "s/^$2: //p"
}
c_cmp=$(ds_counter "$P1" kdfhashCompares)
c_ok=$(ds_counter "$P1" kdfhashMatches)
c_no=$(ds_counter "$P1" kdfhashMismatches)
c_up=$(ds_counter "$P1" kdfhashUpgrades)
c_wrap=$(ds_counter "$P1" kdfhashWrapModifies)
c_storm=$(( $(ds_counter "$P1" kdfhashStormRefused) + $(ds_counter "$P2" kdfhashStormRefused) +
    $(ds_counter "$P1" kdfhashStormWaits) + $(ds_counter "$P2" kdfhashStormWaits) ))
echo "# s1 counters: compares $c_cmp, matches $c_ok, mismatches $c_no, upgrades $c_up, wraps $c_wrap; storm gate (both) $c_storm"
check "s1 counts its compares, matches and wrong passwords" \
    sh -c "[ ${c_ok:-0} -gt 0 ] && [ ${c_no:-0} -gt 0 ] && [ ${c_cmp:-0} -ge $(( ${c_ok:-0} + ${c_no:-0} )) ]"
check "s1 counts its upgrades at bind" test "${c_up:-0}" -ge 1
check "s1 counts the modifies that replaced a value by its wrap" test "${c_wrap:-0}" -ge 1
check "the storm gate's refusals and waits are counted" test "$c_storm" -gt 0
check "the work-area figures show (slots: $(ds_counter "$P1" kdfhashWorkAreaSlots))" \
    test -n "$(ds_counter "$P1" kdfhashWorkAreaSlots)"

# --- the chain to a client: SSSD on this machine ---
. "$here/sssd-cases.sh"

# --- the way back: replication binds, the removal guard, ROLLBACK ---
. "$here/rollback-cases.sh"

# --- no password, and no stored value, in any log ---
check "no password in the servers' logs" \
    sh -c "! grep -rqF -e Secret- -e Rob-Old -e Rob-New /var/log/dirsrv"
check "no Argon2 value in the servers' logs" \
    sh -c "! grep -rqF -e '\$argon2' /var/log/dirsrv"

t_cases=$(($(date +%s) - t1))
echo "# ds: setup $t_setup s, cases $t_cases s"
echo "1..$n"
echo "ds: $pass passed, $fail failed"
[ $fail -eq 0 ]
