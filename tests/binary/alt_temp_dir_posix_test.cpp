// -XX:AltTempDir (JDK-8384557): the directory a JVM of this host names with it is looked at by
// `audit` and `ps` as a temp dir of its own, and left alone by `reap`.
//
// No JDK here has the flag: the JVM is started with -XX:+IgnoreUnrecognizedVMOptions, so that
// its command line names the directory while it still publishes in /tmp. What is tested is
// that the tool reads the option from the live process and looks where it points; the
// namespace there is planted by the test (owned by nobody, mode 0777, a file of a dead pid).
// As audit_jvm_posix_test.cpp, this runs the host's view read-only, containers left out.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "jvm_support.hpp"
#include "test_support.hpp"

namespace hsperfguard::test {
namespace {

// A pid no process has now (the highest the kernel allows, below pid_max).
std::string dead_pid() {
  std::ifstream in("/proc/sys/kernel/pid_max");
  long max = 32768;
  in >> max;
  for (long pid = max - 1; pid > 1000; --pid) {
    if (::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) != 0) return std::to_string(pid);
  }
  return {};
}

struct Planted {
  std::string ns;
  std::string file;
};

// hsperfdata_nobody in `dir`: mode 0777, owned by nobody, with an empty file of a dead pid.
::testing::AssertionResult plant(const std::string& dir, Planted& out) {
  const struct passwd* nobody = ::getpwnam("nobody");
  if (nobody == nullptr) return ::testing::AssertionFailure() << "no user nobody";
  out.ns = dir + "/hsperfdata_nobody";
  const std::string pid = dead_pid();
  if (pid.empty()) return ::testing::AssertionFailure() << "no free pid";
  out.file = out.ns + "/" + pid;
  if (::mkdir(out.ns.c_str(), 0700) != 0 || ::chmod(out.ns.c_str(), 0777) != 0 ||
      ::chown(out.ns.c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
    return ::testing::AssertionFailure() << "cannot make " << out.ns;
  }
  { std::ofstream(out.file) << ""; }
  if (::chown(out.file.c_str(), nobody->pw_uid, nobody->pw_gid) != 0 || ::chmod(out.file.c_str(), 0600) != 0)
    return ::testing::AssertionFailure() << "cannot make " << out.file;
  return ::testing::AssertionSuccess();
}

const nlohmann::json* alt_root(const nlohmann::json& report, const std::string& dir) {
  for (const auto& r : report.at("roots")) {
    if (r.at("kind") == "alt-temp-dir" && r.at("temp_dir") == dir) return &r;
  }
  return nullptr;
}

TEST(AltTempDir, AuditAndPsLookWhereALiveJvmsOptionPointsReapDoesNot) {
  if (!have_jdk()) GTEST_SKIP() << "java, javac and jstat are needed on PATH";
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (a namespace owned by nobody)";
  ScratchDir scratch;
  const std::string dir = scratch / "diags";
  ASSERT_EQ(::mkdir(dir.c_str(), 01777), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 01777), 0);
  Planted planted;
  ASSERT_TRUE(plant(dir, planted));

  JvmProcess jvm;
  ASSERT_TRUE(jvm.start({"-XX:+IgnoreUnrecognizedVMOptions", "-XX:AltTempDir=" + dir + "/", "-Xmx64m"}));

  const CommandResult audit = run_tool({"audit", "--no-containers", "--format", "json"});
  ASSERT_TRUE(audit.exit_code == 0 || audit.exit_code == 1 || audit.exit_code == 3) << audit.exit_code << audit.err;
  const auto report = nlohmann::json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << audit.out.substr(0, 2000);
  const nlohmann::json* root = alt_root(report, dir);
  ASSERT_NE(root, nullptr) << "no alt-temp-dir root " << dir << " in " << report.at("roots").dump().substr(0, 2000);
  EXPECT_EQ(root->at("alt_temp_dir_pid"), jvm.pid());
  const nlohmann::json* ns = nullptr;
  for (const auto& n : report.at("namespaces")) {
    if (n.at("path") == planted.ns) ns = &n;
  }
  ASSERT_NE(ns, nullptr) << "the namespace in the JVM's AltTempDir was not audited";
  EXPECT_FALSE(ns->at("findings").empty()) << ns->dump();

  const CommandResult text = run_tool({"audit", "--no-containers", "--verbose"});
  EXPECT_NE(text.out.find("named by -XX:AltTempDir of JVM pid " + std::to_string(jvm.pid())), std::string::npos)
      << text.out.substr(0, 3000);

  const CommandResult ps = run_tool({"ps", "--all", "--no-containers", "--format", "json"});
  ASSERT_EQ(ps.exit_code, 0) << ps.err;
  const auto rows = nlohmann::json::parse(ps.out, nullptr, false);
  ASSERT_FALSE(rows.is_discarded()) << ps.out.substr(0, 2000);
  bool listed = false;
  for (const auto& row : rows.at("jvms")) {
    if (row.contains("backing_file") && row.at("backing_file") == planted.file) {
      listed = true;
      EXPECT_EQ(row.at("root_kind"), "alt-temp-dir");
    }
  }
  EXPECT_TRUE(listed) << "ps --all does not list " << planted.file << "\n" << ps.out.substr(0, 3000);

  // reap looks only where it is told: a directory an unprivileged JVM's option names is not
  // a place root deletes in unasked.
  const CommandResult reap = run_tool({"reap", "--dry-run", "--no-containers", "--min-age", "0", "--format", "json"});
  EXPECT_EQ(reap.out.find(planted.file), std::string::npos) << reap.out.substr(0, 3000);
  struct stat st {};
  EXPECT_EQ(::stat(planted.file.c_str(), &st), 0);
}

}  // namespace
}  // namespace hsperfguard::test
