# SPDX-License-Identifier: BSD-3-Clause
#
# wrap-cases.sh - kdfhash-ds-wrap(8) on supplier 1, sourced by
# test_ds389.sh while both suppliers run with passwordStorageScheme ARGON2
# (it uses check, die, has_prefix, $target_prefix, $PY, $ldif, the ds_*
# helpers and upgrade-cases.sh's config_set; $KDF_CLI is the kdfhash of the
# build, as make check-ds sets it).
#
# The users live in ou=wrap, the tool's base here, so that the other cases'
# users keep their values.  Their values are made by 389-ds itself: one user
# per scheme of its own that the core reads (passwordStorageScheme set to
# it, then a clear password added and changed, so that passwordHistory
# holds the first), one at the target, one of a scheme the core refuses
# ({MD5}), a locked one (nsAccountLock) and one whose password must change
# (added under passwordMustChange).  Asserted:
#   - every weak value is wrapped on supplier 1 and, replicated, on
#     supplier 2, its history too; no old value is left in userPassword or
#     passwordHistory on either; the summary counts what was kept, refused;
#   - the password policy's state of every user is as it was (the history's
#     count and times, passwordExpirationTime, pwdUpdateTime, pwdReset)
#     with passwordHistory, passwordMustChange and expiration on;
#   - a wrong password gets 49 on both suppliers; the right one binds on
#     supplier 2, which re-encodes the value to {ARGON2} at the target
#     (389-ds's own re-encode: KDF-WRAPPED is never the configured name),
#     and that replicates back;
#   - a wrapped history value still refuses its password at a change;
#   - the locked user stays locked; cn=Directory Manager and the
#     replication manager (cn=config, also as a base) are never touched;
#   - --dry-run writes nothing; a rerun wraps nothing;
#   - a value changed between the search and its swap is counted as changed
#     meanwhile and left as the change made it;
#   - kill -9 in the middle of a run leaves every value old or wrapped,
#     never lost, and a rerun finishes.

dswrap=$here/../../tools/kdfhash-ds-wrap
[ -n "${KDF_CLI:-}" ] && [ -x "$KDF_CLI" ] || die "KDF_CLI names no kdfhash (make check-ds sets it)"
wbase="ou=wrap,$DS_SUFFIX"
sock=$(printf '%s' "$DS_ROOT/s1.socket" | sed 's|/|%2F|g')
# wrap_run ARGS...: the tool on supplier 1 over LDAPI as root (autobind);
# stdout in wrap.out, stderr in wrap.err, exit status in $wrc.
wrap_run() {
    KDFHASH_DS_LDIF=$ldif $PY "$dswrap" -H "ldapi://$sock" --kdfhash "$KDF_CLI" --jobs 2 "$@" \
        >"$DS_ROOT/wrap.out" 2>"$DS_ROOT/wrap.err"
    wrc=$?
}
said_w() { grep -qx -- "$1" "$DS_ROOT/wrap.out"; }
wdn() { echo "uid=$1,$wbase"; }
wadd() { # wadd UID PASSWORD|{HASH}
    printf 'dn: %s\nobjectClass: inetOrgPerson\nuid: %s\ncn: %s\nsn: %s\nuserPassword: %s\n' \
        "$(wdn "$1")" "$1" "$1" "$1" "$2" | ds_add "$P1"
}
wset() { # wset UID PASSWORD: an administrator's reset
    printf 'dn: %s\nchangetype: modify\nreplace: userPassword\nuserPassword: %s\n' \
        "$(wdn "$1")" "$2" | ds_modify "$P1"
}
# wvals PORT UID ATTR: every value of ATTR, one per line, sorted.
wvals() {
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "$(wdn "$2")" -s base "$3" 2>/dev/null |
        while read -r attr val; do
            case "$attr" in
            "$3":) printf '%s\n' "$val" ;;
            "$3"::) printf '%s' "$val" | base64 -d && echo ;;
            esac
        done | sort
}
wpw() { wvals "$1" "$2" userPassword; }
wbind() { # wbind PORT UID PASSWORD: ldapwhoami's status, its output in bind.out
    ldapwhoami -x -H "$(ds_url "$1")" -D "$(wdn "$2")" -w "$3" >"$DS_ROOT/bind.out" 2>&1
}
wbind_ok() { wbind "$@" && grep -qi "^dn: $(wdn "$2")" "$DS_ROOT/bind.out"; }
wbind_49() {
    wbind "$@"
    [ $? -eq 49 ] && grep -q "Invalid credentials (49)" "$DS_ROOT/bind.out"
}
# wstate UID: the password policy's state on supplier 1, one line per item
# (passwordHistory as its count and its values' times).
wstate() {
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$P1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "$(wdn "$1")" -s base passwordExpirationTime pwdUpdateTime pwdReset \
        passwordAllowChangeTime passwordGraceUserTime passwordHistory 2>/dev/null |
        awk -F': ' 'tolower($1) == "passwordhistory" || tolower($1) == "passwordhistory:" {
                        n++; next }
                    $1 != "dn" && NF { print }
                    END { print "passwordHistory count: " n + 0 }' | sort
    wvals "$P1" "$1" passwordHistory | cut -c1-15
}
wrap_wait() { # wrap_wait UID: until supplier 2 holds supplier 1's values (30 s)
    _i=0
    while [ $_i -lt 60 ]; do
        [ "$(wpw "$P2" "$1")" = "$(wpw "$P1" "$1")" ] &&
            [ "$(wvals "$P2" "$1" passwordHistory)" = "$(wvals "$P1" "$1" passwordHistory)" ] &&
            return 0
        sleep 0.5
        _i=$((_i + 1))
    done
    return 1
}
only_prefix() { # only_prefix PORT UID PREFIX: one value, and it starts with PREFIX
    _v=$(wpw "$1" "$2")
    [ "$(printf '%s\n' "$_v" | grep -c .)" = 1 ] && has_prefix "$_v" "$3"
}

# Its users may change their own password (the history's case below).
printf 'dn: %s\nobjectClass: organizationalUnit\nou: wrap\naci: %s\n' "$wbase" \
    '(targetattr="userPassword")(version 3.0; acl "wrap: self"; allow (write) userdn="ldap:///self";)' |
    ds_add "$P1" || die "ou=wrap"
config_set "$P1" passwordHistory on && config_set "$P1" passwordInHistory 4 &&
    config_set "$P1" passwordExp on && config_set "$P1" passwordMaxAge 8640000 &&
    config_set "$P1" passwordTrackUpdateTime on || die "password policy for the wrap"

# --- values made by 389-ds: SCHEME and how it spells its values ---
: >"$DS_ROOT/wrap.users"
i=0
while read -r scheme spelled; do
    if ! ds_set_scheme "$P1" "$scheme" 2>/dev/null; then
        echo "# 389-ds has no $scheme here: not tried"
        continue
    fi
    u=wrap$i
    wadd $u "Wrap-Old-$i" && wset $u "Wrap-Secret-$i" || die "add $u ($scheme)"
    v=$(wpw "$P1" $u)
    check "$u's value is made by 389-ds's $scheme" has_prefix "$v" "$spelled"
    echo "$u $i $scheme" >>"$DS_ROOT/wrap.users"
    i=$((i + 1))
done <<EOF
SSHA {SSHA}
SSHA256 {SSHA256}
SSHA512 {SSHA512}
CRYPT-MD5 {crypt}\$1\$
CRYPT-SHA512 {crypt}\$6\$
PBKDF2-SHA256 {PBKDF2-SHA256}
PBKDF2-SHA512 {PBKDF2-SHA512}
EOF
nweak=$(wc -l <"$DS_ROOT/wrap.users")
check "at least 5 of 389-ds's schemes made a value ($nweak)" test "$nweak" -ge 5
ds_set_scheme "$P1" MD5 && wadd wrapmd5 'Wrap-Md5-1' || die "add wrapmd5"
ds_set_scheme "$P1" SSHA512 && wadd wraplock 'Wrap-Lock-1' || die "add wraplock"
printf 'dn: %s\nchangetype: modify\nadd: nsAccountLock\nnsAccountLock: true\n' \
    "$(wdn wraplock)" | ds_modify "$P1" || die "lock wraplock"
config_set "$P1" passwordMustChange on && wadd wrapmc 'Wrap-Must-1' || die "add wrapmc"
ds_set_scheme "$P1" ARGON2 && wadd wrapcur 'Wrap-Current-1' || die "add wrapcur"
check "wrapcur's value is at the target" has_prefix "$(wpw "$P1" wrapcur)" "$target_prefix"
# What each user's wrap must leave as it is; passwordMustChange is on, so a
# change of password by the administrator would be a reset.
for u in $(cut -d' ' -f1 "$DS_ROOT/wrap.users") wraplock wrapmc wrapcur wrapmd5; do
    wrap_wait $u || die "$u did not replicate"
    wpw "$P1" $u >"$DS_ROOT/old.$u"
    wvals "$P1" $u passwordHistory | cut -c16- >>"$DS_ROOT/old.$u"
    wstate $u >"$DS_ROOT/state.$u"
done
check "the weak users have a history to wrap" test -n "$(wvals "$P1" wrap0 passwordHistory)"
check "wrapmc's password must change (its state to keep)" \
    grep -q '^passwordExpirationTime: 19700101000000Z' "$DS_ROOT/state.wrapmc"
rm1=$(ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$P1")" -D "$DS_DM" -w "$DS_DMPW" \
    -b "$DS_REPLDN" -s base userPassword 2>/dev/null)
rootpw=$(grep -i '^nsslapd-rootpw:' /etc/dirsrv/slapd-s1/dse.ldif)
nold=$(cat "$DS_ROOT"/old.wrap[0-9]* "$DS_ROOT/old.wraplock" "$DS_ROOT/old.wrapmc" | grep -c .)

# --- --dry-run: counts, writes nothing ---
wrap_run -b "$wbase" --dry-run
check "dry run: exit 0 ($wrc: $(cat "$DS_ROOT/wrap.err"))" test "$wrc" = 0
check "dry run: would wrap every weak value and history value ($nold)" said_w "would wrap: $nold"
check "dry run: nothing written" test "$(wpw "$P1" wrap0)" = "$(head -1 "$DS_ROOT/old.wrap0")"

# --- the run ---
wrap_run -b "$wbase"
sed 's/^/# /' "$DS_ROOT/wrap.out"
check "wrap: exit 0 ($wrc: $(cat "$DS_ROOT/wrap.err"))" test "$wrc" = 0
check "wrap: $nold values wrapped" said_w "wrapped: $nold"
check "wrap: the one at the target kept as current" said_w "kept current: 1"
check "wrap: {MD5} refused by its reason" grep -q '^refused ({MD5}[^)]*): 1$' "$DS_ROOT/wrap.out"
check "wrap: nothing changed meanwhile, no error" sh -c "grep -qx 'changed meanwhile: 0' '$DS_ROOT/wrap.out' &&
    grep -qx 'errors: 0' '$DS_ROOT/wrap.out'"
# all_wrapped VALUES: every line (after a history value's time) is a wrap.
all_wrapped() { [ -n "$1" ] && ! printf '%s\n' "$1" | sed 's/^[0-9]*Z//' | grep -qv '^{KDF-WRAPPED}\$kdfw\$'; }
for u in $(cut -d' ' -f1 "$DS_ROOT/wrap.users") wraplock wrapmc; do
    check "$u: one value, wrapped on supplier 1" only_prefix "$P1" $u '{KDF-WRAPPED}$kdfw$'
    case $u in
    wrap[0-9]*) check "$u: its history wrapped" all_wrapped "$(wvals "$P1" $u passwordHistory)" ;;
    esac
    check "$u: replicated to supplier 2" wrap_wait $u
    check "$u: the policy's state as it was" test "$(wstate $u)" = "$(cat "$DS_ROOT/state.$u")"
done
check "wrapcur untouched" test "$(wpw "$P1" wrapcur)" = "$(cat "$DS_ROOT/old.wrapcur")"
check "wrapmd5 untouched" test "$(wpw "$P1" wrapmd5)" = "$(cat "$DS_ROOT/old.wrapmd5")"
# No old value string, whole or its body after {NAME}, anywhere in either
# supplier's userPassword or passwordHistory.
for p in "$P1" "$P2"; do
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$p")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "$wbase" userPassword passwordHistory 2>/dev/null |
        while read -r attr val; do
            case "$attr" in
            *::) printf '%s' "$val" | base64 -d && echo ;;
            *:) printf '%s\n' "$val" ;;
            esac
        done >"$DS_ROOT/dump.$p"
done
left=0
for u in $(cut -d' ' -f1 "$DS_ROOT/wrap.users") wraplock wrapmc; do
    while read -r v; do
        [ -n "$v" ] || continue
        for p in "$P1" "$P2"; do
            grep -qF -- "${v#*\}}" "$DS_ROOT/dump.$p" && left=$((left + 1))
        done
    done <"$DS_ROOT/old.$u"
done
check "no old value (nor its body) left in either supplier's userPassword or passwordHistory" \
    test "$left" = 0
check "wraplock is still locked" sh -c "ldapsearch -x -LLL -H '$(ds_url "$P1")' -D '$DS_DM' \
    -w '$DS_DMPW' -b '$(wdn wraplock)' -s base nsAccountLock | grep -qi '^nsAccountLock: true'"
wbind "$P1" wraplock 'Wrap-Lock-1'
check "wraplock's right password is refused as inactivated ($?)" grep -qi inactivated "$DS_ROOT/bind.out"
check "the replication manager untouched" test "$(ldapsearch -x -LLL -o ldif-wrap=no \
    -H "$(ds_url "$P1")" -D "$DS_DM" -w "$DS_DMPW" -b "$DS_REPLDN" -s base userPassword \
    2>/dev/null)" = "$rm1"
check "cn=Directory Manager's nsslapd-rootpw untouched" \
    test "$(grep -i '^nsslapd-rootpw:' /etc/dirsrv/slapd-s1/dse.ldif)" = "$rootpw"

# --- binds: a wrong password fails, the right one unwraps ---
while read -r u i scheme; do
    check "$u ($scheme, wrapped): a wrong password gets 49 on supplier 1" \
        wbind_49 "$P1" $u "Wrap-Secret-${i}x"
    check "$u: a wrong password gets 49 on supplier 2" wbind_49 "$P2" $u "Wrap-Old-$i"
    check "$u: the right password binds on supplier 2" wbind_ok "$P2" $u "Wrap-Secret-$i"
    _w=0
    until only_prefix "$P2" $u "$target_prefix" || [ $_w -ge 40 ]; do
        sleep 0.25
        _w=$((_w + 1))
    done
    check "$u: supplier 2 re-encoded it to {ARGON2} at the target" \
        only_prefix "$P2" $u "$target_prefix"
    check "$u: the re-encode replicates to supplier 1" wrap_wait $u
    check "$u: and binds there" wbind_ok "$P1" $u "Wrap-Secret-$i"
done <"$DS_ROOT/wrap.users"
# The history's wraps still refuse a password used before (KDF-WRAPPED's
# compare), when the user changes the password.
printf 'dn: %s\nchangetype: modify\nreplace: userPassword\nuserPassword: Wrap-Old-0\n' "$(wdn wrap0)" |
    ldapmodify -x -H "$(ds_url "$P1")" -D "$(wdn wrap0)" -w Wrap-Secret-0 >"$DS_ROOT/pwchange.out" 2>&1
check "wrap0 cannot take back a password of its wrapped history ($?)" \
    grep -qi 'password in history' "$DS_ROOT/pwchange.out"
printf 'dn: %s\nchangetype: modify\nreplace: userPassword\nuserPassword: Wrap-New-0\n' "$(wdn wrap0)" |
    ldapmodify -x -H "$(ds_url "$P1")" -D "$(wdn wrap0)" -w Wrap-Secret-0 >"$DS_ROOT/pwchange.out" 2>&1
check "but may take a new one ($?: $(tr '\n' ' ' <"$DS_ROOT/pwchange.out"))" wbind_ok "$P1" wrap0 Wrap-New-0
check "wrapmc's policy state kept through the wrap and no bind" \
    test "$(wstate wrapmc)" = "$(cat "$DS_ROOT/state.wrapmc")"
config_set "$P1" passwordMustChange off || die "passwordMustChange off"

# --- a rerun wraps nothing; cn=config as the base touches nothing ---
wrap_run -b "$wbase"
sed 's/^/# rerun: /' "$DS_ROOT/wrap.out"
check "rerun: exit 0, nothing wrapped, the wraps kept" sh -c "[ $wrc = 0 ] &&
    grep -qx 'wrapped: 0' '$DS_ROOT/wrap.out' && grep -q '^kept wrapped: [1-9]' '$DS_ROOT/wrap.out'"
wrap_run -b cn=config
check "cn=config as the base: nothing wrapped, the entries skipped" sh -c "[ $wrc = 0 ] &&
    grep -qx 'wrapped: 0' '$DS_ROOT/wrap.out' &&
    grep -q '^skipped entries (root DN, replication managers): [1-9]' '$DS_ROOT/wrap.out'"
check "the replication manager still untouched" test "$(ldapsearch -x -LLL -o ldif-wrap=no \
    -H "$(ds_url "$P1")" -D "$DS_DM" -w "$DS_DMPW" -b "$DS_REPLDN" -s base userPassword \
    2>/dev/null)" = "$rm1"
printf '%s' "$DS_DMPW" >"$DS_ROOT/dm.pw"
KDFHASH_DS_LDIF=$ldif $PY "$dswrap" -H "$(ds_url "$P1")" -D "$DS_DM" -y "$DS_ROOT/dm.pw" \
    -b "$wbase" --kdfhash "$KDF_CLI" --dry-run >"$DS_ROOT/wrap.out" 2>&1
check "a simple bind with -D -y works too ($?)" said_w "would wrap: 0"

# --- a value changed between the search and its swap ---
ds_set_scheme "$P1" SSHA512 && wadd wrapchg 'Wrap-Chg-1' || die "add wrapchg"
ds_set_scheme "$P1" ARGON2 || die "ARGON2 again"
# A kdfhash that starts only when told: the search is done by then.
cat >"$DS_ROOT/slow-kdfhash" <<EOF
#!/bin/sh
touch "$DS_ROOT/slow.started"
while [ ! -f "$DS_ROOT/slow.go" ]; do sleep 0.1; done
exec "$KDF_CLI" "\$@"
EOF
chmod 755 "$DS_ROOT/slow-kdfhash"
rm -f "$DS_ROOT/slow.started" "$DS_ROOT/slow.go"
KDFHASH_DS_LDIF=$ldif $PY "$dswrap" -H "ldapi://$sock" --kdfhash "$DS_ROOT/slow-kdfhash" \
    -b "$wbase" --history keep >"$DS_ROOT/wrap.out" 2>"$DS_ROOT/wrap.err" &
wpid=$!
_i=0
while [ ! -f "$DS_ROOT/slow.started" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
wset wrapchg 'Wrap-Chg-2' || notok "reset wrapchg while the tool waits"
changed=$(wpw "$P1" wrapchg)
touch "$DS_ROOT/slow.go"
wait $wpid
wrc=$?
check "changed meanwhile: exit 0 ($wrc: $(cat "$DS_ROOT/wrap.err"))" test "$wrc" = 0
check "changed meanwhile: counted" said_w "changed meanwhile: 1"
check "changed meanwhile: --history keep said" \
    grep -q '^passwordHistory kept as it is (--history keep): [1-9]' "$DS_ROOT/wrap.out"
check "changed meanwhile: the reset's value left as it is" test "$(wpw "$P1" wrapchg)" = "$changed"
check "changed meanwhile: the reset's password binds" wbind_ok "$P1" wrapchg 'Wrap-Chg-2'

# --- kill -9 in the middle of a run; the rerun finishes ---
ds_set_scheme "$P1" SSHA512 || die "SSHA512 for the kill"
: >"$DS_ROOT/kill.ldif"
for i in $(seq 1 40); do
    printf 'dn: %s\nobjectClass: inetOrgPerson\nuid: wk%d\ncn: k\nsn: k\nuserPassword: Wrap-Kill-%d\n\n' \
        "$(wdn wk$i)" $i $i >>"$DS_ROOT/kill.ldif"
done
ds_add "$P1" <"$DS_ROOT/kill.ldif" || die "add the kill users"
ds_set_scheme "$P1" ARGON2 || die "ARGON2 after the kill users"
for i in $(seq 1 40); do wpw "$P1" wk$i; done >"$DS_ROOT/kill.before"
nwrapped() { # the kill users whose value is wrapped on supplier 1
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$P1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "$wbase" '(uid=wk*)' userPassword 2>/dev/null | while read -r attr v; do
            case "$attr" in
            userPassword::) printf '%s' "$v" | base64 -d && echo ;;
            userPassword:) printf '%s\n' "$v" ;;
            esac
        done | grep -c '^{KDF-WRAPPED}'
}
KDFHASH_DS_LDIF=$ldif $PY "$dswrap" -H "ldapi://$sock" --kdfhash "$KDF_CLI" --jobs 1 --batch 1 \
    -b "$wbase" >/dev/null 2>&1 &
wpid=$!
_i=0
while [ "$(nwrapped)" -lt 3 ] && [ $_i -lt 300 ]; do sleep 0.05; _i=$((_i + 1)); done
kill -9 $wpid
wait $wpid 2>/dev/null
sleep 1 # its kdfhash ends at its next write
mid=$(nwrapped)
echo "# kill -9 after $mid of 40 values wrapped"
check "kill -9 came in the middle ($mid of 40 wrapped)" sh -c "[ $mid -ge 3 ] && [ $mid -lt 40 ]"
bad=0
for i in $(seq 1 40); do
    v=$(wpw "$P1" wk$i)
    if [ "$(printf '%s\n' "$v" | grep -c .)" != 1 ]; then
        bad=$((bad + 1))
    elif ! has_prefix "$v" '{KDF-WRAPPED}$kdfw$' && ! grep -qxF -- "$v" "$DS_ROOT/kill.before"; then
        bad=$((bad + 1))
    fi
done
check "after kill -9 every value is its old one or wrapped, one each" test "$bad" = 0
wrap_run -b "$wbase" --history keep
check "the rerun finishes: exit 0 ($wrc)" test "$wrc" = 0
check "the rerun wrapped the rest ($((40 - mid)))" said_w "wrapped: $((40 - mid))"
check "every kill user wrapped now" test "$(nwrapped)" = 40
check "a kill user binds" wbind_ok "$P1" wk40 'Wrap-Kill-40'

# --- what it said ---
check "no password or wrapped value in the logs" \
    sh -c "! grep -rqF -e Wrap- -e '\$kdfw\$' /var/log/dirsrv"

# Back as the other cases found it: no value of ours left in ou=wrap.
for a in passwordExp passwordHistory passwordTrackUpdateTime; do
    config_set "$P1" $a off
done
ldapdelete -x -r -H "$(ds_url "$P1")" -D "$DS_DM" -w "$DS_DMPW" "$wbase" || die "delete ou=wrap"
