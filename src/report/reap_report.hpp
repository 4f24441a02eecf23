// The reap report: the plan (what was judged, with its evidence, and what would be done),
// the actions (what was done and what failed), as JSON ("command": "reap", schema in
// schemas/report.schema.json) or as text for people.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "decide/audit.hpp"
#include "decide/reaper.hpp"
#include "model/facts.hpp"
#include "model/host_info.hpp"

namespace hsperfguard {

struct ReapLockInfo {
  std::optional<std::string> path;  // nullopt: --no-lock, or a dry run (takes no lock)
  bool acquired = false;
  bool waited = false;
  std::int64_t wait_ms = 0;
};

// Where a run spent its time (milliseconds), for operators watching a cron job grow.
struct ReapTimings {
  std::int64_t lock_ms = 0;
  std::int64_t observe_ms = 0;   // listing and stat'ing, liveness, the regions it needed
  std::int64_t plan_ms = 0;
  std::int64_t execute_ms = 0;
  std::int64_t discover_ms = 0;  // which temp dirs to look at: the container scan over /proc
};

struct ReapRun {
  std::vector<TempRootFacts> roots;
  Plan plan;
  std::optional<ExecutionResult> execution;  // absent for a dry run
  ReapOptions options;
  bool dry_run = false;
  std::optional<std::int64_t> max_runtime_ms;
  ReapLockInfo lock;
  std::optional<std::string> journal;
  std::vector<ObservationError> errors;  // run-level (the journal, ...)
  std::int64_t started_at_ms = 0;
  std::int64_t finished_at_ms = 0;
  // A temp dir could not be observed, or was not observed to the end (the run's limits, or
  // a container's share of them, were reached: its TempRootFacts::stopped says so).
  bool incomplete = false;
  // What the run could not look at (any of it makes it incomplete).
  NotLookedAt not_looked_at;
  // --user: the only user whose namespaces were in scope.
  std::optional<std::string> scope_user;
  ReapTimings timings;
};

struct ReapOutcomeCounts {
  std::size_t removed = 0;
  std::size_t vanished = 0;
  std::size_t became_live = 0;
  std::size_t changed = 0;
  std::size_t failed = 0;
  std::size_t not_attempted = 0;
};

ReapOutcomeCounts count_outcomes(const ExecutionResult& execution);

// One JSON object for a plan item (its message and evidence from explain_item) or an
// action (also the journal's lines).
nlohmann::json plan_item_json(const ReapRun& run, std::size_t item);
nlohmann::json action_json(const Plan& plan, const ReapActionRecord& record);

// The whole report, every section but the plan and the actions.
nlohmann::json reap_report_head_json(const ReapRun& run, const HostInfo& host);
// The whole JSON report, handed to `write` piece by piece: the head pretty-printed, then
// "plan" and "actions" with one item per line. Items are rendered a block at a time and
// never all held, as JSON values or as text: at 100,000 entries the report is ~100 MB.
void write_reap_report_json(const ReapRun& run, const HostInfo& host,
                            const std::function<void(std::string_view)>& write);
// The same, whole, in a string (tests, small runs).
std::string reap_report_json_text(const ReapRun& run, const HostInfo& host);
// The text for people: each temp dir and namespace, its items (like items of a namespace, more
// than three, as one line with their count and first names unless `verbose`), the counts, the
// actions (grouped the same way: like outcomes of a namespace as one line) and errors. Why something is skipped, kept or left alone is said in words.
// `exit_line` ("exit 1: 2 removals failed ...", or empty for a run that exits 0) ends it;
// `color`: the outcomes in the audit's colours (removed green, the others red).
std::string reap_report_text(const ReapRun& run, bool verbose = false, const std::string& exit_line = "",
                             bool color = false);
// --quiet: what needs a person, for cron to mail, one line each, every part terminal_safe:
// "failed PATH: OP: MESSAGE" for each removal that failed, "kept PATH (not-permitted):
// REMEDIATION" for each entry the plan leaves to a person. Empty when all is well.
std::string reap_attention_text(const ReapRun& run);

}  // namespace hsperfguard
