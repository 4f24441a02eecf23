// What the commands ask of the world, behind one interface that a test can fake (ninja's
// DiskInterface is the model): the clock, this host and its users, discovery, observation,
// the processes and the backing files they map, liveness evidence, and the ways of acting
// (removing, repairing, creating). system_environment() is the real one, over src/platform/;
// tests hand every subcommand that looks at the world (audit, reap, repair, create, ps,
// inspect) a fake one and run it in process on hand-built facts, without touching a file
// system or a process table. `rules` looks at nothing but the catalogue.
//
// Writing the report, the metrics file, the journal and the log lines, taking the reap's
// lock, reading a policy file and catching stop signals stay with the commands
// (platform/output.hpp, platform/files.hpp, platform/lock_and_journal.hpp,
// platform/system_log.hpp, platform/signals.hpp): they are the commands' own files and the
// process's own state, not the world they judge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decide/discover.hpp"
#include "model/facts.hpp"
#include "model/host_info.hpp"
#include "model/reap_plan.hpp"
#include "model/repair_plan.hpp"
#include "model/run_limits.hpp"
#include "platform/create.hpp"
#include "platform/files.hpp"
#include "platform/liveness.hpp"
#include "platform/observe.hpp"
#include "platform/ps.hpp"
#include "platform/reap.hpp"
#include "platform/users.hpp"

namespace hsperfguard {

// Liveness evidence for one thread at a time: it may cache what it read (a lock table, a
// process), so a run uses one per thread that gathers.
class LivenessSource {
 public:
  virtual ~LivenessSource() = default;
  // Fills the liveness of the files of `ns` (platform::LivenessGatherer::gather).
  virtual void gather(NamespaceFacts& ns, const platform::LivenessScope& scope) = 0;
  // Fills the liveness of an attach file of the temp dir of `scope`
  // (platform::LivenessGatherer::gather).
  virtual void gather(AttachFacts& attach, const platform::LivenessScope& scope) = 0;
};

// Liveness evidence as `ps` gathers it: a whole temp root at a time, from the processes ps
// has already read, and the lock state only when a row depends on it (reading the lock table
// costs more than the rest of a `ps`).
class RootLivenessSource {
 public:
  virtual ~RootLivenessSource() = default;
  // platform::LivenessGatherer::gather(TempRootFacts&), without the lock state.
  virtual void gather(TempRootFacts& root) = 0;
  // platform::LivenessGatherer::gather_locks: the lock state gather() left out.
  virtual void gather_locks(TempRootFacts& root) = 0;
};

class Environment {
 public:
  virtual ~Environment() = default;

  // ---- The clock and this host
  virtual std::int64_t now_epoch_ms() = 0;
  virtual HostInfo host() = 0;
  virtual std::string default_temp_dir() = 0;
  virtual bool stdout_is_terminal() = 0;
  // The width of the terminal on stdout; nullopt when stdout is not one.
  virtual std::optional<std::size_t> stdout_terminal_columns() = 0;
  // The page size a region must be a multiple of (platform::page_size).
  virtual std::size_t page_size() = 0;
  // The user database of the system whose root is `root` (its etc/passwd), or of this host.
  virtual std::unique_ptr<platform::UserDatabase> users(const std::optional<std::string>& root) = 0;

  // ---- Observing
  // The temp roots to look at (and the container scan when `options` want it); the errors
  // of containers that could not be looked into go to `errors`.
  virtual std::vector<RootSpec> discover(const DiscoverOptions& options,
                                         std::vector<ObservationError>* errors,
                                         const RunLimits& limits) = 0;
  // platform::observe_account_temp_dirs: the temp dirs of other accounts (Windows).
  virtual AccountTempDirs account_temp_dirs(const std::string& host_temp_dir,
                                            const std::vector<JvmProcessFacts>& jvms) = 0;
  // platform::observe_temp_root, streaming form (its contract: stage, then consume, per
  // namespace part, in name order).
  virtual TempRootFacts observe_temp_root(const RootSpec& spec,
                                          const platform::ObserveOptions& options,
                                          const platform::NamespaceConsumer& consume,
                                          const platform::NamespaceStage& stage) = 0;
  // platform::observe_attach_files: the attach files beside the namespaces of `root`, a part
  // at a time.
  virtual std::size_t observe_attach_files(const RootSpec& spec, const TempRootFacts& root,
                                           std::size_t per_part, const RunLimits& limits,
                                           const platform::AttachConsumer& consume,
                                           std::vector<ObservationError>& errors) = 0;
  // platform::read_regions: the regions of the files `wanted` accepts.
  virtual void read_regions(const TempRootFacts& root, std::span<NamespaceFacts> namespaces,
                            const std::function<bool(const FileFacts&)>& wanted,
                            std::size_t max_bytes, std::vector<ObservationError>& errors) = 0;
  // Processes that map a libjvm (ps, and the audit's invisible JVMs):
  // platform::observe_jvm_processes.
  virtual std::vector<JvmProcessFacts> observe_jvm_processes(
      std::vector<ObservationError>& errors, const RunLimits& limits,
      std::vector<ObservationError>* partial) = 0;
  // A fresh liveness source (one per gathering thread), whose reads of /proc stop once
  // `limits` are reached.
  virtual std::unique_ptr<LivenessSource> liveness(const RunLimits& limits) = 0;

  // ---- Processes and the backing files they map (ps, inspect)
  // The container scan and the JVMs in one pass over the processes
  // (platform::scan_host_processes).
  virtual platform::HostProcesses scan_host_processes(const ContainerScanOptions& options,
                                                      std::vector<ObservationError>& errors) = 0;
  // Liveness for `ps`, taking the JVMs and the container placements it already read.
  virtual std::unique_ptr<RootLivenessSource> ps_liveness(const std::vector<JvmProcessFacts>& jvms,
                                                          const ContainerScan& placed) = 0;
  // platform::observe_process and platform::process_name.
  virtual ProcessFacts observe_process(std::int32_t pid) = 0;
  virtual std::optional<std::string> process_name(std::int32_t pid) = 0;
  // A backing file a person named or `inspect PID` chose (platform::read_regular_file).
  virtual platform::FileRead read_backing_file(const std::string& path, std::size_t max_bytes) = 0;
  // The backing file `pid` maps, read through its mapping (platform::read_mapped_backing_file).
  virtual std::optional<platform::MappedBackingFile> read_mapped_backing_file(std::int32_t pid,
                                                                              std::size_t max_bytes) = 0;
  // The files named `pid` in the namespaces of `temp_dir` (platform::find_backing_files).
  virtual std::vector<BackingFileCandidate> find_backing_files(const std::string& temp_dir,
                                                               std::int32_t pid) = 0;

  // ---- Acting
  virtual ExecutionResult execute_plan(const Plan& plan,
                                       const platform::ExecuteOptions& options) = 0;
  virtual std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan) = 0;
  // platform::make_namespace and platform::make_backing_file (create).
  virtual platform::CreateResult make_namespace(const platform::NamespaceRequest& request) = 0;
  virtual platform::CreateResult make_backing_file(const platform::BackingFileRequest& request) = 0;
};

// The real world of this process: src/platform/ for this platform.
Environment& system_environment();

// Whole temp roots, observed through `env` (what repair judges: every namespace at once).
std::vector<TempRootFacts> observe_whole(Environment& env, const std::vector<RootSpec>& specs);
// One whole temp root, observed through `env` with `options` (create, ps).
TempRootFacts observe_whole(Environment& env, const RootSpec& spec,
                            const platform::ObserveOptions& options);

}  // namespace hsperfguard
