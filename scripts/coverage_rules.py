#!/usr/bin/env python3
"""Which lines of the rules (src/checks/) the suite never ran, after a coverage run.

    python3 scripts/coverage_rules.py [BUILD_DIR]      (default build-coverage)

gcov counts a line as not run when none of its blocks ran. In g++'s code for a braced
initialiser (`nlohmann::json e = {{"a", f()}, {"b", g()}}`) the calls of every element are
attributed to the statement's first line, and an element's own line often holds only the
cleanup that runs if a later element throws: gcov marks such blocks `$$$$$` (exceptional). A line
whose every block is exceptional is that cleanup, not a rule's logic; it is listed apart.
A line marked GCOVR_EXCL_LINE (with its reason beside it) is listed apart too.

Prints each class with its lines and exits 1 if a rule line outside those two classes was
never run, or if a rule function was never called.
"""
import os
import re
import subprocess
import sys
import tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build-coverage"
objdir = os.path.join(build, "CMakeFiles", "hsperfguard_checks.dir", "src", "checks")
gcdas = sorted(os.path.join(objdir, f) for f in os.listdir(objdir) if f.endswith(".gcda"))
if not gcdas:
    sys.exit(f"coverage_rules: no .gcda in {objdir}: run scripts/coverage.sh first")

line_re = re.compile(r"^\s*([^:]+):\s*(\d+):(.*)$")
block_re = re.compile(r"^\s*([^:]+):\s*(\d+)-block\s+\d+")
missed, cleanup, marked, uncalled = [], [], [], []
lines_total = 0
with tempfile.TemporaryDirectory() as tmp:
    for gcda in gcdas:
        subprocess.run(["gcov", "-a", "-b", "-m", "-p", "-o", os.path.abspath(objdir), os.path.abspath(gcda)],
                       cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    for name in sorted(os.listdir(tmp)):
        path = os.path.join(tmp, name)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()
        source = next((l.split("Source:", 1)[1] for l in text[:3] if "Source:" in l), "")
        if "src/checks/" not in source or not source.endswith(".cpp"):
            continue
        rel = source[source.index("src/checks/"):]
        current = None  # (number, count, code, [block counts])
        entries = []
        for l in text:
            if l.startswith("function "):
                m = re.match(r"function (.+) called (\d+) returned", l)
                if m and m.group(2) == "0":
                    uncalled.append(f"{rel}: {m.group(1)}")
                continue
            b = block_re.match(l)
            if b and current is not None:
                current[3].append(b.group(1).strip())
                continue
            m = line_re.match(l)
            if m and m.group(2) != "0":
                current = [int(m.group(2)), m.group(1).strip(), m.group(3), []]
                entries.append(current)
        for number, count, code, blocks in entries:
            if count == "-":
                continue
            lines_total += 1
            if count not in ("#####", "====="):
                continue
            where = f"{rel}:{number}: {code.strip()}"
            if "GCOVR_EXCL_LINE" in code:
                marked.append(where)
            elif blocks and all(b == "$$$$$" for b in blocks):
                cleanup.append(where)
            else:
                missed.append(where)


def show(title, items):
    print(f"{title}: {len(items)}")
    for i in items:
        print(f"  {i}")


print(f"rules (src/checks/*.cpp): {lines_total} lines of code")
show("rule lines never run", missed)
show("rule functions never called", uncalled)
show("lines holding only exception cleanup (not counted against the rules)", cleanup)
show("lines excluded by a GCOVR_EXCL_LINE marker, each with its reason", marked)
sys.exit(1 if missed or uncalled else 0)
