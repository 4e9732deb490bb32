# SPDX-License-Identifier: BSD-3-Clause
#
# storm-cases.sh - a storm of wrong passwords against two {ARGON2} users
# beside a correct user, on supplier 1; sourced by test_ds389.sh while
# passwordStorageScheme is ARGON2 (it uses its add_user, bind_ok, check,
# ds_* and $P1, $DS_ROOT, $DS_SUFFIX, $target_prefix).
#
# The plugin's gate (ds_plugin/ds_fair.c, 389-ds-kdfhash(8) WRONG-PASSWORD
# STORMS): values that failed recently are verified one at a time within a
# share of the CPUs, the rest refused unverified with a line of counts in
# the error log; a correct user of another value never waits for them.
# Asserted here: every bind of the correct user succeeds during the storm,
# every storm bind gets invalid credentials (49) and nothing else, the
# gate said it refused some (and nothing of the values or passwords), and
# after the storm a targeted user's right password binds again (the gate
# holds a value back only while its waits are full).

add_user "$P1" stormv 'Storm-Victim-1' || die "add stormv"
add_user "$P1" stormt1 'Storm-Target-1' || die "add stormt1"
add_user "$P1" stormt2 'Storm-Target-2' || die "add stormt2"
check "the storm's users are stored by the plugin" \
    has_prefix "$(ds_stored "$P1" stormt2)" "$target_prefix"
errlog=$DS_ROOT/varlog/slapd-s1/errors
[ -f "$errlog" ] || die "no error log at $errlog"
said0=$(grep -c 'storm gate: ' "$errlog")
# 16 connections' worth of wrong binds, each loop for about 6 s, beside 10
# binds of the correct user once the storm runs.
rm -f "$DS_ROOT"/wrong*.rc
end=$(($(date +%s) + 6))
i=1
while [ $i -le 16 ]; do
    (
        u=stormt$((i % 2 + 1)) other=0
        while [ "$(date +%s)" -lt "$end" ]; do
            ldapwhoami -x -H "$(ds_url "$P1")" -D "uid=$u,ou=people,$DS_SUFFIX" \
                -w 'Wrong-Secret-9' >/dev/null 2>&1
            [ $? -eq 49 ] || other=$((other + 1))
        done
        echo "$other" >"$DS_ROOT/wrong$i.rc"
    ) &
    i=$((i + 1))
done
sleep 1
good=0
i=1
while [ $i -le 10 ]; do
    bind_ok "$P1" stormv 'Storm-Victim-1' && good=$((good + 1))
    i=$((i + 1))
done
wait
other=$(cat "$DS_ROOT"/wrong*.rc | awk '{ s += $1 } END { print s + 0 }')
said=$(($(grep -c 'storm gate: ' "$errlog") - said0))
echo "# storm: the correct user's binds $good of 10; storm binds answered other than 49: $other; gate lines: $said"
check "beside a storm of wrong passwords, every bind of a correct user succeeds" test "$good" = 10
check "every storm bind is answered invalid credentials (49)" test "$other" = 0
check "the gate said its refusals in the error log" test "$said" -ge 1
check "the gate's lines name no value and no password" \
    sh -c "! grep 'storm gate: ' '$errlog' | grep -q -e 'argon2id' -e 'Wrong-Secret' -e 'Storm-Target'"
# The storm over, a target's right password: bound once its waits are
# free, at most storm.wait later (one retry after a second).
bind_ok "$P1" stormt1 'Storm-Target-1' || { sleep 1; bind_ok "$P1" stormt1 'Storm-Target-1'; }
check "after the storm, a targeted user's right password binds" test $? = 0
