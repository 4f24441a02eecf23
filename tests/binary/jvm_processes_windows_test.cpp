// JVM processes and the maps proof on Windows, under wine, with a stand-in JVM built by the
// suite (tests/support/windows/fake_jvm.cpp: loads the suite's jvm.dll, maps a backing file the way
// HotSpot does). What must hold: a process with jvm.dll loaded and no backing file mapped is
// listed by `ps` as blind; one that maps its backing file is live by the maps proof (no named
// mapping needed); one whose mapped backing file was deleted is listed as deleted; a live
// process with the file's pid that does not map it is told from the JVM (pid reused); a
// process without jvm.dll is not a JVM.
#include <gtest/gtest.h>
#include <windows.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "decide/liveness.hpp"
#include "model/perfdata.hpp"
#include "platform/files.hpp"
#include "platform/liveness.hpp"
#include "platform/observe.hpp"
#include "platform/ps.hpp"
#include "platform/windows/views_windows.hpp"
#include "platform/windows/win_util.hpp"
#include "test_support.hpp"
#include "test_support_windows.hpp"

namespace hsperfguard {
namespace {

using platform::win::narrow;
using platform::win::UniqueHandle;
using platform::win::widen;
using test::exists;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<std::byte> region_bytes(std::int64_t begin_ms, const std::string& main) {
  perfdata::RegionSpec spec;
  spec.entries.push_back({"sun.rt.createVmBeginTime", perfdata::Units::ticks,
                          perfdata::Variability::constant, true, false, begin_ms, "", 0});
  spec.entries.push_back({"sun.rt.javaCommand", perfdata::Units::string,
                          perfdata::Variability::constant, true, true, 0, main, 0});
  auto built = perfdata::build_region(spec);
  EXPECT_FALSE(built.error.has_value());
  return built.bytes;
}

const JvmProcessFacts* jvm_of(const std::vector<JvmProcessFacts>& jvms, std::int32_t pid) {
  for (const auto& j : jvms) {
    if (j.process.pid == pid) return &j;
  }
  return nullptr;
}

class JvmProcessesWindows : public ::testing::Test {
 protected:
  void SetUp() override {
    user_ = test::current_user_name();
    ASSERT_FALSE(user_.empty());
    ns_ = scratch_.path() + "\\hsperfdata_" + user_;
    ASSERT_TRUE(::CreateDirectoryW(widen(ns_).c_str(), nullptr));
  }

  // A backing file for `pid` in the scratch namespace.
  std::string backing_file(std::int32_t pid, std::int64_t begin_ms) {
    const std::string path = ns_ + "\\" + std::to_string(pid);
    test::write_file(path, region_bytes(begin_ms, "FakeMain"));
    return path;
  }

  test::ScratchDir scratch_;
  std::string user_;
  std::string ns_;
};

TEST_F(JvmProcessesWindows, ModuleWalkFindsJvmDllAndTheMapsProofItsBackingFile) {
  const std::string file = ns_ + "\\publish";
  test::write_file(file, region_bytes(now_ms(), "FakeMain"));
  test::FakeJvm blind(scratch_.path(), {"--load", test::standin_jvm_dll()});
  test::FakeJvm publishing(scratch_.path(), {"--load", test::standin_jvm_dll(), "--map", file});
  const std::string unrelated = ns_ + "\\unrelated";
  test::write_file(unrelated, region_bytes(now_ms(), "FakeMain"));
  test::FakeJvm not_a_jvm(scratch_.path(),
                          {"--map", unrelated});  // maps a backing file, has no jvm.dll

  std::vector<ObservationError> errors;
  const auto jvms = platform::observe_jvm_processes(errors);
  const JvmProcessFacts* b = jvm_of(jvms, blind.pid());
  ASSERT_NE(b, nullptr) << "the process with jvm.dll was not listed";
  EXPECT_EQ(b->maps_backing_file, false);
  EXPECT_TRUE(b->blind());
  EXPECT_EQ(b->user, user_);
  EXPECT_EQ(b->process.existence, ProcessFacts::Existence::alive);
  EXPECT_TRUE(b->process.start_time_ms.has_value());
  EXPECT_TRUE(b->temp_dir_dev.has_value());  // this host's temp dir, assumed

  const JvmProcessFacts* p = jvm_of(jvms, publishing.pid());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->maps_backing_file, true);
  EXPECT_FALSE(p->invisible());
  ASSERT_TRUE(p->mapped_backing_file.has_value());
  EXPECT_NE(p->mapped_backing_file->find("hsperfdata_" + user_ + "\\publish"), std::string::npos)
      << *p->mapped_backing_file;
  // Its temp dir is the one its backing file is in: the scratch dir.
  ObservationError error;
  const auto scratch = platform::win::pin_directory(widen(scratch_.path()), &error);
  ASSERT_TRUE(scratch.has_value());
  EXPECT_EQ(p->temp_dir_dev, scratch->facts.dev);
  EXPECT_EQ(p->temp_dir_ino, scratch->facts.ino);

  EXPECT_EQ(jvm_of(jvms, not_a_jvm.pid()), nullptr) << "a process without jvm.dll is not a JVM";

  blind.stop();
  std::vector<ObservationError> again;
  EXPECT_EQ(jvm_of(platform::observe_jvm_processes(again), blind.pid()), nullptr)
      << "an ended process is listed";
}

TEST_F(JvmProcessesWindows, DeletedBackingFileIsToldFromAMappedOne) {
  const std::string file = ns_ + "\\deleted";
  test::write_file(file, region_bytes(now_ms(), "FakeMain"));
  test::FakeJvm jvm(scratch_.path(), {"--load", test::standin_jvm_dll(), "--map", file});
  // Deleted as a tmp cleaner deletes it. Under wine from the Unix side (a name wine deletes
  // stays until the last view goes); Windows removes the name at once (POSIX semantics).
  if (const auto unix_file = test::unix_path(file)) {
    ASSERT_TRUE(test::run_unix(L"/bin/rm -f \"" + widen(*unix_file) + L"\"", file, false));
  } else {
    ASSERT_TRUE(::DeleteFileW(widen(file).c_str()))
        << platform::win::error_message(::GetLastError());
  }
  ASSERT_FALSE(exists(file));
  std::vector<ObservationError> errors;
  const auto jvms = platform::observe_jvm_processes(errors);
  const JvmProcessFacts* j = jvm_of(jvms, jvm.pid());
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->maps_backing_file, true);
  EXPECT_TRUE(j->backing_file_deleted);
  EXPECT_TRUE(j->invisible());
}

TEST_F(JvmProcessesWindows, MapsProofMakesTheJvmLiveAndTellsAReusedPid) {
  // A JVM that publishes its own backing file (named after its pid) through no named mapping:
  // only its maps say it is live. And a live process, jvm.dll loaded, that maps nothing, with
  // a file named after it written after it started: not its file (a reused pid).
  // A namespace of its own, whose named mappings ("hsperfdata_mapsproof_<pid>") nothing else
  // in the suite creates or has created.
  const std::string ns = scratch_.path() + "\\hsperfdata_mapsproof";
  ASSERT_TRUE(::CreateDirectoryW(widen(ns).c_str(), nullptr));
  const std::string template_file = scratch_.path() + "\\template";
  test::write_file(template_file, region_bytes(now_ms(), "FakeMain"));
  test::FakeJvm jvm(scratch_.path(),
                    {"--load", test::standin_jvm_dll(), "--publish", template_file, ns});
  test::FakeJvm other(scratch_.path(), {"--load", test::standin_jvm_dll()});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // A VM that began after `other` started.
  test::write_file(ns + "\\" + std::to_string(other.pid()),
                   region_bytes(now_ms() + 60'000, "FakeMain"));

  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = scratch_.path();
  TempRootFacts root = platform::observe_temp_root(spec, platform::ObserveOptions{});
  platform::LivenessGatherer gatherer;
  gatherer.gather(root);
  const NamespaceFacts* observed = nullptr;
  for (const auto& n : root.namespaces) {
    if (n.name == "hsperfdata_mapsproof") observed = &n;
  }
  ASSERT_NE(observed, nullptr);
  const FileFacts* published = nullptr;
  const FileFacts* reused = nullptr;
  for (const auto& f : observed->files) {
    if (f.name == std::to_string(jvm.pid())) published = &f;
    if (f.name == std::to_string(other.pid())) reused = &f;
  }
  ASSERT_NE(published, nullptr) << "the stand-in JVM did not publish its file";
  ASSERT_NE(reused, nullptr);
  ASSERT_TRUE(published->liveness && reused->liveness);
  for (const auto& e : published->errors)
    ADD_FAILURE() << e.path << ": " << e.op << ": " << e.message;
  EXPECT_EQ(published->liveness->lock_held, false);  // no named mapping: only the maps can tell
  ASSERT_EQ(published->liveness->candidates.size(), 1u);
  EXPECT_EQ(published->liveness->candidates[0].maps_backing_file, true);
  const LivenessVerdict live = decide_liveness(*published, LivenessSettings{});
  EXPECT_EQ(live.verdict, Verdict::live) << live.reason;
  EXPECT_EQ(live.reason, "mapped");

  ASSERT_EQ(reused->liveness->candidates.size(), 1u);
  EXPECT_EQ(reused->liveness->candidates[0].existence, ProcessFacts::Existence::alive);
  EXPECT_EQ(reused->liveness->candidates[0].maps_backing_file, false);
  const LivenessVerdict verdict = decide_liveness(*reused, LivenessSettings{});
  EXPECT_EQ(verdict.verdict, Verdict::pid_reused) << verdict.reason;
  EXPECT_EQ(verdict.reason, "maps-without-file");
}

TEST_F(JvmProcessesWindows, CommandLineFlagThatDisablesPerfDataIsTheBlindJvmsReason) {
  test::FakeJvm told(scratch_.path(), {"--load", test::standin_jvm_dll(), "-XX:-UsePerfData"});
  test::FakeJvm untold(scratch_.path(), {"--load", test::standin_jvm_dll(), "-XX:+UseSerialGC"});
  std::vector<ObservationError> errors;
  const auto jvms = platform::observe_jvm_processes(errors);
  const JvmProcessFacts* t = jvm_of(jvms, told.pid());
  const JvmProcessFacts* u = jvm_of(jvms, untold.pid());
  ASSERT_TRUE(t && u);
  ASSERT_TRUE(t->command_line.has_value());
  EXPECT_NE(t->command_line->find("-XX:-UsePerfData"), std::string::npos) << *t->command_line;
  ASSERT_TRUE(t->perf_data.has_value());
  EXPECT_TRUE(t->perf_data->disables);
  EXPECT_EQ(t->perf_data->flag, "-XX:-UsePerfData");
  EXPECT_EQ(t->perf_data->source, "command line");
  EXPECT_FALSE(u->perf_data.has_value());

  const auto ps = test::run_tool({"ps", "--format", "json"});
  const auto doc = nlohmann::json::parse(ps.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << ps.out;
  std::string told_reason;
  std::string untold_reason;
  for (const auto& j : doc.at("jvms")) {
    if (j.value("host_pid", -1) == told.pid()) told_reason = j.value("reason", "");
    if (j.value("host_pid", -1) == untold.pid()) untold_reason = j.value("reason", "");
  }
  EXPECT_EQ(told_reason, "perf-data-disabled") << ps.out;
  EXPECT_NE(untold_reason, "perf-data-disabled") << ps.out;
  EXPECT_FALSE(untold_reason.empty()) << ps.out;
}

TEST_F(JvmProcessesWindows, PsListsTheBlindJvmWithAReasonAndStopsListingItWhenItEnds) {
  test::FakeJvm blind(scratch_.path(), {"--load", test::standin_jvm_dll()});
  const auto ps = test::run_tool({"ps", "--format", "json"});
  EXPECT_EQ(ps.exit_code, 0) << ps.err;
  const auto doc = nlohmann::json::parse(ps.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << ps.out;
  const nlohmann::json* row = nullptr;
  for (const auto& j : doc.at("jvms")) {
    if (j.value("host_pid", -1) == blind.pid()) row = &j;
  }
  ASSERT_NE(row, nullptr) << ps.out;
  EXPECT_EQ(row->at("state"), "blind") << row->dump();
  EXPECT_EQ(row->at("user"), user_) << row->dump();
  const std::set<std::string> causes{"perf-data-disabled", "namespace-refused", "create-failed",
                                     "locked-by-another-jvm", "namespace-changed", "undetermined"};
  EXPECT_TRUE(causes.count(row->at("reason").get<std::string>())) << row->dump();
  EXPECT_FALSE(row->value("explanation", "").empty()) << row->dump();
  for (const auto& e : doc.at("errors"))
    EXPECT_NE(e.value("op", ""), "observe_jvm_processes") << e.dump();

  blind.stop();
  const auto after = test::run_tool({"ps", "--format", "json"});
  const auto doc2 = nlohmann::json::parse(after.out, nullptr, false);
  ASSERT_FALSE(doc2.is_discarded()) << after.out;
  for (const auto& j : doc2.at("jvms")) EXPECT_NE(j.value("host_pid", -1), blind.pid()) << j.dump();
}

// A JVM whose environment names a temp dir of its own (TMP), as a service account's names its
// profile's: its temp dir is read from its environment, observation lists that directory among
// the other accounts' temp dirs, and ps and the audit look there and say why jps run here does
// not list it. Wine runs every process as one account: the account names are this one's, and a
// service account's JVM is not shown here (only that the service accounts' temp dirs that
// exist are listed).
TEST_F(JvmProcessesWindows, AJvmWhoseTmpNamesAnotherTempDirIsFoundThereAndItsReasonNamed) {
  const std::string svc = scratch_.path() + "\\svc tmp";
  ASSERT_TRUE(::CreateDirectoryW(widen(svc).c_str(), nullptr));
  const std::string svc_ns = svc + "\\hsperfdata_" + user_;
  ASSERT_TRUE(::CreateDirectoryW(widen(svc_ns).c_str(), nullptr));
  const std::string blind_tmp = scratch_.path() + "\\blind tmp";
  ASSERT_TRUE(::CreateDirectoryW(widen(blind_tmp).c_str(), nullptr));
  const std::string template_file = scratch_.path() + "\\template";
  test::write_file(template_file, region_bytes(now_ms(), "ServiceMain"));
  test::FakeJvm service(scratch_.path(), {"--load", test::standin_jvm_dll(), "--publish", template_file, svc_ns},
                        {"TMP=" + svc});
  test::FakeJvm blind(scratch_.path(), {"--load", test::standin_jvm_dll()}, {"TMP=" + blind_tmp + "\\"});

  std::vector<ObservationError> errors;
  const auto jvms = platform::observe_jvm_processes(errors);
  const JvmProcessFacts* s = jvm_of(jvms, service.pid());
  const JvmProcessFacts* b = jvm_of(jvms, blind.pid());
  ASSERT_TRUE(s && b);
  EXPECT_TRUE(s->environment_read);
  EXPECT_EQ(s->temp_dir_path, svc);
  EXPECT_EQ(b->temp_dir_path, blind_tmp);
  // The blind one would have published in its own temp dir, not this process's.
  ObservationError error;
  const auto pinned = platform::win::pin_directory(widen(blind_tmp), &error);
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(b->temp_dir_dev, pinned->facts.dev);
  EXPECT_EQ(b->temp_dir_ino, pinned->facts.ino);

  const AccountTempDirs accounts = platform::observe_account_temp_dirs(platform::default_temp_dir(), jvms);
  EXPECT_TRUE(accounts.host_temp_dir.has_value());
  bool listed = false;
  for (const auto& dir : accounts.dirs) {
    if (dir.account.jvm_pid == service.pid()) {
      listed = true;
      EXPECT_EQ(dir.path, svc);
      EXPECT_EQ(dir.account.name, user_);
      EXPECT_TRUE(dir.identity.has_value());
    }
  }
  EXPECT_TRUE(listed);
  // LocalSystem's temp dir, %SystemRoot%\Temp, is listed when it exists (wine makes it).
  wchar_t windows[MAX_PATH + 1] = {};
  ASSERT_GT(::GetSystemWindowsDirectoryW(windows, MAX_PATH), 0u);
  const std::wstring system_temp = std::wstring(windows) + L"\\Temp";
  const bool system_listed =
      std::any_of(accounts.dirs.begin(), accounts.dirs.end(), [&](const AccountTempDir& d) {
        return d.account.name == "SYSTEM" && !d.account.jvm_pid && d.path == narrow(system_temp);
      });
  EXPECT_EQ(system_listed, ::GetFileAttributesW(system_temp.c_str()) != INVALID_FILE_ATTRIBUTES);

  const auto ps = test::run_tool({"ps", "--format", "json"});
  const auto doc = nlohmann::json::parse(ps.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << ps.out << ps.err;
  const nlohmann::json* row = nullptr;
  for (const auto& j : doc.at("jvms")) {
    if (j.value("host_pid", -1) == service.pid()) row = &j;
  }
  ASSERT_NE(row, nullptr) << ps.out;
  EXPECT_EQ(row->at("state"), "live") << row->dump();
  EXPECT_EQ(row->at("root_kind"), "account-temp-dir") << row->dump();
  ASSERT_TRUE(row->at("reach").is_object()) << row->dump();
  EXPECT_EQ(row->at("reach").at("cause"), "other-account-temp-dir");
  EXPECT_EQ(row->at("reach").at("command"), "$env:TMP = '" + svc + "'; jps -l -J-XX:-UsePerfData");

  const auto audit = test::run_tool({"audit", "--format", "json", "--fail-on", "critical"});
  const auto report = nlohmann::json::parse(audit.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << audit.out << audit.err;
  bool root_seen = false;
  for (const auto& root : report.at("roots")) {
    if (root.at("temp_dir") != svc) continue;
    root_seen = true;
    EXPECT_EQ(root.at("kind"), "account-temp-dir");
    EXPECT_EQ(root.at("account").at("named_by_pid"), service.pid());
  }
  EXPECT_TRUE(root_seen) << audit.out;
  EXPECT_NE(audit.out.find("\"jvm.other-account-temp-dir\""), std::string::npos) << audit.out;
}

}  // namespace
}  // namespace hsperfguard
