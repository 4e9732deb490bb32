#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_scheme_lists.sh - no list of schemes outside the scheme table.
#
# Every fact about a scheme lives in its row (core/scheme_*.c, listed in
# core/table_schemes.c); the module, the CLI, the directory server plugin, the
# maintainer scripts and the rest of the core ask the table.  A second
# list is how a new scheme gets forgotten: the stranded-account count once
# did not know scrypt.  This test fails on any line of product code outside
# the schemes' own files that names a particular scheme:
#   - an id of enum kdf_scheme other than the generic ones (EMPTY, LOCKED,
#     LEGACY, WRAPPED, COUNT) in C;
#   - a hash prefix as a string ("$argon2id$", "$2b$", "pbkdf2_", "$y$"...)
#     in C, or in the shell and awk of scripts/ and the Debian maintainer
#     scripts.
# Comments do not count (they explain; they decide nothing).  The public
# PBKDF2 entry point and libxcrypt's own cost reader are allowed, each with
# its reason below (the algorithm layer otherwise names its hashes by
# enum kdf_prim).  First the scanner is shown a planted list, so a
# scanner that finds nothing cannot pass.  Last, the one derived list the
# tree keeps, tools/kdfhash-foreign-prefixes (the maintainer scripts
# cannot link the core, and a cross build cannot run kdfhash to write it),
# must be what the table prints (`make regen-foreign-prefixes`).
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
command -v python3 > /dev/null 2>&1 || { echo "FAIL: python3 is needed"; exit 1; }
exec python3 - "$srcdir" "$builddir" << 'PY'
import os, re, subprocess, sys, tempfile

src, build = sys.argv[1], sys.argv[2]

IDS = re.compile(r"\bKDF_SCHEME_(?!EMPTY\b|LOCKED\b|LEGACY\b|WRAPPED\b|COUNT\b|H\b)[A-Z0-9_]+\b")
PREFIX = re.compile(r"""["'](\$(2[abxy]|argon2[a-z]*|pbkdf2[a-z0-9-]*|scrypt|bcrypt[a-z0-9-]*|"""
                    r"""y|gy|[1-7]|sha1|md5)[$,]|(pbkdf2|bcrypt|argon2|scrypt)_?[a-z0-9]*\$)""")

# file: why it may name schemes
ALLOWED = {
    "core/kdfhash.h": "defines enum kdf_scheme itself",
    "core/table_schemes.c": "the table",
    "core/alg_pbkdf2.c": "kdf_pbkdf2() (kdfhash.h) names its hash by the PBKDF2 id",
    "core/hstr_xcrypt_cost.c": "libxcrypt's own settings, read for the crypt(3) rows' caps",
}

def c_code_lines(text):
    """Lines of C with comments blanked (string contents kept)."""
    out, i, n, in_c = [], 0, len(text), False
    buf = []
    while i < n:
        ch = text[i]
        if in_c:
            if text.startswith("*/", i):
                in_c = False
                i += 2
                continue
            if ch == "\n":
                buf.append("\n")
            i += 1
            continue
        if text.startswith("/*", i):
            in_c = True
            i += 2
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            buf.append(text[i:j + 1])
            i = j + 1
            continue
        buf.append(ch)
        i += 1
    return "".join(buf).split("\n")

def sh_code_lines(text):
    return [("" if l.lstrip().startswith("#") else l) for l in text.split("\n")]

def scan(path, rel):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return []
    c = rel.endswith((".c", ".h"))
    lines = c_code_lines(text) if c else sh_code_lines(text)
    hits = []
    for no, line in enumerate(lines, 1):
        if (c and IDS.search(line)) or PREFIX.search(line):
            hits.append("%s:%d: %s" % (rel, no, line.strip()[:100]))
    return hits

# 0. the scanner finds a planted list
with tempfile.TemporaryDirectory() as d:
    planted = {"x.c": 'int f(int s) { return s == KDF_SCHEME_BCRYPT; }\n',
               "y.c": 'static const char *p[] = {"$argon2id$", 0};\n',
               "z.sh": "awk 'substr(h, 1, 8) == \"$scrypt$\"'\n",
               "ok.c": '/* KDF_SCHEME_BCRYPT "$2b$" in a comment */ int s = KDF_SCHEME_LEGACY;\n'}
    found = []
    for f, t in planted.items():
        open(os.path.join(d, f), "w").write(t)
        found += scan(os.path.join(d, f), f)
    names = sorted(set(h.split(":")[0] for h in found))
    if names != ["x.c", "y.c", "z.sh"]:
        print("FAIL: the scanner is broken: it flagged %s, want x.c y.c z.sh" % names)
        sys.exit(1)
print("ok: the scanner finds a planted scheme id, prefix table and awk prefix")

# 1. the product
files = []
for top in ("core", "pam_module", "cli", "ds_plugin", "accounts", "keys"):
    for dirpath, _, fs in os.walk(os.path.join(src, top)):
        for f in fs:
            if f.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(dirpath, f), src))
for f in sorted(os.listdir(os.path.join(src, "tools"))):
    if f.startswith("kdfhash-") and f != "kdfhash-foreign-prefixes":
        files.append("tools/" + f)
deb = os.path.join(src, "packaging", "debian")
for f in sorted(os.listdir(deb)):
    if f.endswith((".postinst", ".prerm", ".postrm", ".preinst")):
        files.append("packaging/debian/" + f)

fail = 0
for rel in sorted(files):
    base = os.path.basename(rel)
    if rel in ALLOWED or (rel.startswith("core/") and base.startswith("scheme_")):
        continue
    for h in scan(os.path.join(src, rel), rel):
        print("FAIL: a scheme named outside the scheme table: " + h)
        fail = 1
print("ok: %d product files, no scheme named outside the table (allowed: %s)" %
      (len(files), "; ".join("%s (%s)" % kv for kv in sorted(ALLOWED.items()))) if not fail else "")

# 2. the derived list is the table's
kdf = os.path.join(build, "cli", "kdfhash")
if not os.access(kdf, os.X_OK):
    print("FAIL: %s not built" % kdf)
    sys.exit(1)
want = subprocess.run([kdf, "schemes", "--foreign-prefixes"], capture_output=True,
                      text=True, check=True).stdout
have = open(os.path.join(src, "tools", "kdfhash-foreign-prefixes")).read()
if have != want:
    print("FAIL: tools/kdfhash-foreign-prefixes is not what the scheme table says "
          "(make regen-foreign-prefixes): have %r, want %r" % (have.split(), want.split()))
    fail = 1
else:
    print("ok: tools/kdfhash-foreign-prefixes is the table's list (%d prefixes)"
          % len(want.split()))
sys.exit(fail)
PY
