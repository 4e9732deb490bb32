# SPDX-License-Identifier: BSD-3-Clause
#
# sssd-cases.sh - the chain to a client: SSSD (sssd-ldap, pam_sss,
# libnss-sss) on this machine against the two suppliers, sourced by
# test_ds389.sh while passwordStorageScheme is ARGON2.
#
# Every login of an SSSD client is a simple bind of the user to the
# directory, so the upgrade at bind works through it: a login through
# pam_sss re-encodes an outdated value and the change replicates; the next
# login works, a wrong password fails; with both servers stopped the
# offline cache logs in, and refuses a wrong password.  SSSD keeps that
# cache as its own SHA-512 crypt string: the case reads it from the cache
# database, since it is now the weakest copy of the password on a client.
#
# SSSD's configuration, state, logs and the PAM service live in the
# scratch tree, bound over /etc/sssd, /var/lib/sss, /var/log/sssd,
# /etc/pam.d and /etc/nsswitch.conf in this namespace only; /run is a
# fresh tmpfs here (sssd writes /run/sssd.pid), with 389-ds's own
# directories bound back.  The caller stops sssd (sssd_stop) on exit.

for p in sssd pamtester; do
    command -v $p >/dev/null 2>&1 ||
        die "$p not installed (apt-get install sssd-ldap libpam-sss libnss-sss pamtester)"
done
find /lib /usr/lib -path '*/security/pam_sss.so' 2>/dev/null | grep -q . ||
    die "pam_sss.so not installed (apt-get install libpam-sss)"

sss=$DS_ROOT/sss
mkdir -p "$sss/etc" "$sss/log" "$sss/pam.d" "$sss/run"
cp -a /var/lib/sss "$sss/lib"
find "$sss/lib" -type f -delete
mount --bind "$sss/etc" /etc/sssd && mount --bind "$sss/lib" /var/lib/sss &&
    mount --bind "$sss/log" /var/log/sssd && mount --bind "$sss/pam.d" /etc/pam.d ||
    die "could not bind SSSD's directories"
printf 'passwd: files sss\ngroup: files sss\nshadow: files\n' >"$sss/nsswitch.conf"
mount --bind "$sss/nsswitch.conf" /etc/nsswitch.conf || die "could not bind nsswitch.conf"
mount -t tmpfs -o mode=755 kdfhash-sssd-run /run && mkdir -p /run/dirsrv /run/lock/dirsrv &&
    mount --bind "$DS_ROOT/run" /run/dirsrv && mount --bind "$DS_ROOT/lock" /run/lock/dirsrv ||
    die "could not make a private /run"

cat >"$sss/etc/sssd.conf" <<EOC
[sssd]
config_file_version = 2
services = nss, pam
domains = kdf

[nss]

[pam]
offline_credentials_expiration = 0

[domain/kdf]
id_provider = ldap
auth_provider = ldap
ldap_uri = $(ds_url "$P1"), $(ds_url "$P2")
ldap_search_base = $DS_SUFFIX
ldap_schema = rfc2307
ldap_default_bind_dn = $DS_DM
ldap_default_authtok = $DS_DMPW
ldap_id_use_start_tls = false
ldap_auth_disable_tls_never_use_in_production = true
cache_credentials = true
entry_cache_timeout = 1
ldap_network_timeout = 2
ldap_opt_timeout = 4
offline_timeout = 2
EOC
chmod 600 "$sss/etc/sssd.conf"
printf 'auth required pam_sss.so\naccount required pam_permit.so\n' >"$sss/pam.d/kdfhash-sssd"

sssd -i -c /etc/sssd/sssd.conf --logger=files >"$sss/sssd.out" 2>&1 &
sssd_pid=$!
sssd_stop() {
    [ -n "${sssd_pid:-}" ] || return 0
    kill "$sssd_pid" 2>/dev/null
    wait "$sssd_pid" 2>/dev/null
    sssd_pid=
}
i=0
while [ $i -lt 40 ] && ! [ -S /var/lib/sss/pipes/private/pam ]; do
    sleep 0.25
    i=$((i + 1))
done
[ -S /var/lib/sss/pipes/private/pam ] || die "sssd did not start: $(tail -5 "$sss/sssd.out" /var/log/sssd/*.log 2>/dev/null)"

# login USER PASSWORD: pamtester through pam_sss
login() { printf '%s\n' "$2" | pamtester kdfhash-sssd "$1" authenticate >"$sss/login.out" 2>&1; }
printf 'dn: uid=sue,ou=people,%s\nobjectClass: inetOrgPerson\nobjectClass: posixAccount\nuid: sue\ncn: sue\nsn: sue\nuidNumber: 40001\ngidNumber: 40001\nhomeDirectory: /nonexistent\nuserPassword: %s\n' \
    "$DS_SUFFIX" "$(old_argon2 'Sue-Secret-1' sue)" | ds_add "$P1" || die "add sue"
ds_wait_value "$P2" sue "$(ds_stored "$P1" sue)" || die "sue did not replicate"
check "sssd resolves the directory's user (libnss-sss)" \
    sh -c 'getent passwd sue | grep -q "^sue:\*:40001:40001:"'
check "sue logs in through pam_sss with her outdated {ARGON2} value" login sue 'Sue-Secret-1'
check "that login re-encoded her value in the directory" wait_prefix "$P1" sue "$target_prefix"
check "and the new value replicates to supplier 2" ds_wait_value "$P2" sue "$(ds_stored "$P1" sue)"
check "the next login through pam_sss works" login sue 'Sue-Secret-1'
if login sue 'Sue-Secret-2'; then notok "a wrong password fails online"; else ok "a wrong password fails online"; fi

# Both servers stopped: the offline cache.
ds_quiet dsctl s1 stop && ds_quiet dsctl s2 stop || die "stop the servers"
login sue 'Sue-Secret-1' # the first attempt finds the servers gone
check "with both servers stopped the offline cache logs sue in" login sue 'Sue-Secret-1'
if login sue 'Sue-Secret-2'; then notok "offline, a wrong password fails"; else ok "offline, a wrong password fails"; fi
cached=$(strings /var/lib/sss/db/cache_kdf.ldb 2>/dev/null | grep -o '\$6\$[^$]*\$[./0-9A-Za-z]*' | head -1)
case $cached in
'$6$rounds='*) check "SSSD caches the password as SHA-512 crypt" true
    echo "# SSSD's cached password: SHA-512 crypt, ${cached#\$6\$rounds=} rounds" ;;
'$6$'*) check "SSSD caches the password as SHA-512 crypt" true
    echo "# SSSD's cached password: SHA-512 crypt at its default 5000 rounds (no rounds= field)" ;;
*) notok "SSSD caches the password as SHA-512 crypt" "found '$cached'" ;;
esac
sssd_stop
ds_restart s1 && ds_restart s2 || die "restart the servers"

# pam_kdfhash's offline cache instead of SSSD's (pam_kdfhash(8), OFFLINE
# CACHE): SSSD restarted with cache_credentials = false and an empty cache,
# and the man page's stack, control values as written, with the module
# from the build tree (KDF_PAM_MODULE and KDF_CLI, from the check-ds
# rule), its policy and cache in the scratch tree.
[ -f "${KDF_PAM_MODULE:-}" ] && [ -x "${KDF_CLI:-}" ] ||
    die "KDF_PAM_MODULE and KDF_CLI must name the built pam_kdfhash.so and kdfhash"
sed -i 's/^cache_credentials = true$/cache_credentials = false/' "$sss/etc/sssd.conf"
grep -q '^cache_credentials = false$' "$sss/etc/sssd.conf" || die "cache_credentials not set"
find "$sss/lib" -type f -delete
: >"$sss/kdfhash.conf"
kc="conf=$sss/kdfhash.conf cache_file=$sss/kdfhash/offline"
cat >"$sss/pam.d/kdfhash-sssd" <<EOP
auth [success=ok authinfo_unavail=1 auth_err=2 default=die] pam_sss.so forward_pass
auth [default=2] $KDF_PAM_MODULE cache=store $kc
auth [success=done default=die] $KDF_PAM_MODULE cache=validate try_first_pass $kc
auth [default=die] $KDF_PAM_MODULE cache=update $kc
account required pam_permit.so
EOP
sssd -i -c /etc/sssd/sssd.conf --logger=files >"$sss/sssd2.out" 2>&1 &
sssd_pid=$!
i=0
while [ $i -lt 40 ] && ! [ -S /var/lib/sss/pipes/private/pam ]; do
    sleep 0.25
    i=$((i + 1))
done
[ -S /var/lib/sss/pipes/private/pam ] || die "sssd did not start again: $(tail -5 "$sss/sssd2.out")"
# The servers were just restarted: wait for SSSD to find them (online).
i=0
while [ $i -lt 60 ] && ! getent passwd sue >/dev/null; do
    sleep 0.5
    i=$((i + 1))
done
check "sssd resolves sue again with an empty cache" sh -c 'getent passwd sue | grep -q "^sue:"'
offline=$sss/kdfhash/offline
# cache_line: sue's line is at the default target, dated today.
cache_line() {
    awk -F: -v d="$(($(date +%s) / 86400))" '$1 == "sue" && $3 == d &&
        index($2, "$argon2id$v=19$m=65536,t=3,p=4$") == 1 { f = 1 } END { exit !f }' "$offline"
}
cache_mode() { [ "$(stat -c %a:%u "$offline")" = 600:0 ] && [ "$(stat -c %a "${offline%/*}")" = 700 ]; }
no_sha512() { ! cat /var/lib/sss/db/* "$offline" 2>/dev/null | strings | grep -qF '$6$'; }
check "online, sue logs in through pam_sss and the module's store" login sue 'Sue-Secret-1'
check "the offline cache holds an \$argon2id\$ line for sue, dated today" cache_line
check "the cache is root's, mode 0600, in a 0700 directory" cache_mode
check "no \$6\$ copy of the password in SSSD's cache (cache_credentials = false) or the module's" no_sha512
if login sue 'Sue-Secret-2'; then notok "online, a wrong password fails"; else ok "online, a wrong password fails"; fi
check "and a typo online keeps the cached entry" grep -q '^sue:' "$offline"

ds_quiet dsctl s1 stop && ds_quiet dsctl s2 stop || die "stop the servers"
login sue 'Sue-Secret-1' # the first attempt finds the servers gone
check "with both servers stopped the module's cache logs sue in" login sue 'Sue-Secret-1'
if login sue 'Sue-Secret-2'; then notok "offline, a wrong password fails (module's cache)"; else
    ok "offline, a wrong password fails (module's cache)"; fi
if login nobody-here 'Sue-Secret-1'; then notok "offline, an unknown user fails"; else
    ok "offline, an unknown user fails"; fi
cp "$offline" "$sss/offline.kept"
sed -i 's/^\(sue:[^:]*\):[0-9]*$/\1:1/' "$offline"
if login sue 'Sue-Secret-1'; then notok "offline, an expired entry (day 1) is refused"; else
    ok "offline, an expired entry (day 1) is refused"; fi
cat "$sss/offline.kept" >"$offline"
check "and the same entry, dated today again, logs in" login sue 'Sue-Secret-1'
audit_ok() {
    "$KDF_CLI" audit --offline-cache --conf "$sss/kdfhash.conf" "$offline" >"$sss/audit.out" &&
        grep -q '^sue argon2id v=19,m=65536,t=3,p=4 ok age:0$' "$sss/audit.out" &&
        grep -q '^expired: 0$' "$sss/audit.out"
}
check "kdfhash audit --offline-cache reads the cache: sue ok, aged 0 days, none expired" audit_ok
sssd_stop
ds_restart s1 && ds_restart s2 || die "restart the servers"

