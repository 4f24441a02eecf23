// A reap as data: the plan decide/reaper.hpp makes (what will be done to each entry, and why,
// with the identity it had when judged) and what the executor (platform/reap.hpp) reports
// for each item it attempted. The contract between the decision and the act.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/expected_inode.hpp"
#include "model/facts.hpp"
#include "model/verdict.hpp"

namespace hsperfguard {

enum class ReapAction { remove, keep, skip };

enum class ReapSubject {
  namespace_file,  // an entry of a hsperfdata_<user> directory
  attach_file,     // .java_pid<pid> / .attach_pid<pid> beside the namespaces
  namespace_dir,   // an empty namespace directory of a user that no longer exists
};

std::string_view to_string(ReapAction action);
std::string_view to_string(ReapSubject subject);

// The identity the executor acts with. When the reaper runs as root it takes the file-system
// identity (fsuid, fsgid, no supplementary groups) of the owner of the directory it works
// in, so that a raced path reaches only what that user could reach anyway.
struct ActingIdentity {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

// One temp root, as the executor must find it again.
struct RootPlan {
  std::size_t root = 0;  // index into the observed roots
  RootKind kind = RootKind::host;
  std::string root_dir;  // the system root ("/", "--root DIR")
  std::string temp_dir;
  std::optional<ExpectedInode> expected;  // of the opened temp dir
  bool actionable = false;
  std::string why;  // when not actionable: "temp-dir-unobserved"
  // A container's: the container it is the /tmp of (its uid_map says as whom a root run may
  // act there). nullopt for the other kinds.
  std::optional<ContainerFacts> container;
  // Its attach files (any user can make any number of them): how many were judged, and of
  // those beyond what one run plans, the reapable ones left for a later run (deferred) and
  // the others (kept, skipped) judged and counted but not in the plan (unlisted).
  std::size_t attach_judged = 0;
  std::size_t attach_deferred = 0;
  std::size_t attach_unlisted = 0;
};

// One namespace directory, as the executor must find it again, and whether it acts there.
struct NamespacePlan {
  std::size_t root = 0;  // index into Plan::roots (= into the observed roots)
  std::size_t ns = 0;    // index into roots[root].namespaces
  std::string name;      // "hsperfdata_alice", raw bytes
  std::string path;
  std::string user;                       // the name's suffix
  std::optional<bool> user_exists;        // nullopt: the user database could not be read
  std::optional<ExpectedInode> expected;  // of the opened directory
  bool actionable = false;
  // Stable code. Not actionable: "unobserved", "not-a-directory", "replaced", "crosses-mount",
  // "not-owner", "owner-outside-container", "temp-dir-unobserved". Actionable: "ok".
  std::string why;
  // Root runs: the directory's owner. Others act as themselves (nullopt).
  std::optional<ActingIdentity> acting;
  // Its entries planned so far (over all its parts, for a namespace planned in parts), and of
  // those, the ones planned for removal: whether its directory can go once they are gone.
  std::size_t entries = 0;
  std::size_t entries_planned_for_removal = 0;
};

struct PlanItem {
  ReapSubject subject = ReapSubject::namespace_file;
  std::size_t root = 0;
  std::optional<std::size_t> ns;  // index into Plan::namespaces (namespace_file, namespace_dir)
  std::size_t index = 0;  // namespace_file: into the namespace's files; attach: into attach_files
  std::string name;       // raw bytes of the directory entry
  std::string path;
  std::optional<ExpectedInode> expected;  // absent: the entry could not be stat'ed
  std::optional<std::int64_t> age_ms;     // now - max(ctime, mtime)
  Verdict verdict = Verdict::unknown;
  // The liveness reason ("process-gone"), or the attach file's or directory's. The message
  // and the evidence are not stored (at 100,000 files they would dominate the run): the
  // report asks explain_item() for them, item by item, from the same facts.
  std::string reason;
  // namespace_file: the liveness decision itself, which explain_item explains without
  // deciding again.
  std::optional<LivenessJudgement> liveness;
  ReapAction action = ReapAction::keep;
  // Stable code. remove: "reapable"; keep: "live", "unknown", "not-permitted" (reapable, but
  // the identity the executor acts with may not remove it: left to a person, see
  // item_remediation); skip: "too-young", "special-file", "directory", "hard-linked",
  // "unexpected-kind", "not-a-pid-name", "namespace-not-actionable",
  // "temp-dir-not-actionable", "not-owner", "owner-outside-container", "not-empty".
  std::string why;
  std::optional<ActingIdentity> acting;  // as NamespacePlan::acting; attach: the file's owner
};

// The keep of a reapable entry that the executor's identity may not remove: not a failure of
// the run, a finding for a person (the plan item's remediation says what to do).
inline constexpr std::string_view kNotPermitted = "not-permitted";

struct PlanCounts {
  std::size_t remove = 0;
  std::size_t keep = 0;
  std::size_t skip = 0;
};

struct Plan {
  std::vector<RootPlan> roots;
  std::vector<NamespacePlan> namespaces;
  // Ordered for execution: per root, per namespace its files then its directory; then the
  // root's attach files.
  std::vector<PlanItem> items;
  // Who executes it: 0 (root, acting as each owner as `acting` says) or the user it runs as.
  std::uint32_t euid = 0;

  PlanCounts counts() const;
  // Items left to a person (why "not-permitted").
  std::size_t left_to_a_person() const;
};

// ---- what the executor did ---------------------------------------------------------------

enum class ReapOutcome {
  removed,        // unlinked (or, for a namespace directory, removed)
  vanished,       // already gone when we got there: someone else removed it
  became_live,    // its lock was held when we tried to take it: a JVM owns it now
  changed,        // not the entry that was judged (other inode, kind, owner, links, mount)
  failed,         // a system call failed (EACCES, EPERM, EBUSY, ENOTEMPTY, ...)
  not_attempted,  // the deadline passed, or the run was interrupted, before its turn
};

constexpr std::string_view to_string(ReapOutcome outcome) {
  switch (outcome) {
    case ReapOutcome::removed:
      return "removed";
    case ReapOutcome::vanished:
      return "vanished";
    case ReapOutcome::became_live:
      return "became-live";
    case ReapOutcome::changed:
      return "changed";
    case ReapOutcome::failed:
      return "failed";
    case ReapOutcome::not_attempted:
      return "not-attempted";
  }
  return "not-attempted";
}

struct ReapActionRecord {
  std::size_t item = 0;  // index into Plan::items
  ReapOutcome outcome = ReapOutcome::not_attempted;
  // Stable code: "unlinked", "removed-directory", "not-found", "lock-held", "identity-changed",
  // "hard-linked", "crosses-mount", "renamed-while-locked", "namespace-changed",
  // "temp-dir-changed", "identity-switch-failed", "deadline", "interrupted", "journal-failed",
  // or the failing operation ("openat", "unlinkat", ...).
  std::string detail;
  std::optional<ObservationError> error;
  std::int64_t at_ms = 0;  // epoch ms when it was settled
};

struct ExecutionResult {
  std::vector<ReapActionRecord> actions;  // every item planned for removal, in plan order
  bool deadline_reached = false;
  bool interrupted = false;
  std::vector<ObservationError> errors;  // temp dirs, namespaces, identity switches
};

}  // namespace hsperfguard
