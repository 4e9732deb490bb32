#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_cli_selftest.sh - kdfhash selftest: one "ok" line per algorithm
# group, "selftest: passed" and exit 0; bad arguments exit 2; and
# check-conf under profile = fips: an Argon2 target refused naming the
# profile (exit 1), PBKDF2-SHA-512 accepted; the kernel's FIPS switch
# (KDFHASH_FIPS_ENABLED standing for /proc/sys/crypto/fips_enabled) giving
# a notice, and no error, when the profile is not fips, and none under fips;
# audit under fips: an accepted Argon2 entry is rehash:not-fips-approved.
set -u

top_builddir=${top_builddir:-.}
K="$top_builddir/cli/kdfhash"
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_selftest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

out=$("$K" selftest 2>&1)
rc=$?
[ "$rc" -eq 0 ] && ok || bad "selftest exit $rc: $out"
for g in sha1 sha256 sha512 hmac-sha1 hmac-sha256 hmac-sha512 pbkdf2-sha256 pbkdf2-sha512; do
    printf '%s\n' "$out" | grep -qx "$g: ok" && ok || bad "no '$g: ok' in: $out"
done
[ "$(printf '%s\n' "$out" | tail -n 1)" = "selftest: passed" ] && ok || bad "last line: $out"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 9 ] && ok || bad "9 lines wanted: $out"

"$K" selftest extra >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "selftest with an argument: not exit 2"
"$K" selftest --help | grep -q "Usage: kdfhash selftest" && ok || bad "selftest --help"

printf 'profile = fips\ntarget = argon2id m=65536,t=3,p=4\n' >"$tmp/argon2.conf"
out=$("$K" check-conf "$tmp/argon2.conf" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && ok || bad "fips + argon2id: exit $rc"
printf '%s\n' "$out" | grep -q "argon2.conf:2: profile = fips: target argon2id is not FIPS-approved" &&
    ok || bad "fips + argon2id: $out"

printf 'profile = fips\ntarget = pbkdf2-sha512\n' >"$tmp/fips.conf"
printf 'target = pbkdf2-sha512\n' >"$tmp/plain.conf"
echo 1 >"$tmp/fips_enabled"
out=$(KDFHASH_FIPS_ENABLED="$tmp/fips_enabled" "$K" check-conf "$tmp/fips.conf" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && ok || bad "fips + pbkdf2-sha512: exit $rc: $out"
printf '%s\n' "$out" | grep -q "notice" && bad "a notice under fips: $out" || ok

out=$(KDFHASH_FIPS_ENABLED="$tmp/fips_enabled" "$K" check-conf "$tmp/plain.conf" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && ok || bad "fips_enabled = 1, profile default: exit $rc"
printf '%s\n' "$out" | grep -q "plain.conf: notice: the kernel runs in FIPS mode (fips_enabled = 1) and profile is not fips" &&
    ok || bad "no notice: $out"
echo 0 >"$tmp/fips_enabled"
out=$(KDFHASH_FIPS_ENABLED="$tmp/fips_enabled" "$K" check-conf "$tmp/plain.conf" 2>&1)
printf '%s\n' "$out" | grep -q "notice" && bad "a notice with fips_enabled = 0: $out" || ok

# audit under fips: an accepted Argon2 entry is outdated (not-fips-approved),
# the PBKDF2-SHA-512 one made at the target is ok; without fips both are ok.
printf 'profile = fips\ntarget = pbkdf2-sha512 i=1000\nmin.pbkdf2-sha512 = 1000\naccept = argon2id\nmin.argon2 = m=8,t=1,p=1\n' >"$tmp/audit.conf"
printf 'target = pbkdf2-sha512 i=1000\nmin.pbkdf2-sha512 = 1000\naccept = argon2id\nmin.argon2 = m=8,t=1,p=1\n' >"$tmp/audit-plain.conf"
a=$(echo pw | "$K" hash --scheme argon2id --param m=256 --param t=1 --param p=1)
p=$(echo pw | "$K" hash --conf "$tmp/audit.conf")
printf 'a:%s:19000::::::\nb:%s:19000::::::\n' "$a" "$p" >"$tmp/shadow"
out=$("$K" audit --conf "$tmp/audit.conf" "$tmp/shadow" 2>&1)
printf '%s\n' "$out" | grep -q "^a argon2id .* rehash:not-fips-approved$" && ok || bad "audit a: $out"
printf '%s\n' "$out" | grep -q "^b pbkdf2-sha512 .* ok$" && ok || bad "audit b: $out"
out=$("$K" audit --conf "$tmp/audit-plain.conf" "$tmp/shadow" 2>&1)
printf '%s\n' "$out" | grep -q "^a argon2id .* ok$" && ok || bad "audit a without fips: $out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
