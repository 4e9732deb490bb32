#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# demo.sh BUILDDIR - the main job: real logins through libpam (pamtester)
# against a demo shadow file, showing each outdated entry being upgraded,
# then a password change through the module.
#
# Writes everything into a temporary directory.  The PAM service file goes
# into a private copy of /etc/pam.d bound over /etc/pam.d in a private mount
# namespace (unshare -m, needs root), so the machine's /etc is never
# touched; where unshare is refused, one temporary service file
# /etc/pam.d/kdfhash-demo-PID is written instead and removed on exit.
set -eu

# Re-run inside a private mount namespace with our own /etc/pam.d.
if [ "${KDF_DEMO_NS:-}" = "" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
    unshare -m true 2>/dev/null; then
    export KDF_DEMO_NS=1
    exec unshare -m sh -c 'mount --make-rprivate / &&
        d=$(mktemp -d /tmp/kdfhash-demo-pamd.XXXXXX) && cp -a /etc/pam.d/. "$d" &&
        mount --bind "$d" /etc/pam.d && sh "$0" "$@"; rc=$?; umount /etc/pam.d; rm -rf "$d"; exit $rc' \
        "$0" "$@"
fi

build=$(cd "${1:?usage: demo.sh BUILDDIR}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
kdfhash=$build/cli/kdfhash
module=$build/pam_module/.libs/pam_kdfhash.so
py=/usr/bin/python3
tmp=$(mktemp -d /tmp/kdfhash-demo.XXXXXX)
service=kdfhash-demo-$$
svcfile=/etc/pam.d/$service
cleanup() { rm -rf "$tmp"; rm -f "$svcfile"; }
trap cleanup EXIT INT TERM

shadow=$tmp/shadow
echo "== kdfhash demo: writing $shadow with hashes made by independent tools"
# Hashes come from python3-bcrypt, passlib, argon2-cffi and libxcrypt
# (mkpasswd), never from kdfhash itself.  Costs are low to keep it quick.
"$py" - "$shadow" <<'PY'
import sys, bcrypt, argon2.low_level as a2, subprocess
from passlib.hash import pbkdf2_sha256, pbkdf2_sha512, django_pbkdf2_sha256
rows = [
    ("alice", bcrypt.hashpw(b"alice-pw", bcrypt.gensalt(rounds=5)).decode()),
    ("bob", pbkdf2_sha256.using(rounds=20000).hash("bob-pw")),
    ("carol", a2.hash_secret(b"carol-pw", b"carolsaltcarolsa", time_cost=1,
                             memory_cost=1024, parallelism=1, hash_len=32,
                             type=a2.Type.ID).decode()),
    ("dave", subprocess.check_output(["mkpasswd", "-m", "sha-512", "dave-pw"]).decode().strip()),
    ("erin", django_pbkdf2_sha256.using(rounds=30000).hash("erin-pw")),
    ("frank", a2.hash_secret(b"frank-pw", b"franksaltfranksa", time_cost=3,
                             memory_cost=65536, parallelism=4, hash_len=32,
                             type=a2.Type.ID).decode()),
]
with open(sys.argv[1], "w") as f:
    f.write("# demo shadow file: user:hash:lastchg:min:max:warn:inactive:expire:\n")
    for u, h in rows:
        f.write(f"{u}:{h}:20000:0:99999:7:::\n")
    f.write("locked:!$6$xyz$abc:20000:0:99999:7:::\n")
PY
chmod 600 "$shadow"

show() { # show USER: the scheme and parameters of USER's entry
    h=$(awk -F: -v u="$1" '$1 == u { print $2 }' "$shadow")
    printf '   %-6s %s\n' "$1" "$("$kdfhash" parse "$h" 2>&1 || true)"
}

echo "== audit of the demo file (kdfhash audit never prints hashes)"
"$kdfhash" audit "$shadow" || true

if [ ! -f "$module" ] || ! command -v pamtester >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
    echo "demo: the PAM part needs the module, pamtester and root; showing the audit only" >&2
    exit 0
fi

cat >"$svcfile" <<EOT
# temporary service written by kdfhash's scripts/demo.sh; removed on exit
auth     required  $module shadow=$shadow upgrade=file
account  required  pam_permit.so
password required  $module shadow=$shadow
EOT

for u in alice bob carol dave erin frank; do
    echo "== login as $u through libpam (pamtester $service $u authenticate)"
    echo "   before:"
    show "$u"
    start=$(date +%s%N)
    if echo "$u-pw" | pamtester "$service" "$u" authenticate >"$tmp/out" 2>&1; then
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        echo "   login: success (${ms} ms)"
    else
        echo "   login: FAILED: $(cat "$tmp/out")"
        exit 1
    fi
    echo "   after:"
    show "$u"
    if echo "$u-pw" | pamtester "$service" "$u" authenticate >/dev/null 2>&1; then
        echo "   second login with the stored (possibly upgraded) hash: success"
    else
        echo "   second login FAILED"
        exit 1
    fi
done

echo "== a wrong password and a locked account are refused"
if echo "wrong" | pamtester "$service" alice authenticate >/dev/null 2>&1; then
    echo "   wrong password accepted: BUG"; exit 1
fi
echo "   alice with a wrong password: refused"
if echo "x" | pamtester "$service" locked authenticate >/dev/null 2>&1; then
    echo "   locked account accepted: BUG"; exit 1
fi
echo "   locked: refused"
echo "== alice changes her password (pamtester chauthtok, as after 'chage -d 0')"
# PAM_CHANGE_EXPIRED_AUTHTOK: the current password is asked even though
# pamtester runs as root, as when login or su change an expired password.
before=$(awk -F: '$1 == "alice" { print $3 }' "$shadow")
if printf 'alice-pw\nalice-new-pw\nalice-new-pw\n' |
    pamtester "$service" alice 'chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)' >"$tmp/out" 2>&1; then
    echo "   password changed; last change (field 3): $before -> $(awk -F: '$1 == "alice" { print $3 }' "$shadow")"
else
    echo "   password change FAILED: $(cat "$tmp/out")"
    exit 1
fi
show alice
if echo "alice-new-pw" | pamtester "$service" alice authenticate >/dev/null 2>&1 &&
    ! echo "alice-pw" | pamtester "$service" alice authenticate >/dev/null 2>&1; then
    echo "   the new password logs in, the old one no longer does"
else
    echo "   login after the change FAILED"
    exit 1
fi
if printf 'wrong\nx-new-pw-1\nx-new-pw-1\n' |
    pamtester "$service" bob 'chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)' >/dev/null 2>&1; then
    echo "   bob changed his password with a wrong current one: BUG"; exit 1
fi
echo "   bob with a wrong current password: refused, entry unchanged"
echo "== final audit"
"$kdfhash" audit "$shadow" || true
