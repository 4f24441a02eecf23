// The loop over the temp roots of a run, which `audit` and `reap` share: each root gets its
// turn in RootSchedule's order (the first with the run's limits, each container's with its
// share of what is left), a container that stopped since discovery is dropped, one cut off at
// its share before anything of it was observed waits for a second turn at the end, and the
// roots whose second turn never came are finished as their first left them. What a turn
// does (observe, judge and write; observe, plan and act) is the command's: its visitor.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "commands/discovery.hpp"
#include "decide/discover.hpp"
#include "model/facts.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard {

// What the loop saw of a run's temp roots, for the command's closing words.
struct RootLoopOutcome {
  std::size_t roots = 0;      // discovered
  std::size_t looked_at = 0;  // given a first turn
  std::size_t cut_off = 0;    // container temp dirs stopped at their share
  bool halted = false;        // a visitor's finish asked to stop
  bool incomplete = false;    // a root not opened, stopped, or with processes not looked into
};

// A turn of one temp root, as the command's visitor made it: its facts, whether anything of
// it (a namespace) was observed, and whatever else the command keeps of the turn.
//
// The visitor, of any type V with a Turn type T that has `TempRootFacts root` and `bool seen`:
//   T V::observe(const RootSpec&, const RunLimits& root_limits)
//       the root looked at under its limits;
//   bool V::finish(T&& turn, std::size_t index, const RunLimits& root_limits)
//       its last turn, done: judge or plan it, write or act (false: stop the run);
//   void V::finish_unvisited(T&& turn, std::size_t index)
//       a root whose second turn never came (the run stopped), as its first turn left it.
// `index` is the root's position in `specs`; `container_named` (--container) keeps a root
// whose process is gone, which is then the run's error rather than a dropped container.
template <typename Visitor>
RootLoopOutcome visit_temp_roots(const std::vector<RootSpec>& specs, const RunLimits& limits,
                                 bool container_named, Visitor& visitor) {
  using Turn = decltype(visitor.observe(specs.front(), limits));
  RootLoopOutcome outcome;
  outcome.roots = specs.size();
  std::set<std::size_t> looked_at;
  // Roots cut off at their share before anything of them was seen, waiting for their second
  // turn (by their index in specs), as their first turn left them.
  std::map<std::size_t, Turn> waiting;
  RootSchedule schedule(limits, specs.size());
  while (const auto next = outcome.halted ? std::nullopt : schedule.next()) {
    looked_at.insert(next->index);
    Turn turn = visitor.observe(specs[next->index], next->limits);
    // The container stopped since discovery (nothing of it was seen).
    if (!container_named && !turn.seen && container_vanished(turn.root)) continue;
    // Cut off at its share before anything of it was seen: looked at again at the end.
    waiting.erase(next->index);
    if (turn.root.stopped && !turn.seen && schedule.again()) {
      waiting.emplace(next->index, std::move(turn));
      continue;
    }
    // A temp dir that could not be opened leaves nothing looked at beneath it; one stopped
    // before its end, what comes after; processes the container scan could not look into
    // (the first root carries them), a container of theirs.
    const TempRootFacts& root = turn.root;
    if (!root.opened || root.stopped || !root.unobserved.empty()) outcome.incomplete = true;
    if (root.stopped && next->index > 0) ++outcome.cut_off;
    outcome.halted = !visitor.finish(std::move(turn), next->index, next->limits);
  }
  // Those whose second turn never came (the run was stopped): as their first left them.
  for (auto& [index, turn] : waiting) {
    outcome.incomplete = true;
    ++outcome.cut_off;
    visitor.finish_unvisited(std::move(turn), index);
  }
  outcome.looked_at = looked_at.size();
  return outcome;
}

}  // namespace hsperfguard
