// JVMs under systemd's PrivateTmp=, made by the test itself (as root) the way systemd makes
// them: a root-owned 0700 directory /tmp/systemd-private-<32 hex>-<unit>-<random> in the
// host's /tmp with a 1777 tmp inside, bound on /tmp in a private mount namespace
// (`unshare --mount`, the host's pid namespace kept), and a real JVM started there, JDK 17 and
// JDK 25. Then the real binary's `ps` and `audit`: the JVM is live, and its row and the
// audit's info finding (jvm.own-mount-namespace) say why the host's jcmd misses it and give the
// command that reaches it, which is run as printed. A unit name with a quote and a space comes
// out as one shell word. And a JVM of our pid namespace with a tmpfs of its own on /tmp (a
// pod's container as a sidecar sees it): the same advice without a unit.
//
// Each JVM's mount namespace vanishes with it; the guard kills it by pid, and the test removes
// the directories it made in the host's /tmp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "jvm_support.hpp"
#include "model/shell_word.hpp"
#include "sandbox_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using test::run;
using test::run_tool;
using test::Sandbox;
using ::testing::HasSubstr;

constexpr const char* kJdk17 = "java";  // OpenJDK 17 on PATH
constexpr const char* kJdk25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";
constexpr const char* kJvmOptions =
    "-Xmx32m -XX:+UseSerialGC -Xshare:auto -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1";

bool can_run() {
  return test::is_root() && test::have_jdk() && test::have_program("unshare") &&
         test::have_program("nsenter") && ::access(kJdk25, X_OK) == 0 &&
         !test::test_classes().empty();
}

// 32 lowercase hex digits, as systemd writes the boot id into the name.
std::string boot_id_like() {
  std::random_device rd;
  std::mt19937_64 gen(rd());
  std::string hex;
  while (hex.size() < 32) {
    hex += "0123456789abcdef"[gen() % 16];
  }
  return hex;
}

// One service's JVM under PrivateTmp=.
struct PrivateTmpJvm {
  std::string unit;
  std::string dir;  // /tmp/systemd-private-...
  Sandbox box;

  ::testing::AssertionResult start(const std::string& java, const std::string& unit_name) {
    unit = unit_name;
    dir = "/tmp/systemd-private-" + boot_id_like() + "-" + unit + "-Xy12Z9";
    if (::mkdir(dir.c_str(), 0700) != 0 || ::mkdir((dir + "/tmp").c_str(), 01777) != 0 ||
        ::chmod((dir + "/tmp").c_str(), 01777) != 0) {
      return ::testing::AssertionFailure() << "mkdir " << dir;
    }
    std::filesystem::create_directory(dir + "/tmp/.classes");
    for (const auto& e : std::filesystem::directory_iterator(test::test_classes())) {
      std::filesystem::copy(e.path(), dir + "/tmp/.classes/" + e.path().filename().string());
    }
    // The directory's name goes to the inner shell through the environment, never into its text.
    const std::string script =
        "P=" + posix_shell_word(dir) +
        " exec unshare --mount --propagation private /bin/sh -c 'mount --bind \"$P/tmp\" /tmp && "
        "cd / && exec " +
        java + " " + kJvmOptions + " -cp /tmp/.classes IdleJvm private'";
    if (auto r = box.start(script, false); !r) return r;
    return box.wait_for("ready");
  }
  pid_t pid() const { return box.init(); }
  ~PrivateTmpJvm() {
    box.stop();
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
};

// A JVM of our pid namespace with a tmpfs of its own on /tmp and no systemd-private-*
// directory: the layout a pod's container has seen from a sidecar sharing its pid namespace.
::testing::AssertionResult start_in_own_mount_namespace(Sandbox& box) {
  const std::string script =
      "cd " + posix_shell_word(test::test_classes()) +
      " && exec unshare --mount --propagation private /bin/sh -c 'mount -t tmpfs -o mode=1777 "
      "tmpfs /tmp && mkdir /tmp/.classes && cp *.class /tmp/.classes/ && cd / && exec java " +
      kJvmOptions + " -cp /tmp/.classes IdleJvm sidecar'";
  if (auto r = box.start(script, false); !r) return r;
  return box.wait_for("ready");
}

class PrivateTmpJvms : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!can_run()) return;
    s_ = new Shared;
    ASSERT_TRUE(s_->jdk17.start(kJdk17, "tomcat.service"));
    ASSERT_TRUE(s_->jdk25.start(kJdk25, "tomcat.service"));
    ASSERT_TRUE(s_->hostile.start(kJdk17, "it's a.service"));
    ASSERT_TRUE(start_in_own_mount_namespace(s_->sidecar));
  }
  static void TearDownTestSuite() {
    delete s_;
    s_ = nullptr;
  }
  void SetUp() override {
    if (!can_run()) GTEST_SKIP() << "needs root, JDK 17 and 25, unshare, nsenter";
    ASSERT_NE(s_, nullptr);
  }
  struct Shared {
    PrivateTmpJvm jdk17, jdk25, hostile;
    Sandbox sidecar;
  };
  static Shared* s_;
};
PrivateTmpJvms::Shared* PrivateTmpJvms::s_ = nullptr;

const json* ps_row(const json& ps, pid_t host_pid) {
  for (const auto& row : ps["jvms"]) {
    if (row["host_pid"] == host_pid) return &row;
  }
  return nullptr;
}

// Every finding of an audit report, wherever it sits (temp dir, namespace, file).
void collect_findings(const json& j, std::vector<json>& out) {
  if (j.is_object()) {
    if (j.contains("rule") && j.contains("evidence")) out.push_back(j);
    for (const auto& [key, value] : j.items()) collect_findings(value, out);
  } else if (j.is_array()) {
    for (const auto& value : j) collect_findings(value, out);
  }
}

std::string command_for(pid_t pid) {
  const std::string p = std::to_string(pid);
  return "nsenter -t " + p + " -m -- jcmd " + p + " VM.version";
}

// Before: `live`, the container column mnt:[...], and no word of why jcmd misses it.
TEST_F(PrivateTmpJvms, PsSaysWhyTheHostsJcmdMissesItAndTheCommandThatReachesIt) {
  const auto r = run_tool({"ps", "--format", "json"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  const json ps = json::parse(r.out);
  const auto text = run_tool({"ps", "--format", "text"});
  for (const PrivateTmpJvm* jvm : {&s_->jdk17, &s_->jdk25}) {
    const json* row = ps_row(ps, jvm->pid());
    ASSERT_NE(row, nullptr) << ps.dump(1);
    EXPECT_EQ((*row)["state"], "live");
    EXPECT_EQ((*row)["ns_pid"], jvm->pid());
    EXPECT_EQ((*row)["root_kind"], "container");
    ASSERT_TRUE(row->contains("reach") && (*row)["reach"].is_object()) << row->dump(1);
    EXPECT_EQ((*row)["reach"]["cause"], "systemd-private-tmp");
    EXPECT_EQ((*row)["reach"]["unit"], "tomcat.service");
    EXPECT_EQ((*row)["reach"]["command"], command_for(jvm->pid()));
    EXPECT_THAT(text.out, HasSubstr(std::to_string(jvm->pid()) +
                                    " live (systemd-private-tmp): private /tmp of tomcat.service "
                                    "(PrivateTmp=): jps lists it, but JDK 17's jcmd on the host "
                                    "cannot attach (it looks for the JVM's attach socket in the "
                                    "host's /tmp); reach it with " +
                                    command_for(jvm->pid()) + "\n"));
  }
}

TEST_F(PrivateTmpJvms, TheCommandPsPrintsReachesTheJvmOnJdk17And25) {
  const json ps = json::parse(run_tool({"ps", "--format", "json"}).out);
  struct Want {
    const PrivateTmpJvm* jvm;
    const char* version;
  };
  for (const Want& w : {Want{&s_->jdk17, "JDK 17."}, Want{&s_->jdk25, "JDK 25."}}) {
    const json* row = ps_row(ps, w.jvm->pid());
    ASSERT_NE(row, nullptr) << ps.dump(1);
    ASSERT_TRUE(row->contains("reach") && (*row)["reach"].is_object()) << row->dump(1);
    const auto reached = run({"/bin/sh", "-c", (*row)["reach"]["command"].get<std::string>()});
    EXPECT_EQ(reached.exit_code, 0) << reached.out << reached.err;
    EXPECT_THAT(reached.out, HasSubstr(w.version));
  }
}

// What the advice says of JDK 17's jcmd, checked: from the host it cannot attach.
TEST_F(PrivateTmpJvms, Jdk17sJcmdOnTheHostCannotAttach) {
  const auto r = run({"jcmd", std::to_string(s_->jdk17.pid()), "VM.version"});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out + r.err, HasSubstr("Unable to open socket file /tmp/.java_pid"));
}

TEST_F(PrivateTmpJvms, TheAuditReportsItAtInfoAndStillExitsZero) {
  for (const PrivateTmpJvm* jvm : {&s_->jdk17, &s_->jdk25}) {
    const auto r =
        run_tool({"audit", "--format", "json", "--container", std::to_string(jvm->pid())});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const json doc = json::parse(r.out);
    int found = 0;
    std::vector<json> findings;
    collect_findings(doc, findings);
    for (const auto& f : findings) {
      if (f["rule"] != "jvm.own-mount-namespace") continue;
      ++found;
      EXPECT_FALSE(f.contains("severity")) << "the rule's own, said in the report's rules";
      EXPECT_EQ(doc["rules"][f["rule_index"].get<std::size_t>()]["severity"], "info");
      EXPECT_EQ(f["evidence"]["pid"], jvm->pid());
      EXPECT_EQ(f["evidence"]["unit"], "tomcat.service");
      EXPECT_EQ(f["evidence"]["command"], command_for(jvm->pid()));
      EXPECT_EQ(f["evidence"]["systemd_private_dir"],
                std::filesystem::path(jvm->dir).filename().string());
    }
    EXPECT_EQ(found, 1) << r.out;
  }
}

TEST_F(PrivateTmpJvms, AnotherMountNamespaceWithoutAServiceIsReachedByNsenterToo) {
  const json ps = json::parse(run_tool({"ps", "--format", "json"}).out);
  const pid_t pid = s_->sidecar.init();
  const json* row = ps_row(ps, pid);
  ASSERT_NE(row, nullptr) << ps.dump(1);
  EXPECT_EQ((*row)["state"], "live");
  ASSERT_TRUE(row->contains("reach") && (*row)["reach"].is_object()) << row->dump(1);
  EXPECT_EQ((*row)["reach"]["cause"], "own-mount-namespace");
  EXPECT_TRUE((*row)["reach"]["unit"].is_null());
  EXPECT_EQ((*row)["reach"]["command"], command_for(pid));
  EXPECT_THAT((*row)["reach"]["explanation"].get<std::string>(),
              HasSubstr("or kubectl exec into the JVM's container"));
  const auto reached = run({"/bin/sh", "-c", (*row)["reach"]["command"].get<std::string>()});
  EXPECT_EQ(reached.exit_code, 0) << reached.out << reached.err;
  EXPECT_THAT(reached.out, HasSubstr("JDK 17."));
}

TEST_F(PrivateTmpJvms, AUnitNameWithAQuoteAndASpaceIsOneShellWord) {
  const json ps = json::parse(run_tool({"ps", "--format", "json"}).out);
  const json* row = ps_row(ps, s_->hostile.pid());
  ASSERT_NE(row, nullptr) << ps.dump(1);
  ASSERT_TRUE(row->contains("reach") && (*row)["reach"].is_object()) << row->dump(1);
  EXPECT_EQ((*row)["reach"]["unit"], "it's a.service");
  const std::string word = posix_shell_word("it's a.service");
  EXPECT_EQ(word, "'it'\\''s a.service'");
  EXPECT_THAT((*row)["reach"]["explanation"].get<std::string>(),
              HasSubstr("private /tmp of " + word + " (PrivateTmp=)"));
  // A shell reads the word back as exactly the unit's bytes, as one argument.
  const auto echoed = run({"/bin/sh", "-c", "printf '%s|' " + word});
  EXPECT_EQ(echoed.out, "it's a.service|");
}

}  // namespace
}  // namespace hsperfguard
