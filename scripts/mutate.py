#!/usr/bin/env python3
"""Deliberate faults in security-critical code, one at a time: does the suite kill each one?

    python3 scripts/mutate.py [--build-dir build-debug] [--only ID[,ID...]] [--full] [--list]
    python3 scripts/mutate.py --random N --seed S [--list] [--log FILE] [--killers-from LOG] [--only FILE:LINE,...]
    python3 scripts/mutate.py --replay LOG [--log FILE]
    python3 scripts/mutate.py --sites
    python3 scripts/mutate.py --diff BASE [--budget SECONDS] [--list] [--log FILE] [--only ...]

--random draws N plain operator mutants (== and != swapped, < and <=, > and >=, && and ||, a
! dropped, return true and false swapped, O_NOFOLLOW dropped, an integer literal compared
with one more, one added or subtracted one less) from every such site of the
security-critical Linux sources (RANDOM_LAYERS; comments, literals and preprocessor lines
left out; --sites lists them), stratified by layer: each layer gets a share of N in
proportion to its sites, at least 10, drawn uniformly with the seed, and tried in an order
shuffled with it (a run cut short has sampled every layer). Each mutant is applied
alone, rebuilt, and run against the tests that cost under a second (from ctest's cost data
of the clean run), then, if it survived them, against the suites scripts/tests_of.py maps its
file to (where most mutants the fast tests leave die, in a fraction of the whole suite's
time), then against the tests that killed most mutants in the logs of earlier runs
(--killers-from LOG, and this run's own --log), then against the whole suite, each with
--stop-on-failure: a survivor passed the whole suite (less the ten cases that assert a cost,
COST_CASES, as the sanitizer runs leave them out, and the tests that read the sources as text,
SOURCE_TEXT_TESTS, which any mutant of a line listed as equivalent would fail). A failing test is run again alone and
kills only if it fails again (on a shared machine another's load or processes can fail a
test); a whole suite cut short by a failure that did not repeat is run again without that test
(up to three times; a survivor says which it left out, and one never run whole says "not
settled"). A survivor whose key is listed in
scripts/mutate-equivalent.txt (key, a tab, why no input can tell it apart) is counted as
equivalent. --replay LOG runs the mutants of an earlier run's --log again by their keys
(the same sample after tests were added; a site whose line has changed is reported gone),
of --random or of --diff.
--diff BASE draws the same operators only on the lines the change from BASE to the tree added
or changed (git diff -U0 BASE -- src), in every source under src/ the Linux build compiles
(its compile database) and every header but the Windows platform's: a mistake is likeliest in
the lines just written, wherever they are, and the security-critical list of --random never
looks at the rest. The mutants are tried one file after another in turn (files and each
file's mutants in an order shuffled with the base commit's hash, so a rerun, and a run after
commits that only add tests, tries the same ones, and a run cut short has sampled every
touched file); each is rebuilt, run against the
unit tier (ctest -L unit, under 30 s), then, if it survived, against the suites of the test
files scripts/tests_of.py maps its file to (less the unit tier and the cost cases). --budget
SECONDS stops starting or finishing mutants when it ends: those left are listed as not tried,
and fail nothing; a mutant whose tests print nothing for 90 s hangs, and is killed (a test
that never ends fails); a survivor not listed in scripts/mutate-equivalent.txt makes the exit status
1. The suite is not run on the clean tree first: CI runs this after its tests stage passed.
It is a stage of scripts/test.sh (the change from the commit in .ci/mutate-base, the one the
last green CI ran on, to HEAD; a budget of 210 s).
Run it under nice -n 15 on a shared machine, with --build-dir build-release: the suite's
cost tests (peak RSS, CPU seconds) assert figures of the optimized build, and fail on the
clean tree of an -O0 one; the test code is -O0 in every build type, and an -O2 rebuild of
one source and the links take under a minute.

For each fault below the script replaces one exact piece of a source file (it must occur
exactly once, or the fault is reported as stale and the run fails), rebuilds incrementally,
and runs the suites named with the fault (ctest -R), which are expected to kill it; with
--full, a fault that survives them is run against the whole suite too (about ten minutes a
fault on two cores). A fault is killed when a test fails, survives when every test passes:
without --full the kill rate is a lower bound. The source is restored after each fault, whatever happens,
and the tree is rebuilt at the end. A fault the compiler rejects is reported as such and
counts as neither (the list is meant to hold only faults that compile).

The whole suite must pass on the clean tree first. It prints one line per fault and the kill
rate; exit status 0 only if every fault was killed. The build directory must be configured
(scripts/build.sh debug: -O0 rebuilds fastest); it is left built from the clean tree.
The list of faults and --random are not part of CI: about two minutes per fault on two cores
(README.md, "Assurance").
"""
import argparse
import os
import pathlib
import re
import select
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (id, file, original, fault, what the fault is, ctest -R of the suites expected to kill it)
FAULTS = [
    # ---- the reaper's removal protocol (platform/posix/reap_posix.cpp) ------------------------
    ("reap-entry-follows", "src/platform/posix/reap_posix.cpp",
     "regular ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC",
     "regular ? O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC",
     "reap opens the entry following a symlink", "Reap|Hostile"),
    ("reap-no-identity-compare", "src/platform/posix/reap_posix.cpp",
     'if (!same_entry(seen, want)) return settle(i, ReapOutcome::changed, "identity-changed");',
     'if (false && !same_entry(seen, want)) return settle(i, ReapOutcome::changed, "identity-changed");',
     "reap skips the (dev, ino, kind, owner) comparison of the held entry", "Reap|Hostile"),
    ("reap-no-flock", "src/platform/posix/reap_posix.cpp",
     "if (regular && ::flock(handle.get(), LOCK_EX | LOCK_NB) != 0) {",
     "if (false && regular && ::flock(handle.get(), LOCK_EX | LOCK_NB) != 0) {",
     "reap removes without taking the entry's lock", "Reap|Jvm"),
    ("reap-no-relookup", "src/platform/posix/reap_posix.cpp",
     "if (again.inode.dev != seen.inode.dev || again.inode.ino != seen.inode.ino) {",
     "if (false && (again.inode.dev != seen.inode.dev || again.inode.ino != seen.inode.ino)) {",
     "reap does not look the name up again after the lock", "Reap"),
    ("reap-no-unlink-check", "src/platform/posix/reap_posix.cpp",
     "if (stat_at(handle, \"\", AT_EMPTY_PATH, after) == 0 && after.inode.nlink != 0) {",
     "if (stat_at(handle, \"\", AT_EMPTY_PATH, after) == 0 && false) {",
     "reap reports a removal without checking the held inode lost its name", "Reap"),
    ("reap-no-fsuid", "src/platform/posix/reap_posix.cpp",
     "    active_ = true;\n    if (::syscall(SYS_setgroups, 0, nullptr) != 0) {",
     "    if (uid != 12345) return std::nullopt;\n    active_ = true;\n"
     "    if (::syscall(SYS_setgroups, 0, nullptr) != 0) {",
     "reap acts as root, never taking the namespace owner's fs identity", "Reap|Hostile"),
    ("reap-ns-no-identity", "src/platform/posix/reap_posix.cpp",
     "if (seen.inode.dev != want.dev || seen.inode.ino != want.ino ||\n"
     "        seen.inode.kind != FileKind::directory",
     "if (false ||\n        seen.inode.kind != FileKind::directory",
     "reap does not compare the reopened namespace with the observed one", "Reap"),
    ("reap-ns-follows", "src/platform/posix/reap_posix.cpp",
     "constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;",
     "constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK;",
     "reap follows a namespace (or temp dir) swapped for a symlink", "Reap|Hostile"),
    ("reap-temp-dir-no-compare", "src/platform/posix/reap_posix.cpp",
     "bool same_dir(int fd, const std::optional<InodeFacts>& want) {\n  struct stat st {};",
     "bool same_dir(int fd, const std::optional<InodeFacts>& want) {\n"
     "  if (fd >= 0) return true;\n  struct stat st {};",
     "reap does not compare the reopened temp dir with the observed one", "Reap|Hostile"),
    ("reap-crosses-mount", "src/platform/posix/reap_posix.cpp",
     'if (!place.contains(seen)) return settle(i, ReapOutcome::changed, "crosses-mount");',
     'if (false && !place.contains(seen)) return settle(i, ReapOutcome::changed, "crosses-mount");',
     "reap removes an entry on another mount than its namespace", "Reap|Container"),
    ("reap-hard-link-exec", "src/platform/posix/reap_posix.cpp",
     'if (seen.inode.nlink > 1) return settle(i, ReapOutcome::changed, "hard-linked");',
     'if (seen.inode.nlink > 2) return settle(i, ReapOutcome::changed, "hard-linked");',
     "reap removes a name of a file that gained a second link since the plan", "Reap"),
    # ---- liveness ----------------------------------------------------------------------------
    ("eperm-is-dead", "src/platform/posix/procfs_posix.cpp",
     "} else if (errno == EPERM) {\n    f.existence = Existence::no_permission;",
     "} else if (errno == EPERM) {\n    f.existence = Existence::gone;",
     "kill(pid, 0) = EPERM taken as a dead process", "Liveness|Procfs|Reap"),
    ("lock-held-not-live", "src/decide/liveness.cpp",
     "if (in.lock == LockState::held) return {Verdict::live, Reason::lock_held};",
     "if (false && in.lock == LockState::held) return {Verdict::live, Reason::lock_held};",
     "a held lock does not make the file live", "Liveness|Reap"),
    ("lock-unknown-reapable", "src/decide/liveness.cpp",
     "if (reapable(outcome.verdict) && in.lock == LockState::unknown) {",
     "if (false && reapable(outcome.verdict) && in.lock == LockState::unknown) {",
     "a lock that could not be tested does not keep the file", "Liveness|Reap"),
    ("pid-reuse-tolerance", "src/decide/liveness.cpp",
     "if (begin && p.start_time_ms && *p.start_time_ms > *begin + tolerance) {",
     "if (begin && p.start_time_ms && *p.start_time_ms > *begin - tolerance) {",
     "a process started within the tolerance before the VM is taken as a reused pid", "Liveness"),
    ("any-gone-candidate-stale", "src/decide/liveness.cpp",
     "outcome = live ? *live : unknown ? *unknown : reused ? *reused : *gone;",
     "outcome = gone ? *gone : live ? *live : unknown ? *unknown : *reused;",
     "one gone candidate (of several containers) makes the file stale", "Liveness|Container"),
    ("lock-probe-inverted", "src/platform/posix/liveness_posix.cpp",
     "if (errno == EWOULDBLOCK) return true;",
     "if (errno == EWOULDBLOCK) return false;",
     "the lock probe reads a held lock as free", "Liveness|Jvm|Reap"),
    # ---- the reaper's plan (decide/reaper.cpp) -----------------------------------------------
    ("plan-hard-link", "src/decide/reaper.cpp",
     'if (inode.nlink > 1) return {ReapAction::skip, "hard-linked"};',
     'if (inode.nlink > 2) return {ReapAction::skip, "hard-linked"};',
     "the plan removes a name of a hard-linked file", "Reaper|Reap"),
    ("plan-no-min-age", "src/decide/reaper.cpp",
     'if (age_ms < options.min_age_ms) return {ReapAction::skip, "too-young"};',
     'if (age_ms < 0 * options.min_age_ms) return {ReapAction::skip, "too-young"};',
     "the plan ignores --min-age", "Reaper|Reap"),
    ("plan-special-files", "src/decide/reaper.cpp",
     "if (special_kind(inode.kind) && !special_allowed) {",
     "if (false && special_kind(inode.kind) && !special_allowed) {",
     "the plan removes FIFOs, sockets and devices without --include-special", "Reaper|Reap"),
    ("plan-replaced-namespace", "src/decide/reaper.cpp",
     'if (!ns.identity_matches || ns.opened->kind != FileKind::directory) return refuse("replaced");',
     'if (ns.opened->kind != FileKind::directory) return refuse("replaced");',
     "the plan acts on a namespace replaced between lstat and open", "Reaper|Reap"),
    # ---- rules (src/checks/) -----------------------------------------------------------------
    ("rule-group-other-write", "src/checks/namespace.cpp",
     "(dir->mode & kGroupOtherWrite) == 0) return;",
     "(dir->mode & kGroupOtherWrite) != 0) return;",
     "namespace.group-other-writable inverted", "Namespace|Check|Audit"),
    ("rule-sticky", "src/checks/tmpdir.cpp",
     "if ((inode->mode & kGroupOtherWrite) != 0 && (inode->mode & kSticky) == 0) {",
     "if ((inode->mode & kGroupOtherWrite) != 0 && (inode->mode & kSticky) != 0) {",
     "the temp dir's missing sticky bit inverted", "Tmp|Check|Audit"),
    ("rule-hard-link", "src/checks/file.cpp",
     "if (inode == nullptr || inode->nlink <= 1) return;",
     "if (inode == nullptr || inode->nlink <= 2) return;",
     "file.hard-linked misses a file of two links", "File|Check|Audit"),
    # ---- parsers (src/model/) ----------------------------------------------------------------
    ("perfdata-data-offset", "src/model/perfdata.cpp",
     "static_cast<std::size_t>(e.data_offset) > length) {",
     "static_cast<std::size_t>(e.data_offset) > length + 1) {",
     "an entry's data offset may point one byte past the entry", "PerfData|fuzz|Inspect|Snap"),
    ("perfdata-vector-length", "src/model/perfdata.cpp",
     "if (static_cast<std::size_t>(e.vector_length) > data_room) {",
     "if (static_cast<std::size_t>(e.vector_length) > data_room + 1) {",
     "a vector may be one byte longer than its entry", "PerfData|fuzz|Inspect|Snap"),
    ("perfdata-used", "src/model/perfdata.cpp",
     "if (p.used < static_cast<std::int32_t>(kPrologueSize) || p.used > size) {",
     "if (p.used < static_cast<std::int32_t>(kPrologueSize) || p.used > size + 1) {",
     "the prologue's used size may exceed the region by one", "PerfData|fuzz|Inspect|Snap"),
    ("pid-name-leading-zero", "src/model/pid_name.cpp",
     "out.kind = leading_zero ? PidNameKind::noncanonical : PidNameKind::canonical;",
     "out.kind = leading_zero && false ? PidNameKind::noncanonical : PidNameKind::canonical;",
     "a name with leading zeros taken as a canonical pid", "PidName|pid_name|Reap"),
    ("pid-name-limit", "src/model/pid_name.cpp",
     "if (!parsed || value > limit) {",
     "if (!parsed || value > limit + 1) {",
     "a pid one above pid_max taken as a pid", "PidName|pid_name"),
    # ---- create, repair, and the lock of a run ------------------------------------------------
    ("create-follows", "src/platform/posix/create_posix.cpp",
     "O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600",
     "O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600",
     "create opens an existing file or a planted symlink", "Create"),
    ("repair-no-identity", "src/platform/posix/create_posix.cpp",
     "if (!matches(st, target.expected) || (st.st_mode & 07777) != target.expected.mode ||",
     "if ((st.st_mode & 07777) != target.expected.mode ||",
     "repair changes a file that is not the one judged", "Repair"),
    ("instance-lock", "src/platform/posix/private_file_posix.cpp",
     "if (::flock(impl_->fd.get(), LOCK_EX | LOCK_NB) == 0) return LockResult::taken;",
     "if (impl_->fd.get() >= 0) return LockResult::taken;",
     "two reap runs at once", "Reap|Lock"),
    # ---- observation ---------------------------------------------------------------------
    ("observe-file-follows", "src/platform/posix/observe_namespace_posix.hpp",
     "constexpr int kFileOpenFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;",
     "constexpr int kFileOpenFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;",
     "observation reads through a symlink planted as a backing file", "Observe|Hostile|Audit"),
    ("observe-dir-follows", "src/platform/posix/observe_namespace_posix.hpp",
     "constexpr int kDirOpenFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;",
     "constexpr int kDirOpenFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK;",
     "observation follows a namespace swapped for a symlink", "Observe|Hostile|Audit"),
    ("beneath-escapes-root", "src/platform/posix/beneath_posix.cpp",
     "constexpr std::uint64_t kInRoot = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;",
     "constexpr std::uint64_t kInRoot = RESOLVE_NO_MAGICLINKS;",
     "a container root's absolute symlinks resolve on the host", "Beneath|Container"),
    # ---- the fallbacks where openat2 or io_uring is refused (seccomp, old kernels) --------
    ("openat2-probe-inverted", "src/platform/posix/beneath_posix.cpp",
     "if (fd < 0) return false;  // ENOSYS",
     "if (fd >= 0) return false;  // ENOSYS",
     "the openat2 probe says refused where it works and available where it is refused",
     "Openat2Probe|Beneath|ListedFiles"),
    ("walk-follows-links", "src/platform/posix/beneath_posix.cpp",
     "O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC",
     "O_PATH | O_DIRECTORY | O_CLOEXEC",
     "the fallback walk follows a symlink on the way (to the host's files)",
     "Beneath|Container"),
    ("walk-dotdot-by-kernel", "src/platform/posix/beneath_posix.cpp",
     'if (parts[i] == "..") {',
     'if (parts[i] == "...") {',
     "the fallback walk lets the kernel resolve \"..\" (out of the root at the root)",
     "Beneath|Container"),
    ("uring-refusal-ignored", "src/platform/posix/uring_posix.cpp",
     "if (!ring->initialised || !supports_everything(ring->ring)) return nullptr;",
     "if (ring->initialised && !supports_everything(ring->ring)) return nullptr;",
     "a batch is handed out where io_uring was refused", "IoBatch|Fallbacks"),
    ("batch-without-openat2", "src/platform/posix/observe_namespace_posix.cpp",
     "if (!options_.batched_io || !options_.open_files || !openat2_available()) return nullptr;",
     "if (!options_.batched_io || !options_.open_files) return nullptr;",
     "files are opened by openat2 inside io_uring where the openat2 system call is refused",
     "Fallbacks"),
]


# ---- random operator mutants (--random N --seed S) ------------------------------------------
# The security-critical Linux sources, by layer: every site of a plain operator in them is a
# candidate; --random draws a reproducible sample of them.
RANDOM_LAYERS = {
    "checks": ["src/checks/acl.cpp", "src/checks/attach.cpp", "src/checks/checks.cpp",
               "src/checks/evidence.cpp", "src/checks/file.cpp", "src/checks/invisible.cpp",
               "src/checks/jvm.cpp", "src/checks/namespace.cpp", "src/checks/publication.cpp",
               "src/checks/registry.cpp", "src/checks/tmpdir.cpp", "src/checks/volume.cpp"],
    "decide": ["src/decide/liveness.cpp", "src/decide/reaper.cpp", "src/decide/create.cpp",
               "src/decide/discover.cpp", "src/decide/audit.cpp"],
    "platform": ["src/platform/posix/reap_posix.cpp", "src/platform/posix/beneath_posix.cpp",
                 "src/platform/posix/safe_path_posix.cpp", "src/platform/posix/procfs_posix.cpp",
                 "src/platform/posix/users_posix.cpp", "src/platform/posix/containers_posix.cpp",
                 "src/platform/posix/liveness_posix.cpp", "src/platform/posix/create_posix.cpp"],
    "model": ["src/model/perfdata.cpp", "src/model/pid_name.cpp", "src/model/procfs_parse.cpp",
              "src/model/passwd.cpp"],
}
# (operator, pattern over the source with comments and literals blanked, replacement of the
# match); binary operators must stand between spaces, so that template brackets, "->", "<<",
# "&&" of a forwarding reference and the like are not sites.
_OPERATORS = [
    ("==>!=", r"(?<= )==(?= )", lambda m: "!="),
    ("!=>==", r"(?<= )!=(?= )", lambda m: "=="),
    ("<><=", r"(?<= )<(?= )", lambda m: "<="),
    ("<=><", r"(?<= )<=(?= )", lambda m: "<"),
    (">>>=", r"(?<= )>(?= )", lambda m: ">="),
    (">=>>", r"(?<= )>=(?= )", lambda m: ">"),
    ("&&>||", r"(?<= )&&(?= )", lambda m: "||"),
    ("||>&&", r"(?<= )\|\|(?= )", lambda m: "&&"),
    ("drop-!", r"(?<![\w)\]!])!(?=[\w(])", lambda m: ""),
    ("true>false", r"\breturn true;", lambda m: "return false;"),
    ("false>true", r"\breturn false;", lambda m: "return true;"),
    ("drop-O_NOFOLLOW", r"O_NOFOLLOW \| |(?: \| )?\bO_NOFOLLOW\b", lambda m: "" if "|" in m.group(0) else "0"),
    # An integer literal compared with, or added or subtracted: one more where compared, one
    # less where added (so "+ 1" becomes "+ 0").
    ("literal+1", r"(?:(?<= [<>] )|(?<= [<>=!]= ))\d+(?=[uUlL]*\b)(?![.xX])",
     lambda m: _literal(m.group(0), +1)),
    ("literal-1", r"(?<= [+-] )\d+(?=[uUlL]*\b)(?![.xX])", lambda m: _literal(m.group(0), -1)),
]


def _literal(digits, step):
    """An integer literal one more or one less (one more than 0), octal kept octal."""
    if len(digits) > 1 and digits.startswith("0"):
        value = int(digits, 8) + step if int(digits, 8) + step >= 0 else 1
        return "0" + format(value, "o")
    value = int(digits) + step
    return str(value if value >= 0 else 1)


def blank_comments_and_literals(text):
    """The text with comments, string and character literals and preprocessor lines turned
    to spaces (newlines kept), so that offsets stay those of the source."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i)
            delim = ")" + text[i + 2:open_paren] + '"'
            j = text.find(delim, open_paren)
            j = n if j < 0 else j + len(delim)
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # not 1'000
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def find_sites(layers=None):
    """Every operator site of the random mode (or of the files of LAYERS, {layer: [file]}, none
    when it is empty: a change that touched no source): (id, layer, file, offset, original,
    mutant, op)."""
    sites = []
    for layer, files in (RANDOM_LAYERS if layers is None else layers).items():
        for path in files:
            text = (ROOT / path).read_text()
            code = blank_comments_and_literals(text)
            for op, pattern, replace in _OPERATORS:
                for m in re.finditer(pattern, code):
                    line = text.count("\n", 0, m.start()) + 1
                    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                    sites.append({"id": f"{path}:{line}:{col}:{op}", "layer": layer,
                                  "file": path, "offset": m.start(), "original": m.group(0),
                                  "mutant": replace(m), "op": op, "line": line})
    sites.sort(key=lambda s: (s["file"], s["offset"], s["op"]))
    return sites


def sample_sites(sites, count, seed):
    """A reproducible sample, stratified by layer: each layer gets a share of the count in
    proportion to its sites (largest remainders), at least 10 where it has them; within a
    layer the sites are drawn uniformly."""
    import random
    rng = random.Random(seed)
    by_layer = {layer: [s for s in sites if s["layer"] == layer] for layer in RANDOM_LAYERS}
    total = len(sites)
    shares = {l: max(min(10, len(v)), count * len(v) / total) for l, v in by_layer.items()}
    scale = sum(shares.values()) / count
    quotas = {l: int(shares[l] / scale) if shares[l] > 10 else int(shares[l]) for l in shares}
    rest = sorted(shares, key=lambda l: -(shares[l] / scale - quotas[l]))
    while sum(quotas.values()) < count:
        quotas[rest.pop(0)] += 1
    chosen = []
    for layer in RANDOM_LAYERS:
        chosen += rng.sample(by_layer[layer], min(quotas[layer], len(by_layer[layer])))
    # Tried in a shuffled order, so that a run cut short has still sampled every layer.
    rng.shuffle(chosen)
    return chosen


def apply_site(text, site):
    o = site["offset"]
    assert text[o:o + len(site["original"])] == site["original"], site["id"]
    return text[:o] + site["mutant"] + text[o + len(site["original"]):]


def site_keys(sites):
    """A key for each site that outlives edits elsewhere in its file: the file, the operator,
    the text of its line and which of the equal such sites it is."""
    seen = {}
    for s in sites:
        text = (ROOT / s["file"]).read_text()
        start = text.rfind("\n", 0, s["offset"]) + 1
        end = text.find("\n", s["offset"])
        line = text[start:end].strip()
        k = (s["file"], s["op"], line)
        s["key"] = "%s|%s|%s|%d" % (s["file"], s["op"], line, seen.get(k, 0))
        s["column"] = s["offset"] - start
        seen[k] = seen.get(k, 0) + 1
    return sites


def confirmed(build_dir, killers, prefix=()):
    """The killers that fail again when run alone: on a shared machine a test may fail for
    another's load or processes (a cost test, another suite's process with 16 MiB of maps),
    and such a failure kills nothing."""
    names = [k for k in killers if not k.startswith("(")]
    if len(names) != len(killers):
        return killers  # a timeout or a ctest failure stands
    again = failing_tests(build_dir, "^(" + "|".join(re.escape(k) for k in names) + ")$",
                          exclude=False, prefix=prefix)
    return [k for k in names if k in again]


def refused_prefix(build_dir):
    """The command that runs ctest with openat2 and io_uring refused, as CI's seccomp stage
    does (tests/seccomp_refuse); None when the build has not made it."""
    helper = os.path.join(build_dir, "tests", "seccomp_refuse")
    return [helper, "--errno", "EPERM", "--"] if os.access(helper, os.X_OK) else None


def suite_verdict(build_dir, tier, mapped=None, frequent=None, refused=False):
    """(killers, stage): the fast tier first, then the tests MAPPED selects (the suites of the
    mutated file, mapped_tests), then the FREQUENT killers (frequent_killers), then the whole
    suite; each failure is run again alone and counts only if it fails again (a whole suite
    cut short by a failure that did not repeat is run once more). The tiers before the whole
    suite only make a kill come sooner: a survivor has passed the whole suite. With REFUSED
    (a mutant of the POSIX platform, whose fallbacks run only where openat2 and io_uring are
    refused), a survivor of the whole suite then meets the MAPPED and FREQUENT tests again with
    both refused, then every test CI's seccomp stage runs, so: the suite alone never runs those
    fallbacks."""
    if tier:
        if killers := confirmed(build_dir, failing_tests(build_dir, tier, exclude=False)):
            return killers, "fast tier"
    for regex, stage in ((mapped, "its tests"), (frequent, "frequent killers")):
        if regex:
            if killers := confirmed(build_dir, failing_tests(build_dir, regex, leave_out=LEFT_OUT)):
                return killers, stage
    # A failure that does not repeat alone cut the suite short (--stop-on-failure): the suite is
    # run again without it, so that the rest of it still meets the mutant.
    unrepeated = []
    for _ in range(3):
        leave_out = LEFT_OUT
        if unrepeated:
            leave_out += "|^(" + "|".join(re.escape(k) for k in unrepeated) + ")$"
        killers = failing_tests(build_dir, leave_out=leave_out)
        if not killers:
            survived = "whole suite"
            if unrepeated:
                survived += " (less the failures that did not repeat: " + ", ".join(unrepeated[:3]) + ")"
            break
        if real := confirmed(build_dir, killers):
            return real, "whole suite"
        unrepeated += killers
    else:
        survived = ("not settled: the whole suite was cut short each time (failures that did not "
                    "repeat: " + ", ".join(unrepeated[:3]) + ")")
    prefix = refused_prefix(build_dir) if refused else None
    selection = "|".join(r for r in (mapped, frequent) if r)
    if prefix and selection:
        if killers := confirmed(build_dir, failing_tests(build_dir, selection, leave_out=LEFT_OUT,
                                                         prefix=prefix), prefix):
            return killers, "its tests and frequent killers, openat2 and io_uring refused"
    if prefix:
        # What CI's seccomp stage runs: every test that runs the tool, with both refused (a
        # fallback's test is seldom named after the source it reaches: PrivateTmpJvms.* kill
        # mutants of containers_posix.cpp that the suite alone never meets).
        if killers := confirmed(build_dir, failing_tests(build_dir, leave_out=LEFT_OUT + "|" + REFUSED_LEFT_OUT,
                                                         prefix=prefix, labels_out="^(unit|layers)$"), prefix):
            return killers, "whole suite, openat2 and io_uring refused"
        survived += ", and again with openat2 and io_uring refused"
    return [], survived


def cost_data(build_dir):
    """ctest's recorded cost (seconds) of each test, from the last runs."""
    costs = {}
    path = ROOT / build_dir / "Testing" / "Temporary" / "CTestCostData.txt"
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 3:
                try:
                    costs[parts[0]] = float(parts[2])
                except ValueError:
                    pass
    return costs


def frequent_killers(logs, most=12):
    """A ctest -R of the tests that killed most mutants in the --log files LOGS (JSON lines of
    --random or --diff runs), at most MOST of them: the end-to-end tests (a transcript, the
    real-JVM judge, the shell-word round trip) kill mutants of many files that
    scripts/tests_of.py maps to none of them. None when the logs name none."""
    import collections
    import json
    counts = collections.Counter()
    for path in logs:
        if not os.path.exists(path):
            continue
        for line in open(path):
            if line.strip():
                counts.update(k.split("  #")[0].strip() for k in json.loads(line).get("killers", [])
                              if not k.startswith("("))
    names = [name for name, _ in counts.most_common(most)]
    return "^(" + "|".join(re.escape(n) for n in names) + ")$" if names else None


def fast_tier(build_dir, limit=1.0):
    """A ctest -R selecting the tests that cost under a second each (most unit tests and the
    quick system tests), from ctest's cost data of the clean run."""
    names = [name for name, cost in cost_data(build_dir).items()
             if cost < limit and not re.match(SOURCE_TEXT_TESTS, name)]
    return "^(" + "|".join(re.escape(n) for n in sorted(names)) + ")$" if names else None


def equivalents():
    """The site keys argued equivalent, from scripts/mutate-equivalent.txt."""
    path = ROOT / "scripts" / "mutate-equivalent.txt"
    keys = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                key, _, why = line.partition("\t")
                keys[key.strip()] = why.strip()
    return keys


def random_run(args):
    sites = site_keys(find_sites())
    if args.sites:
        for s in sites:
            print(f"{s['layer']:9} {s['file']}:{s['line']}:{s['column'] + 1}  {s['op']:16} {s['key']}")
        per = {l: sum(1 for s in sites if s["layer"] == l) for l in RANDOM_LAYERS}
        print(f"mutate: {len(sites)} sites: " + ", ".join(f"{l} {n}" for l, n in per.items()))
        return 0
    gone = []
    if args.replay:
        # The sample of an earlier run (its --log), site by site, in today's code: a site whose
        # line was since changed or removed is reported gone.
        import json
        by_key = {s["key"]: s for s in sites}
        entries = [json.loads(line) for line in open(args.replay) if line.strip()]
        # A log of --diff names sources off the security-critical list too.
        listed = {f for files in RANDOM_LAYERS.values() for f in files}
        others = {}
        for f in sorted({e["key"].split("|", 1)[0] for e in entries} - listed):
            if (ROOT / f).exists():
                others.setdefault(f.split("/")[1], []).append(f)
        by_key.update({s["key"]: s for s in site_keys(find_sites(others))} if others else {})
        chosen = [by_key[e["key"]] for e in entries if e["key"] in by_key]
        gone = [e for e in entries if e["key"] not in by_key]
        args.seed = entries[0]["seed"] if entries else args.seed
        for e in gone:
            print(f"mutate: gone since the sample was drawn: {e['where']}  {e['op']}  {e['key']}")
    else:
        chosen = sample_sites(sites, args.random, args.seed)
    if args.only:
        wanted = set(args.only.split(","))
        chosen = [s for s in chosen if s["key"] in wanted or
                  f"{s['file']}:{s['line']}" in wanted]
    equivalent = equivalents()
    per = {l: sum(1 for s in chosen if s["layer"] == l) for l in RANDOM_LAYERS}
    print(f"mutate: {len(sites)} sites, seed {args.seed}, {len(chosen)} " +
          ("replayed" if args.replay else "drawn") + ": " +
          ", ".join(f"{l} {n}" for l, n in per.items()), flush=True)
    if args.list:
        for i, s in enumerate(chosen):
            print(f"{i:3} {s['layer']:9} {s['file']}:{s['line']}  {s['op']:16} {s['key']}")
        return 0
    if not build(args.build_dir):
        print("mutate: the clean tree does not build")
        return 2
    if not args.skip_clean_run:
        if failed := suite_verdict(args.build_dir, None)[0]:
            print("mutate: the suite fails on the clean tree; fix that first: " + ", ".join(failed))
            return 2
        print("mutate: the clean tree passes the suite", flush=True)
    tier = fast_tier(args.build_dir)
    log = open(args.log, "a") if args.log else None
    results = {"killed": [], "survived": [], "stillborn": [], "equivalent": []}
    began = time.monotonic()
    for i, s in enumerate(chosen):
        source = ROOT / s["file"]
        text = source.read_text()
        started = time.monotonic()
        killers, stage = [], ""
        try:
            source.write_text(apply_site(text, s))
            if not build_mutant(args.build_dir):
                verdict = "stillborn"
            else:
                killers, stage = suite_verdict(args.build_dir, tier, mapped_tests(s["file"])[0],
                                               frequent_killers(args.killers_from + [args.log or ""]),
                                               refused=s["file"].startswith("src/platform/posix/"))
                verdict = "killed" if killers else "survived"
        finally:
            source.write_text(text)
        if verdict == "survived" and s["key"] in equivalent:
            verdict = "equivalent"
        results[verdict].append(s)
        spent = time.monotonic() - started
        print(f"mutate: [{i + 1}/{len(chosen)}] {verdict:10} {spent:5.0f} s  {s['layer']:8} "
              f"{s['file']}:{s['line']}  {s['op']}" +
              (f"  ({stage}: {', '.join(killers[:2])})" if killers else ""), flush=True)
        if log:
            import json
            log.write(json.dumps({"seed": args.seed, "index": i, "key": s["key"],
                                  "where": f"{s['file']}:{s['line']}", "layer": s["layer"],
                                  "op": s["op"], "verdict": verdict, "seconds": round(spent, 1),
                                  "stage": stage, "killers": killers[:3]}) + "\n")
            log.flush()
    build(args.build_dir)
    k, v, e = len(results["killed"]), len(results["survived"]), len(results["equivalent"])
    tried = k + v + e
    print(f"mutate: seed {args.seed}: {k} killed, {v} survived, {e} survived but listed "
          f"equivalent, {len(results['stillborn'])} stillborn; killed {k} of {tried} "
          f"({100.0 * k / tried if tried else 0:.0f}%), of those not equivalent "
          f"{100.0 * k / (k + v) if k + v else 0:.0f}%; {time.monotonic() - began:.0f} s, "
          f"{(time.monotonic() - began) / max(1, len(chosen)):.0f} s a mutant")
    for layer in RANDOM_LAYERS:
        counts = {verdict: sum(1 for s in r if s["layer"] == layer) for verdict, r in results.items()}
        print(f"mutate:   {layer:9} " + ", ".join(f"{n} {verdict}" for verdict, n in counts.items()))
    if gone:
        print(f"mutate: {len(gone)} sites of the sample are gone (their code changed): " +
              ", ".join(e["where"] for e in gone))
    for s in results["survived"]:
        print(f"mutate: survivor {s['file']}:{s['line']}  {s['op']}  {s['key']}")
    return 0 if not results["survived"] else 1


# ---- mutants of a change (--diff BASE --budget SECONDS) ------------------------------------
# The operators of --random, on the lines a change added or changed, in every source under src/
# the Linux build compiles (and every header but the Windows platform's): a change to a file
# nobody put on the security-critical list is where a new mistake is likeliest, and the
# random sample never looks there. Each mutant runs the unit tier (about 30 s, pure tests),
# then, only if it survived, the suites of the tests scripts/tests_of.py maps its file to.


def touched_lines(base):
    """{file: [line, ...]}: the lines of the working tree's src/ that the change from BASE
    added or changed (git diff -U0; a hunk that only deletes touches no line)."""
    diff = run(["git", "diff", "-U0", "--no-color", "--no-ext-diff", base, "--", "src"])
    return parse_touched(diff.stdout) if diff.returncode == 0 else None


def parse_touched(diff):
    """{file: [line, ...]} of a git diff -U0: the new side's lines of each hunk."""
    touched, path = {}, None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif path and (m := re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)):
            first, count = int(m.group(1)), int(m.group(2) or 1)
            touched.setdefault(path, []).extend(range(first, first + count))
    return {f: sorted(set(lines)) for f, lines in touched.items() if lines}


def linux_sources(build_dir):
    """The sources under src/ the Linux build compiles (its compile database) and the headers
    of every layer but the Windows platform's."""
    import json
    database = ROOT / build_dir / "compile_commands.json"
    compiled = {os.path.relpath(e["file"], ROOT) for e in json.loads(database.read_text())}
    out = {f for f in compiled if f.startswith("src/") and f.endswith(".cpp")}
    out |= {str(h.relative_to(ROOT)) for h in (ROOT / "src").rglob("*.hpp")
            if "platform/windows" not in str(h) and not h.stem.endswith("_windows")}
    return out


def diff_order(sites, seed):
    """The mutants in the order they are tried: the files in an order shuffled with the seed,
    and in turn one mutant of each (shuffled within its file), so that a run the budget cuts
    short has sampled every touched file evenly; the same seed (the base commit) gives the
    same order."""
    import random
    rng = random.Random(seed)
    by_file = {}
    for s in sites:
        by_file.setdefault(s["file"], []).append(s)
    files = sorted(by_file)
    rng.shuffle(files)
    for f in files:
        rng.shuffle(by_file[f])
    order = []
    while any(by_file.values()):
        for f in files:
            if by_file[f]:
                order.append(by_file[f].pop())
    return order


def mapped_tests(source, cache={}):
    """A ctest -R of the tests of SOURCE as scripts/tests_of.py finds their files: each
    GoogleTest suite those files define (Suite.*, and Prefix/Suite.* of a parameterised one),
    each transcript by its name; None where it finds none."""
    if "tests" not in cache:
        sys.path.insert(0, str(ROOT / "scripts"))
        import tests_of
        cache["module"] = tests_of
        cache["tests"] = sorted(tests_of.test_files())
        cache["texts"] = {t: open(ROOT / t, errors="replace").read() for t in cache["tests"]}
    if source not in cache:
        suites, transcripts = set(), set()
        for test, _ in cache["module"].tests_of(source, cache["tests"], cache["texts"]) or []:
            if test.endswith(".t"):
                transcripts.add("transcript." + pathlib.Path(test).stem)
            else:
                suites |= set(re.findall(r"\b(?:TYPED_)?TEST(?:_F|_P)?\(\s*(\w+)\s*,",
                                         cache["texts"][test]))
        parts = []
        if suites:
            parts.append("^([^./]+/)?(" + "|".join(sorted(suites)) + ")\\.")
        if transcripts:
            parts.append("^(" + "|".join(re.escape(t) for t in sorted(transcripts)) + ")$")
        cache[source] = (("|".join(parts) if parts else None), len(suites) + len(transcripts))
    return cache[source]


class OutOfBudget(Exception):
    """The budget ended while a mutant was being built or tested: it is not tried."""


class Hung(Exception):
    """ctest printed nothing for QUIET_LIMIT seconds: a test of the mutant hangs."""


# ctest prints a line as each test ends. The longest test the stage runs takes 25 s on an idle
# machine of two cores (the cost cases it leaves out up to 43 s), so a run that prints nothing
# for this long has a test that hangs, and the mutant is killed (a test that never ends is a
# test that fails), at once: the run alone that confirms a failure would wait as long again.
# Before, such a mutant waited out the tests' timeout of 300 s (and again alone), and the
# budget ended it as not tried.
QUIET_LIMIT = 90.0


def run_until(cmd, deadline, quiet_limit=None):
    """run(), stopped at the monotonic DEADLINE (OutOfBudget) or, with QUIET_LIMIT, once the
    command printed nothing for that many seconds (Hung): either way the whole process group
    (ctest, the tests it started) is killed."""
    proc, held = start_group(cmd)
    chunks = []
    last_output = time.monotonic()
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise OutOfBudget()
            if quiet_limit is not None and now - last_output >= quiet_limit:
                raise Hung()
            wait = min(deadline - now, 1.0 if quiet_limit is None else
                       max(0.1, quiet_limit - (now - last_output)))
            ready, _, _ = select.select([proc.stdout], [], [], wait)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                last_output = time.monotonic()
        proc.wait()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        kill_group(proc)
        proc.wait()
        proc.stdout.close()
        raise
    proc.stdout.close()
    return subprocess.CompletedProcess(cmd, proc.returncode,
                                       b"".join(chunks).decode("utf-8", "replace"))


def ctest_failures(build_dir, selection, deadline):
    """The tests of SELECTION (ctest arguments) that failed, stop-on-failure; each failure is
    run again alone and kills only if it fails again, as in --random."""
    cmd = ["ctest", "--test-dir", build_dir, f"-j{os.cpu_count()}", "--stop-on-failure"]
    try:
        result = run_until(cmd + selection, deadline, QUIET_LIMIT)
    except Hung:
        return [f"(a test hung: ctest printed nothing for {QUIET_LIMIT:.0f} s)"]
    failed = [line.split(" - ", 1)[1].rsplit(" (", 1)[0].strip()
              for line in result.stdout.splitlines() if re.match(r"^\s+\d+ - ", line)]
    if result.returncode != 0 and not failed:
        if "No tests were found" in result.stdout:
            return []
        return ["(ctest failed: " + result.stdout.strip().splitlines()[-1] + ")"]
    if not failed:
        return []
    try:
        again = run_until(cmd + ["-R", "^(" + "|".join(re.escape(f) for f in failed) + ")$"],
                          deadline, QUIET_LIMIT)
    except Hung:
        return [f"{failed[0]} (then hung alone)"]
    return [f for f in failed if re.search(r"^\s+\d+ - " + re.escape(f) + r" \(", again.stdout,
                                           re.M)]


def diff_run(args):
    began = time.monotonic()
    deadline = began + args.budget if args.budget else float("inf")
    head = run(["git", "rev-parse", "HEAD"]).stdout.strip()
    touched = touched_lines(args.diff)
    if touched is None:
        print(f"mutate: git cannot diff {args.diff} against the tree (a shallow clone? CI "
              f"needs the history: git fetch --unshallow)")
        return 2
    if not (ROOT / args.build_dir / "compile_commands.json").exists():
        print(f"mutate: {args.build_dir} is not configured (cmake --preset release)")
        return 2
    linux = linux_sources(args.build_dir)
    files = sorted(f for f in touched if f in linux)
    layers = {}
    for f in files:
        layers.setdefault(f.split("/")[1], []).append(f)
    sites = [s for s in site_keys(find_sites(layers)) if s["line"] in touched[s["file"]]]
    # The order's seed is the base commit: the same change tries its mutants in the same order
    # whatever commits follow that add only tests (the ones that kill what an earlier run left).
    seed = run(["git", "rev-parse", args.diff]).stdout.strip()
    chosen = diff_order(sites, seed)
    if args.only:
        wanted = set(args.only.split(","))
        chosen = [s for s in chosen if s["key"] in wanted or f"{s['file']}:{s['line']}" in wanted]
    lines = sum(len(touched[f]) for f in files)
    print(f"mutate: the change {args.diff}..HEAD ({head[:7]}) touches {lines} lines of {len(files)} "
          f"Linux sources under src/; {len(chosen)} mutants on them, in the order of seed "
          f"{seed[:12]} (the base)" + (f", budget {args.budget} s" if args.budget else ""), flush=True)
    if args.list:
        for i, s in enumerate(chosen):
            print(f"{i:3} {s['file']}:{s['line']}  {s['op']:16} {s['key']}")
        return 0
    equivalent = equivalents()
    results = {"killed": [], "survived": [], "stillborn": [], "equivalent": [], "not tried": []}
    log = open(args.log, "a") if args.log else None
    touched_build = False
    for i, s in enumerate(chosen):
        if time.monotonic() >= deadline:
            results["not tried"] += chosen[i:]
            break
        source = ROOT / s["file"]
        text = source.read_text()
        started = time.monotonic()
        killers, stage = [], ""
        try:
            source.write_text(apply_site(text, s))
            touched_build = True
            MUTANT_BUILT["dir"] = args.build_dir
            if run_until(["cmake", "--build", args.build_dir, "--", f"-j{os.cpu_count()}"],
                         deadline).returncode != 0:
                verdict = "stillborn"
            else:
                stage = "unit tier"
                killers = ctest_failures(args.build_dir, ["-L", "unit", "-E", SOURCE_TEXT_TESTS], deadline)
                regex, _ = mapped_tests(s["file"])
                if not killers and regex:
                    stage = "its tests"
                    killers = ctest_failures(args.build_dir, ["-R", regex, "-LE", "unit",
                                                              "-E", LEFT_OUT], deadline)
                elif not killers:
                    stage = "unit tier (tests_of.py maps it to no test)"
                verdict = "killed" if killers else "survived"
        except OutOfBudget:
            results["not tried"] += chosen[i:]
            print(f"mutate: [{i + 1}/{len(chosen)}] the budget ended during this mutant "
                  f"({time.monotonic() - started:.0f} s): it and the rest are not tried", flush=True)
            break
        finally:
            source.write_text(text)
        if verdict == "survived" and s["key"] in equivalent:
            verdict = "equivalent"
        results[verdict].append(s)
        spent = time.monotonic() - started
        print(f"mutate: [{i + 1}/{len(chosen)}] {verdict:10} {spent:5.0f} s  "
              f"{s['file']}:{s['line']}  {s['op']}" +
              (f"  ({stage}: {', '.join(killers[:2])})" if killers else
               f"  ({stage})" if verdict in ("survived", "equivalent") else ""), flush=True)
        if log:
            import json
            log.write(json.dumps({"seed": seed, "base": args.diff, "index": i, "key": s["key"],
                                  "where": f"{s['file']}:{s['line']}", "layer": s["layer"],
                                  "op": s["op"], "verdict": verdict, "seconds": round(spent, 1),
                                  "stage": stage, "killers": killers[:3]}) + "\n")
            log.flush()
    if touched_build:
        build(args.build_dir)
    for s in results["not tried"]:
        print(f"mutate: not tried (budget): {s['file']}:{s['line']}  {s['op']}  {s['key']}")
    for s in results["survived"]:
        print(f"mutate: survivor {s['file']}:{s['line']}  {s['op']}  {s['key']}")
    n = {verdict: len(r) for verdict, r in results.items()}
    print(f"mutate: the change {args.diff}..HEAD: {len(chosen)} mutants: {n['killed']} killed, "
          f"{n['survived']} survived, {n['equivalent']} survived but listed equivalent, "
          f"{n['stillborn']} stillborn, {n['not tried']} not tried (budget); "
          f"{time.monotonic() - began:.0f} s")
    return 1 if results["survived"] else 0


def run(cmd, timeout=None):
    """subprocess.run() in a process group of its own, killed whole when the run is stopped
    (SIGTERM, ^C) or times out: ctest's tests, and what they start (the fault sweep, strace,
    JVMs), would otherwise outlive it, as they did when only ctest was killed."""
    proc, held = start_group(cmd, text=True)
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        out, _ = proc.communicate(timeout=timeout)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        kill_group(proc)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out)


# The signals that stop a run (a budget's timeout, a kill, ^C).
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def start_group(cmd, **kwargs):
    """CMD started in a process group of its own, its output piped, with the stop signals held
    back: (the process, the signal mask to restore). The caller restores the mask first thing in
    the try whose except kills the group, so that a stop arriving while the command starts is
    handled there and kills it, instead of stopping the run before it knows the command's pid
    (the command then outlived the run). The command itself starts with the mask restored."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True,
                                preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, held),
                                **kwargs)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    return proc, held


def kill_group(proc):
    """Kills the process group PROC leads (started with start_new_session): it and everything it
    started that stayed in its group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# The build directory while it may hold a mutant's objects: from a mutant's build until the
# clean rebuild after the last. A run stopped in between (^C, SIGTERM, a budget's timeout)
# rebuilds it from the restored sources before it ends, so that no later test runs a mutant.
MUTANT_BUILT = {}


def build(build_dir):
    ok = run(["cmake", "--build", build_dir, "--", f"-j{os.cpu_count()}"]).returncode == 0
    MUTANT_BUILT.pop("dir", None)
    return ok


def build_mutant(build_dir):
    MUTANT_BUILT["dir"] = build_dir
    return run(["cmake", "--build", build_dir, "--", f"-j{os.cpu_count()}"]).returncode == 0


# The cases that assert what a run costs (peak RSS, CPU seconds, what a --max-runtime of
# seconds gets through), as scripts/sanitize.sh names them: figures, not safety, which a
# machine loaded by others fails on the clean tree (ManyAttachFilesCannotHoldOffMaxRuntime did,
# twice in a row). --random leaves them out of "the whole suite".
# Left out of the suite with openat2 and io_uring refused, as CI's seccomp stage leaves them
# (scripts/test.sh): the packages' tests, which test the packaging and run of the tool what
# every other test runs.
REFUSED_LEFT_OUT = "^(DebianPackage\\..*|RpmPackage\\..*|PackageFloor\\..*|OciImage\\..*)$"
# Tests that read the sources as text, not run them: mutate.DiffModeMutatesTheLinesAChangeTouched
# holds each key of scripts/mutate-equivalent.txt to a line of the tree, so it fails for any
# mutant of a line listed there, which would count a mutant argued equivalent as killed. They
# kill nothing, in every tier.
SOURCE_TEXT_TESTS = "^mutate\\.DiffModeMutatesTheLinesAChangeTouched$"
COST_CASES = ("^(HostileInput\\.HugeNamespaceCostsBoundedMemory|HostileInput\\.ManyNamespacesCostBoundedMemory|"
              "AuditCli\\.MemoryIsThatOfAFewNamespacesWhateverTheirNumber|AuditCli\\.MemoryIsThatOfAFewPartsWhateverTheSizeOfANamespace|"
              "ReapCli\\.MemoryIsThatOfAFewPartsWhateverTheNumberOfFiles|"
              "HostileInput\\.(ProcessWithHugeMapsCostsBoundedMemory|ManyAttachFilesCostBoundedMemory|"
              "ManyAttachFilesCannotHoldOffMaxRuntime|FakeContainersSharingAHugePasswdCostOneParse|"
              "FakeContainersAlternatingTwoHugePasswdFilesCostTwoParses|"
              "ManyFakeContainersCostOnePassOverProcNotOneEach|"
              "FakeContainersSharingAHugePasswdCannotStopTheHostsReapOrHideLaterContainers))$")
# What no tier of a mutant runs: the cost cases and the tests of the sources' text.
LEFT_OUT = COST_CASES + "|" + SOURCE_TEXT_TESTS


def failing_tests(build_dir, regex=None, exclude=True, leave_out=None, prefix=(), labels_out=None):
    """Runs the tests (ctest run by the command PREFIX when given, less those labelled as
    LABELS_OUT says); returns the names of those that failed (empty: all passed)."""
    cmd = list(prefix or ()) + ["ctest", "--test-dir", build_dir, f"-j{os.cpu_count()}", "--stop-on-failure",
                                "--timeout", "300"]
    if regex:
        cmd += ["-R", regex]
    if labels_out:
        cmd += ["-LE", labels_out]
    if leave_out:
        cmd += ["-E", leave_out]
    elif regex and exclude:
        # The suites of a fault, less the three tests that measure memory (100 s together;
        # they assert figures, not safety, and run with --full).
        cmd += ["-E", "CostsBoundedMemory|CostBoundedMemory|MemoryIsThatOfAFew"]
    try:
        result = run(cmd, timeout=3600)
    except subprocess.TimeoutExpired:
        return ["(the suite timed out)"]  # a hang is a failure the suite saw
    failed = [line.split(" - ", 1)[1].rsplit(" (", 1)[0].strip()
              for line in result.stdout.splitlines() if re.match(r"^\s+\d+ - ", line)]
    if result.returncode != 0 and not failed:
        failed = ["(ctest failed: " + result.stdout.strip().splitlines()[-1] + ")"]
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default="build-debug")
    ap.add_argument("--only", default="")
    ap.add_argument("--killers-from", action="append", default=[], metavar="LOG",
                    help="--random: before the whole suite, run the tests that killed most "
                         "mutants in this earlier --log (and in this run's own --log)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--full", action="store_true",
                    help="a fault that survives its suites is run against the whole suite")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="draw N random operator mutants of the security-critical sources")
    ap.add_argument("--seed", type=int, default=1, help="the seed of the --random sample")
    ap.add_argument("--sites", action="store_true", help="list every site of --random")
    ap.add_argument("--log", help="--random: append one JSON line per mutant to this file")
    ap.add_argument("--replay", metavar="LOG",
                    help="run the mutants of an earlier --random run's --log again, by their "
                    "keys, in today's code (those whose line changed are reported gone)")
    ap.add_argument("--skip-clean-run", action="store_true",
                    help="--random: do not run the suite on the clean tree first (it must "
                    "have passed in this build directory, whose cost data orders the tiers)")
    ap.add_argument("--diff", metavar="BASE",
                    help="mutate only the lines the change from BASE (a commit) to the tree "
                    "added or changed, in every Linux source under src/")
    ap.add_argument("--budget", type=int, default=0, metavar="SECONDS",
                    help="--diff: stop starting mutants after this long; those left are listed "
                    "as not tried (they fail nothing)")
    args = ap.parse_args()
    # SIGTERM (a timeout, a kill) unwinds like ^C, so the faulty source is always restored.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return dispatch(args)
    finally:
        if "dir" in MUTANT_BUILT:
            # Stopped between a mutant's build and the clean one: the sources are restored, the
            # build is not yet. Another SIGTERM now would stop this rebuild too.
            print(f"mutate: stopped; rebuilding {MUTANT_BUILT['dir']} from the restored sources",
                  file=sys.stderr, flush=True)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            build(MUTANT_BUILT["dir"])


def dispatch(args):
    if args.diff:
        return diff_run(args)
    if args.random or args.sites or args.replay:
        return random_run(args)
    chosen = [f for f in FAULTS if not args.only or f[0] in args.only.split(",")]
    if args.list:
        for fid, path, _, _, what, _ in chosen:
            print(f"{fid:28} {path:42} {what}")
        return 0

    # Every fault must apply to today's code before any is tried.
    stale = []
    for fid, path, original, _, _, _ in chosen:
        n = (ROOT / path).read_text().count(original)
        if n != 1:
            stale.append(f"{fid}: {path}: the original occurs {n} times")
    if stale:
        print("mutate: faults that no longer apply (update the list):", *stale, sep="\n  ")
        return 2
    if not build(args.build_dir):
        print("mutate: the clean tree does not build")
        return 2
    # A fault is killed by a failing test: the clean tree must fail none.
    if failed := failing_tests(args.build_dir):
        print("mutate: the suite fails on the clean tree; fix that first: " + ", ".join(failed))
        return 2
    print(f"mutate: the clean tree passes the suite; {len(chosen)} faults to try", flush=True)

    killed, survived, stillborn = [], [], []
    began = time.monotonic()
    for fid, path, original, fault, what, regex in chosen:
        source = ROOT / path
        text = source.read_text()
        started = time.monotonic()
        try:
            source.write_text(text.replace(original, fault, 1))
            killers = []
            if not build_mutant(args.build_dir):
                verdict = "does not compile"
                stillborn.append(fid)
            elif killers := failing_tests(args.build_dir, regex):
                verdict = "killed (by its suites)"
                killed.append(fid)
            elif args.full and (killers := failing_tests(args.build_dir)):
                verdict = "killed (by the whole suite)"
                killed.append(fid)
            else:
                verdict = "SURVIVED" + ("" if args.full else " its suites")
                survived.append(fid)
        finally:
            source.write_text(text)
        print(f"mutate: {fid:28} {verdict:28} {time.monotonic() - started:6.0f} s  {what}",
              flush=True)
        if killers:
            print(f"mutate: {'':28} by {', '.join(killers[:3])}", flush=True)
    build(args.build_dir)
    tried = len(killed) + len(survived)
    rate = 100.0 * len(killed) / tried if tried else 0.0
    print(f"mutate: {len(killed)} of {tried} faults killed ({rate:.0f}%), "
          f"{len(stillborn)} did not compile, {time.monotonic() - began:.0f} s")
    if survived:
        print("mutate: survivors: " + ", ".join(survived))
    return 0 if not survived and not stillborn else 1


if __name__ == "__main__":
    sys.exit(main())
