#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_layers.sh - the core's files point one way (doc/DESIGN.md "Layers of
# the core"), and account files stay out of the core:
#   - no two object files of core/ reach each other, through calls or data,
#     in a loop (nm: who defines and who uses each symbol);
#   - every .c file of the core is in one layer of DESIGN.md's list, which
#     names each layer by its file-name prefix (util_*.c, alg_*.c...), and no
#     object file uses one of a later layer;
#   - no include loop among core's headers;
#   - the core neither includes a header of accounts/ or keys/ (the
#     shadow-line reading and the key store that the module and the CLI
#     share) nor uses a symbol that libkdfaccounts defines;
#   - accounts/, keys/, pam_module/ and ds_plugin/ include no core header
#     but kdfhash.h, cli/ kdfhash.h and kdfhash_cpu.h; of the headers of
#     accounts/ and keys/, only they, the module and the CLI include any.
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
fail = 0

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(src, "tests", "lint"))
from graph import sccs  # noqa: E402

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

# 1b. the layer order doc/DESIGN.md "Layers of the core" states: each numbered
# item names its files in backquotes (a file, a glob, or a folder ending in
# /); every .c file of the core is in exactly one layer, and an object file
# uses only its own layer and the ones before it.
import fnmatch

def design_layers(text):
    """[name, patterns] per numbered item: the backquoted names in the
    parentheses after the item's bold title (prose after them is free)."""
    m = re.search(r"^## [0-9. ]*Layers of the core\n(.*?)(?=^## )", text, re.M | re.S)
    if not m:
        return None
    layers = []
    for item in re.finditer(r"^\d+\. \*\*([^*]+)\*\*\s*\(([^)]*)\)", m.group(1), re.M):
        pats = [t for t in re.findall(r"`([^`\s]+)`", item.group(2))
                if t.endswith((".c", "/"))]
        layers.append([item.group(1), pats])
    return layers

def layer_of(path, layers):
    """The layers whose patterns match a core source path (relative to core/)."""
    hits = []
    for k, (_, pats) in enumerate(layers):
        for pat in pats:
            pat = pat[len("core/"):] if pat.startswith("core/") else pat
            if (pat.endswith("/") and path.startswith(pat)) or \
               (not pat.endswith("/") and "/" not in path and fnmatch.fnmatchcase(path, pat)):
                hits.append(k)
                break
    return hits

def upward(edges, where, layers):
    """The edges o -> d that go to a later layer than o's."""
    bad = []
    for o, ds in sorted(edges.items()):
        for d in sorted(ds):
            if o in where and d in where and where[d] > where[o]:
                bad.append((o, d))
    return bad

layers = design_layers(open(os.path.join(src, "doc", "DESIGN.md"), encoding="utf-8").read())
if not layers or not any(p for _, p in layers):
    print("FAIL: doc/DESIGN.md has no \"Layers of the core\" list with file names")
    fail = 1
else:
    srcs = {}
    for d, _, files in os.walk(os.path.join(src, "core")):
        for f in files:
            if f.endswith(".c"):
                srcs[f[:-2]] = os.path.relpath(os.path.join(d, f), os.path.join(src, "core"))
    where = {}
    for stem, rel in sorted(srcs.items()):
        hits = layer_of(rel, layers)
        if len(hits) != 1:
            print("FAIL: core/%s is in %s of doc/DESIGN.md's layers" %
                  (rel, "none" if not hits else "%d" % len(hits)))
            fail = 1
        else:
            where[stem + ".o"] = hits[0]
    # The layer is read from the name: a layer lists a prefix glob
    # ("util_*.c") or a folder, never single files, so a new file's name
    # says where it belongs.
    for name, pats in layers:
        for pat in pats:
            if not (pat.endswith("/") or re.match(r"^(core/)?[a-z0-9]+_\*\.c$", pat)):
                print("FAIL: doc/DESIGN.md's layer %s names %s, not a prefix glob "
                      "(\"util_*.c\") or a folder" % (name, pat))
                fail = 1
    # The check must be able to fail: an algorithm calling an entry point
    # is caught.
    probe = {"alg_sha256.o": {"api_kdf.o"}}
    if "alg_sha256.o" in where and "api_kdf.o" in where and not upward(probe, where, layers):
        print("FAIL: the layer check does not catch a planted upward edge")
        fail = 1
    bad = upward(graph, where, layers)
    for o, d in bad:
        print("FAIL: %s (layer %d, %s) uses %s (layer %d, %s), a later layer" %
              (o, where[o] + 1, layers[where[o]][0], d, where[d] + 1, layers[where[d]][0]))
        fail = 1
    objs = set(uses) | set(defs.values())
    missing = sorted(o for o in objs if o not in where)
    for o in missing:
        print("FAIL: core object %s has no source file in a layer" % o)
        fail = 1
    if not bad and not missing:
        print("ok: %d core objects in %d layers, every use goes to the same or an "
              "earlier layer" % (len(objs), len(layers)))

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
acc_h = {f for d in ("accounts", "keys") for f in os.listdir(os.path.join(src, d))
         if f.endswith(".h")}
for d, _, files in os.walk(os.path.join(src, "core")):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        p = os.path.join(d, f)
        for h in inc.findall(open(p, encoding="utf-8", errors="replace").read()):
            if os.path.basename(h) in acc_h:
                print("FAIL: %s includes %s of accounts/ or keys/ (the core knows no "
                      "account files)" % (os.path.relpath(p, src), os.path.basename(h)))
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

# 4. code outside core sees only kdfhash.h of core's headers (the CLI also
# kdfhash_cpu.h); of accounts/' headers, only the module and the CLI include
# any
core_h = {f for f in os.listdir(os.path.join(src, "core")) if f.endswith(".h")}
for d in ("accounts", "keys", "pam_module", "cli", "ds_plugin"):
    for f in sorted(os.listdir(os.path.join(src, d))):
        if not f.endswith((".c", ".h")):
            continue
        for h in inc.findall(open(os.path.join(src, d, f), encoding="utf-8").read()):
            public = ("kdfhash.h", "kdfhash_cpu.h") if d == "cli" else ("kdfhash.h",)
            if h in core_h and h not in public:
                print("FAIL: %s/%s includes core/%s (only %s for %s/)" %
                      (d, f, h, " and ".join(public), d))
                fail = 1
            if h in acc_h and d not in ("accounts", "keys", "pam_module", "cli"):
                print("FAIL: %s/%s includes %s of accounts/ or keys/ (for the module and the CLI)"
                      % (d, f, h))
                fail = 1
if not fail:
    print("ok: no include loop in core/, no accounts/ or keys/ in the core; accounts/, keys/, "
          "pam_module/, ds_plugin/ include no core header but kdfhash.h, cli/ kdfhash_cpu.h too")
sys.exit(fail)
PY
