# SPDX-License-Identifier: BSD-3-Clause
#
# rollback-cases.sh - the way back, sourced by test_ds389.sh near its end
# (both suppliers on passwordStorageScheme ARGON2, users of every scheme):
#   (a) replication binds leave the replication manager's value in its
#       scheme, while a user under the suffix still moves;
#   (c) the package's removal guard, with the plugin's entries gone from
#       cn=config as it reads it but values left: running and stopped;
#   (b) 389-ds-kdfhash(8)'s ROLLBACK, its commands taken from the .scd as
#       they are written, on both suppliers; replication then works both
#       ways and no value of the plugin's schemes is left anywhere;
#   (d) kdfhash-ds-check calls a supplier without the plugin CRITICAL when
#       its partner has it, and when it holds a value of the plugin's
#       schemes, whose stored string then binds there as the password.

page=$here/../../doc/389-ds-kdfhash.8.scd
# The package's files as installed: values and instances beside the LDIF.
share=$DS_ROOT/share
mkdir -p "$share"
cp "$here/../../tools/kdfhash-ds-values" "$share/values"
cp "$here/../../tools/kdfhash-ds-instances" "$share/instances"
cp "$ldif" "$share/kdfhash-schemes.ldif"
chmod 755 "$share/values" "$share/instances"
prerm=$here/../../packaging/debian/389-ds-kdfhash.prerm

# stored_dn PORT DN: the userPassword of any entry, as stored.
stored_dn() {
    ldapsearch -x -LLL -o ldif-wrap=no -H "$(ds_url "$1")" -D "$DS_DM" -w "$DS_DMPW" \
        -b "$2" -s base userPassword 2>/dev/null |
        sed -n 's/^userPassword:: //p' | base64 -d 2>/dev/null
}
# any_ours: the lines of every value of the plugin's schemes, both servers.
any_ours() { "$share/values" --ours s1 s2; }

# --- (a) the replication manager keeps its scheme ---
rm1=$(stored_dn "$P1" "$DS_REPLDN")
rm2=$(stored_dn "$P2" "$DS_REPLDN")
echo "# replication manager before: ${rm1%%\}*}} on s1, ${rm2%%\}*}} on s2"
# Both restarts make each supplier's agreement bind to the other again, under
# passwordStorageScheme ARGON2 on both.
ds_restart s1 && ds_restart s2 || die "restart both suppliers"
add_user "$P1" rep1 'Rep-Secret-1' || die "add rep1"
check "(a) an add on supplier 1 replicates after the restarts" \
    ds_wait_value "$P2" rep1 "$(ds_stored "$P1" rep1)"
add_user "$P2" rep2 'Rep-Secret-2' || die "add rep2"
check "(a) an add on supplier 2 replicates after the restarts" \
    ds_wait_value "$P1" rep2 "$(ds_stored "$P2" rep2)"
[ -n "$rm1" ] && [ -n "$rm2" ] || die "no replication manager's value to read"
check "(a) replication binds left the replication manager's value on supplier 1" \
    test "$(stored_dn "$P1" "$DS_REPLDN")" = "$rm1"
check "(a) replication binds left the replication manager's value on supplier 2" \
    test "$(stored_dn "$P2" "$DS_REPLDN")" = "$rm2"
check "(a) neither replication manager's value is {ARGON2}" \
    sh -c 'case "$1$2" in *"{ARGON2}"*) exit 1 ;; esac' - \
    "$(stored_dn "$P1" "$DS_REPLDN")" "$(stored_dn "$P2" "$DS_REPLDN")"
check "(a) the error log says the replication manager keeps its scheme" \
    grep -qh "cn=replication manager,cn=config keeps its value's scheme at bind" \
    /var/log/dirsrv/slapd-s1/errors /var/log/dirsrv/slapd-s2/errors
ssha=$($PY -c "from passlib.hash import ldap_salted_sha512 as h; print(h.hash('Mover-Secret-1'))")
add_user "$P1" mover "$ssha" || die "add mover"
bind_ok "$P1" mover 'Mover-Secret-1' || true
check "(a) a user under the suffix still moves to {ARGON2} at bind" \
    has_prefix "$(ds_stored "$P1" mover)" "$target_prefix"
# What an earlier version left (it re-encoded the replication manager at
# bind), made here by an encode outside a bind, which is not refused.
printf 'dn: %s\nchangetype: modify\nreplace: userPassword\nuserPassword: %s\n' \
    "$DS_REPLDN" "$DS_REPLPW" | ds_modify "$P2" || die "set s2's replication manager"
check "(a) an encode outside a bind is not refused: s2's replication manager is {ARGON2}" \
    has_prefix "$(stored_dn "$P2" "$DS_REPLDN")" '{ARGON2}'

# --- (c) the removal guard: entries gone from cn=config, values left ---
# A view of supplier 2 as the guard reads it once the plugin's entries are
# deleted: its dse.ldif without them, the same database, pid file and socket.
mkdir -p "$DS_ROOT/guard/slapd-s2"
awk 'BEGIN { RS = ""; ORS = "\n\n" }
    { x = $0; gsub(/\n /, "", x) } x !~ /nsslapd-pluginPath: [^\n]*libkdfhash-pwdstorage-plugin/' \
    /etc/dirsrv/slapd-s2/dse.ldif >"$DS_ROOT/guard/slapd-s2/dse.ldif"
guard() { KDFHASH_DIRSRV_ETC=$DS_ROOT/guard KDFHASH_DS_SHARE=$share sh "$prerm" remove \
    >"$DS_ROOT/guard.out" 2>&1; }
check "(c) without the plugin's entries the old guard (instances) sees nothing" \
    test -z "$(KDFHASH_DIRSRV_ETC=$DS_ROOT/guard "$share/instances")"
# Supplier 1 stopped, so that nothing replicated changes s2's count while
# it is compared (the cases before leave changes on their way).
dsctl s1 stop >/dev/null 2>&1 || die "stop s1"
n2=$("$share/values" --ours s2 | awk -F '\t' '$3 == "ARGON2" && $2 == "dc=example,dc=com" { print $4 }')
guard
rc=$?
cp "$DS_ROOT/guard.out" "$DS_ROOT/guard-running.out"
check "(c) the removal is refused while s2 (running) holds $n2 {ARGON2} values" \
    sh -c "[ $rc = 1 ] && [ -n '$n2' ] && grep -q 's2	dc=example,dc=com	ARGON2	$n2\$' '$DS_ROOT/guard.out' &&
           grep -q 'ROLLBACK' '$DS_ROOT/guard.out'"
dsctl s2 stop >/dev/null 2>&1 || die "stop s2"
guard
rc=$?
cp "$DS_ROOT/guard.out" "$DS_ROOT/guard-stopped.out"
check "(c) and while s2 is stopped (dbscan), with the same count" \
    sh -c "[ $rc = 1 ] && grep -q 's2	dc=example,dc=com	ARGON2	$n2\$' '$DS_ROOT/guard.out'"
KDFHASH_DIRSRV_ETC=$DS_ROOT/guard KDFHASH_DS_SHARE=$share sh "$prerm" upgrade >/dev/null 2>&1
check "(c) an upgrade is not refused" test $? = 0
ds_restart s2 || die "start s2 again"
ds_restart s1 || die "start s1 again"

# --- (b) ROLLBACK, as the page says it, on both suppliers ---
# man_step NAME INSTANCE: the block after "; rollback-step: NAME", for this
# test's instance, socket, share directory, suffix and replication password.
man_step() {
    _sock=ldapi://$(printf '%s' "$DS_ROOT/$2.socket" | sed 's|/|%2F|g')
    awk -v n="; rollback-step: $1" '$0 == n { f = 1; next }
        f && /^```/ { if (inb) exit; inb = 1; next } f && inb { print }' "$page" |
        sed -e 's/\\\\/\\/g' -e "s|ldapi://%2frun%2fslapd-INSTANCE.socket|$_sock|g" \
            -e "s|/usr/share/389-ds-kdfhash/|$share/|g" -e "s/INSTANCE/$2/g" \
            -e "s/SUFFIX/$DS_SUFFIX/g" -e "s/REPLICATION-PASSWORD/$DS_REPLPW/g"
}
# run_step NAME [TIMEOUT [STATUS]]: the step on s1, then on s2, each to
# end with STATUS (0); its output in $DS_ROOT/step-NAME.out; fails when the
# page has no such step.
run_step() {
    _ok=0
    : >"$DS_ROOT/step-$1.out"
    for _i in s1 s2; do
        man_step "$1" "$_i" >"$DS_ROOT/step-$1-$_i.sh"
        [ -s "$DS_ROOT/step-$1-$_i.sh" ] || { echo "# no step $1 in the page"; return 1; }
        timeout "${2:-120}" sh "$DS_ROOT/step-$1-$_i.sh" >>"$DS_ROOT/step-$1.out" 2>&1
        _rc=$?
        [ $_rc = "${3:-0}" ] ||
            { _ok=1; echo "# step $1 on $_i: status $_rc"; sed 's/^/#   /' "$DS_ROOT/step-$1.out"; }
    done
    return $_ok
}
check "(b) ROLLBACK step 1 (scheme back) runs on both" run_step scheme
check "(b) alice binds after the scheme went back" bind_ok "$P1" alice 'Alice-Secret-1'
back=$(ds_stored "$P1" alice)
check "(b) alice is moved back to 389-ds's {PBKDF2-SHA512}" has_prefix "$back" '{PBKDF2-SHA512}'
check "(b) the rolled-back value replicates" ds_wait_value "$P2" alice "$back"
# Exit status 1: values of the plugin's schemes are left.
check "(b) ROLLBACK step 2 (count) runs on both, status 1" run_step count 120 1
check "(b) the count covers cn=config and the suffix of both" \
    sh -c "grep -q '^s1	cn=config	' '$DS_ROOT/step-count.out' &&
           grep -q '^s2	cn=config	' '$DS_ROOT/step-count.out' &&
           grep -q '^s2	dc=example,dc=com	ARGON2	' '$DS_ROOT/step-count.out'"
# The server's own re-encode at a replication bind may already have moved
# s2's replication manager to PBKDF2-SHA512 (a scheme of the server's own
# is no harm); what an earlier version left, made again just before step 3:
rmh=$(printf '%s' "$DS_REPLPW" | argon2 replsaltreplsalt -id -t 2 -m 14 -p 1 -e)
printf 'dn: %s\nchangetype: modify\nreplace: userPassword\nuserPassword: {ARGON2}%s\n' \
    "$DS_REPLDN" "$rmh" | ds_modify "$P2" || die "an {ARGON2} replication manager on s2"
check "(b) ROLLBACK step 3 (replication manager) runs on both" run_step replication-manager
check "(b) step 3 reset s2's replication manager" \
    grep -q 'modifying entry "cn=replication manager,cn=config"' "$DS_ROOT/step-replication-manager.out"
check "(b) s2's replication manager is back in a scheme of the server's own" \
    has_prefix "$(stored_dn "$P2" "$DS_REPLDN")" '{PBKDF2-SHA512}'
check "(b) ROLLBACK step 3 (reset the rest) runs on both" run_step reset
check "(b) ROLLBACK step 4 (wait) runs on both" run_step wait 180
check "(b) no value of the plugin's schemes is left before the entries go" \
    sh -c "[ -z \"\$1\" ]" - "$(any_ours)"
check "(b) ROLLBACK step 5 (delete) runs on both" run_step delete
check "(b) ROLLBACK step 5 (restart) runs on both" run_step restart
add_user "$P1" back1 'Back-Secret-1' || die "add back1 after the rollback"
check "(b) after the rollback an add on supplier 1 reaches supplier 2" \
    ds_wait_value "$P2" back1 "$(ds_stored "$P1" back1)"
add_user "$P2" back2 'Back-Secret-2' || die "add back2 after the rollback"
check "(b) after the rollback an add on supplier 2 reaches supplier 1" \
    ds_wait_value "$P1" back2 "$(ds_stored "$P2" back2)"
printf 'dn: uid=back1,ou=people,%s\nchangetype: modify\nreplace: userPassword\nuserPassword: Back-Secret-3\n' \
    "$DS_SUFFIX" | ds_modify "$P2" || die "modify back1 on s2"
check "(b) after the rollback a modify on supplier 2 reaches supplier 1" \
    ds_wait_value "$P1" back1 "$(ds_stored "$P2" back1)"
check "(b) back1's new password binds on supplier 1" bind_ok "$P1" back1 'Back-Secret-3'
# Step 6 after a change each way: an agreement's status is its last session's.
check "(b) ROLLBACK step 6 (check) runs on both" run_step check
check "(b) no agreement reports an error after the rollback" \
    sh -c "grep -qi 'nsds5replicaLastUpdateStatus' '$DS_ROOT/step-check.out' &&
           ! grep -i 'nsds5replicaLastUpdateStatus' '$DS_ROOT/step-check.out' | grep -vq 'Error (0)'"
"$share/values" s1 s2 >"$DS_ROOT/values-after.out" 2>&1
check "(b) no {ARGON2}, {BCRYPT} or {KDF-PBKDF2} value in any backend or cn=config of either" \
    sh -c "grep -q '	cn=config	' '$DS_ROOT/values-after.out' &&
           ! grep -q '	\(ARGON2\|BCRYPT\|KDF-PBKDF2\)	' '$DS_ROOT/values-after.out'"
check "(b) no instance names the plugin any more" test -z "$("$share/instances")"
KDFHASH_DS_SHARE=$share sh "$prerm" remove >"$DS_ROOT/guard.out" 2>&1
check "(c) after the rollback the removal goes on" test $? = 0

# --- (d) a supplier without the plugin beside one that has it ---
ds_register_plugin "$P1" "$ldif" "$DS_ROOT/lib/libkdfhash-pwdstorage-plugin.so" \
    "$DS_ROOT/kdfhash.conf" && ds_restart s1 || die "the plugin again on s1"
ds_check
rc=$?
check "(d) ds-check: supplier 2 without the plugin, replicating with supplier 1, is CRITICAL" \
    sh -c "[ $rc = 3 ] && grep -q '^CRITICAL: ldap://127.0.0.1:$P2 has no plugin entries .* replicates with ldap://127.0.0.1:$P1' '$DS_ROOT/check.out'"
# A value of the plugin's schemes that reaches supplier 2 through
# replication: the other reason, and the danger itself (the stored string
# binds there as the password, which is why the guards exist).
leak=$(old_argon2 'Leak-Secret-1' leak)
add_user "$P1" leak "$leak" || die "add leak on s1"
ds_wait_value "$P2" leak "$leak" || die "leak did not replicate to s2"
ds_check
rc=$?
check "(d) ds-check: supplier 2 holding a replicated {ARGON2} value without the plugin is CRITICAL" \
    sh -c "[ $rc = 3 ] && grep -q '^CRITICAL: ldap://127.0.0.1:$P2 has no plugin entries .* but holds [1-9][0-9]* value(s)' '$DS_ROOT/check.out'"
check "(d) on supplier 2 without the plugin, the stored string itself binds" bind_ok "$P2" leak "$leak"
check "(d) and the password does not" bind_49 "$P2" leak 'Leak-Secret-1'
