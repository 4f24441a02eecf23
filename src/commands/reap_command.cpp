#include "commands/reap_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <span>

#include "commands/cli_checks.hpp"
#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/run_record.hpp"
#include "commands/output_target.hpp"
#include "decide/reaper.hpp"
#include "model/text_escape.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/liveness.hpp"
#include "platform/lock_and_journal.hpp"
#include "platform/reap.hpp"
#include "platform/signals.hpp"
#include "report/logging.hpp"
#include "report/reap_report.hpp"
#include "report/report_json.hpp"

namespace hsperfguard {

namespace {

using Clock = std::chrono::steady_clock;

// The journal: one JSON line per event, written before each unlink and after each outcome.
class Journal {
 public:
  Journal(platform::AppendLog log, const Plan& plan, Environment& env)
      : log_(std::move(log)), plan_(plan), env_(env) {}

  bool write(const nlohmann::json& line) {
    if (error_) return false;
    error_ = log_.append(dump_json(line, -1));
    return !error_;
  }
  bool before_unlink(const PlanItem& item) {
    nlohmann::json j = {{"event", "unlinking"}, {"at", format_utc_millis(env_.now_epoch_ms())}};
    j["item"] = static_cast<std::size_t>(&item - plan_.items.data());
    put_text(j, "path", item.path);
    if (item.expected) {
      j["dev"] = item.expected->dev;
      j["ino"] = item.expected->ino;
      j["kind"] = to_string(item.expected->kind);
    }
    j["verdict"] = to_string(item.verdict);
    j["reason"] = item.reason;
    return write(j);
  }
  void on_action(const ReapActionRecord& record) {
    nlohmann::json j = action_json(plan_, record);
    j["event"] = "outcome";
    write(j);
  }
  const std::optional<ObservationError>& error() const { return error_; }

 private:
  platform::AppendLog log_;
  const Plan& plan_;
  Environment& env_;
  std::optional<ObservationError> error_;
};

void print_errors(std::ostream& err, const std::vector<ObservationError>& errors) {
  for (const auto& e : errors) {
    err << "hsperfguard: reap: " << e.path << ": " << e.op << ": " << e.message << "\n";
  }
}

// A journal line of ours: a JSON object whose "event" is a string.
bool is_journal_record(std::string_view line) {
  const auto record = nlohmann::json::parse(line, nullptr, false);
  return record.is_object() && record.contains("event") && record["event"].is_string();
}

// Opens the journal and makes sure appending to it is right: a new file, or one whose first
// line is a record of ours (appending to anything else would corrupt some other file). A last
// line cut short (a run killed while writing it, before records were written whole) is ended,
// and the next record says so, so that no record is ever glued onto another.
std::optional<platform::AppendLog> open_journal(const std::string& path, ObservationError& error,
                                                Environment& env) {
  std::optional<platform::AppendLog> log = platform::AppendLog::open(path, &error);
  if (!log || log->created() || log->size() == 0) return log;
  constexpr std::size_t kLookAt = 64 * 1024;
  const auto head = log->read(0, kLookAt, &error);
  if (!head) return std::nullopt;
  const auto newline = head->find('\n');
  const bool ours = newline != std::string::npos
                        ? is_journal_record(std::string_view(*head).substr(0, newline))
                        : head->starts_with("{\"") && head->size() == log->size();  // one record, cut short
  if (!ours) {
    error = ObservationError{path, "read", 0,
                             "not a journal of hsperfguard (its first line is not one of its records): "
                             "nothing appended"};
    return std::nullopt;
  }
  const auto last = log->read(log->size() - 1, 1, &error);
  if (!last) return std::nullopt;
  if (*last != "\n") {
    nlohmann::json note = {{"event", "incomplete-line"},
                           {"at", format_utc_millis(env.now_epoch_ms())},
                           {"note", "the line before this one was cut short by an earlier run"}};
    if (auto failed = log->append_raw("\n" + dump_json(note, -1) + "\n")) {
      error = *failed;
      return std::nullopt;
    }
  }
  return log;
}

std::int64_t elapsed_ms(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
}

// The attach files beside the namespaces are listed and planned this many at a time.
constexpr std::size_t kAttachFilesPerPart = 4096;

}  // namespace

namespace {

// Called when a temp root is planned, with the index of its first plan item (its items are
// the plan's last ones) and the root's run limits. false: the run must stop (the journal
// failed), and no further temp root is observed.
using ActOnRoot = std::function<bool(std::size_t first_item, const RunLimits& root_limits)>;

// observe_and_plan, with `act` called for each temp root as soon as it is planned: the host's
// (or the one --tmpdir, --root or --container names) is discovered, observed, planned and
// acted on before any container's temp dir is looked at, and each container's gets its share
// of what is left of the deadline (RootSchedule).
void observe_plan_and_act(const ReapCommandOptions& options, ReapRun& run, const RunLimits& limits,
                          Environment& env, const ActOnRoot& act) {
  if (run.started_at_ms == 0) run.started_at_ms = env.now_epoch_ms();
  run.options.min_age_ms = options.min_age_ms;
  run.options.include_special = options.include_special;
  run.options.remove_empty_namespaces = options.remove_empty_namespaces;

  // The pipeline, namespace by namespace: observed without regions (a few ahead, by worker
  // threads), its liveness evidence gathered, the regions that can decide read (a live
  // pid's), and planned, while the next ones are observed. The lock table is read once, when
  // the first namespace is gathered (as the audit does).
  Clock::duration planning{}, acting{};
  const DiscoverOptions discover = discover_options(env, options.tmpdir, options.root,
                                                    options.containers, options.container_pid);
  platform::ObserveOptions observe;
  observe.max_region_bytes = 0;
  observe.open_files = false;  // planned from lstat; the executor re-checks each entry
  observe.attach_files = false;  // observed after the namespaces, in parts
  const std::size_t region_bytes = platform::ObserveOptions{}.max_region_bytes;
  const std::unique_ptr<LivenessSource> liveness = env.liveness(limits);
  ReapPlanner planner(run.plan, run.options, env.host().euid);
  std::vector<ObservationError> discovery_errors;  // containers we could not look into
  const auto discovering = Clock::now();
  const std::vector<RootSpec> specs = env.discover(discover, &discovery_errors, limits);
  run.timings.discover_ms = elapsed_ms(discovering);
  const auto observing = Clock::now();
  std::size_t cut_off = 0;  // temp roots after the first stopped at their share
  bool halted = false;      // `act` said stop
  std::set<std::size_t> looked_at;  // of specs
  // Containers cut off at their share before anything of them was seen, waiting for their
  // second turn (by their index in specs), as their first turn left them.
  std::map<std::size_t, TempRootFacts> waiting;
  RootSchedule schedule(limits, specs.size());
  while (const auto turn = halted ? std::nullopt : schedule.next()) {
    looked_at.insert(turn->index);
    const RootSpec& spec = specs[turn->index];
    const RunLimits& this_root = turn->limits;
    observe.limits = this_root;
    const std::size_t r = run.roots.size();
    const std::size_t first_item = run.plan.items.size();
    std::vector<NamespaceFacts> namespaces;
    std::vector<ObservationError> region_errors;
    bool begun = false;  // its plan begun (a namespace of it was observed)
    TempRootFacts root =
        env.observe_temp_root(spec, observe,
                              [&](const TempRootFacts& shell, NamespaceFacts&& ns) {
                                liveness->gather(ns, platform::liveness_scope_of(shell));
                                env.read_regions(shell, std::span(&ns, 1), region_may_decide,
                                                 region_bytes, region_errors);
                                const auto started = Clock::now();
                                if (!begun) planner.begin_root(shell, r, env.now_epoch_ms());
                                begun = true;
                                planner.add_namespace(shell, ns, namespaces.size());
                                planning += Clock::now() - started;
                                namespaces.push_back(std::move(ns));
                              },
                              {});
    // The container stopped since discovery (nothing of it was seen).
    if (!options.container_pid && namespaces.empty() && container_vanished(root)) continue;
    // Cut off at its share before anything of it was seen: looked at again at the end.
    waiting.erase(turn->index);
    if (root.stopped && !begun && schedule.again()) {
      waiting.emplace(turn->index, std::move(root));
      continue;
    }
    // Processes the container scan could not look into (the first root carries them): a
    // container of theirs is not reaped.
    if (!root.opened || root.stopped || !root.unobserved.empty()) run.incomplete = true;
    if (root.stopped && turn->index > 0) ++cut_off;
    root.namespaces = std::move(namespaces);
    root.errors.insert(root.errors.end(), region_errors.begin(), region_errors.end());
    if (!begun) planner.begin_root(root, r, env.now_epoch_ms());
    // The attach files beside the namespaces, a part at a time (any user can make any number):
    // each planned as it comes, its facts kept only when the plan keeps it. Their pids are
    // looked up as the backing files' names are: in every pid namespace using this temp dir.
    std::vector<ObservationError> attach_errors;
    const platform::LivenessScope attach_scope = platform::liveness_scope_of(root);
    env.observe_attach_files(
        spec, root, kAttachFilesPerPart, this_root,
        [&](std::vector<AttachFacts>&& part) {
          const auto started = Clock::now();
          for (AttachFacts& attach : part) {
            liveness->gather(attach, attach_scope);
            root.attach_files.push_back(std::move(attach));
            if (!planner.add_attach(root, root.attach_files.size() - 1)) root.attach_files.pop_back();
          }
          planning += Clock::now() - started;
        },
        attach_errors);
    // A container that stopped since its namespaces were observed: dropped, not an error.
    std::erase_if(attach_errors, [&](const ObservationError& e) { return container_gone(root, e); });
    root.errors.insert(root.errors.end(), attach_errors.begin(), attach_errors.end());
    const auto started = Clock::now();
    planner.end_root(root);
    planning += Clock::now() - started;
    run.roots.push_back(std::move(root));
    if (act) {
      const auto acting_started = Clock::now();
      halted = !act(first_item, this_root);
      acting += Clock::now() - acting_started;
    }
  }
  // Those whose second turn never came (the run was stopped): as their first left them.
  for (auto& [index, root] : waiting) {
    run.incomplete = true;
    ++cut_off;
    planner.begin_root(root, run.roots.size(), env.now_epoch_ms());
    planner.end_root(root);
    run.roots.push_back(std::move(root));
  }
  // Containers that could not be looked into are errors of the first root (the host's).
  if (!run.roots.empty()) {
    auto& errors = run.roots.front().errors;
    errors.insert(errors.end(), discovery_errors.begin(), discovery_errors.end());
  }
  if (const char* why = limits.reached()) {
    run.incomplete = true;
    std::string message =
        std::string("stopped (") + why + ") before every temp dir and namespace was observed and planned";
    if (cut_off > 0) {
      message += "; " + std::to_string(cut_off) + " of " + std::to_string(specs.size() - 1) +
                 " container temp dirs cut off (their errors say where)";
    }
    if (looked_at.size() < specs.size()) {
      message += "; " + std::to_string(specs.size() - looked_at.size()) + " of " +
                 std::to_string(specs.size()) + " temp dirs not looked at";
    }
    run.errors.push_back(ObservationError{"reap", "observe", EINTR, std::move(message)});
  } else if (cut_off > 0) {
    run.errors.push_back(ObservationError{"reap", "observe", EINTR,
                                          "stopped (deadline) in " + std::to_string(cut_off) + " of " +
                                              std::to_string(specs.size() - 1) +
                                              " container temp dirs, each at its share of --max-runtime "
                                              "(their errors say where)"});
  } else if (halted) {
    run.incomplete = true;
    run.errors.push_back(ObservationError{"reap", "act", 0,
                                          "stopped when the journal failed: " +
                                              std::to_string(specs.size() - looked_at.size()) + " of " +
                                              std::to_string(specs.size()) + " temp dirs were not looked at"});
  }
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  run.timings.plan_ms = ms(planning);
  run.timings.execute_ms = ms(acting);
  run.timings.observe_ms = elapsed_ms(observing) - run.timings.plan_ms - run.timings.execute_ms;
}

}  // namespace

void observe_and_plan(const ReapCommandOptions& options, ReapRun& run, const RunLimits& limits) {
  observe_and_plan(options, run, limits, system_environment());
}

void observe_and_plan(const ReapCommandOptions& options, ReapRun& run, const RunLimits& limits,
                      Environment& env) {
  observe_plan_and_act(options, run, limits, env, {});
}

int run_reap_command(const ReapCommandOptions& options, std::ostream& out, std::ostream& err) {
  return run_reap_command(options, out, err, system_environment());
}

int run_reap_command(const ReapCommandOptions& options, std::ostream& out, std::ostream& err,
                     Environment& env) {
  ReapRun run;
  run.started_at_ms = env.now_epoch_ms();
  const auto started = Clock::now();
  run.dry_run = options.dry_run;
  run.max_runtime_ms = options.max_runtime_ms;
  run.journal = options.dry_run ? std::nullopt : options.journal;
  std::optional<Clock::time_point> deadline;
  if (options.max_runtime_ms) deadline = started + std::chrono::milliseconds(*options.max_runtime_ms);
  // SIGINT, SIGTERM (and SIGHUP on POSIX): the executor stops between two entries, and
  // the report says what was done.
  const platform::StopSignals signals;

  // One reap at a time. A dry run changes nothing and takes no lock.
  platform::InstanceLock lock;
  if (!options.dry_run && options.lock_file) {
    run.lock.path = options.lock_file;
    lock = platform::InstanceLock::acquire(*options.lock_file, options.wait_for_lock, deadline,
                                           &signals.requested());
    run.lock.waited = options.wait_for_lock;
    run.lock.wait_ms = elapsed_ms(started);
    switch (lock.status()) {
      case platform::InstanceLock::Status::acquired:
        run.lock.acquired = true;
        break;
      case platform::InstanceLock::Status::busy:
        if (signals.requested().load()) {
          err << "hsperfguard: reap: interrupted while waiting for " << terminal_safe(*options.lock_file)
              << ": nothing was done\n";
          return kExitIncomplete;
        }
        // Another run is reaping: that is this run's work done, not a failure.
        err << "hsperfguard: reap: another reap holds " << terminal_safe(*options.lock_file);
        if (lock.holder_pid()) err << " (pid " << *lock.holder_pid() << ")";
        err << (options.wait_for_lock ? "; gave up waiting" : "; not waiting (--wait waits)")
            << "\n";
        return kExitOk;
      case platform::InstanceLock::Status::error:
        print_errors(err, {*lock.error()});
        // Not permitted (the default's directory is root's): what gets past it is another lock
        // file, or none. A lock file that is not ours has its own advice in the error.
        if (const int code = lock.error()->code; code == EACCES || code == EPERM || code == EROFS) {
          err << "hsperfguard: reap: cannot take the single-instance lock: run as root, or pass --lock-file "
                 "FILE (in a directory only you may write), or --no-lock if no other reap runs at the same time\n";
        }
        return kExitIncomplete;
    }
  }
  run.timings.lock_ms = elapsed_ms(started);

  std::optional<platform::AppendLog> journal_log;
  if (run.journal) {
    ObservationError e;
    journal_log = open_journal(*run.journal, e, env);
    if (!journal_log) {
      print_errors(err, {e});
      // Not permitted: what gets past it. A file that is not a journal of ours has its own advice.
      if (e.code == EACCES || e.code == EPERM || e.code == EROFS) {
        err << "hsperfguard: reap: cannot use the journal: pass --journal FILE (in a directory only you may "
               "write), or leave --journal out; nothing was removed\n";
      }
      return kExitIncomplete;
    }
  }

  RunLimits limits;
  limits.stop = &signals.requested();
  limits.deadline = deadline;
  // Each temp root is acted on as soon as it is planned, within its own limits (the host's
  // first, before any container's temp dir is looked at).
  std::optional<Journal> journal;
  if (journal_log) journal.emplace(std::move(*journal_log), run.plan, env);
  if (!options.dry_run) run.execution.emplace();
  const ActOnRoot act = [&](std::size_t first_item, const RunLimits& root_limits) {
    if (options.dry_run) return true;
    if (journal) {
      const RootPlan& root = run.plan.roots.back();
      const auto items = std::span(run.plan.items).subspan(first_item);
      const auto removals = std::count_if(items.begin(), items.end(),
                                          [](const PlanItem& item) { return item.action == ReapAction::remove; });
      nlohmann::json start = {{"event", "start"},
                              {"at", format_utc_millis(env.now_epoch_ms())},
                              {"root", root.root},
                              {"planned_removals", removals},
                              {"items", items.size()}};
      put_text(start, "temp_dir", root.temp_dir);
      journal->write(start);
    }
    platform::ExecuteOptions exec;
    exec.deadline = root_limits.deadline;
    exec.stop = &signals.requested();
    exec.first_item = first_item;
    if (journal) {
      exec.before_unlink = [&](const PlanItem& item) { return journal->before_unlink(item); };
      exec.on_action = [&](const PlanItem&, const ReapActionRecord& r) { journal->on_action(r); };
    }
    ExecutionResult done = env.execute_plan(run.plan, exec);
    ExecutionResult& all = *run.execution;
    if (all.actions.empty()) {
      // The first temp dir with removals (usually the only one): its records are taken as
      // they are, not copied (100,000 records are 17 MB, twice over at the peak).
      all.actions = std::move(done.actions);
    } else {
      all.actions.insert(all.actions.end(), std::make_move_iterator(done.actions.begin()),
                         std::make_move_iterator(done.actions.end()));
    }
    all.errors.insert(all.errors.end(), done.errors.begin(), done.errors.end());
    all.deadline_reached = all.deadline_reached || done.deadline_reached;
    all.interrupted = all.interrupted || done.interrupted;
    return !journal || !journal->error();
  };
  observe_plan_and_act(options, run, limits, env, act);
  if (journal) {
    const ReapOutcomeCounts c = count_outcomes(*run.execution);
    journal->write({{"event", "finish"},
                    {"at", format_utc_millis(env.now_epoch_ms())},
                    {"removed", c.removed},
                    {"vanished", c.vanished},
                    {"became_live", c.became_live},
                    {"changed", c.changed},
                    {"failed", c.failed},
                    {"not_attempted", c.not_attempted}});
    if (journal->error()) run.errors.push_back(*journal->error());
  }
  run.finished_at_ms = env.now_epoch_ms();

  // --quiet: the report goes only to --output; `out` gets what needs a person.
  std::ostream no_report(nullptr);
  std::ostream& report_out = options.quiet ? no_report : out;
  // Text unless --format json: the same wherever stdout goes (a pipe, a file, cron's mail).
  const ReportFormat format = options.format.value_or(ReportFormat::text);
  const HostInfo host = env.host();
  // The JSON report is streamed (about 1 KiB an entry); the text one is small enough.
  auto render = [&](const platform::ContentSink& write) {
    if (format == ReportFormat::json) {
      write_reap_report_json(run, host, write);
    } else {
      write(reap_report_text(run, options.verbose));
    }
  };
  if (options.output) {
    // Written even when the run was interrupted: it says what was removed and what was not.
    if (auto error = write_output_to(*options.output, render, platform::OutputOptions{}, &report_out)) {
      err << "hsperfguard: reap: cannot write " << terminal_safe(*options.output) << ": "
          << terminal_safe(error->op) << ": " << terminal_safe(error->message) << "\n";
      return kExitIncomplete;
    }
  } else {
    render([&](std::string_view piece) { report_out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
    report_out.flush();
  }
  if (options.quiet) out << reap_attention_text(run) << std::flush;
  // Metrics and log lines (the summary's level follows the exit status).
  const int exit_code = record_reap_run(options, run, reap_exit_code(run), err);
  if (run.incomplete) {
    for (const auto& root : run.roots) print_errors(err, root.errors);
    print_errors(err, run.errors);
  } else if (run.execution) {
    print_errors(err, run.execution->errors);
    print_errors(err, run.errors);
  }
  return exit_code;
}

SubcommandHook add_reap_command(CLI::App& app) {
  struct Parsed {
    ReapCommandOptions options;
    std::string format, journal;
    std::string lock_file = kDefaultReapLockFile;
    std::string min_age = "60s", max_runtime;
    bool no_lock = false, no_wait = false, no_containers = false;
    UnattendedFlags unattended;
  };
  auto p = std::make_shared<Parsed>();
  auto* cmd = app.add_subcommand(
      "reap", "Remove stale and foreign hsperfdata files safely (plan first, then act)");
  cmd->footer(
      "The plan (every entry, its verdict, the evidence and the action) is made first and\n"
      "printed as is by --dry-run; execution then re-checks each entry before unlinking it.\n"
      "An entry the identity the reaper acts with may not remove (another user's file it may\n"
      "not read, a namespace its owner may not write) is kept (not-permitted) with a remedy:\n"
      "left to a person, in the dry run and the real run alike, and not a failure.\n"
      "DURATION: 90 (seconds), 500ms, 90s, 15m, 2h, 1d; at most 3650d.\n"
      "Lock: one reap at a time per host. Without --wait, a run that finds the lock held\n"
      "exits 0 at once (the other run does the work); with --wait it waits, for at most\n"
      "--max-runtime when given, then exits 0 as well.");
  const TempDirOptions temp_dir =
      add_temp_dir_options(cmd, p->options.tmpdir, p->options.root, "Reap", "this temp dir of this host");
  cmd->add_flag("--dry-run", p->options.dry_run, "Print the plan; change nothing");
  cmd->add_option("--min-age", p->min_age,
                  "Leave entries changed (ctime or mtime) less than this long ago")
      ->check(duration())
      ->capture_default_str();
  cmd->add_option("--max-runtime", p->max_runtime,
                  "Stop after this long: no new removal is started (checked between entries; "
                  "in discovery or observation: exit 3). The host's temp dir (or --tmpdir, --root) "
                  "is reaped first; each container's then has an equal share of what is left")
      ->check(duration());
  add_format_option(cmd, p->format);
  add_output_option(cmd, p->options.output);
  cmd->add_flag("-v,--verbose", p->options.verbose, "Text: list every plan item (none grouped)");
  cmd->add_flag("--include-special", p->options.include_special,
                "Also remove stale FIFOs, sockets and devices in namespaces");
  cmd->add_flag("--remove-empty-namespaces", p->options.remove_empty_namespaces,
                "Also remove empty namespace directories of users that no longer exist");
  auto* lock_file_opt =
      cmd->add_option("--lock-file", p->lock_file,
                      "Single-instance lock file (in a directory only its owner may write; no link "
                      "in its path is followed)")
          ->check(file_path())
          ->capture_default_str();
  cmd->add_flag("--no-lock", p->no_lock, "Take no single-instance lock")->excludes(lock_file_opt);
  auto* wait_flag = cmd->add_flag("--wait", p->options.wait_for_lock,
                                  "Wait for a running reap to finish (bounded by --max-runtime)");
  cmd->add_flag("--no-wait", p->no_wait, "Exit 0 at once if another reap runs (default)")
      ->excludes(wait_flag);
  cmd->add_option("--journal", p->journal,
                  "Append one JSON line per removal to FILE as the run goes (survives a kill; a "
                  "file of ours alone, in a directory only its owner may write)")
      ->check(file_path());
  add_container_options(cmd, p->no_containers, p->options.container_pid,
                        "Reap only the temp dir of the container that process PID is in")
      .container->excludes(temp_dir.tmpdir);
  p->unattended.add_to(cmd);
  return SubcommandHook{
      cmd, [p]() {
        ReapCommandOptions reap = p->options;
        if (!p->journal.empty()) reap.journal = p->journal;
        reap.format = parse_report_format(p->format);
        reap.min_age_ms = *parse_duration_ms(p->min_age);
        if (!p->max_runtime.empty()) reap.max_runtime_ms = *parse_duration_ms(p->max_runtime);
        reap.lock_file = p->no_lock ? std::nullopt : std::optional<std::string>(p->lock_file);
        reap.containers = !p->no_containers;
        const auto logger = p->unattended.make_logger("reap", std::cerr);
        if (!logger) return static_cast<int>(kExitIncomplete);
        reap.logger = logger.get();
        reap.metrics = p->unattended.metrics_file();
        reap.quiet = p->unattended.quiet;
        return run_reap_command(reap, std::cout, logger->errors());
      }};
}

}  // namespace hsperfguard
