// The real Environment: every call goes to src/platform/ for this platform.
#include "commands/environment.hpp"

#include <utility>

#include "platform/containers.hpp"
#include "platform/create.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/process.hpp"
#include "platform/ps.hpp"

namespace hsperfguard {
namespace {

// Discovery and its container scan in one call. The scan stops once `limits` are reached
// (its errors then say so).
std::vector<RootSpec> discover_roots_scanning(const DiscoverOptions& options,
                                              std::vector<ObservationError>* errors,
                                              const RunLimits& limits) {
  if (!wants_container_scan(options)) return discover_roots(options);
  ContainerScanOptions scan_options = container_scan_options(options);
  scan_options.limits = limits;
  const ContainerScan scan = platform::scan_container_temp_dirs(scan_options);
  if (errors != nullptr) errors->insert(errors->end(), scan.errors.begin(), scan.errors.end());
  return discover_roots(options, &scan);
}

class SystemLiveness final : public LivenessSource {
 public:
  explicit SystemLiveness(const RunLimits& limits)
      : gatherer_(platform::LivenessOptions{.limits = limits}) {}
  void gather(NamespaceFacts& ns, const platform::LivenessScope& scope) override {
    gatherer_.gather(ns, scope);
  }
  void gather(AttachFacts& attach, const platform::LivenessScope& scope) override {
    gatherer_.gather(attach, scope);
  }

 private:
  platform::LivenessGatherer gatherer_;
};

class SystemPsLiveness final : public RootLivenessSource {
 public:
  SystemPsLiveness(const std::vector<JvmProcessFacts>& jvms, const ContainerScan& placed)
      : gatherer_(platform::LivenessOptions{.lock_state = false}) {
    gatherer_.adopt(jvms);
    gatherer_.adopt(placed);
  }
  void gather(TempRootFacts& root) override { gatherer_.gather(root); }
  void gather_locks(TempRootFacts& root) override { gatherer_.gather_locks(root); }

 private:
  platform::LivenessGatherer gatherer_;
};

class SystemEnvironment final : public Environment {
 public:
  std::int64_t now_epoch_ms() override { return platform::now_epoch_ms(); }
  HostInfo host() override { return platform::observe_host(); }
  std::string default_temp_dir() override { return platform::default_temp_dir(); }
  bool stdout_is_terminal() override { return platform::stdout_is_terminal(); }
  std::optional<std::size_t> stdout_terminal_columns() override {
    return platform::stdout_terminal_columns();
  }
  std::size_t page_size() override { return platform::page_size(); }
  std::unique_ptr<platform::UserDatabase> users(const std::optional<std::string>& root) override {
    return root ? platform::root_user_database(*root) : platform::host_user_database();
  }

  std::vector<RootSpec> discover(const DiscoverOptions& options,
                                 std::vector<ObservationError>* errors,
                                 const RunLimits& limits) override {
    return discover_roots_scanning(options, errors, limits);
  }
  AccountTempDirs account_temp_dirs(const std::string& host_temp_dir,
                                    const std::vector<JvmProcessFacts>& jvms) override {
    return platform::observe_account_temp_dirs(host_temp_dir, jvms);
  }
  TempRootFacts observe_temp_root(const RootSpec& spec, const platform::ObserveOptions& options,
                                  const platform::NamespaceConsumer& consume,
                                  const platform::NamespaceStage& stage) override {
    return platform::observe_temp_root(spec, options, consume, stage);
  }
  std::size_t observe_attach_files(const RootSpec& spec, const TempRootFacts& root,
                                   std::size_t per_part, const RunLimits& limits,
                                   const platform::AttachConsumer& consume,
                                   std::vector<ObservationError>& errors) override {
    return platform::observe_attach_files(spec, root, per_part, limits, consume, errors);
  }
  void read_regions(const TempRootFacts& root, std::span<NamespaceFacts> namespaces,
                    const std::function<bool(const FileFacts&)>& wanted, std::size_t max_bytes,
                    std::vector<ObservationError>& errors) override {
    platform::read_regions(root, namespaces, wanted, max_bytes, errors);
  }
  std::vector<JvmProcessFacts> observe_jvm_processes(std::vector<ObservationError>& errors,
                                                     const RunLimits& limits,
                                                     std::vector<ObservationError>* partial) override {
    return platform::observe_jvm_processes(errors, limits, partial);
  }
  std::unique_ptr<LivenessSource> liveness(const RunLimits& limits) override {
    return std::make_unique<SystemLiveness>(limits);
  }

  platform::HostProcesses scan_host_processes(const ContainerScanOptions& options,
                                              std::vector<ObservationError>& errors) override {
    return platform::scan_host_processes(options, errors);
  }
  std::unique_ptr<RootLivenessSource> ps_liveness(const std::vector<JvmProcessFacts>& jvms,
                                                  const ContainerScan& placed) override {
    return std::make_unique<SystemPsLiveness>(jvms, placed);
  }
  ProcessFacts observe_process(std::int32_t pid) override { return platform::observe_process(pid); }
  std::optional<std::string> process_name(std::int32_t pid) override {
    return platform::process_name(pid);
  }
  platform::FileRead read_backing_file(const std::string& path, std::size_t max_bytes) override {
    return platform::read_regular_file(path, max_bytes);
  }
  std::optional<platform::MappedBackingFile> read_mapped_backing_file(std::int32_t pid,
                                                                      std::size_t max_bytes) override {
    return platform::read_mapped_backing_file(pid, max_bytes);
  }
  std::vector<BackingFileCandidate> find_backing_files(const std::string& temp_dir,
                                                       std::int32_t pid) override {
    return platform::find_backing_files(temp_dir, pid);
  }

  ExecutionResult execute_plan(const Plan& plan, const platform::ExecuteOptions& options) override {
    return platform::execute_plan(plan, options);
  }
  std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan) override {
    return platform::execute_repair(plan);
  }
  platform::CreateResult make_namespace(const platform::NamespaceRequest& request) override {
    return platform::make_namespace(request);
  }
  platform::CreateResult make_backing_file(const platform::BackingFileRequest& request) override {
    return platform::make_backing_file(request);
  }
};

}  // namespace

Environment& system_environment() {
  static SystemEnvironment environment;
  return environment;
}

std::vector<TempRootFacts> observe_whole(Environment& env, const std::vector<RootSpec>& specs) {
  std::vector<TempRootFacts> roots;
  roots.reserve(specs.size());
  for (const auto& spec : specs) roots.push_back(observe_whole(env, spec, platform::ObserveOptions{}));
  return roots;
}

TempRootFacts observe_whole(Environment& env, const RootSpec& spec,
                            const platform::ObserveOptions& options) {
  std::vector<NamespaceFacts> namespaces;
  TempRootFacts root = env.observe_temp_root(
      spec, options,
      [&](const TempRootFacts&, NamespaceFacts&& ns) { namespaces.push_back(std::move(ns)); }, {});
  root.namespaces = std::move(namespaces);
  return root;
}

}  // namespace hsperfguard
