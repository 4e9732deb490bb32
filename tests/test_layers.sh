#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_layers.sh - the core's files point one way (doc/DESIGN.md "Layers of
# the core"), and account files stay out of the core:
#   - no two object files of core/ reach each other, through calls or data,
#     in a loop (nm: who defines and who uses each symbol);
#   - no include loop among core's headers;
#   - the core neither includes a header of accounts/ (the shadow-line
#     reading that the module and the CLI share) nor uses a symbol that
#     accounts/ defines;
#   - accounts/ and ds_plugin/ include no core header but kdfhash.h;
#     pam_module/ and cli/ include kdfhash.h and accounts/' headers only.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${top_builddir:-.}
if ! command -v python3 >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "SKIP: python3 and nm (binutils) are needed"
    exit 77
fi
exec python3 - "$srcdir" "$builddir" <<'PY'
import os, re, subprocess, sys

src, build = sys.argv[1], sys.argv[2]
fail = 0

def sccs(graph):
    """Tarjan: the strongly connected components of more than one node."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index: visit(v)
    return out

# 1. the members of the core's archives (the library and its per-ISA parts)
libs = []
libdir = os.path.join(build, "core", ".libs")
if os.path.isdir(libdir):
    libs = [os.path.join(libdir, f) for f in sorted(os.listdir(libdir))
            if f.startswith("libkdf") and f.endswith(".a")]
if not libs:
    print("SKIP: core/.libs/libkdf*.a not built in %s" % build)
    sys.exit(77)
defs, uses = {}, {}
for lib in libs:
    out = subprocess.run(["nm", lib], capture_output=True, text=True).stdout
    name = None
    for line in out.splitlines():
        if line.endswith(".o:"):
            name = re.sub(r"^lt\d+-", "", line[:-1])
            name = re.sub(r"^lib\w+_la-", "", name)
            continue
        parts = line.split()
        if name is None:
            continue
        if len(parts) == 2 and parts[0] == "U":
            uses.setdefault(name, set()).add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDRBCV":
            defs[parts[2]] = name
graph = {}
for o, syms in uses.items():
    for s in syms:
        if s in defs and defs[s] != o:
            graph.setdefault(o, set()).add(defs[s])
loops = sccs(graph)
for comp in loops:
    print("FAIL: core objects reach each other in a loop: %s" % " <-> ".join(comp))
    fail = 1
print("ok: %d core objects, %d edges, no loop" % (len(set(uses) | set(defs.values())),
      sum(len(v) for v in graph.values())) if not loops else "")

# 2. header includes in core/
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
hgraph = {}
for d, _, files in os.walk(os.path.join(src, "core")):
    for f in files:
        if f.endswith(".h"):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, os.path.join(src, "core"))
            for h in inc.findall(open(p, encoding="utf-8", errors="replace").read()):
                hgraph.setdefault(rel, set()).add(os.path.normpath(os.path.join(os.path.dirname(rel), h)) if "/" in rel and not os.path.exists(os.path.join(src, "core", h)) else h)
for comp in sccs(hgraph):
    print("FAIL: core headers include each other: %s" % " <-> ".join(comp))
    fail = 1

# 3. the core knows no account files: no accounts/ header, no accounts/ symbol
acc_h = {f for f in os.listdir(os.path.join(src, "accounts")) if f.endswith(".h")}
for d, _, files in os.walk(os.path.join(src, "core")):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        p = os.path.join(d, f)
        for h in inc.findall(open(p, encoding="utf-8", errors="replace").read()):
            if os.path.basename(h) in acc_h:
                print("FAIL: %s includes accounts/%s (the core knows no account files)"
                      % (os.path.relpath(p, src), os.path.basename(h)))
                fail = 1
acc_lib = os.path.join(build, "accounts", ".libs", "libkdfaccounts.a")
if os.path.isfile(acc_lib):
    out = subprocess.run(["nm", "--defined-only", acc_lib], capture_output=True,
                         text=True).stdout
    acc_defs = {l.split()[2] for l in out.splitlines()
                if len(l.split()) == 3 and l.split()[1] in "TDRBCV"}
    for o, syms in sorted(uses.items()):
        for s in sorted(syms & acc_defs):
            print("FAIL: core object %s uses %s of accounts/" % (o, s))
            fail = 1
else:
    print("note: %s not built: the symbol check of accounts/ is skipped" % acc_lib)

# 4. code outside core sees only kdfhash.h of core's headers; of accounts/'
# headers, only the module and the CLI include any
core_h = {f for f in os.listdir(os.path.join(src, "core")) if f.endswith(".h")}
for d in ("accounts", "pam_module", "cli", "ds_plugin"):
    for f in sorted(os.listdir(os.path.join(src, d))):
        if not f.endswith((".c", ".h")):
            continue
        for h in inc.findall(open(os.path.join(src, d, f), encoding="utf-8").read()):
            if h in core_h and h != "kdfhash.h":
                print("FAIL: %s/%s includes core/%s (only kdfhash.h is public)" % (d, f, h))
                fail = 1
            if h in acc_h and d not in ("accounts", "pam_module", "cli"):
                print("FAIL: %s/%s includes accounts/%s (for the module and the CLI)"
                      % (d, f, h))
                fail = 1
if not fail:
    print("ok: no include loop in core/, no accounts/ in the core; accounts/, pam_module/, "
          "cli/ and ds_plugin/ include no core header but kdfhash.h")
sys.exit(fail)
PY
