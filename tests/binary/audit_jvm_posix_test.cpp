// System test against a real JVM: the namespace a running JVM created audits clean under the
// default profile, and the JVM's own backing file is judged live.
//
// The JVM hard-codes /tmp, so this audits the host's real /tmp (read-only, containers left
// out) and looks only at the namespace of this test's user and at the file of this test's
// JVM: other processes may share that namespace while the test runs.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "model/finding.hpp"
#include "jvm_support.hpp"
#include "test_support.hpp"

namespace hsperfguard::test {
namespace {

std::string user_name() {
  const struct passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : std::string();
}

// Severity of a finding in the report, as the enum: its own, else its rule's in the report.
Severity severity_of(const nlohmann::json& report, const nlohmann::json& finding) {
  const nlohmann::json& rated =
      finding.contains("severity") ? finding : report.at("rules").at(finding.at("rule_index").get<std::size_t>());
  return parse_severity(rated.at("severity").get<std::string>()).value_or(Severity::critical);
}

TEST(AuditJvm, RunningJvmNamespaceAuditsCleanUnderTheDefaultProfile) {
  if (!have_jdk()) GTEST_SKIP() << "java, javac and jstat are needed on PATH";
  const std::string user = user_name();
  ASSERT_FALSE(user.empty());

  JvmProcess jvm;
  ASSERT_TRUE(jvm.start({"-XX:+UseSerialGC", "-Xmx64m"}));
  const std::string backing = jvm.backing_file_path();
  struct stat before {};
  ASSERT_EQ(::stat(backing.c_str(), &before), 0) << backing;

  const CommandResult audit =
      run_tool({"audit", "--tmpdir", "/tmp", "--no-containers", "--format", "json"});
  // 0 or 1: other namespaces of this host's /tmp may carry findings; ours must not.
  ASSERT_TRUE(audit.exit_code == 0 || audit.exit_code == 1) << audit.exit_code << "\n" << audit.err;
  const auto report = nlohmann::json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << audit.out.substr(0, 2000);
  ASSERT_EQ(report.at("profile"), "default");
  const Severity fail_on =
      parse_severity(report.at("fail_on").get<std::string>()).value_or(Severity::info);
  EXPECT_EQ(fail_on, Severity::medium);

  const std::string ns_path = "/tmp/hsperfdata_" + user;
  const nlohmann::json* ns = nullptr;
  for (const auto& n : report.at("namespaces")) {
    if (n.at("path") == ns_path) ns = &n;
  }
  ASSERT_NE(ns, nullptr) << "no namespace " << ns_path << " in the report";
  EXPECT_EQ(ns->at("owner_uid"), ::geteuid());
  for (const auto& f : ns->at("findings")) {
    EXPECT_LT(severity_of(report, f), fail_on) << f.dump(2);
  }
  EXPECT_TRUE(ns->at("errors").empty()) << ns->at("errors").dump(2);

  const std::string pid = std::to_string(jvm.pid());
  const nlohmann::json* file = nullptr;
  for (const auto& f : ns->at("files")) {
    if (f.at("name") == pid) file = &f;
  }
  ASSERT_NE(file, nullptr) << "the JVM's file " << backing << " is not in the report";
  EXPECT_EQ(file->at("kind"), "regular");
  EXPECT_EQ(file->at("pid"), jvm.pid());
  EXPECT_EQ(file->at("pid_name"), "canonical");
  EXPECT_EQ(file->at("region").at("valid"), true) << file->at("region").dump(2);
  ASSERT_TRUE(file->at("verdict").is_object()) << file->dump(2);
  EXPECT_EQ(file->at("verdict").at("verdict"), "live") << file->at("verdict").dump(2);
  // A JVM's own file is exactly what HotSpot makes: nothing to say about it at all.
  EXPECT_TRUE(file->at("findings").empty()) << file->at("findings").dump(2);
  EXPECT_TRUE(file->at("errors").empty()) << file->at("errors").dump(2);

  // The audit looked and changed nothing: the JVM runs on with the same file.
  EXPECT_TRUE(jvm.running());
  EXPECT_EQ(::kill(jvm.pid(), 0), 0);
  struct stat after {};
  ASSERT_EQ(::stat(backing.c_str(), &after), 0) << backing;
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(after.st_uid, before.st_uid);
}

}  // namespace
}  // namespace hsperfguard::test
