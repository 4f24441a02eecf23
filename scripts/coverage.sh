#!/usr/bin/env bash
# Line and branch coverage of src/ by the Linux suite (g++ --coverage, -O0; gcovr):
#
#   bash scripts/coverage.sh [ctest arguments...]
#
# Builds the "coverage" preset (build-coverage/), clears the counters, runs the suite (the
# hsperfguard executable the tests start counts too: it is built from the same objects), and
# writes build-coverage/coverage/ (index.html, summary.json). Prints the figure for src/ as a
# whole and per layer, the files of src/checks/ (the rules) not fully covered, and then
# (scripts/coverage_rules.py) each rule line never run; it fails if one is left.
# Branches: those the compiler adds for exceptions and the ones it proves unreachable are not
# counted (--exclude-throw-branches, --exclude-unreachable-branches); the rest are the
# branches of the source. The Windows sources are not built here and are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build-coverage
out=$build_dir/coverage

bash scripts/build.sh coverage
find "$build_dir" -name '*.gcda' -delete
rc=0
ctest --preset coverage -j"$(nproc)" "$@" || rc=$?

rm -rf "$out"
mkdir -p "$out"
gcovr --root . --object-directory "$build_dir" --filter 'src/' --exclude 'src/platform/windows/' \
  --exclude-throw-branches --exclude-unreachable-branches -j"$(nproc)" \
  --json-summary "$out/summary.json" --html-details "$out/index.html" --print-summary \
  "$build_dir" | tail -n 3

python3 - "$out/summary.json" <<'EOF'
import json, sys
files = json.load(open(sys.argv[1]))["files"]
layers = {}
for f in files:
    # Headers are named by the layer include root they were reached through
    # (BUILD/layers/<layer>/<layer>/x.hpp, a link to src/<layer>/x.hpp).
    parts = f["filename"].split("/")
    if "layers" in parts:
        layer = parts[parts.index("layers") + 1]
    else:
        layer = parts[1] if len(parts) > 2 else "(top)"
    t = layers.setdefault(layer, [0, 0, 0, 0, 0, 0])
    t[0] += f["line_covered"]; t[1] += f["line_total"]
    t[2] += f["branch_covered"]; t[3] += f["branch_total"]
    t[4] += f["function_covered"]; t[5] += f["function_total"]
def pct(a, b): return f"{100.0 * a / b:5.1f}%" if b else "    -"
print(f"{'layer':10} {'lines':>16} {'branches':>16} {'functions':>14}")
total = [0] * 6
for layer in sorted(layers):
    t = layers[layer]
    total = [a + b for a, b in zip(total, t)]
    print(f"{layer:10} {pct(t[0], t[1])} {t[0]:>5}/{t[1]:<5} {pct(t[2], t[3])} {t[2]:>5}/{t[3]:<5}"
          f" {pct(t[4], t[5])} {t[4]:>3}/{t[5]:<3}")
t = total
print(f"{'src/':10} {pct(t[0], t[1])} {t[0]:>5}/{t[1]:<5} {pct(t[2], t[3])} {t[2]:>5}/{t[3]:<5}"
      f" {pct(t[4], t[5])} {t[4]:>3}/{t[5]:<3}")
print("rules (src/checks/) not fully covered:")
for f in sorted(files, key=lambda f: f["filename"]):
    if ("src/checks/" in f["filename"] or "layers/checks/" in f["filename"]) and (
            f["line_covered"] < f["line_total"] or f["function_covered"] < f["function_total"]):
        print(f"  {f['filename']}: lines {f['line_covered']}/{f['line_total']}, "
              f"functions {f['function_covered']}/{f['function_total']}")
EOF
# Rule by rule: every line of src/checks/ run, or named (exception cleanup, marked fallbacks).
python3 scripts/coverage_rules.py "$build_dir" || rc=1
echo "coverage: report in $out/index.html"
exit "$rc"
