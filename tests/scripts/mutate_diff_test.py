#!/usr/bin/env python3
"""Tests of scripts/mutate.py --diff: which lines a change touched, which sources are the Linux
build's, the order the mutants are tried in, and which tests a touched file's mutants meet.

    python3 tests/scripts/mutate_diff_test.py BUILD_DIR

BUILD_DIR is a configured build (its compile database says what Linux compiles). Exit status 0
when every check holds; each failure is printed."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.argv = sys.argv[:2]
import mutate  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


# A change that adds two lines, changes one, only deletes elsewhere, and removes a file.
DIFF = """diff --git a/src/decide/reaper.cpp b/src/decide/reaper.cpp
index 1111111..2222222 100644
--- a/src/decide/reaper.cpp
+++ b/src/decide/reaper.cpp
@@ -10,0 +11,2 @@ ReapPlan plan(
+  if (a) return b;
+  if (c) return d;
@@ -40 +42 @@ ReapPlan plan(
-  if (x < 1) return y;
+  if (x <= 1) return y;
@@ -70,3 +71,0 @@ ReapPlan plan(
-  gone();
-  gone();
-  gone();
diff --git a/src/model/old.cpp b/src/model/old.cpp
deleted file mode 100644
--- a/src/model/old.cpp
+++ /dev/null
@@ -1,2 +0,0 @@
-int a;
-int b;
"""
check("the lines a change added or changed", mutate.parse_touched(DIFF),
      {"src/decide/reaper.cpp": [11, 12, 42]})

# The Linux build's sources: the compile database's, and every header but Windows'.
linux = mutate.linux_sources(sys.argv[1] if len(sys.argv) > 1 else "build")
for source in ("src/platform/posix/reap_posix.cpp", "src/checks/jvm.cpp",
               "src/platform/posix/observe_namespace_posix.hpp", "src/decide/reaper.hpp"):
    check(f"{source} is a Linux source", source in linux, True)
for source in (str(p.relative_to(ROOT)) for p in (ROOT / "src/platform/windows").iterdir()):
    check(f"{source} is not a Linux source", source in linux, False)

# The order: one mutant of each file in turn (files shuffled), the same for the same seed.
sites = [{"file": f, "id": f"{f}:{i}"} for f, n in (("a", 5), ("b", 1), ("c", 2)) for i in range(n)]
order = mutate.diff_order(sites, "34247e22728f")
check("every mutant is in the order once", sorted(s["id"] for s in order), sorted(s["id"] for s in sites))
check("the first three are of three files", len({s["file"] for s in order[:3]}), 3)
check("the next two are of the two files with more", {s["file"] for s in order[3:5]}, {"a", "c"})
check("the same seed gives the same order", [s["id"] for s in mutate.diff_order(sites, "34247e22728f")],
      [s["id"] for s in order])
check("another seed gives another order",
      any([s["id"] for s in mutate.diff_order(sites, seed)] != [s["id"] for s in order]
          for seed in ("a", "b", "c", "d")), True)

# The tests a file's mutants meet: every suite of the test files scripts/tests_of.py finds,
# a parameterised one with its prefix, and no suite whose name only begins the same.
regex, count = mutate.mapped_tests("src/model/pid_name.cpp")
for name, want in (("PidName.MaxPidIsRespected", True), ("All/PidNameTable.MatchesHotSpotAndClassifies/0", True),
                   ("PidNameX.Something", False), ("Perfdata.PidName", False)):
    check(f"{name} is among pid_name.cpp's tests", bool(regex and re.search(regex, name)), want)
regex, _ = mutate.mapped_tests("src/commands/reap_command.cpp")
check("reap_command.cpp's tests include the transcript of reap",
      bool(regex and re.search(regex, "transcript.reap")), True)

# The frequent killers of --random: the tests that killed most in the logs, most first, at most
# as many as asked, a parameterised test's value comment left out, a ctest failure never a test.
import json  # noqa: E402
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as scratch:
    one, two = pathlib.Path(scratch) / "one.jsonl", pathlib.Path(scratch) / "two.jsonl"
    one.write_text("".join(json.dumps({"killers": k}) + "\n" for k in (
        ["transcript.audit"], ["transcript.audit", "A.b"], ["(the suite timed out)"], [])))
    two.write_text(json.dumps({"killers": ["P/C.d/0  # GetParam() = 4-byte object <02>", "A.b"]}) +
                   "\n" + json.dumps({"killers": ["A.b"]}) + "\n")
    regex = mutate.frequent_killers([str(one), str(two), str(pathlib.Path(scratch) / "none")])
    check("the frequent killers of two logs", regex, r"^(A\.b|transcript\.audit|P/C\.d/0)$")
    check("at most as many as asked", mutate.frequent_killers([str(one), str(two)], most=1), r"^(A\.b)$")
    check("a log that names no test gives none", mutate.frequent_killers([str(pathlib.Path(scratch) / "none")]),
          None)

# A run stopped while it waits on a command (SIGTERM: a budget's timeout, a kill) takes the
# command's whole process group down with it: the tests ctest started, and what they started.
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
with tempfile.TemporaryDirectory() as scratch:
    marker = pathlib.Path(scratch) / "grandchild.pid"
    stopper = subprocess.Popen([sys.executable, "-c", f"""
import signal, sys
sys.path.insert(0, {str(ROOT / "scripts")!r}); sys.argv = sys.argv[:1]
import mutate
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
mutate.run(["sh", "-c", "sleep 600 & echo $! > {marker}; wait"])
"""])
    for _ in range(200):
        if marker.exists() and marker.read_text().strip():
            break
        time.sleep(0.05)
    grandchild = int(marker.read_text())
    stopper.send_signal(signal.SIGTERM)
    check("the stopped run's exit status", stopper.wait(timeout=30), 143)
    def running(pid):
        """Whether PID is a process that still runs: a killed one stays a zombie until whoever
        inherited it reaps it, which on a busy machine can take a while."""
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except (FileNotFoundError, ProcessLookupError):
            return False
    alive = True
    for _ in range(200):
        if not running(grandchild):
            alive = False
            break
        time.sleep(0.05)
    check("what the stopped command started outlives the run", alive, False)
    if alive:
        os.kill(grandchild, signal.SIGKILL)

# A whole suite cut short (--stop-on-failure) by a failure that does not repeat alone is run
# again without that test: the tests after it still meet the mutant and can kill it.
def fake_suite(outcomes):
    calls = []

    def failing(build_dir, regex=None, exclude=True, leave_out=None, prefix=(), labels_out=None):
        if regex:  # a failure run again alone: RealB fails again, FlakyA does not
            return ["RealB"] if "RealB" in regex else []
        calls.append(leave_out)
        return outcomes[len(calls) - 1] if len(calls) - 1 < len(outcomes) else []
    return failing, calls


saved = mutate.failing_tests
try:
    mutate.failing_tests, calls = fake_suite([["FlakyA"], ["RealB"]])
    check("a mutant whose killer came after a failure that did not repeat",
          mutate.suite_verdict("b", None), (["RealB"], "whole suite"))
    check("the second run leaves the failure that did not repeat out",
          "FlakyA" in (calls[1] or "") and "FlakyA" not in (calls[0] or ""), True)
    mutate.failing_tests, calls = fake_suite([["FlakyA"], []])
    killers, stage = mutate.suite_verdict("b", None)
    check("a survivor of the rest of the suite says what it left out",
          (killers, "FlakyA" in stage and stage.startswith("whole suite")), ([], True))
    mutate.failing_tests, calls = fake_suite([["FlakyA"], ["FlakyA"], ["FlakyA"]])
    check("a suite cut short every time is not settled",
          mutate.suite_verdict("b", None)[1].startswith("not settled"), True)
finally:
    mutate.failing_tests = saved

# A survivor of the suite, of a POSIX platform source, meets every test CI's seccomp stage runs,
# with openat2 and io_uring refused: a fallback's test is seldom mapped to the source it
# reaches (PrivateTmpJvms.* and containers_posix.cpp).
def fake_refused(killer):
    seen = []

    def failing(build_dir, regex=None, exclude=True, leave_out=None, prefix=(), labels_out=None):
        seen.append((regex, bool(prefix), labels_out))
        if killer and prefix and (labels_out or (regex and re.escape(killer) in regex)):
            return [killer]
        return []
    return failing, seen


saved_prefix = mutate.refused_prefix
try:
    mutate.refused_prefix = lambda build_dir: ["seccomp_refuse", "--errno", "EPERM", "--"]
    mutate.failing_tests, seen = fake_refused("PrivateTmpJvms.X")
    check("a survivor of the suite killed by a test of the seccomp stage that is not its own",
          mutate.suite_verdict("b", None, "^(Mapped)\\.", None, refused=True),
          (["PrivateTmpJvms.X"], "whole suite, openat2 and io_uring refused"))
    check("that suite leaves out the unit tier and the layer probes, as CI's seccomp stage",
          [labels for regex, refused, labels in seen if refused and not regex], ["^(unit|layers)$"])
    mutate.failing_tests, seen = fake_refused(None)
    check("a survivor of both says it met both",
          mutate.suite_verdict("b", None, "^(Mapped)\\.", None, refused=True),
          ([], "whole suite, and again with openat2 and io_uring refused"))
    mutate.failing_tests, seen = fake_refused(None)
    mutate.suite_verdict("b", None, "^(Mapped)\\.", None, refused=False)
    check("a mutant of no POSIX platform source never meets the refused suite",
          [s for s in seen if s[1]], [])
finally:
    mutate.failing_tests = saved
    mutate.refused_prefix = saved_prefix

# A test that reads the sources as text (this one: it holds each equivalence key to a line of
# the tree) fails for any mutant of a line listed as equivalent: it is left out of every tier
# of a mutant, so that such a mutant is counted equivalent, not killed.
leave_outs = []


def recording(build_dir, regex=None, exclude=True, leave_out=None, prefix=(), labels_out=None):
    if exclude:  # not the run alone that confirms a failure (exclude=False), which names its tests
        leave_outs.append(leave_out)
    return []


try:
    mutate.failing_tests = recording
    mutate.suite_verdict("b", None, "^(Mapped)\\.", "^(Frequent)\\.")
    check("every tier of a mutant leaves out the tests of the sources' text",
          [bool(lo) and bool(re.search(lo, "mutate.DiffModeMutatesTheLinesAChangeTouched"))
           for lo in leave_outs], [True, True, True])
    check("and still runs the other unit tests",
          [bool(re.search(lo, "Discover.HostTempDirIsNotCountedTwice")) for lo in leave_outs],
          [False, False, False])
finally:
    mutate.failing_tests = saved
saved_costs = mutate.cost_data
try:
    mutate.cost_data = lambda build_dir: {"mutate.DiffModeMutatesTheLinesAChangeTouched": 0.4,
                                          "Discover.HostTempDirIsNotCountedTwice": 0.01}
    check("the fast tier leaves it out too", mutate.fast_tier("b"),
          "^(Discover\\.HostTempDirIsNotCountedTwice)$")
finally:
    mutate.cost_data = saved_costs

# A change that touched no Linux source (documentation, scripts, tests) has no mutants: an
# empty map of layers is no file, not the random mode's every layer (whose files are not in
# the change: the diff run failed on the first of them).
check("the sites of no file", len(mutate.find_sites({})), 0)
check("the random mode's sites when no layers are named", len(mutate.find_sites()) > 100, True)

# Every survivor argued equivalent names a site that is still in the tree: an argument left
# behind when its line changed would excuse nothing, and the line's new mutant would need one.
for key in mutate.equivalents():
    path = key.split("|", 1)[0]
    there = (ROOT / path).is_file() and any(
        s["key"] == key for s in mutate.site_keys(mutate.find_sites({"any": [path]})))
    check(f"scripts/mutate-equivalent.txt names a site of the tree: {key[:80]}", there, True)

for f in failures:
    print("FAILED:", f)
print(f"mutate --diff: {len(failures)} failures")
sys.exit(1 if failures else 0)
