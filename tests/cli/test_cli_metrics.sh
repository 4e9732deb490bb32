#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_cli_metrics.sh - `kdfhash audit --format prometheus|json` and
# --output, for node exporter's textfile collector.  A shadow file of 17
# known entries (hashes by argon2-cffi, passlib and pyca bcrypt; keyed ones
# by kdfhash hash, their key id then edited) at a path holding '"', '\'
# and a line feed: the output parses with prometheus_client's parser
# (and promtool check metrics when installed), every sample has that path
# as its file label, and the counts are the known ones (per status, per
# rehash reason, per scheme and costs, per key id and state, with '+' and
# '/' in a key id as they are; a key id holding '"' makes its entry
# malformed, never a label); no user name, salt or digest in it; --json is
# --format json and agrees with it; a run that cannot read its file gives
# kdfhash_audit_up 0, exit 2; --output: mode 0644 whatever the umask, the
# stdout document, no temporary file left; the old file kept, exit 2 and
# no temporary file when the directory cannot be written, the temporary
# name is taken, a write fails (RLIMIT_FSIZE) or the rename fails; a stale
# temporary file of the same pid replaced; a failed JSON run keeps the old
# file; the metric table of kdfhash(1) is the list printed; the timer and
# its service pass systemd-analyze verify, installed but not enabled.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
K="$top_builddir/cli/kdfhash"
K=$(cd "$(dirname "$K")" && pwd)/kdfhash
PY=/usr/bin/python3
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
$PY -c 'import passlib.hash, argon2.low_level, bcrypt' 2>/dev/null ||
    { echo "FAIL: $PY lacks passlib/argon2/bcrypt (apt-get install python3-passlib python3-argon2 python3-bcrypt)"; exit 1; }
$PY -c 'import prometheus_client.parser' 2>/dev/null ||
    { echo "FAIL: $PY lacks prometheus_client (apt-get install python3-prometheus-client)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_metrics.XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
good() { pass=$((pass + 1)); }
check() { if eval "$2"; then good; else bad "$1"; fi; }

conf=$tmp/kdfhash.conf
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\n' >"$conf"
D=$tmp/keys.d
kid=$("$K" keys --dir "$D" new) || bad "keys new: exit $?"
printf 'target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\npepper = %s\n' "$kid" \
    >"$tmp/kconf"
hk=$(printf 'keyed pw' | "$K" hash --keys "$D" --conf "$tmp/kconf")
check "keyed fixture: $hk" '[[ $hk == *",keyid=$kid\$"* ]]'

# The file audited: its name holds a quote, a backslash and a line feed.
S=$tmp/$'sh"a\\d\nw'
$PY - "$hk" >"$S" <<'EOF'
import sys
import argon2.low_level as a
import bcrypt
import passlib.hash as ph
def a2(pw, m):
    return a.hash_secret(pw.encode(), b"saltsalt%08d" % m, 1, m, 1, 32, a.Type.ID).decode()
hk = sys.argv[1]
kid = hk.split("keyid=")[1].split("$")[0]
wrapped = ("$kdfw$34$$1$saltsalt$......................$argon2id$v=19$m=256,t=1,p=1"
           "$N1lsEMqo1RvBNF48PmULjA$o87OXUMWke5qA2EKZDKb3DWhbEBUmKYk/ET5BMb5ong")
rows = [
    ("u_cur1", a2("one", 256)), ("u_cur2", a2("two", 256)), ("u_cheap", a2("three", 128)),
    ("u_heavy", a2("four", 2048)), ("u_sha", ph.sha512_crypt.hash("five", rounds=5000)),
    ("u_bcr", bcrypt.hashpw(b"six", bcrypt.gensalt(5)).decode()),
    ("u_pbk", ph.pbkdf2_sha256.hash("seven", rounds=29000)), ("u_wrap", wrapped),
    ("u_lock1", "!" + ph.sha512_crypt.hash("eight", rounds=5000)), ("u_lock2", "*"),
    ("u_empty", ""), ("u_badkey", hk.replace(kid, 'ab"c')), ("u_keyed", hk),
    ("u_miss", hk.replace(kid, "ZZZZZZZZ")), ("u_odd", hk.replace(kid, "a+/B")),
    ("u_cap", "$sha1$4294967295$abcdefgh$O1FteT.8iBPfT8DbK4mxuL4uZH0E"), ("+u_nis", ""),
]
for u, h in rows:
    print("%s:%s:19000:0:99999:7:::" % (u, h))
EOF
check "17 fixture lines" '[ "$(wc -l <"$S")" = 17 ]'

audit() { "$K" audit --keys "$D" --conf "$conf" "$@"; }

# ---- prometheus: parses, the known counts --------------------------------------------
audit --format prometheus "$S" >"$tmp/m.prom" 2>"$tmp/err"
rc=$?
check "prometheus: exit 1 (entries to rehash) ($rc, $(cat "$tmp/err"))" '[ $rc = 1 ] && [ ! -s "$tmp/err" ]'
$PY - "$tmp/m.prom" "$S" "$kid" <<'EOF' && good || bad "prometheus: parse and counts"
import sys
from prometheus_client.parser import text_string_to_metric_families
text, path, kid = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
fams = list(text_string_to_metric_families(text))
got = {}
for f in fams:
    assert f.type == "gauge" and f.documentation, (f.name, f.type)
    assert f.name.startswith("kdfhash_audit_"), f.name
    for s in f.samples:
        lab = dict(s.labels)
        assert lab.pop("file") == path, s
        key = (s.name,) + tuple(sorted(lab.items()))
        assert key not in got, key
        got[key] = s.value
def want(name, value, **lab):
    key = (name,) + tuple(sorted(lab.items()))
    assert got.get(key) == value, (key, got.get(key), value)
want("kdfhash_audit_up", 1)
want("kdfhash_audit_accounts", 17)
for st, n in {"ok": 5, "rehash": 6, "locked": 2, "empty": 1, "malformed": 1,
              "unsupported": 1, "over-cap": 1}.items():
    want("kdfhash_audit_entries", n, status=st)
reasons = {"other-scheme": 2, "too-cheap": 1, "legacy": 1, "heavy": 1, "wrapped": 1}
out = {dict(k[1:])["reason"]: v for k, v in got.items() if k[0] == "kdfhash_audit_outdated_entries"}
assert {r: v for r, v in out.items() if v} == reasons, out
assert "migration" in out and out["migration"] == 0, out   # zeros are series too
schemes = {("argon2id", "m=128,t=1,p=1"): 1, ("argon2id", "m=2048,t=1,p=1"): 1,
           ("argon2id", "m=256,t=1,p=1"): 5, ("bcrypt", "cost=5"): 1,
           ("legacy", "prefix=$6$"): 1, ("legacy", "prefix=$sha1$"): 1,
           ("pbkdf2-sha256", "i=29000"): 1, ("wrapped", "m=256,t=1,p=1"): 1}
sc = {(dict(k[1:])["scheme"], dict(k[1:])["costs"]): v for k, v in got.items()
      if k[0] == "kdfhash_audit_scheme_entries"}
assert sc == schemes, sc
keys = {(dict(k[1:])["keyid"], dict(k[1:])["state"]): v for k, v in got.items()
        if k[0] == "kdfhash_audit_key_entries"}
assert keys == {(kid, "file"): 1, ("ZZZZZZZZ", "missing"): 1, ("a+/B", "missing"): 1}, keys
want("kdfhash_audit_unkeyed_entries", 9)
want("kdfhash_audit_key_unusable_entries", 2)
want("kdfhash_audit_other_key_entries", 0)
want("kdfhash_audit_other_scheme_entries", 0)
# Argon2 (7), PBKDF2 (1) and the wrapped entry.
want("kdfhash_audit_pam_unix_unverifiable_entries", 9)
import time
ts = got[("kdfhash_audit_timestamp_seconds",)]
assert abs(ts - time.time()) < 60, ts
assert 0 <= got[("kdfhash_audit_duration_seconds",)] < 60
EOF
$PY - "$tmp/m.prom" "$S" <<'EOF' && good || bad "prometheus: label values escaped (quote, backslash, line feed)"
import sys
raw, path = open(sys.argv[1]).read(), sys.argv[2]
esc = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
assert esc != path and 'file="%s"} 1\n' % esc in raw, esc
assert all(l.startswith(("#", "kdfhash_audit_")) for l in raw.splitlines()), "a cut line"
EOF
check "prometheus: the malformed key id is no label" '! grep -q "ab.c" "$tmp/m.prom"'
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$tmp/m.prom" >"$tmp/promtool.out" 2>&1
    rc=$?
    check "promtool check metrics ($rc): $(head -c 300 "$tmp/promtool.out")" '[ $rc = 0 ]'
else
    echo "SKIP: promtool check metrics: promtool is not installed (Debian package prometheus)"
fi

# No user name, salt or digest in the metrics: counts only.
$PY - "$S" "$tmp/m.prom" <<'EOF' && good || bad "prometheus: a user name or a hash in the output"
import sys
out = open(sys.argv[2], "rb").read()
n = 0
for line in open(sys.argv[1], "rb"):
    user, h = line.split(b":")[:2]
    assert user.lstrip(b"+") not in out, user
    # The salt and digest fields, the last two.
    for f in [f for f in h.split(b"$")[-2:] if len(f) >= 10]:
        for i in range(len(f) - 9):
            n += 1
            assert f[i:i + 10] not in out, (user, f[i:i + 10])
assert n > 200, n
EOF

# ---- json: --json is --format json, and agrees with the metrics ----------------------
audit --json "$S" >"$tmp/a.json"
rc=$?
audit --format json "$S" >"$tmp/b.json"
check "--json is --format json (exit $rc)" '[ $rc = 1 ] &&
    diff <(grep -v "timestamp\|duration" "$tmp/a.json") <(grep -v "timestamp\|duration" "$tmp/b.json") >/dev/null'
$PY - "$tmp/a.json" "$tmp/m.prom" "$S" <<'EOF' && good || bad "json disagrees with the metrics"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
d = json.load(open(sys.argv[1]))
m = {}
for f in text_string_to_metric_families(open(sys.argv[2]).read()):
    for s in f.samples:
        lab = dict(s.labels)
        lab.pop("file")
        m.setdefault(s.name, {})[tuple(sorted(lab.items()))] = s.value
one = lambda name: m[name][()]
s = d["summary"]
assert d["file"] == sys.argv[3] and abs(d["timestamp"] - one("kdfhash_audit_timestamp_seconds")) < 60
assert s["duration_seconds"] >= 0
assert s["accounts"] == one("kdfhash_audit_accounts") == len(d["accounts"])
assert {k: v for k, v in s["status"].items()} == \
    {dict(k)["status"]: v for k, v in m["kdfhash_audit_entries"].items()}, s["status"]
assert s["rehash"] == {dict(k)["reason"]: v for k, v in m["kdfhash_audit_outdated_entries"].items()}
assert {(x["scheme"], x["costs"]): x["count"] for x in s["schemes"]} == \
    {(dict(k)["scheme"], dict(k)["costs"]): v for k, v in m["kdfhash_audit_scheme_entries"].items()}
keys = {(dict(k)["keyid"], dict(k)["state"]): v for k, v in m["kdfhash_audit_key_entries"].items()}
assert {(i, s["key_states"][i]): n for i, n in s["keys"].items() if i != "none"} == keys, keys
assert s["keys"]["none"] == s["unkeyed"] == one("kdfhash_audit_unkeyed_entries")
assert s["key_unusable"] == one("kdfhash_audit_key_unusable_entries")
assert s["other_keys"] == one("kdfhash_audit_other_key_entries")
assert s["other_schemes"] == one("kdfhash_audit_other_scheme_entries")
assert s["pam_unix_cannot_verify"] == one("kdfhash_audit_pam_unix_unverifiable_entries")
EOF

# ---- a failed run: up 0, exit 2 -------------------------------------------------------
audit --format prometheus "$tmp/none" >"$tmp/f.prom" 2>"$tmp/err"
rc=$?
$PY - "$tmp/f.prom" <<'EOF' && ok=1 || ok=0
import sys
from prometheus_client.parser import text_string_to_metric_families
names = {s.name: s.value for f in text_string_to_metric_families(open(sys.argv[1]).read())
         for s in f.samples}
assert names.pop("kdfhash_audit_up") == 0, names
assert set(names) == {"kdfhash_audit_timestamp_seconds", "kdfhash_audit_duration_seconds"}, names
EOF
check "unreadable file: up 0 and when, exit 2 ($rc)" '[ $rc = 2 ] && [ $ok = 1 ] && grep -q "cannot open" "$tmp/err"'
"$K" audit --format prometheus --conf "$tmp/none.conf" "$S" >"$tmp/f.prom" 2>/dev/null
rc=$?
check "policy that does not load: up 0, exit 2 ($rc)" '[ $rc = 2 ] &&
    grep -q "^kdfhash_audit_up{.*} 0$" "$tmp/f.prom" && ! grep -q "_entries{" "$tmp/f.prom"'
audit --format yaml "$S" >/dev/null 2>"$tmp/err"
rc=$?
check "--format yaml: exit 2 ($rc)" '[ $rc = 2 ] && grep -q "text, json or prometheus" "$tmp/err"'

# ---- --offline-cache: its three metrics ------------------------------------------------
today=$(($(date +%s) / 86400))
printf 'u1:%s:%s\nu2:%s:%s\nu3:%s\n' "$hk" "$today" "$hk" $((today - 100)) "$hk" >"$tmp/cache"
printf 'offline.max-age = 30\n' >>"$conf"
audit --format prometheus --offline-cache "$tmp/cache" >"$tmp/o.prom"
check "offline cache: max age, expired, undated" '
    grep -qx "kdfhash_audit_offline_max_age_days{file=\"$tmp/cache\"} 30" "$tmp/o.prom" &&
    grep -qx "kdfhash_audit_offline_expired_entries{file=\"$tmp/cache\"} 1" "$tmp/o.prom" &&
    grep -qx "kdfhash_audit_offline_undated_entries{file=\"$tmp/cache\"} 1" "$tmp/o.prom"'

# ---- the metric table of kdfhash(1) is what is printed --------------------------------
$PY - "$top_srcdir/doc/kdfhash.1.scd" "$tmp/m.prom" "$tmp/o.prom" <<'EOF' && good || bad "kdfhash(1) metric table"
import re, sys
from prometheus_client.parser import text_string_to_metric_families
page = open(sys.argv[1]).read()
table = {}
for row in re.findall(r"^\|  \*(kdfhash_audit_\w+)\*\n:  (.*)$", page, re.M):
    table[row[0]] = set(re.findall(r"\*(\w+)\*", row[1]))
printed = {}
for p in sys.argv[2:]:
    for f in text_string_to_metric_families(open(p).read()):
        labs = printed.setdefault(f.name, set())
        for s in f.samples:
            labs |= set(s.labels) - {"file"}
assert table == printed, (table, printed)
EOF

# ---- --output: atomic, mode 0644, the old file kept on error --------------------------
O=$tmp/textfile
mkdir "$O"
(umask 077 && audit --format prometheus --output "$O/kdfhash.prom" "$S" >"$tmp/out.stdout")
rc=$?
check "--output: exit 1 ($rc), nothing on stdout, mode 644, no temporary file" '[ $rc = 1 ] &&
    [ ! -s "$tmp/out.stdout" ] && [ "$(stat -c %a "$O/kdfhash.prom")" = 644 ] &&
    [ "$(ls -A "$O")" = kdfhash.prom ]'
check "--output holds the stdout document" 'diff <(grep -v "^kdfhash_audit_\(timestamp\|duration\)" "$O/kdfhash.prom") \
    <(grep -v "^kdfhash_audit_\(timestamp\|duration\)" "$tmp/m.prom") >/dev/null'
cp "$O/kdfhash.prom" "$tmp/old.prom"
kept() { cmp -s "$O/kdfhash.prom" "$tmp/old.prom" && [ "$(ls -A "$O")" = kdfhash.prom ]; }

# The temporary name (FILE.tmp.PID: exec keeps the shell's pid) taken by a directory.
bash -c 'mkdir "$1.tmp.$$" && shift && exec "$@"' sh "$O/kdfhash.prom" \
    "$K" audit --keys "$D" --conf "$conf" --format prometheus --output "$O/kdfhash.prom" "$S" 2>"$tmp/err"
rc=$?
rmdir "$O"/kdfhash.prom.tmp.* 2>/dev/null
check "temporary name taken: exit 2 ($rc), old file kept" '[ $rc = 2 ] && kept &&
    grep -q "cannot write" "$tmp/err"'
# A stale temporary file of a killed run that had the same pid: replaced.
bash -c 'echo stale >"$1.tmp.$$" && shift && exec "$@"' sh "$O/kdfhash.prom" \
    "$K" audit --keys "$D" --conf "$conf" --format prometheus --output "$O/kdfhash.prom" "$S" 2>"$tmp/err"
rc=$?
check "stale temporary file replaced: exit 1 ($rc)" '[ $rc = 1 ] && ! grep -q stale "$O/kdfhash.prom" &&
    [ "$(ls -A "$O")" = kdfhash.prom ]'
cp "$O/kdfhash.prom" "$tmp/old.prom"
# A write that fails: files of at most 1 KiB, SIGXFSZ ignored (kept across exec).
bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' sh \
    "$K" audit --keys "$D" --conf "$conf" --format prometheus --output "$O/kdfhash.prom" "$S" 2>"$tmp/err"
rc=$?
check "write error (EFBIG): exit 2 ($rc), old file kept, no temporary file" '[ $rc = 2 ] && kept &&
    grep -q "cannot write" "$tmp/err"'
# A rename that fails: the destination is a directory.
mkdir "$tmp/dir.prom" "$tmp/dir.prom/x"
audit --format prometheus --output "$tmp/dir.prom" "$S" 2>"$tmp/err"
rc=$?
check "rename error: exit 2 ($rc), no temporary file" '[ $rc = 2 ] && [ -d "$tmp/dir.prom/x" ] &&
    ! ls "$tmp" | grep -q "^dir.prom.tmp" && grep -q "cannot rename" "$tmp/err"'
# A directory the writer cannot write (as nobody, when root; else its mode).
chmod 555 "$O"
if [ "$(id -u)" = 0 ]; then
    chmod 711 "$tmp"
    chmod 644 "$S" "$conf"
    chmod 755 "$D"
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
        "$K" audit --keys "$D" --conf "$conf" --format prometheus --output "$O/kdfhash.prom" "$S" 2>"$tmp/err"
else
    audit --format prometheus --output "$O/kdfhash.prom" "$S" 2>"$tmp/err"
fi
rc=$?
chmod 755 "$O"
check "unwritable directory: exit 2 ($rc), old file kept: $(cat "$tmp/err")" '[ $rc = 2 ] && kept &&
    grep -q "cannot write" "$tmp/err"'
# A failed run: the metrics say so (up 0) ...
audit --format prometheus --output "$O/kdfhash.prom" "$tmp/none" 2>/dev/null
rc=$?
check "failed run: exit 2 ($rc), the file says up 0" '[ $rc = 2 ] &&
    grep -q "^kdfhash_audit_up{.*} 0$" "$O/kdfhash.prom" && [ "$(ls -A "$O")" = kdfhash.prom ]'
# ... a report cut short does not replace a whole one.
audit --json --output "$tmp/r.json" "$S" >/dev/null
cp "$tmp/r.json" "$tmp/r.old"
audit --json --output "$tmp/r.json" "$tmp/none" 2>/dev/null
rc=$?
check "failed JSON run: exit 2 ($rc), old report kept, mode 600" '[ $rc = 2 ] &&
    cmp -s "$tmp/r.json" "$tmp/r.old" && [ "$(stat -c %a "$tmp/r.json")" = 600 ] &&
    ! ls "$tmp" | grep -q "^r.json.tmp"'

# ---- the timer and its service ---------------------------------------------------------
U=$top_srcdir/packaging/systemd
check "timer: hourly, [Install] for timers.target" 'grep -qx "OnCalendar=hourly" "$U/kdfhash-audit-metrics.timer" &&
    grep -qx "WantedBy=timers.target" "$U/kdfhash-audit-metrics.timer"'
check "service: what it runs, hardened" '
    grep -qx "ExecStart=/usr/bin/kdfhash audit --format prometheus --output /var/lib/prometheus/node-exporter/kdfhash.prom" \
        "$U/kdfhash-audit-metrics.service" &&
    grep -qx "ReadWritePaths=/var/lib/prometheus/node-exporter" "$U/kdfhash-audit-metrics.service" &&
    grep -qx "ProtectSystem=strict" "$U/kdfhash-audit-metrics.service" &&
    grep -qx "NoNewPrivileges=yes" "$U/kdfhash-audit-metrics.service" &&
    grep -qx "PrivateTmp=yes" "$U/kdfhash-audit-metrics.service" &&
    ! grep -q "^\[Install\]" "$U/kdfhash-audit-metrics.service"'
# Installed, not enabled: neither package enables or starts it.
check "packages: timer installed, not enabled" '
    grep -q "dh_installsystemd -pkdfhash --no-enable --no-start" "$top_srcdir/packaging/debian/rules" &&
    grep -q "kdfhash-audit-metrics.timer" "$top_srcdir/packaging/debian/kdfhash.install" &&
    grep -q "_unitdir}/kdfhash-audit-metrics.timer" "$top_srcdir/packaging/rpm/pam_kdfhash.spec.in" &&
    ! grep -q "enable kdfhash-audit-metrics" "$top_srcdir/packaging/rpm/pam_kdfhash.spec.in"'
if command -v systemd-analyze >/dev/null 2>&1; then
    # The service's program from this build: verify checks that it exists.
    mkdir "$tmp/units"
    cp "$U/kdfhash-audit-metrics.timer" "$tmp/units/"
    sed "s|^ExecStart=/usr/bin/kdfhash |ExecStart=$K |" "$U/kdfhash-audit-metrics.service" \
        >"$tmp/units/kdfhash-audit-metrics.service"
    systemd-analyze verify --man=no "$tmp/units/kdfhash-audit-metrics.timer" \
        "$tmp/units/kdfhash-audit-metrics.service" >"$tmp/verify.out" 2>&1
    rc=$?
    check "systemd-analyze verify ($rc): $(head -c 400 "$tmp/verify.out")" '[ $rc = 0 ] && [ ! -s "$tmp/verify.out" ]'
else
    echo "SKIP: systemd-analyze verify: systemd-analyze is not installed (Debian package systemd)"
fi

# ---- bash completion --------------------------------------------------------------------
comp() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _kdfhash; printf "%s\n" "${COMPREPLY[@]}"' sh \
        "$top_srcdir/packaging/bash-completion/kdfhash" "$@"
}
check "completion: audit --output" 'comp kdfhash audit --out | grep -qx -- --output'
check "completion: audit --format prometheus" 'comp kdfhash audit --format pro | grep -qx prometheus'

echo "test_cli_metrics: $pass passed, $fail failed"
[ "$fail" = 0 ]
