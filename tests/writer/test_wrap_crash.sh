#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Crash trials of `kdfhash wrap`: a 240-entry shadow file of legacy hashes
# (md5crypt and DES by libxcrypt through Python's crypt, cost-4 bcrypt by
# python3-bcrypt), wrapped in batches of 8 by 2 jobs, SIGKILLed 5-120 ms into
# the run three times in each of 8 trials (KDF_WRAP_TRIALS=N for more).  After every kill: the same users in the same order,
# every field but field 2 as it was, each field 2 either its legacy hash or
# a wrapped entry that the user's password opens (`kdfhash verify`) and a
# wrong one does not, no temporary file left readable by others; then a run
# to the end wraps every entry, leaves no legacy digest in FILE or FILE-,
# and a third run wraps nothing.  Counts: kills that landed mid-run, bad
# states (must be 0), entries checked.  KDF_TEST_SEED=<n> replays a run.
set -eu
: "${top_srcdir:=.}"
: "${top_builddir:=.}"
K=$top_builddir/cli/kdfhash
[ -x "$K" ] || { echo "FAIL: $K not built"; exit 1; }
py=${PYTHON3_SYSTEM:-/usr/bin/python3}
if ! "$py" -c 'import bcrypt' 2>/dev/null; then
    echo "SKIP: python3-bcrypt is not installed (scripts/quickstart.sh installs it)"
    exit 77
fi
exec "$py" - "$K" "${KDF_TEST_SEED:-}" <<'PY'
import os, random, signal, stat, subprocess, sys, tempfile, time, warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt
import bcrypt

K, seed = sys.argv[1], sys.argv[2]
seed = int(seed) if seed else random.randrange(1 << 30)
print("seed %d (KDF_TEST_SEED=%d replays it)" % (seed, seed))
rng = random.Random(seed)
N, TRIALS = 240, int(os.environ.get("KDF_WRAP_TRIALS", "8"))
d = tempfile.mkdtemp(prefix="kdf-wrapcrash.")
shadow, conf = os.path.join(d, "shadow"), os.path.join(d, "kdfhash.conf")
with open(conf, "w") as f:
    f.write("target = argon2id m=256,t=1,p=1\nmin.argon2 = m=256,t=1,p=1\n")
users = []
for i in range(N):
    pw = "pw-%d-%d" % (i, rng.randrange(10**6))
    kind = i % 3
    if kind == 0:
        h = crypt.crypt(pw, crypt.mksalt(crypt.METHOD_MD5))
    elif kind == 1:
        pw = pw[:8]  # DES reads 8 bytes
        h = crypt.crypt(pw, crypt.mksalt(crypt.METHOD_CRYPT))
    else:
        h = bcrypt.hashpw(pw.encode(), bcrypt.gensalt(rounds=4)).decode()
    users.append(("u%03d" % i, pw, h, "19000:0:99999:7:::%d" % i))
master = "".join("%s:%s:%s\n" % (u, h, rest) for u, _, h, rest in users)
bad = 0
checked = 0
killed = 0


def fail(msg):
    global bad
    bad += 1
    print("FAIL: " + msg)


def verify(h, pw):
    r = subprocess.run([K, "verify", "--conf", conf, h], input=pw + "\n", text=True,
                       capture_output=True)
    return r.returncode


def check_state(tag, full):
    global checked
    with open(shadow) as f:
        lines = f.read().split("\n")
    if lines[-1] != "":
        fail("%s: the file does not end with a newline" % tag)
    lines = lines[:-1]
    if len(lines) != N:
        fail("%s: %d lines, want %d" % (tag, len(lines), N))
        return
    for (u, pw, h, rest), line in zip(users, lines):
        f = line.split(":", 2)
        if len(f) != 3 or f[0] != u or f[2] != rest:
            fail("%s: line of %s changed beyond field 2: %r" % (tag, u, line[:40]))
            continue
        if f[1] == h:
            continue
        if not f[1].startswith("$kdfw$"):
            fail("%s: %s holds neither its legacy hash nor a wrapped one" % (tag, u))
            continue
        if full or rng.random() < 0.15:
            checked += 1
            if verify(f[1], pw) != 0:
                fail("%s: %s's wrapped entry does not open with the password" % (tag, u))
            if verify(f[1], "Z" + pw[1:]) != 1:
                fail("%s: %s's wrapped entry opens with a wrong password" % (tag, u))
    for name in os.listdir(d):
        st = os.stat(os.path.join(d, name))
        if name.startswith(("shadow.", ".shadow")) and st.st_mode & stat.S_IROTH:
            fail("%s: %s is readable by others" % (tag, name))


def run_wrap(kill_after=None):
    global killed
    p = subprocess.Popen([K, "wrap", "--shadow", shadow, "--no-opasswd", "--conf", conf,
                          "--jobs", "2", "--batch", "8", "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if kill_after is None:
        err = p.communicate()[1]
        return p.returncode, err
    time.sleep(kill_after)
    if p.poll() is None:
        p.send_signal(signal.SIGKILL)
        killed += 1
    p.wait()
    return p.returncode, ""


for t in range(TRIALS):
    with open(shadow, "w") as f:
        f.write(master)
    os.chmod(shadow, 0o640)
    # Each trial is killed up to three times, then resumed to the end.
    for k in range(3):
        run_wrap(kill_after=rng.uniform(0.005, 0.120))
        check_state("trial %d kill %d" % (t, k), full=False)
    rc, err = run_wrap()
    if rc != 0:
        fail("trial %d: the resumed run exited %d: %s" % (t, rc, err.strip()[-200:]))
    check_state("trial %d resumed" % t, full=(t == 0))
    with open(shadow) as f:
        data = f.read()
    backup = open(shadow + "-").read() if os.path.exists(shadow + "-") else ""
    for u, pw, h, rest in users:
        dig = h.rsplit("$", 1)[1] if h.startswith("$") else h[2:]
        if dig in data or dig in backup:
            fail("trial %d: %s's legacy digest is left in FILE or FILE-" % (t, u))
            break
    if data.count(":$kdfw$") != N:
        fail("trial %d: %d of %d entries wrapped after the resumed run"
             % (t, data.count(":$kdfw$"), N))
    before = os.stat(shadow)
    rc, err = run_wrap()
    after = os.stat(shadow)
    if rc != 0 or (before.st_ino, before.st_mtime_ns) != (after.st_ino, after.st_mtime_ns):
        fail("trial %d: a run with nothing to wrap exited %d or rewrote the file" % (t, rc))

print("%d trials, %d kills mid-run, %d wrapped entries verified, %d bad states"
      % (TRIALS, killed, checked, bad))
subprocess.run(["rm", "-rf", d])
sys.exit(1 if bad else 0)
PY
