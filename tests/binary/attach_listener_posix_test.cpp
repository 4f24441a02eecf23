// Attach sockets whose pid lives, judged by whether that process listens on them: a socket file
// nobody listens on with a live `sleep` as its pid (a killed JVM's, its pid reused), a process
// that listens on its own `.java_pid<pid>` without being a JVM, a listener whose /proc/<pid>/fd
// cannot be read, and real JVMs (JDK 17 and JDK 25)
// after `jcmd PID VM.version` made their listener, beside one without a listener whose orphan
// socket made jcmd fail. Each case is a script in a private mount namespace with its own /tmp
// (hostile_support.hpp) printing key=value lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hostile_support.hpp"
#include "jvm_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

// Prints key=value lines of the reap plan item and the audit findings for PATH:
// `report_of PATH PREFIX` after /tmp/plan.json (reap --dry-run --format json) and /tmp/audit.json.
const char* kReportOf = R"SH(
report_of() { python3 - "$1" "$2" <<'PY'
import json, sys
path, prefix = sys.argv[1], sys.argv[2]
plan = json.load(open("/tmp/plan.json"))
for item in plan["plan"]:
    if item["path"] == path:
        print("%s_action=%s" % (prefix, item["action"]))
        print("%s_verdict=%s" % (prefix, item["verdict"]))
        print("%s_reason=%s" % (prefix, item["reason"]))
audit = json.load(open("/tmp/audit.json"))
rules = sorted(f["rule"] for a in audit["attach"] for f in a["findings"] if a["path"] == path)
print("%s_rules=%s" % (prefix, ",".join(rules) or "none"))
PY
}
judge() {  # judge TMPDIR: the dry run (text and JSON) and the audit of TMPDIR
  $H reap --tmpdir "$1" --dry-run --min-age 0 --no-lock --no-containers > /tmp/plan.txt 2>&1
  $H reap --tmpdir "$1" --dry-run --min-age 0 --no-lock --no-containers --format json > /tmp/plan.json 2>&1
  $H audit --tmpdir "$1" --no-policy --no-containers --fail-on critical --format json > /tmp/audit.json 2> /tmp/audit.err
  echo audit_rc=$? audit_err=$(head -c 300 /tmp/audit.err | tr '\n' ' ')
}
)SH";

Outcome run_attach_case(const std::string& body) { return run_case(std::string(kReportOf) + body); }

// Before: `keep ... live: pid N is alive; kept: a live JVM's`, wrong twice (no JVM, nothing
// listens), and jcmd looped on "Connection refused". After: stale, removed, and why.
TEST(AttachListener, SocketNobodyListensOnWithALiveSleepAsItsPidIsRemoved) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_attach_case(R"SH(
sleep 600 & S=$!
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' /tmp/t/.java_pid$S
chmod 0600 /tmp/t/.java_pid$S
judge /tmp/t
echo dry_line=$(grep "java_pid$S" /tmp/plan.txt | sed "s/$S/S/g; s/^ *//")
report_of /tmp/t/.java_pid$S sleep
echo finding=$(python3 -c 'import json; a=json.load(open("/tmp/audit.json")); f=a["attach"][0]["findings"][0]; print(f.get("message") or a["texts"][f["message_ref"]].replace("<path>", f.get("path", a["attach"][0]["path"])))' | sed "s/$S/S/g")
$H reap --tmpdir /tmp/t --min-age 0 --no-lock --no-containers > /tmp/r.txt 2>&1; echo reap_rc=$?
echo left=$(kind /tmp/t/.java_pid$S)
kill $S
)SH");
  EXPECT_EQ(o.at("dry_line"),
            "remove .java_pidS stale: pid S is alive but nothing listens on this socket (pid S is "
            "not a JVM)")
      << o.result.out << o.result.err;
  EXPECT_EQ(o.at("sleep_action"), "remove");
  EXPECT_EQ(o.at("sleep_verdict"), "stale");
  EXPECT_EQ(o.at("sleep_reason"), "no-listener");
  EXPECT_EQ(o.at("sleep_rules"), "attach.no-listener");
  EXPECT_EQ(o.at("finding"),
            "attach socket /tmp/t/.java_pidS belongs to pid S, which is alive but does not listen "
            "on it (not a JVM): attach tools get \"Connection refused\" from it");
  EXPECT_EQ(o.at("reap_rc"), "0");
  EXPECT_EQ(o.at("left"), "missing");
}

// A process that is no JVM but listens on its own `.java_pid<pid>`, made as HotSpot makes it
// (bind `.tmp`, listen, rename): kept. Something answers there, and it is the process the name
// names: a client gets a connection, not a refusal, and removing the name would cut that
// process off. What it is is the audit's business (owner, mode: attach.socket-unsafe).
TEST(AttachListener, AProcessListeningOnItsOwnAttachNameIsKept) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_attach_case(R"SH(
python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
name = "/tmp/t/.java_pid%d" % os.getpid()
s.bind(name + ".tmp"); s.listen(1); os.chmod(name + ".tmp", 0o600); os.rename(name + ".tmp", name)
print("ready", flush=True); time.sleep(600)' > /tmp/py.out & P=$!
for i in $(seq 100); do [ -S /tmp/t/.java_pid$P ] && break; sleep 0.1; done
judge /tmp/t
report_of /tmp/t/.java_pid$P own
echo own_line=$(grep "java_pid$P" /tmp/plan.txt | sed "s/$P/P/g; s/^ *//")
kill $P
)SH");
  EXPECT_EQ(o.at("own_action"), "keep") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("own_verdict"), "live");
  EXPECT_EQ(o.at("own_reason"), "process-alive");
  EXPECT_EQ(o.at("own_rules"), "none");
  EXPECT_EQ(o.at("own_line"),
            "keep .java_pidP live: pid P is alive and listens on this socket; kept: a live JVM's");
}

// A listener whose /proc/<pid>/fd the reaper may not read (nobody's process, not dumpable, read
// by nobody: the directory is root's then) is kept, and the reason says what could not be read.
TEST(AttachListener, UnreadableFdKeepsTheSocketAndSaysWhy) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_attach_case("B='" + test::tool_path() + "'\n" + R"SH(
chmod 1777 /tmp/t
N="setpriv --reuid=65534 --regid=65534 --clear-groups"
# The system's python: the one on PATH may be a shim under root's home, which nobody cannot run.
$N /usr/bin/python3 -c '
import ctypes, os, socket, time
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
s = socket.socket(socket.AF_UNIX)
name = "/tmp/t/.java_pid%d" % os.getpid()
s.bind(name + ".tmp"); s.listen(1); os.rename(name + ".tmp", name)
time.sleep(600)' 2> /tmp/py.err & P=$!
for i in $(seq 100); do [ -S /tmp/t/.java_pid$P ] && break; sleep 0.1; done
$N $B reap --tmpdir /tmp/t --dry-run --min-age 0 --no-lock --no-containers > /tmp/plan.txt 2>&1
echo hidden_line=$(grep "java_pid$P" /tmp/plan.txt | sed "s/$P/P/g; s/^ *//")
$N $B reap --tmpdir /tmp/t --min-age 0 --no-lock --no-containers > /tmp/r.txt 2>&1
echo left=$(kind /tmp/t/.java_pid$P) py_err=$(cat /tmp/py.err)
kill $P
)SH");
  EXPECT_EQ(o.at("hidden_line"),
            "keep .java_pidP unknown: pid P is alive; whether it listens on this socket could not "
            "be read (/proc/P/fd: read: Permission denied); kept: whether its JVM is alive is not "
            "known")
      << o.result.out << o.result.err;
  EXPECT_EQ(o.at("left"), "socket");
}

// Real JVMs: `jcmd PID VM.version` makes the listener (bound `.java_pid<pid>.tmp`, listening,
// the file renamed into place): kept, with the socket inode the kernel lists for it. A second
// JVM without a listener, given an orphan socket under its pid: jcmd fails with "Connection
// refused" until the reaper removes the socket (stale, "a JVM without an attach listener"),
// then it attaches.
Outcome jvm_case(const std::string& bin) {
  return run_attach_case("JB='" + bin + "'; SRC='" HSPERFGUARD_SOURCE_DIR "'\n" + R"SH(
# start_jvm FIFO: a JVM idling until FIFO is closed; its pid in J. A shell without job control
# starts a background command with SIGQUIT ignored, and a JVM that inherits that never starts
# its attach listener (jcmd: "doesn't respond"): the disposition is reset before the exec.
start_jvm() {
  mkfifo "$1"
  python3 -c 'import os, signal, sys
signal.signal(signal.SIGQUIT, signal.SIG_DFL); signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' $JB/java -XX:+UseSerialGC -Xmx32m "$SRC/tests/java/IdleJvm.java" \
    < "$1" > "$1.out" 2>&1 &
  J=$!
}
start_jvm /tmp/in1; J1=$J; exec 3> /tmp/in1
start_jvm /tmp/in2; J2=$J; exec 4> /tmp/in2
for i in $(seq 600); do grep -q ready /tmp/in1.out && grep -q ready /tmp/in2.out && break; sleep 0.1; done
$JB/jcmd $J1 VM.version > /tmp/jcmd1.txt 2>&1; echo jcmd1_rc=$?
echo bound=$(grep -c " /tmp/.java_pid$J1.tmp\$" /proc/$J1/net/unix)
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' /tmp/.java_pid$J2
chmod 0600 /tmp/.java_pid$J2
timeout 60 $JB/jcmd $J2 VM.version > /tmp/jcmd2.txt 2>&1; echo jcmd2_rc=$?
echo refused=$(grep -c "Connection refused" /tmp/jcmd2.txt)
judge /tmp
report_of /tmp/.java_pid$J1 listening
report_of /tmp/.java_pid$J2 orphan
echo listening_line=$(grep "java_pid$J1" /tmp/plan.txt | sed "s/$J1/J/g; s/^ *//")
echo orphan_line=$(grep "java_pid$J2" /tmp/plan.txt | sed "s/$J2/J/g; s/^ *//")
$H reap --min-age 0 --no-lock --no-containers > /tmp/r.txt 2>&1; echo reap_rc=$?
echo listening_left=$(kind /tmp/.java_pid$J1) orphan_left=$(kind /tmp/.java_pid$J2)
timeout 60 $JB/jcmd $J2 VM.version > /tmp/jcmd3.txt 2>&1; echo jcmd3_rc=$?
echo orphan_listens=$(kind /tmp/.java_pid$J2)
exec 3>&- 4>&-
kill $J1 $J2 2>/dev/null; wait
)SH");
}

void expect_jvm_case(const Outcome& o) {
  EXPECT_EQ(o.at("jcmd1_rc"), "0") << o.result.out << o.result.err;
  // The audit's rules are read from its JSON report, its stderr kept apart (it once failed in CI
  // with both in one file, which then was no JSON): what it said is printed if they are wrong.
  const std::string audit_said = "audit: exit " + o.at("audit_rc") + ", stderr: " + o.at("audit_err");
  EXPECT_EQ(o.at("bound"), "1");
  EXPECT_EQ(o.at("listening_action"), "keep");
  EXPECT_EQ(o.at("listening_reason"), "process-alive");
  EXPECT_EQ(o.at("listening_rules"), "none") << audit_said;
  EXPECT_EQ(o.at("listening_line"),
            "keep .java_pidJ live: pid J is alive and listens on this socket; kept: a live JVM's");
  EXPECT_NE(o.at("jcmd2_rc"), "0");
  EXPECT_NE(o.at("refused"), "0");
  EXPECT_EQ(o.at("orphan_action"), "remove");
  EXPECT_EQ(o.at("orphan_reason"), "no-listener");
  EXPECT_EQ(o.at("orphan_rules"), "attach.no-listener") << audit_said;
  EXPECT_EQ(o.at("orphan_line"),
            "remove .java_pidJ stale: pid J is alive but nothing listens on this socket (pid J is a "
            "JVM without an attach listener)");
  EXPECT_EQ(o.at("reap_rc"), "0");
  EXPECT_EQ(o.at("listening_left"), "socket");
  EXPECT_EQ(o.at("orphan_left"), "missing");
  EXPECT_EQ(o.at("jcmd3_rc"), "0");  // the fix: removed, the JVM can be attached again
  EXPECT_EQ(o.at("orphan_listens"), "socket");
}

TEST(AttachListener, Jdk17ListenerKeptAndAnOrphanSocketOfAJvmRemoved) {
  SKIP_UNLESS_ROOT();
  const std::string java = test::find_program("java");
  ASSERT_FALSE(java.empty());
  const std::string bin = std::filesystem::canonical(java).parent_path();  // its jcmd beside it
  expect_jvm_case(jvm_case(bin));
}

TEST(AttachListener, Jdk25ListenerKeptAndAnOrphanSocketOfAJvmRemoved) {
  SKIP_UNLESS_ROOT();
  expect_jvm_case(jvm_case("/usr/lib/jvm/temurin-25-jdk-amd64/bin"));
}

}  // namespace
}  // namespace hsperfguard
