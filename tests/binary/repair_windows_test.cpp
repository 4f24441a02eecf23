// `repair` on Windows, against real directories and files in a private scratch temp dir: the
// executor (platform::execute_repair) and the binary end to end. What must hold: only the
// namespace and file that were judged are changed (a swapped namespace or file, another owner,
// a vanished file, a replaced temp dir are reported and left alone); a reparse point is never
// followed; nothing is removed; and where the file system does not keep the DACL it is given
// (wine derives descriptors from POSIX mode bits) the repair fails closed, saying so. On
// Windows, which keeps descriptors, the binary's repair must leave an audit without dacl.*
// findings.
#include <gtest/gtest.h>
#include <windows.h>
// After windows.h, whose types they use.
#include <aclapi.h>
#include <sddl.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "model/compliant_descriptor.hpp"
#include "model/perfdata.hpp"
#include "model/repair_plan.hpp"
#include "platform/create.hpp"
#include "platform/windows/security_windows.hpp"
#include "platform/windows/win_util.hpp"
#include "test_support.hpp"
#include "test_support_windows.hpp"

namespace hsperfguard {
namespace {

using platform::win::narrow;
using platform::win::widen;
using test::current_user_name;
using test::dacl_rules;
using test::exists;
using test::run_tool;

// The dacl.* rules of every namespace and file of an audit report.
std::set<std::string> dacl_rules_of(const std::string& report_text) {
  const auto report = nlohmann::json::parse(report_text, nullptr, false);
  EXPECT_FALSE(report.is_discarded()) << report_text;
  std::set<std::string> ids;
  if (report.is_discarded()) return ids;
  for (const auto& ns : report["namespaces"]) {
    for (const auto& rule : dacl_rules(ns["findings"])) ids.insert(rule);
    for (const auto& file : ns["files"]) {
      for (const auto& rule : dacl_rules(file["findings"])) ids.insert(rule);
    }
  }
  return ids;
}

// Identity and descriptor of a directory or file, opened as itself.
struct Seen {
  InodeFacts facts;
  SecurityDescriptor security;
};
std::optional<Seen> seen(const std::string& path, bool directory) {
  platform::win::UniqueHandle handle(::CreateFileW(
      widen(path).c_str(), READ_CONTROL | FILE_READ_ATTRIBUTES,
      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
      FILE_FLAG_OPEN_REPARSE_POINT | (directory ? FILE_FLAG_BACKUP_SEMANTICS : 0), nullptr));
  EXPECT_TRUE(handle.valid()) << path;
  if (!handle.valid()) return std::nullopt;
  ObservationError error;
  auto facts = platform::win::inode_facts_of(handle.get(), path, &error);
  auto security = platform::win::read_security(handle.get(), path, &error);
  EXPECT_TRUE(facts && security) << path << ": " << error.message;
  if (!facts || !security) return std::nullopt;
  return Seen{*facts, *security};
}

std::vector<std::byte> region() {
  perfdata::RegionSpec spec;
  spec.entries.push_back({"sun.rt.javaCommand", perfdata::Units::string,
                          perfdata::Variability::constant, true, true, 0, "Main", 0});
  auto built = perfdata::build_region(spec);
  EXPECT_FALSE(built.error.has_value());
  return built.bytes;
}

// Whether this system keeps a protected DACL set through a handle (Windows does; wine does
// not, see the file comment).
bool keeps_protected_dacls(const std::string& dir) {
  const std::wstring probe = widen(dir + "\\dacl-probe");
  EXPECT_TRUE(::CreateDirectoryW(probe.c_str(), nullptr));
  bool kept = false;
  {
    platform::win::UniqueHandle handle(::CreateFileW(probe.c_str(), READ_CONTROL | WRITE_DAC,
                                                     FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                                                     FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    EXPECT_TRUE(handle.valid());
    ObservationError error;
    const auto sid = platform::win::current_user_sid(&error);
    EXPECT_TRUE(sid.has_value());
    const auto sddl = platform::win::creation_sddl(CompliantObject::namespace_directory,
                                                   sid.value_or(""), sid.value_or(""));
    platform::win::LocalPtr<PSECURITY_DESCRIPTOR> wanted;
    EXPECT_TRUE(::ConvertStringSecurityDescriptorToSecurityDescriptorW(
        widen(sddl).c_str(), SDDL_REVISION_1, wanted.out(), nullptr));
    BOOL present = FALSE, defaulted = FALSE;
    PACL dacl = nullptr;
    EXPECT_TRUE(::GetSecurityDescriptorDacl(wanted.get(), &present, &dacl, &defaulted));
    ::SetSecurityInfo(handle.get(), SE_FILE_OBJECT,
                      DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION, nullptr,
                      nullptr, dacl, nullptr);
    const auto stored = platform::win::read_security(handle.get(), narrow(probe), &error);
    kept = stored && (stored->control & SE_DACL_PROTECTED) != 0 && stored->dacl.size() == 3;
  }
  EXPECT_TRUE(::RemoveDirectoryW(probe.c_str()));
  return kept;
}

class RepairWindows : public ::testing::Test {
 protected:
  void SetUp() override {
    user_ = current_user_name();
    ASSERT_FALSE(user_.empty());
    ns_ = scratch_.path() + "\\hsperfdata_" + user_;
    file_ = ns_ + "\\4242";
    keeps_dacls_ = keeps_protected_dacls(scratch_.path());
    // Made the way a careless script makes them: the temp dir's inherited DACL.
    ASSERT_TRUE(::CreateDirectoryW(widen(ns_).c_str(), nullptr));
    bytes_ = region();
    test::write_file(file_, bytes_);
  }

  // A plan of one root (the scratch temp dir as observed) with no targets yet.
  RepairPlan empty_plan() {
    RepairPlan plan;
    RepairRoot& root = plan.roots.emplace_back();
    root.kind = RootKind::tmpdir;
    root.temp_dir = scratch_.path();
    const auto temp = seen(scratch_.path(), true);
    if (temp) root.expected = expected_from(temp->facts);
    return plan;
  }

  // A target giving the namespace (or its file `name`) create's descriptor, as the planner
  // makes it from what it saw.
  RepairTarget target_for(const std::optional<std::string>& name) {
    RepairTarget t;
    t.namespace_name = "hsperfdata_" + user_;
    const auto ns = seen(ns_, true);
    if (ns) t.namespace_expected = expected_from(ns->facts);
    t.path = name ? ns_ + "\\" + *name : ns_;
    t.file = name;
    const auto object = name ? seen(t.path, false) : ns;
    t.expected = object ? expected_from(object->facts) : t.namespace_expected;
    t.expected_owner_sid = object ? object->security.owner_sid : std::nullopt;
    ObservationError error;
    const std::string sid = platform::win::current_user_sid(&error).value_or("");
    t.new_security = compliant_descriptor(
        name ? CompliantObject::backing_file : CompliantObject::namespace_directory,
        t.expected_owner_sid.value_or(""), sid);
    return t;
  }

  test::ScratchDir scratch_;
  std::string user_;
  std::string ns_;
  std::string file_;
  std::vector<std::byte> bytes_;
  bool keeps_dacls_ = false;
};

TEST_F(RepairWindows, ExecutorSetsTheDaclOnlyOnWhatWasJudgedOrFailsClosed) {
  RepairPlan plan = empty_plan();
  ASSERT_TRUE(plan.roots[0].expected.has_value());
  plan.targets.push_back(target_for(std::nullopt));  // 0: the namespace as judged
  plan.targets.push_back(target_for("4242"));        // 1: the file as judged
  RepairTarget swapped = target_for(std::nullopt);   // 2: another directory under the name
  swapped.namespace_expected.ino += 1;
  swapped.expected.ino += 1;
  plan.targets.push_back(swapped);
  RepairTarget other_file = target_for("4242");  // 3: another file under the name
  other_file.expected.ino += 1;
  plan.targets.push_back(other_file);
  RepairTarget owner = target_for(std::nullopt);  // 4: the owner changed since it was judged
  owner.expected_owner_sid = "S-1-5-21-9-9-9-1666";
  plan.targets.push_back(owner);
  RepairTarget gone = target_for("4242");  // 5: a file that is not there
  gone.file = "4343";
  gone.path = ns_ + "\\4343";
  plan.targets.push_back(gone);

  const auto ns_before = seen(ns_, true);
  const auto file_before = seen(file_, false);
  ASSERT_TRUE(ns_before && file_before);
  const auto records = platform::execute_repair(plan);
  ASSERT_EQ(records.size(), plan.targets.size());
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].target, i);
  for (const std::size_t i : {0u, 1u}) {
    SCOPED_TRACE(i);
    if (keeps_dacls_) {
      EXPECT_EQ(records[i].outcome, RepairOutcome::fixed) << records[i].detail;
      EXPECT_NE(records[i].detail.find("protected DACL set"), std::string::npos)
          << records[i].detail;
    } else {
      EXPECT_EQ(records[i].outcome, RepairOutcome::failed);
      EXPECT_EQ(records[i].detail, "dacl-not-kept");
      ASSERT_TRUE(records[i].error.has_value());
      EXPECT_NE(records[i].error->message.find("does not keep the protected DACL"),
                std::string::npos)
          << records[i].error->message;
      EXPECT_NE(records[i].error->message.find("the previous DACL was put back"), std::string::npos)
          << records[i].error->message;
    }
  }
  if (!keeps_dacls_) {
    // Failed closed: each object has the DACL it had before (under wine: the same mode bits).
    const auto ns_after = seen(ns_, true);
    const auto file_after = seen(file_, false);
    ASSERT_TRUE(ns_after && file_after);
    for (const auto& [before, after] :
         {std::pair{&*ns_before, &*ns_after}, std::pair{&*file_before, &*file_after}}) {
      EXPECT_EQ(before->security.control & SE_DACL_PROTECTED,
                after->security.control & SE_DACL_PROTECTED);
      ASSERT_EQ(before->security.dacl.size(), after->security.dacl.size());
      for (std::size_t a = 0; a < before->security.dacl.size(); ++a) {
        EXPECT_EQ(before->security.dacl[a].sid, after->security.dacl[a].sid) << a;
        EXPECT_EQ(before->security.dacl[a].mask, after->security.dacl[a].mask) << a;
      }
    }
  }
  EXPECT_EQ(records[2].outcome, RepairOutcome::changed);
  EXPECT_EQ(records[2].detail, "namespace-changed");
  EXPECT_EQ(records[3].outcome, RepairOutcome::changed);
  EXPECT_EQ(records[3].detail, "identity-changed");
  EXPECT_EQ(records[4].outcome, RepairOutcome::changed);
  EXPECT_EQ(records[4].detail, "owner-changed");
  ASSERT_TRUE(records[4].error.has_value());
  EXPECT_NE(records[4].error->message.find("S-1-5-21-9-9-9-1666 as judged"), std::string::npos);
  EXPECT_EQ(records[5].outcome, RepairOutcome::vanished);
  // Nothing removed, nothing rewritten.
  EXPECT_TRUE(exists(ns_));
  EXPECT_EQ(test::read_file(file_), bytes_);
  EXPECT_FALSE(exists(ns_ + "\\4343"));
}

TEST_F(RepairWindows, ReplacedTempDirLeavesEveryTargetAlone) {
  RepairPlan plan = empty_plan();
  ASSERT_TRUE(plan.roots[0].expected.has_value());
  plan.targets.push_back(target_for(std::nullopt));
  plan.roots[0].expected->ino += 1;  // as if another directory had taken the temp dir's name
  const auto records = platform::execute_repair(plan);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, RepairOutcome::changed);
  EXPECT_EQ(records[0].detail, "temp-dir-changed");
}

TEST_F(RepairWindows, TargetWithoutADaclIsNotSupportedAndNothingIsDone) {
  RepairPlan plan = empty_plan();
  RepairTarget mode_only = target_for("4242");
  mode_only.new_security.reset();
  mode_only.new_mode = 0600;  // a POSIX fix: there is no such thing here
  plan.targets.push_back(mode_only);
  const auto records = platform::execute_repair(plan);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, RepairOutcome::failed);
  EXPECT_EQ(records[0].detail, "not-supported");
  EXPECT_EQ(test::read_file(file_), bytes_);
}

TEST_F(RepairWindows, BinaryFixesTheDaclFindingsOrFailsClosedRemovingNothing) {
  const auto before = run_tool({"audit", "--tmpdir", scratch_.path(), "--format", "json"});
  const auto found = dacl_rules_of(before.out);
  // The inherited DACL is not protected: HotSpot's own namespace would be.
  ASSERT_TRUE(found.count("dacl.not-protected")) << before.out;

  const auto dry = run_tool({"repair", "--tmpdir", scratch_.path(), "--dry-run"});
  EXPECT_NE(dry.out.find("would fix  dacl.not-protected  " + ns_ + ": protected DACL set: "),
            std::string::npos)
      << dry.out << dry.err;

  const auto run = run_tool({"repair", "--tmpdir", scratch_.path()});
  if (keeps_dacls_) {
    EXPECT_NE(run.out.find("fixed  dacl.not-protected  " + ns_), std::string::npos)
        << run.out << run.err;
    const auto after = run_tool({"audit", "--tmpdir", scratch_.path(), "--format", "json"});
    EXPECT_EQ(dacl_rules_of(after.out), std::set<std::string>{}) << after.out;
  } else {
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE(run.out.find("failed  dacl.not-protected  " + ns_), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("does not keep the protected DACL"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("fixed  dacl."), std::string::npos) << run.out;
  }
  EXPECT_TRUE(exists(ns_));
  EXPECT_EQ(test::read_file(file_), bytes_);
}

TEST_F(RepairWindows, ReparsePointNamespaceIsNeverFollowed) {
  const std::string elsewhere = scratch_.path() + "\\elsewhere";
  const auto target = test::unix_path(elsewhere);
  if (!target) GTEST_SKIP() << "not running under wine: no Unix side to make the link from";
  ASSERT_TRUE(::CreateDirectoryW(widen(elsewhere).c_str(), nullptr));
  const std::string link = scratch_.path() + "\\hsperfdata_mallory";
  const auto unix_link = test::unix_path(link);
  ASSERT_TRUE(unix_link.has_value());
  ASSERT_TRUE(test::unix_symlink(*target, *unix_link, link));
  const test::UnixLinkRemover remover{*unix_link, link};

  // A plan that names the link, expecting what following it would find.
  RepairPlan plan = empty_plan();
  RepairTarget t = target_for(std::nullopt);
  t.namespace_name = "hsperfdata_mallory";
  t.path = link;
  const auto followed = seen(elsewhere, true);
  ASSERT_TRUE(followed.has_value());
  t.namespace_expected = t.expected = expected_from(followed->facts);
  t.expected_owner_sid = followed->security.owner_sid;
  plan.targets.push_back(t);
  const auto records = platform::execute_repair(plan);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].outcome, RepairOutcome::changed);
  EXPECT_EQ(records[0].detail, "namespace-changed");

  // The binary plans nothing for it: its findings are left with the manual remedy.
  const auto run = run_tool({"repair", "--tmpdir", scratch_.path()});
  EXPECT_NE(run.out.find("left  namespace.reparse-point  " + link), std::string::npos)
      << run.out << run.err;
  EXPECT_EQ(run.out.find("dacl.not-protected  " + link), std::string::npos) << run.out;
  EXPECT_TRUE(exists(elsewhere));
}

}  // namespace
}  // namespace hsperfguard
