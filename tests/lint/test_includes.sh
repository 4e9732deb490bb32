#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# test_includes.sh - every core file uses what each core header it includes
# declares: a header of functions is included only by files that call one
# of them or use one of its macros, types or constants.  A header that
# declares no function (the prelude) is the base every file may include.
# Without this, one catch-all header draws a dependency from every file to
# every owner and the layer check sees arrows that are not there.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is needed"
    exit 77
fi
exec python3 - "$srcdir" <<'PY'
import os, re, sys

src = sys.argv[1]
core = os.path.join(src, "core")
KEYWORDS = set("""if for while switch return sizeof defined do else case goto
    _Static_assert static_assert __attribute__ __typeof__ typeof alignof
    _Alignof offsetof""".split())

def strip(text):
    """Comments and string/char literals out, lines kept."""
    out, i, n = [], 0, len(text)
    rx = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return rx.sub(lambda m: "\n" * m.group(0).count("\n") if m.group(0)[0] == "/" else '""', text)

def macro_bodies(text):
    """name -> the words of its body, for each #define of a header."""
    t = strip(text).replace("\\\n", " ")
    return {m.group(1): set(re.findall(r"\b\w+\b", m.group(2)))
            for m in re.finditer(r"^\s*#\s*define\s+(\w+)(.*)$", t, re.M)}

def declared(text):
    """(functions, other names) a header declares at file scope."""
    t = strip(text)
    funcs, names = set(), set()
    for m in re.finditer(r"^\s*#\s*define\s+(\w+)", t, re.M):
        names.add(m.group(1))
    body = re.sub(r"^\s*#.*?(?<!\\)$", "", t, flags=re.M | re.S)
    depth, stmt = 0, []
    for ch in body:
        if ch == "{":
            s = "".join(stmt)
            if depth == 0:
                m = re.search(r"\b(struct|enum|union)\s+(\w+)\s*$", s)
                if m:
                    names.add(m.group(2))
                elif "(" in s:
                    fm = re.findall(r"\b([A-Za-z_]\w*)\s*\(", s)
                    fm = [f for f in fm if f not in KEYWORDS and not f.startswith("__")]
                    if fm:
                        funcs.add(fm[0] if not fm[0].isupper() else fm[-1])
                stmt = ["ENUMBODY"] if re.search(r"\benum\b[^;]*$", s) and "(" not in s else []
            depth += 1
            continue
        if ch == "}":
            depth -= 1
            if depth == 0:
                s = "".join(stmt)
                if s.startswith("ENUMBODY"):
                    for m in re.finditer(r"(?:^|,)\s*([A-Z_][A-Z0-9_]*)", s[len("ENUMBODY"):]):
                        names.add(m.group(1))
                stmt = []
            continue
        if depth == 0:
            if ch == ";":
                s = " ".join("".join(stmt).split())
                stmt = []
                if not s:
                    continue
                if s.startswith("typedef"):
                    m = (re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", s) or
                         re.search(r"(\w+)\s*\(", s) or re.search(r"(\w+)\W*$", s))
                    if m: names.add(m.group(1))
                elif "(" in s and not s.startswith("extern") or re.search(r"\w\s*\(", s) and "=" not in s:
                    fm = [f for f in re.findall(r"\b([A-Za-z_]\w*)\s*\(", s)
                          if f not in KEYWORDS and not f.startswith("__") and not f.isupper()]
                    if fm:
                        funcs.add(fm[0])
                elif s.startswith("extern"):
                    for m in re.finditer(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:,|$|=)", s):
                        names.add(m.group(1))
                elif re.match(r"(struct|enum|union)\s+\w+$", s):
                    names.add(s.split()[1])
                elif re.match(r"\w+\s+\w+(\s*,\s*\w+)*$", s):
                    # "kdf_compress_fn a, b;": functions of a typedef'd type
                    funcs.update(w.strip() for w in s.split(None, 1)[1].split(","))
            else:
                stmt.append(ch)
        elif depth == 1 and stmt and stmt[0] == "ENUMBODY":
            stmt.append(ch)
    return funcs, names

def resolve(f, h):
    for d in (os.path.dirname(f), core, os.path.join(core, "simd")):
        p = os.path.normpath(os.path.join(d, h))
        if os.path.isfile(p) and p.startswith(core + os.sep):
            return p
    return None

fail = 0
cache = {}
def check(path, text):
    global fail
    bad = []
    code = strip(text)
    inc_rx = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    used_text = inc_rx.sub("", code)
    words = set(re.findall(r"\b\w+\b", used_text))
    # A macro of an included header uses what its body names: the file
    # that expands it needs the headers those names come from.
    bodies = {}
    for h in inc_rx.findall(text):
        p = resolve(path, h)
        if p is not None:
            bodies.update(macro_bodies(open(p, encoding="utf-8").read()))
    bodies.update(macro_bodies(text))
    for _ in range(4):
        more = set().union(*(bodies[w] for w in words if w in bodies)) - words
        if not more:
            break
        words |= more
    for h in inc_rx.findall(text):
        p = resolve(path, h)
        if p is None:
            continue
        if p not in cache:
            cache[p] = declared(open(p, encoding="utf-8").read())
        funcs, names = cache[p]
        if not funcs or os.path.basename(p) == "kdf_prelude.h":
            continue
        if not (words & (funcs | names)):
            bad.append(h)
    return bad

# The check must be able to fail: a file that includes a header of
# functions and uses none of them is caught, one that calls one is not.
probe_h = "int kdf_probe_a(int x);\n#define KDF_PROBE 1\n"
probe_funcs, probe_names = declared(probe_h)
if "kdf_probe_a" not in probe_funcs or "KDF_PROBE" not in probe_names:
    print("FAIL: the declaration reader misses a prototype or a macro: %r %r" % (probe_funcs, probe_names))
    fail = 1

files = []
for d, _, fs in os.walk(core):
    for f in sorted(fs):
        if f.endswith((".c", ".h")):
            files.append(os.path.join(d, f))
n = 0
for p in sorted(files):
    text = open(p, encoding="utf-8").read()
    for h in check(p, text):
        print("FAIL: %s includes %s and uses nothing it declares" % (os.path.relpath(p, src), h))
        fail = 1
    n += 1
if not fail:
    print("ok: %d core files, each uses what every header of functions it includes declares" % n)
sys.exit(fail)
PY
