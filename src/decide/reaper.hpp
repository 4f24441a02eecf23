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

#include "decide/liveness.hpp"
#include "model/facts.hpp"
#include "model/reap_plan.hpp"

namespace hsperfguard {

struct ReapOptions {
  std::int64_t min_age_ms = 60'000;
  bool include_special = false;          // FIFOs, sockets and devices in namespaces
  bool remove_empty_namespaces = false;  // empty namespace dirs of users that no longer exist
  std::int64_t start_time_tolerance_ms = LivenessSettings{}.start_time_tolerance_ms;
};

// `euid`: who will execute the plan (0: root, who acts as each namespace's owner; anyone
// else acts only in namespaces and on attach files they own). `now_ms`: epoch ms.
Plan plan_reap(const std::vector<TempRootFacts>& roots, const ReapOptions& options,
               std::int64_t now_ms, std::uint32_t euid);

// One run plans at most this many attach files of a temp dir that it would remove, and as many
// that it would not (kept, skipped): any user can make any number in /tmp, and every planned
// item is held until the run is reported. The reapable ones beyond are left for the next run
// (in name order within each part listed, so every run makes progress), the others counted.
inline constexpr std::size_t kAttachItemsPerRun = 4096;

// plan_reap a piece at a time, for a reaper that plans each namespace as soon as it is
// observed: begin_root, then add_namespace for each of its namespaces in order (`n`: its
// index among the root's namespaces; `root` may be the temp dir as observed so far; a
// namespace observed in parts is added part by part, its later parts continuing its plan,
// its directory planned after its last part; a caller may drop the items of each part once
// it has acted on them and reported them: the planner keeps only counts of them), then
// add_attach for its attach files as they are observed, then end_root with the whole root
// (it plans the attach files not added). The same plan as plan_reap.
class ReapPlanner {
 public:
  ReapPlanner(Plan& plan, const ReapOptions& options, std::uint32_t euid);
  void begin_root(const TempRootFacts& root, std::size_t r, std::int64_t now_ms);
  void add_namespace(const TempRootFacts& root, const NamespaceFacts& ns, std::size_t n);
  // Attach file `a` of `root` (its process looked up), judged and counted in the root's plan.
  // false: it is not in the plan (beyond kAttachItemsPerRun of its kind), and its facts are
  // not needed (a caller that adds them one at a time may drop them).
  bool add_attach(const TempRootFacts& root, std::size_t a);
  void end_root(const TempRootFacts& root);

 private:
  Plan& plan_;
  const ReapOptions& options_;
  std::uint32_t euid_;
  std::int64_t now_ms_ = 0;
  std::size_t attach_added_ = 0;     // attach files of the current root added so far
  std::size_t attach_removals_ = 0;  // of those, planned for removal
  std::size_t attach_others_ = 0;    // planned to be kept or skipped
};

// What a reap with `options`, run at `now_ms` by `euid`, would do with facts another command
// observed (the audit's next line says how many files `reap --dry-run` removes): the
// planner's own decisions, counted, no item kept. `remove`: planned for removal;
// `kept_reapable`: judged stale or pid-reused but kept or skipped (hard-linked, a FIFO, younger
// than --min-age, not permitted, ...). A caller counting a temp dir's attach files caps their
// removals at kAttachItemsPerRun, as one run plans.
struct ReapCount {
  std::size_t remove = 0;
  std::size_t kept_reapable = 0;
};
// Whether a reap of the audit's own scope looks at `root`: not a JVM's -XX:AltTempDir, which an
// audit looks at and reap only when named with --tmpdir (the audit's count of what reap would
// do leaves it out, as reap does).
inline bool reaped_in_same_scope(const TempRootFacts& root) { return root.kind != RootKind::alt_temp_dir; }
// One namespace, or one part of one (`ns.part`): its files, and its directory when asked.
ReapCount count_reap(const TempRootFacts& root, const NamespaceFacts& ns, const ReapOptions& options,
                     std::int64_t now_ms, std::uint32_t euid);
// One attach file of `root`, observed apart from it or one of root.attach_files.
ReapCount count_reap(const TempRootFacts& root, const AttachFacts& attach, const ReapOptions& options,
                     std::int64_t now_ms, std::uint32_t euid);

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

// What stops the identity the executor acts with from removing an entry, by the permission
// bits the plan saw (see reaper.cpp): the first of the executor's needs it lacks.
enum class RemovalDenial {
  search_directory,    // look the name up in its directory
  write_directory,     // unlink the name
  sticky_directory,    // a sticky directory: neither it nor the entry is the identity's
  read_own_entry,      // open the file to take its lock: its owner has no read permission
  read_foreign_entry,  // the same, for a file another uid owns
};

// What a person should do about plan item `item` when the plan leaves it to one (why
// "not-permitted"): who the reaper acts as, what it may not do and why, and how to remove the
// entry by hand. nullopt for any other item. The path is not in the text: it is the item's.
std::optional<std::string> item_remediation(const Plan& plan, std::size_t item);

// Whether the decision on `file` can depend on its region (the VM begin time): only when a
// process with its pid is alive (or may be). A reaper that observed without reading regions
// reads them for these files only; for all others the verdict is the same either way.
bool region_may_decide(const FileFacts& file);

}  // namespace hsperfguard
