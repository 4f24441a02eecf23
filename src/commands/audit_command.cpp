#include "commands/audit_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "commands/cli_checks.hpp"
#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/run_record.hpp"
#include "commands/output_target.hpp"
#include "decide/audit.hpp"
#include "decide/ps.hpp"
#include "model/rule_catalog.hpp"
#include "model/run_limits.hpp"
#include "model/shell_word.hpp"
#include "model/text_escape.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/signals.hpp"
#include "report/logging.hpp"
#include "report/report_json.hpp"
#include "report/report_text.hpp"

namespace hsperfguard {
namespace {

// The profile, then the policy file on top of it; `read` is the file that was applied. Returns
// an error message on failure.
std::optional<std::string> load_policy(const AuditCommandOptions& options, Policy& policy,
                                       std::optional<std::string>& read) {
  auto profile = builtin_profile(options.profile);
  if (!profile) return "unknown profile '" + terminal_safe(options.profile) + "'";
  policy = *profile;
  if (!options.policy_file) return std::nullopt;
  ObservationError error;
  const auto text = platform::read_config_file(*options.policy_file, &error);
  if (!text && options.policy_file_is_default && platform::config_file_absent(error)) return std::nullopt;
  // The open's own answer names what is wrong with the path (no look before it).
  const std::string named = (options.policy_file_is_default ? "" : "--policy ") + *options.policy_file;
  if (!text) return named + ": " + missing_path_reason(error.code).value_or(error.message);
  read = *options.policy_file;
  if (auto problem = apply_policy_text(policy, *text)) return named + ": " + *problem;
  return std::nullopt;
}

// The audit reads one counter of each region (liveness and the report use the JVM's start
// time); keeping no others saves most of a file's memory when 100,000 files are audited.
constexpr std::string_view kAuditCounters[] = {"sun.rt.createVmBeginTime"};

// What the stage made of one namespace (or one part of a large one), waiting for its turn to
// be counted and written: rendered (JSON or text) and counted on the worker, which also frees
// its facts and judgement there (memory freed by the thread that allocated it is cheap to
// reuse).
struct StagedNamespace {
  AuditTally tally;     // this namespace (part) counted
  std::string text;     // its object (JSON) or its lines (text)
  std::string attention;  // --quiet: its findings at or above --fail-on, one line each
  std::string closing;  // JSON, first part of a namespace in parts: what closes its object
  bool continuation = false;  // a later part of a namespace
};

// Stage results by (namespace position, part), put by workers and taken in order by the
// consumer.
class StagedNamespaces {
 public:
  using Key = std::pair<std::size_t, std::size_t>;
  void put(Key key, StagedNamespace done) {
    const std::lock_guard lock(mutex_);
    ready_.emplace(key, std::move(done));
  }
  // The stage of a namespace always ran before the namespace is consumed (observe_temp_root
  // promises it); a namespace without one would be reported unjudged, so that is an error.
  StagedNamespace take(Key key) {
    const std::lock_guard lock(mutex_);
    auto node = ready_.extract(key);
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
  std::map<Key, StagedNamespace> ready_;
  std::vector<std::string> spare_;
};

// Liveness gatherers for the workers: a gatherer caches what it read and is used by one
// thread at a time; a worker borrows one for a namespace.
class GathererPool {
 public:
  GathererPool(Environment& env, const RunLimits& limits) : env_(env), limits_(limits) {}
  void gather(NamespaceFacts& ns, const platform::LivenessScope& scope) {
    with_gatherer([&](LivenessSource& gatherer) { gatherer.gather(ns, scope); });
  }
  void gather(AttachFacts& attach, const platform::LivenessScope& scope) {
    with_gatherer([&](LivenessSource& gatherer) { gatherer.gather(attach, scope); });
  }

 private:
  template <typename Use>
  void with_gatherer(const Use& use) {
    std::unique_ptr<LivenessSource> gatherer;
    {
      const std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        gatherer = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!gatherer) gatherer = env_.liveness(limits_);
    use(*gatherer);
    const std::lock_guard lock(mutex_);
    idle_.push_back(std::move(gatherer));
  }

  Environment& env_;
  const RunLimits& limits_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<LivenessSource>> idle_;
};

// A namespace listing more entries than this is observed, judged and written in parts, and
// the temp dir's namespaces (then its attach files) are taken this many at a time, so that an
// audit's memory grows
// neither with what one namespace holds nor with how many there are (any local user can fill
// their own namespace, and make namespaces in /tmp).
constexpr std::size_t kFilesPerPart = 4096;

platform::ObserveOptions audit_observe_options(const RunLimits& limits) {
  platform::ObserveOptions observe;
  observe.attach_files = false;  // observed after the namespaces, in parts (observe_attach)
  observe.kept_counters = kAuditCounters;
  observe.files_per_part = kFilesPerPart;
  observe.namespaces_per_batch = kFilesPerPart;
  observe.limits = limits;
  return observe;
}

}  // namespace

int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err,
                      Environment& env) {
  AuditResult result;
  std::optional<std::string> policy_read;
  if (auto problem = load_policy(options, result.policy, policy_read)) {
    err << "hsperfguard: audit: " << terminal_safe(*problem)
        << (options.policy_file_is_default ? " (the default policy file; --no-policy ignores it)" : "") << "\n";
    return kExitUsage;
  }
  result.started_at_ms = env.now_epoch_ms();
  // --quiet: the report goes only to --output; `out` gets what needs a person.
  std::ostream no_report(nullptr);
  std::ostream& report_out = options.quiet ? no_report : out;
  ReportContext context;
  context.host = env.host();
  context.fail_on = options.fail_on;
  context.policy_file = policy_read;
  // Text unless --format json: the same wherever stdout goes (a pipe, a file, cron's mail).
  const ReportFormat format = options.format.value_or(ReportFormat::text);
  TextOptions text_options;
  text_options.verbose = options.verbose;
  text_options.color = !options.output && color_wanted(options.color, env.stdout_is_terminal());
  if (options.container_pid) {
    text_options.scope = " --container " + std::to_string(*options.container_pid);
  } else if (options.tmpdir) {
    text_options.scope = " " + shell_option("--tmpdir", *options.tmpdir);
  } else if (options.root) {
    text_options.scope = " " + shell_option("--root", *options.root);
  }
  DiscoverOptions discover = discover_options(env, options.tmpdir, options.root,
                                              options.containers, options.container_pid);
  discover.containers_only = options.containers_only;
  if (options.containers_only && !discover.containers) {
    err << "hsperfguard: audit: --containers-only looks into other mount namespaces: it needs root (run it "
           "as root, or leave --containers-only out to audit this mount namespace's temp dir)\n";
    return kExitUsage;
  }

  // SIGINT, SIGTERM (and SIGHUP on POSIX) and --max-runtime stop the run between two
  // namespaces (or parts): the report says so, a report file is not put in place, exit 3.
  // Under --every the loop's signals stand (one StopSignals at a time).
  std::optional<platform::StopSignals> own_signals;
  if (options.stop == nullptr) own_signals.emplace();
  const std::atomic<bool>& stop_requested =
      options.stop != nullptr ? *options.stop : own_signals->requested();
  RunLimits limits;
  limits.stop = &stop_requested;
  if (options.max_runtime_ms) {
    limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(*options.max_runtime_ms);
  }

  // The pipeline, namespace by namespace (a large one part by part): observed (a few ahead,
  // by worker threads), its liveness evidence gathered, judged and rendered on the worker that
  // observed it (the stage), then counted and written in order on this thread and dropped at
  // once: an audit of any size holds a few namespace parts. Each worker's gatherer reads the
  // lock table once, when it judges its first namespace: a JVM that takes its lock after that
  // and whose file is judged later is judged by its process (alive, mapping its file: live),
  // never stale.
  AuditTally tally;
  bool no_temp_dir = false;
  std::vector<ObservationError> discovery_problems;  // of a run that found no temp dir
  const auto run = [&](const platform::ContentSink& write) {
    std::optional<AuditJsonWriter> json;
    if (format == ReportFormat::json) json.emplace(context, result.policy.name, result.started_at_ms, write);
    // Invisible JVMs (libjvm mapped, no backing file or a deleted one) go to the namespace
    // HotSpot would have used, or to its temp dir when there is none.
    std::vector<ObservationError> ignored;  // a process that exited or hides its maps
    // Processes whose maps were read only in part (whether they are JVMs is not known) and
    // a stop while reading them are the host's errors, with the containers'.
    std::vector<ObservationError> discovery_errors;
    const auto jvms = env.observe_jvm_processes(ignored, limits, &discovery_errors);
    text_options.jvm_processes = jvms.size();
    GathererPool gatherers(env, limits);
    const auto specs = env.discover(discover, &discovery_errors, limits);
    // The attach files beside a temp dir's namespaces (any user can make any number), judged,
    // counted and written a part at a time. Their JSON list follows every namespace of every
    // temp dir, so there each temp dir's are observed (its directory opened again) after all.
    const auto observe_attach = [&](const RootSpec& spec, std::size_t r, TempRootFacts& root,
                                    const RunLimits& attach_limits) {
      std::vector<ObservationError> errors;
      // Judged as the reaper judges them: their pids in every pid namespace using the temp dir.
      const platform::LivenessScope scope = platform::liveness_scope_of(root);
      env.observe_attach_files(
          spec, root, kFilesPerPart, attach_limits,
          [&](std::vector<AttachFacts>&& part) {
            std::string text;
            std::string attention;  // --quiet
            for (AttachFacts& attach : part) {
              gatherers.gather(attach, scope);
              const Findings findings = judge_attach(root, attach, result.policy);
              tally.add_attach(attach, findings);
              if (options.quiet) render_attention_findings(attention, findings, options.fail_on);
              if (json) {
                json->add_attach(r, attach, findings);
              } else {
                render_audit_attach_text(text, attach, findings, text_options);
              }
            }
            if (!text.empty()) write(text);
            out << attention;
          },
          errors);
      // A container that stopped since its namespaces were observed: dropped, not an error.
      std::erase_if(errors, [&](const ObservationError& e) { return container_gone(root, e); });
      root.errors.insert(root.errors.end(), errors.begin(), errors.end());
    };
    std::vector<const RootSpec*> root_specs;  // of result.roots, whose attach files follow
    // The temp dir judged, its text closed, and added to the result. In JSON its attach files
    // follow every namespace of every temp dir: it is judged once they are, after the loop.
    const auto finish_root = [&](TempRootFacts&& root, const RootSpec& spec, const RunLimits& attach_limits,
                                 std::size_t namespaces, bool opened, const std::set<std::string>& users_seen) {
      // Invisible JVMs whose namespace does not exist are the temp dir's.
      for (const auto& jvm : jvms) {
        if (jvm.invisible() && jvm.user && jvm_uses_temp_root(jvm, root) && !users_seen.contains(*jvm.user)) {
          root.invisible_jvms.push_back(jvm);
        }
      }
      const std::size_t r = result.roots.size();
      if (json) {
        result.roots.push_back(std::move(root));
        root_specs.push_back(&spec);
        return;
      }
      if (!opened) write(audit_root_opening_text(root, text_options));
      observe_attach(spec, r, root, attach_limits);
      RootJudgement judgement = judge_root(root, result.policy);
      if (options.quiet) out << attention_root_text(judgement, options.fail_on);
      write(audit_root_closing_text(root, judgement, namespaces, text_options));
      result.roots.push_back(std::move(root));
      result.judgements.push_back(std::move(judgement));
    };
    // The first temp dir (the host's, or the one --tmpdir, --root or --container names) has
    // the run's limits; each container's an equal share of what is left (RootSchedule).
    std::size_t cut_off = 0;  // container temp dirs stopped at their share
    // Containers cut off at their share before anything of them was seen, waiting for their
    // second turn (by their index in specs), as their first turn left them.
    std::map<std::size_t, TempRootFacts> waiting;
    RootSchedule schedule(limits, specs.size());
    std::size_t looked_at = 0;  // temp dirs given a first turn
    while (const auto turn = schedule.next()) {
      if (!waiting.contains(turn->index)) ++looked_at;
      const RootSpec& spec = specs[turn->index];
      const RunLimits& this_root = turn->limits;
      const std::size_t r = result.roots.size();
      StagedNamespaces staged;
      std::mutex users_mutex;
      std::set<std::string> users_seen;  // namespaces of the temp dir, for invisible JVMs
      std::size_t namespaces = 0;  // begun (their first part consumed)
      std::string closing;         // of the namespace in parts being written
      bool opened = false;         // text: the temp dir's opening line is written
      // The temp dir's own findings, judged once for all its namespaces (whether repair acts
      // beneath it depends on them), by the first worker that stages one.
      std::once_flag root_judged;
      Findings root_findings;
      const auto stage = [&](const TempRootFacts& shell, std::size_t n, NamespaceFacts& ns) {
        std::call_once(root_judged, [&] { root_findings = judge_root(shell, result.policy).findings; });
        StagedNamespace done;
        done.continuation = ns.part > 0;
        gatherers.gather(ns, platform::liveness_scope_of(shell));
        if (ns.part == 0) {
          assign_invisible_jvms(shell, ns, jvms);
          const std::lock_guard lock(users_mutex);
          users_seen.insert(ns.user_suffix);
        }
        const NamespaceJudgement judgement = judge_namespace(shell, ns, result.policy, root_findings);
        done.text = staged.spare_text();
        if (json) {
          render_audit_namespace(done.text, ns.more_parts ? &done.closing : nullptr, r, shell, ns, judgement);
        } else {
          render_audit_namespace_text(done.text, ns, judgement, text_options);
        }
        done.tally.add_namespace(ns, judgement);
        if (options.quiet) render_attention_namespace(done.attention, judgement, options.fail_on);
        const StagedNamespaces::Key key{n, ns.part};
        const bool more_parts = ns.more_parts;
        ns = NamespaceFacts{};  // rendered and counted: freed here, not by the consumer
        ns.part = key.second;   // what the consumer needs to find it
        ns.more_parts = more_parts;
        staged.put(key, std::move(done));
      };
      TempRootFacts root = env.observe_temp_root(
          spec, audit_observe_options(this_root),
          [&](const TempRootFacts& shell, NamespaceFacts&& ns) {
            if (ns.part == 0) ++namespaces;
            StagedNamespace done = staged.take({namespaces - 1, ns.part});
            if (!json && !opened) write(audit_root_opening_text(shell, text_options));
            opened = true;
            tally.merge(std::move(done.tally));
            out << done.attention;
            if (!json) {
              write(done.text);
            } else if (ns.part > 0) {
              json->add_rendered_continuation(done.text);
            } else {
              json->add_rendered_namespace(done.text);
              closing = std::move(done.closing);
            }
            if (json && !ns.more_parts && !closing.empty()) {
              json->add_rendered_continuation(closing);
              closing.clear();
            }
            staged.recycle(std::move(done.text));
          },
          stage);
      // A namespace in parts whose last part never came (the run stopped) is closed.
      if (json && !closing.empty()) json->add_rendered_continuation(closing);
      // The container stopped since discovery (nothing of it was seen).
      if (!options.container_pid && namespaces == 0 && container_vanished(root)) continue;
      // Cut off at its share before anything of it was seen: looked at again at the end.
      waiting.erase(turn->index);
      if (root.stopped && namespaces == 0 && schedule.again()) {
        waiting.emplace(turn->index, std::move(root));
        continue;
      }
      // A temp dir that could not be opened leaves nothing judged beneath it; one stopped
      // before its end, what comes after; processes the container scan could not look into
      // (the first root carries them), a container of theirs.
      if (!root.opened || root.stopped || !root.unobserved.empty()) result.incomplete = true;
      if (root.stopped && turn->index > 0) ++cut_off;
      finish_root(std::move(root), spec, this_root, namespaces, opened, users_seen);
    }
    // Those whose second turn never came (the run was stopped): as their first left them.
    for (auto& [index, root] : waiting) {
      result.incomplete = true;
      ++cut_off;
      finish_root(std::move(root), specs[index], limits, 0, false, {});
    }
    for (std::size_t r = 0; r < root_specs.size(); ++r) {
      observe_attach(*root_specs[r], r, result.roots[r], limits);
      RootJudgement judgement = judge_root(result.roots[r], result.policy);
      if (options.quiet) out << attention_root_text(judgement, options.fail_on);
      result.judgements.push_back(std::move(judgement));
    }
    if (const char* why = limits.reached()) {
      result.stopped = why;
      result.incomplete = true;
    } else if (cut_off > 0) {
      result.stopped = "deadline";  // some containers' shares of it (each root says which)
    }
    // Containers that could not be looked into are errors of the first root (the host's),
    // and so are those the run stopped before.
    if (!result.roots.empty()) {
      auto& errors = result.roots.front().errors;
      errors.insert(errors.end(), discovery_errors.begin(), discovery_errors.end());
      if (looked_at < specs.size()) {
        errors.push_back(ObservationError{"audit", "observe", EINTR,
                                          "stopped (" + result.stopped.value_or("interrupted") + "): " +
                                              std::to_string(specs.size() - looked_at) + " of " +
                                              std::to_string(specs.size()) + " temp dirs not looked at"});
      }
    }
    if (result.roots.empty()) {
      // --containers-only found no other mount namespace: nothing was audited.
      result.incomplete = true;
      no_temp_dir = true;
      discovery_problems = std::move(discovery_errors);
    }
    for (std::size_t r = 0; r < result.roots.size(); ++r) tally.add_root(result.roots[r], result.judgements[r]);
    result.finished_at_ms = env.now_epoch_ms();
    if (json) {
      json->finish(result, tally);
    } else {
      write(audit_summary_text(tally, result, context, text_options));
    }
  };
  if (options.output) {
    // A stopped run does not replace the previous report with a partial one.
    platform::OutputOptions output;
    output.stop = &stop_requested;
    if (auto error = write_output_to(*options.output, run, output, &report_out)) {
      err << "hsperfguard: audit: cannot write " << terminal_safe(*options.output) << ": "
          << terminal_safe(error->op) << ": " << terminal_safe(error->message) << "\n";
      return kExitIncomplete;
    }
  } else {
    run([&](std::string_view piece) {
      report_out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    report_out.flush();
  }
  out.flush();
  // Metrics and log lines (the summary's level follows the exit status).
  const int exit_code = record_audit_run(options, result, tally, audit_exit_code(options, result, tally), err);
  if (no_temp_dir) {
    err << "hsperfguard: audit: no temp dir of another mount namespace was found (in a pod: the node's "
           "pid namespace, hostPID, and CAP_SYS_PTRACE are needed)\n";
    for (const auto& e : discovery_problems) {
      err << "hsperfguard: audit: " << e.path << ": " << e.op << ": " << e.message << "\n";
    }
  }
  if (result.incomplete) {
    for (const auto& root : result.roots) {
      for (const auto& e : root.errors) {
        err << "hsperfguard: audit: " << e.path << ": " << e.op << ": " << e.message << "\n";
      }
    }
  }
  return exit_code;
}

int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err) {
  return run_audit_command(options, out, err, system_environment());
}

int run_audit_every(const AuditCommandOptions& options, std::ostream& out, std::ostream& err,
                    Environment& env, const WaitForStop& wait) {
  const platform::StopSignals signals;
  AuditCommandOptions each = options;
  each.stop = &signals.requested();
  const auto every = std::chrono::milliseconds(options.every_ms.value_or(0));
  for (;;) {
    const auto began = std::chrono::steady_clock::now();
    const int exit_code = run_audit_command(each, out, err, env);
    // A usage error stays one (the policy file will not mend itself); a stop asked during the
    // run ends the loop with that run's status.
    if (exit_code == kExitUsage || signals.requested()) return exit_code;
    const auto next = began + every;
    const auto now = std::chrono::steady_clock::now();
    if (!wait(next > now ? std::chrono::duration_cast<std::chrono::milliseconds>(next - now)
                         : std::chrono::milliseconds(0),
              signals.requested())) {
      return kExitOk;  // stopped between two runs: nothing was cut short
    }
  }
}

bool wait_unless_stopped(std::chrono::milliseconds duration, const std::atomic<bool>& stop) {
  // In steps, so that a stop signal ends the wait within a quarter of a second.
  constexpr auto kStep = std::chrono::milliseconds(250);
  const auto until = std::chrono::steady_clock::now() + duration;
  for (;;) {
    if (stop.load()) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(until - now, kStep));
  }
}

SubcommandHook add_audit_command(CLI::App& app) {
  struct Parsed {
    AuditCommandOptions options;
    std::string format, policy_file, max_runtime, every;
    std::string fail_on = "medium";
    std::string color = "auto";
    bool no_containers = false;
    bool no_policy = false;
    UnattendedFlags unattended;
  };
  auto p = std::make_shared<Parsed>();
  auto* cmd = app.add_subcommand("audit", "Audit every hsperfdata namespace and report");
  const TempDirOptions temp_dir =
      add_temp_dir_options(cmd, p->options.tmpdir, p->options.root, "Audit", "this temp dir of this host");
  add_profile_option(cmd, p->options.profile);
  auto* policy_opt = cmd->add_option("--policy", p->policy_file,
                                     "JSON policy: disable rules, change severities (default: "
                                     "/etc/hsperfguard/policy.json when it exists; hsperfguard-policy(5))")
                         ->check(file_path());
  cmd->add_flag("--no-policy", p->no_policy, "Do not read /etc/hsperfguard/policy.json: the profile alone")
      ->excludes(policy_opt);
  add_format_option(cmd, p->format);
  add_output_option(cmd, p->options.output);
  cmd->add_flag("-v,--verbose", p->options.verbose, "Text: list every finding with its evidence (none grouped)");
  cmd->add_option("--color", p->color, "auto (on a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--max-runtime", p->max_runtime,
                  "Stop after this long (exit 3; the report says where it stopped)")
      ->check(duration());
  cmd->add_option("--every", p->every,
                  "Run again this long after each run began, until SIGTERM or SIGINT (at least 1s; "
                  "a run that takes longer is followed at once)")
      ->check(duration())
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const auto ms = parse_duration_ms(text);
            return ms && *ms >= 1000 ? "" : "--every is at least 1s: " + text;
          },
          "", ""));
  cmd->add_option("--fail-on", p->fail_on, "Exit 1 when a finding is at least this severe")
      ->check(CLI::IsMember({"info", "low", "medium", "high", "critical"}))
      ->capture_default_str();
  const ContainerOptions containers = add_container_options(
      cmd, p->no_containers, p->options.container_pid,
      "Audit only the temp dir of the container that process PID is in");
  containers.container->excludes(temp_dir.tmpdir);
  cmd->add_flag("--containers-only", p->options.containers_only,
                "Audit every other mount namespace's temp dir, not our own (as root; in a pod "
                "with the node's pid namespace: the node's /tmp and every container's)")
      ->excludes(temp_dir.tmpdir)
      ->excludes(temp_dir.root)
      ->excludes(containers.no_containers)
      ->excludes(containers.container);
  p->unattended.add_to(cmd);
  return SubcommandHook{
      cmd, [p]() {
        AuditCommandOptions audit = p->options;
        if (!p->policy_file.empty()) {
          audit.policy_file = p->policy_file;
        } else if (!p->no_policy) {
          audit.policy_file = platform::default_policy_file();
          audit.policy_file_is_default = true;
        }
        audit.format = parse_report_format(p->format);
        audit.fail_on = *parse_severity(p->fail_on);
        audit.color = parse_color_choice(p->color);
        if (!p->max_runtime.empty()) audit.max_runtime_ms = *parse_duration_ms(p->max_runtime);
        audit.containers = !p->no_containers;
        const auto logger = p->unattended.make_logger("audit", std::cerr);
        if (!logger) return static_cast<int>(kExitIncomplete);
        audit.logger = logger.get();
        audit.metrics = p->unattended.metrics_file();
        audit.quiet = p->unattended.quiet;
        if (!p->every.empty()) {
          audit.every_ms = *parse_duration_ms(p->every);
          return run_audit_every(audit, std::cout, logger->errors(), system_environment(),
                                 wait_unless_stopped);
        }
        return run_audit_command(audit, std::cout, logger->errors());
      }};
}

}  // namespace hsperfguard
