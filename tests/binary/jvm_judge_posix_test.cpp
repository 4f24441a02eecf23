// The real JVM as the judge of the publication prediction and of the invisible-JVM diagnosis.
//
// Each configuration of the table gets a container of its own (mount and pid namespaces, a
// tmpfs or a shared directory on /tmp) in which, as root:
//   1. the configuration is built in /tmp;
//   2. `hsperfguard audit --no-containers` runs twice, with the hotspot and the default
//      profile, before any JVM exists there: the prediction;
//   3. a JDK JVM starts as pid 1 of the container, as `nobody` (or root).
// Then, from the host: does the JVM map a backing file (/proc/PID/maps)? That is what the JVM
// did, and it must equal both the table's claim (so that a case tests what it says) and the
// prediction made before it started. `ps` must then give each blind JVM its reason, and the
// host's audit a finding naming it. docs/POLICY.md, "The prediction", is this table.
//
// Needs root, a JDK and unshare; all containers start at once (JVMs are slow to start).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "jvm_support.hpp"
#include "sandbox_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using test::Sandbox;
using ::testing::Contains;
using ::testing::HasSubstr;

constexpr const char* kJvmOptions =
    "-Xmx32m -XX:+UseSerialGC -Xshare:auto -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1";

struct JudgeCase {
  const char* name;
  // How /tmp is made: tmpfs mount options, or "shared" (a bind mount of one host directory
  // that the holder JVM's container also has as its /tmp).
  const char* tmp;
  // Shell run as root in the container after /tmp is mounted; $N is the JVM's namespace.
  const char* setup;
  bool as_root;
  const char* jvm_flags;  // extra JVM options (a deliberate -XX:-UsePerfData)
  // What the JDK does in this configuration (checked against the JVM on every run).
  bool publishes;
  const char* cause;          // a cause the prediction must name ("" when it publishes)
  const char* hotspot_rules;  // exactly the rule ids the hotspot profile raises before the JVM starts
  const char* default_rule;   // a rule the default profile must raise ("" none required)
  // The reason `ps` gives when the JVM is blind; for one that publishes, "" (state live) or
  // the reason it is unlisted.
  const char* ps_reason;
};

// Verified against OpenJDK 17 (17.0.x, Debian 12); see docs/POLICY.md for each row's reason.
const JudgeCase kCases[] = {
    {"fresh-tmp", "mode=1777", "", false, "", true, "", "", "", ""},
    {"tmp-not-writable", "mode=0755", "", false, "", false, "temp-dir-not-writable",
     "tmpdir.new-namespaces-fail", "tmpdir.new-namespaces-fail", "create-failed"},
    {"mode-0755", "mode=1777", "mkdir -m 0755 $N && chown nobody $N", false, "", true, "", "", "", ""},
    {"mode-0700", "mode=1777", "mkdir -m 0700 $N && chown nobody $N", false, "", true, "", "", "", ""},
    {"mode-0300-no-read", "mode=1777", "mkdir -m 0300 $N && chown nobody $N", false, "", false,
     "owner-cannot-read", "namespace.owner-no-access", "namespace.owner-no-access", "create-failed"},
    {"mode-0600-no-search", "mode=1777", "mkdir -m 0600 $N && chown nobody $N", false, "", false,
     "owner-cannot-search", "namespace.owner-no-access", "namespace.owner-no-access", "create-failed"},
    {"mode-0500-no-write", "mode=1777", "mkdir -m 0500 $N && chown nobody $N", false, "", false,
     "owner-cannot-write", "namespace.owner-no-access", "namespace.owner-no-access", "create-failed"},
    {"group-writable", "mode=1777", "mkdir -m 0775 $N && chown nobody $N", false, "", false,
     "group-other-writable", "namespace.group-other-writable", "namespace.group-other-writable",
     "namespace-refused"},
    {"other-writable", "mode=1777", "mkdir -m 0757 $N && chown nobody $N", false, "", false,
     "group-other-writable", "namespace.group-other-writable", "namespace.group-other-writable",
     "namespace-refused"},
    {"owned-by-root", "mode=1777", "mkdir -m 0755 $N", false, "", false, "owner-mismatch",
     "namespace.owner-mismatch", "namespace.owner-mismatch", "namespace-refused"},
    {"symlink", "mode=1777", "mkdir -m 0755 /tmp/real && chown nobody /tmp/real && ln -s /tmp/real $N", false,
     "", false, "symlink", "namespace.symlink", "namespace.symlink", "namespace-refused"},
    {"regular-file", "mode=1777", ": > $N && chown nobody $N", false, "", false, "not-directory",
     "namespace.not-directory", "namespace.not-directory", "namespace-refused"},
    {"read-only-mount", "mode=1777",
     "mkdir $N && mount -t tmpfs -o mode=0755,uid=65534 tmpfs $N && mount -o remount,ro $N", false, "", false,
     "read-only-file-system", "namespace.read-only", "namespace.read-only", "create-failed"},
    {"immutable", "mode=1777", "mkdir -m 0755 $N && chown nobody $N && chattr +i $N", false, "", false,
     "immutable", "namespace.immutable", "namespace.immutable", "create-failed"},
    {"tmp-smaller-than-a-region", "mode=1777,size=16k", "", false, "", false, "no-space",
     "tmpdir.new-namespaces-fail", "tmpdir.new-namespaces-fail", "create-failed"},
    {"no-free-inodes", "mode=1777,nr_inodes=2", "mkdir -m 0755 $N && chown nobody $N", false, "", false,
     "no-free-inodes", "namespace.no-space tmpdir.new-namespaces-fail", "namespace.no-space", "create-failed"},
    // Accepted by HotSpot although the default profile flags them (or would not think of them).
    {"append-only", "mode=1777", "mkdir -m 0755 $N && chown nobody $N && chattr +a $N", false, "", true, "", "",
     "", ""},
    {"default-acl", "mode=1777", "mkdir -m 0755 $N && chown nobody $N && setfacl -m d:u:daemon:rwx $N", false,
     "", true, "", "", "namespace.default-acl", ""},
    // It publishes; from the host, ps does not enter a container's namespace on a mount of its own.
    {"mount-boundary", "mode=1777", "mkdir $N && mount -t tmpfs -o mode=0755,uid=65534 tmpfs $N", false, "",
     true, "", "", "namespace.mount-boundary", "namespace-not-entered"},
    // The root exemption (JDK-8075773): root's JVMs skip the owner check, and permissions.
    {"root-namespace-owned-by-nobody", "mode=1777", "mkdir -m 0755 $N && chown nobody $N", true, "", true, "",
     "", "namespace.root-owner-mismatch", ""},
    {"root-namespace-0500", "mode=1777", "mkdir -m 0500 $N", true, "", true, "", "", "", ""},
    // Its name is held: the holder container's JVM is pid 1 too, in the same /tmp. Predicted
    // from the host (`audit --container HOLDER`): inside a pid namespace /proc/locks hides the
    // locks of processes outside it.
    {"name-locked-by-another-container", "shared", "", false, "", false, "", "", "", "locked-by-another-jvm"},
    // Not a namespace configuration: the JVM is told not to publish. The prediction (for a JVM
    // without such flags) says it would; ps says why it does not.
    {"perf-data-disabled", "mode=1777", "", false, "-XX:-UsePerfData", false, "", "", "", "perf-data-disabled"},
};

bool can_run() {
  std::string why;
  return test::is_root() && test::have_jdk() && test::have_program("unshare") && test::have_program("setpriv") &&
         test::have_program("chattr") && test::have_program("setfacl") && !test::test_classes(&why).empty();
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The container's script: /tmp as the case says, the case's set-up, the two predictions
// (written through descriptors opened before /tmp is covered), then the JVM as pid 1.
std::string script_for(const JudgeCase& c, const Sandbox& box, const std::string& shared, bool predict) {
  const std::string user = c.as_root ? "root" : "nobody";
  std::ostringstream s;
  s << "set -u\n";
  if (predict) {
    s << "exec 7>" << quoted(box.result_path("hotspot.json")) << " 8>" << quoted(box.result_path("default.json"))
      << " || exit 120\n";
  }
  s << "exec 9<" << quoted(test::tool_path()) << " || exit 120\n"
    << "H=/proc/$$/fd/9\n"
    << "cd " << quoted(test::test_classes()) << " && mount -t tmpfs -o size=4m tmpfs /mnt && cp *.class /mnt/ "
    << "|| exit 121\n";
  if (std::string(c.tmp) == "shared") {
    s << "mount --bind " << quoted(shared) << " /tmp || exit 122\n";
  } else {
    s << "mount -t tmpfs -o " << c.tmp << " tmpfs /tmp || exit 122\n";
  }
  s << "N=/tmp/hsperfdata_" << user << "\n"
    << "( " << (*c.setup != '\0' ? c.setup : ":") << " ) || exit 123\n";
  if (predict) {
    s << "$H audit --no-containers --profile hotspot --format json --fail-on critical >&7; echo hotspot_rc=$?\n"
      << "$H audit --no-containers --format json --fail-on critical >&8; echo default_rc=$?\n";
  }
  s << "exec 9<&-\n" << (predict ? "exec 7>&- 8>&-\n" : "") << "cd /\necho predicted\n"
    << "exec setpriv " << (c.as_root ? "" : "--reuid=65534 --regid=65534 --clear-groups ") << "java "
    << kJvmOptions << " " << c.jvm_flags << " -cp /mnt IdleJvm " << c.name << "\n";
  return s.str();
}

json read_json(const std::string& path) {
  return json::parse(test::slurp(path), nullptr, false);
}

// The prediction of a report made in the container: the JVM's namespace's, or the temp
// dir's for a user who has none yet, for a JVM that will be pid 1.
struct Predicted {
  std::optional<bool> publishes;
  std::vector<std::string> causes;
};
Predicted prediction_in(const json& report, const std::string& user) {
  Predicted p;
  for (const auto& ns : report["namespaces"]) {
    if (ns["name"] != "hsperfdata_" + user) continue;
    const json& pr = ns["prediction"];
    if (!pr["publishes"].is_null()) p.publishes = pr["publishes"].get<bool>();
    for (const auto& cause : pr["causes"]) p.causes.push_back(cause.get<std::string>());
    for (const auto& name : pr["locked_names"]) {
      if (name == "1") {
        p.publishes = false;
        p.causes.push_back("name-locked");
      }
    }
    return p;
  }
  for (const auto& root : report["roots"]) {
    if (root["temp_dir"] != "/tmp" || !root.contains("new_namespace_prediction")) continue;
    const json& pr = root["new_namespace_prediction"];
    if (!pr["publishes"].is_null()) p.publishes = pr["publishes"].get<bool>();
    for (const auto& cause : pr["causes"]) p.causes.push_back(cause.get<std::string>());
  }
  return p;
}

std::set<std::string> rule_ids(const json& report) {
  std::set<std::string> ids;
  const auto add = [&](const json& findings) {
    for (const auto& f : findings) ids.insert(f["rule"].get<std::string>());
  };
  for (const auto& root : report["roots"]) add(root["findings"]);
  for (const auto& ns : report["namespaces"]) {
    add(ns["findings"]);
    for (const auto& file : ns["files"]) add(file["findings"]);
  }
  return ids;
}

std::set<std::string> words(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

bool maps_backing_file(pid_t pid) {
  std::istringstream maps(test::slurp("/proc/" + std::to_string(pid) + "/maps"));
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/hsperfdata_") != std::string::npos) return true;
  }
  return false;
}

// Host findings that name `pid`: jvm.* (evidence.pid) and namespace.jvm-blinded (evidence.pids).
std::set<std::string> findings_naming(const json& report, pid_t pid) {
  std::set<std::string> ids;
  const auto scan = [&](const json& findings) {
    for (const auto& f : findings) {
      const json& e = f["evidence"];
      const bool named = (e.contains("pid") && e["pid"] == pid) ||
                         (e.contains("pids") && std::find(e["pids"].begin(), e["pids"].end(), json(pid)) !=
                                                    e["pids"].end());
      if (named) ids.insert(f["rule"].get<std::string>());
    }
  };
  for (const auto& root : report["roots"]) scan(root["findings"]);
  for (const auto& ns : report["namespaces"]) scan(ns["findings"]);
  return ids;
}

const char* finding_for_reason(const std::string& reason) {
  if (reason == "namespace-refused") return "namespace.jvm-blinded";
  if (reason == "create-failed") return "jvm.create-failed";
  if (reason == "locked-by-another-jvm") return "jvm.locked-by-another-jvm";
  if (reason == "perf-data-disabled") return "jvm.perf-data-disabled";
  return "?";
}

TEST(JvmJudge, PredictionAndDiagnosisAgreeWithTheRealJvm) {
  if (!can_run()) GTEST_SKIP() << "needs root, a JDK, unshare, setpriv, chattr and setfacl";
  test::ScratchDir shared_dir;
  ::chmod(shared_dir.path().c_str(), 01777);

  // The holder of the shared /tmp: a JVM as pid 1 that publishes /tmp/hsperfdata_nobody/1.
  const JudgeCase holder_case{"holder", "shared", "", false, "", true, "", "", "", ""};
  Sandbox holder;
  ASSERT_TRUE(holder.start(script_for(holder_case, holder, shared_dir.path(), false)));
  std::vector<std::unique_ptr<Sandbox>> boxes;
  for (const auto& c : kCases) {
    auto& box = boxes.emplace_back(std::make_unique<Sandbox>());
    if (std::string(c.tmp) == "shared") continue;  // started once the holder publishes
    ASSERT_TRUE(box->start(script_for(c, *box, shared_dir.path(), true))) << c.name;
  }
  ASSERT_TRUE(holder.wait_for("ready"));
  ASSERT_TRUE(maps_backing_file(holder.java_pid())) << holder.log();
  for (std::size_t i = 0; i < std::size(kCases); ++i) {
    if (std::string(kCases[i].tmp) != "shared") continue;
    for (const auto& [profile, file] : {std::pair{"hotspot", "hotspot.json"}, std::pair{"default", "default.json"}}) {
      const auto r = test::run_tool({"audit", "--container", std::to_string(holder.init()), "--profile", profile,
                                     "--format", "json", "--fail-on", "critical"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      std::ofstream(boxes[i]->result_path(file)) << r.out;
    }
    ASSERT_TRUE(boxes[i]->start(script_for(kCases[i], *boxes[i], shared_dir.path(), false)));
  }
  for (std::size_t i = 0; i < std::size(kCases); ++i) ASSERT_TRUE(boxes[i]->wait_for("ready")) << kCases[i].name;

  const auto ps = test::run_tool({"ps", "--format", "json"});
  ASSERT_NE(ps.exit_code, 2) << ps.err;
  const json ps_doc = json::parse(ps.out, nullptr, false);
  ASSERT_FALSE(ps_doc.is_discarded()) << ps.out;
  EXPECT_TRUE(test::schema_valid(ps.out, "schemas/ps.schema.json"));
  const auto audit = test::run_tool({"audit", "--format", "json", "--profile", "hotspot"});
  const json audit_doc = json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(audit_doc.is_discarded()) << audit.out << audit.err;

  std::size_t agreed = 0, compared = 0;
  for (std::size_t i = 0; i < std::size(kCases); ++i) {
    const JudgeCase& c = kCases[i];
    SCOPED_TRACE(c.name);
    Sandbox& box = *boxes[i];
    const pid_t pid = box.java_pid();
    ASSERT_GT(pid, 0) << box.log();
    ASSERT_EQ(pid, box.init()) << "the JVM is pid 1 of its container";
    const bool did_publish = maps_backing_file(pid);
    EXPECT_EQ(did_publish, c.publishes) << "the JVM does not do what the table says: " << box.log();

    const json hotspot = read_json(box.result_path("hotspot.json"));
    const json defaults = read_json(box.result_path("default.json"));
    ASSERT_FALSE(hotspot.is_discarded()) << box.log();
    ASSERT_FALSE(defaults.is_discarded()) << box.log();
    const Predicted predicted = prediction_in(hotspot, c.as_root ? "root" : "nobody");
    if (*c.jvm_flags == '\0') {
      ++compared;
      ASSERT_TRUE(predicted.publishes.has_value()) << hotspot.dump(1);
      EXPECT_EQ(*predicted.publishes, did_publish) << "prediction made before the JVM started";
      if (*predicted.publishes == did_publish) ++agreed;
      if (*c.cause != '\0') {
        EXPECT_THAT(predicted.causes, Contains(std::string(c.cause)));
      }
      if (c.publishes) {
        EXPECT_TRUE(predicted.causes.empty());
      }
      // The hotspot profile: exactly what makes the JVM refuse or fail, no more, no fewer.
      EXPECT_EQ(rule_ids(hotspot), words(c.hotspot_rules));
    } else {
      EXPECT_EQ(predicted.publishes, std::optional<bool>(true)) << "the namespace itself is fine";
    }
    if (*c.default_rule != '\0') {
      EXPECT_THAT(rule_ids(defaults), Contains(std::string(c.default_rule)));
    }

    // ps from the host, and the host audit's finding for each blind JVM.
    const json* row = nullptr;
    for (const auto& r : ps_doc["jvms"]) {
      if (r["host_pid"] == pid) row = &r;
    }
    ASSERT_NE(row, nullptr) << "pid " << pid << " not in ps: " << ps_doc.dump(1);
    if (did_publish) {
      EXPECT_EQ((*row)["state"], *c.ps_reason == '\0' ? "live" : "unlisted") << row->dump();
      if (*c.ps_reason != '\0') {
        EXPECT_EQ((*row)["reason"], c.ps_reason) << row->dump();
      }
      continue;
    }
    EXPECT_EQ((*row)["state"], "blind") << row->dump();
    EXPECT_EQ((*row)["reason"], c.ps_reason) << row->dump();
    EXPECT_FALSE((*row)["explanation"].get<std::string>().empty()) << row->dump();
    if (std::string(c.ps_reason) == "locked-by-another-jvm") {
      EXPECT_EQ((*row)["lock_holder_pid"], holder.java_pid()) << row->dump();
    }
    EXPECT_THAT(findings_naming(audit_doc, pid), Contains(std::string(finding_for_reason(c.ps_reason))))
        << "no host audit finding names pid " << pid;
  }
  // The figure for the closing note and the README.
  std::printf("prediction agreed with the JVM in %zu/%zu namespace configurations\n", agreed, compared);
}

// A container JVM's maps name its file from the container's root (/tmp/...); inspect prints the
// path this host reaches it by, the container's own beside it, in text and JSON.
TEST(JvmJudge, InspectOfAContainerJvmPrintsItsHostPath) {
  if (!can_run()) GTEST_SKIP() << "needs root, a JDK, unshare, setpriv, chattr and setfacl";
  const JudgeCase c{"host-path", "mode=1777", "", false, "", true, "", "", "", ""};
  Sandbox box;
  ASSERT_TRUE(box.start(script_for(c, box, "", false)));
  ASSERT_TRUE(box.wait_for("ready"));
  const pid_t pid = box.java_pid();
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(maps_backing_file(pid));
  const std::string host = "/proc/" + std::to_string(pid) + "/root/tmp/hsperfdata_nobody/1";
  const auto text = test::run_tool({"inspect", std::to_string(pid)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("file:    " + host + " (in its container: /tmp/hsperfdata_nobody/1)\n"));
  const auto doc = test::run_tool({"inspect", "--format", "json", std::to_string(pid)});
  ASSERT_EQ(doc.exit_code, 0) << doc.err;
  const json j = json::parse(doc.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << doc.out;
  EXPECT_EQ(j["path"], host);
  EXPECT_EQ(j["container_path"], "/tmp/hsperfdata_nobody/1");
  // The path printed is this host's way to the very file.
  EXPECT_TRUE(test::slurp(host).size() > 0) << host;
}

// A tmp cleaner deletes a live JVM's backing file: jps and jstat lose it, ps names the cause,
// the audit raises it, and inspect still prints every counter through the JVM's mapping.
TEST(JvmJudge, DeletedBackingFileIsDiagnosedAndStillReadable) {
  if (!can_run()) GTEST_SKIP() << "needs root, a JDK, unshare, setpriv, chattr and setfacl";
  const JudgeCase c{"deleted", "mode=1777", "", false, "", true, "", "", "", ""};
  Sandbox box;
  ASSERT_TRUE(box.start(script_for(c, box, "", false)));
  ASSERT_TRUE(box.wait_for("ready"));
  const pid_t pid = box.java_pid();
  ASSERT_GT(pid, 0);
  const std::string file = box.root() + "/tmp/hsperfdata_nobody/1";
  ASSERT_TRUE(maps_backing_file(pid));
  // Frozen, so that the counters read before and after are the same instant.
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  const auto before = test::run_tool({"inspect", "--format", "snap", std::to_string(pid)});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  ASSERT_EQ(::unlink(file.c_str()), 0);
  const auto after = test::run_tool({"inspect", "--format", "snap", std::to_string(pid)});
  ::kill(pid, SIGCONT);
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_THAT(after.err, HasSubstr("was deleted while the JVM runs"));
  EXPECT_THAT(after.err, HasSubstr("/map_files/"));
  EXPECT_GT(std::count(before.out.begin(), before.out.end(), '\n'), 100) << before.out;
  EXPECT_EQ(after.out, before.out) << "every counter, as before the deletion";
  EXPECT_THAT(after.out, HasSubstr("sun.rt.javaCommand=\"IdleJvm deleted\""));

  const auto ps = test::run_tool({"ps", "--format", "json"});
  const json ps_doc = json::parse(ps.out, nullptr, false);
  ASSERT_FALSE(ps_doc.is_discarded()) << ps.out << ps.err;
  const json* row = nullptr;
  for (const auto& r : ps_doc["jvms"]) {
    if (r["host_pid"] == pid) row = &r;
  }
  ASSERT_NE(row, nullptr) << ps_doc.dump(1);
  EXPECT_EQ((*row)["state"], "deleted");
  EXPECT_EQ((*row)["reason"], "backing-file-deleted");
  EXPECT_EQ((*row)["main"], "IdleJvm deleted");
  EXPECT_TRUE((*row)["vm_version"].is_string());
  const auto audit = test::run_tool({"audit", "--format", "json", "--profile", "hotspot"});
  const json audit_doc = json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(audit_doc.is_discarded()) << audit.err;
  EXPECT_THAT(findings_naming(audit_doc, pid), Contains(std::string("jvm.backing-file-deleted")));
}

// HotSpot's start-up cleanup of its user's namespace against the reaper. Entries are planted
// in nobody's namespace in a container, `reap --dry-run` plans them, then a JVM of nobody
// starts and cleans; what it deleted is compared with the plan. Every difference is one of
// the deliberate ones in docs/POLICY.md ("Start-up cleanup and the reaper").
struct CleanupRow {
  const char* label;
  bool jvm_deletes;     // what the JDK's start-up cleanup does
  const char* reap;     // the reaper's planned action: remove, keep or skip
};
const CleanupRow kCleanup[] = {
    {"stale-pid", true, "remove"},
    {"stale-pid-root-owned", true, "remove"},
    {"foreign-name", true, "remove"},
    {"zero", true, "remove"},
    {"noncanonical-0099", true, "remove"},
    {"out-of-range", true, "remove"},
    {"symlink", true, "remove"},
    {"hard-link-pid-name", true, "skip"},      // deliberate: a name of a multiply-linked inode is never removed
    {"hard-link-other-name", true, "skip"},    // the same inode's other name
    {"directory", false, "skip"},
    {"live-process-same-user", false, "keep"},
    {"live-process-other-user", true, "keep"},  // deliberate: HotSpot takes EPERM for "stale"
    {"live-jvm", false, "keep"},
};

TEST(JvmJudge, StartupCleanupComparedWithReap) {
  if (!can_run()) GTEST_SKIP() << "needs root, a JDK, unshare, setpriv, chattr and setfacl";
  Sandbox box;
  std::ostringstream s;
  s << "set -u\nexec 7>" << quoted(box.result_path("dry.json")) << " 9<" << quoted(test::tool_path())
    << " || exit 120\nH=/proc/$$/fd/9\n"
    << "cd " << quoted(test::test_classes())
    << " && mount -t tmpfs -o size=4m tmpfs /mnt && cp *.class /mnt/ || exit 121\n"
    << "mount -t tmpfs -o mode=1777 tmpfs /tmp || exit 122\n"
    << "N=/tmp/hsperfdata_nobody; mkdir -m 0755 $N && chown nobody $N || exit 123\n"
    << "J=\"java " << kJvmOptions << " -cp /mnt IdleJvm\"\n"
    << "setpriv --reuid=65534 --regid=65534 --clear-groups sleep 1000 & SAME=$!\n"
    << "sleep 1000 & OTHER=$!\n"
    << "sh -c 'exit 0' & wait $!; STALE=$!\n"
    << "exec 3<&0\n"  // the test's pipe: IdleJvm idles until it closes (a background job's stdin is /dev/null)
    << "setpriv --reuid=65534 --regid=65534 --clear-groups $J first <&3 &\n"
    << "i=0; while [ $i -lt 600 ] && [ -z \"$(ls $N)\" ]; do sleep 0.1; i=$((i+1)); done\n"
    << "sleep 1; LIVE=$(ls $N)\n"
    << "p() { head -c 32768 /dev/zero > $N/$2 && chown ${3:-nobody} $N/$2 && echo \"entry $1 $2\"; }\n"
    << "p stale-pid $STALE; p stale-pid-root-owned 40004 root; p foreign-name notes.txt; p zero 0\n"
    << "p noncanonical-0099 0099; p out-of-range 99999999999\n"
    << "ln -s /etc/passwd $N/40001 && chown -h nobody $N/40001 && echo 'entry symlink 40001'\n"
    << "p hard-link-other-name target; ln $N/target $N/40002 && echo 'entry hard-link-pid-name 40002'\n"
    << "mkdir $N/40003 && chown nobody $N/40003 && echo 'entry directory 40003'\n"
    << "p live-process-same-user $SAME; p live-process-other-user $OTHER\n"
    << "echo \"entry live-jvm $LIVE\"\n"
    << "$H reap --dry-run --no-containers --min-age 0 --format json >&7; echo reap_rc=$?; exec 7>&-\n"
    << "setpriv --reuid=65534 --regid=65534 --clear-groups $J second <&3 & SECOND=$!\n"
    << "i=0; while [ $i -lt 600 ] && ! grep -q hsperfdata /proc/$SECOND/maps 2>/dev/null; do "
       "sleep 0.1; i=$((i+1)); done\n"
    << "for e in $(ls -A $N); do echo \"left $e\"; done\necho cleaned\nexec sleep 1000\n";
  ASSERT_TRUE(box.start(s.str()));
  ASSERT_TRUE(box.wait_for("cleaned", std::chrono::seconds(120)));

  std::map<std::string, std::string> name_of;  // label -> entry name
  std::set<std::string> left;
  std::istringstream log(box.log());
  for (std::string line; std::getline(log, line);) {
    std::istringstream words_in(line);
    std::string kind, a, b;
    words_in >> kind >> a >> b;
    if (kind == "entry") name_of[a] = b;
    if (kind == "left") left.insert(a);
  }
  const json dry = read_json(box.result_path("dry.json"));
  ASSERT_FALSE(dry.is_discarded()) << box.log();
  std::map<std::string, std::string> action_of;  // entry name -> planned action
  for (const auto& item : dry["plan"]) {
    if (item.contains("name") && item["name"].is_string()) action_of[item["name"]] = item["action"];
  }
  std::size_t same = 0;
  for (const auto& row : kCleanup) {
    SCOPED_TRACE(row.label);
    ASSERT_TRUE(name_of.contains(row.label)) << box.log();
    const std::string& name = name_of[row.label];
    const bool deleted = !left.contains(name);
    EXPECT_EQ(deleted, row.jvm_deletes) << "what the JVM's start-up cleanup did to " << name;
    EXPECT_EQ(action_of[name], row.reap) << "reap --dry-run for " << name;
    const bool reap_removes = action_of[name] == "remove";
    if (reap_removes == deleted) ++same;
  }
  std::printf("start-up cleanup and reap agree on %zu of %zu entries\n", same, std::size(kCleanup));
}

// A FIFO named after a stale pid in the user's own namespace: the JVM's start-up cleanup opens
// it (to take its lock before unlinking, JDK-8286030) without O_NONBLOCK and never returns.
// The reaper never opens a FIFO to read it; it removes it only with --include-special.
TEST(JvmJudge, FifoInTheNamespaceHangsTheJvmStartAndTheReaperSaysSo) {
  if (!can_run()) GTEST_SKIP() << "needs root, a JDK, unshare, setpriv, chattr and setfacl";
  Sandbox box;
  std::ostringstream s;
  s << "set -u\nexec 7>" << quoted(box.result_path("dry.json")) << " 8>"
    << quoted(box.result_path("special.json")) << " 9<" << quoted(test::tool_path())
    << " || exit 120\nH=/proc/$$/fd/9\n"
    << "cd " << quoted(test::test_classes())
    << " && mount -t tmpfs -o size=4m tmpfs /mnt && cp *.class /mnt/ || exit 121\n"
    << "mount -t tmpfs -o mode=1777 tmpfs /tmp || exit 122\n"
    << "N=/tmp/hsperfdata_nobody; mkdir -m 0755 $N && chown nobody $N && mkfifo $N/40005 && chown nobody $N/40005 "
       "|| exit 123\n"
    << "$H reap --dry-run --no-containers --min-age 0 --format json >&7\n"
    << "$H reap --dry-run --no-containers --min-age 0 --include-special --format json >&8\n"
    << "exec 7>&- 8>&- 9<&-\necho predicted\n"
    << "exec setpriv --reuid=65534 --regid=65534 --clear-groups java " << kJvmOptions << " -cp /mnt IdleJvm fifo\n";
  ASSERT_TRUE(box.start(s.str()));
  ASSERT_TRUE(box.wait_for("predicted"));
  const auto action_for_fifo = [](const json& report) {
    for (const auto& item : report["plan"]) {
      if (item["name"] == "40005") return item["action"].get<std::string>();
    }
    return std::string("<not planned>");
  };
  EXPECT_EQ(action_for_fifo(read_json(box.result_path("dry.json"))), "skip");
  EXPECT_EQ(action_for_fifo(read_json(box.result_path("special.json"))), "remove");
  // Five seconds is ample for this JVM to print "ready" (the other tests' JVMs take under one).
  EXPECT_FALSE(box.wait_for("ready", std::chrono::seconds(5))) << "the JVM started past the FIFO";
  const pid_t pid = box.java_pid();
  ASSERT_GT(pid, 0);
  EXPECT_FALSE(maps_backing_file(pid));
  struct stat st {};
  EXPECT_EQ(::lstat((box.root() + "/tmp/hsperfdata_nobody/40005").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

}  // namespace
}  // namespace hsperfguard
