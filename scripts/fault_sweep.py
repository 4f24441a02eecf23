#!/usr/bin/env python3
"""The fault sweep: every system-call site a subcommand reaches, made to fail.

For each of audit, reap, reap --dry-run, create, repair and ps on a realistic tree (stale
files of several users, a foreign file, a namespace others may write, a live JVM's backing
file held by its flock and mapped, a file outside any namespace, an old report at --output),
one run under `strace -f -k` lists the sites the run reaches: a site is a system call and the
innermost frame of the tool's own code that made it. Then, for each site, its first call and
its last (when it is called more than once), each answer the kernel may give there is injected
with `strace --inject=SYSCALL:error=E:when=N` (N counted in the thread that reached the site,
as strace counts), one fault per run, on a fresh tree. Every run must end (a timeout is
`hung`), end without a signal or a sanitizer report (`crashed`), remove nothing it must keep
(a live JVM's file, anything outside a namespace, any file for the commands that remove
nothing) and leave the old report or a whole new one at --output (`lost data`), and exit
with a status the reference gives for the subcommand, saying what failed when it is not 0 (a
run the fault made fail or stop incomplete in the kernel's words for it, NAMED_ERRORS), and
say every file it did not look at or did not remove (`wrong status/silent`); else `ok`.

The default is CI's tier: the first call of every site with one error each (EIO, and a read or
write answering 0 bytes), with a stand-in JVM. --full is the whole sweep (first and last call,
every answer of the table below), with a real JVM beside the stand-in when `java` is found.
The whole sweep runs in a private mount namespace over a fresh tmpfs at /tmp: the tree is
the host's temp dir for every subcommand, ps included, and the host's own /tmp is never seen.
Run as root (the tree has namespaces of several users). Exit 0 when every run was ok.
"""

import argparse
import collections
import errno
import fcntl
import json
import mmap
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

# What the kernel may answer at a call, by system call: the errors of its man page that a
# local or network file system, /proc or a refused filter can give there, and the five every
# file system call can meet (EINTR where the call may sleep, EIO, EACCES, ENOENT for a name
# that vanished, ENOSPC where it allocates). "retval=0" is a read of nothing (end of file)
# or a write of nothing; strace does not run the call then, so a short read or write of
# N > 0 bytes cannot be modelled faithfully (its bytes would be the buffer's old ones) and is
# not injected.
PATH_CALL = ["ENOENT", "EACCES", "EIO", "ELOOP", "ENOTDIR", "ENOMEM"]
ANSWERS = {
    "openat": PATH_CALL + ["EINTR", "EMFILE", "ENFILE", "ENOSPC", "EPERM", "ENXIO", "EISDIR"],
    "open": PATH_CALL + ["EINTR", "EMFILE", "ENOSPC", "EPERM"],
    "openat2": PATH_CALL + ["EINTR", "EMFILE", "EXDEV", "EAGAIN", "ENOSYS", "EPERM"],
    "read": ["EINTR", "EIO", "EAGAIN", "retval=0"],
    "pread64": ["EINTR", "EIO", "retval=0"],
    "readv": ["EINTR", "EIO", "retval=0"],
    "write": ["EINTR", "EIO", "ENOSPC", "EDQUOT", "EPIPE", "retval=0"],
    "pwrite64": ["EINTR", "EIO", "ENOSPC", "EDQUOT", "retval=0"],
    "writev": ["EINTR", "EIO", "ENOSPC", "retval=0"],
    "getdents64": ["EINTR", "EIO", "ENOENT", "ENOMEM"],
    "statx": ["ENOENT", "EACCES", "EIO", "ELOOP", "ENOMEM", "ENOSYS"],
    "newfstatat": ["ENOENT", "EACCES", "EIO", "ELOOP", "ENOMEM", "EOVERFLOW"],
    "fstat": ["EIO", "ENOMEM", "EOVERFLOW"],
    "fstatfs": ["EIO", "ENOSYS", "EINTR"],
    "statfs": ["ENOENT", "EACCES", "EIO", "ENOSYS"],
    "readlinkat": ["ENOENT", "EACCES", "EIO", "EINVAL", "ELOOP"],
    "readlink": ["ENOENT", "EACCES", "EIO", "EINVAL"],
    "unlinkat": ["EIO", "ENOENT", "EACCES", "EPERM", "EBUSY", "EROFS", "ENOTEMPTY"],
    "renameat2": ["EIO", "ENOENT", "EACCES", "ENOSPC", "EROFS", "EXDEV", "EINVAL", "EPERM"],
    "renameat": ["EIO", "ENOENT", "EACCES", "ENOSPC", "EROFS", "EXDEV"],
    "rename": ["EIO", "ENOENT", "EACCES", "ENOSPC", "EROFS", "EXDEV"],
    "linkat": ["EIO", "ENOENT", "EACCES", "ENOSPC", "EEXIST", "EPERM", "EXDEV", "EROFS"],
    "mkdirat": ["EIO", "ENOENT", "EACCES", "ENOSPC", "EEXIST", "EROFS", "EDQUOT"],
    "mkdir": ["EIO", "ENOENT", "EACCES", "ENOSPC", "EEXIST", "EROFS"],
    "flock": ["EINTR", "EAGAIN", "ENOLCK", "EIO"],
    "fcntl": ["EINTR", "EACCES", "EAGAIN", "ENOLCK"],
    "fsync": ["EIO", "ENOSPC", "EROFS", "EDQUOT", "EINTR"],
    "fdatasync": ["EIO", "ENOSPC", "EROFS", "EDQUOT"],
    "ftruncate": ["EIO", "EINTR", "EFBIG", "EPERM", "EROFS"],
    "fallocate": ["EIO", "ENOSPC", "EOPNOTSUPP", "EINTR", "EFBIG", "EDQUOT"],
    "fchmod": ["EIO", "EPERM", "EROFS"],
    "fchmodat": ["EIO", "ENOENT", "EPERM", "EROFS"],
    "fchown": ["EIO", "EPERM", "EROFS"],
    "fchownat": ["EIO", "ENOENT", "EPERM", "EROFS"],
    "fgetxattr": ["EIO", "ENODATA", "EOPNOTSUPP", "ERANGE", "EACCES"],
    "fsetxattr": ["EIO", "ENOSPC", "EOPNOTSUPP", "EPERM", "EDQUOT"],
    "fremovexattr": ["EIO", "ENODATA", "EOPNOTSUPP", "EPERM"],
    "getxattr": ["EIO", "ENODATA", "EOPNOTSUPP", "ENOENT", "EACCES"],
    "lgetxattr": ["EIO", "ENODATA", "EOPNOTSUPP", "ENOENT", "EACCES"],
    "flistxattr": ["EIO", "EOPNOTSUPP", "ERANGE"],
    "lseek": ["EIO", "EINVAL", "EOVERFLOW"],
    "close": ["EIO", "EINTR"],
    "mmap": ["EACCES", "ENODEV", "ENOMEM", "EAGAIN"],
    "kill": ["EPERM", "ESRCH"],
    "pidfd_open": ["ESRCH", "ENOSYS", "EMFILE"],
    "setfsuid": [],
    "setfsgid": [],
    "setgroups": ["EPERM", "ENOMEM"],
    "getgroups": ["EINVAL"],
    "socket": ["EACCES", "EMFILE", "ENOBUFS", "EAFNOSUPPORT"],
    "connect": ["ENOENT", "EACCES", "ECONNREFUSED", "EINTR", "EAGAIN"],
    "ioctl": ["ENOTTY", "EINVAL", "EIO"],
    "access": ["ENOENT", "EACCES", "EIO"],
    "faccessat": ["ENOENT", "EACCES", "EIO"],
    "faccessat2": ["ENOENT", "EACCES", "EIO", "ENOSYS"],
    "io_uring_setup": ["ENOMEM", "EPERM", "ENOSYS", "EMFILE"],
    "io_uring_enter": ["EINTR", "EAGAIN", "EBUSY", "ENOMEM"],
    "io_uring_register": ["ENOMEM", "EINVAL", "EPERM"],
    "uname": ["EFAULT"],
    "sysinfo": ["EFAULT"],
    "clock_gettime": ["EINVAL"],
    "getrandom": ["EINTR", "EAGAIN", "ENOSYS"],
    "prctl": ["EINVAL", "EPERM"],
    "sched_getaffinity": ["EINVAL"],
}
# The calls of the process's own plumbing, not of its work: memory (an allocation that fails
# ends any C++ program with std::bad_alloc, which is not what this sweep asks), threads,
# signals' dispositions and the exit. Their sites are listed and counted, not injected. A
# file's mmap is not plumbing: it is injected (its fd argument is not -1).
PLUMBING = {
    "mmap", "munmap", "mprotect", "brk", "madvise", "mremap", "futex", "rt_sigaction",
    "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "exit", "exit_group", "clone", "clone3",
    "set_robust_list", "rseq", "set_tid_address", "arch_prctl", "prlimit64", "execve",
    "gettid", "getpid", "getppid", "geteuid", "getuid", "getegid", "getgid", "sched_yield",
    "nanosleep", "clock_nanosleep", "wait4", "membarrier",
}
# CI's tier: the first call of each site, with one error and, for reads and writes, nothing.
CI_ANSWERS = ("EIO", "retval=0")

DOCUMENTED = {  # docs/reference.md's exit codes, by subcommand (2: a usage error naming a path)
    "audit": {0, 1, 2, 3},
    "reap": {0, 1, 2, 3},
    "reap --dry-run": {0, 1, 2, 3},
    "create": {0, 2, 3, 4},
    "repair": {0, 1, 2, 3, 4},
    "ps": {0, 2, 3},
}
SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer|ThreadSanitizer|MemorySanitizer)|"
                       r"runtime error:|WARNING: ThreadSanitizer")
# The injected errors a run that fails by them must name in the kernel's words; the others
# are answered by a retry (EINTR, EAGAIN), a fallback (ENOSYS) or as a name that is gone
# (ENOENT), and need not be.
NAMED_ERRORS = ("EIO", "EACCES", "ENOSPC", "EDQUOT", "ENOMEM")
OUTCOMES = ("ok", "hung", "crashed", "lost data", "wrong status/silent")

TMP = "/tmp"
# The source tree's files the sweep uses; a clone under /tmp is hidden by the sweep's own tmpfs
# there, so sweep() copies them (and the tool) out of the way first and these name the copies.
HERE = os.path.dirname(os.path.abspath(__file__))
REGION = os.path.join(HERE, "..", "tests", "data", "jdk17-default.hsperf")
JAVA_SOURCE = os.path.join(HERE, "..", "tests", "java", "IdleJvm.java")
OLD_REPORT = b"the report of an earlier run, to be replaced whole or left as it is\n"
CREATE_USER, CREATE_PID = "bin", 4244


def commands(tool):
    common = ["--tmpdir", TMP, "--no-containers", "--format", "json"]
    return {
        "audit": [tool, "audit"] + common + ["--output", TMP + "/out/audit.json"],
        "reap": [tool, "reap"] + common + ["--min-age", "0", "--lock-file", TMP + "/run/reap.lock",
                                           "--journal", TMP + "/run/journal",
                                           "--output", TMP + "/out/reap.json"],
        "reap --dry-run": [tool, "reap", "--dry-run"] + common + [
            "--min-age", "0", "--lock-file", TMP + "/run/reap.lock", "--output", TMP + "/out/dry.json"],
        "create": [tool, "create", "--user", CREATE_USER, "--tmpdir", TMP, "--pid", str(CREATE_PID),
                   "--command", "Demo", "--format", "json", "--output", TMP + "/out/create.json"],
        "repair": [tool, "repair", "--tmpdir", TMP, "--format", "json", "--output", TMP + "/out/repair.json"],
        "ps": [tool, "ps", "--all", "--no-containers", "--format", "json", "--output", TMP + "/out/ps.json"],
    }


def output_of(argv):
    return argv[argv.index("--output") + 1]


# ---- The tree ----------------------------------------------------------------------------

class Tree:
    """The realistic tree at /tmp, rebuilt before each run; the live JVMs' namespace stays."""

    def __init__(self, java):
        with open(REGION, "rb") as f:
            self.region = f.read()
        self.live = []  # (pid, path) of the live JVMs, whose files must survive every run
        self.standin = None
        self.java = None
        os.makedirs(TMP + "/hsperfdata_root", mode=0o755, exist_ok=True)
        self.standin = self._start_standin()
        if java:
            self.java = self._start_java()

    def _start_standin(self):
        """A stand-in JVM: makes its backing file as HotSpot does, flocks it, maps it, closes
        the descriptor (the lock lives on through the mapping) and waits."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:  # the child never returns into the sweep, whatever happens here
                os.close(r)
                path = "%s/hsperfdata_root/%d" % (TMP, os.getpid())
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.write(fd, self.region)
                region = mmap.mmap(fd, len(self.region), mmap.MAP_SHARED)
                os.close(fd)
                os.write(w, b"ready")
                os.close(w)
                while region is not None:  # the mapping, and with it the lock, live until SIGKILL
                    signal.pause()
            finally:
                os._exit(1)
        os.close(w)
        ready = os.read(r, 5)
        os.close(r)
        if ready != b"ready":
            raise SystemExit("fault_sweep: the stand-in JVM did not start")
        path = "%s/hsperfdata_root/%d" % (TMP, pid)
        self.live.append((pid, path, os.lstat(path).st_ino))
        return pid

    def _start_java(self):
        proc = subprocess.Popen(["java", "-XX:+UsePerfData", JAVA_SOURCE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        line = proc.stdout.readline()
        if line.strip() != b"ready":
            raise SystemExit("fault_sweep: the JVM did not start")
        path = "%s/hsperfdata_root/%d" % (TMP, proc.pid)
        for _ in range(100):
            if os.path.exists(path):
                break
            time.sleep(0.05)
        self.live.append((proc.pid, path, os.lstat(path).st_ino))
        return proc

    def stop(self):
        if self.standin:
            os.kill(self.standin, signal.SIGKILL)
            os.waitpid(self.standin, 0)
        if self.java:
            self.java.stdin.close()
            try:
                self.java.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.java.kill()
                self.java.wait()

    def live_lost(self):
        lost = []
        for pid, path, ino in self.live:
            try:
                if os.lstat(path).st_ino != ino:
                    lost.append(path + " replaced")
            except FileNotFoundError:
                lost.append(path + " removed")
        return lost

    @staticmethod
    def dead_pids(n):
        pids, candidate = [], 29999
        while len(pids) < n:
            if not os.path.exists("/proc/%d" % candidate):
                pids.append(candidate)
            candidate -= 7
        return pids

    def build(self):
        for name in os.listdir(TMP):
            if name == "hsperfdata_root":
                continue
            path = os.path.join(TMP, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        for name in os.listdir(TMP + "/hsperfdata_root"):
            if name not in {str(pid) for pid, _, _ in self.live}:
                os.unlink(TMP + "/hsperfdata_root/" + name)
        pids = self.dead_pids(5)
        # nobody: three stale files and a foreign one, as a killed JVM and a stray tool leave.
        self._namespace("nobody", 65534, 65534, 0o755, {str(p): self.region for p in pids[:3]},
                        {"core.txt": b"not a backing file\n"})
        # daemon: a namespace others may write (repair fixes it), with one stale file.
        self._namespace("daemon", 1, 1, 0o777, {str(pids[3]): self.region}, {})
        # a stale file of root's beside the live ones
        self._file(TMP + "/hsperfdata_root/%d" % pids[4], 0, 0, self.region)
        # outside every namespace: nothing may touch these
        os.makedirs(TMP + "/keep", mode=0o755)
        with open(TMP + "/keep/data", "wb") as f:
            f.write(b"outside every namespace\n")
        os.symlink("/etc/passwd", TMP + "/keep/link")
        os.makedirs(TMP + "/out", mode=0o755)
        for name in ("audit", "reap", "dry", "create", "repair", "ps"):
            with open("%s/out/%s.json" % (TMP, name), "wb") as f:
                f.write(OLD_REPORT)
        os.makedirs(TMP + "/run", mode=0o700)

    def _file(self, path, uid, gid, data):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, data)
        os.fchown(fd, uid, gid)
        os.close(fd)

    def _namespace(self, user, uid, gid, mode, stale, foreign):
        ns = "%s/hsperfdata_%s" % (TMP, user)
        os.mkdir(ns)
        os.chown(ns, uid, gid)
        os.chmod(ns, mode)
        for name, data in list(stale.items()) + list(foreign.items()):
            self._file(ns + "/" + name, uid, gid, data)

    @staticmethod
    def snapshot():
        """Every path under /tmp with its inode and, for regular files, its bytes' size."""
        out = {}
        for dirpath, dirnames, filenames in os.walk(TMP):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                st = os.lstat(path)
                out[path] = (st.st_ino, stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode))
        return out


def in_namespace(path):
    rel = os.path.relpath(path, TMP)
    first = rel.split("/")[0]
    return first.startswith("hsperfdata_") and "/" in rel


# ---- One run -------------------------------------------------------------------------------

class Run:
    def __init__(self, rc, err, seconds, hit):
        self.rc, self.err, self.seconds, self.hit = rc, err, seconds, hit


def run_tool(argv, strace_args, timeout, log):
    env = dict(os.environ)
    # LeakSanitizer cannot run under ptrace; a sanitizer build keeps its other checks.
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    cmd = ["strace", "-f", "-qq", "-o", log] + strace_args + ["--"] + argv
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc = None
    seconds = time.monotonic() - started
    hit = False
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            hit = "(INJECTED" in f.read()
    return Run(rc, (out + err).decode(errors="replace"), seconds, hit)


def report_of(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None, None
    if data == OLD_REPORT:
        return data, None
    try:
        return data, json.loads(data)
    except ValueError:
        return data, None


def strings_under(value, prefix):
    found = set()
    if isinstance(value, str):
        if value.startswith(prefix):
            found.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            found |= strings_under(v, prefix)
    elif isinstance(value, list):
        for v in value:
            found |= strings_under(v, prefix)
    return found


def reported_errors(doc):
    """Whether a report says something failed: any non-empty errors list, a failed action or
    finding, or complete false."""
    if not isinstance(doc, dict):
        return False
    if doc.get("complete") is False:
        return True
    text = json.dumps(doc)
    return re.search(r'"errors": \[[^\]]', text) is not None or \
        re.search(r'"(outcome|status)": "failed"', text) is not None


def in_nss(frame):
    """Whether the site is a call glibc's NSS makes for the tool (the host's user database):
    when its files service fails, glibc asks the next one (systemd), which knows no such user,
    and getpwnam_r answers "not found" with 0, the error lost before the tool sees it."""
    return "HostUserDatabase::" in (frame or "")


def judge(name, argv, run, before, after, tree, baseline, answer=None, frame=None):
    """The outcome of one run and why. `answer` is the fault's: ENOENT says the name is gone,
    and what is gone is not missing from a complete report (the tool's rule, and the kernel's:
    a directory that answers getdents64 with ENOENT was removed, and lists nothing)."""
    if run.rc is None:
        return "hung", "no end within the timeout"
    if run.rc < 0 or run.rc >= 128 or SANITIZER.search(run.err):
        return "crashed", "exit %s%s" % (run.rc, "; sanitizer report" if SANITIZER.search(run.err) else "")
    lost = tree.live_lost()
    for path in before:
        if path not in after and (not in_namespace(path) or name != "reap"):
            lost.append(path + " removed")
    data, doc = report_of(output_of(argv))
    if data is None:
        lost.append("the old report is gone")
    elif data != OLD_REPORT and doc is None:
        lost.append("a cut report in place of the old one")
    if lost:
        return "lost data", "; ".join(sorted(lost)[:3])
    if run.rc not in DOCUMENTED[name]:
        return "wrong status/silent", "exit %d is not one the reference gives" % run.rc
    said = run.err.strip() != "" or reported_errors(doc) or bool(isinstance(doc, dict) and doc.get("exit_reason"))
    if run.rc not in (0, baseline.rc) and not said:
        return "wrong status/silent", "exit %d and nothing said" % run.rc
    if run.rc in (2, 3) and not said:
        return "wrong status/silent", "exit %d and nothing said" % run.rc
    # What failed is named: a run that the fault made fail or incomplete says the kernel's
    # words for it (strerror), on stderr or in its report, not only that something failed.
    if run.rc in (2, 3) and run.rc != baseline.rc and answer in NAMED_ERRORS and not in_nss(frame):
        words = os.strerror(getattr(errno, answer))
        if words not in run.err and (data is None or words.encode() not in data):
            return "wrong status/silent", "exit %d without the fault's words (%s)" % (run.rc, words)
    if name == "reap" and isinstance(doc, dict):
        claimed = {a["path"] for a in doc.get("actions", []) if a.get("outcome") == "removed"}
        gone = {p for p in before if in_namespace(p) and p not in after}
        if claimed - gone:
            return "wrong status/silent", "counted as removed, still there: " + ", ".join(sorted(claimed - gone))
        if gone - claimed:
            return "wrong status/silent", "removed, never said: " + ", ".join(sorted(gone - claimed))
    if name == "reap" and doc is None and any(in_namespace(p) and p not in after for p in before) \
            and not said:
        return "wrong status/silent", "files removed and no report nor error"
    complete = run.rc == 0 or (name == "audit" and run.rc == 1)
    if complete and name in ("audit", "ps", "reap --dry-run") and isinstance(doc, dict) and answer != "ENOENT":
        named = strings_under(doc, TMP + "/hsperfdata_")  # a namespace's error names its files
        # Only the tree's own files: another sweep's JVM, in its own mount namespace, is a
        # process ps sees, mapping a file of the same name in another /tmp.
        missing = {p for p in baseline.paths - named
                   if p in before and not any(p.startswith(n + "/") for n in named)}
        if missing:
            return "wrong status/silent", "a complete report without " + ", ".join(sorted(missing)[:3])
    busy = name.startswith("reap") and run.rc == 0 and "another reap holds" in run.err and answer == "EAGAIN"
    if complete and doc is None and not busy:  # --no-wait: another run's lock, exit 0, no report
        return "wrong status/silent", "exit %d and no report written" % run.rc
    if name == "create" and run.rc == 0:
        made = "%s/hsperfdata_%s/%d" % (TMP, CREATE_USER, CREATE_PID)
        if not os.path.isfile(made) or os.path.getsize(made) == 0:
            return "wrong status/silent", "exit 0 and no backing file"
    if name == "repair" and run.rc == 0 and baseline.rc == 0 and answer != "ENOENT":
        if stat.S_IMODE(os.lstat(TMP + "/hsperfdata_daemon").st_mode) & 0o022:
            return "wrong status/silent", "exit 0 and the namespace still writable by others"
    return "ok", ""


# ---- Sites ---------------------------------------------------------------------------------

OUTSIDE = "(outside the tool: the loader or libc)"
LINE = re.compile(r"^(\d+) +(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")


def sites_of(log, tool):
    """{(syscall, frame): [(tid, occurrence)...]} from a `strace -f -k` log: each call is
    counted at its start in its thread; its stack follows its line (or its resumed line)."""
    tool_real = os.path.realpath(tool)
    counts = collections.defaultdict(int)  # (tid, syscall) -> calls so far
    pending = {}  # tid -> (syscall, index, args) of an unfinished call
    sites = collections.OrderedDict()
    numbered = collections.defaultdict(list)  # (syscall, occurrence) -> frames, every thread
    current = None  # (syscall, tid, index, args) whose stack is being read
    frame = None

    def close_current():
        if current is not None:
            syscall, tid, index, args = current
            key = (syscall, frame or OUTSIDE)
            sites.setdefault(key, []).append((tid, index, args))
            numbered[(syscall, index)].append(key[1])

    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith(" > "):
                if frame is None and current is not None:
                    m = re.match(r" > (.*?)\((.*)\) \[0x", line)
                    if m and os.path.realpath(m.group(1)) == tool_real and m.group(2):
                        frame = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
                continue
            m = LINE.match(line)
            if not m:
                continue
            close_current()
            current, frame = None, None
            tid, resumed, name, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            if resumed:
                if tid in pending:
                    syscall, index, args = pending.pop(tid)
                    current = (syscall, tid, index, args + rest)
                continue
            counts[(tid, name)] += 1
            if "<unfinished ...>" in rest:
                pending[tid] = (name, counts[(tid, name)], rest)
                continue
            current = (name, tid, counts[(tid, name)], rest)
        close_current()
    return sites, numbered


def reachable(syscall, calls, numbered):
    """The calls of a site that a `when=N` reaches without also failing the same call number of
    another thread outside the tool (the loader's reads, in the main thread, come first)."""
    return [c for c in calls if OUTSIDE not in numbered[(syscall, c[1])]]


def injectable(syscall, frame, calls):
    if frame.startswith("(outside"):
        return False
    if syscall == "mmap":
        return any(not re.match(r"NULL, \d+, [^,]+, [^,]+, -1,", a) for _, _, a in calls)
    return syscall not in PLUMBING and syscall in ANSWERS and bool(ANSWERS[syscall])


# ---- The sweep -----------------------------------------------------------------------------

class Baseline:
    def __init__(self, rc, paths):
        self.rc, self.paths = rc, paths


def sweep(args):
    global REGION, JAVA_SOURCE
    work = tempfile.mkdtemp(prefix="fault-sweep.", dir="/var/tmp")
    # The tool, the sample region and the JVM's source may sit under /tmp (a clone there), which
    # the tmpfs mounted below hides: each is copied into the work directory before it is.
    tool = os.path.join(work, "hsperfguard")
    shutil.copy2(os.path.realpath(args.binary), tool)
    REGION = shutil.copy2(REGION, os.path.join(work, "region.hsperf"))
    if os.path.exists(JAVA_SOURCE):
        JAVA_SOURCE = shutil.copy2(JAVA_SOURCE, os.path.join(work, "IdleJvm.java"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=1777", "tmpfs", TMP], check=True)
    tree = Tree(java=args.full and shutil.which("java") is not None and not args.no_java)
    log = os.path.join(work, "strace.log")
    table = collections.OrderedDict()
    bad = []
    started = time.monotonic()
    try:
        for name, argv in commands(tool).items():
            if args.only and name not in args.only:
                continue
            tree.build()
            before = tree.snapshot()
            run = run_tool(argv, ["-k"], args.timeout * 4, log)
            sites, numbered = sites_of(log, tool)
            data, doc = report_of(output_of(argv))
            baseline = Baseline(run.rc, strings_under(doc, TMP + "/hsperfdata_") if doc else set())
            outcome, why = judge(name, argv, run, before, tree.snapshot(), tree,
                                 Baseline(run.rc, set()))
            if outcome != "ok" or run.rc not in DOCUMENTED[name]:
                raise SystemExit("fault_sweep: %s without a fault: %s %s (exit %s)\n%s"
                                 % (name, outcome, why, run.rc, run.err))
            row = {"sites": sum(1 for _, frame in sites if frame != OUTSIDE), "injectable": 0, "shadowed": 0, "runs": 0, "injected": 0,
                   "seconds": 0.0, **{o: 0 for o in OUTCOMES}}
            table[name] = row
            faults = []
            for (syscall, frame), calls in sites.items():
                if not injectable(syscall, frame, calls):
                    continue
                calls = reachable(syscall, calls, numbered)
                if not calls:
                    row["shadowed"] += 1
                    continue
                row["injectable"] += 1
                first = calls[0]
                whens = [first]
                later = [c for c in calls if c[0] == first[0] and c[1] != first[1]]
                if args.full and later:
                    whens.append(later[-1])
                answers = ANSWERS[syscall] if args.full else [
                    a for a in CI_ANSWERS if a in ANSWERS[syscall]] or ANSWERS[syscall][:1]
                for _, index, _ in whens:
                    for answer in answers:
                        faults.append((syscall, frame, index, answer))
            if args.inject:  # one fault, shown whole: what the tool said and its report
                syscall, rest = args.inject.split(":", 1)
                faults = [(syscall, "(given)", int(rest.rsplit("when=", 1)[1]),
                           rest.rsplit(":when=", 1)[0].replace("error=", ""))]
            seen = set()
            for syscall, frame, index, answer in faults:
                key = (syscall, index, answer)
                if key in seen:  # two sites' calls may share a number in different threads
                    continue
                seen.add(key)
                spec = "%s:%s:when=%d%s" % (syscall, answer if answer.startswith("retval") else "error=" + answer,
                                            index, "+" if args.lasting else "")
                tree.build()
                before = tree.snapshot()
                if os.path.exists(log):
                    os.unlink(log)
                run = run_tool(argv, ["-e", "trace=" + syscall, "-e", "inject=" + spec], args.timeout, log)
                outcome, why = judge(name, argv, run, before, tree.snapshot(), tree, baseline, answer, frame)
                row["runs"] += 1
                row["injected"] += run.hit
                row["seconds"] += run.seconds
                row[outcome] += 1
                if outcome != "ok":
                    bad.append((name, spec, frame, outcome, why, run.rc, run.err.strip()[-300:]))
                if args.inject:
                    print(run.err)
                    print(open(output_of(argv), errors="replace").read()[:args.show])
                if args.verbose or outcome != "ok":
                    print("%-15s %-38s %-20s exit %-4s %s %s" % (name, spec, outcome, run.rc, frame[:60], why),
                          flush=True)
                if tree.live_lost():  # a lost live file is reported once; the next run needs it back
                    raise SystemExit("fault_sweep: a live JVM's file was lost; stopping")
    finally:
        tree.stop()
        shutil.rmtree(work, ignore_errors=True)
    print_table(table, bad, time.monotonic() - started, args)
    return 1 if bad else 0


def print_table(table, bad, seconds, args):
    print()
    print("fault sweep (%s): one fault per run, each on a fresh tree" % ("full" if args.full else "CI tier"))
    head = ["subcommand", "sites", "injectable", "shadowed", "runs", "injected"] + list(OUTCOMES)
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    total = collections.Counter()
    for name, row in table.items():
        cells = [name] + [str(row[k]) for k in head[1:]]
        print("| " + " | ".join(cells) + " |")
        total.update({k: row[k] for k in head[1:]})
    print("| total | " + " | ".join(str(total[k]) for k in head[1:]) + " |")
    if bad:
        print("\nnot ok:")
        for name, spec, frame, outcome, why, rc, err in bad:
            print("  %s, %s at %s: %s (exit %s): %s" % (name, spec, frame, outcome, rc, why))
            if err:
                print("    " + err.replace("\n", "\n    "))
    print("\n%d runs in %.0f s" % (sum(r["runs"] for r in table.values()), seconds))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True, help="the hsperfguard to sweep")
    parser.add_argument("--full", action="store_true",
                        help="every answer of the table, first and last call of each site, a real JVM")
    parser.add_argument("--no-java", action="store_true", help="--full with the stand-in JVM only")
    parser.add_argument("--only", action="append", choices=list(DOCUMENTED), help="one subcommand (repeatable)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a run may take (default 20)")
    parser.add_argument("--inject", metavar="SYSCALL:error=E:when=N",
                        help="this one fault only (with --only), its output and report shown")
    parser.add_argument("--show", type=int, default=4000, help="--inject: bytes of the report shown")
    parser.add_argument("--verbose", action="store_true", help="print every run, not only the bad ones")
    parser.add_argument("--lasting", action="store_true",
                        help="each fault lasts: the site's call and every later call of its system call "
                        "in that thread get the answer (when=N+), as a disk error that does not go away")
    parser.add_argument("--cannot-run-status", type=int, default=1, metavar="N",
                        help="the exit status when the sweep cannot run here (not root, a program "
                        "missing); ctest's test gives 77, its skip, which CI's check of skips refuses")
    args = parser.parse_args()

    def cannot_run(why):
        print("fault_sweep: " + why, file=sys.stderr)
        sys.exit(args.cannot_run_status)

    if os.geteuid() != 0:
        cannot_run("run as root (the tree has namespaces of several users)")
    for program in ("strace", "unshare", "mount"):
        if shutil.which(program) is None:
            cannot_run("needs %s" % program)
    if os.environ.get("HSPERFGUARD_FAULT_SWEEP_NS") != "1":
        # Into a private mount namespace, where /tmp is a fresh tmpfs of the sweep's own.
        env = dict(os.environ, HSPERFGUARD_FAULT_SWEEP_NS="1")
        os.execvpe("unshare", ["unshare", "--mount", "--propagation", "private", sys.executable,
                               os.path.abspath(__file__)] + sys.argv[1:], env)
    sys.exit(sweep(args))


if __name__ == "__main__":
    main()
