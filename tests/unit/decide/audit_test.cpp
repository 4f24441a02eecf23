// Verdict rules (file.stale, file.pid-reused) as the audit applies them: the verdict is
// decided once per file and shared between the findings and the report.
#include <gtest/gtest.h>

#include <cerrno>
#include <set>

#include "decide/audit.hpp"
#include "checks/checks.hpp"

namespace hsperfguard {
namespace {

constexpr std::int64_t kVmBegin = 1795379894540;

FileFacts backing_file(std::int32_t pid) {
  FileFacts f;
  f.name = std::to_string(pid);
  f.path = "/tmp/hsperfdata_alice/" + f.name;
  InodeFacts i;
  i.kind = FileKind::regular;
  i.mode = 0600;
  i.uid = 1001;
  i.size = 32768;
  i.dev = 7;
  i.ino = 99;
  f.lstat = i;
  f.opened = i;
  f.pid_name = classify_pid_name(f.name);
  perfdata::RegionSpec spec;
  perfdata::NewEntry begin;
  begin.name = "sun.rt.createVmBeginTime";
  begin.long_value = kVmBegin;
  spec.entries.push_back(begin);
  const auto built = perfdata::build_region(spec);
  f.region = RegionSummary{perfdata::parse_region(built.bytes), built.bytes.size()};
  return f;
}

LivenessFacts evidence(std::int32_t pid, ProcessFacts::Existence existence,
                       std::optional<std::int64_t> start, std::optional<bool> maps) {
  LivenessFacts l;
  l.lock_held = false;
  l.lock_source = "proc-locks";
  ProcessFacts p;
  p.pid = pid;
  p.existence = existence;
  p.start_time_ms = start;
  p.maps_backing_file = maps;
  l.candidates.push_back(p);
  return l;
}

std::set<std::string> rules_of(const FileFacts& file) {
  TempRootFacts root;
  root.temp_dir = "/tmp";
  NamespaceFacts ns;
  ns.name = "hsperfdata_alice";
  ns.user_suffix = "alice";
  ns.path = "/tmp/hsperfdata_alice";
  InodeFacts d;
  d.kind = FileKind::directory;
  d.mode = 0755;
  d.uid = 1001;
  ns.lstat = ns.opened = d;
  ns.user = UserFacts{"alice", 1001, 1001, std::nullopt};
  ns.files.push_back(file);
  root.namespaces.push_back(ns);
  const auto judged = judge({root}, *builtin_profile("default"));
  std::set<std::string> rules;
  for (const auto& f : judged[0].namespaces[0].files[0].findings) rules.insert(f.rule);
  return rules;
}

TEST(VerdictRules, GoneProcessMakesTheFileStale) {
  auto file = backing_file(4242);
  file.liveness = evidence(4242, ProcessFacts::Existence::gone, std::nullopt, std::nullopt);
  const auto rules = rules_of(file);
  EXPECT_TRUE(rules.count("file.stale"));
  EXPECT_FALSE(rules.count("file.pid-reused"));
}

TEST(VerdictRules, LaterStartedProcessMakesThePidReused) {
  auto file = backing_file(4242);
  file.liveness = evidence(4242, ProcessFacts::Existence::alive, kVmBegin + 60000, false);
  const auto rules = rules_of(file);
  EXPECT_TRUE(rules.count("file.pid-reused"));
  EXPECT_FALSE(rules.count("file.stale"));
}

TEST(VerdictRules, LiveOrUnknownFilesRaiseNeither) {
  auto live = backing_file(4242);
  live.liveness = evidence(4242, ProcessFacts::Existence::alive, kVmBegin - 500, true);
  EXPECT_TRUE(rules_of(live).empty());
  auto locked = backing_file(4242);
  locked.liveness = evidence(4242, ProcessFacts::Existence::gone, std::nullopt, std::nullopt);
  locked.liveness->lock_held = true;
  EXPECT_TRUE(rules_of(locked).empty());
  auto denied = backing_file(4242);
  denied.liveness = evidence(4242, ProcessFacts::Existence::no_permission, std::nullopt, std::nullopt);
  EXPECT_TRUE(rules_of(denied).empty());
}

TEST(VerdictRules, NoEvidenceMeansNoVerdict) {
  const auto file = backing_file(4242);
  EXPECT_TRUE(rules_of(file).empty());
}

TEST(VerdictRules, FindingCarriesTheDecidingEvidence) {
  auto file = backing_file(4242);
  file.liveness = evidence(4242, ProcessFacts::Existence::gone, std::nullopt, std::nullopt);
  const auto verdict = decide_liveness(file, LivenessSettings{});
  ASSERT_EQ(verdict.verdict, Verdict::stale);
  const auto findings = checks::check_verdict(NamespaceFacts{}, file, verdict);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].evidence["reason"], verdict.reason);
  EXPECT_EQ(findings[0].evidence["verdict"], "stale");
  EXPECT_EQ(findings[0].evidence["decided_by"], "process");
  EXPECT_EQ(findings[0].evidence["decided_by_pid"], 4242);
  EXPECT_EQ(findings[0].evidence["lock"], "free");
  EXPECT_EQ(findings[0].path, file.path);
  // The full evidence is reported under the file's verdict, not copied into the finding;
  // the audit judges with the brief verdict and gets the same finding.
  EXPECT_FALSE(findings[0].evidence.contains("candidates"));
  const auto brief =
      checks::check_verdict(NamespaceFacts{}, file,
                            explain_liveness_brief(judge_liveness(file, LivenessSettings{}), file));
  ASSERT_EQ(brief.size(), 1u);
  EXPECT_EQ(brief[0].evidence, findings[0].evidence);
  EXPECT_EQ(brief[0].message, findings[0].message);
}

}  // namespace
}  // namespace hsperfguard

namespace hsperfguard {
namespace {

// What makes a namespace "not looked at": an error of the namespace itself or beneath it. A
// namespace on another mount is not entered by design (the mount-boundary rules say so), a
// process the liveness index could not place (/proc/1/ns/mnt refused to root without ptrace
// access to pid 1) weakens the evidence of every namespace but leaves each read: counting either
// made healthy hosts' audits and the audit unit exit 3.
TEST(NotLookedAtCount, OnlyTheNamespacesOwnUnreadableErrorsCount) {
  const auto counted = [](std::vector<ObservationError> errors) {
    NamespaceFacts ns;
    ns.path = "/tmp/hsperfdata_bob";
    ns.errors = std::move(errors);
    NotLookedAt missing;
    missing.add_namespace(ns);
    return missing.namespaces;
  };
  EXPECT_EQ(counted({{"/tmp/hsperfdata_bob", "openat", EACCES, "Permission denied"}}), 1u);
  EXPECT_EQ(counted({{"/tmp/hsperfdata_bob/123", "openat", EIO, "Input/output error"}}), 1u);
  EXPECT_EQ(counted({{"/tmp/hsperfdata_bob", "openat", ENOENT, "gone since it was listed"}}), 0u);
  EXPECT_EQ(counted({{"/tmp/hsperfdata_bob", "openat", EXDEV, "on another mount: not entered"}}), 0u);
  EXPECT_EQ(counted({{"/proc/1/ns/mnt", "readlink", EACCES, "Permission denied"}}), 0u);
  EXPECT_EQ(counted({{"/proc/locks", "open", EACCES, "Permission denied"}}), 0u);
  // A sibling whose name begins with this one's is not beneath it.
  EXPECT_EQ(counted({{"/tmp/hsperfdata_bobby", "openat", EACCES, "Permission denied"}}), 0u);
}

// The error that says why a namespace was counted: its own first, else its files'; never one
// that leaves nothing unseen.
TEST(NotLookedAtCount, FirstUnseenErrorIsOneThatCounts) {
  NamespaceFacts ns;
  ns.path = "/tmp/hsperfdata_bob";
  EXPECT_EQ(first_unseen_error(ns), nullptr);
  ns.errors = {{"/proc/locks", "open", EACCES, "Permission denied"},
               {"/tmp/hsperfdata_bob/1", "openat", ENOENT, "gone since it was listed"}};
  ns.files.resize(3);
  ns.files[0].errors = {{"/tmp/hsperfdata_bob/2", "openat", ENOENT, "gone since it was listed"}};
  ns.files[1].errors = {{"/tmp/hsperfdata_bob/3", "openat", EXDEV, "on another mount: not entered"},
                        {"/tmp/hsperfdata_bob/3", "fgetxattr", EIO, "Input/output error"}};
  ns.files[2].errors = {{"/tmp/hsperfdata_bob/4", "pread", EIO, "Input/output error"}};
  const ObservationError* first = first_unseen_error(ns);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->path, "/tmp/hsperfdata_bob/3");
  EXPECT_EQ(first->op, "fgetxattr");
  ns.errors.push_back({"/tmp/hsperfdata_bob", "getdents64", EIO, "Input/output error"});
  first = first_unseen_error(ns);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->op, "getdents64");
}

}  // namespace
}  // namespace hsperfguard
