// The commands run in process against a fake world (commands/environment.hpp): hand-built
// facts go in through the seam, the report and the exit code come out, and what the command
// asked the world to do is recorded. Nothing here touches a file system or a process table,
// so these tests run the same on every platform.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "checks_builders.hpp"
#include "commands/audit_command.hpp"
#include "commands/create_command.hpp"
#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/inspect_command.hpp"
#include "commands/ps_command.hpp"
#include "commands/reap_command.hpp"
#include "commands/root_loop.hpp"
#include "commands/repair_command.hpp"
#include "decide/create.hpp"
#include "model/expected_inode.hpp"
#include "model/json_text.hpp"
#include "test_support.hpp"
#include "report/metrics.hpp"

namespace hsperfguard {
namespace {

using namespace test;
using Existence = ProcessFacts::Existence;

constexpr std::int64_t kNow = 1'800'000'000'000;  // the fake clock (2027-01-15)
constexpr std::int32_t kLivePid = 4242;
constexpr std::int32_t kGonePid = 4343;

class FakeLiveness final : public LivenessSource {
 public:
  FakeLiveness(const std::map<std::int32_t, ProcessFacts>& processes,
               const std::set<std::uint64_t>& locked, std::vector<std::string>& gathered)
      : processes_(processes), locked_(locked), gathered_(gathered) {}

  // As the real gatherer: the lock state of every stat'ed file, the candidate its name denotes.
  void gather(NamespaceFacts& ns, const platform::LivenessScope&) override {
    gathered_.push_back(ns.path);
    for (auto& file : ns.files) {
      if (!file.lstat) continue;
      LivenessFacts facts;
      facts.lock_source = "proc-locks";
      facts.lock_held = locked_.contains(file.lstat->ino);
      if (file.pid_name.pid) facts.candidates.push_back(process(*file.pid_name.pid));
      file.liveness = std::move(facts);
    }
  }
  // As the real gatherer for the host's attach files: the host process of the pid, a
  // complete search (no other pid namespace uses the fake temp dirs).
  void gather(AttachFacts& attach, const platform::LivenessScope&) override {
    attach.liveness.reset();
    if (!attach.pid || !attach.lstat) return;
    attach.liveness.emplace().candidates.push_back(process(*attach.pid));
    attach.liveness->candidates_complete = true;
  }
  const ProcessFacts& process(std::int32_t pid) {
    auto it = processes_.find(pid);
    if (it != processes_.end()) return it->second;
    ProcessFacts gone;
    gone.pid = pid;
    gone.existence = Existence::gone;
    return gone_.emplace(pid, gone).first->second;
  }

 private:
  const std::map<std::int32_t, ProcessFacts>& processes_;
  const std::set<std::uint64_t>& locked_;
  std::vector<std::string>& gathered_;
  std::map<std::int32_t, ProcessFacts> gone_;
};

// `ps`'s liveness: every namespace of a root as the fake gatherer gives it, the lock state
// with it; gather_locks() is only recorded.
class FakeRootLiveness final : public RootLivenessSource {
 public:
  FakeRootLiveness(std::unique_ptr<LivenessSource> each, std::vector<std::string>& calls)
      : each_(std::move(each)), calls_(calls) {}
  void gather(TempRootFacts& root) override {
    for (auto& ns : root.namespaces) each_->gather(ns, platform::liveness_scope_of(root));
  }
  void gather_locks(TempRootFacts& root) override { calls_.push_back("gather_locks " + root.temp_dir); }

 private:
  std::unique_ptr<LivenessSource> each_;
  std::vector<std::string>& calls_;
};

// The users of the fake world, by name.
class FakeUsers final : public platform::UserDatabase {
 public:
  explicit FakeUsers(std::vector<UserFacts> users) : users_(std::move(users)) {}
  std::optional<UserFacts> find_user(std::string_view name) override {
    for (const auto& user : users_) {
      if (user.name == name) return user;
    }
    return std::nullopt;
  }
  std::optional<std::string> find_name(std::uint32_t uid) override {
    for (const auto& user : users_) {
      if (user.uid == uid) return user.name;
    }
    return std::nullopt;
  }
  bool failed() const override { return false; }
  std::optional<ObservationError> error() const override { return std::nullopt; }

 private:
  std::vector<UserFacts> users_;
};

// A world of temp roots (by temp dir; a container's by its root), processes and held locks;
// the clock stands still.
class FakeEnvironment final : public Environment {
 public:
  std::map<std::string, TempRootFacts> roots;
  std::map<std::int32_t, ProcessFacts> processes;
  std::set<std::uint64_t> locked;  // inode numbers whose flock is held
  std::uint32_t euid = 0;
  std::optional<ContainerScan> scan;  // containers discovery finds (as root, by default)
  AccountTempDirs accounts;           // other accounts' temp dirs (Windows') discovery finds
  std::vector<ObservationError> process_errors;  // what reading the processes met
  // Roots whose observation costs until their run limits are reached (a fake container's
  // huge passwd): then stopped, as observation stops, before their first namespace. `costly`
  // at every turn, `costly_once` at the first only (its passwd parsed by then).
  std::set<std::string> costly;
  std::set<std::string> costly_once;
  // What the commands asked.
  std::vector<std::string> calls;  // "observe ROOT" and "execute FIRST-ITEM", in order
  std::map<std::string, std::optional<std::chrono::steady_clock::time_point>> deadlines;  // first turn
  std::vector<std::string> observed;      // temp dirs (a container's: its root)
  std::vector<std::string> gathered;      // namespaces whose liveness was gathered
  std::vector<std::string> regions_read;  // files whose regions were read
  std::vector<std::size_t> attach_parts;  // the sizes of the attach parts handed over
  std::optional<Plan> executed;
  std::optional<RepairPlan> repaired;
  std::optional<platform::NamespaceRequest> namespace_made;
  std::optional<platform::BackingFileRequest> backing_file_made;
  // The users, and the backing files by path (what inspect reads; a process maps the file of
  // its pid in `mapped`).
  std::vector<UserFacts> users_known{UserFacts{"alice", kAliceUid, kAliceUid, std::nullopt}};
  std::map<std::string, std::vector<std::byte>> files;
  std::map<std::int32_t, std::string> mapped;
  // A process in another mount namespace: the file `mapped` names, as this host reaches it
  // (what `files` holds).
  std::map<std::int32_t, std::string> mapped_host;
  // How acting goes.
  ReapOutcome reap_outcome = ReapOutcome::removed;
  bool interrupt_execution = false;
  RepairOutcome repair_outcome = RepairOutcome::fixed;

  std::int64_t now_epoch_ms() override { return kNow; }
  HostInfo host() override { return HostInfo{"fake-host", "linux", "6.0", euid}; }
  std::string default_temp_dir() override { return "/tmp"; }
  bool stdout_is_terminal() override { return false; }
  std::optional<std::size_t> stdout_terminal_columns() override { return std::nullopt; }
  std::size_t page_size() override { return 4096; }
  std::unique_ptr<platform::UserDatabase> users(const std::optional<std::string>&) override {
    return std::make_unique<FakeUsers>(users_known);
  }

  std::vector<RootSpec> discover(const DiscoverOptions& options, std::vector<ObservationError>*,
                                 const RunLimits&) override {
    return discover_roots(options, scan ? &*scan : nullptr);
  }
  AccountTempDirs account_temp_dirs(const std::string&, const std::vector<JvmProcessFacts>&) override {
    return accounts;
  }
  TempRootFacts observe_temp_root(const RootSpec& spec, const platform::ObserveOptions& options,
                                  const platform::NamespaceConsumer& consume,
                                  const platform::NamespaceStage& stage) override {
    const std::string key = spec.kind == RootKind::container ? spec.root : spec.temp_dir;
    observed.push_back(key);
    calls.push_back("observe " + key);
    deadlines.emplace(key, options.limits.deadline);  // of its first turn
    auto it = roots.find(key);
    if (it != roots.end() && (costly.contains(key) || costly_once.erase(key) > 0)) {
      TempRootFacts shell = it->second;
      shell.namespaces.clear();
      while (options.limits.reached() == nullptr) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      shell.stopped = options.limits.reached();
      shell.errors.push_back(ObservationError{key + "/tmp", "observe", 4,
                                              "stopped (" + *shell.stopped + ") after 0 namespaces"});
      return shell;
    }
    if (it == roots.end()) {
      TempRootFacts missing;
      missing.kind = spec.kind;
      missing.temp_dir = spec.temp_dir;
      missing.errors.push_back(
          ObservationError{spec.temp_dir, "openat", 2, "No such file or directory"});
      return missing;
    }
    TempRootFacts shell = it->second;
    if (!options.attach_files) shell.attach_files.clear();  // observe_attach_files hands them
    std::vector<NamespaceFacts> namespaces = std::move(shell.namespaces);
    shell.namespaces.clear();
    for (std::size_t n = 0; n < namespaces.size(); ++n) {
      NamespaceFacts& ns = namespaces[n];
      // What observation without regions leaves (the reaper's: max_region_bytes 0).
      if (options.max_region_bytes == 0) {
        for (auto& file : ns.files) file.region.reset();
      }
      if (stage) stage(shell, n, ns);
      consume(shell, std::move(ns));
    }
    return shell;
  }
  void read_regions(const TempRootFacts&, std::span<NamespaceFacts> namespaces,
                    const std::function<bool(const FileFacts&)>& wanted, std::size_t,
                    std::vector<ObservationError>&) override {
    for (auto& ns : namespaces) {
      for (auto& file : ns.files) {
        if (!wanted(file)) continue;
        regions_read.push_back(file.path);
        file.region = valid_region();
      }
    }
  }
  // The attach files of a temp root, in parts, as platform::observe_attach_files hands them
  // to a caller that observed the root without them.
  std::size_t observe_attach_files(const RootSpec& spec, const TempRootFacts&, std::size_t per_part,
                                   const RunLimits& limits, const platform::AttachConsumer& consume,
                                   std::vector<ObservationError>& errors) override {
    auto it = roots.find(spec.temp_dir);
    if (it == roots.end()) return 0;
    const std::vector<AttachFacts>& all = it->second.attach_files;
    std::size_t handed = 0;
    while (handed < all.size()) {
      if (const char* why = limits.reached()) {
        errors.push_back(ObservationError{spec.temp_dir, "observe", 4, std::string("stopped (") + why + ")"});
        break;
      }
      const std::size_t n = std::min(per_part == 0 ? all.size() : per_part, all.size() - handed);
      attach_parts.push_back(n);
      consume(std::vector<AttachFacts>(all.begin() + static_cast<std::ptrdiff_t>(handed),
                                       all.begin() + static_cast<std::ptrdiff_t>(handed + n)));
      handed += n;
    }
    return handed;
  }
  std::vector<JvmProcessFacts> observe_jvm_processes(std::vector<ObservationError>& errors,
                                                     const RunLimits&,
                                                     std::vector<ObservationError>*) override {
    errors.insert(errors.end(), process_errors.begin(), process_errors.end());
    return {};
  }
  std::unique_ptr<LivenessSource> liveness(const RunLimits&) override {
    return std::make_unique<FakeLiveness>(processes, locked, gathered);
  }

  platform::HostProcesses scan_host_processes(const ContainerScanOptions&,
                                              std::vector<ObservationError>& errors) override {
    calls.push_back("scan_host_processes");
    errors.insert(errors.end(), process_errors.begin(), process_errors.end());
    platform::HostProcesses found;
    if (scan) found.containers = *scan;
    return found;
  }
  std::unique_ptr<RootLivenessSource> ps_liveness(const std::vector<JvmProcessFacts>&,
                                                  const ContainerScan&) override {
    return std::make_unique<FakeRootLiveness>(liveness(RunLimits{}), calls);
  }
  ProcessFacts observe_process(std::int32_t pid) override {
    auto it = processes.find(pid);
    return it != processes.end() ? it->second : process(pid, Existence::gone);
  }
  std::optional<std::string> process_name(std::int32_t) override { return "java"; }
  // A file of `files`, stat'ed as alice's 0600 regular file.
  platform::FileRead read_backing_file(const std::string& path, std::size_t max_bytes) override {
    calls.push_back("read " + path);
    platform::FileRead read;
    auto it = files.find(path);
    if (it == files.end()) {
      read.error = ObservationError{path, "openat", 2, "No such file or directory"};
      return read;
    }
    read.stat = inode(FileKind::regular, 0600, kAliceUid, 300, it->second.size());
    read.bytes.assign(it->second.begin(),
                      it->second.begin() + static_cast<std::ptrdiff_t>(std::min(max_bytes, it->second.size())));
    return read;
  }
  std::optional<platform::MappedBackingFile> read_mapped_backing_file(std::int32_t pid,
                                                                      std::size_t max_bytes) override {
    auto it = mapped.find(pid);
    if (it == mapped.end()) return std::nullopt;
    platform::MappedBackingFile file;
    file.path = it->second;
    file.through = "/proc/" + std::to_string(pid) + "/map_files/7f00-7f08";
    if (auto host = mapped_host.find(pid); host != mapped_host.end()) file.host_path = host->second;
    file.read = read_backing_file(file.host_path.value_or(it->second), max_bytes);
    return file;
  }
  std::vector<BackingFileCandidate> find_backing_files(const std::string&, std::int32_t) override {
    return {};
  }

  ExecutionResult execute_plan(const Plan& plan, const platform::ExecuteOptions& options) override {
    executed = plan;
    calls.push_back("execute " + std::to_string(options.first_item));
    ExecutionResult result;
    for (std::size_t i = options.first_item; i < plan.items.size(); ++i) {
      if (plan.items[i].action != ReapAction::remove) continue;
      ReapActionRecord record;
      record.item = i;
      record.at_ms = kNow;
      if (interrupt_execution) {
        record.outcome = ReapOutcome::not_attempted;
        record.detail = "interrupted";
        result.interrupted = true;
      } else {
        if (options.before_unlink && !options.before_unlink(plan.items[i])) break;
        record.outcome = reap_outcome;
        record.detail = reap_outcome == ReapOutcome::removed ? "unlinked" : "unlinkat";
        if (reap_outcome == ReapOutcome::failed) {
          record.error =
              ObservationError{plan.items[i].path, "unlinkat", 30, "Read-only file system"};
        }
      }
      if (options.on_action) options.on_action(plan.items[i], record);
      result.actions.push_back(std::move(record));
    }
    return result;
  }
  std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan) override {
    repaired = plan;
    std::vector<RepairOutcomeRecord> records;
    for (std::size_t t = 0; t < plan.targets.size(); ++t) {
      RepairOutcomeRecord record;
      record.target = t;
      record.outcome = repair_outcome;
      if (repair_outcome != RepairOutcome::fixed) record.detail = "fchmod";
      records.push_back(std::move(record));
    }
    return records;
  }
  // Makes alice's namespace in the fake /tmp, as HotSpot would.
  platform::CreateResult make_namespace(const platform::NamespaceRequest& request) override {
    namespace_made = request;
    calls.push_back("make_namespace " + request.name);
    const NamespaceFacts ns = namespace_of();
    roots.at("/tmp").namespaces.push_back(ns);
    platform::CreateResult made;
    made.created = true;
    made.made = expected_from(*ns.opened);
    return made;
  }
  platform::CreateResult make_backing_file(const platform::BackingFileRequest& request) override {
    backing_file_made = request;
    calls.push_back("make_backing_file " + request.name);
    platform::CreateResult made;
    made.created = true;
    made.made = expected_from(inode(FileKind::regular, 0600, request.uid, 300, request.content.size()));
    return made;
  }
};

// /tmp with alice's namespace: a JVM's live file (its process alive, its lock held) and the
// file of a JVM that is gone; both old.
FakeEnvironment alice_world() {
  FakeEnvironment env;
  TempRootFacts root = temp_root();
  root.kind = RootKind::tmpdir;
  NamespaceFacts ns = namespace_of();
  FileFacts live = backing_file(ns, std::to_string(kLivePid));
  FileFacts stale = backing_file(ns, std::to_string(kGonePid));
  stale.lstat->ino = stale.opened->ino = 301;
  ns.files = {live, stale};
  root.namespaces.push_back(std::move(ns));
  env.roots.emplace("/tmp", std::move(root));
  ProcessFacts jvm = process(kLivePid, Existence::alive);
  jvm.start_time_ms = 0;
  jvm.maps_backing_file = true;
  env.processes.emplace(kLivePid, jvm);
  env.locked.insert(300);
  return env;
}

NamespaceFacts& alice_namespace(FakeEnvironment& env) {
  return env.roots.at("/tmp").namespaces.at(0);
}

struct Ran {
  int exit = -1;
  std::string out, err;
  nlohmann::json json() const { return nlohmann::json::parse(out); }
};

Ran audit(FakeEnvironment& env, AuditCommandOptions options = {}) {
  options.tmpdir = "/tmp";
  options.format = ReportFormat::json;
  std::ostringstream out, err;
  Ran ran;
  ran.exit = run_audit_command(options, out, err, env);
  ran.out = out.str();
  ran.err = err.str();
  return ran;
}

Ran reap(FakeEnvironment& env, bool dry_run) {
  ReapCommandOptions options;
  options.tmpdir = "/tmp";
  options.format = ReportFormat::json;
  options.dry_run = dry_run;
  options.lock_file.reset();  // --no-lock: a lock file is the command's own, not the world's
  std::ostringstream out, err;
  Ran ran;
  ran.exit = run_reap_command(options, out, err, env);
  ran.out = out.str();
  ran.err = err.str();
  return ran;
}

Ran repair(FakeEnvironment& env, bool dry_run) {
  RepairCommandOptions options;
  options.tmpdir = "/tmp";
  options.dry_run = dry_run;
  std::ostringstream out, err;
  Ran ran;
  ran.exit = run_repair_command(options, out, err, env);
  ran.out = out.str();
  ran.err = err.str();
  return ran;
}

// The report's file entry named `name`.
const nlohmann::json* report_file(const nlohmann::json& report, const std::string& name) {
  for (const auto& ns : report.at("namespaces")) {
    for (const auto& file : ns.at("files")) {
      if (file.value("name", "") == name) return &file;
    }
  }
  return nullptr;
}

// Every finding's rule, wherever in the report it is (temp dirs, namespaces, files).
void collect_rules(const nlohmann::json& j, std::set<std::string>& rules) {
  if (j.is_object()) {
    if (auto it = j.find("findings"); it != j.end() && it->is_array()) {
      for (const auto& f : *it) rules.insert(f.at("rule").get<std::string>());
    }
    for (const auto& [key, value] : j.items()) {
      if (key != "findings") collect_rules(value, rules);
    }
  } else if (j.is_array()) {
    for (const auto& value : j) collect_rules(value, rules);
  }
}

std::set<std::string> finding_rules(const nlohmann::json& report) {
  std::set<std::string> rules;
  collect_rules(report, rules);
  return rules;
}

// ---- audit -----------------------------------------------------------------------------------

TEST(CommandSeam, AuditJudgesTheWorldTheEnvironmentShows) {
  FakeEnvironment env = alice_world();
  const Ran ran = audit(env);
  ASSERT_EQ(ran.exit, kExitOk) << ran.err << ran.out;
  EXPECT_EQ(env.observed, std::vector<std::string>{"/tmp"});
  EXPECT_EQ(env.gathered, std::vector<std::string>{"/tmp/hsperfdata_alice"});
  const auto report = ran.json();
  EXPECT_EQ(report.at("host").at("name"), "fake-host");
  EXPECT_EQ(report.at("started_at"), format_utc_millis(kNow));
  EXPECT_EQ(report.at("finished_at"), format_utc_millis(kNow));
  // The liveness the fake gathered decided each file.
  const auto* live = report_file(report, std::to_string(kLivePid));
  const auto* stale = report_file(report, std::to_string(kGonePid));
  ASSERT_NE(live, nullptr);
  ASSERT_NE(stale, nullptr);
  EXPECT_EQ(live->at("verdict").at("verdict"), "live") << live->dump(2);
  EXPECT_EQ(live->at("verdict").at("reason"), "lock-held");
  EXPECT_EQ(stale->at("verdict").at("verdict"), "stale") << stale->dump(2);
  EXPECT_EQ(stale->at("verdict").at("reason"), "process-gone");
  EXPECT_EQ(finding_rules(report), std::set<std::string>{"file.stale"}) << ran.out;
}

TEST(CommandSeam, AuditExitsOneOnAFindingAtFailOn) {
  FakeEnvironment env = alice_world();
  alice_namespace(env).lstat->mode = alice_namespace(env).opened->mode = 0777;
  const Ran ran = audit(env);
  EXPECT_EQ(ran.exit, kExitFindings) << ran.err;
  EXPECT_TRUE(finding_rules(ran.json()).contains("namespace.group-other-writable")) << ran.out;

  AuditCommandOptions lenient;
  lenient.fail_on = Severity::critical;
  const Ran tolerated = audit(env, lenient);
  EXPECT_EQ(tolerated.exit, kExitOk) << tolerated.err;
}

TEST(CommandSeam, AuditOfATempDirThatCannotBeOpenedIsIncomplete) {
  FakeEnvironment env;  // no /tmp at all
  const Ran ran = audit(env);
  EXPECT_EQ(ran.exit, kExitIncomplete);
  EXPECT_NE(ran.err.find("/tmp: openat"), std::string::npos) << ran.err;
  EXPECT_FALSE(ran.json().at("complete").get<bool>());
}

// One run, stated four ways: the text's summary, the JSON summary, the metrics file and the
// exit status must tell the same counts, the same completeness and the same exit, for a clean,
// a failing and an incomplete run.
TEST(CommandSeam, AuditStatesTheSameCountsCompletenessAndExitInTextJsonMetricsAndItsStatus) {
  FakeEnvironment clean = alice_world();
  FakeEnvironment failing = alice_world();
  alice_namespace(failing).lstat->mode = alice_namespace(failing).opened->mode = 0777;
  FakeEnvironment unopened;  // no /tmp at all
  const std::string metrics_file = ::testing::TempDir() + "/stated-twice.prom";
  for (FakeEnvironment* env : {&clean, &failing, &unopened}) {
    const Ran json_run = audit(*env);
    AuditCommandOptions options;
    options.tmpdir = "/tmp";
    options.format = ReportFormat::text;
    options.metrics = metrics_file;
    std::ostringstream out, err;
    const int text_exit = run_audit_command(options, out, err, *env);
    const std::string text = out.str();
    const nlohmann::json doc = json_run.json();
    const nlohmann::json& summary = doc.at("summary");
    std::ifstream in(metrics_file);
    const std::string metrics((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const MetricSamples samples = parse_metric_samples(metrics);
    double metric_findings = 0, metric_namespaces = 0;
    for (const auto& [series, value] : samples) {
      if (series.starts_with("hsperfguard_audit_findings{")) metric_findings += value;
      if (series.starts_with("hsperfguard_audit_namespaces{")) metric_namespaces += value;
    }
    const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
    SCOPED_TRACE(text);

    EXPECT_EQ(text_exit, json_run.exit);
    EXPECT_NE(last.find("(exit " + std::to_string(text_exit) + ")"), std::string::npos) << last;
    const bool complete = doc.at("complete").get<bool>();
    EXPECT_EQ(complete, text_exit != kExitIncomplete);
    EXPECT_EQ(complete, last.find("INCOMPLETE") == std::string::npos) << last;
    EXPECT_EQ(samples.at("hsperfguard_audit_last_run_success"), complete ? 1 : 0);

    const std::size_t findings = summary.at("findings");
    EXPECT_NE(text.find("  findings  " + std::to_string(findings) + " finding(s)"), std::string::npos);
    EXPECT_EQ(metric_findings, static_cast<double>(findings));
    const std::size_t namespaces = summary.at("namespaces"), files = summary.at("files");
    EXPECT_TRUE(last.starts_with(std::to_string(namespaces) + " namespace(s), " + std::to_string(files) + " file(s),"))
        << last;
    EXPECT_EQ(metric_namespaces, static_cast<double>(namespaces));
  }
  std::remove(metrics_file.c_str());
}

// --containers-only: as root only; our own temp dir is not looked at, and a run that finds no
// other mount namespace audited nothing: incomplete, and it says why.
TEST(CommandSeam, AuditContainersOnlyNeedsRootAndFindingNothingIsIncomplete) {
  FakeEnvironment env = alice_world();
  AuditCommandOptions options;
  options.format = ReportFormat::json;
  options.containers_only = true;
  env.euid = 1000;
  std::ostringstream out, err;
  EXPECT_EQ(run_audit_command(options, out, err, env), kExitUsage);
  EXPECT_NE(err.str().find("needs root"), std::string::npos) << err.str();

  env.euid = 0;
  env.scan = ContainerScan{};
  std::ostringstream out2, err2;
  EXPECT_EQ(run_audit_command(options, out2, err2, env), kExitIncomplete);
  EXPECT_TRUE(env.observed.empty());
  const auto report = nlohmann::json::parse(out2.str());
  EXPECT_TRUE(report.at("roots").empty());
  EXPECT_FALSE(report.at("complete").get<bool>());
  EXPECT_NE(err2.str().find("no temp dir of another mount namespace"), std::string::npos) << err2.str();
}

// --every (the node image's schedule): each run is a whole audit, the wait is measured from the
// run's start, a stop between two runs ends the loop with 0, a stop during a run with that run's
// status (3), and a usage error at once, without waiting.
TEST(CommandSeam, AuditEveryRunsAgainFromEachRunsStartUntilAStop) {
  FakeEnvironment env = alice_world();
  AuditCommandOptions options;
  options.tmpdir = "/tmp";
  options.format = ReportFormat::json;
  options.every_ms = 60'000;
  std::vector<std::chrono::milliseconds> waits;
  std::ostringstream out, err;
  const int stopped_between = run_audit_every(
      options, out, err, env, [&](std::chrono::milliseconds d, const std::atomic<bool>& stop) {
        EXPECT_FALSE(stop.load());
        waits.push_back(d);
        return waits.size() < 3;
      });
  EXPECT_EQ(stopped_between, kExitOk) << err.str();
  EXPECT_EQ(env.observed, std::vector<std::string>(3, "/tmp"));
  ASSERT_EQ(waits.size(), 3u);
  for (const auto d : waits) {
    EXPECT_LE(d, std::chrono::milliseconds(60'000));
    EXPECT_GT(d, std::chrono::milliseconds(50'000));  // the fake run takes well under 10 s
  }
  // Three reports, one a run.
  std::size_t reports = 0;
  for (std::size_t at = 0; (at = out.str().find("hsperfguard-report/3", at)) != std::string::npos; ++at) ++reports;
  EXPECT_EQ(reports, 3u) << out.str().substr(0, 400);

  // A stop asked while waiting lands in the next run: that run stops, and so does the loop.
  FakeEnvironment again = alice_world();
  int waited = 0;
  const int stopped_during = run_audit_every(
      options, out, err, again, [&](std::chrono::milliseconds, const std::atomic<bool>&) {
        ++waited;
        EXPECT_EQ(std::raise(SIGTERM), 0);
        return true;
      });
  EXPECT_EQ(stopped_during, kExitIncomplete);
  EXPECT_EQ(waited, 1);

  // A policy that cannot be read is a usage error now and at every later run: no wait.
  options.policy_file = "/nonexistent/policy.json";
  waited = 0;
  const int usage = run_audit_every(options, out, err, env,
                                    [&](std::chrono::milliseconds, const std::atomic<bool>&) {
                                      ++waited;
                                      return true;
                                    });
  EXPECT_EQ(usage, kExitUsage);
  EXPECT_EQ(waited, 0);
}

// A stop ends the real wait early; without one it waits the whole time.
TEST(CommandSeam, AuditEveryWaitEndsOnAStop) {
  std::atomic<bool> stop{false};
  const auto began = std::chrono::steady_clock::now();
  EXPECT_TRUE(wait_unless_stopped(std::chrono::milliseconds(300), stop));
  EXPECT_GE(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(300));
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.store(true);
  });
  const auto second = std::chrono::steady_clock::now();
  EXPECT_FALSE(wait_unless_stopped(std::chrono::hours(1), stop));
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - second, std::chrono::seconds(5));
}

// The attach files come apart from the namespaces, a part at a time: judged, counted and
// listed after every namespace, in the JSON report and in the text one.
TEST(CommandSeam, AuditJudgesAttachFilesAPartAtATime) {
  FakeEnvironment env = alice_world();
  AttachFacts unsafe = listener(kGonePid);
  unsafe.lstat->mode = 0777;
  env.roots.at("/tmp").attach_files = {listener(kLivePid), unsafe, trigger_file(kGonePid)};
  const Ran ran = audit(env);
  EXPECT_EQ(env.attach_parts, std::vector<std::size_t>{3}) << "one part of the root's three";
  const auto report = ran.json();
  ASSERT_EQ(report.at("attach").size(), 3u) << ran.out;
  EXPECT_EQ(report.at("attach")[1].at("findings").at(0).at("rule"), "attach.socket-unsafe");
  EXPECT_EQ(report.at("summary").at("by_rule").value("attach.socket-unsafe", 0), 1) << ran.out;

  AuditCommandOptions text;
  text.format = ReportFormat::text;
  text.tmpdir = "/tmp";
  std::ostringstream out, err;
  run_audit_command(text, out, err, env);
  const std::string lines = out.str();
  // Its finding names it, among the temp dir's findings.
  EXPECT_NE(lines.find("] attach.socket-unsafe /tmp/.java_pid" + std::to_string(kGonePid) + ": "), std::string::npos)
      << lines;
  EXPECT_EQ(lines.find("/tmp/.java_pid" + std::to_string(kLivePid)), std::string::npos)
      << "an attach file without findings is not shown in text";
}

// --quiet prints each finding at or above --fail-on, an attach file's among them (they are
// judged apart from the temp dir, a part at a time).
TEST(CommandSeam, QuietAuditPrintsAttachFileFindings) {
  FakeEnvironment env = alice_world();
  AttachFacts unsafe = listener(kGonePid);
  unsafe.lstat->mode = 0777;
  env.roots.at("/tmp").attach_files = {listener(kLivePid), unsafe};
  AuditCommandOptions options;
  options.tmpdir = "/tmp";
  options.quiet = true;
  options.fail_on = Severity::info;
  std::ostringstream out, err;
  run_audit_command(options, out, err, env);
  const std::string printed = out.str();
  const auto line = printed.find(" attach.socket-unsafe /tmp/.java_pid" + std::to_string(kGonePid) + ": ");
  EXPECT_NE(line, std::string::npos) << printed;
  EXPECT_EQ(printed.find(".java_pid" + std::to_string(kLivePid)), std::string::npos) << printed;
}

// The host's /tmp (alice's, one stale file) and three containers found by discovery: the
// first costs whatever time it is given (a fake container with a huge passwd), the second has
// a stale file of its own, the third nothing. --max-runtime 900ms.
FakeEnvironment host_and_containers_world() {
  FakeEnvironment env = alice_world();
  ContainerScan scan;
  scan.host_temp_dir = DirIdentity{1, 100};
  for (std::int32_t pid : {11, 12, 13}) {
    ProcessTempDir dir;
    dir.host_pid = pid;
    dir.mount_namespace = "mnt:[" + std::to_string(4026530000 + pid) + "]";
    dir.temp_dir = DirIdentity{static_cast<std::uint64_t>(pid), 100};
    scan.temp_dirs.push_back(dir);
    TempRootFacts root = temp_root();
    root.kind = RootKind::container;
    root.root = "/proc/" + std::to_string(pid) + "/root";
    root.container = ContainerFacts{};
    root.container->host_pid = pid;
    root.container->mount_namespace = dir.mount_namespace;
    root.container->uid_map = std::vector<procfs::UidRange>{{0, 4294967295u}};  // no user namespace
    if (pid == 12) {
      NamespaceFacts ns = namespace_of("bob", 1001);
      FileFacts stale = backing_file(ns, "77");
      stale.lstat->ino = stale.opened->ino = 777;
      ns.files = {stale};
      root.namespaces.push_back(std::move(ns));
    }
    env.roots.emplace(root.root, std::move(root));
  }
  env.scan = scan;
  env.costly.insert("/proc/11/root");
  return env;
}

// A container that costs whatever time it is given takes its share of --max-runtime and no
// more: the host's temp dir has the run's own limits and comes first, each container gets an
// equal share of what is left, the others are audited whole, the costly one has a second turn
// with what is left and is named as cut off, and the run says it is incomplete.
TEST(CommandSeam, AuditGivesEachContainerAShareOfMaxRuntimeAndNamesTheOneCutOff) {
  FakeEnvironment env = host_and_containers_world();
  AuditCommandOptions options;
  options.format = ReportFormat::json;
  options.max_runtime_ms = 900;
  std::ostringstream out, err;
  const auto started = std::chrono::steady_clock::now();
  const int exit = run_audit_command(options, out, err, env);
  EXPECT_EQ(exit, kExitIncomplete) << err.str();
  EXPECT_EQ(env.observed, (std::vector<std::string>{"/tmp", "/proc/11/root", "/proc/12/root",
                                                     "/proc/13/root", "/proc/11/root"}));
  ASSERT_TRUE(env.deadlines.at("/tmp").has_value());
  const auto run_deadline = *env.deadlines.at("/tmp");
  EXPECT_GE(run_deadline - started, std::chrono::milliseconds(900));
  // A third of what was left of the run's time (900 ms less what the host's took), not all
  // of it: two thirds of it or more stay for the others.
  ASSERT_TRUE(env.deadlines.at("/proc/11/root").has_value());
  EXPECT_GE(run_deadline - *env.deadlines.at("/proc/11/root"), std::chrono::milliseconds(400));
  const auto report = nlohmann::json::parse(out.str());
  EXPECT_FALSE(report.at("complete").get<bool>());
  EXPECT_EQ(report.at("stopped"), "deadline");
  ASSERT_EQ(report.at("roots").size(), 4U) << out.str();
  std::vector<std::string> order;
  for (const auto& root : report.at("roots")) order.push_back(root.at("root"));
  EXPECT_EQ(order, (std::vector<std::string>{"/", "/proc/12/root", "/proc/13/root", "/proc/11/root"}));
  EXPECT_TRUE(report.at("roots")[0].at("stopped").is_null());
  EXPECT_TRUE(report.at("roots")[1].at("stopped").is_null());
  EXPECT_TRUE(report.at("roots")[2].at("stopped").is_null());
  EXPECT_EQ(report.at("roots")[3].at("stopped"), "deadline");
  std::set<std::string> paths;
  for (const auto& ns : report.at("namespaces")) paths.insert(ns.at("path").get<std::string>());
  EXPECT_TRUE(paths.contains("/tmp/hsperfdata_bob")) << "the container after the costly one was audited";
}

// ---- the order and limits of temp roots --------------------------------------------------------

// The first temp root has the run's limits; each further one an equal share of what is left
// among those still to look at; one cut off before anything of it was seen comes again at the
// end with what is then left, and counts until then; a stop ends the schedule.
// ---- completeness: what a run could not look at --------------------------------------------

// alice's world seen by alice (not root), with bob's namespace she could not open (0700, his).
FakeEnvironment world_with_unreadable_namespace() {
  FakeEnvironment env = alice_world();
  NamespaceFacts bob = namespace_of("bob", 1001);
  bob.errors.push_back(ObservationError{bob.path, "openat", EACCES, "Permission denied"});
  env.roots.at("/tmp").namespaces.push_back(std::move(bob));
  env.users_known.push_back(UserFacts{"bob", 1001, 1001, std::nullopt});
  env.euid = kAliceUid;
  return env;
}

// The run in `options` as is (no --tmpdir added), its report in `format`.
Ran audit_as_given(FakeEnvironment& env, AuditCommandOptions options, ReportFormat format) {
  options.format = format;
  std::ostringstream out, err;
  Ran ran;
  ran.exit = run_audit_command(options, out, err, env);
  ran.out = out.str();
  ran.err = err.str();
  return ran;
}

std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return {};
  const std::size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

std::vector<std::string> report_namespaces(const nlohmann::json& report) {
  std::vector<std::string> paths;
  for (const auto& ns : report.at("namespaces")) paths.push_back(ns.at("path").get<std::string>());
  return paths;
}

// A namespace the run could not open was clean and complete (exit 0) before: now the run is
// incomplete (exit 3), the JSON says what was not looked at, and the text's last line says
// what and why in one line.
TEST(CommandSeam, AuditThatCouldNotOpenANamespaceIsIncompleteAndSaysWhyInOneLine) {
  FakeEnvironment env = world_with_unreadable_namespace();
  const Ran ran = audit(env);
  EXPECT_EQ(ran.exit, kExitIncomplete) << ran.err << ran.out;
  const auto report = ran.json();
  EXPECT_FALSE(report.at("complete").get<bool>());
  EXPECT_EQ(report.at("not_looked_at"),
            nlohmann::json::parse(R"({"temp_dirs": 0, "namespaces": 1, "entries": 0, "users": 0,
                                      "processes": 0, "containers_not_scanned": false})"));
  EXPECT_TRUE(report.at("scope").at("user").is_null());

  AuditCommandOptions options;
  options.tmpdir = "/tmp";
  const Ran text = audit_as_given(env, options, ReportFormat::text);
  EXPECT_EQ(text.exit, kExitIncomplete);
  EXPECT_EQ(last_line(text.out),
            "2 namespace(s), 2 file(s), 0 attach file(s) in 1 temp dir, 0 JVM process(es) looked at; "
            "INCOMPLETE: not root: 1 namespace unreadable: run as root, or --user NAME for your own "
            "namespaces only (exit 3)")
      << text.out;
}

// An entry the run could not read makes it incomplete; one gone since it was listed does not
// (nothing was left to look at).
TEST(CommandSeam, AuditOfAnUnreadableEntryIsIncompleteAndOfAVanishedOneIsNot) {
  FakeEnvironment env = alice_world();
  FileFacts& stale = alice_namespace(env).files.at(1);
  stale.errors.push_back(ObservationError{stale.path, "statx", ENOENT, "No such file or directory"});
  const Ran vanished = audit(env);
  EXPECT_EQ(vanished.exit, kExitOk) << vanished.err;
  EXPECT_TRUE(vanished.json().at("complete").get<bool>());

  alice_namespace(env).files.at(1).errors.front() =
      ObservationError{stale.path, "openat", EIO, "Input/output error"};
  const Ran unreadable = audit(env);
  EXPECT_EQ(unreadable.exit, kExitIncomplete) << unreadable.err;
  EXPECT_EQ(unreadable.json().at("not_looked_at").at("entries"), 1);
  AuditCommandOptions options;
  options.tmpdir = "/tmp";
  // As root: nothing to advise about privilege, the line says what only.
  EXPECT_NE(last_line(audit_as_given(env, options, ReportFormat::text).out)
                .find("; INCOMPLETE: 1 entry unreadable (exit 3)"),
            std::string::npos);
}

// namespace.user-lookup-failed: the user database could not be read, so whose namespace it is
// was not judged: the run is incomplete and says so.
TEST(CommandSeam, AuditWhoseUserLookupFailedIsIncomplete) {
  FakeEnvironment env = alice_world();
  alice_namespace(env).user.reset();
  alice_namespace(env).user_lookup_failed = true;
  env.roots.at("/tmp").errors.push_back(ObservationError{"/etc/passwd", "read", EIO, "Input/output error"});
  const Ran ran = audit(env);
  EXPECT_EQ(ran.exit, kExitIncomplete) << ran.err;
  EXPECT_TRUE(finding_rules(ran.json()).contains("namespace.user-lookup-failed")) << ran.out;
  EXPECT_EQ(ran.json().at("not_looked_at").at("users"), 1);
  AuditCommandOptions options;
  options.tmpdir = "/tmp";
  EXPECT_NE(last_line(audit_as_given(env, options, ReportFormat::text).out)
                .find("; INCOMPLETE: 1 temp dir not read whole, the users of 1 namespace not looked up (exit 3)"),
            std::string::npos)
      << audit_as_given(env, options, ReportFormat::text).out;
}

// Not root, the default run cannot scan containers: that was silent and complete; now it is
// what the run did not look at. --user scopes the run to one user's namespaces: the others,
// and the containers, are out of scope, and the run is complete when all of hers were read.
TEST(CommandSeam, AuditNotRootSaysContainersWereNotScannedAndUserScopesTheRun) {
  FakeEnvironment env = world_with_unreadable_namespace();
  const Ran everything = audit_as_given(env, AuditCommandOptions{}, ReportFormat::json);
  EXPECT_EQ(everything.exit, kExitIncomplete) << everything.err;
  EXPECT_TRUE(everything.json().at("not_looked_at").at("containers_not_scanned").get<bool>());
  EXPECT_NE(last_line(audit_as_given(env, AuditCommandOptions{}, ReportFormat::text).out)
                .find("; INCOMPLETE: not root: 1 namespace unreadable, containers not scanned: run as root, "
                      "or --user NAME for your own namespaces only (exit 3)"),
            std::string::npos);

  AuditCommandOptions mine;
  mine.user = "alice";
  const Ran scoped = audit_as_given(env, mine, ReportFormat::json);
  EXPECT_EQ(scoped.exit, kExitOk) << scoped.err << scoped.out;
  const auto report = scoped.json();
  EXPECT_TRUE(report.at("complete").get<bool>());
  EXPECT_EQ(report.at("scope").at("user"), "alice");
  EXPECT_FALSE(report.at("not_looked_at").at("containers_not_scanned").get<bool>());
  EXPECT_EQ(report_namespaces(report), std::vector<std::string>{"/tmp/hsperfdata_alice"});
  EXPECT_EQ(report.at("summary").at("namespaces"), 1);
  const Ran scoped_text = audit_as_given(env, mine, ReportFormat::text);
  EXPECT_EQ(last_line(scoped_text.out).substr(0, 42), "1 namespace(s) of user alice, 2 file(s), 0") << scoped_text.out;

  // Scoped to bob, whose namespace alice cannot open: incomplete, and no advice to scope it.
  mine.user = "bob";
  const Ran bobs = audit_as_given(env, mine, ReportFormat::text);
  EXPECT_EQ(bobs.exit, kExitIncomplete);
  EXPECT_NE(last_line(bobs.out).find("; INCOMPLETE: not root: 1 namespace unreadable: run as root (exit 3)"),
            std::string::npos)
      << bobs.out;
}

// The reaper never acts on doubt: a namespace it could not open is not planned, and the run
// does not claim to be complete (it was exit 0 and "complete": true).
TEST(CommandSeam, ReapThatCouldNotOpenANamespaceIsIncompleteAndPlansNothingThere) {
  FakeEnvironment env = world_with_unreadable_namespace();
  const Ran ran = reap(env, false);
  EXPECT_EQ(ran.exit, kExitIncomplete) << ran.err << ran.out;
  const auto report = ran.json();
  EXPECT_FALSE(report.at("complete").get<bool>());
  EXPECT_EQ(report.at("not_looked_at").at("namespaces"), 1);
  ASSERT_TRUE(env.executed.has_value());
  for (const auto& item : env.executed->items) {
    EXPECT_EQ(item.path.find("/tmp/hsperfdata_bob"), std::string::npos) << item.path;
  }

  ReapCommandOptions options;
  options.tmpdir = "/tmp";
  options.dry_run = true;
  options.lock_file.reset();
  std::ostringstream out, err;
  EXPECT_EQ(run_reap_command(options, out, err, env), kExitIncomplete);
  EXPECT_NE(out.str().find("\nexit 3: INCOMPLETE: not root: 1 namespace unreadable: run as root, or --user NAME for "
                           "your own namespaces only\n"),
            std::string::npos)
      << out.str();

  // Scoped to alice's namespaces: complete, and the scope is in the report.
  options.user = "alice";
  options.format = ReportFormat::json;
  std::ostringstream scoped, scoped_err;
  EXPECT_EQ(run_reap_command(options, scoped, scoped_err, env), kExitOk) << scoped_err.str();
  const auto scoped_report = nlohmann::json::parse(scoped.str());
  EXPECT_TRUE(scoped_report.at("complete").get<bool>());
  EXPECT_EQ(scoped_report.at("scope").at("user"), "alice");
}

// Windows: another account's temp dir (a service's) is looked at after the run's own, by
// audit and by reap, which plans its stale file; --tmpdir looks at the one it names only.
TEST(CommandSeam, AuditAndReapLookAtAServiceAccountsTempDirAfterTheRunsOwn) {
  FakeEnvironment env = alice_world();
  env.roots.at("/tmp").kind = RootKind::host;
  TempRootFacts service = temp_root();
  service.kind = RootKind::account_temp_dir;
  service.temp_dir = "/svc/temp";
  service.account = TempDirAccount{"SYSTEM", std::nullopt};
  NamespaceFacts ns = namespace_of();
  ns.path = "/svc/temp/hsperfdata_alice";
  FileFacts stale = backing_file(ns, "31337");
  stale.lstat->ino = stale.opened->ino = 401;
  ns.files = {stale};
  service.namespaces.push_back(std::move(ns));
  env.roots.emplace("/svc/temp", std::move(service));
  env.accounts.host_temp_dir = DirIdentity{1, 2};
  env.accounts.dirs = {AccountTempDir{TempDirAccount{"SYSTEM", std::nullopt}, "/svc/temp", DirIdentity{1, 3}},
                       AccountTempDir{TempDirAccount{"alice", 77}, "/tmp/", DirIdentity{1, 2}}};

  AuditCommandOptions audit_options;
  audit_options.containers = false;
  const Ran audited = audit_as_given(env, audit_options, ReportFormat::json);
  EXPECT_EQ(env.observed, (std::vector<std::string>{"/tmp", "/svc/temp"})) << audited.err;
  const auto report = audited.json();
  ASSERT_EQ(report.at("roots").size(), 2u) << audited.out;
  EXPECT_EQ(report.at("roots").at(1).at("kind"), "account-temp-dir");
  EXPECT_EQ(report.at("roots").at(1).at("account").at("name"), "SYSTEM");
  EXPECT_TRUE(report.at("roots").at(1).at("account").at("named_by_pid").is_null());
  EXPECT_TRUE(report.at("roots").at(0).find("account") == report.at("roots").at(0).end());

  ReapCommandOptions options;
  options.containers = false;
  options.dry_run = true;
  options.lock_file.reset();
  options.format = ReportFormat::json;
  std::ostringstream out, err;
  env.observed.clear();
  EXPECT_EQ(run_reap_command(options, out, err, env), kExitOk) << err.str() << out.str();
  EXPECT_EQ(env.observed, (std::vector<std::string>{"/tmp", "/svc/temp"}));
  bool planned = false;
  const auto reaped = nlohmann::json::parse(out.str());
  for (const auto& item : reaped.at("plan")) {
    if (item.at("path") == "/svc/temp/hsperfdata_alice/31337") {
      planned = item.at("action") == "remove";
    }
  }
  EXPECT_TRUE(planned) << out.str();

  env.observed.clear();
  options.tmpdir = "/tmp";
  std::ostringstream named, named_err;
  run_reap_command(options, named, named_err, env);
  EXPECT_EQ(env.observed, std::vector<std::string>{"/tmp"});
}

// --container PID naming no process is a usage error of every command that takes it, said
// once (it was a full INCOMPLETE report with the error printed twice, exit 3).
TEST(CommandSeam, ContainerNamingNoProcessIsAUsageErrorSaidOnce) {
  FakeEnvironment env = alice_world();
  AuditCommandOptions audit_options;
  audit_options.container_pid = 99999;
  const Ran audited = audit_as_given(env, audit_options, ReportFormat::text);
  EXPECT_EQ(audited.exit, kExitUsage);
  EXPECT_EQ(audited.out, "");
  EXPECT_EQ(audited.err, "hsperfguard: audit: --container 99999: no such process\n");

  ReapCommandOptions reap_options;
  reap_options.container_pid = 99999;
  reap_options.lock_file.reset();
  std::ostringstream reap_out, reap_err;
  EXPECT_EQ(run_reap_command(reap_options, reap_out, reap_err, env), kExitUsage);
  EXPECT_EQ(reap_out.str(), "");
  EXPECT_EQ(reap_err.str(), "hsperfguard: reap: --container 99999: no such process\n");

  PsCommandOptions ps_options;
  ps_options.container_pid = 99999;
  std::ostringstream ps_out, ps_err;
  EXPECT_EQ(run_ps_command(ps_options, ps_out, ps_err, env), kExitUsage);
  EXPECT_EQ(ps_out.str(), "");
  EXPECT_EQ(ps_err.str(), "hsperfguard: ps: --container 99999: no such process\n");
  EXPECT_TRUE(env.observed.empty()) << "nothing was looked at";
}

TEST(RootSchedule, FirstHasTheRunsLimitsFurtherOnesAShareAndACutOffOneASecondTurn) {
  using namespace std::chrono;
  const auto start = steady_clock::now();
  std::atomic<bool> stop{false};
  const RunLimits run{&stop, start + milliseconds(1200)};
  RootSchedule schedule(run, 4);
  const auto first = schedule.next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->index, 0U);
  EXPECT_EQ(first->limits.deadline, run.deadline);
  EXPECT_FALSE(schedule.again()) << "the host's temp dir has no second turn";
  const auto second = schedule.next();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->index, 1U);
  ASSERT_TRUE(second->limits.deadline.has_value());
  EXPECT_LE(*second->limits.deadline - start, milliseconds(450)) << "a third of what is left";
  EXPECT_EQ(second->limits.stop, &stop);
  EXPECT_TRUE(schedule.again());
  EXPECT_EQ(schedule.next()->index, 2U);
  const auto last = schedule.next();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->index, 3U);
  ASSERT_TRUE(last->limits.deadline.has_value());
  EXPECT_LE(*last->limits.deadline - start, milliseconds(650)) << "half: the one waiting counts";
  const auto again = schedule.next();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->index, 1U);
  EXPECT_EQ(again->limits.deadline, run.deadline);
  EXPECT_FALSE(schedule.again()) << "one second turn only";
  EXPECT_FALSE(schedule.next().has_value());

  RootSchedule stopped(run, 3);
  EXPECT_TRUE(stopped.next().has_value());
  stop = true;
  EXPECT_FALSE(stopped.next().has_value());
}

// The loop over temp roots both audit and reap use: what a scripted visitor is asked to do.
struct ScriptedTurn {
  TempRootFacts root;
  bool seen = false;
};
struct ScriptedRoots {
  // By root index, the turns its observation comes back as, in order (the last one repeats).
  std::map<std::size_t, std::vector<ScriptedTurn>> script;
  std::map<std::size_t, std::size_t> observed;  // times each root was observed
  std::vector<std::string> calls;
  std::atomic<bool>* stop = nullptr;  // set when root `stop_at` is observed
  std::size_t stop_at = 0;
  bool halt_after_first = false;

  ScriptedTurn observe(const RootSpec& spec, const RunLimits& /*limits*/) {
    const std::size_t index = std::stoul(spec.root.substr(1));
    const auto& turns = script.at(index);
    const std::size_t n = observed[index]++;
    calls.push_back("observe " + std::to_string(index));
    if (stop != nullptr && index == stop_at) *stop = true;
    ScriptedTurn turn = turns[std::min(n, turns.size() - 1)];
    turn.root.root = spec.root;
    turn.root.kind = spec.kind;
    return turn;
  }
  bool finish(ScriptedTurn&& turn, std::size_t index, const RunLimits& /*limits*/) {
    calls.push_back("finish " + std::to_string(index) + (turn.root.stopped ? " stopped" : ""));
    return !(index == 0 && halt_after_first);
  }
  void finish_unvisited(ScriptedTurn&& turn, std::size_t index) {
    calls.push_back("unvisited " + std::to_string(index) + (turn.seen ? " seen" : ""));
  }
};

std::vector<RootSpec> scripted_specs(std::size_t n) {
  std::vector<RootSpec> specs(n);
  for (std::size_t i = 0; i < n; ++i) {
    specs[i].root = "/" + std::to_string(i);
    if (i > 0) specs[i].kind = RootKind::container;
  }
  return specs;
}

ScriptedTurn opened_turn() {
  ScriptedTurn turn;
  turn.root.opened = InodeFacts{};
  turn.seen = true;
  return turn;
}

// A container cut off before anything of it was seen comes again after the others; one whose
// process is gone is dropped without a finish (not incomplete); the rest are finished in order.
TEST(RootLoop, CutOffRootComesAgainAtTheEndAndAVanishedContainerIsDropped) {
  ScriptedRoots roots;
  ScriptedTurn cut_off;
  cut_off.root.opened = InodeFacts{};
  cut_off.root.stopped = "deadline";
  ScriptedTurn vanished;
  vanished.root.errors.push_back(ObservationError{"/2", "open", ENOENT, "gone"});
  roots.script = {{0, {opened_turn()}}, {1, {cut_off, opened_turn()}}, {2, {vanished}}, {3, {opened_turn()}}};
  const std::vector<RootSpec> specs = scripted_specs(4);
  const RootLoopOutcome outcome = visit_temp_roots(specs, RunLimits{}, false, roots);
  EXPECT_EQ(roots.calls, (std::vector<std::string>{"observe 0", "finish 0", "observe 1", "observe 2", "observe 3",
                                                   "finish 3", "observe 1", "finish 1"}));
  EXPECT_EQ(outcome.roots, 4U);
  EXPECT_EQ(outcome.looked_at, 4U);
  EXPECT_EQ(outcome.cut_off, 0U);
  EXPECT_FALSE(outcome.incomplete);
  EXPECT_FALSE(outcome.halted);

  // Named by --container, a root whose process is gone is the run's: finished, and incomplete.
  ScriptedRoots named;
  named.script = {{0, {vanished}}};
  const RootLoopOutcome one = visit_temp_roots(scripted_specs(1), RunLimits{}, true, named);
  EXPECT_EQ(named.calls, (std::vector<std::string>{"observe 0", "finish 0"}));
  EXPECT_TRUE(one.incomplete) << "a temp dir that was not opened";
}

// A stop after a container was cut off at its share: its second turn never comes, so it is
// finished as its first turn left it and counted cut off; a second turn stopped again is final;
// a finish that says stop (the reap's failed journal) ends the loop, the roots after it not
// looked at.
TEST(RootLoop, RootsWithoutTheirSecondTurnAreFinishedAsTheyWereAndAHaltEndsTheLoop) {
  ScriptedTurn cut_off;
  cut_off.root.opened = InodeFacts{};
  cut_off.root.stopped = "deadline";
  std::atomic<bool> stop{false};
  RunLimits limits;
  limits.stop = &stop;
  ScriptedRoots stopping;
  stopping.script = {{0, {opened_turn()}}, {1, {cut_off}}, {2, {opened_turn()}}};
  stopping.stop = &stop;
  stopping.stop_at = 2;
  const RootLoopOutcome outcome = visit_temp_roots(scripted_specs(3), limits, false, stopping);
  EXPECT_EQ(stopping.calls, (std::vector<std::string>{"observe 0", "finish 0", "observe 1", "observe 2", "finish 2",
                                                      "unvisited 1"}));
  EXPECT_EQ(outcome.looked_at, 3U);
  EXPECT_EQ(outcome.cut_off, 1U);
  EXPECT_TRUE(outcome.incomplete);

  stop = false;
  ScriptedRoots second;
  second.script = {{0, {opened_turn()}}, {1, {cut_off}}, {2, {opened_turn()}}};
  const RootLoopOutcome both = visit_temp_roots(scripted_specs(3), limits, false, second);
  EXPECT_EQ(second.calls, (std::vector<std::string>{"observe 0", "finish 0", "observe 1", "observe 2", "finish 2",
                                                    "observe 1", "finish 1 stopped"}));
  EXPECT_EQ(both.cut_off, 1U) << "stopped at its share on its second turn too";
  EXPECT_TRUE(both.incomplete);

  ScriptedRoots halting;
  halting.script = {{0, {opened_turn()}}, {1, {opened_turn()}}};
  halting.halt_after_first = true;
  const RootLoopOutcome halted = visit_temp_roots(scripted_specs(2), RunLimits{}, false, halting);
  EXPECT_EQ(halting.calls, (std::vector<std::string>{"observe 0", "finish 0"}));
  EXPECT_TRUE(halted.halted);
  EXPECT_EQ(halted.looked_at, 1U);
}

// ---- reap ------------------------------------------------------------------------------------

std::map<std::string, std::string> planned_actions(const Plan& plan) {
  std::map<std::string, std::string> actions;
  for (const auto& item : plan.items)
    actions[item.name] = std::string(to_string(item.action)) + "/" + item.why;
  return actions;
}

TEST(CommandSeam, ReapDryRunPlansFromTheEnvironmentAndActsOnNothing) {
  FakeEnvironment env = alice_world();
  const Ran ran = reap(env, true);
  ASSERT_EQ(ran.exit, kExitOk) << ran.err << ran.out;
  EXPECT_FALSE(env.executed.has_value()) << "a dry run executed its plan";
  EXPECT_EQ(env.gathered, std::vector<std::string>{"/tmp/hsperfdata_alice"});
  // Only the live pid's region can decide (its begin time against the process's start).
  EXPECT_EQ(env.regions_read,
            std::vector<std::string>{"/tmp/hsperfdata_alice/" + std::to_string(kLivePid)});
  std::map<std::string, std::string> actions;
  const auto report = ran.json();
  for (const auto& item : report.at("plan")) {
    actions[item.at("name").get<std::string>()] =
        item.at("action").get<std::string>() + "/" + item.at("why").get<std::string>();
  }
  EXPECT_EQ(actions,
            (std::map<std::string, std::string>{{std::to_string(kLivePid), "keep/live"},
                                                {std::to_string(kGonePid), "remove/reapable"}}))
      << ran.out;
}

// The audit's next line says how many files `reap --dry-run` removes: the reap planner's count
// on the same facts with reap's defaults. Before, the verdicts were counted: "would remove (4
// stale or foreign file(s))" while reap removed 1 (it keeps a FIFO, a hard-linked file and a
// file younger than --min-age).
TEST(CommandSeam, AuditsReapCountIsTheReapPlannersOnTheSameFacts) {
  FakeEnvironment env = alice_world();
  NamespaceFacts& ns = alice_namespace(env);
  FileFacts young = backing_file(ns, "4444");
  young.lstat->ino = young.opened->ino = 302;
  young.lstat->mtime = young.opened->mtime = Timestamp{kNow / 1000 - 5, 0};  // 5 s old
  FileFacts linked = backing_file(ns, "4445");
  linked.lstat->ino = linked.opened->ino = 303;
  linked.lstat->nlink = linked.opened->nlink = 2;
  FileFacts fifo = backing_file(ns, "4446");
  fifo.lstat->ino = fifo.opened->ino = 304;
  fifo.lstat->kind = fifo.opened->kind = FileKind::fifo;
  fifo.lstat->size = fifo.opened->size = 0;
  fifo.region.reset();
  ns.files.push_back(young);
  ns.files.push_back(linked);
  ns.files.push_back(fifo);

  AuditCommandOptions options;
  options.tmpdir = "/tmp";
  options.format = ReportFormat::text;
  std::ostringstream out, err;
  run_audit_command(options, out, err, env);
  const std::string text = out.str();
  const Ran planned = reap(env, true);
  ASSERT_EQ(planned.exit, kExitOk) << planned.err << planned.out;
  const nlohmann::json report = planned.json();
  const nlohmann::json& plan = report.at("reap").at("planned");
  std::size_t kept_stale = 0;
  for (const auto& item : report.at("plan")) {
    if (item.at("action") != "remove" && item.at("verdict") != "live" && item.at("verdict") != "unknown")
      ++kept_stale;
  }
  ASSERT_EQ(plan.at("remove"), 1U) << planned.out;  // the old stale file only
  ASSERT_EQ(kept_stale, 3U) << planned.out;
  EXPECT_NE(text.find("shows what the reaper would remove (" + std::to_string(plan.at("remove").get<std::size_t>()) +
                      " file(s)) and why it keeps " + std::to_string(kept_stale) + " other stale or foreign file(s)"),
            std::string::npos)
      << text;
}

TEST(CommandSeam, ReapExecutesExactlyThePlanItMade) {
  FakeEnvironment env = alice_world();
  const Ran ran = reap(env, false);
  ASSERT_EQ(ran.exit, kExitOk) << ran.err;
  ASSERT_TRUE(env.executed.has_value());
  EXPECT_EQ(planned_actions(*env.executed),
            (std::map<std::string, std::string>{{std::to_string(kLivePid), "keep/live"},
                                                {std::to_string(kGonePid), "remove/reapable"}}));
  const auto report = ran.json();
  ASSERT_EQ(report.at("actions").size(), 1U) << ran.out;
  EXPECT_EQ(report.at("actions")[0].at("outcome"), "removed");
  EXPECT_EQ(report.at("actions")[0].at("path"),
            "/tmp/hsperfdata_alice/" + std::to_string(kGonePid));
}

TEST(CommandSeam, ReapExitCodesFollowTheOutcomes) {
  FakeEnvironment failing = alice_world();
  failing.reap_outcome = ReapOutcome::failed;
  const Ran failed = reap(failing, false);
  EXPECT_EQ(failed.exit, kExitFindings) << failed.err;
  EXPECT_EQ(failed.json().at("actions")[0].at("outcome"), "failed");

  FakeEnvironment interrupted = alice_world();
  interrupted.interrupt_execution = true;
  EXPECT_EQ(reap(interrupted, false).exit, kExitIncomplete);
}

// Many stale files of one namespace: the text says what was done to them in one line, as the
// plan groups them, and lists each under --verbose; the JSON report keeps every removal (the
// journal too: ReapCli.TextGroupsRemovalsWhileTheJournalRecordsEach).
TEST(CommandSeam, ReapGroupsLikeOutcomesOfANamespaceAndListsEachUnderVerbose) {
  FakeEnvironment env = alice_world();
  NamespaceFacts& ns = alice_namespace(env);
  for (int n = 0; n < 8; ++n) {
    FileFacts stale = backing_file(ns, std::to_string(kGonePid + 1 + n));
    stale.lstat->ino = stale.opened->ino = static_cast<std::uint64_t>(302 + n);
    ns.files.push_back(stale);
  }
  const auto run = [&](bool verbose, ReportFormat format) {
    FakeEnvironment world = env;
    ReapCommandOptions options;
    options.tmpdir = "/tmp";
    options.format = format;
    options.verbose = verbose;
    options.lock_file.reset();
    std::ostringstream out, err;
    Ran ran;
    ran.exit = run_reap_command(options, out, err, world);
    ran.out = out.str();
    ran.err = err.str();
    return ran;
  };
  const auto lines_starting = [](const std::string& text, const std::string& prefix) {
    std::size_t count = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) count += line.starts_with(prefix) ? 1 : 0;
    return count;
  };
  const Ran grouped = run(false, ReportFormat::text);
  ASSERT_EQ(grouped.exit, kExitOk) << grouped.err << grouped.out;
  EXPECT_EQ(lines_starting(grouped.out, "  removed"), 1U) << grouped.out;
  EXPECT_NE(grouped.out.find("  removed       9 stale files in /tmp/hsperfdata_alice (4343, 4344, 4345, ...; "
                             "--verbose lists each)\n"),
            std::string::npos)
      << grouped.out;
  EXPECT_NE(grouped.out.find("done: 9 removed"), std::string::npos) << grouped.out;

  const Ran each = run(true, ReportFormat::text);
  EXPECT_EQ(lines_starting(each.out, "  removed"), 9U) << each.out;
  EXPECT_NE(each.out.find("  removed       /tmp/hsperfdata_alice/4351\n"), std::string::npos) << each.out;

  const Ran json = run(false, ReportFormat::json);
  ASSERT_EQ(json.exit, kExitOk) << json.err;
  EXPECT_EQ(json.json().at("actions").size(), 9U);
}

// A reap, ps or inspect run that does not exit 0 says why in its last line (reap on stdout,
// under --quiet too; ps and inspect on stderr, their stdout left a list or what was decoded);
// `repair --color always` and `reap --color always` colour their outcomes, never in JSON.
TEST(CommandSeam, ReapPsAndInspectSayWhyTheyDoNotExitZero) {
  const auto last_line = [](const std::string& text) {
    const std::size_t end = text.find_last_not_of('\n');
    const std::size_t begin = text.rfind('\n', end);
    return text.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? -1 : begin));
  };
  for (const bool quiet : {false, true}) {
    FakeEnvironment failing = alice_world();
    failing.reap_outcome = ReapOutcome::failed;
    ReapCommandOptions options;
    options.tmpdir = "/tmp";
    options.lock_file.reset();
    options.quiet = quiet;
    std::ostringstream out, err;
    EXPECT_EQ(run_reap_command(options, out, err, failing), kExitFindings);
    EXPECT_EQ(last_line(out.str()), "exit 1: 1 removal failed (the actions say why)") << out.str();
  }
  FakeEnvironment clean = alice_world();
  ReapCommandOptions options;
  options.tmpdir = "/tmp";
  options.lock_file.reset();
  options.color = ColorChoice::always;
  std::ostringstream reaped, reap_err;
  EXPECT_EQ(run_reap_command(options, reaped, reap_err, clean), kExitOk);
  EXPECT_EQ(reaped.str().find("exit "), std::string::npos) << reaped.str();
  EXPECT_NE(reaped.str().find("  \033[32mremoved\033[0m       /tmp/hsperfdata_alice/4343"), std::string::npos)
      << reaped.str();

  FakeEnvironment no_tmp;
  PsCommandOptions ps;
  std::ostringstream listed, ps_err;
  EXPECT_EQ(run_ps_command(ps, listed, ps_err, no_tmp), kExitIncomplete);
  EXPECT_EQ(last_line(ps_err.str()),
            "hsperfguard: ps: exit 3: processes or temp dirs that could not be looked into (the errors say which)")
      << ps_err.str();
  EXPECT_EQ(listed.str().find("exit"), std::string::npos) << listed.str();

  FakeEnvironment garbage;
  garbage.files["/tmp/hsperfdata_alice/4242"] = std::vector<std::byte>(64, std::byte{0x5a});
  InspectOptions inspect;
  inspect.target = "/tmp/hsperfdata_alice/4242";
  std::ostringstream decoded, inspect_err;
  EXPECT_EQ(run_inspect(inspect, decoded, inspect_err, garbage), kExitBadData);
  EXPECT_EQ(last_line(inspect_err.str()), "hsperfguard: inspect: exit 5: not a valid PerfData region")
      << inspect_err.str();

  FakeEnvironment loose = alice_world();
  alice_namespace(loose).lstat->mode = alice_namespace(loose).opened->mode = 0777;
  RepairCommandOptions repair;
  repair.tmpdir = "/tmp";
  repair.color = ColorChoice::always;
  std::ostringstream repaired, repair_err;
  EXPECT_EQ(run_repair_command(repair, repaired, repair_err, loose), kExitOk);
  EXPECT_TRUE(repaired.str().starts_with("\033[32mfixed\033[0m  namespace.group-other-writable")) << repaired.str();
  repair.format = ReportFormat::json;
  FakeEnvironment loose_again = alice_world();
  alice_namespace(loose_again).lstat->mode = alice_namespace(loose_again).opened->mode = 0777;
  std::ostringstream json;
  EXPECT_EQ(run_repair_command(repair, json, repair_err, loose_again), kExitOk);
  EXPECT_EQ(json.str().find('\033'), std::string::npos) << json.str();
}

// The reaper acts on the host's temp dir before it looks at any container's, and on each
// container's as soon as it is planned, within its share; a container cut off at its share
// leaves the others their turn, and the run exits 3 with the host's stale file removed.
TEST(CommandSeam, ReapActsOnTheHostFirstAndGivesEachContainerAShareOfMaxRuntime) {
  FakeEnvironment env = host_and_containers_world();
  ReapCommandOptions options;
  options.format = ReportFormat::json;
  options.lock_file.reset();
  options.max_runtime_ms = 900;
  std::ostringstream out, err;
  const auto started = std::chrono::steady_clock::now();
  const int exit = run_reap_command(options, out, err, env);
  EXPECT_EQ(exit, kExitIncomplete) << err.str();
  ASSERT_GE(env.calls.size(), 2U);
  EXPECT_EQ(env.calls[0], "observe /tmp");
  EXPECT_EQ(env.calls[1], "execute 0") << "the host's temp dir is acted on before any container is looked at";
  EXPECT_EQ(std::count(env.calls.begin(), env.calls.end(), "observe /proc/12/root"), 1);
  EXPECT_EQ(std::count(env.calls.begin(), env.calls.end(), "observe /proc/11/root"), 2) << "a second turn";
  ASSERT_TRUE(env.deadlines.at("/tmp").has_value());
  ASSERT_TRUE(env.deadlines.at("/proc/11/root").has_value());
  EXPECT_GE(*env.deadlines.at("/tmp") - started, std::chrono::milliseconds(900));
  EXPECT_GE(*env.deadlines.at("/tmp") - *env.deadlines.at("/proc/11/root"), std::chrono::milliseconds(400))
      << "a third of what was left";
  const auto report = nlohmann::json::parse(out.str());
  EXPECT_FALSE(report.at("complete").get<bool>());
  const auto& roots = report.at("reap").at("roots");
  ASSERT_EQ(roots.size(), 4U) << out.str();
  EXPECT_TRUE(roots[0].at("stopped").is_null());
  EXPECT_TRUE(roots[1].at("stopped").is_null());
  EXPECT_TRUE(roots[2].at("stopped").is_null());
  EXPECT_EQ(roots[3].at("root"), "/proc/11/root");
  EXPECT_EQ(roots[3].at("stopped"), "deadline");
  std::map<std::string, std::string> outcomes;
  for (const auto& a : report.at("actions")) outcomes[a.at("path")] = a.at("outcome");
  EXPECT_EQ(outcomes, (std::map<std::string, std::string>{
                          {"/tmp/hsperfdata_alice/" + std::to_string(kGonePid), "removed"},
                          {"/tmp/hsperfdata_bob/77", "removed"}}))
      << out.str();
  EXPECT_NE(err.str().find("stopped (deadline)"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("1 of 3 container temp dirs"), std::string::npos) << err.str();
}

// A container cut off at its share before anything of it was seen (its passwd took the
// share, and is parsed by the end of it) is looked at again once the others were: with time
// left, the run completes, exit 0.
TEST(CommandSeam, ReapGivesAContainerCutOffBeforeAnythingWasSeenASecondTurn) {
  FakeEnvironment env = host_and_containers_world();
  env.costly.clear();
  env.costly_once.insert("/proc/11/root");
  ReapCommandOptions options;
  options.format = ReportFormat::json;
  options.lock_file.reset();
  options.max_runtime_ms = 900;
  std::ostringstream out, err;
  const int exit = run_reap_command(options, out, err, env);
  EXPECT_EQ(exit, kExitOk) << err.str();
  EXPECT_EQ(env.observed, (std::vector<std::string>{"/tmp", "/proc/11/root", "/proc/12/root",
                                                     "/proc/13/root", "/proc/11/root"}));
  const auto report = nlohmann::json::parse(out.str());
  EXPECT_TRUE(report.at("complete").get<bool>()) << err.str();
  const auto& roots = report.at("reap").at("roots");
  ASSERT_EQ(roots.size(), 4U) << out.str();
  for (const auto& root : roots) EXPECT_TRUE(root.at("stopped").is_null()) << root.dump();
  EXPECT_TRUE(roots[3].at("errors").empty()) << "its first turn's stop is not reported: " << roots[3].dump();
}

TEST(CommandSeam, ReapRemovesNothingOfALiveJvmWhoseLockIsHeld) {
  // The gone pid's file is locked too (a JVM of another pid namespace holds it): kept.
  FakeEnvironment env = alice_world();
  env.locked.insert(301);
  const Ran ran = reap(env, false);
  ASSERT_EQ(ran.exit, kExitOk) << ran.err;
  // A part with nothing to remove is not handed to the executor (a run in parts acts per part).
  EXPECT_TRUE(!env.executed.has_value() || env.executed->counts().remove == 0) << ran.out;
  const auto report = nlohmann::json::parse(ran.out);
  EXPECT_EQ(report.at("reap").at("planned").at("items"), 2U) << ran.out;
  EXPECT_EQ(report.at("reap").at("planned").at("remove"), 0U) << ran.out;
  EXPECT_EQ(report.at("reap").at("outcomes").at("removed"), 0U) << ran.out;
}

// ---- repair ----------------------------------------------------------------------------------

TEST(CommandSeam, RepairDryRunPlansTheFixAndChangesNothing) {
  FakeEnvironment env = alice_world();
  alice_namespace(env).lstat->mode = alice_namespace(env).opened->mode = 0777;
  const Ran ran = repair(env, true);
  EXPECT_FALSE(env.repaired.has_value()) << "a dry run repaired";
  EXPECT_NE(ran.out.find("would fix  namespace.group-other-writable  /tmp/hsperfdata_alice"),
            std::string::npos)
      << ran.out;
  EXPECT_NE(ran.out.find("repair: 1 would be fixed, 0 failed, 0 left"), std::string::npos)
      << ran.out;
  EXPECT_EQ(ran.exit, kExitOk) << ran.err;
}

TEST(CommandSeam, RepairAppliesThePlanAndReportsFailures) {
  FakeEnvironment env = alice_world();
  alice_namespace(env).lstat->mode = alice_namespace(env).opened->mode = 0777;
  const Ran fixed = repair(env, false);
  ASSERT_TRUE(env.repaired.has_value());
  ASSERT_EQ(env.repaired->targets.size(), 1U);
  EXPECT_EQ(env.repaired->targets[0].path, "/tmp/hsperfdata_alice");
  EXPECT_EQ(fixed.exit, kExitOk) << fixed.out << fixed.err;
  EXPECT_NE(fixed.out.find("fixed  namespace.group-other-writable"), std::string::npos)
      << fixed.out;

  FakeEnvironment failing = alice_world();
  alice_namespace(failing).lstat->mode = alice_namespace(failing).opened->mode = 0777;
  failing.repair_outcome = RepairOutcome::failed;
  const Ran failed = repair(failing, false);
  EXPECT_EQ(failed.exit, kExitFindings) << failed.out;
  EXPECT_NE(failed.out.find("failed  namespace.group-other-writable"), std::string::npos)
      << failed.out;
  EXPECT_NE(failed.out.find("not done: fchmod"), std::string::npos) << failed.out;
}

TEST(CommandSeam, RepairLeavesWhatItMustNotFix) {
  // A namespace owned by someone else than its user is squatted: never entered, left.
  FakeEnvironment env = alice_world();
  alice_namespace(env).lstat->uid = alice_namespace(env).opened->uid = kMalloryUid;
  const Ran ran = repair(env, false);
  EXPECT_FALSE(env.repaired.has_value() && !env.repaired->targets.empty()) << ran.out;
  EXPECT_NE(ran.out.find("left  namespace.owner-mismatch  /tmp/hsperfdata_alice"),
            std::string::npos)
      << ran.out;
  EXPECT_EQ(ran.exit, kExitRefused) << ran.out;
}

// Every run that does not exit 0 says why in its last line; the JSON report says the same, and
// matches schemas/repair.schema.json (a dry run's and a real run's).
TEST(CommandSeam, RepairSaysWhyItExitsAsItDoesInItsLastLineAndInJson) {
  const auto last_line = [](const std::string& text) {
    const std::size_t end = text.find_last_not_of('\n');
    return text.substr(text.rfind('\n', end) + 1, end - text.rfind('\n', end));
  };
  FakeEnvironment squatted = alice_world();
  alice_namespace(squatted).lstat->uid = alice_namespace(squatted).opened->uid = kMalloryUid;
  const Ran left = repair(squatted, false);
  EXPECT_EQ(left.exit, kExitRefused);
  // The squatted namespace and its two files: three findings left.
  EXPECT_EQ(last_line(left.out),
            "exit 4: 3 findings at or above medium are left to a person (repair does not fix them)")
      << left.out;

  FakeEnvironment failing = alice_world();
  alice_namespace(failing).lstat->mode = alice_namespace(failing).opened->mode = 0777;
  failing.repair_outcome = RepairOutcome::failed;
  const Ran failed = repair(failing, false);
  EXPECT_EQ(failed.exit, kExitFindings);
  EXPECT_EQ(last_line(failed.out), "exit 1: 1 fix was not done (the lines above say why)") << failed.out;

  FakeEnvironment missing;  // no /tmp at all
  const Ran incomplete = repair(missing, false);
  EXPECT_EQ(incomplete.exit, kExitIncomplete);
  EXPECT_TRUE(last_line(incomplete.out).starts_with("exit 3: 1 temp dir or entry could not be read")) << incomplete.out;

  FakeEnvironment clean = alice_world();
  const Ran ok = repair(clean, false);
  EXPECT_EQ(ok.exit, kExitOk);
  EXPECT_EQ(last_line(ok.out), "repair: 0 fixed, 0 failed, 0 left to a person") << ok.out;

  for (const bool dry_run : {true, false}) {
    // Alice's namespace fixed (or to be), bob's, which alice owns, left.
    FakeEnvironment env = alice_world();
    alice_namespace(env).lstat->mode = alice_namespace(env).opened->mode = 0777;
    NamespaceFacts squatted_ns = alice_namespace(env);
    squatted_ns.name = "hsperfdata_bob";
    squatted_ns.path = "/tmp/hsperfdata_bob";
    squatted_ns.user_suffix = "bob";
    squatted_ns.user = UserFacts{"bob", kMalloryUid, kMalloryUid, std::nullopt};  // alice owns it
    squatted_ns.lstat->mode = squatted_ns.opened->mode = 0755;
    for (auto& file : squatted_ns.files) file.path = "/tmp/hsperfdata_bob/" + file.name;
    env.roots.at("/tmp").namespaces.push_back(squatted_ns);
    RepairCommandOptions options;
    options.tmpdir = "/tmp";
    options.dry_run = dry_run;
    options.format = ReportFormat::json;
    std::ostringstream out, err;
    const int exit = run_repair_command(options, out, err, env);
    const auto report = nlohmann::json::parse(out.str());
#ifndef _WIN32  // see test::schema_valid
    EXPECT_TRUE(schema_valid(out.str(), "schemas/repair.schema.json")) << out.str();
#endif
    EXPECT_EQ(report.at("exit_code"), exit);
    EXPECT_EQ(report.at("dry_run"), dry_run);
    EXPECT_EQ(report.at("counts").at(dry_run ? "would_fix" : "fixed"), 1) << out.str();
    EXPECT_EQ(exit, kExitRefused) << out.str();
    EXPECT_EQ(report.at("exit_reason"),
              std::string("1 finding at or above medium ") + (dry_run ? "would be" : "is") +
                  " left to a person (repair does not fix it)")
        << out.str();
  }
#ifndef _WIN32  // see test::schema_valid
  EXPECT_FALSE(schema_valid(R"({"schema": "hsperfguard-repair/1"})", "schemas/repair.schema.json"));
#endif
}

// --quiet: nothing on a clean run; what needs a person and the exit line otherwise, while
// --output gets the whole report.
// The fault sweep's finding: a temp dir that was opened but whose listing an I/O error cut
// short (or whose users could not be looked up) hid a namespace that needed a fix, and repair
// said "nothing left" with exit 0. It now ends as the audit does for the same facts: exit 3,
// the error named.
TEST(CommandSeam, RepairOfATempDirReadInPartIsIncompleteNotClean) {
  FakeEnvironment env = alice_world();
  env.roots.at("/tmp").namespaces.clear();  // the listing stopped before alice's namespace
  env.roots.at("/tmp").errors.push_back(ObservationError{"/tmp", "getdents64", EIO, "Input/output error"});
  const Ran ran = repair(env, false);
  EXPECT_EQ(ran.exit, kExitIncomplete) << ran.out << ran.err;
  EXPECT_NE(ran.err.find("hsperfguard: repair: /tmp: getdents64: Input/output error"), std::string::npos) << ran.err;

  FakeEnvironment vanished = alice_world();  // a name gone since it was listed is not a gap
  vanished.roots.at("/tmp").errors.push_back(ObservationError{"/tmp/x", "statx", ENOENT, "No such file or directory"});
  EXPECT_EQ(repair(vanished, false).exit, kExitOk);
}

// Alice's namespace as a run sees it when no look at it succeeded: the error of its statx.
NamespaceFacts& unobservable(FakeEnvironment& env, int code, const char* message) {
  NamespaceFacts& ns = alice_namespace(env);
  ns.lstat.reset();
  ns.opened.reset();
  ns.files.clear();
  ns.errors.push_back(ObservationError{ns.path, "statx", code, message});
  return ns;
}

// A namespace that could not be looked at (every statx of it an I/O error) is not judged, so
// repair cannot call the run clean: exit 3 as the audit of the same tree, the error named, and
// the namespace left with what happened to it, not "not a directory" (a fault sweep with the
// error lasting found repair saying both).
TEST(CommandSeam, RepairOfANamespaceThatCouldNotBeObservedIsIncompleteAndSaysWhy) {
  FakeEnvironment env = alice_world();
  NamespaceFacts& ns = unobservable(env, EIO, "Input/output error");
  // An error about a process its liveness evidence named is not the namespace's: not listed.
  ns.errors.push_back(ObservationError{"/proc/4242/ns/mnt", "readlink", EACCES, "Permission denied"});
  const Ran ran = repair(env, false);
  EXPECT_EQ(ran.exit, kExitIncomplete) << ran.out << ran.err;
  EXPECT_NE(ran.err.find("hsperfguard: repair: " + ns.path + ": statx: Input/output error"), std::string::npos)
      << ran.err;
  EXPECT_EQ(ran.err.find("/proc/4242/ns/mnt"), std::string::npos) << ran.err;
  EXPECT_NE(ran.out.find("exit 3: 1 temp dir or entry could not be read"), std::string::npos) << ran.out;
  EXPECT_NE(ran.out.find("the namespace could not be observed (statx: Input/output error)"), std::string::npos)
      << ran.out;
  EXPECT_EQ(ran.out.find("not a directory"), std::string::npos) << ran.out;
  FakeEnvironment audited = alice_world();
  unobservable(audited, EIO, "Input/output error");
  EXPECT_EQ(audit(audited).exit, kExitIncomplete) << "the audit of the same tree";

  FakeEnvironment vanished = alice_world();  // a namespace gone since it was listed is no gap
  unobservable(vanished, ENOENT, "No such file or directory");
  EXPECT_NE(repair(vanished, false).exit, kExitIncomplete);
}

TEST(CommandSeam, QuietRepairPrintsOnlyWhatNeedsAPerson) {
  FakeEnvironment squatted = alice_world();
  alice_namespace(squatted).lstat->uid = alice_namespace(squatted).opened->uid = kMalloryUid;
  RepairCommandOptions options;
  options.tmpdir = "/tmp";
  options.quiet = true;
  std::ostringstream out, err;
  EXPECT_EQ(run_repair_command(options, out, err, squatted), kExitRefused);
  const std::string text = out.str();
  EXPECT_TRUE(text.starts_with("left high namespace.owner-mismatch /tmp/hsperfdata_alice: ")) << text;
  EXPECT_TRUE(text.ends_with("\nexit 4: 3 findings at or above medium are left to a person (repair does not fix them)\n"))
      << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4) << text;  // the namespace, its two files, the exit
  FakeEnvironment clean = alice_world();
  std::ostringstream quiet_out;
  EXPECT_EQ(run_repair_command(options, quiet_out, err, clean), kExitOk);
  EXPECT_EQ(quiet_out.str(), "");
}

// ---- create, ps, inspect ------------------------------------------------------------------

TEST(CommandSeam, CreateMakesTheNamespaceAndBackingFileThroughTheEnvironment) {
  FakeEnvironment env;
  TempRootFacts root = temp_root();
  root.kind = RootKind::tmpdir;
  env.roots.emplace("/tmp", std::move(root));  // no namespace yet
  CreateCommandOptions options;
  options.user = "alice";  // known to the fake user database only
  options.tmpdir = "/tmp";
  options.pid = kLivePid;
  std::ostringstream out, err;
  const int exit = run_create_command(options, out, err, env);
  ASSERT_EQ(exit, kExitOk) << err.str() << out.str();
  EXPECT_EQ(env.calls, (std::vector<std::string>{"observe /tmp", "make_namespace hsperfdata_alice",
                                                  "make_backing_file 4242", "observe /tmp"}));
  ASSERT_TRUE(env.namespace_made);
  EXPECT_EQ(env.namespace_made->uid, kAliceUid);
  EXPECT_TRUE(env.namespace_made->chown);  // the fake runs as root
  EXPECT_FALSE(env.namespace_made->existing);
  ASSERT_TRUE(env.backing_file_made);
  // The region's size is a multiple of the fake's page size; its begin time, the fake clock.
  const auto region = perfdata::parse_region(env.backing_file_made->content);
  ASSERT_TRUE(region.valid());
  EXPECT_EQ(region.find("sun.rt.createVmBeginTime")->long_value, kNow);
  EXPECT_EQ(out.str().substr(0, out.str().find("note:")),
            "created /tmp/hsperfdata_alice (owner alice uid 1000, mode 0755)\n"
            "created /tmp/hsperfdata_alice/4242 (32768 bytes, mode 0600)\n");
}

TEST(CommandSeam, CreateRefusesAUserTheEnvironmentDoesNotKnow) {
  FakeEnvironment env = alice_world();
  env.users_known.clear();
  CreateCommandOptions options;
  options.user = "alice";
  options.tmpdir = "/tmp";
  std::ostringstream out, err;
  EXPECT_EQ(run_create_command(options, out, err, env), kExitUsage);
  EXPECT_EQ(err.str(), "hsperfguard: create: no such user: alice\n");
  EXPECT_TRUE(env.calls.empty());
}

// create --format json: what was made, as schemas/create.schema.json says; a refusal and a
// usage error end the text with the exit line, and the JSON with the same reason.
TEST(CommandSeam, CreateReportsWhatItMadeOrWhyItExitsAsItDoes) {
  const auto create = [](FakeEnvironment& env, std::optional<ReportFormat> format) {
    CreateCommandOptions options;
    options.user = "alice";
    options.tmpdir = "/tmp";
    options.pid = kLivePid;
    options.format = format;
    std::ostringstream out, err;
    Ran ran;
    ran.exit = run_create_command(options, out, err, env);
    ran.out = out.str();
    ran.err = err.str();
    return ran;
  };
  FakeEnvironment fresh;
  TempRootFacts root = temp_root();
  root.kind = RootKind::tmpdir;
  fresh.roots.emplace("/tmp", std::move(root));
  const Ran made = create(fresh, ReportFormat::json);
  ASSERT_EQ(made.exit, kExitOk) << made.err << made.out;
#ifndef _WIN32  // see test::schema_valid
  EXPECT_TRUE(schema_valid(made.out, "schemas/create.schema.json")) << made.out;
#endif
  const auto report = made.json();
  EXPECT_EQ(report.at("namespace").at("action"), "created");
  EXPECT_EQ(report.at("namespace").at("mode"), "0755");
  EXPECT_EQ(report.at("backing_file").at("path"), "/tmp/hsperfdata_alice/4242");
  EXPECT_TRUE(report.at("exit_reason").is_null());

  FakeEnvironment unsafe = alice_world();
  alice_namespace(unsafe).lstat->mode = alice_namespace(unsafe).opened->mode = 0777;
  const Ran refused = create(unsafe, std::nullopt);
  EXPECT_EQ(refused.exit, kExitRefused);
  EXPECT_EQ(refused.out,
            "exit 4: refused: /tmp/hsperfdata_alice exists and is unsafe (1 finding at or above medium); it was "
            "left as it is\n")
      << refused.out << refused.err;
  FakeEnvironment unsafe_again = alice_world();
  alice_namespace(unsafe_again).lstat->mode = alice_namespace(unsafe_again).opened->mode = 0777;
  const Ran refused_json = create(unsafe_again, ReportFormat::json);
#ifndef _WIN32  // see test::schema_valid
  EXPECT_TRUE(schema_valid(refused_json.out, "schemas/create.schema.json")) << refused_json.out;
#endif
  const auto refusal = refused_json.json();
  EXPECT_EQ(refusal.at("exit_code"), kExitRefused);
  EXPECT_TRUE(refusal.at("namespace").at("action").is_null());
  ASSERT_EQ(refusal.at("findings").size(), 1U) << refused_json.out;
  EXPECT_EQ(refusal.at("findings")[0].at("rule"), "namespace.group-other-writable");
  EXPECT_TRUE(refusal.at("findings")[0].at("blocking").get<bool>());
  EXPECT_NE(refusal.at("findings")[0].at("repair").get<std::string>().find("repair` fixes it"), std::string::npos);

  FakeEnvironment nobody = alice_world();
  nobody.users_known.clear();
  const Ran unknown = create(nobody, std::nullopt);
  EXPECT_EQ(unknown.exit, kExitUsage);
  // A usage error is said once, on standard error, as the parser's are.
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err, "hsperfguard: create: no such user: alice\n");
}

TEST(CommandSeam, PsListsTheJvmsOfTheWorldTheEnvironmentShows) {
  FakeEnvironment env = alice_world();
  PsCommandOptions options;
  options.format = "json";
  std::ostringstream out, err;
  ASSERT_EQ(run_ps_command(options, out, err, env), kExitOk) << err.str() << out.str();
  // As root: the processes in one pass with the container scan, then the one temp dir, then
  // its lock state (the live row depends on it).
  EXPECT_EQ(env.calls,
            (std::vector<std::string>{"scan_host_processes", "observe /tmp", "gather_locks /tmp"}));
  const auto report = nlohmann::json::parse(out.str());
  EXPECT_EQ(report.at("generated_at"), format_utc_millis(kNow));
  ASSERT_EQ(report.at("jvms").size(), 1u) << report.dump(2);  // the stale file only with --all
  const auto& jvm = report.at("jvms").at(0);
  EXPECT_EQ(jvm.at("host_pid"), kLivePid);
  EXPECT_EQ(jvm.at("user"), "alice");
  EXPECT_EQ(jvm.at("state"), "live");
  EXPECT_EQ(jvm.at("backing_file"), "/tmp/hsperfdata_alice/4242");

  options.all = true;
  env.euid = kAliceUid;  // not root: no container scan
  std::ostringstream all;
  ASSERT_EQ(run_ps_command(options, all, err, env), kExitOk) << err.str();
  EXPECT_EQ(nlohmann::json::parse(all.str()).at("jvms").size(), 2u) << all.str();
  EXPECT_EQ(std::count(env.calls.begin(), env.calls.end(), "scan_host_processes"), 1);
}

// The fault sweep's finding: ps listed nothing of a temp dir whose listing an I/O error cut
// short, with the error in its report and exit 0; its help says 3 for temp dirs that could
// not be looked into, as for one that could not be opened.
TEST(CommandSeam, PsOfATempDirReadInPartIsIncomplete) {
  FakeEnvironment env = alice_world();
  env.roots.at("/tmp").errors.push_back(ObservationError{"/tmp", "getdents64", EIO, "Input/output error"});
  PsCommandOptions options;
  std::ostringstream out, err;
  EXPECT_EQ(run_ps_command(options, out, err, env), kExitIncomplete) << err.str();
  EXPECT_NE(err.str().find("(first: /tmp: getdents64: Input/output error)"), std::string::npos) << err.str();

  FakeEnvironment unopened = alice_world();  // a namespace that could not be opened: the same
  alice_namespace(unopened).files.clear();
  alice_namespace(unopened).errors.push_back(
      ObservationError{"/tmp/hsperfdata_alice", "openat", EIO, "Input/output error"});
  std::ostringstream out1, err1;
  EXPECT_EQ(run_ps_command(options, out1, err1, unopened), kExitIncomplete) << err1.str();

  FakeEnvironment vanished = alice_world();  // a file gone since it was listed is not a gap
  vanished.roots.at("/tmp").errors.push_back(ObservationError{"/tmp/x", "statx", ENOENT, "No such file or directory"});
  std::ostringstream out2, err2;
  EXPECT_EQ(run_ps_command(options, out2, err2, vanished), kExitOk) << err2.str();

  FakeEnvironment no_users = alice_world();  // nor a user database unread: every row is there
  no_users.roots.at("/tmp").errors.push_back(ObservationError{"/etc/passwd", "read", EIO, "Input/output error"});
  std::ostringstream out3, err3;
  EXPECT_EQ(run_ps_command(options, out3, err3, no_users), kExitOk) << err3.str();
}

// The fault sweep's other finding: ps of a /proc whose listing failed (or was cut short)
// listed only the JVMs with a backing file, with the error in its report and exit 0; a JVM
// without one (a blind or invisible JVM) was missing unsaid. A process that could not be read
// (it exited, or hides its maps) is a note, not a gap.
TEST(CommandSeam, PsOfAProcWhoseListingFailedIsIncomplete) {
  PsCommandOptions options;
  for (const bool containers : {false, true}) {
    FakeEnvironment env = alice_world();
    if (!containers) options.no_containers = true;
    env.process_errors.push_back(ObservationError{"/proc", "getdents64", EIO, "Input/output error"});
    std::ostringstream out, err;
    EXPECT_EQ(run_ps_command(options, out, err, env), kExitIncomplete) << err.str();
    EXPECT_NE(err.str().find("/proc: getdents64: Input/output error"), std::string::npos) << err.str();

    FakeEnvironment gone = alice_world();
    gone.process_errors.push_back(ObservationError{"/proc/4242/maps", "openat", ENOENT, "No such file or directory"});
    gone.process_errors.push_back(ObservationError{"/proc/4243/map_files", "getdents64", EACCES, "Permission denied"});
    std::ostringstream out1, err1;
    EXPECT_EQ(run_ps_command(options, out1, err1, gone), kExitOk) << err1.str();
  }
}

// A stale file's JVM is not up: its row's UPTIME is "-" (its start stays in start_time_ms),
// the live JVM's is its age.
TEST(CommandSeam, PsShowsNoUptimeForAStaleFilesJvm) {
  FakeEnvironment env = alice_world();
  PsCommandOptions options;
  options.all = true;
  std::ostringstream out, err;
  ASSERT_EQ(run_ps_command(options, out, err, env), kExitOk) << err.str() << out.str();
  std::map<std::string, std::string> uptime;  // by state
  std::istringstream lines(out.str());
  std::string header;
  std::getline(lines, header);
  ASSERT_TRUE(header.starts_with("HOST-PID  NS-PID  USER   STATE  UPTIME")) << out.str();
  for (std::string line; std::getline(lines, line) && !line.empty();) {
    std::istringstream words(line);
    std::vector<std::string> cells{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    ASSERT_GE(cells.size(), 5U) << line;
    uptime[cells[3]] = cells[4];
  }
  EXPECT_EQ(uptime.at("stale"), "-") << out.str();
  EXPECT_NE(uptime.at("live"), "-") << out.str();

  options.format = "json";
  std::ostringstream json;
  ASSERT_EQ(run_ps_command(options, json, err, env), kExitOk) << err.str();
  // Held: a range-for over a temporary's member would read a destroyed document.
  const nlohmann::json listed = nlohmann::json::parse(json.str());
  for (const auto& jvm : listed.at("jvms")) {
    if (jvm.at("state") == "stale") {
      EXPECT_EQ(jvm.at("uptime"), "-") << jvm.dump();
      EXPECT_FALSE(jvm.at("start_time_ms").is_null()) << jvm.dump();
    }
  }
}

TEST(CommandSeam, InspectDecodesTheFileTheEnvironmentShows) {
  FakeEnvironment env;
  const std::string path = "/tmp/hsperfdata_alice/4242";
  env.files[path] = plan_region(RegionRequest{std::nullopt, kNow - 90'000, "com.example.Main"}, 4096).bytes;
  env.mapped[kLivePid] = path;
  InspectOptions options;
  options.target = std::to_string(kLivePid);
  std::ostringstream out, err;
  ASSERT_EQ(run_inspect(options, out, err, env), kExitOk) << err.str();
  EXPECT_EQ(err.str(), "");
  // The pid's own mapping, its owner named by the fake user database, its uptime by the fake clock.
  const std::string text = out.str();
  EXPECT_EQ(text.substr(0, text.find("file:")),
            "pid:     4242 (live: it maps this file)\n"
            "main:    com.example.Main\n"
            "user:    alice (uid 1000)\n"
            "started: " + format_utc_millis(kNow - 90'000) + " (up 1m30s)\n")
      << text;
  EXPECT_NE(text.find("file:    " + path + "\n"), std::string::npos) << text;

  // A path: read through the environment as well.
  options.target = path;
  options.format = InspectFormat::json;
  std::ostringstream json;
  ASSERT_EQ(run_inspect(options, json, err, env), kExitOk) << err.str();
  EXPECT_EQ(nlohmann::json::parse(json.str()).at("path"), path);
  EXPECT_EQ(env.calls.back(), "read " + path);
}

// A container JVM's maps name its file from the container's root: inspect prints the path this
// host reaches it by, the container's own beside it, and does not name its owner from this
// host's users (a container's uid 1000 is not this host's alice).
TEST(CommandSeam, InspectOfAContainerJvmPrintsTheHostPath) {
  FakeEnvironment env;
  const std::string inside = "/tmp/hsperfdata_alice/7";
  const std::string host = "/proc/4242/root/tmp/hsperfdata_alice/7";
  env.files[host] = plan_region(RegionRequest{std::nullopt, kNow - 90'000, "com.example.Main"}, 4096).bytes;
  env.mapped[kLivePid] = inside;
  env.mapped_host[kLivePid] = host;
  InspectOptions options;
  options.target = std::to_string(kLivePid);
  std::ostringstream out, err;
  ASSERT_EQ(run_inspect(options, out, err, env), kExitOk) << err.str();
  EXPECT_EQ(err.str(), "");
  const std::string text = out.str();
  EXPECT_NE(text.find("file:    " + host + " (in its container: " + inside + ")\n"), std::string::npos) << text;
  EXPECT_NE(text.find("user:    uid 1000\n"), std::string::npos) << text;

  options.format = InspectFormat::json;
  std::ostringstream json;
  ASSERT_EQ(run_inspect(options, json, err, env), kExitOk) << err.str();
  const auto report = nlohmann::json::parse(json.str());
  EXPECT_EQ(report.at("path"), host);
  EXPECT_EQ(report.at("container_path"), inside);
}

}  // namespace
}  // namespace hsperfguard
