// Reap planning: from the observed temp roots (with their liveness evidence) to a plan that
// says, for every entry, what the reaper will do and why. Pure: no syscalls, no clock (the
// caller passes "now"), so `--dry-run` prints exactly what execution would act on and tests
// build the facts by hand.
//
// The plan is the contract with the executor (platform/reap.hpp): each removal carries the
// identity (dev, ino, kind, uid) the entry had when it was judged, and the executor acts
// only on an entry that still has it. What is never planned for removal: a live or unknown
// file, a directory, a hard-linked file, a file younger than --min-age, anything in a
// namespace that cannot be acted on safely, and FIFOs, sockets and devices unless asked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"
#include "decide/liveness.hpp"

namespace hsperfguard {

enum class ReapAction { remove, keep, skip };

enum class ReapSubject {
  namespace_file,  // an entry of a hsperfdata_<user> directory
  attach_file,     // .java_pid<pid> / .attach_pid<pid> beside the namespaces
  namespace_dir,   // an empty namespace directory of a user that no longer exists
};

std::string_view to_string(ReapAction action);
std::string_view to_string(ReapSubject subject);

// The identity an entry had when it was judged; the executor acts only if it finds it again.
struct ExpectedInode {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  FileKind kind = FileKind::unknown;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint32_t mode = 0;
  std::uint64_t nlink = 1;
};

ExpectedInode expected_from(const InodeFacts& inode);

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
};

// One namespace directory, as the executor must find it again, and whether it acts there.
struct NamespacePlan {
  std::size_t root = 0;  // index into Plan::roots (= into the observed roots)
  std::size_t ns = 0;    // index into roots[root].namespaces
  std::string name;      // "hsperfdata_alice", raw bytes
  std::string path;
  std::string user;  // the name's suffix
  std::optional<bool> user_exists;  // nullopt: the user database could not be read
  std::optional<ExpectedInode> expected;  // of the opened directory
  bool actionable = false;
  // Stable code. Not actionable: "unobserved", "not-a-directory", "replaced", "crosses-mount",
  // "not-owner", "temp-dir-unobserved". Actionable: "ok".
  std::string why;
  // Root runs: the directory's owner. Others act as themselves (nullopt).
  std::optional<ActingIdentity> acting;
};

struct PlanItem {
  ReapSubject subject = ReapSubject::namespace_file;
  std::size_t root = 0;
  std::optional<std::size_t> ns;  // index into Plan::namespaces (namespace_file, namespace_dir)
  std::size_t index = 0;          // namespace_file: into the namespace's files; attach: into attach_files
  std::string name;               // raw bytes of the directory entry
  std::string path;
  std::optional<ExpectedInode> expected;  // absent: the entry could not be stat'ed
  std::optional<std::int64_t> age_ms;     // now - max(ctime, mtime)
  Verdict verdict = Verdict::unknown;
  // The liveness reason ("process-gone"), or the attach file's or directory's. The message
  // and the evidence are not stored (at 100,000 files they would dominate the run): the
  // report asks explain_item() for them, item by item, from the same facts.
  std::string reason;
  ReapAction action = ReapAction::keep;
  // Stable code. remove: "reapable"; keep: "live", "unknown"; skip: "too-young",
  // "special-file", "directory", "hard-linked", "unexpected-kind", "not-a-pid-name",
  // "namespace-not-actionable", "temp-dir-not-actionable", "not-owner", "not-empty".
  std::string why;
  std::optional<ActingIdentity> acting;  // as NamespacePlan::acting; attach: the file's owner
};

struct ReapOptions {
  std::int64_t min_age_ms = 60'000;
  bool include_special = false;          // FIFOs, sockets and devices in namespaces
  bool remove_empty_namespaces = false;  // empty namespace dirs of users that no longer exist
  std::int64_t start_time_tolerance_ms = LivenessSettings{}.start_time_tolerance_ms;
};

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

  PlanCounts counts() const;
};

// `euid`: who will execute the plan (0: root, who acts as each namespace's owner; anyone
// else acts only in namespaces and on attach files they own). `now_ms`: epoch ms.
Plan plan_reap(const std::vector<TempRootFacts>& roots, const ReapOptions& options,
               std::int64_t now_ms, std::uint32_t euid);

// plan_reap a piece at a time, for a reaper that plans each namespace as soon as it is
// observed: begin_root, then add_namespace for each of its namespaces in order (`n`: its
// index among the root's namespaces; `root` may be the temp dir as observed so far), then
// end_root with the whole root (its attach files). The same plan as plan_reap.
class ReapPlanner {
 public:
  ReapPlanner(Plan& plan, const ReapOptions& options, std::uint32_t euid);
  void begin_root(const TempRootFacts& root, std::size_t r, std::int64_t now_ms);
  void add_namespace(const TempRootFacts& root, const NamespaceFacts& ns, std::size_t n);
  void end_root(const TempRootFacts& root);

 private:
  Plan& plan_;
  const ReapOptions& options_;
  std::uint32_t euid_;
  std::int64_t now_ms_ = 0;
};

// The verdict on a .java_pid / .attach_pid file: removable only when its pid is known gone.
LivenessVerdict judge_attach_file(const AttachFacts& attach);

// The verdict of plan item `item` with its message and evidence, decided again from the
// facts the plan was made from (`roots`, `options`): the same verdict and reason the plan
// holds, with what decided them.
LivenessVerdict explain_item(const std::vector<TempRootFacts>& roots, const Plan& plan,
                             std::size_t item, const ReapOptions& options);
// The same with the evidence appended to `evidence` as compact JSON (the text append_json
// writes for the evidence above), left null in the verdict: what the report writes per item.
LivenessVerdict explain_item(const std::vector<TempRootFacts>& roots, const Plan& plan,
                             std::size_t item, const ReapOptions& options, std::string& evidence);

// Whether the decision on `file` can depend on its region (the VM begin time): only when a
// process with its pid is alive (or may be). A reaper that observed without reading regions
// reads them for these files only; for all others the verdict is the same either way.
bool region_may_decide(const FileFacts& file);

}  // namespace hsperfguard
