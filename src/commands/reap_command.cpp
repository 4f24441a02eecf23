#include "commands/reap_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <ostream>
#include <span>

#include "commands/cli_checks.hpp"
#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/output_target.hpp"
#include "commands/reap_journal.hpp"
#include "commands/root_loop.hpp"
#include "commands/run_record.hpp"
#include "decide/audit.hpp"
#include "decide/reaper.hpp"
#include "model/text_escape.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/liveness.hpp"
#include "platform/lock_and_journal.hpp"
#include "platform/reap.hpp"
#include "platform/signals.hpp"
#include "platform/spool_file.hpp"
#include "report/logging.hpp"
#include "report/reap_report.hpp"

namespace hsperfguard {

namespace {

using Clock = std::chrono::steady_clock;

void print_errors(std::ostream& err, const std::vector<ObservationError>& errors) {
  for (const auto& e : errors) {
    err << "hsperfguard: reap: " << e.path << ": " << e.op << ": " << e.message << "\n";
  }
}

std::int64_t elapsed_ms(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
}

// The attach files beside the namespaces are listed and planned this many at a time.
constexpr std::size_t kAttachFilesPerPart = 4096;

}  // namespace

namespace {

// A reap in parts: called when a part of the run is planned (the items run.plan holds: a part
// of a namespace's files, or a temp dir's attach files), with its temp dir's run limits. It
// acts on the part, reports it and drops it (ReapRoots::drop_part). false: the run must stop
// (the journal failed), and no further temp root is observed.
using OnPart = std::function<bool(const RunLimits& root_limits)>;

// The namespace's files are observed, planned, acted on and reported this many at a time, and
// the temp dir's namespaces listed this many at a time. The observing threads read up to
// about ten parts ahead of the one acted on (observe_pipeline_posix.cpp: four of the namespace
// being acted on, four of later ones, one being staged by each worker) at about 1 KB a file;
// in parts of 4,096 the reap held 41 MB at 1,000,000 files against 14 MB at 100,000
// (namespaces of 1,000 files, never in parts); at 1,024 the read-ahead is that of the smaller
// tree, whatever the number of files (18 MB at 1,000,000).
constexpr std::size_t kFilesPerPart = 1024;
constexpr std::size_t kNamespacesPerBatch = 4096;

// One turn of a temp root (root_loop.hpp): its facts, whether a namespace of it was observed
// (its plan begun), and where its facts are kept.
struct ReapTurn {
  TempRootFacts root;
  bool seen = false;
  const RootSpec* spec = nullptr;
  std::size_t r = 0;  // its index among run.roots
};

// The reap's visitor of the temp roots: each root observed without regions (namespaces a
// few ahead, by worker threads), its liveness evidence gathered, the regions that can decide
// read (a live pid's), and planned namespace by namespace while the next ones are observed;
// then its attach files. The lock table is read once, when the first namespace is gathered
// (as the audit does), and the processes read are kept for the run (live ones only: a gone
// pid is a bit), so every part is judged on the same evidence a run planned whole had.
//
// With `on_part` (run_reap_command), the run goes in parts: a namespace comes a part of
// kFilesPerPart files at a time, and each part, once planned, is handed to `on_part` and then
// dropped (its files, items and actions; counts stay), so that the run holds one part of
// files whatever their number. Without it (observe_and_plan), every fact and item is kept.
class ReapRoots {
 public:
  ReapRoots(ReapRun& run, const RunLimits& limits, Environment& env, const OnPart& on_part,
            const std::optional<std::string>& user)
      : run_(run),
        user_(user),
        env_(env),
        on_part_(on_part),
        liveness_(env.liveness(limits)),
        planner_(run.plan, run.options, env.host().euid) {
    observe_.max_region_bytes = 0;
    observe_.open_files = false;    // planned from lstat; the executor re-checks each entry
    observe_.attach_files = false;  // observed after the namespaces, in parts
    if (on_part_) {
      observe_.files_per_part = kFilesPerPart;
      observe_.namespaces_per_batch = kNamespacesPerBatch;
    }
  }

  ReapTurn observe(const RootSpec& spec, const RunLimits& root_limits) {
    ReapTurn turn;
    turn.spec = &spec;
    turn.r = run_.roots.size();
    observe_.limits = root_limits;
    std::vector<NamespaceFacts> namespaces;
    std::vector<ObservationError> region_errors;
    turn.root = env_.observe_temp_root(
        spec, observe_,
        [&](const TempRootFacts& shell, NamespaceFacts&& ns) {
          // --user: another user's namespace is out of scope, neither planned nor counted.
          if (user_ && ns.user_suffix != *user_) return;
          liveness_->gather(ns, platform::liveness_scope_of(shell));
          env_.read_regions(shell, std::span(&ns, 1), region_may_decide, region_bytes_, region_errors);
          const auto started = Clock::now();
          if (!turn.seen) {
            planner_.begin_root(shell, turn.r, env_.now_epoch_ms());
            // In parts, the facts of the part are where the report looks for them.
            if (on_part_) run_.roots.push_back(shell);
          }
          turn.seen = true;
          std::vector<NamespaceFacts>& held = on_part_ ? run_.roots[turn.r].namespaces : namespaces;
          if (ns.part == 0 || held.empty()) {
            held.push_back(std::move(ns));
          } else {
            // A later part: the namespace's own facts stay, its files are the part's.
            NamespaceFacts& whole = held.back();
            whole.files = std::move(ns.files);
            whole.errors.insert(whole.errors.end(), ns.errors.begin(), ns.errors.end());
            whole.part = ns.part;
            whole.more_parts = ns.more_parts;
          }
          planner_.add_namespace(shell, held.back(), held.size() - 1);
          planning_ += Clock::now() - started;
          if (on_part_) part_done(turn.r, root_limits);
        },
        {});
    if (!on_part_) turn.root.namespaces = std::move(namespaces);
    turn.root.errors.insert(turn.root.errors.end(), region_errors.begin(), region_errors.end());
    return turn;
  }

  bool finish(ReapTurn&& turn, std::size_t /*index*/, const RunLimits& root_limits) {
    const bool seen = turn.seen;
    const std::size_t r = turn.r;
    const RootSpec& spec = *turn.spec;
    TempRootFacts& root = place(std::move(turn));
    if (!seen) planner_.begin_root(root, r, env_.now_epoch_ms());
    plan_attach_files(spec, root, root_limits);
    const auto started = Clock::now();
    planner_.end_root(root);
    planning_ += Clock::now() - started;
    if (on_part_) part_done(r, root_limits);
    return !halted_;
  }

  // A root whose second turn never came: its plan is what its first turn saw (nothing).
  void finish_unvisited(ReapTurn&& turn, std::size_t /*index*/) {
    planner_.begin_root(turn.root, run_.roots.size(), env_.now_epoch_ms());
    planner_.end_root(turn.root);
    run_.roots.push_back(std::move(turn.root));
  }

  Clock::duration planning() const { return planning_; }
  Clock::duration acting() const { return acting_; }
  // Entries of dropped parts that could not be looked at (NotLookedAt::entries).
  std::size_t unseen_entries() const { return unseen_entries_; }

 private:
  // The turn's facts into run.roots (in parts, over the shell its first namespace put there,
  // keeping the namespaces held there).
  TempRootFacts& place(ReapTurn&& turn) {
    if (turn.seen && on_part_) {
      std::vector<NamespaceFacts> namespaces = std::move(run_.roots[turn.r].namespaces);
      run_.roots[turn.r] = std::move(turn.root);
      run_.roots[turn.r].namespaces = std::move(namespaces);
    } else {
      run_.roots.push_back(std::move(turn.root));
    }
    return run_.roots[turn.r];
  }

  // A part planned: acted on and reported by `on_part`, then dropped. What is kept of it: its
  // items and actions counted, the errors of its files and attach files (with their root), and
  // its namespace's own facts (without files).
  void part_done(std::size_t r, const RunLimits& root_limits) {
    const auto started = Clock::now();
    if (!on_part_(root_limits)) halted_ = true;
    acting_ += Clock::now() - started;
    run_.dropped.add_items(run_.plan.items);
    run_.items_before += run_.plan.items.size();
    run_.plan.items.clear();
    if (run_.execution) {
      run_.dropped.add_actions(run_.execution->actions);
      run_.execution->actions.clear();
    }
    TempRootFacts& root = run_.roots[r];
    const auto keep_errors = [&](std::vector<ObservationError>& errors) {
      if (std::any_of(errors.begin(), errors.end(), leaves_unseen)) ++unseen_entries_;
      for (ObservationError& e : errors) run_.dropped_errors.emplace_back(r, std::move(e));
    };
    for (NamespaceFacts& ns : root.namespaces) {
      for (FileFacts& f : ns.files) keep_errors(f.errors);
      std::vector<FileFacts>().swap(ns.files);
    }
    for (AttachFacts& a : root.attach_files) keep_errors(a.errors);
    std::vector<AttachFacts>().swap(root.attach_files);
  }

  // The attach files beside the namespaces, a part at a time (any user can make any number):
  // each planned as it comes, its facts kept only when the plan keeps it. Their pids are
  // looked up as the backing files' names are: in every pid namespace using this temp dir.
  void plan_attach_files(const RootSpec& spec, TempRootFacts& root, const RunLimits& root_limits) {
    std::vector<ObservationError> attach_errors;
    const platform::LivenessScope attach_scope = platform::liveness_scope_of(root);
    env_.observe_attach_files(
        spec, root, kAttachFilesPerPart, root_limits,
        [&](std::vector<AttachFacts>&& part) {
          const auto started = Clock::now();
          for (AttachFacts& attach : part) {
            liveness_->gather(attach, attach_scope);
            root.attach_files.push_back(std::move(attach));
            if (!planner_.add_attach(root, root.attach_files.size() - 1)) root.attach_files.pop_back();
          }
          planning_ += Clock::now() - started;
        },
        attach_errors);
    // A container that stopped since its namespaces were observed: dropped, not an error.
    std::erase_if(attach_errors, [&](const ObservationError& e) { return container_gone(root, e); });
    root.errors.insert(root.errors.end(), attach_errors.begin(), attach_errors.end());
  }

  ReapRun& run_;
  const std::optional<std::string>& user_;  // --user: the only namespaces looked at
  Environment& env_;
  const OnPart& on_part_;
  const std::unique_ptr<LivenessSource> liveness_;
  ReapPlanner planner_;
  platform::ObserveOptions observe_;
  const std::size_t region_bytes_ = platform::ObserveOptions{}.max_region_bytes;
  bool halted_ = false;  // on_part said stop: no further temp root is observed
  std::size_t unseen_entries_ = 0;
  Clock::duration planning_{};
  Clock::duration acting_{};
};

// What the run's errors say of roots it did not finish: stopped by its limits, containers cut
// off at their share, or halted when the journal failed.
void note_unfinished_roots(ReapRun& run, const RunLimits& limits, const RootLoopOutcome& loop) {
  const std::size_t containers = loop.roots - 1;
  if (const char* why = limits.reached()) {
    run.incomplete = true;
    std::string message =
        std::string("stopped (") + why + ") before every temp dir and namespace was observed and planned";
    if (loop.cut_off > 0) {
      message += "; " + std::to_string(loop.cut_off) + " of " + std::to_string(containers) +
                 " container temp dirs cut off (their errors say where)";
    }
    if (loop.looked_at < loop.roots) {
      message += "; " + std::to_string(loop.roots - loop.looked_at) + " of " + std::to_string(loop.roots) +
                 " temp dirs not looked at";
    }
    run.errors.push_back(ObservationError{"reap", "observe", EINTR, std::move(message)});
  } else if (loop.cut_off > 0) {
    run.errors.push_back(ObservationError{"reap", "observe", EINTR,
                                          "stopped (deadline) in " + std::to_string(loop.cut_off) + " of " +
                                              std::to_string(containers) +
                                              " container temp dirs, each at its share of --max-runtime "
                                              "(their errors say where)"});
  } else if (loop.halted) {
    run.incomplete = true;
    run.errors.push_back(ObservationError{"reap", "act", 0,
                                          "stopped when the journal failed: " +
                                              std::to_string(loop.roots - loop.looked_at) + " of " +
                                              std::to_string(loop.roots) + " temp dirs were not looked at"});
  }
}

// observe_and_plan, or with `on_part` the run in parts (ReapRoots): the host's temp dir (or
// the one --tmpdir, --root or --container names) is discovered, observed, planned and acted
// on before any container's temp dir is looked at, and each container's gets its share of
// what is left of the deadline (RootSchedule).
void observe_plan_and_act(const ReapCommandOptions& options, ReapRun& run, const RunLimits& limits,
                          Environment& env, const OnPart& on_part) {
  if (run.started_at_ms == 0) run.started_at_ms = env.now_epoch_ms();
  run.options.min_age_ms = options.min_age_ms;
  run.options.include_special = options.include_special;
  run.options.remove_empty_namespaces = options.remove_empty_namespaces;
  const DiscoverOptions discover = discover_options(env, options.tmpdir, options.root,
                                                    options.containers, options.container_pid, options.user);
  ReapRoots roots(run, limits, env, on_part, options.user);
  run.scope_user = options.user;
  std::vector<ObservationError> discovery_errors;  // containers we could not look into
  const auto discovering = Clock::now();
  std::vector<RootSpec> specs = env.discover(discover, &discovery_errors, limits);
  // Other accounts' temp dirs (Windows: services'), after the host's. No JVM is looked at: a
  // JVM's -XX:AltTempDir is reaped only when named with --tmpdir.
  add_further_temp_dirs(env, discover, specs, {}, options.user);
  run.timings.discover_ms = elapsed_ms(discovering);
  const auto observing = Clock::now();
  const RootLoopOutcome loop = visit_temp_roots(specs, limits, options.container_pid.has_value(), roots);
  if (loop.incomplete) run.incomplete = true;
  // Whatever could not be looked at makes the run incomplete (nothing of it is planned: the
  // reaper never acts on doubt), and its closing line says what. Counted before
  // discovery's errors join the first root's: under --container, what it met of other
  // processes is out of scope; otherwise it is something the run could not look at.
  run.not_looked_at = NotLookedAt{};
  for (const TempRootFacts& root : run.roots) {
    for (const NamespaceFacts& ns : root.namespaces) run.not_looked_at.add_namespace(ns);
    run.not_looked_at.add_root(root);
  }
  run.not_looked_at.entries += roots.unseen_entries();
  run.not_looked_at.containers_not_scanned = discover.containers_need_root;
  run.not_looked_at.as_root = env.host().euid == 0;
  run.not_looked_at.scoped_to_user = options.user.has_value();
  if (!options.container_pid && !run.roots.empty() && run.roots.front().opened &&
      std::none_of(run.roots.front().errors.begin(), run.roots.front().errors.end(), leaves_unseen) &&
      std::any_of(discovery_errors.begin(), discovery_errors.end(), leaves_unseen)) {
    ++run.not_looked_at.temp_dirs;
  }
  if (run.not_looked_at.any()) run.incomplete = true;
  // Containers that could not be looked into are errors of the first root (the host's).
  if (!run.roots.empty()) {
    auto& errors = run.roots.front().errors;
    errors.insert(errors.end(), discovery_errors.begin(), discovery_errors.end());
  }
  note_unfinished_roots(run, limits, loop);
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  run.timings.plan_ms = ms(roots.planning());
  run.timings.execute_ms = ms(roots.acting());
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

namespace {

// One reap at a time (a dry run changes nothing and takes no lock): the lock of
// --lock-file, waited for under --wait; `as_root`: the refusal's advice is root's. Returns
std::optional<int> take_instance_lock(const ReapCommandOptions& options, ReapRun& run,
                                      platform::InstanceLock& lock, const platform::StopSignals& signals,
                                      Clock::time_point started, std::optional<Clock::time_point> deadline,
                                      bool as_root, std::ostream& err) {
  if (options.dry_run || !options.lock_file) return std::nullopt;
  run.lock.path = options.lock_file;
  lock = platform::InstanceLock::acquire(*options.lock_file, options.wait_for_lock, deadline,
                                         &signals.requested());
  run.lock.waited = options.wait_for_lock;
  run.lock.wait_ms = elapsed_ms(started);
  switch (lock.status()) {
    case platform::InstanceLock::Status::acquired:
      run.lock.acquired = true;
      return std::nullopt;
    case platform::InstanceLock::Status::busy:
      if (signals.requested().load()) {
        err << "hsperfguard: reap: interrupted while waiting for " << terminal_safe(*options.lock_file)
            << ": nothing was done\n";
        return kExitIncomplete;
      }
      // Another run is reaping: that is this run's work done, not a failure.
      err << "hsperfguard: reap: another reap holds " << terminal_safe(*options.lock_file);
      if (lock.holder_pid()) err << " (pid " << *lock.holder_pid() << ")";
      err << (options.wait_for_lock ? "; gave up waiting" : "; not waiting (--wait waits)") << "\n";
      return kExitOk;
    case platform::InstanceLock::Status::error:
      print_errors(err, {*lock.error()});
      // Not permitted: the reason is the caller's. Not root, the default's directory is root's:
      // root gets past it, or another lock file, or none. Root refused: the file system is
      // read-only, or the path is one the lock will not use (the error above says why: not a
      // regular file, another owner, a hard link, writable by others), and running as root
      // again changes nothing.
      if (const int code = lock.error()->code; code == EACCES || code == EPERM || code == EROFS) {
        err << "hsperfguard: reap: cannot take the single-instance lock: ";
        if (!as_root) {
          err << "not running as root: run as root, or pass --lock-file FILE (in a directory only you may "
                 "write)";
        } else {
          err << (code == EROFS ? "its file system is read-only"
                  : code == EPERM ? "the lock file is not one reap may use (said above): move it aside"
                                  : "refused even to root (said above)")
              << ", or pass --lock-file FILE (in a directory only root may write)";
        }
        err << ", or --no-lock if no other reap runs at the same time\n";
      }
      return kExitIncomplete;
  }
  return std::nullopt;
}

// The journal of --journal, opened (or nothing when there is none); an error ends the run
// before anything is removed (`failed` is set).
std::optional<ReapJournal> open_run_journal(const ReapRun& run, Environment& env, std::ostream& err, bool& failed) {
  if (!run.journal) return std::nullopt;
  ObservationError e;
  std::optional<ReapJournal> journal = ReapJournal::open(*run.journal, run.plan, env, e);
  if (!journal) {
    print_errors(err, {e});
    // Not permitted: what gets past it. A file that is not a journal of ours has its own advice.
    if (e.code == EACCES || e.code == EPERM || e.code == EROFS) {
      err << "hsperfguard: reap: cannot use the journal: pass --journal FILE (in a directory only you may "
             "write), or leave --journal out; nothing was removed\n";
    }
    failed = true;
  }
  return journal;
}

// A part of the run as soon as it is planned: acted on within its temp dir's own limits (the
// host's first, before any container's temp dir is looked at), each step journalled, then
// reported and logged, before ReapRoots drops it. The executions' flags and errors add up in
// run.execution; its actions are the part's.
class PartActor {
 public:
  PartActor(const ReapCommandOptions& options, ReapRun& run, std::optional<ReapJournal>& journal,
            const platform::StopSignals& signals, Environment& env, ReapReportWriter& report)
      : options_(options), run_(run), journal_(journal), signals_(signals), env_(env), report_(report) {}

  // OnPart: false once the journal failed.
  bool operator()(const RunLimits& root_limits) {
    const auto& items = run_.plan.items;
    if (run_.execution && std::any_of(items.begin(), items.end(),
                                      [](const PlanItem& item) { return item.action == ReapAction::remove; })) {
      if (journal_) {
        journal_->set_items_before(run_.items_before);
        journal_->start_root(0);
      }
      platform::ExecuteOptions exec;
      exec.deadline = root_limits.deadline;
      exec.stop = &signals_.requested();
      if (journal_) {
        exec.before_unlink = [&](const PlanItem& item) { return journal_->before_unlink(item); };
        exec.on_action = [&](const PlanItem&, const ReapActionRecord& r) { journal_->on_action(r); };
      }
      add(env_.execute_plan(run_.plan, exec));
    }
    report_.add_part(run_);
    log_reap_part(options_, run_);
    return !journal_ || !journal_->error();
  }

 private:
  void add(ExecutionResult&& done) {
    ExecutionResult& all = *run_.execution;
    all.actions = std::move(done.actions);
    all.errors.insert(all.errors.end(), done.errors.begin(), done.errors.end());
    all.deadline_reached = all.deadline_reached || done.deadline_reached;
    all.interrupted = all.interrupted || done.interrupted;
  }

  const ReapCommandOptions& options_;
  ReapRun& run_;
  std::optional<ReapJournal>& journal_;
  const platform::StopSignals& signals_;
  Environment& env_;
  ReapReportWriter& report_;
};

// A report section spooled to an unnamed temp file (platform/spool_file.hpp), or kept in memory
// when no temp file could be made anywhere.
class FileSpool final : public ReportSpool {
 public:
  explicit FileSpool(platform::SpoolFile file) : file_(std::move(file)) {}
  void append(std::string_view text) override { file_.append(text); }
  std::size_t size() const override { return file_.size(); }
  void copy(std::size_t begin, std::size_t end, const ContentWriter& write) override { file_.copy(begin, end, write); }
  const std::optional<ObservationError>& error() const { return file_.error(); }

 private:
  platform::SpoolFile file_;
};

// The report's spools: in the directory of --output (its file system holds the report anyway),
// else $TMPDIR, /var/tmp, /tmp, the first where an unnamed file can be made.
class ReportSpools {
 public:
  explicit ReportSpools(const std::optional<std::string>& output) {
    if (output) {
      const auto slash = output->rfind('/');
      dirs_.push_back(slash == std::string::npos ? "." : slash == 0 ? "/" : output->substr(0, slash));
    }
    if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir == '/') dirs_.emplace_back(tmpdir);
    dirs_.emplace_back("/var/tmp");
    dirs_.emplace_back("/tmp");
  }

  SpoolMaker maker() {
    return [this]() -> std::unique_ptr<ReportSpool> {
      ObservationError e;
      if (auto file = platform::SpoolFile::create(dirs_, e)) {
        auto spool = std::make_unique<FileSpool>(std::move(*file));
        files_.push_back(spool.get());
        return spool;
      }
      if (!unspooled_) unspooled_ = e;
      return std::make_unique<StringSpool>();
    };
  }

  // The first spool that failed to write or read back: the report would lack part of itself.
  std::optional<ObservationError> error() const {
    for (const FileSpool* f : files_) {
      if (f->error()) return f->error();
    }
    return std::nullopt;
  }
  // Why a section is held in memory, when one is.
  const std::optional<ObservationError>& unspooled() const { return unspooled_; }

 private:
  std::vector<std::string> dirs_;
  std::vector<const FileSpool*> files_;  // owned by the report writer, which outlives the calls
  std::optional<ObservationError> unspooled_;
};

// The report, on `out` or in --output (and under --quiet what needs a person on `out`).
// false: --output could not be written (said on `err`).
// Why a reap ends with `exit_code`, in words, for the report's last line ("" for 0).
std::string reap_exit_line(const ReapRun& run, int exit_code) {
  if (exit_code == kExitOk) return "";
  std::string why;
  if (run.incomplete) {
    // What was not looked at and why, as the audit's last line says it.
    const std::string missing = not_looked_at_line(run.not_looked_at);
    why = "INCOMPLETE: " + (missing.empty() ? std::string("not every temp dir was observed and planned, or the run "
                                                          "stopped early (the errors say which)")
                                            : missing);
  } else if (run.execution && run.execution->interrupted) {
    why = "interrupted by a signal before every removal was tried";
  } else if (!run.errors.empty()) {
    why = "the run's errors above (" + terminal_safe(run.errors.front().op) + ": " +
          terminal_safe(run.errors.front().message) + ")";
  } else if (run.execution) {
    const std::size_t failed = tally_of(run).outcomes.failed;
    why = std::to_string(failed) + (failed == 1 ? " removal" : " removals") + " failed (the actions say why)";
  }
  return why.empty() ? exit_line("reap", exit_code) : "exit " + std::to_string(exit_code) + ": " + why;
}

// The report's format, and whether its text is coloured.
ReapReportWriter make_report_writer(const ReapCommandOptions& options, Environment& env, ReportSpools& spools) {
  // Text unless --format json: the same wherever stdout goes (a pipe, a file, cron's mail).
  const ReportFormat format = options.format.value_or(ReportFormat::text);
  return ReapReportWriter(format == ReportFormat::json, options.verbose,
                          !options.output && color_wanted(options.color, env.stdout_is_terminal()), spools.maker());
}

bool write_reap_report(const ReapCommandOptions& options, const ReapRun& run, Environment& env,
                       ReapReportWriter& report, const ReportSpools& spools, std::ostream& out, std::ostream& err) {
  const std::string last_line = reap_exit_line(run, reap_exit_code(run));
  // --quiet: the report goes only to --output; `out` gets what needs a person.
  std::ostream no_report(nullptr);
  std::ostream& report_out = options.quiet ? no_report : out;
  const HostInfo host = env.host();
  // The head first (it counts the whole run), then the sections the run spooled.
  auto render = [&](const platform::ContentSink& write) { report.write_report(run, host, last_line, write); };
  const auto spool_failed = [&] {
    if (const auto e = spools.error()) {
      err << "hsperfguard: reap: the report is incomplete: its temp file " << terminal_safe(e->path) << ": "
          << terminal_safe(e->op) << ": " << terminal_safe(e->message) << "\n";
      return true;
    }
    return false;
  };
  if (options.output) {
    // Written even when the run was interrupted: it says what was removed and what was not.
    std::optional<ObservationError> error = write_output_to(*options.output, render, platform::OutputOptions{}, &report_out);
    // A spool that could not be read back whole must not replace the last good report: the
    // producer is done, so this is checked after, and the report written is then incomplete.
    if (error) {
      err << "hsperfguard: reap: cannot write " << terminal_safe(*options.output) << ": "
          << terminal_safe(error->op) << ": " << terminal_safe(error->message) << "\n";
      return false;
    }
    if (spool_failed()) return false;
  } else {
    render([&](std::string_view piece) { report_out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
    report_out.flush();
    if (spool_failed()) return false;
  }
  if (options.quiet) {
    report.write_attention([&](std::string_view piece) { out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
    out << (last_line.empty() ? "" : last_line + "\n") << std::flush;
  }
  return true;
}

}  // namespace

int run_reap_command(const ReapCommandOptions& options, std::ostream& out, std::ostream& err,
                     Environment& env) {
  if (auto problem = container_pid_problem(env, options.container_pid)) {
    err << "hsperfguard: reap: " << *problem << "\n";
    return kExitUsage;
  }
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
  platform::InstanceLock lock;
  if (const auto ended = take_instance_lock(options, run, lock, signals, started, deadline, env.host().euid == 0, err)) return *ended;
  run.timings.lock_ms = elapsed_ms(started);
  bool journal_failed = false;
  std::optional<ReapJournal> journal = open_run_journal(run, env, err, journal_failed);
  if (journal_failed) return kExitIncomplete;

  RunLimits limits;
  limits.stop = &signals.requested();
  limits.deadline = deadline;
  if (!options.dry_run) run.execution.emplace();
  // The run in parts: each part acted on, reported into the spools and logged, then dropped.
  ReportSpools spools(options.output);
  ReapReportWriter report = make_report_writer(options, env, spools);
  PartActor actor(options, run, journal, signals, env, report);
  const OnPart on_part = [&](const RunLimits& root_limits) { return actor(root_limits); };
  observe_plan_and_act(options, run, limits, env, on_part);
  if (journal) {
    journal->finish(tally_of(run).outcomes);
    if (journal->error()) run.errors.push_back(*journal->error());
  }
  run.finished_at_ms = env.now_epoch_ms();
  if (const auto& e = spools.unspooled()) {
    err << "hsperfguard: reap: no temp file for the report (" << terminal_safe(e->path) << ": "
        << terminal_safe(e->message) << "): it was held in memory\n";
  }

  if (!write_reap_report(options, run, env, report, spools, out, err)) return kExitIncomplete;
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
    std::string color = "auto";
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
      "Lock: one reap at a time per host. Without --wait, a run that finds the lock held\n"
      "exits 0 at once (the other run does the work); with --wait it waits, for at most\n"
      "--max-runtime when given, then exits 0 as well.");
  const TempDirOptions temp_dir =
      add_temp_dir_options(cmd, p->options.tmpdir, p->options.root, "Reap", "this temp dir of this host");
  cmd->add_flag("-n,--dry-run", p->options.dry_run, "Print the plan; change nothing");
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
  cmd->add_flag("-v,--verbose", p->options.verbose, "Text: list every plan item and action (none grouped)");
  add_color_option(cmd, p->color);
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
  add_user_scope_option(cmd, p->options.user, "Reap");
  p->unattended.add_to(cmd);
  return SubcommandHook{
      cmd, [p]() {
        ReapCommandOptions reap = p->options;
        if (!p->journal.empty()) reap.journal = p->journal;
        reap.format = parse_report_format(p->format);
        reap.color = parse_color_choice(p->color);
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
