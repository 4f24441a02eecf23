// The reaper on Windows, against real files and processes in a private scratch temp dir:
// the plan (observe_and_plan, as `reap` makes it) and the executor (platform::execute_plan),
// then the binary end to end. What must hold: a dead process's file goes; a live one's stays,
// also when it comes alive between plan and execution (its file held open and mapped the way
// HotSpot holds it, or its named mapping); a file swapped after planning is `changed` and
// kept; a reparse point (a link made on the Unix side of wine) is never entered or followed.
#include <gtest/gtest.h>
#include <windows.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "checks/checks.hpp"
#include "commands/reap_command.hpp"
#include "model/perfdata.hpp"
#include "platform/lock_and_journal.hpp"
#include "platform/reap.hpp"
#include "platform/signals.hpp"
#include "platform/windows/win_util.hpp"
#include "report/reap_report.hpp"
#include "rule_selections.hpp"
#include "test_support.hpp"
#include "test_support_windows.hpp"

namespace hsperfguard {
namespace {

using test::current_user_name;
using test::exists;
using test::run_tool;

namespace fs = std::filesystem;
using platform::win::narrow;
using platform::win::UniqueHandle;
using platform::win::widen;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A JDK-like region whose VM began at `begin_ms`.
std::vector<std::byte> region_bytes(std::int64_t begin_ms) {
  perfdata::RegionSpec spec;
  spec.entries.push_back({"sun.rt.createVmBeginTime", perfdata::Units::ticks, perfdata::Variability::constant,
                          true, false, begin_ms, "", 0});
  spec.entries.push_back({"sun.rt.javaCommand", perfdata::Units::string, perfdata::Variability::constant, true,
                          true, 0, "Main", 0});
  auto built = perfdata::build_region(spec);
  EXPECT_FALSE(built.error.has_value());
  return built.bytes;
}

// The file held the way a running HotSpot holds its backing file (docs/POLICY.md section 4): open
// for reading and writing, shared for reading and deleting, and mapped.
struct JvmHold {
  UniqueHandle file;
  UniqueHandle mapping;
  void* view = nullptr;
  explicit JvmHold(const std::string& path, const std::wstring& mapping_name = L"") {
    file.reset(::CreateFileW(widen(path).c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE,
                             nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid()) return;
    mapping.reset(::CreateFileMappingW(file.get(), nullptr, PAGE_READWRITE, 0, 0,
                                       mapping_name.empty() ? nullptr : mapping_name.c_str()));
    if (mapping.valid()) view = ::MapViewOfFile(mapping.get(), FILE_MAP_ALL_ACCESS, 0, 0, 0);
  }
  ~JvmHold() {
    if (view != nullptr) ::UnmapViewOfFile(view);
  }
  bool held() const { return view != nullptr; }
};

class ReapWindows : public ::testing::Test {
 protected:
  void SetUp() override {
    user_ = current_user_name();
    ns_ = scratch_.path() + "\\hsperfdata_" + user_;
    ASSERT_TRUE(::CreateDirectoryW(widen(ns_).c_str(), nullptr));
    // A process that is gone; its object (and so its pid) stays reserved while we hold it.
    dead_ = test::start_suspended_child();
    ASSERT_TRUE(dead_.process.valid());
    ASSERT_TRUE(test::terminate_child(dead_));
    live_ = test::start_suspended_child();
    ASSERT_TRUE(live_.process.valid());
  }
  void TearDown() override { test::terminate_child(live_); }

  std::string in_ns(const std::string& name) const { return ns_ + "\\" + name; }
  std::string dead_file() const { return in_ns(std::to_string(dead_.pid)); }
  std::string live_file() const { return in_ns(std::to_string(live_.pid)); }

  // The plan `reap --tmpdir <scratch> --min-age 0` makes.
  ReapRun plan() {
    ReapCommandOptions options;
    options.tmpdir = scratch_.path();
    options.min_age_ms = 0;
    options.containers = false;
    ReapRun run;
    observe_and_plan(options, run);
    return run;
  }

  static std::optional<std::size_t> item_of(const ReapRun& run, const std::string& path) {
    for (std::size_t i = 0; i < run.plan.items.size(); ++i) {
      if (run.plan.items[i].path == path) return i;
    }
    return std::nullopt;
  }

  static bool has_action(const ExecutionResult& result, std::size_t item) {
    return std::any_of(result.actions.begin(), result.actions.end(),
                       [&](const ReapActionRecord& a) { return a.item == item; });
  }
  // The item's record; a test failure (and a record saying "absent") when there is none.
  static const ReapActionRecord* action_of(const ExecutionResult& result, std::size_t item) {
    for (const auto& a : result.actions) {
      if (a.item == item) return &a;
    }
    ADD_FAILURE() << "no action for item " << item;
    static const ReapActionRecord absent{0, ReapOutcome::not_attempted, "absent", std::nullopt, 0};
    return &absent;
  }

  test::ScratchDir scratch_;
  std::string user_;
  std::string ns_;
  test::Child dead_;
  test::Child live_;
};

TEST_F(ReapWindows, DeadProcessFileIsStaleReusedPidsFileGoesJvmsOwnFileIsLiveAndKept) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  // A live process that is not the JVM that wrote the file named after it: it maps nothing.
  test::write_file(live_file(), region_bytes(now_ms()));  // began after the child started
  test::write_file(in_ns("notes.txt"), test::to_bytes("x"));
  // A JVM publishing its own backing file (a copy of the template named after its pid), with
  // no named mapping: its maps say it is live.
  const std::string template_file = scratch_.path() + "\\template";
  test::write_file(template_file, region_bytes(now_ms()));
  test::FakeJvm jvm(scratch_.path(),
                    {"--load", test::standin_jvm_dll(), "--publish", template_file, ns_});
  const std::string jvm_file = in_ns(std::to_string(jvm.pid()));
  ASSERT_TRUE(exists(jvm_file));
  ReapRun run = plan();
  ASSERT_TRUE(run.roots.size() == 1 && run.roots[0].errors.empty());

  const auto dead = item_of(run, dead_file());
  const auto reused = item_of(run, live_file());
  const auto live = item_of(run, jvm_file);
  const auto notes = item_of(run, in_ns("notes.txt"));
  ASSERT_TRUE(dead && reused && live && notes);
  EXPECT_EQ(run.plan.items[*dead].verdict, Verdict::stale);
  EXPECT_EQ(run.plan.items[*dead].reason, "process-gone");
  EXPECT_EQ(run.plan.items[*dead].action, ReapAction::remove);
  EXPECT_EQ(run.plan.items[*reused].verdict, Verdict::pid_reused);
  EXPECT_EQ(run.plan.items[*reused].reason, "maps-without-file");
  EXPECT_EQ(run.plan.items[*reused].action, ReapAction::remove);
  EXPECT_EQ(run.plan.items[*live].verdict, Verdict::live);
  EXPECT_EQ(run.plan.items[*live].reason, "mapped");
  EXPECT_EQ(run.plan.items[*live].action, ReapAction::keep);
  // Not a pid name: no mapping can prove it free on Windows, so it stays unknown and kept.
  EXPECT_EQ(run.plan.items[*notes].verdict, Verdict::unknown);
  EXPECT_EQ(run.plan.items[*notes].action, ReapAction::keep);

  // The identity the executor checks: volume serial and file index, as observed.
  const auto& expected = run.plan.items[*dead].expected;
  ASSERT_TRUE(expected.has_value());
  EXPECT_NE(expected->dev, 0u);
  EXPECT_NE(expected->ino, 0u);

  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dead)->outcome, ReapOutcome::removed);
  EXPECT_EQ(action_of(result, *dead)->detail, "unlinked");
  EXPECT_EQ(action_of(result, *reused)->outcome, ReapOutcome::removed);
  EXPECT_FALSE(has_action(result, *notes));
  EXPECT_FALSE(has_action(result, *live));  // never planned, never touched
  EXPECT_FALSE(exists(dead_file()));
  EXPECT_FALSE(exists(live_file()));
  EXPECT_TRUE(exists(in_ns("notes.txt")));
  EXPECT_TRUE(exists(jvm_file));
  EXPECT_TRUE(exists(ns_));
  EXPECT_TRUE(result.errors.empty());
}

TEST_F(ReapWindows, TheJvmsMappingMakesTheFileLive) {
  test::write_file(live_file(), region_bytes(now_ms() - 3'600'000));  // pid looks reused...
  const JvmHold jvm(live_file(), widen("hsperfdata_" + user_ + "_" + std::to_string(live_.pid)));
  ASSERT_TRUE(jvm.held()) << platform::win::error_message(::GetLastError());
  ReapRun run = plan();
  const auto live = item_of(run, live_file());
  ASSERT_TRUE(live);
  EXPECT_EQ(run.plan.items[*live].verdict, Verdict::live);  // ...but its mapping is there
  EXPECT_EQ(run.plan.items[*live].reason, "lock-held");
  EXPECT_EQ(run.plan.items[*live].action, ReapAction::keep);
}

TEST_F(ReapWindows, FileOpenedAndMappedAfterThePlanBecameLive) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  const auto dead = item_of(run, dead_file());
  ASSERT_TRUE(dead);
  ASSERT_EQ(run.plan.items[*dead].action, ReapAction::remove);
  // A JVM (here: this process, the way HotSpot does it) opens and maps it before execution.
  const JvmHold jvm(dead_file());
  ASSERT_TRUE(jvm.held()) << platform::win::error_message(::GetLastError());
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dead)->outcome, ReapOutcome::became_live);
  EXPECT_EQ(action_of(result, *dead)->detail, "in-use");
  EXPECT_TRUE(exists(dead_file()));
}

TEST_F(ReapWindows, MappingCreatedAfterThePlanBecameLive) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  const auto dead = item_of(run, dead_file());
  ASSERT_TRUE(dead);
  ASSERT_EQ(run.plan.items[*dead].action, ReapAction::remove);
  const std::wstring name = widen("hsperfdata_" + user_ + "_" + std::to_string(dead_.pid));
  UniqueHandle mapping(::CreateFileMappingW(INVALID_HANDLE_VALUE, nullptr, PAGE_READWRITE, 0, 4096, name.c_str()));
  ASSERT_TRUE(mapping.valid());
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dead)->outcome, ReapOutcome::became_live);
  EXPECT_EQ(action_of(result, *dead)->detail, "mapping-exists");
  EXPECT_TRUE(exists(dead_file()));
}

TEST_F(ReapWindows, FileSwappedBetweenPlanAndExecutionIsChangedAndKept) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  const auto dead = item_of(run, dead_file());
  ASSERT_TRUE(dead);
  ASSERT_EQ(run.plan.items[*dead].action, ReapAction::remove);
  // The judged file moves aside; another file takes its name.
  ASSERT_TRUE(::MoveFileW(widen(dead_file()).c_str(), widen(in_ns("judged")).c_str()));
  test::write_file(dead_file(), test::to_bytes("someone else's data"));
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dead)->outcome, ReapOutcome::changed);
  EXPECT_EQ(action_of(result, *dead)->detail, "identity-changed");
  EXPECT_EQ(test::read_file(dead_file()), test::to_bytes("someone else's data"));
  EXPECT_TRUE(exists(in_ns("judged")));
}

TEST_F(ReapWindows, FileGoneBeforeExecutionVanished) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  const auto dead = item_of(run, dead_file());
  ASSERT_TRUE(dead);
  ASSERT_TRUE(::DeleteFileW(widen(dead_file()).c_str()));
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dead)->outcome, ReapOutcome::vanished);
}

TEST_F(ReapWindows, NamespaceSwappedBetweenPlanAndExecutionRemovesNothing) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  const auto dead = item_of(run, dead_file());
  ASSERT_TRUE(dead);
  // The whole directory is replaced by another one holding a file of the same name.
  ASSERT_TRUE(::MoveFileW(widen(ns_).c_str(), widen(scratch_.path() + "\\judged-ns").c_str()));
  ASSERT_TRUE(::CreateDirectoryW(widen(ns_).c_str(), nullptr));
  test::write_file(dead_file(), test::to_bytes("other"));
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dead)->outcome, ReapOutcome::failed);
  EXPECT_EQ(action_of(result, *dead)->detail, "namespace-changed");
  EXPECT_TRUE(exists(dead_file()));
  EXPECT_TRUE(exists(scratch_.path() + "\\judged-ns\\" + std::to_string(dead_.pid)));
}

TEST_F(ReapWindows, TempDirSwappedBetweenPlanAndExecutionRemovesNothing) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  const auto dead = item_of(run, dead_file());
  ASSERT_TRUE(dead);
  run.plan.roots[0].expected->ino += 1;  // as if another directory had taken the name
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dead)->outcome, ReapOutcome::failed);
  EXPECT_EQ(action_of(result, *dead)->detail, "temp-dir-changed");
  EXPECT_TRUE(exists(dead_file()));
}

TEST_F(ReapWindows, UnixSymlinkNamespaceIsAReparsePointAndNeverFollowed) {
  const auto target = test::unix_path(scratch_.path() + "\\elsewhere");
  if (!target) GTEST_SKIP() << "not running under wine: no Unix side to make the link from";
  ASSERT_TRUE(::CreateDirectoryW(widen(scratch_.path() + "\\elsewhere").c_str(), nullptr));
  const std::string victim = scratch_.path() + "\\elsewhere\\" + std::to_string(dead_.pid);
  test::write_file(victim, region_bytes(now_ms() - 60'000));
  const std::string link = scratch_.path() + "\\hsperfdata_mallory";
  const auto unix_link = test::unix_path(link);
  ASSERT_TRUE(unix_link.has_value());
  ASSERT_TRUE(test::unix_symlink(*target, *unix_link, link));
  const test::UnixLinkRemover remover{*unix_link, link};

  ReapRun run = plan();
  ASSERT_EQ(run.roots.size(), 1u);
  const NamespaceFacts* mallory = nullptr;
  for (const auto& ns : run.roots[0].namespaces) {
    if (ns.name == "hsperfdata_mallory") mallory = &ns;
  }
  ASSERT_NE(mallory, nullptr);
  std::vector<std::string> rules;
  for (const auto& f : checks::check_namespace(run.roots[0], *mallory, test::windows_rules()))
    rules.push_back(f.rule);
  EXPECT_EQ(rules, std::vector<std::string>{"namespace.reparse-point"});
  EXPECT_TRUE(mallory->files.empty());  // never entered
  std::size_t planned_mallory = 0;
  for (const auto& ns : run.plan.namespaces) {
    if (ns.name != "hsperfdata_mallory") continue;
    ++planned_mallory;
    EXPECT_FALSE(ns.actionable);
    EXPECT_EQ(ns.why, "not-a-directory");
  }
  EXPECT_EQ(planned_mallory, 1u) << "the plan must say why mallory's namespace is not acted in";
  for (const auto& item : run.plan.items) EXPECT_EQ(item.path.find("mallory"), std::string::npos) << item.path;

  platform::execute_plan(run.plan, {});
  EXPECT_TRUE(exists(victim));
  // The binary's audit reports it too, and its reap leaves the victim alone.
  const auto audit = run_tool({"audit", "--tmpdir", scratch_.path(), "--format", "json"});
  const auto report = nlohmann::json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << audit.err;
  EXPECT_NE(audit.out.find("namespace.reparse-point"), std::string::npos);
  const auto reap = run_tool({"reap", "--tmpdir", scratch_.path(), "--min-age", "0", "--no-lock",
                                    "--format", "json"});
  EXPECT_EQ(reap.exit_code, 0) << reap.err;
  EXPECT_TRUE(exists(victim));
}

TEST_F(ReapWindows, UnixSymlinkToAFileIsNeverFollowedByTheExecutor) {
  const auto target = test::unix_path(scratch_.path() + "\\victim");
  if (!target) GTEST_SKIP() << "not running under wine: no Unix side to make the link from";
  const std::string victim = scratch_.path() + "\\victim";
  test::write_file(victim, test::to_bytes("precious"));
  const std::string link = in_ns(std::to_string(dead_.pid));
  const auto unix_link = test::unix_path(link);
  ASSERT_TRUE(unix_link.has_value());
  ASSERT_TRUE(test::unix_symlink(*target, *unix_link, link));
  const test::UnixLinkRemover remover{*unix_link, link};

  ReapRun run = plan();
  const auto item = item_of(run, link);
  ASSERT_TRUE(item);
  ASSERT_TRUE(run.plan.items[*item].expected.has_value());
  const auto result = platform::execute_plan(run.plan, {});
  // Whatever the plan said about the link, its target is untouched.
  EXPECT_EQ(test::read_file(victim), test::to_bytes("precious"));
  if (run.plan.items[*item].expected->kind == FileKind::regular) {
    // Wine shows a Unix symlink to a file as the file itself (same kind, the target's file
    // index, no reparse attribute), so the plan judged the target, a stale file to remove.
    // The executor finds out from the path its handle really names, and deletes nothing.
    ASSERT_TRUE(has_action(result, *item));
    EXPECT_EQ(action_of(result, *item)->outcome, ReapOutcome::changed);
    EXPECT_EQ(action_of(result, *item)->detail, "leads-elsewhere");
    EXPECT_TRUE(exists(link));
  } else if (has_action(result, *item) && action_of(result, *item)->outcome == ReapOutcome::removed) {
    EXPECT_FALSE(exists(link));  // the link itself went, on a system that opens it as itself
  }
}

TEST_F(ReapWindows, EmptyNamespaceOfAGoneUserIsRemovedOnlyWhenEmpty) {
  const std::string gone = scratch_.path() + "\\hsperfdata_nosuchuser42";
  ASSERT_TRUE(::CreateDirectoryW(widen(gone).c_str(), nullptr));
  ReapCommandOptions options;
  options.tmpdir = scratch_.path();
  options.min_age_ms = 0;
  options.containers = false;
  options.remove_empty_namespaces = true;
  ReapRun run;
  observe_and_plan(options, run);
  const auto dir = item_of(run, gone);
  ASSERT_TRUE(dir);
  ASSERT_EQ(run.plan.items[*dir].action, ReapAction::remove);
  // Something appears in it after the plan: the directory stays.
  test::write_file(gone + "\\late", test::to_bytes("x"));
  auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dir)->outcome, ReapOutcome::failed);
  EXPECT_TRUE(exists(gone + "\\late"));
  ASSERT_TRUE(::DeleteFileW(widen(gone + "\\late").c_str()));
  result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(action_of(result, *dir)->outcome, ReapOutcome::removed);
  EXPECT_EQ(action_of(result, *dir)->detail, "removed-directory");
  EXPECT_FALSE(exists(gone));
}

TEST_F(ReapWindows, JournalIsWrittenBeforeEachDeletionAndAJournalFailureStopsTheRun) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  test::Child other = test::start_suspended_child();
  ASSERT_TRUE(test::terminate_child(other));
  test::write_file(in_ns(std::to_string(other.pid)), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  ASSERT_EQ(run.plan.counts().remove, 2u);
  platform::ExecuteOptions exec;
  std::vector<std::string> seen;
  exec.before_unlink = [&](const PlanItem& item) {
    EXPECT_TRUE(exists(item.path)) << "announced after the fact: " << item.path;
    seen.push_back(item.path);
    return seen.size() < 2;  // the second announcement cannot be written
  };
  const auto result = platform::execute_plan(run.plan, exec);
  ASSERT_EQ(seen.size(), 2u);
  ASSERT_NE(seen[0], seen[1]);
  EXPECT_FALSE(exists(seen[0]));
  EXPECT_TRUE(exists(seen[1]));
  std::size_t not_attempted = 0;
  for (const auto& a : result.actions) not_attempted += a.outcome == ReapOutcome::not_attempted ? 1 : 0;
  EXPECT_EQ(not_attempted, 1u);
}

TEST_F(ReapWindows, StopRequestAndDeadlineLeaveEverythingNotAttempted) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  ReapRun run = plan();
  std::atomic<bool> stop{true};
  platform::ExecuteOptions exec;
  exec.stop = &stop;
  auto result = platform::execute_plan(run.plan, exec);
  EXPECT_TRUE(result.interrupted);
  ASSERT_FALSE(result.actions.empty())
      << "the dead file was planned for removal and must be settled";
  for (const auto& a : result.actions) EXPECT_EQ(a.outcome, ReapOutcome::not_attempted);
  exec.stop = nullptr;
  exec.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  result = platform::execute_plan(run.plan, exec);
  EXPECT_TRUE(result.deadline_reached);
  EXPECT_TRUE(exists(dead_file()));
}

TEST_F(ReapWindows, BinaryReapsWithLockAndJournal) {
  test::write_file(dead_file(), region_bytes(now_ms() - 60'000));
  const std::string template_file = scratch_.path() + "\\template";
  test::write_file(template_file, region_bytes(now_ms()));
  test::FakeJvm jvm(scratch_.path(),
                    {"--load", test::standin_jvm_dll(), "--publish", template_file, ns_});
  const std::string jvm_file = in_ns(std::to_string(jvm.pid()));
  const std::string lock = scratch_.path() + "\\run\\reap.lock";
  const std::string journal = scratch_.path() + "\\journal.jsonl";
  const std::string output = scratch_.path() + "\\report.json";
  const auto r = run_tool({"reap", "--tmpdir", scratch_.path(), "--min-age", "0", "--lock-file", lock,
                                 "--journal", journal, "--format", "json", "--output", output});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(exists(dead_file()));
  EXPECT_TRUE(exists(jvm_file));
  EXPECT_TRUE(exists(lock));
  const auto bytes = test::read_file(output);
  const auto report = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                            nullptr, false);
  ASSERT_FALSE(report.is_discarded());
  EXPECT_EQ(report["command"], "reap");
  ASSERT_TRUE(report["actions"].is_array());
  ASSERT_EQ(report["actions"].size(), 1u);
  EXPECT_EQ(report["actions"][0]["outcome"], "removed");
  // The journal: start, the announcement before the deletion, its outcome, finish.
  const auto journal_bytes = test::read_file(journal);
  const std::string lines(reinterpret_cast<const char*>(journal_bytes.data()), journal_bytes.size());
  std::vector<std::string> events;
  std::size_t from = 0;
  while (from < lines.size()) {
    const auto end = lines.find('\n', from);
    ASSERT_NE(end, std::string::npos);
    events.push_back(nlohmann::json::parse(lines.substr(from, end - from))["event"].get<std::string>());
    from = end + 1;
  }
  EXPECT_EQ(events, (std::vector<std::string>{"start", "unlinking", "outcome", "finish"}));
}

TEST(ReapWindowsLock, SecondHolderIsBusyAndSeesTheFirstsPid) {
  test::ScratchDir scratch;
  const std::string path = scratch.path() + "\\locks\\reap.lock";
  auto first = platform::InstanceLock::acquire(path, false, std::nullopt, nullptr);
  ASSERT_EQ(first.status(), platform::InstanceLock::Status::acquired)
      << (first.error() ? first.error()->message : std::string());
  auto second = platform::InstanceLock::acquire(path, false, std::nullopt, nullptr);
  EXPECT_EQ(second.status(), platform::InstanceLock::Status::busy);
  EXPECT_EQ(second.holder_pid(), static_cast<std::int32_t>(::GetCurrentProcessId()));
  // Waiting gives up at the deadline.
  const auto waited = platform::InstanceLock::acquire(
      path, true, std::chrono::steady_clock::now() + std::chrono::milliseconds(200), nullptr);
  EXPECT_EQ(waited.status(), platform::InstanceLock::Status::busy);
  first = platform::InstanceLock();  // released
  EXPECT_EQ(platform::InstanceLock::acquire(path, false, std::nullopt, nullptr).status(),
            platform::InstanceLock::Status::acquired);
}

TEST(ReapWindowsLock, ADirectoryIsNoLockFile) {
  test::ScratchDir scratch;
  ASSERT_TRUE(::CreateDirectoryW(widen(scratch.path() + "\\lockdir").c_str(), nullptr));
  const auto lock = platform::InstanceLock::acquire(scratch.path() + "\\lockdir", false, std::nullopt, nullptr);
  EXPECT_EQ(lock.status(), platform::InstanceLock::Status::error);
}

TEST(ReapWindowsLock, AFileWithOtherContentIsLeftUntouched) {
  test::ScratchDir scratch;
  const std::string path = scratch.path() + "\\precious.txt";
  test::write_file(path, test::to_bytes("not a pid, someone's data\n"));
  const auto lock = platform::InstanceLock::acquire(path, false, std::nullopt, nullptr);
  EXPECT_EQ(lock.status(), platform::InstanceLock::Status::error);
  EXPECT_EQ(test::read_file(path), test::to_bytes("not a pid, someone's data\n"));
}

TEST(ReapWindowsJournal, ReadsBackWhatItAppended) {
  test::ScratchDir scratch;
  const std::string path = scratch.path() + "\\journal";
  ObservationError error;
  auto log = platform::AppendLog::open(path, &error);
  ASSERT_TRUE(log.has_value()) << error.message;
  EXPECT_TRUE(log->created());
  EXPECT_FALSE(log->append("{\"event\":\"start\"}").has_value());
  EXPECT_EQ(log->size(), 18u);
  EXPECT_EQ(log->read(0, 100, &error), std::optional<std::string>("{\"event\":\"start\"}\n"));
}

TEST(ReapWindowsJournal, AppendsLinesAcrossOpens) {
  test::ScratchDir scratch;
  const std::string path = scratch.path() + "\\journal";
  {
    ObservationError error;
    auto log = platform::AppendLog::open(path, &error);
    ASSERT_TRUE(log.has_value()) << error.message;
    EXPECT_FALSE(log->append("{\"a\":1}").has_value());
    EXPECT_FALSE(log->append("{\"b\":2}").has_value());
  }
  {
    ObservationError error;
    auto log = platform::AppendLog::open(path, &error);
    ASSERT_TRUE(log.has_value()) << error.message;
    EXPECT_FALSE(log->append("{\"c\":3}").has_value());
  }
  EXPECT_EQ(test::read_file(path), test::to_bytes("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n"));
}

}  // namespace
}  // namespace hsperfguard
