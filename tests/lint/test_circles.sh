#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_circles.sh - no two files of the product reach each other in a
# circle, through includes or calls.  An edge a -> b is an #include "b" in
# a, or a global symbol that a's object uses and b's object defines (nm on
# the objects of the build, test and benchmark programs left out).  The core's
# own layer order is test_layers.sh's; this is the whole product's shape.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
if ! command -v python3 >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "SKIP: python3 and nm (binutils) are needed"
    exit 77
fi
exec python3 - "$srcdir" "$builddir" <<'PY'
import os, re, subprocess, sys

src, build = sys.argv[1], sys.argv[2]
DIRS = ("core", "core/simd", "accounts", "keys", "pam_module", "cli", "ds_plugin")
fail = 0

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(src, "tests", "lint"))
from graph import sccs  # noqa: E402

# The check must be able to fail: a planted two-file circle is found.
if sccs({"a": {"b"}, "b": {"a"}}) != [["a", "b"]]:
    print("FAIL: the circle finder misses a planted circle")
    sys.exit(1)

sources = {}
for d in DIRS:
    full = os.path.join(src, d)
    if not os.path.isdir(full):
        continue
    for f in sorted(os.listdir(full)):
        if f.endswith((".c", ".h")):
            sources[os.path.join(d, f)] = os.path.join(full, f)
by_name = {}
for rel in sources:
    by_name.setdefault(os.path.basename(rel), []).append(rel)

graph = {}
def edge(a, b):
    if a != b:
        graph.setdefault(a, set()).add(b)

# 1. includes: the including file's folder first, then the others
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for rel, full in sources.items():
    for h in inc.findall(open(full, encoding="utf-8", errors="replace").read()):
        cand = os.path.normpath(os.path.join(os.path.dirname(rel), h))
        if cand in sources:
            edge(rel, cand)
        elif len(by_name.get(os.path.basename(h), [])) == 1:
            edge(rel, by_name[os.path.basename(h)][0])

# 2. calls and data: the objects of the build, one source per object
objs = []
for d in DIRS:
    for sub in ("", ".libs"):
        full = os.path.join(build, d, sub)
        if os.path.isdir(full):
            objs += [(d, os.path.join(full, f)) for f in os.listdir(full) if f.endswith(".o")]
defs, uses = {}, {}
for d, o in objs:
    base = os.path.basename(o)[:-2]
    prefix, _, stem = base.rpartition("-")
    if prefix.startswith(("tests_", "bench_")):
        continue
    rel = os.path.join(d, stem + ".c")
    if rel not in sources:
        continue
    # An object older than its source is a leftover of an earlier build
    # (a renamed target's, say), not what the product is made of now.
    try:
        if os.path.getmtime(o) < os.path.getmtime(sources[rel]):
            continue
    except OSError:  # gone meanwhile: a build is running in this tree
        continue
    out = subprocess.run(["nm", o], capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            uses.setdefault(rel, set()).add(p[1])
        elif len(p) == 3 and p[1] in "TDRBCV":
            defs.setdefault(p[2], set()).add(rel)
if not uses:
    print("SKIP: no product objects built in %s" % build)
    sys.exit(77)
for a, syms in uses.items():
    for s in syms:
        for b in defs.get(s, ()):
            edge(a, b)

circles = sccs(graph)
for c in circles:
    print("FAIL: these files reach each other in a circle: %s" % " <-> ".join(c))
    fail = 1
if not fail:
    print("ok: %d files of the product, %d arrows (includes and calls), no circle" %
          (len(set(graph) | set().union(*graph.values())), sum(len(v) for v in graph.values())))
sys.exit(fail)
PY
