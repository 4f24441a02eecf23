#include "audit_command.hpp"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include "audit.hpp"
#include "discover.hpp"
#include "exit_codes.hpp"
#include "operations.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/liveness.hpp"
#include "platform/observe.hpp"
#include "platform/ps.hpp"
#include "ps.hpp"
#include "report_json.hpp"
#include "report_text.hpp"

namespace hsperfguard {
namespace {

// The profile, then the policy file on top of it. Returns an error message on failure.
std::optional<std::string> load_policy(const AuditCommandOptions& options, Policy& policy) {
  auto profile = builtin_profile(options.profile);
  if (!profile) return "unknown profile '" + options.profile + "'";
  policy = *profile;
  if (!options.policy_file) return std::nullopt;
  ObservationError error;
  const auto text = platform::read_config_file(*options.policy_file, &error);
  if (!text) return *options.policy_file + ": " + error.message;
  const auto document = nlohmann::json::parse(*text, nullptr, false);
  if (document.is_discarded()) return *options.policy_file + ": not valid JSON";
  if (auto problem = apply_policy(policy, document)) return *options.policy_file + ": " + *problem;
  return std::nullopt;
}

std::optional<ObservationError> write_report_file(
    const std::string& path, const std::function<void(const platform::ContentSink&)>& render) {
  return platform::write_file_atomically_streamed(path, render);
}

// The audit reads one counter of each region (liveness and the report use the JVM's start
// time); keeping no others saves most of a file's memory when 100,000 files are audited.
constexpr std::string_view kAuditCounters[] = {"sun.rt.createVmBeginTime"};

// What the stage made of one namespace, waiting for its turn to be counted and written.
// For a JSON report the namespace is rendered and counted on the worker, which also frees
// its facts and judgement there (memory freed by the thread that allocated it is cheap to
// reuse); for text both stay whole until the end.
struct StagedNamespace {
  NamespaceJudgement judgement;  // text report only
  AuditTally tally;              // JSON report only: this namespace counted
  std::string text;              // JSON report only: its object
};

// Stage results by namespace position, put by workers and taken in order by the consumer.
class StagedNamespaces {
 public:
  void put(std::size_t index, StagedNamespace done) {
    const std::lock_guard lock(mutex_);
    ready_.emplace(index, std::move(done));
  }
  // The stage of a namespace always ran before the namespace is consumed (observe_temp_root
  // promises it); a namespace without one would be reported unjudged, so that is an error.
  StagedNamespace take(std::size_t index) {
    const std::lock_guard lock(mutex_);
    auto node = ready_.extract(index);
    if (!node)
      throw std::logic_error("audit: a namespace reached the report without its judgement");
    return std::move(node.mapped());
  }
  // Text buffers go round: a namespace of 1,000 files renders about 1.5 MB, and fresh memory
  // of that size costs page faults every time (and a free on another thread than the one
  // that allocated it).
  std::string spare_text() {
    const std::lock_guard lock(mutex_);
    if (spare_.empty()) return {};
    std::string text = std::move(spare_.back());
    spare_.pop_back();
    return text;
  }
  void recycle(std::string&& text) {
    text.clear();
    const std::lock_guard lock(mutex_);
    spare_.push_back(std::move(text));
  }

 private:
  std::mutex mutex_;
  std::map<std::size_t, StagedNamespace> ready_;
  std::vector<std::string> spare_;
};

// Liveness gatherers for the workers: a gatherer caches what it read and is used by one
// thread at a time; a worker borrows one for a namespace.
class GathererPool {
 public:
  void gather(NamespaceFacts& ns, const platform::LivenessScope& scope) {
    std::unique_ptr<platform::LivenessGatherer> gatherer;
    {
      const std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        gatherer = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!gatherer) gatherer = std::make_unique<platform::LivenessGatherer>();
    gatherer->gather(ns, scope);
    const std::lock_guard lock(mutex_);
    idle_.push_back(std::move(gatherer));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<platform::LivenessGatherer>> idle_;
};

platform::ObserveOptions audit_observe_options() {
  platform::ObserveOptions observe;
  observe.kept_counters = kAuditCounters;
  return observe;
}

}  // namespace

int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err) {
  AuditResult result;
  if (auto problem = load_policy(options, result.policy)) {
    err << "hsperfguard: audit: " << *problem << "\n";
    return kExitUsage;
  }
  result.started_at_ms = platform::now_epoch_ms();
  ReportContext context;
  context.host = platform::observe_host();
  context.fail_on = options.fail_on;
  const ReportFormat format =
      options.format.value_or(platform::stdout_is_terminal() && !options.output ? ReportFormat::text
                                                                               : ReportFormat::json);
  const DiscoverOptions discover =
      discover_options(options.tmpdir, options.root, options.containers, options.container_pid);

  // The pipeline, namespace by namespace: observed (a few ahead, by worker threads), its
  // liveness evidence gathered, judged and, for JSON, rendered on the worker that observed it
  // (the stage), then counted and written in order on this thread and dropped at once: an
  // audit of any size holds a few namespaces. The text report is for people and small trees:
  // it is written from the whole result at the end. Each worker's gatherer reads the lock
  // table once, when it judges its first namespace: a JVM that takes its lock after that and
  // whose file is judged later is judged by its process (alive, mapping its file: live),
  // never stale.
  AuditTally tally;
  const auto run = [&](const platform::ContentSink& write) {
    std::optional<AuditJsonWriter> json;
    if (format == ReportFormat::json) json.emplace(context, result.policy.name, result.started_at_ms, write);
    // Blind JVMs (libjvm mapped, no backing file) go to the namespace HotSpot would have used.
    std::vector<ObservationError> ignored;  // a process that exited or hides its maps
    const auto jvms = platform::observe_jvm_processes(ignored);
    std::vector<ObservationError> discovery_errors;  // containers we could not look into
    GathererPool gatherers;
    for (const auto& spec : discover_roots_scanning(discover, &discovery_errors)) {
      const std::size_t r = result.roots.size();
      std::vector<NamespaceFacts> kept;
      std::vector<NamespaceJudgement> kept_judgements;
      StagedNamespaces staged;
      std::size_t streamed = 0;
      const auto stage = [&](const TempRootFacts& shell, std::size_t index, NamespaceFacts& ns) {
        StagedNamespace done;
        gatherers.gather(ns, platform::liveness_scope_of(shell));
        assign_blind_jvms(shell, ns, jvms);
        NamespaceJudgement judgement = judge_namespace(shell, ns, result.policy);
        if (json) {
          done.text = staged.spare_text();
          render_audit_namespace(done.text, r, shell, ns, judgement);
          done.tally.add_namespace(ns, judgement);
          ns = NamespaceFacts{};  // written and counted: freed here, not by the consumer
        } else {
          done.judgement = std::move(judgement);
        }
        staged.put(index, std::move(done));
      };
      TempRootFacts root = platform::observe_temp_root(
          spec, audit_observe_options(),
          [&](const TempRootFacts&, NamespaceFacts&& ns) {
            StagedNamespace done = staged.take(streamed++);
            if (json) {
              tally.merge(std::move(done.tally));
              json->add_rendered_namespace(done.text);
              staged.recycle(std::move(done.text));
            } else {
              tally.add_namespace(ns, done.judgement);
              kept.push_back(std::move(ns));
              kept_judgements.push_back(std::move(done.judgement));
            }
          },
          stage);
      // The container stopped since discovery (nothing of it was seen).
      if (!options.container_pid && streamed == 0 && container_vanished(root)) continue;
      // A temp dir that could not be opened leaves nothing judged beneath it.
      if (!root.opened) result.incomplete = true;
      RootJudgement judgement = judge_root(root, result.policy);
      root.namespaces = std::move(kept);
      judgement.namespaces = std::move(kept_judgements);
      result.roots.push_back(std::move(root));
      result.judgements.push_back(std::move(judgement));
    }
    // Containers that could not be looked into are errors of the first root (the host's).
    if (!result.roots.empty()) {
      auto& errors = result.roots.front().errors;
      errors.insert(errors.end(), discovery_errors.begin(), discovery_errors.end());
    }
    for (std::size_t r = 0; r < result.roots.size(); ++r) tally.add_root(result.roots[r], result.judgements[r]);
    result.finished_at_ms = platform::now_epoch_ms();
    if (json) {
      json->finish(result, tally);
    } else {
      write(audit_report_text(result, context));
    }
  };
  if (options.output) {
    if (auto error = write_report_file(*options.output, run)) {
      err << "hsperfguard: audit: cannot write " << *options.output << ": " << error->op << ": "
          << error->message << "\n";
      return kExitIncomplete;
    }
  } else {
    run([&](std::string_view piece) {
      out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    out.flush();
  }
  if (!record_audit_run(options, result, tally, err)) return kExitIncomplete;  // metrics, log lines
  if (result.incomplete) {
    for (const auto& root : result.roots) {
      for (const auto& e : root.errors) {
        err << "hsperfguard: audit: " << e.path << ": " << e.op << ": " << e.message << "\n";
      }
    }
    return kExitIncomplete;
  }
  return tally.worst && *tally.worst >= options.fail_on ? kExitFindings : kExitOk;
}

}  // namespace hsperfguard
