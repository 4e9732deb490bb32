#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_man_examples.sh - the kdfhash.conf examples of the man pages are
# policies the built kdfhash accepts, and the small-machine example admits
# the hashes a common library makes by default:
#   1. every kdfhash.conf example of doc/*.scd (a ``` block whose first line
#      that is not a comment is "KEY = VALUE" with KEY a policy key of
#      `kdfhash check-conf --keys`, or a tab-indented paragraph made only of
#      such lines) passes `kdfhash check-conf FILE`; a block that starts as
#      a policy and goes on as something else fails it too.  kdfhash.conf(5)
#      must yield at least 4, and the extractor is first shown a planted
#      page, so that an extractor that finds nothing cannot pass;
#   2. under the example that follows "A small machine" in kdfhash.conf(5),
#      `kdfhash verify --conf` accepts a hash made by python3-argon2's
#      PasswordHasher() with its defaults (Debian 12's argon2-cffi 21.1:
#      m=102400,t=2,p=8).  Skipped, saying so, only when no python3 on the
#      machine has the argon2 module (Debian package python3-argon2).
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
command -v python3 > /dev/null 2>&1 || { echo "FAIL: python3 is needed"; exit 1; }
exec python3 - "$srcdir" "$builddir/cli/kdfhash" << 'PY'
import glob, os, re, subprocess, sys, tempfile

src, kdf = sys.argv[1], sys.argv[2]
if not os.access(kdf, os.X_OK):
    print("FAIL: %s not built" % kdf)
    sys.exit(1)
KEYS = set(subprocess.run([kdf, "check-conf", "--keys"], capture_output=True, text=True,
                          check=True).stdout.split())
if len(KEYS) < 12:
    print("FAIL: kdfhash check-conf --keys listed only %d keys" % len(KEYS))
    sys.exit(1)
KEYLINE = re.compile(r"^\s*([a-z][a-z0-9.-]*) = \S")

def is_key_line(line):
    m = KEYLINE.match(line)
    return m is not None and m.group(1) in KEYS

def examples(text):
    """(line number, lines, text before it) of every kdfhash.conf example."""
    out, lines = [], text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        if lines[i].strip() == "```":
            j = i + 1
            while j < n and lines[j].strip() != "```":
                j += 1
            body = lines[i + 1:j]
            first = [l for l in body if l.strip() and not l.lstrip().startswith("#")]
            if first and is_key_line(first[0]):
                out.append((i + 1, body, "\n".join(lines[max(0, i - 8):i])))
            i = j + 1
            continue
        if lines[i].startswith("\t"):
            j = i
            while j < n and lines[j].startswith("\t") and lines[j].strip() != "```":
                j += 1
            body = lines[i:j]
            if all(is_key_line(l) for l in body):
                out.append((i + 1, body, "\n".join(lines[max(0, i - 8):i])))
            i = max(j, i + 1)
            continue
        i += 1
    return out

fail = 0

# 0. the extractor finds a planted fence and paragraph, and nothing else
planted = ("text\n\n```\n# c\ntarget = bcrypt cost=12\n```\n\n```\nkdfhash audit\n```\n\n"
           "\tmax.bcrypt = 14\n\n\tm=65536,t=3: not a policy\n\n```\nauth required x\n```\n")
got = [ln for ln, _, _ in examples(planted)]
if got != [3, 12]:
    print("FAIL: the extractor is broken: it found blocks at lines %s, want [3, 12]" % got)
    sys.exit(1)
print("ok: the extractor finds a planted fenced and indented example, and no other block")

# 1. every example passes check-conf
tmp = tempfile.mkdtemp(prefix="man-examples.")
small = None
counts = {}
for path in sorted(glob.glob(os.path.join(src, "doc", "*.scd"))):
    page = os.path.basename(path)[:-4]
    for ln, body, before in examples(open(path, encoding="utf-8").read()):
        counts[page] = counts.get(page, 0) + 1
        conf = os.path.join(tmp, "%s-%d.conf" % (page, ln))
        with open(conf, "w") as f:
            f.write("\n".join(l.strip() for l in body) + "\n")
        os.chmod(conf, 0o644)
        r = subprocess.run([kdf, "check-conf", conf], capture_output=True, text=True)
        if r.returncode != 0 or ": ok: target = " not in r.stdout:
            print("FAIL: doc/%s.scd:%d: the example is refused by kdfhash check-conf "
                  "(exit %d): %s" % (page, ln, r.returncode, (r.stderr or r.stdout).strip()))
            fail = 1
        else:
            print("ok: doc/%s.scd:%d: %s" % (page, ln, r.stdout.strip().split(": ok: ", 1)[-1]))
        if page == "kdfhash.conf.5" and "A small machine" in before and small is None:
            small = conf
if counts.get("kdfhash.conf.5", 0) < 4:
    print("FAIL: only %d kdfhash.conf examples found in kdfhash.conf.5.scd (expected 4 or more)"
          % counts.get("kdfhash.conf.5", 0))
    fail = 1

# 2. the small machine's caps admit argon2-cffi's default hashes
if small is None:
    print("FAIL: no example after 'A small machine' in kdfhash.conf.5.scd")
    sys.exit(1)
py = None
for cand in ("python3", "/usr/bin/python3"):
    try:
        if subprocess.run([cand, "-c", "import argon2"], capture_output=True).returncode == 0:
            py = cand
            break
    except OSError:
        pass
if py is None:
    print("SKIP (part 2 only): no python3 with the argon2 module (python3-argon2), so the "
          "small-machine caps are not tried against argon2-cffi's defaults")
else:
    pw = "man-examples"
    h = subprocess.run([py, "-c", "import argon2,sys; "
                        "sys.stdout.write(argon2.PasswordHasher().hash(sys.argv[1]))", pw],
                       capture_output=True, text=True, check=True).stdout
    params = h.split("$")[3] if h.count("$") >= 4 else "?"
    r = subprocess.run([kdf, "verify", "--conf", small, h], input=pw, capture_output=True,
                       text=True)
    if r.returncode != 0 or r.stdout.strip() != "ok":
        print("FAIL: the small-machine example refuses argon2-cffi's default hash (%s): "
              "exit %d: %s" % (params, r.returncode, (r.stderr or r.stdout).strip()))
        fail = 1
    else:
        print("ok: the small-machine example verifies argon2-cffi's default hash (%s)" % params)
    # The same hash under a p cap of 4 is refused: the check above can fail.
    capped = os.path.join(tmp, "capped.conf")
    with open(capped, "w") as f:
        f.write("target = argon2id m=32768,t=4,p=2\nmax.argon2 = m=262144,t=10,p=4\n")
    os.chmod(capped, 0o644)
    r = subprocess.run([kdf, "verify", "--conf", capped, h], input=pw, capture_output=True,
                       text=True)
    want_refused = params != "?" and int(re.search(r"p=(\d+)", params).group(1)) > 4
    if want_refused and r.returncode != 2:
        print("FAIL: a p cap of 4 did not refuse %s (exit %d)" % (params, r.returncode))
        fail = 1
for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
sys.exit(fail)
PY
