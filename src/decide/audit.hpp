// `hsperfguard audit`: discover, observe, judge. The judging half is pure.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/publication.hpp"
#include "decide/liveness.hpp"
#include "decide/reaper.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/rule_catalog.hpp"

namespace hsperfguard {

// Judgements mirror the facts tree, index for index.
struct FileJudgement {
  Findings findings;
  // Present when liveness evidence was gathered for the file: the decision, made once. The
  // report asks explain_liveness for its message and evidence when it writes the file, so an
  // audit of many files never holds every file's evidence at once.
  std::optional<LivenessJudgement> verdict;
};

struct NamespaceJudgement {
  // What a JVM of this namespace's user starting now would meet, predicted once with the
  // namespace's first part: judged by the namespace.* prediction rules and rendered, as it
  // is, as the namespace's "prediction". A later part (NamespaceFacts::part > 0) keeps the
  // default, which says nothing (publishes unknown): its namespace was rendered with the first.
  checks::PublicationPrediction prediction;
  Findings findings;
  std::vector<FileJudgement> files;
};

struct RootJudgement {
  Findings findings;
  // What a JVM of a user with no namespace here yet would meet (it makes one, then its file),
  // predicted once when the temp dir was opened, for a user other than root (whom permissions
  // do not hold back); rendered, as it is, as the temp dir's "new_namespace_prediction".
  std::optional<checks::PublicationPrediction> new_namespace_prediction;
  std::vector<NamespaceJudgement> namespaces;
  std::vector<Findings> attach_files;
};

// What a run could not look at: a temp dir, a namespace or an entry whose observation met an
// error, a user who could not be looked up, a process the container scan could not look into,
// containers that were not scanned at all. A run is complete only when it has none of them.
// An entry gone since it was listed (ENOENT) is not among them: nothing was left to look at.
struct NotLookedAt {
  std::size_t temp_dirs = 0;   // not opened, or with errors of their own (listing, user database)
  std::size_t namespaces = 0;  // with errors of their own: not opened, not listed whole
  std::size_t entries = 0;     // files of a namespace and attach files with errors
  std::size_t users = 0;       // namespaces whose user could not be looked up
  std::size_t processes = 0;   // processes the container scan could not look into
  // Containers were asked for and not scanned: the scan needs root.
  bool containers_not_scanned = false;
  // The run's effective uid was 0: what it could not read was not for want of privilege.
  bool as_root = true;
  // The run looked at one user's namespaces (--user): the others are out of scope.
  bool scoped_to_user = false;

  bool any() const {
    return temp_dirs + namespaces + entries + users + processes > 0 || containers_not_scanned;
  }
  void add(const NotLookedAt& other);
  // One namespace (or part of one): its own errors and its files'.
  void add_namespace(const NamespaceFacts& ns);
  // A temp dir's own facts (not its namespaces): not opened, its errors, its attach files, the
  // processes the scan could not look into.
  void add_root(const TempRootFacts& root);
};

// Whether an observation error leaves something not looked at (false: the entry is gone, or is on
// another mount the run does not enter by design).
bool leaves_unseen(const ObservationError& error);

// Whether `error`, one of `ns`'s errors, leaves the namespace itself or something beneath it not
// looked at. An error about a process its liveness evidence names (/proc/1/ns/mnt refused,
// /proc/locks) leaves the namespace read, its evidence weaker: false.
bool leaves_namespace_unseen(const NamespaceFacts& ns, const ObservationError& error);

// The first error of `ns` itself (leaves_namespace_unseen), else of one of its files
// (leaves_unseen), that leaves something not looked at: one of those that make
// NotLookedAt::add_namespace count it. nullptr when there is none.
const ObservationError* first_unseen_error(const NamespaceFacts& ns);

// What a run did not look at and why, in one line: "not root: 6 namespaces unreadable,
// containers not scanned: run as root, or --user NAME for your own namespaces only" (not as
// root, the line says so first and ends with what to run). Empty when nothing is missing.
std::string not_looked_at_line(const NotLookedAt& missing);

struct AuditResult {
  std::vector<TempRootFacts> roots;
  std::vector<RootJudgement> judgements;
  Policy policy;
  std::int64_t started_at_ms = 0;
  std::int64_t finished_at_ms = 0;
  // True when anything could not be looked at (not_looked_at), or the run stopped early (the
  // audit is incomplete).
  bool incomplete = false;
  NotLookedAt not_looked_at;
  // --user: the only user whose namespaces were in scope (the others were not looked at, and
  // are not missing).
  std::optional<std::string> scope_user;
  // Why the run stopped before everything was observed: "interrupted" (a stop signal) or
  // "deadline" (--max-runtime).
  std::optional<std::string> stopped;
};

// How the files of `root` are judged alive or not.
LivenessSettings liveness_settings_for(const TempRootFacts& root);

// Runs every rule module over the facts and applies the policy. Pure. A later part of a
// namespace (NamespaceFacts::part > 0) has its files judged only: the namespace itself was
// judged with its first part.
std::vector<RootJudgement> judge(const std::vector<TempRootFacts>& roots, const Policy& policy);
// The same, a piece at a time (a streamed audit judges each namespace as it is observed):
// the temp dir and its attach files (no namespaces), and one namespace of `root`.
RootJudgement judge_root(const TempRootFacts& root, const Policy& policy);
NamespaceJudgement judge_namespace(const TempRootFacts& root, const NamespaceFacts& ns,
                                   const Policy& policy);
// The same with the temp dir's own findings already made (judge_root's: whether repair may act
// beneath the temp dir depends on their rules).
NamespaceJudgement judge_namespace(const TempRootFacts& root, const NamespaceFacts& ns,
                                   const Policy& policy, const Findings& root_findings);
// One attach file of `root` (a streamed audit judges them a part at a time, apart from the
// temp dir: observe_attach_files).
Findings judge_attach(const TempRootFacts& root, const AttachFacts& attach, const Policy& policy);

// The worst namespaces a tally keeps by name (the metrics' per-namespace series), and the
// observation errors it keeps for the report's list; beyond these it counts.
inline constexpr std::size_t kKeptFlaggedNamespaces = 100;
inline constexpr std::size_t kKeptErrors = 1000;

// What the report's summary, the metrics, the log line and the exit code need of an audit,
// counted namespace by namespace: a streamed audit keeps no namespace once it is written, and
// the tally itself stays small whatever the number of namespaces, files and errors (a local
// user can make any number of them).
struct AuditTally {
  struct FlaggedNamespace {  // a namespace with findings (its own and its files')
    std::string path;
    std::map<Severity, std::size_t> by_severity;
    Severity worst = Severity::info;
  };
  std::size_t findings = 0;
  std::map<Severity, std::size_t> by_severity;
  std::map<std::string, std::size_t> by_rule;
  std::map<std::pair<std::string, Severity>, std::size_t> by_rule_and_severity;
  std::size_t repairable = 0;  // findings `hsperfguard repair` fixes (Finding::repairable)
  // What `hsperfguard reap` with its default options, run by the audit's user as the audit
  // ran, would do with the same facts: the reap planner's own count (count_reap), which the
  // caller adds as it judges (the files' verdicts alone would count hard-linked files, FIFOs
  // and young files the reaper keeps).
  ReapCount reap;
  std::optional<Severity> worst;
  std::size_t roots = 0;
  std::size_t namespaces = 0;
  std::size_t files = 0;
  std::size_t attach_files = 0;
  // Files by liveness verdict, indexed by Verdict; the last slot: no liveness evidence.
  std::array<std::size_t, 6> files_by_verdict{};
  // Namespaces with findings (their own or their files'): how many, how many by their worst
  // finding (indexed by Severity), and the kKeptFlaggedNamespaces worst of them (then by path),
  // worst first. A namespace in parts counts once, when its last part has been added.
  std::size_t flagged_namespaces = 0;
  std::array<std::size_t, 5> flagged_by_worst{};
  std::vector<FlaggedNamespace> flagged;
  // Observation errors: how many, and the first kKeptErrors in report order (each namespace's,
  // then its files', as they come, then each temp dir's and its attach files').
  std::size_t error_count = 0;
  std::vector<ObservationError> errors;
  // What the namespaces, temp dirs and attach files counted could not look at.
  NotLookedAt not_looked_at;

  // A namespace, or a part of one (counted once, with its first part; its findings and
  // errors add up over its parts).
  void add_namespace(const NamespaceFacts& ns, const NamespaceJudgement& judgement);
  // Adds what another tally counted after ours (a namespace counted on the thread that judged
  // it, merged in report order; parts of one namespace are one flagged entry).
  void merge(AuditTally&& other);
  // After its namespaces: the temp dir's own findings and errors and its attach files.
  void add_root(const TempRootFacts& root, const RootJudgement& judgement);
  // One attach file judged apart from its temp dir (not in TempRootFacts::attach_files).
  void add_attach(const AttachFacts& attach, const Findings& judged);

 private:
  void add_errors(const std::vector<ObservationError>& more);
  void add_flagged_part(FlaggedNamespace&& part);
  void settle_open();
  // The namespace being counted: its parts add up here until another namespace comes.
  std::optional<FlaggedNamespace> open_;
};

// The tally of a whole result (namespaces first, then the roots, as a streamed audit counts).
// Needs the judgement of every root and namespace (std::out_of_range otherwise).
AuditTally tally_result(const AuditResult& result);

// count_reap over every namespace and attach file of `result` (their removals capped per temp
// dir at kAttachItemsPerRun, as one reap plans), for a reap run by `euid` at `now_ms` with its
// default options: what a streamed audit adds to its tally as it goes.
ReapCount count_reap(const AuditResult& result, std::int64_t now_ms, std::uint32_t euid);

// The most severe finding, if any.
std::optional<Severity> highest_severity(const AuditResult& result);

// Calls `visit(finding)` for every finding in the result.
template <typename Visit>
void for_each_finding(const AuditResult& result, Visit&& visit) {
  for (const auto& root : result.judgements) {
    for (const auto& f : root.findings) visit(f);
    for (const auto& ns : root.namespaces) {
      for (const auto& f : ns.findings) visit(f);
      for (const auto& file : ns.files) {
        for (const auto& f : file.findings) visit(f);
      }
    }
    for (const auto& attach : root.attach_files) {
      for (const auto& f : attach) visit(f);
    }
  }
}

}  // namespace hsperfguard
