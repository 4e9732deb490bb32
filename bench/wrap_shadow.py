#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""wrap_shadow.py - `kdfhash wrap` on a shadow file of N users (default 10,000):
entries wrapped per second at the default target and at the directory
profile, the peak memory of the run, and what a login pays while a wrap
runs.

    wrap_shadow.py KDFHASH [--users N] [--jobs J] [--srcdir DIR]

The shadow file mixes what an old machine holds: $6$ at 5,000 rounds (40%),
$1$ (20%), cost-5 bcrypt (20%), DES (10%) and passlib PBKDF2-SHA256 at
10,000 rounds (10%), made by libxcrypt (Python's crypt), python3-bcrypt and
passlib; 50 distinct hashes of each kind are cycled (a wrap's work does not
depend on the salt).  Each profile wraps its own copy with --jobs J
(default: the CPUs online) under GNU time (wall clock, peak RSS).  A login
during a wrap is `kdfhash verify` of an entry at the profile's target, 15
times before the wrap and 15 times while it runs: the medians and their
ratio.  Figures of this run only; the CPU is printed first.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt  # libxcrypt's crypt(3), an implementation other than ours

import bcrypt
from passlib.hash import pbkdf2_sha256

PROFILES = [
    ("default target", None),
    ("directory profile", "argon2id m=19456,t=2,p=1,salt=16,len=32"),
]


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def legacy_hashes(rng):
    pw = lambda: "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(12))
    kinds = [
        (40, lambda p: crypt.crypt(p, "$6$" + rng.choice("abcdefgh") * 16)),
        (20, lambda p: crypt.crypt(p, crypt.mksalt(crypt.METHOD_MD5))),
        (20, lambda p: bcrypt.hashpw(p.encode(), bcrypt.gensalt(rounds=5)).decode()),
        (10, lambda p: crypt.crypt(p, crypt.mksalt(crypt.METHOD_CRYPT))),
        (10, lambda p: pbkdf2_sha256.using(rounds=10000).hash(p)),
    ]
    out = []
    for share, make in kinds:
        made = [make(pw()) for _ in range(50)]
        out.append((share, made))
    return out


def write_shadow(path, n, kinds):
    lines = []
    total = sum(s for s, _ in kinds)
    i = 0
    for share, made in kinds:
        for j in range(n * share // total):
            lines.append("u%05d:%s:19000:0:99999:7:::" % (i, made[j % len(made)]))
            i += 1
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(path, 0o640)
    return i


def conf_for(srcdir, target, path):
    base = os.path.join(srcdir, "packaging", "kdfhash.conf")
    with open(base) as f:
        text = f.read()
    if target is not None:
        text += "\ntarget = %s\n" % target
    with open(path, "w") as f:
        f.write(text)


def verify_times(kdf, conf, h, pw, n):
    out = []
    for _ in range(n):
        t = time.monotonic()
        subprocess.run([kdf, "verify", "--conf", conf, h], input=pw + "\n", text=True,
                       capture_output=True, check=True)
        out.append(time.monotonic() - t)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kdfhash")
    ap.add_argument("--users", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--srcdir", default=os.path.join(os.path.dirname(__file__), ".."))
    a = ap.parse_args()
    gtime = shutil.which("time", path="/usr/bin:/bin")
    if gtime is None:
        print("wrap_shadow: skipped: GNU time (/usr/bin/time) is not installed")
        return 0
    rng = random.Random(1)
    print("wrap_shadow: %s, %d CPUs online, %d users, --jobs %d"
          % (cpu_name(), os.cpu_count() or 0, a.users, a.jobs))
    with tempfile.TemporaryDirectory() as d:
        kinds = legacy_hashes(rng)
        master = os.path.join(d, "shadow.master")
        n = write_shadow(master, a.users, kinds)
        print("| profile | entries | wall | entries/s | peak RSS | login alone (median) "
              "| login during a wrap (median) | ratio |")
        print("|---|---|---|---|---|---|---|---|")
        for name, target in PROFILES:
            conf = os.path.join(d, "kdfhash.conf")
            conf_for(a.srcdir, target, conf)
            shadow = os.path.join(d, "shadow")
            shutil.copyfile(master, shadow)
            pw = "probe-password-1"
            h = subprocess.run([a.kdfhash, "hash", "--conf", conf], input=pw + "\n",
                               text=True, capture_output=True, check=True).stdout.strip()
            alone = verify_times(a.kdfhash, conf, h, pw, 15)
            tf = os.path.join(d, "time.out")
            p = subprocess.Popen([gtime, "-f", "%e %M", "-o", tf, a.kdfhash, "wrap", "--shadow",
                                  shadow, "--no-opasswd", "--jobs", str(a.jobs), "--conf", conf,
                                  "--quiet"], stdout=subprocess.DEVNULL)
            time.sleep(1.0)
            during = verify_times(a.kdfhash, conf, h, pw, 15)
            rc = p.wait()
            if rc != 0:
                print("wrap_shadow: kdfhash wrap exited %d" % rc)
                return 1
            with open(tf) as f:
                wall, rss = f.read().split()[-2:]
            with open(shadow) as f:
                wrapped = sum(1 for l in f if ":$kdfw$" in l)
            ma, md = statistics.median(alone), statistics.median(during)
            print("| %s | %d of %d wrapped | %.1f s | %.1f | %.1f MiB | %.1f ms | %.1f ms | %.2f |"
                  % (name, wrapped, n, float(wall), wrapped / float(wall), int(rss) / 1024.0,
                     ma * 1e3, md * 1e3, md / ma))
            if wrapped < n * 0.99:
                print("wrap_shadow: only %d of %d entries wrapped" % (wrapped, n))
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
