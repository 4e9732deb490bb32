#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_cli_tpm_child.sh - kdfhash(1) reaches a TPM only through
# kdfhash-tpm-hmac, the child the kdfhash-tpm package ships:
#   1. the CLI binary needs no libtss2 (readelf -d: no such NEEDED; the
#      child, built with TPM support, does: the check can see one);
#   2. without the child (KDFHASH_TPM_HELPER naming a missing file), every
#      TPM feature says "install kdfhash-tpm": keys --tpm new (exit 2, no
#      key file), verify of a TPM-keyed entry (exit 2), check-conf and
#      keys list with a TPM pepper (exit 1);
#   3. keys --tpm new through a stand-in child: the request it reads is
#      "kdfhash-tpm-new-v1 TCTI", its "ok 0xHANDLE" becomes the key file,
#      and a garbled answer, a TPM's error or a non-persistent handle
#      write no key;
#   4. the real child checks a key-creation request as it checks a secret
#      request: malformed ones are refused, a well-formed one reaches the
#      TPM (none listens: "no TPM answers").
# Parts 3 and 4 need a build with TPM support; without it the CLI's
# answer there is "built without TPM support", which is checked instead.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
K="$top_builddir/cli/kdfhash"
child="$top_builddir/pam_module/kdfhash-tpm-hmac"
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
command -v readelf >/dev/null 2>&1 || { echo "FAIL: readelf missing (Debian: binutils)"; exit 1; }
tpm_built=0
grep -q '^#define HAVE_TPM 1' "$top_builddir/config.h" 2>/dev/null && tpm_built=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_tpm_child.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# ---- 1. no libtss2 in the CLI --------------------------------------------------
readelf -d "$K" >"$tmp/needed" 2>&1 || bad "readelf -d $K: $(cat "$tmp/needed")"
if grep -q '(NEEDED).*libc\.so' "$tmp/needed" && ! grep -q '(NEEDED).*libtss2' "$tmp/needed"; then
    ok "kdfhash needs no libtss2 ($(grep -o '\[[^]]*\]' "$tmp/needed" | tr '\n' ' '))"
else bad "kdfhash: $(grep NEEDED "$tmp/needed" | tr '\n' ' ')"; fi
if [ $tpm_built = 1 ]; then
    readelf -d "$child" 2>&1 | grep -q '(NEEDED).*libtss2-esys' &&
        ok "kdfhash-tpm-hmac does need libtss2-esys" || bad "kdfhash-tpm-hmac without libtss2-esys?"
fi

# ---- 2. without the child --------------------------------------------------------
D=$tmp/keys.d
mkdir -m 750 "$D"
printf 'kdfhash-tpm-v1 0x81006b00 device:/dev/tpmrm0\n' >"$D/TPMkey01"
chmod 640 "$D/TPMkey01"
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\npepper = TPMkey01\n' \
    >"$tmp/kdfhash.conf"
h='$argon2id$v=19$m=256,t=1,p=1,keyid=TPMkey01$c29tZXNhbHRzb21lc2FsdA$qkRaUQ7tMZW0URyrBpHfcY6nFGTpmm5m+6oVLUvpaEI'
export KDFHASH_TPM_HELPER="$tmp/none/kdfhash-tpm-hmac"
say="$tmp/none/kdfhash-tpm-hmac is not installed: install kdfhash-tpm for keys held by a TPM"
"$K" keys --dir "$tmp/new.d" --tpm new >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -qF "kdfhash: TPM device:/dev/tpmrm0: $say" "$tmp/err" && [ ! -s "$tmp/out" ] &&
    [ ! -e "$tmp/new.d" ] && ok "keys --tpm new: exit 2, install kdfhash-tpm, no key" ||
    bad "keys --tpm new without the child: rc $rc, $(cat "$tmp/out" "$tmp/err")"
printf 'S3cret-p4ss!' | "$K" verify --keys "$D" --conf "$tmp/kdfhash.conf" "$h" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -qF "key TPMkey01: $D/TPMkey01: TPM device:/dev/tpmrm0: $say" "$tmp/err" &&
    ok "verify of a TPM-keyed entry: exit 2, install kdfhash-tpm" ||
    bad "verify without the child: rc $rc, $(cat "$tmp/out" "$tmp/err")"
"$K" check-conf --keys "$D" "$tmp/kdfhash.conf" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -qF "key TPMkey01 cannot be used (refused): $D/TPMkey01: TPM device:/dev/tpmrm0: $say" "$tmp/err" &&
    ok "check-conf with a TPM pepper: exit 1, install kdfhash-tpm" ||
    bad "check-conf without the child: rc $rc, $(cat "$tmp/out" "$tmp/err")"
"$K" keys --dir "$D" --conf "$tmp/kdfhash.conf" --shadow /dev/null list >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -qF "install kdfhash-tpm" "$tmp/out" "$tmp/err" &&
    ok "keys list with a TPM pepper: exit 1, install kdfhash-tpm" ||
    bad "keys list without the child: rc $rc, $(cat "$tmp/out" "$tmp/err")"

# ---- 3. keys --tpm new through a stand-in child -----------------------------------
fake() { # body of the stand-in's answer
    printf '#!/bin/sh\ncat >"%s/request"\n%s\n' "$tmp" "$1" >"$tmp/child"
    chmod 755 "$tmp/child"
    rm -f "$tmp/request"
}
export KDFHASH_TPM_HELPER="$tmp/child"
fake "echo 'ok 0x81006b07'"
if [ $tpm_built = 1 ]; then
    id=$("$K" keys --dir "$tmp/fake.d" --tpm --tcti device:/dev/tpmrm9 new 2>"$tmp/err")
    rc=$?
    [ $rc = 0 ] && [ "$(cat "$tmp/fake.d/$id" 2>/dev/null)" = "kdfhash-tpm-v1 0x81006b07 device:/dev/tpmrm9" ] &&
        ok "the child's handle is the key file's" || bad "keys --tpm new, stand-in: rc $rc, $(cat "$tmp/err")"
    printf 'kdfhash-tpm-new-v1 device:/dev/tpmrm9\n' >"$tmp/want"
    cmp -s "$tmp/request" "$tmp/want" && ok "request: kdfhash-tpm-new-v1 TCTI" ||
        bad "request: '$(cat "$tmp/request" 2>/dev/null)'"
    for answer in "echo 'ok 0x8100'" "echo 'ok 0x00000001'" "echo 'ok 0x81006B07'" \
        "echo 'ok 0x81006b07 and more'" "echo 'error TPM2_Create: the TPM said no'; exit 1" \
        "exit 0" "kill -9 \$\$"; do
        fake "$answer"
        "$K" keys --dir "$tmp/bad.d" --tpm new >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && ! ls "$tmp/bad.d"/* >/dev/null 2>&1; then
            ok "stand-in '$answer': exit 2, no key ($(cat "$tmp/err"))"
        else bad "stand-in '$answer': rc $rc, $(cat "$tmp/out" "$tmp/err")"; fi
    done
    fake "echo 'error TPM2_Create: the TPM said no'; exit 1"
    "$K" keys --dir "$tmp/bad.d" --tpm new >/dev/null 2>"$tmp/err"
    grep -qx "kdfhash: TPM device:/dev/tpmrm0: TPM2_Create: the TPM said no" "$tmp/err" &&
        ok "the TPM's error is passed on" || bad "the TPM's error: $(cat "$tmp/err")"
else
    "$K" keys --dir "$tmp/fake.d" --tpm new >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && grep -q "built without TPM support" "$tmp/err" && [ ! -e "$tmp/fake.d" ] &&
        ok "a build without TPM support says so (no stand-in run)" ||
        bad "no TPM support: rc $rc, $(cat "$tmp/err")"
fi

# ---- 4. the real child's check of a key-creation request ---------------------------
if [ $tpm_built = 1 ]; then
    for req in 'kdfhash-tpm-new-v1 \n' 'kdfhash-tpm-new-v1 a b\n' 'kdfhash-tpm-new-v1 x' \
        'kdfhash-tpm-new-v1 x\ny\n' 'kdfhash-tpm-new-v1 x\ty\n' 'kdfhash-tpm-new-v2 x\n'; do
        printf "$req" | "$child" >"$tmp/out" 2>/dev/null
        rc=$?
        [ $rc = 1 ] && [ "$(cat "$tmp/out")" = "error malformed request" ] &&
            ok "child refuses '$req'" || bad "child, '$req': rc $rc, $(cat "$tmp/out")"
    done
    printf 'kdfhash-tpm-new-v1 swtpm:host=127.0.0.1,port=1\n' | "$child" >"$tmp/out" 2>/dev/null
    rc=$?
    [ $rc = 1 ] && grep -q '^error no TPM answers' "$tmp/out" &&
        ok "a well-formed request reaches the TPM ($(cat "$tmp/out"))" ||
        bad "child, new key, no TPM: rc $rc, $(cat "$tmp/out")"
fi

[ "$fails" = 0 ] || exit 1
exit 0
