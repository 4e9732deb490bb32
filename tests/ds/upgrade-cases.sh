# SPDX-License-Identifier: BSD-3-Clause
#
# upgrade-cases.sh - the upgrade at bind, sourced by test_ds389.sh once its
# two suppliers run with passwordStorageScheme ARGON2 (target
# argon2id m=16384,t=2,p=1, min.argon2 m=8192,t=1,p=1).
#
# The post-bind callback writes after the client has its answer, so each
# check of a stored value waits for it (wait_prefix) instead of reading it
# once.  The race: an administrator's reset against the upgrade of the same
# entry, 200 times at spread delays; whatever the order, the reset must be
# all that is left.

# stored_all PORT UID: every userPassword value, one per line, sorted.
stored_all() {
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "uid=$2,ou=people,$DS_SUFFIX" -s base userPassword 2>/dev/null |
        while read -r attr val; do
            case "$attr" in
            userPassword:) printf '%s\n' "$val" ;;
            userPassword::) printf '%s' "$val" | base64 -d && echo ;;
            esac
        done | sort
}
# wait_prefix PORT UID PREFIX: until the stored value starts with PREFIX (10 s).
wait_prefix() {
    _w=0
    while [ $_w -lt 40 ]; do
        has_prefix "$(ds_stored "$1" "$2")" "$3" && return 0
        sleep 0.25
        _w=$((_w + 1))
    done
    return 1
}
# policy_state PORT UID: the password policy's state of an entry, and who
# and when last modified it, one "attr: value" per line.
policy_state() {
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "uid=$2,ou=people,$DS_SUFFIX" -s base passwordExpirationTime passwordHistory \
        pwdUpdateTime passwordAllowChangeTime modifiersName modifyTimestamp 2>/dev/null |
        grep -v '^dn:' | grep . | sort
}
# set_value PORT UID VALUE: the administrator writes VALUE (pre-hashed or not).
set_value() {
    printf 'dn: uid=%s,ou=people,%s\nchangetype: modify\nreplace: userPassword\nuserPassword: %s\n' \
        "$2" "$DS_SUFFIX" "$3" | ds_modify "$1"
}
config_set() { # config_set PORT ATTR VALUE
    printf 'dn: cn=config\nchangetype: modify\nreplace: %s\n%s: %s\n' "$2" "$2" "$3" | ds_modify "$1"
}
# an outdated {ARGON2} value of PASSWORD: OpenLDAP-style argon2id m=4096,t=1
old_argon2() {
    printf '{ARGON2}%s' "$(printf '%s' "$1" | argon2 "$2saltsalt" -id -t 1 -m 12 -p 1 -e)"
}
errors1=/var/log/dirsrv/slapd-s1/errors
logged() { grep -c -- "$1" "$errors1"; }

# --- dave: {ARGON2} below the minimum verifies, and is re-encoded ---
old=$(old_argon2 'Dave-Secret-1' dave)
add_user "$P1" dave "$old" || die "add dave"
check "dave's {ARGON2} below the minimum binds" bind_ok "$P1" dave 'Dave-Secret-1'
check "dave's value is re-encoded at the target after the bind" \
    wait_prefix "$P1" dave "$target_prefix"
new=$(ds_stored "$P1" dave)
check "dave's old value is gone: one value left" test "$(stored_all "$P1" dave | wc -l)" = 1
check "dave binds with the re-encoded value" bind_ok "$P1" dave 'Dave-Secret-1'
check "dave's wrong password gets 49 after the re-encode" bind_49 "$P1" dave 'Dave-Secret-2'
check "the re-encoded value replicates to supplier 2" ds_wait_value "$P2" dave "$new"
check "dave binds on supplier 2" bind_ok "$P2" dave 'Dave-Secret-1'
check "the error log names the entry, the target and why" \
    grep -q "ARGON2: re-encoded uid=dave,ou=people,$DS_SUFFIX at argon2id m=16384,t=2,p=1,.* (was: too-cheap)" \
    "$errors1"

# carol (test_ds389.sh): OpenLDAP's argon2i, another member of the family.
check "carol's argon2i is re-encoded to argon2id at the target" \
    wait_prefix "$P1" carol "$target_prefix"
check "carol binds after the re-encode" bind_ok "$P1" carol 'Carol-Secret-1'

# bob (test_ds389.sh): {BCRYPT} under ARGON2 is 389-ds's own re-encode in
# the bind; ours finds the value gone and says nothing false about it.
check "no warning that outdated values stay (the upgrade entry is loaded)" \
    test "$(logged 'some stored values are outdated')" = 0

# --- a raised target: values at the old target move at their next bind ---
# (supplier 2, with its plugin entry reconfigured: the policy changed, the
# scheme name did not; 389-ds itself would keep these values forever.)
add_user "$P1" uma 'Uma-Secret-1' || die "add uma"
uma_v=$(ds_stored "$P1" uma)
check "uma is stored at the first target" has_prefix "$uma_v" "$target_prefix"
ds_wait_value "$P2" uma "$uma_v" || die "uma did not replicate"
printf 'dn: cn=ARGON2,cn=Password Storage Schemes,cn=plugins,cn=config\nchangetype: modify\nreplace: nsslapd-pluginarg1\nnsslapd-pluginarg1: target=argon2id m=24576,t=2,p=1\n' |
    ds_modify "$P2" && ds_restart s2 || die "s2 with a raised target"
check "uma binds on supplier 2 after the target was raised" bind_ok "$P2" uma 'Uma-Secret-1'
check "uma's value moves to the raised target" \
    wait_prefix "$P2" uma '{ARGON2}$argon2id$v=19$m=24576,t=2,p=1$'
check "the raised value replicates back to supplier 1" \
    ds_wait_value "$P1" uma "$(ds_stored "$P2" uma)"
printf 'dn: cn=ARGON2,cn=Password Storage Schemes,cn=plugins,cn=config\nchangetype: modify\ndelete: nsslapd-pluginarg1\n' |
    ds_modify "$P2" && ds_restart s2 || die "s2 back to the first target"

# --- password policy state does not move ---
config_set "$P1" passwordExp on && config_set "$P1" passwordMaxAge 8640000 &&
    config_set "$P1" passwordHistory on && config_set "$P1" passwordInHistory 4 &&
    config_set "$P1" passwordTrackUpdateTime on || die "password policy on supplier 1"
add_user "$P1" paula "$(old_argon2 'Paula-Old-1' paula)" || die "add paula"
set_value "$P1" paula "$(old_argon2 'Paula-Secret-1' paula)" || die "paula's second value"
before=$(policy_state "$P1" paula)
check "paula has an expiration time, a history and pwdUpdateTime to keep" \
    sh -c 'printf "%s\n" "$1" | grep -q "^passwordExpirationTime: " &&
           printf "%s\n" "$1" | grep -q "^passwordHistory: " &&
           printf "%s\n" "$1" | grep -q "^pwdUpdateTime: "' _ "$before"
sleep 1 # a second later, so that a new timestamp would differ
check "paula binds" bind_ok "$P1" paula 'Paula-Secret-1'
check "paula's value is re-encoded" wait_prefix "$P1" paula "$target_prefix"
after=$(policy_state "$P1" paula)
if [ "$after" = "$before" ]; then
    ok "the re-encode leaves expiration, history, pwdUpdateTime and modifiersName as they were"
else
    notok "the re-encode moved password policy state" \
        "$(printf 'before:\n%s\nafter:\n%s' "$before" "$after" | tr '\n' '|')"
fi

# --- passwordMinAge: the server refuses the re-encode; the bind stands ---
config_set "$P1" passwordMinAge 3600 || die "passwordMinAge"
add_user "$P1" mia 'x' || die "add mia"
set_value "$P1" mia "$(old_argon2 'Mia-Secret-1' mia)" || die "mia's value"
mia_v=$(stored_all "$P1" mia)
check "mia binds within passwordMinAge" bind_ok "$P1" mia 'Mia-Secret-1'
sleep 1
check "within passwordMinAge mia's value is kept" test "$(stored_all "$P1" mia)" = "$mia_v"
check "the error log says the policy refused it" \
    grep -q "ARGON2: uid=mia,ou=people,$DS_SUFFIX not re-encoded: the password policy refused" \
    "$errors1"
config_set "$P1" passwordMinAge 0 || die "passwordMinAge 0"
check "mia binds once passwordMinAge is lifted" bind_ok "$P1" mia 'Mia-Secret-1'
check "and her value is re-encoded then" wait_prefix "$P1" mia "$target_prefix"
for a in passwordExp passwordHistory passwordTrackUpdateTime; do config_set "$P1" $a off; done

# --- nsslapd-enable-upgrade-hash: off is honoured ---
config_set "$P1" nsslapd-enable-upgrade-hash off || die "upgrade hash off"
add_user "$P1" olga "$(old_argon2 'Olga-Secret-1' olga)" || die "add olga"
olga_v=$(ds_stored "$P1" olga)
check "olga binds with nsslapd-enable-upgrade-hash off" bind_ok "$P1" olga 'Olga-Secret-1'
sleep 1
check "with it off her value is kept" test "$(ds_stored "$P1" olga)" = "$olga_v"
check "the error log says once that it is off" \
    test "$(logged 'nsslapd-enable-upgrade-hash is off')" = 1
config_set "$P1" nsslapd-enable-upgrade-hash on || die "upgrade hash on"
check "olga binds with it on again" bind_ok "$P1" olga 'Olga-Secret-1'
check "and her value is re-encoded" wait_prefix "$P1" olga "$target_prefix"

# --- an administrator's reset always wins the race with an upgrade ---
add_user "$P1" rob 'x' || die "add rob"
rob_old=$(old_argon2 'Rob-Old-1' rob)
swapped0=$(logged 'ARGON2: re-encoded uid=rob,')
lost0=$(logged 'ARGON2: uid=rob,.* not re-encoded: its value changed meanwhile')
trials=200 bad=0 binds=0 i=1
while [ $i -le $trials ]; do
    set_value "$P1" rob "$rob_old" || { bad=$((bad + 1)); i=$((i + 1)); continue; }
    # Odd trials start the bind first, even ones the reset, the other one
    # 0 to 48 ms later: the reset lands before the compare, between the
    # compare and the re-encode, or after it.
    d=$(printf '0.%03d' $(((i / 2 % 13) * 4)))
    if [ $((i % 2)) = 1 ]; then
        (bind_ok "$P1" rob 'Rob-Old-1' && touch "$DS_ROOT/race.bound") &
        sleep "$d"
        set_value "$P1" rob "Rob-New-$i" || bad=$((bad + 1))
    else
        (sleep "$d"; bind_ok "$P1" rob 'Rob-Old-1' && touch "$DS_ROOT/race.bound") &
        set_value "$P1" rob "Rob-New-$i" || bad=$((bad + 1))
    fi
    wait
    [ -f "$DS_ROOT/race.bound" ] && binds=$((binds + 1))
    rm -f "$DS_ROOT/race.bound"
    # The reset is all that is left: one value, and not the old password.
    if [ "$(stored_all "$P1" rob | wc -l)" != 1 ] || bind "$P1" rob 'Rob-Old-1'; then
        bad=$((bad + 1))
        echo "# race trial $i: $(stored_all "$P1" rob | wc -l) values; old password: $(bind "$P1" rob 'Rob-Old-1'; echo $?)"
    fi
    i=$((i + 1))
done
check "after the last reset its password binds" bind_ok "$P1" rob "Rob-New-$trials"
swapped=$(($(logged 'ARGON2: re-encoded uid=rob,') - swapped0))
lost=$(($(logged 'ARGON2: uid=rob,.* not re-encoded: its value changed meanwhile') - lost0))
echo "# race: $trials trials, $binds binds with the old password, $swapped re-encoded before the reset, $lost refused at the swap (the reset came between the compare and the write)"
check "in $trials races of a reset and an upgrade the reset always wins" test "$bad" = 0
check "the races re-encoded at least once (the upgrade ran)" test "$swapped" -gt 0

# --- both suppliers upgrade the same entry at once: they converge ---
add_user "$P1" tina "$(old_argon2 'Tina-Secret-1' tina)" || die "add tina"
ds_wait_value "$P2" tina "$(ds_stored "$P1" tina)" || die "tina did not replicate"
bind_ok "$P1" tina 'Tina-Secret-1' &
bind_ok "$P2" tina 'Tina-Secret-1' &
wait
wait_prefix "$P1" tina "$target_prefix" && wait_prefix "$P2" tina "$target_prefix" ||
    notok "tina re-encoded on both suppliers"
i=0
while [ $i -lt 40 ] && [ "$(stored_all "$P1" tina)" != "$(stored_all "$P2" tina)" ]; do
    sleep 0.25
    i=$((i + 1))
done
check "both suppliers hold the same values of tina" \
    test "$(stored_all "$P1" tina)" = "$(stored_all "$P2" tina)"
echo "# concurrent upgrades on two suppliers left $(stored_all "$P1" tina | wc -l) value(s)"
no_old_value() { ! stored_all "$1" "$2" | grep -q 'm=4096,'; }
binds_on_both() { bind_ok "$P1" "$1" "$2" && bind_ok "$P2" "$1" "$2"; }
check "none of them is the old value" no_old_value "$P1" tina
check "tina binds on both" binds_on_both tina 'Tina-Secret-1'
conflicts=$(ldapsearch -x -LLL -H "$(ds_url "$P1")" -D "$DS_DM" -w "$DS_DMPW" \
    -b "$DS_SUFFIX" '(&(nsds5ReplConflict=*)(|(objectClass=*)(objectClass=ldapSubEntry)))' dn 2>/dev/null |
    grep -c '^dn:')
check "no replication conflict entries" test "$conflicts" = 0
