#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_pam_update.sh - the module's writes through kdfhash-update, in a real
# PAM application (pamtester), with the installed build of the helper on
# /etc/shadow and /etc/security/opasswd of a private copy of /etc
# (tests/common/etc_ns.sh), under the real lock /etc/.pwd.lock:
#   - write_helper=always: a bcrypt entry is upgraded at login to the
#     target, through the helper (a wrapper records each run), nothing but
#     its field 2 changes, and the next login succeeds with no write;
#   - a password change by root with remember=2: the new hash and field 3
#     written, the old hash in opasswd, both through the helper;
#   - write_helper=never, and auto on this host without SELinux: the
#     module writes itself, the helper never runs;
#   - write_helper=always with a helper that cannot run: the login still
#     succeeds and the entry is left as it was; a password change fails,
#     as it does when the writer fails;
#   - write_helper=typo: the module runs degraded, logs in, writes nothing.
# Needs root (the helper answers root alone; /etc/pam.d), as CI runs.
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
module="$(cd "$top_builddir" && pwd)/pam_module/.libs/pam_kdfhash.so"
helper="$(cd "$top_builddir" && pwd)/pam_module/kdfhash-update"
inc="$top_srcdir/tests/pam/pam_hashes.inc"
pw='S3cret-p4ss!'

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (kdfhash-update answers root alone; /etc/pam.d)"
    exit 77
fi
command -v pamtester >/dev/null 2>&1 || { echo "FAIL: pamtester not installed"; exit 1; }
[ -f "$module" ] && [ -x "$helper" ] || { echo "FAIL: $module or $helper not built"; exit 1; }
# A sanitizer build: as test_pamtester.sh, the ASan runtime goes first.
preload=
if nm -D "$module" 2>/dev/null | grep -q ' U __asan_init'; then
    preload=$(ldd "$module" 2>/dev/null | awk '/libasan/ { print $3; exit }')
    if [ -z "$preload" ]; then
        rt=$(${CLANG:-clang} -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
        [ -n "$rt" ] && [ -f "$rt" ] && preload=$rt
    fi
    [ -n "$preload" ] || { echo "SKIP: no ASan runtime to preload into pamtester"; exit 77; }
    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
    export ASAN_OPTIONS
fi

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_PAM_UPDATE_NS "$@"

hash_of() { sed -n "s/^PAM_HASH($1, \"\\(.*\\)\")\$/\\1/p" "$inc"; }
bc=$(hash_of bc2b)
[ -n "$bc" ] || { echo "FAIL: cannot read $inc"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdfpamupdate.XXXXXX") || exit 1
svc="kdfhash-update-test-$$"
trap 'rm -rf "$tmp"; etc_ns_leave' EXIT
trap 'exit 1' INT TERM HUP
: > "$tmp/kdfhash.conf"
# The wrapper the module runs: a line per run, then the helper itself.
printf '#!/bin/sh\necho run >> %s/runs\nexec %s\n' "$tmp" "$helper" > "$tmp/wrap"
chmod 755 "$tmp/wrap"
users="kup_alice kup_bob kup_carol kup_dave kup_erin"
uid=61000
for u in $users; do
    printf '%s:x:%d:%d::/nonexistent:/usr/sbin/nologin\n' "$u" "$uid" "$uid" >> /etc/passwd
    printf '%s:%s:19000:0:99999:7:::\n' "$u" "$bc" >> /etc/shadow
    uid=$((uid + 1))
done
rm -f /etc/security/opasswd
target='target=argon2id:m=256,t=1,p=1'
service() { # the module's arguments beyond the common ones
    printf 'auth required %s conf=%s %s %s\naccount required pam_permit.so\n' \
        "$module" "$tmp/kdfhash.conf" "$target" "$*" > "/etc/pam.d/$svc"
    printf 'password required %s conf=%s %s remember=2 %s\n' \
        "$module" "$tmp/kdfhash.conf" "$target" "$*" >> "/etc/pam.d/$svc"
}

fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
runs() { if [ -f "$tmp/runs" ]; then wc -l < "$tmp/runs"; else echo 0; fi; }
field() { awk -F: -v u="$1" -v f="$2" '$1 == u { print $f }' /etc/shadow; }
login() { # user: pamtester must succeed
    if printf '%s\n' "$pw" | LD_PRELOAD=$preload pamtester "$svc" "$1" authenticate \
        >"$tmp/out" 2>&1; then ok "$1 logs in ($2)"; else
        bad "$1: login failed ($2)"; sed 's/^/    /' "$tmp/out"; fi
}

# ---- always: the upgrade through the helper --------------------------------
service write_helper=always "update_helper=$tmp/wrap"
cp -p /etc/shadow "$tmp/before"
login kup_alice "write_helper=always"
case "$(field kup_alice 2)" in
'$argon2id$v=19$m=256,t=1,p=1$'*) ok "kup_alice upgraded to the target" ;;
*) bad "kup_alice not upgraded: $(field kup_alice 2)" ;;
esac
[ "$(runs)" = 1 ] && ok "the helper ran once" || bad "the helper ran $(runs) times"
if [ "$(grep -v '^kup_alice:' /etc/shadow)" = "$(grep -v '^kup_alice:' "$tmp/before")" ] &&
   [ "$(grep '^kup_alice:' /etc/shadow | cut -d: -f3-)" = \
     "$(grep '^kup_alice:' "$tmp/before" | cut -d: -f3-)" ]; then
    ok "nothing but kup_alice's field 2 changed"
else bad "other bytes of /etc/shadow changed"; fi
[ "$(stat -c %a /etc/shadow)" = "$(stat -c %a "$tmp/before")" ] && ok "mode kept" ||
    bad "mode changed"
login kup_alice "the new hash"
[ "$(runs)" = 1 ] && ok "no write for an entry at the target" || bad "the helper ran again"

# ---- always: a password change by root, with its history -------------------
old=$(field kup_alice 2)
printf '%s\n%s\n' 'N3w-s3cret-p4ss' 'N3w-s3cret-p4ss' |
    LD_PRELOAD=$preload pamtester "$svc" kup_alice chauthtok >"$tmp/out" 2>&1 ||
    { bad "kup_alice: chauthtok failed"; sed 's/^/    /' "$tmp/out"; }
new=$(field kup_alice 2)
[ "$new" != "$old" ] && case "$new" in '$argon2id$'*) true ;; *) false ;; esac &&
    ok "password change written" || bad "password change not written: $new"
[ "$(field kup_alice 3)" = "$(( $(date +%s) / 86400 ))" ] && ok "field 3 is today" ||
    bad "field 3: $(field kup_alice 3)"
# The history spells a ',' of a hash as ';' (pam_unix's list separator).
[ "$(cat /etc/security/opasswd 2>/dev/null)" = "kup_alice:61000:1:$(echo "$old" | tr , ';')" ] &&
    ok "the old hash is in /etc/security/opasswd" ||
    bad "opasswd: $(cat /etc/security/opasswd 2>/dev/null)"
[ "$(runs)" = 3 ] && ok "history and change through the helper" ||
    bad "the helper ran $(runs) times, want 3"

# ---- never, and auto without SELinux: the module writes --------------------
service write_helper=never "update_helper=$tmp/wrap"
login kup_bob "write_helper=never"
case "$(field kup_bob 2)" in '$argon2id$'*) ok "kup_bob upgraded by the module" ;;
*) bad "kup_bob not upgraded" ;; esac
if command -v selinuxenabled >/dev/null 2>&1 && selinuxenabled; then
    echo "# SELinux is enabled here: the auto case is not this test's"
else
    service "update_helper=$tmp/wrap"
    login kup_carol "write_helper=auto, SELinux off"
    case "$(field kup_carol 2)" in '$argon2id$'*) ok "kup_carol upgraded by the module" ;;
    *) bad "kup_carol not upgraded" ;; esac
fi
[ "$(runs)" = 3 ] && ok "the helper did not run" || bad "the helper ran ($(runs))"

# ---- always, with a helper that cannot run ---------------------------------
service write_helper=always update_helper=/nonexistent/kdfhash-update
login kup_dave "the helper missing"
[ "$(field kup_dave 2)" = "$bc" ] && ok "kup_dave's entry left as it was" ||
    bad "kup_dave's entry changed"
printf '%s\n%s\n' 'N3w-s3cret-p4ss' 'N3w-s3cret-p4ss' |
    LD_PRELOAD=$preload pamtester "$svc" kup_dave chauthtok >"$tmp/out" 2>&1 &&
    bad "a password change succeeded without its helper" ||
    ok "a password change fails without its helper"
[ "$(field kup_dave 2)" = "$bc" ] && ok "kup_dave's entry still as it was" ||
    bad "kup_dave's entry changed by the failed change"

# ---- a typo: degraded, no write --------------------------------------------
service write_helper=allways "update_helper=$tmp/wrap"
login kup_erin "write_helper=allways (degraded)"
[ "$(field kup_erin 2)" = "$bc" ] && ok "degraded: no upgrade" || bad "degraded: upgraded"

echo "# $fails failed"
[ "$fails" = 0 ]
