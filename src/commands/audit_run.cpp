#include "commands/audit_run.hpp"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "commands/environment.hpp"
#include "commands/root_loop.hpp"
#include "decide/discover.hpp"
#include "decide/ps.hpp"

namespace hsperfguard {
namespace {

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
  TextDigest digest;    // text without --verbose: its findings and errors, counted and named
  bool continuation = false;  // a later part of a namespace
  bool out_of_scope = false;  // --user: another user's namespace, neither judged nor counted
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
    // mapped() is a reference into the node, not a local: without the move the value would
    // be copied (cppcheck takes it for a local whose copy would be elided).
    // cppcheck-suppress returnStdMoveLocal
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

// The temp dir's namespaces (then its attach files) are taken this many at a time, and a
// namespace listing more than kFilesPerRenderedPart entries is observed, judged and written
// in parts of that many, so that an audit's memory grows neither with what one namespace
// holds nor with how many there are (any local user can fill their own namespace, and make
// namespaces in /tmp). A part waits rendered (about 1.6 KB of JSON a file) until its turn,
// and about ten parts wait or are staged at once: parts of 4,096 files held 88 MB at
// 1,000,000 stale files, parts of 1,024 hold 31.5-33.5 MB.
constexpr std::size_t kFilesPerPart = 4096;
constexpr std::size_t kFilesPerRenderedPart = 1024;

platform::ObserveOptions audit_observe_options(const RunLimits& limits) {
  platform::ObserveOptions observe;
  observe.attach_files = false;  // observed after the namespaces, in parts (observe_attach)
  observe.kept_counters = kAuditCounters;
  observe.files_per_part = kFilesPerRenderedPart;
  observe.namespaces_per_batch = kFilesPerPart;
  observe.limits = limits;
  observe.cleaners = true;
  return observe;
}

// One turn of a temp root (root_loop.hpp), and what the audit keeps of it for its closing
// text and its invisible JVMs.
struct AuditTurn {
  TempRootFacts root;
  bool seen = false;  // a namespace of it was consumed
  const RootSpec* spec = nullptr;
  std::size_t listed = 0;            // begun, in scope or not: the position of the next
  std::size_t namespaces = 0;        // begun (their first part consumed) and in scope
  bool opened = false;               // text: the temp dir's opening line is written
  TextDigest digest;                 // text without --verbose: what its namespaces had
  std::set<std::string> users_seen;  // namespaces of the temp dir, for invisible JVMs
};

// The pipeline, namespace by namespace (a large one part by part): observed (a few ahead,
// by worker threads), its liveness evidence gathered, judged and rendered on the worker that
// observed it (the stage), then counted and written in order on this thread and dropped at
// once: an audit of any size holds a few namespace parts. Each worker's gatherer reads the
// lock table once, when it judges its first namespace: a JVM that takes its lock after that
// and whose file is judged later is judged by its process (alive, mapping its file: live),
// never stale.
class AuditRun {
 public:
  AuditRun(AuditRunSettings& settings, AuditResult& result, AuditTally& tally, std::ostream& out,
           const platform::ContentSink& write)
      : s_(settings),
        options_(settings.options),
        env_(settings.env),
        result_(result),
        tally_(tally),
        out_(out),
        write_(write),
        gatherers_(settings.env, settings.limits) {
    if (s_.format == ReportFormat::json) json_.emplace(s_.context, result_.policy, result_.started_at_ms, write_);
  }

  AuditRunEnd run() {
    // Invisible JVMs (libjvm mapped, no backing file or a deleted one) go to the namespace
    // HotSpot would have used, or to its temp dir when there is none.
    std::vector<ObservationError> ignored;  // a process that exited or hides its maps
    // Processes whose maps were read only in part (whether they are JVMs is not known) and
    // a stop while reading them are the host's errors, with the containers'.
    std::vector<ObservationError> discovery_errors;
    reap_euid_ = env_.host().euid;
    jvms_ = env_.observe_jvm_processes(ignored, s_.limits, &discovery_errors);
    s_.text.jvm_processes = jvms_.size();
    specs_ = env_.discover(s_.discover, &discovery_errors, s_.limits);
    // The -XX:AltTempDir of this host's JVMs and other accounts' temp dirs, after the host's
    // own temp dir: their namespaces are there. Containers keep their shares of what the first
    // temp dir leaves.
    add_further_temp_dirs(env_, s_.discover, specs_, jvms_, options_.user);
    // The first temp dir (the host's, or the one --tmpdir, --root or --container names) has
    // the run's limits; each container's an equal share of what is left (RootSchedule).
    const RootLoopOutcome loop = visit_temp_roots(specs_, s_.limits, options_.container_pid.has_value(), *this);
    if (loop.incomplete) result_.incomplete = true;
    judge_json_roots();
    if (const char* why = s_.limits.reached()) {
      result_.stopped = why;
      result_.incomplete = true;
    } else if (loop.cut_off > 0) {
      result_.stopped = "deadline";  // some containers' shares of it (each root says which)
    }
    // --container: what discovery met of other processes is the first root's to report, not
    // a temp dir it could not read (the others are out of scope).
    const bool first_root_unread =
        !result_.roots.empty() && (!result_.roots.front().opened ||
                                   std::any_of(result_.roots.front().errors.begin(),
                                               result_.roots.front().errors.end(), leaves_unseen));
    AuditRunEnd end = attach_discovery_errors(std::move(discovery_errors), loop);
    for (std::size_t r = 0; r < result_.roots.size(); ++r) tally_.add_root(result_.roots[r], result_.judgements[r]);
    if (options_.container_pid && !result_.roots.empty() && !first_root_unread && !result_.stopped &&
        tally_.not_looked_at.temp_dirs > 0 &&
        std::any_of(result_.roots.front().errors.begin(), result_.roots.front().errors.end(), leaves_unseen)) {
      --tally_.not_looked_at.temp_dirs;
    }
    // Whatever could not be looked at makes the run incomplete, and its closing line says what.
    result_.not_looked_at = tally_.not_looked_at;
    result_.not_looked_at.containers_not_scanned = s_.discover.containers_need_root;
    result_.not_looked_at.as_root = s_.context.host.euid == 0;
    result_.scope_user = options_.user;
    result_.not_looked_at.scoped_to_user = options_.user.has_value();
    if (result_.not_looked_at.any()) result_.incomplete = true;
    result_.finished_at_ms = env_.now_epoch_ms();
    if (json_) {
      json_->finish(result_, tally_);
    } else {
      write_(audit_summary_text(tally_, result_, s_.context, s_.text));
    }
    return end;
  }

  // ---- The visitor of root_loop.hpp

  AuditTurn observe(const RootSpec& spec, const RunLimits& root_limits) {
    AuditTurn turn;
    turn.spec = &spec;
    const std::size_t r = result_.roots.size();
    StagedNamespaces staged;
    std::mutex users_mutex;
    std::string closing;  // of the namespace in parts being written
    // The temp dir's own findings, judged once for all its namespaces (whether repair acts
    // beneath it depends on them), by the first worker that stages one.
    std::once_flag root_judged;
    Findings root_findings;
    // The summary's count of what `reap` would remove: reap plans a temp dir as it opens it.
    const std::int64_t reap_now_ms = env_.now_epoch_ms();
    const auto stage = [&](const TempRootFacts& shell, std::size_t n, NamespaceFacts& ns) {
      if (options_.user && ns.user_suffix != *options_.user) {
        StagedNamespace skipped;
        skipped.out_of_scope = true;
        const StagedNamespaces::Key key{n, ns.part};
        const bool more_parts = ns.more_parts;
        ns = NamespaceFacts{};  // freed here, as a judged one is
        ns.part = key.second;
        ns.more_parts = more_parts;
        staged.put(key, std::move(skipped));
        return;
      }
      std::call_once(root_judged, [&] { root_findings = judge_root(shell, result_.policy).findings; });
      gatherers_.gather(ns, platform::liveness_scope_of(shell));
      if (ns.part == 0) {
        assign_invisible_jvms(shell, ns, jvms_);
        const std::lock_guard lock(users_mutex);
        turn.users_seen.insert(ns.user_suffix);
      }
      stage_namespace(staged, r, shell, n, ns, root_findings, reap_now_ms);
    };
    turn.root = env_.observe_temp_root(
        spec, audit_observe_options(root_limits),
        [&](const TempRootFacts& shell, NamespaceFacts&& ns) {
          if (ns.part == 0) ++turn.listed;
          StagedNamespace done = staged.take({turn.listed - 1, ns.part});
          if (done.out_of_scope) return;
          if (ns.part == 0) ++turn.namespaces;
          if (!json_ && !turn.opened) write_(audit_root_opening_text(shell, s_.text));
          turn.opened = true;
          turn.digest.merge(std::move(done.digest));
          write_staged(done, ns, closing);
          staged.recycle(std::move(done.text));
        },
        stage);
    // A namespace in parts whose last part never came (the run stopped) is closed.
    if (json_ && !closing.empty()) json_->add_rendered_continuation(closing);
    turn.seen = turn.listed > 0;
    return turn;
  }

  bool finish(AuditTurn&& turn, std::size_t /*index*/, const RunLimits& root_limits) {
    finish_root(std::move(turn.root), *turn.spec, root_limits, turn.namespaces, turn.opened, turn.users_seen,
                std::move(turn.digest));
    return true;
  }

  void finish_unvisited(AuditTurn&& turn, std::size_t index) {
    finish_root(std::move(turn.root), specs_[index], s_.limits, 0, false, {}, {});
  }

 private:
  // On a worker: a namespace (part) judged, rendered, counted and freed.
  void stage_namespace(StagedNamespaces& staged, std::size_t r, const TempRootFacts& shell, std::size_t n,
                       NamespaceFacts& ns, const Findings& root_findings, std::int64_t reap_now_ms) {
    StagedNamespace done;
    done.continuation = ns.part > 0;
    const NamespaceJudgement judgement = judge_namespace(shell, ns, result_.policy, root_findings);
    done.text = staged.spare_text();
    if (json_) {
      render_audit_namespace(done.text, ns.more_parts ? &done.closing : nullptr, r, shell, ns, judgement,
                             json_->findings_context());
    } else if (s_.text.verbose) {
      render_audit_namespace_text(done.text, ns, judgement, s_.text);
    } else {
      done.digest.add_namespace(ns, judgement);
    }
    done.tally.add_namespace(ns, judgement);
    if (reaped_in_same_scope(shell)) done.tally.reap = count_reap(shell, ns, ReapOptions{}, reap_now_ms, reap_euid_);
    if (options_.quiet) render_attention_namespace(done.attention, judgement, options_.fail_on);
    const StagedNamespaces::Key key{n, ns.part};
    const bool more_parts = ns.more_parts;
    ns = NamespaceFacts{};  // rendered and counted: freed here, not by the consumer
    ns.part = key.second;   // what the consumer needs to find it
    ns.more_parts = more_parts;
    staged.put(key, std::move(done));
  }

  // On this thread, in order: a staged namespace (part) counted and written.
  void write_staged(StagedNamespace& done, const NamespaceFacts& ns, std::string& closing) {
    tally_.merge(std::move(done.tally));
    out_ << done.attention;
    if (!json_) {
      write_(done.text);
    } else if (ns.part > 0) {
      json_->add_rendered_continuation(done.text);
    } else {
      json_->add_rendered_namespace(done.text);
      closing = std::move(done.closing);
    }
    if (json_ && !ns.more_parts && !closing.empty()) {
      json_->add_rendered_continuation(closing);
      closing.clear();
    }
  }

  // The attach files beside a temp dir's namespaces (any user can make any number), judged,
  // counted and written a part at a time. Their JSON list follows every namespace of every
  // temp dir, so there each temp dir's are observed (its directory opened again) after all.
  void observe_attach(const RootSpec& spec, std::size_t r, TempRootFacts& root, const RunLimits& attach_limits,
                      TextDigest* digest) {
    std::vector<ObservationError> errors;
    // Judged as the reaper judges them: their pids in every pid namespace using the temp dir.
    const platform::LivenessScope scope = platform::liveness_scope_of(root);
    const std::int64_t reap_now_ms = env_.now_epoch_ms();
    std::size_t reap_removals = 0;  // capped as one reap plans them
    env_.observe_attach_files(
        spec, root, kFilesPerPart, attach_limits,
        [&](std::vector<AttachFacts>&& part) {
          std::string text;
          std::string attention;  // --quiet
          for (AttachFacts& attach : part) {
            gatherers_.gather(attach, scope);
            const Findings findings = judge_attach(root, attach, result_.policy);
            tally_.add_attach(attach, findings);
            const ReapCount reap = reaped_in_same_scope(root)
                                       ? count_reap(root, attach, ReapOptions{}, reap_now_ms, reap_euid_)
                                       : ReapCount{};
            reap_removals += reap.remove;
            tally_.reap.kept_reapable += reap.kept_reapable;
            if (options_.quiet) render_attention_findings(attention, findings, options_.fail_on);
            if (json_) {
              json_->add_attach(r, attach, findings);
            } else if (digest != nullptr) {
              digest->add_attach(attach, findings);
            } else {
              render_audit_attach_text(text, attach, findings, s_.text);
            }
          }
          if (!text.empty()) write_(text);
          out_ << attention;
        },
        errors);
    tally_.reap.remove += std::min(reap_removals, kAttachItemsPerRun);
    // A container that stopped since its namespaces were observed: dropped, not an error.
    std::erase_if(errors, [&](const ObservationError& e) { return container_gone(root, e); });
    root.errors.insert(root.errors.end(), errors.begin(), errors.end());
  }

  // The temp dir judged, its text closed, and added to the result. In JSON its attach files
  // follow every namespace of every temp dir: it is judged once they are (judge_json_roots).
  void finish_root(TempRootFacts&& root, const RootSpec& spec, const RunLimits& attach_limits,
                   std::size_t namespaces, bool opened, const std::set<std::string>& users_seen,
                   TextDigest&& digest) {
    // Invisible JVMs whose namespace does not exist are the temp dir's, and so are those whose
    // uid has no user name (no namespace can exist for them; --user names none of them).
    for (const auto& jvm : jvms_) {
      if (!jvm.invisible() || !jvm_uses_temp_root(jvm, root)) continue;
      if (jvm.user ? !users_seen.contains(*jvm.user) && (!options_.user || *jvm.user == *options_.user)
                   : jvm.no_user_entry && !options_.user) {
        root.invisible_jvms.push_back(jvm);
      }
    }
    const std::size_t r = result_.roots.size();
    if (json_) {
      result_.roots.push_back(std::move(root));
      root_specs_.push_back(&spec);
      return;
    }
    if (!opened) write_(audit_root_opening_text(root, s_.text));
    observe_attach(spec, r, root, attach_limits, s_.text.verbose ? nullptr : &digest);
    RootJudgement judgement = judge_root(root, result_.policy);
    if (options_.quiet) out_ << attention_root_text(judgement, options_.fail_on);
    write_(audit_root_closing_text(root, judgement, namespaces, s_.text, std::move(digest)));
    result_.roots.push_back(std::move(root));
    result_.judgements.push_back(std::move(judgement));
  }

  // JSON: every temp dir's attach files, after every namespace of every temp dir, then the
  // temp dir judged.
  void judge_json_roots() {
    for (std::size_t r = 0; r < root_specs_.size(); ++r) {
      observe_attach(*root_specs_[r], r, result_.roots[r], s_.limits, nullptr);
      RootJudgement judgement = judge_root(result_.roots[r], result_.policy);
      if (options_.quiet) out_ << attention_root_text(judgement, options_.fail_on);
      result_.judgements.push_back(std::move(judgement));
    }
  }

  // Containers that could not be looked into are errors of the first root (the host's), and
  // so are those the run stopped before. No root at all: what discovery met is the end's.
  AuditRunEnd attach_discovery_errors(std::vector<ObservationError>&& discovery_errors, const RootLoopOutcome& loop) {
    AuditRunEnd end;
    if (!result_.roots.empty()) {
      auto& errors = result_.roots.front().errors;
      errors.insert(errors.end(), discovery_errors.begin(), discovery_errors.end());
      if (loop.looked_at < specs_.size()) {
        errors.push_back(ObservationError{"audit", "observe", EINTR,
                                          "stopped (" + result_.stopped.value_or("interrupted") + "): " +
                                              std::to_string(specs_.size() - loop.looked_at) + " of " +
                                              std::to_string(specs_.size()) + " temp dirs not looked at"});
      }
    }
    if (result_.roots.empty()) {
      // --containers-only found no other mount namespace: nothing was audited.
      result_.incomplete = true;
      end.no_temp_dir = true;
      end.discovery_problems = std::move(discovery_errors);
    }
    return end;
  }

  AuditRunSettings& s_;
  const AuditCommandOptions& options_;
  Environment& env_;
  AuditResult& result_;
  AuditTally& tally_;
  std::ostream& out_;  // --quiet: the findings that need a person
  const platform::ContentSink& write_;
  std::optional<AuditJsonWriter> json_;
  GathererPool gatherers_;
  std::vector<JvmProcessFacts> jvms_;
  std::uint32_t reap_euid_ = 0;  // who would run the reap the summary counts for: this user
  std::vector<RootSpec> specs_;
  std::vector<const RootSpec*> root_specs_;  // JSON: of result.roots, whose attach files follow
};

}  // namespace

AuditRunEnd run_audit_pipeline(AuditRunSettings& settings, AuditResult& result, AuditTally& tally,
                               std::ostream& out, const platform::ContentSink& write) {
  return AuditRun(settings, result, tally, out, write).run();
}

}  // namespace hsperfguard
