#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_pam_audit.sh - the audit record of each write of an entry
# (pam_module/audit_rec.c, pam_kdfhash(8) AUDIT RECORDS), through the real
# libpam (pamtester) and the real CLI, read back with ausearch and aureport:
#   - a login that upgrades an entry: one USER_MGMT record, op=kdfhash-upgrade,
#     acct, old and new scheme, hostname/addr/terminal from PAM_RHOST and
#     PAM_TTY, res=success, and no hash in it;
#   - a login of an entry at the target: no USER_MGMT record;
#   - a login whose write loses its compare-and-swap (the entry rewritten
#     just before the writer has the lock: tests/pam/audit_shim.so):
#     res=failed error=changed-meanwhile, the other writer's entry kept;
#   - upgrade=exec with a hook that fails: res=failed error=hook-failed via=hook;
#   - a password change: USER_CHAUTHTOK op=kdfhash-chauthtok, res=success;
#   - kdfhash wrap: USER_MGMT op=kdfhash-wrap, one record per entry.
# Where the kernel hands user records to a reader (audit on), they are read
# from its multicast group (tests/pam/audit_reader.py: no audit daemon is
# started, lanes running at once do not meet, the kernel's state is never
# changed).  Elsewhere, as on a machine whose audit is off, the stand-in:
# audit_shim.so copies each message libaudit sends to the kernel into a log
# in auditd's format; the test says which ran.  Root only (writes
# /etc/pam.d, in a private copy of /etc: tests/common/etc_ns.sh).
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
module="$top_builddir/pam_module/.libs/pam_kdfhash.so"
shim="$top_builddir/tests/pam/audit_shim.so"
reader="$top_srcdir/tests/pam/audit_reader.py"
K="$top_builddir/cli/kdfhash"
inc="$top_srcdir/tests/pam/pam_hashes.inc"
pw='S3cret-p4ss!'

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root to write /etc/pam.d and audit records (CI runs as root)"
    exit 77
fi
for c in pamtester ausearch aureport; do
    if ! command -v "$c" >/dev/null 2>&1; then
        echo "FAIL: $c not installed (Debian packages pamtester, auditd)"
        exit 1
    fi
done
if ! readelf -d "$module" 2>/dev/null | grep -q 'NEEDED.*libaudit'; then
    echo "SKIP: the module is built without libaudit (libaudit-dev): it writes no records"
    exit 77
fi
if nm -D "$module" 2>/dev/null | grep -q ' U __asan_init'; then
    echo "SKIP: a sanitizer build (pamtester is not instrumented); the plain build runs this test"
    exit 77
fi
[ -f "$shim" ] || { echo "FAIL: $shim not built"; exit 1; }

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_PAM_AUDIT_NS "$@"

hash_of() { sed -n "s/^PAM_HASH($1, \"\\(.*\\)\")\$/\\1/p" "$inc"; }
bc=$(hash_of bc2b)
a2=$(hash_of a2id_target)
[ -n "$bc" ] && [ -n "$a2" ] || { echo "FAIL: cannot read $inc"; exit 1; }
md5=$(/usr/bin/python3 -c 'import sys; from passlib.hash import md5_crypt; print(md5_crypt.hash(sys.argv[1]))' "$pw") ||
    { echo "FAIL: python3-passlib is needed"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdfpamaudit.XXXXXX") || exit 1
svc="kdfhash-audit-$$"
rpid=
trap '[ -n "$rpid" ] && kill "$rpid" 2>/dev/null; rm -rf "$tmp"; rm -f "/etc/pam.d/$svc" "/etc/pam.d/$svc-hook"; etc_ns_leave' EXIT
trap 'exit 1' INT TERM HUP
log=$tmp/audit.log
: > "$log"
# Names of this run alone: in the kernel's group, other lanes' records pass too.
t=$$
for u in alice bob carol dave erin frank; do eval "$u=$u$t"; done

# ---- which audit: the kernel's, or the stand-in -------------------------
preload=$shim
if why=$(/usr/bin/python3 "$reader" --probe 2>&1); then
    /usr/bin/python3 "$reader" "$log" "$tmp/ready" &
    rpid=$!
    i=0
    while [ ! -f "$tmp/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    [ -f "$tmp/ready" ] || { echo "FAIL: the audit reader did not start"; exit 1; }
    echo "audit path: the kernel's (records read from its netlink multicast group)"
else
    KDF_AUDIT_SHIM_LOG=$log
    export KDF_AUDIT_SHIM_LOG
    echo "audit path: STAND-IN, not the kernel: $why;"
    echo "    tests/pam/audit_shim.so copies each message libaudit sends to the kernel into $log"
fi

conf=$tmp/kdfhash.conf
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\n' > "$conf"
printf '%s:%s:19000:0:99999:7:::\n' root '*' "$alice" "$bc" "$bob" "$a2" "$carol" "$bc" \
    "$dave" "$bc" "$erin" "$bc" > "$tmp/shadow"
chmod 600 "$tmp/shadow"
args="shadow=$tmp/shadow conf=$conf"
cat > "/etc/pam.d/$svc" <<EOS
auth required $module $args
account required pam_permit.so
password required $module $args
EOS
cat > "/etc/pam.d/$svc-hook" <<EOS
auth required $module $args upgrade=exec:/bin/false
account required pam_permit.so
EOS

fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
login() { # service user: a right password through libpam
    printf '%s\n' "$pw" | LD_PRELOAD=$preload pamtester -I rhost=203.0.113.7 -I tty=pts/9 \
        "$1" "$2" authenticate >"$tmp/out" 2>&1 ||
        { bad "$2: pamtester failed"; sed 's/^/    /' "$tmp/out"; }
}
# The records of TYPE for user U (acct="U", as libaudit writes a plain name).
recs() { grep "^type=$1 " "$log" | grep -F "acct=\"$2\"" | grep 'op=kdfhash-'; }
# Wait until N such records are there: the kernel hands them to the reader
# a moment after the write.
wait_recs() { # type user n
    i=0
    while [ "$(recs "$1" "$2" | wc -l)" -lt "$3" ] && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
}
has() { # what record word...: every word in the record
    what=$1 rec=$(printf '%s' "$2" | tr "'" ' ')
    shift 2
    for w in "$@"; do
        case " $rec " in
        *" $w "*) ;;
        *) bad "$what: no '$w' in: $rec"; return ;;
        esac
    done
    ok "$what: $*"
}

# ---- an upgrade at login --------------------------------------------------
login "$svc" "$alice"
wait_recs USER_MGMT "$alice" 1
r=$(recs USER_MGMT "$alice")
if [ "$(printf '%s\n' "$r" | grep -c .)" = 1 ]; then ok "upgrade: one USER_MGMT record"; else
    bad "upgrade: $(printf '%s\n' "$r" | grep -c .) USER_MGMT records for $alice"; fi
has upgrade "$r" op=kdfhash-upgrade old-scheme=bcrypt new-scheme=argon2id \
    hostname=203.0.113.7 addr=203.0.113.7 terminal=pts/9 res=success
grep -q "^$alice:[\$]argon2id[\$]" "$tmp/shadow" && ok "upgrade: the entry was rewritten" ||
    bad "upgrade: $alice's entry was not rewritten"
# ausearch reads it, and aureport's account modifications report lists it.
if ausearch --input "$log" -m USER_MGMT -sv yes -i 2>/dev/null |
    grep "acct=$alice " | grep -q 'op=kdfhash-upgrade.*res=success'; then
    ok "ausearch -m USER_MGMT -sv yes -i finds the upgrade"
else bad "ausearch does not find the upgrade of $alice"; fi
if aureport --input "$log" -m -i 2>/dev/null | grep -q " $alice yes "; then
    ok "aureport -m lists the upgrade"
else bad "aureport -m does not list the upgrade of $alice"; fi

# ---- a login without an upgrade ------------------------------------------
login "$svc" "$bob"

# ---- a compare-and-swap lost ----------------------------------------------
sed "s|^$carol:[^:]*:|$carol:$a2:|" "$tmp/shadow" > "$tmp/shadow.race"
chmod 600 "$tmp/shadow.race"
KDF_AUDIT_SHIM_RACE_LOCK=$tmp/shadow.lock KDF_AUDIT_SHIM_RACE_FROM=$tmp/shadow.race \
    KDF_AUDIT_SHIM_RACE_TO=$tmp/shadow login "$svc" "$carol"
[ ! -e "$tmp/shadow.race" ] || bad "CAS: the writer never opened $tmp/shadow.lock"
grep -q "^$carol:$a2:" "$tmp/shadow" && ok "CAS: the other writer's entry is kept" ||
    bad "CAS: $carol's entry is not the other writer's"
wait_recs USER_MGMT "$carol" 1
has "CAS lost" "$(recs USER_MGMT "$carol")" op=kdfhash-upgrade error=changed-meanwhile res=failed

# ---- the exec hook fails -------------------------------------------------
login "$svc-hook" "$dave"
wait_recs USER_MGMT "$dave" 1
has "hook failed" "$(recs USER_MGMT "$dave")" op=kdfhash-upgrade via=hook error=hook-failed \
    res=failed
if ausearch --input "$log" -m USER_MGMT -sv no -i 2>/dev/null | grep -q "acct=$dave "; then
    ok "ausearch -sv no finds the failed write"
else bad "ausearch -sv no does not find the failed write of $dave"; fi

# ---- a password change ---------------------------------------------------
printf '%s\n%s\n' 'N3w-s3cret-p4ss' 'N3w-s3cret-p4ss' |
    LD_PRELOAD=$preload pamtester "$svc" "$erin" chauthtok >"$tmp/out" 2>&1 ||
    { bad "$erin: chauthtok failed"; sed 's/^/    /' "$tmp/out"; }
wait_recs USER_CHAUTHTOK "$erin" 1
has "password change" "$(recs USER_CHAUTHTOK "$erin")" op=kdfhash-chauthtok old-scheme=bcrypt \
    new-scheme=argon2id res=success
[ -z "$(recs USER_MGMT "$erin")" ] && ok "password change: no USER_MGMT record" ||
    bad "password change: a USER_MGMT record too"

# ---- kdfhash wrap ----------------------------------------------------------
printf '%s:%s:19000:0:99999:7:::\n' "$frank" "$md5" > "$tmp/wrapshadow"
chmod 600 "$tmp/wrapshadow"
LD_PRELOAD=$preload "$K" wrap --conf "$conf" --shadow "$tmp/wrapshadow" --no-opasswd --quiet \
    >"$tmp/out" 2>&1 || { bad "kdfhash wrap failed"; sed 's/^/    /' "$tmp/out"; }
wait_recs USER_MGMT "$frank" 1
has wrap "$(recs USER_MGMT "$frank")" op=kdfhash-wrap old-scheme=legacy new-scheme=argon2id \
    res=success

# ---- what no record may hold, and what must not be there ----------------
sleep 0.3 # the kernel's last records
[ -z "$(recs USER_MGMT "$bob")" ] && ok "no upgrade: no USER_MGMT record" ||
    bad "a login without an upgrade wrote: $(recs USER_MGMT "$bob")"
all=$(grep -F "$t\"" "$log" | grep 'op=kdfhash-')
if printf '%s\n' "$all" | grep -q '\$'; then
    bad "a record holds a hash: $(printf '%s\n' "$all" | grep '\$')"
else ok "no record holds a '\$' (no hash, salt or digest)"; fi
echo "$(printf '%s\n' "$all" | grep -c .) records of this run; the first:"
printf '%s\n' "$all" | head -n 1 | sed 's/^/    /'

[ "$fails" = 0 ] || exit 1
exit 0
