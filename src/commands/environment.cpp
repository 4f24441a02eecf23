#include "commands/environment.hpp"

#include <utility>

#include "commands/discovery.hpp"
#include "platform/create.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/ps.hpp"

namespace hsperfguard {
namespace {

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

class SystemEnvironment final : public Environment {
 public:
  std::int64_t now_epoch_ms() override { return platform::now_epoch_ms(); }
  HostInfo host() override { return platform::observe_host(); }
  std::string default_temp_dir() override { return platform::default_temp_dir(); }
  bool stdout_is_terminal() override { return platform::stdout_is_terminal(); }

  std::vector<RootSpec> discover(const DiscoverOptions& options,
                                 std::vector<ObservationError>* errors,
                                 const RunLimits& limits) override {
    return discover_roots_scanning(options, errors, limits);
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

  ExecutionResult execute_plan(const Plan& plan, const platform::ExecuteOptions& options) override {
    return platform::execute_plan(plan, options);
  }
  std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan) override {
    return platform::execute_repair(plan);
  }
};

}  // namespace

Environment& system_environment() {
  static SystemEnvironment environment;
  return environment;
}

std::vector<TempRootFacts> observe_whole(Environment& env, const std::vector<RootSpec>& specs) {
  std::vector<TempRootFacts> roots;
  for (const auto& spec : specs) {
    std::vector<NamespaceFacts> namespaces;
    TempRootFacts root = env.observe_temp_root(
        spec, platform::ObserveOptions{},
        [&](const TempRootFacts&, NamespaceFacts&& ns) { namespaces.push_back(std::move(ns)); },
        {});
    root.namespaces = std::move(namespaces);
    roots.push_back(std::move(root));
  }
  return roots;
}

}  // namespace hsperfguard
