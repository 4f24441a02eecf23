#!/usr/bin/env python3
"""Deliberate faults in security-critical code, one at a time: does the suite kill each one?

    python3 scripts/mutate.py [--build-dir build-debug] [--only ID[,ID...]] [--full] [--list]

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
Not part of CI: about two minutes per fault on two cores (README.md, "Assurance").
"""
import argparse
import os
import pathlib
import re
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
    ("observe-file-follows", "src/platform/posix/observe_posix.cpp",
     "constexpr int kFileOpenFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;",
     "constexpr int kFileOpenFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;",
     "observation reads through a symlink planted as a backing file", "Observe|Hostile|Audit"),
    ("observe-dir-follows", "src/platform/posix/observe_posix.cpp",
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
    ("batch-without-openat2", "src/platform/posix/observe_posix.cpp",
     "if (!options_.batched_io || !options_.open_files || !openat2_available()) return nullptr;",
     "if (!options_.batched_io || !options_.open_files) return nullptr;",
     "files are opened by openat2 inside io_uring where the openat2 system call is refused",
     "Fallbacks"),
]


def run(cmd, timeout=None):
    return subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)


def build(build_dir):
    return run(["cmake", "--build", build_dir, "--", f"-j{os.cpu_count()}"]).returncode == 0


def failing_tests(build_dir, regex=None):
    """Runs the tests; returns the names of those that failed (empty: all passed)."""
    cmd = ["ctest", "--test-dir", build_dir, f"-j{os.cpu_count()}", "--stop-on-failure",
           "--timeout", "300"]
    if regex:
        # The suites of a fault, less the three tests that measure memory (100 s together;
        # they assert figures, not safety, and run with --full).
        cmd += ["-R", regex, "-E", "CostsBoundedMemory|CostBoundedMemory|MemoryIsThatOfAFew"]
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
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--full", action="store_true",
                    help="a fault that survives its suites is run against the whole suite")
    args = ap.parse_args()
    # SIGTERM (a timeout, a kill) unwinds like ^C, so the faulty source is always restored.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
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
            if not build(args.build_dir):
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
