#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_tpm.sh - keys held by a TPM, against swtpm (a TPM 2.0 simulator)
# that this test starts on a loopback port and reaches through the TCTI
# "swtpm:host=127.0.0.1,port=N":
#   1. kdfhash keys --tpm new makes the HMAC key inside the TPM; the key
#      file names its persistent handle only; export refuses;
#   2. a hash made with that pepper verifies, a wrong password does not;
#   3. independent check: tpm2-tools' tpm2_hmac computes the secret
#      (HMAC of "kdfhash-tpm-v1\0" || salt) and libargon2 with that secret
#      (argon2-cffi) reproduces the tag; without it, it does not;
#   4. through pamtester (in a private /etc): a bcrypt entry logs in and is
#      rewritten keyed with the TPM key; the next login works with it;
#   5. the TPM gone: the right password is refused (pamtester fails, the
#      CLI says "no TPM answers"), never verified without the key; started
#      again on its state, logins work again;
#   6. the TPM stopped (SIGSTOP: it takes connections and never answers):
#      the module's child kdfhash-tpm-hmac is killed at its deadline and the
#      login refused within it, with a log line naming the key; resumed,
#      logins work again.
# Needs root (pamtester's service in /etc/pam.d, in a private mount
# namespace), swtpm, tpm2-tools and pamtester; a build without TPM support
# (configure found no libtss2-dev) skips with that reason.
set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
K="$top_builddir/cli/kdfhash"
# The CLI reaches the TPM through the same child as the module: the built one.
export KDFHASH_TPM_HELPER="$top_builddir/pam_module/kdfhash-tpm-hmac"
module="$top_builddir/pam_module/.libs/pam_kdfhash.so"
PY=/usr/bin/python3

[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
if ! grep -q '^#define HAVE_TPM 1' "$top_builddir/config.h" 2>/dev/null; then
    echo "SKIP: built without TPM support (configure found no libtss2-dev)"
    exit 77
fi
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root for pamtester's service in /etc/pam.d (CI runs as root)"
    exit 77
fi
for c in swtpm tpm2_hmac pamtester; do
    command -v "$c" >/dev/null 2>&1 ||
        { echo "FAIL: $c missing (Debian: swtpm, tpm2-tools, pamtester)"; exit 1; }
done
$PY -c 'import argon2.low_level' 2>/dev/null ||
    { echo "FAIL: /usr/bin/python3 lacks argon2-cffi (python3-argon2)"; exit 1; }
# Sanitizer builds: pamtester is not instrumented (as test_pamtester.sh).
if nm -D "$module" 2>/dev/null | grep -q ' U __asan_init'; then
    echo "SKIP: the module is built with AddressSanitizer (test_pamtester.sh covers pamtester there)"
    exit 77
fi

. "$top_srcdir/tests/common/etc_ns.sh"
etc_ns_enter KDF_TPM_NS "$@"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdftpm.XXXXXX") || exit 1
svc="kdfhash-tpm-$$"
tpm_pid=
stop_tpm() {
    [ -n "$tpm_pid" ] && kill "$tpm_pid" 2>/dev/null && wait "$tpm_pid" 2>/dev/null
    tpm_pid=
}
trap 'stop_tpm; rm -rf "$tmp"; etc_ns_leave' EXIT
trap 'exit 1' INT TERM HUP
mkdir "$tmp/state"
port=
start_tpm() { # on $port, or the first free one of a few random ones
    for try in 1 2 3 4 5 6 7 8; do
        p=${port:-$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))}
        swtpm socket --tpm2 --tpmstate dir="$tmp/state" \
            --server type=tcp,port="$p",bindaddr=127.0.0.1 \
            --ctrl type=tcp,port=$((p + 1)),bindaddr=127.0.0.1 \
            --flags not-need-init,startup-clear >"$tmp/swtpm.log" 2>&1 &
        tpm_pid=$!
        sleep 0.3
        if kill -0 "$tpm_pid" 2>/dev/null; then port=$p; return 0; fi
        tpm_pid=
        [ -n "$port" ] && { sleep 1; continue; } # its port still in TIME_WAIT
    done
    echo "FAIL: swtpm did not start: $(cat "$tmp/swtpm.log")"
    exit 1
}
start_tpm
T="swtpm:host=127.0.0.1,port=$port"
export TPM2TOOLS_TCTI="$T"

fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# ---- 1. the key -----------------------------------------------------------------
keys=$tmp/keys
id=$("$K" keys --dir "$keys" --tpm --tcti "$T" new 2>"$tmp/err") ||
    { echo "FAIL: keys --tpm new: $(cat "$tmp/err")"; exit 1; }
line=$(cat "$keys/$id")
handle=$(echo "$line" | cut -d' ' -f2)
case $line in "kdfhash-tpm-v1 0x81006b"??" $T") ok "key file names the handle ($line)" ;;
*) bad "key file: '$line'" ;; esac
"$K" keys --dir "$keys" list | grep -q "^$id 256 bits .* tpm $handle " &&
    ok "list shows a TPM key" || bad "list: $("$K" keys --dir "$keys" list)"
"$K" keys --dir "$keys" export "$id" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ ! -s "$tmp/out" ] && grep -q "held by the TPM" "$tmp/err" &&
    ok "export refuses a TPM key" || bad "export of a TPM key: $(cat "$tmp/err")"

# ---- 2. hash and verify ---------------------------------------------------------
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\npepper = %s\n' "$id" \
    >"$tmp/kdfhash.conf"
chmod 644 "$tmp/kdfhash.conf"
h=$(printf 'S3cret-p4ss!' | "$K" hash --keys "$keys" --conf "$tmp/kdfhash.conf")
case $h in "\$argon2id\$v=19\$m=256,t=1,p=1,keyid=$id\$"*) ok "keyed hash" ;;
*) bad "hash: '$h'" ;; esac
[ "$(printf 'S3cret-p4ss!' | "$K" verify --keys "$keys" --conf "$tmp/kdfhash.conf" "$h")" = ok ] &&
    ok "verify with the TPM" || bad "verify with the TPM"
[ "$(printf 'S3cret-p4ss?' | "$K" verify --keys "$keys" --conf "$tmp/kdfhash.conf" "$h")" = mismatch ] &&
    ok "wrong password: mismatch" || bad "wrong password"

# ---- 3. the construction, by other implementations -------------------------------
salt_b64=$(echo "$h" | cut -d'$' -f5)
$PY - "$salt_b64" "$tmp/msg" <<'EOF'
import base64, sys
s = sys.argv[1]
open(sys.argv[2], "wb").write(b"kdfhash-tpm-v1\0" + base64.b64decode(s + "=" * (-len(s) % 4)))
EOF
secret=$(tpm2_hmac -c "$handle" --hex "$tmp/msg" 2>"$tmp/err") ||
    bad "tpm2_hmac: $(cat "$tmp/err")"
ref() { # secret-hex -> match | differs
    $PY - "$h" "$1" <<'EOF'
import base64, sys
import argon2.low_level as a2
h, key = sys.argv[1], bytes.fromhex(sys.argv[2])
d = lambda s: base64.b64decode(s + "=" * (-len(s) % 4))
parts = h.split("$")
prm = dict(kv.split("=") for kv in parts[3].split(","))
salt, tag, pw = d(parts[4]), d(parts[5]), b"S3cret-p4ss!"
ffi = a2.ffi
out = ffi.new("uint8_t[]", len(tag))
b = [ffi.new("uint8_t[]", x) if x else ffi.NULL for x in (pw, salt, key)]
ctx = ffi.new("argon2_context *", dict(out=out, outlen=len(tag), pwd=b[0], pwdlen=len(pw),
    salt=b[1], saltlen=len(salt), secret=b[2], secretlen=len(key), ad=ffi.NULL, adlen=0,
    t_cost=int(prm["t"]), m_cost=int(prm["m"]), lanes=int(prm["p"]), threads=1,
    version=0x13, allocate_cbk=ffi.NULL, free_cbk=ffi.NULL, flags=0))
assert a2.core(ctx, a2.Type.ID.value) == 0
print("match" if bytes(ffi.buffer(out, len(tag))) == tag else "differs")
EOF
}
[ "$(ref "$secret")" = match ] && ok "tpm2_hmac + libargon2 reproduce the tag" ||
    bad "tpm2_hmac + libargon2 do not reproduce the tag (secret $secret)"
[ "$(ref "")" = differs ] && ok "without the TPM's secret the tag differs" ||
    bad "the tag matched without the secret"

# ---- 4. logins through pamtester ---------------------------------------------------
inc="$top_srcdir/tests/pam/pam_hashes.inc"
bc=$(sed -n 's/^PAM_HASH(bc2b, "\(.*\)")$/\1/p' "$inc")
printf 'root:*:19000:0:99999:7:::\nalice:%s:19000:0:99999:7:::\n' "$bc" >"$tmp/shadow"
chmod 600 "$tmp/shadow"
cat >"/etc/pam.d/$svc" <<EOS
auth required $module shadow=$tmp/shadow conf=$tmp/kdfhash.conf keys=$keys tpm_helper=$top_builddir/pam_module/kdfhash-tpm-hmac
account required pam_permit.so
EOS
login() { printf 'S3cret-p4ss!\n' | pamtester "$svc" alice authenticate >"$tmp/pt" 2>&1; }
login && ok "alice logs in (bcrypt)" || bad "alice's first login: $(cat "$tmp/pt")"
grep -q "^alice:\\\$argon2id\\\$v=19\\\$m=256,t=1,p=1,keyid=$id\\\$" "$tmp/shadow" &&
    ok "alice's entry is keyed with the TPM key" || bad "not rewritten: $(grep ^alice: "$tmp/shadow")"
login && ok "next login, through the TPM" || bad "second login: $(cat "$tmp/pt")"

# ---- 5. the TPM gone, then back --------------------------------------------------------
stop_tpm
cp "$tmp/shadow" "$tmp/before"
login && bad "a login succeeded without the TPM" || ok "TPM gone: the right password is refused"
cmp -s "$tmp/shadow" "$tmp/before" && ok "entry unchanged" || bad "the entry changed"
printf 'S3cret-p4ss!' | "$K" verify --keys "$keys" --conf "$tmp/kdfhash.conf" "$h" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "key $id: .*TPM $T: no TPM answers" "$tmp/err" &&
    ok "the CLI names the key and the TPM" || bad "CLI without the TPM: $(cat "$tmp/err")"
start_tpm
login && ok "TPM started again on its state: alice logs in" || bad "after restart: $(cat "$tmp/pt")"

# ---- 6. the TPM stopped: no answer at all -------------------------------------------
kill -STOP "$tpm_pid"
t0=$(date +%s%N)
login && bad "a login succeeded with the TPM stopped" || ok "TPM stopped: the right password is refused"
ms=$((($(date +%s%N) - t0) / 1000000))
# The child's deadline is 5 s, then the module's failure delay (2 s).
[ "$ms" -ge 4500 ] && [ "$ms" -lt 15000 ] && ok "refused at the deadline ($ms ms)" ||
    bad "refusal took $ms ms (deadline 5000 ms)"
cmp -s "$tmp/shadow" "$tmp/before" && ok "entry unchanged" || bad "the entry changed"
pgrep -f "$top_builddir/pam_module/kdfhash-tpm-hmac" >/dev/null &&
    bad "a kdfhash-tpm-hmac outlived its deadline" || ok "no child left behind"
t0=$(date +%s%N)
printf 'S3cret-p4ss!' | "$K" verify --keys "$keys" --conf "$tmp/kdfhash.conf" "$h" >/dev/null 2>"$tmp/err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 2 ] && grep -q "key $id: .*no answer within 5000 ms" "$tmp/err" && [ "$ms" -lt 10000 ] &&
    ok "the CLI gives up at its deadline ($ms ms)" || bad "CLI, TPM stopped: rc $rc, $ms ms: $(cat "$tmp/err")"
kill -CONT "$tpm_pid"
login && ok "TPM resumed: alice logs in" || bad "after SIGCONT: $(cat "$tmp/pt")"

[ "$fails" = 0 ] || exit 1
exit 0
