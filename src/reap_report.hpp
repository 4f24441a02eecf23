// The reap report: the plan (what was judged, with its evidence, and what would be done),
// the actions (what was done and what failed), as JSON ("command": "reap", schema in
// reports/report.schema.json) or as text for people.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts.hpp"
#include "host_info.hpp"
#include "platform/reap.hpp"
#include "reaper.hpp"

namespace hsperfguard {

struct ReapLockInfo {
  std::optional<std::string> path;  // nullopt: --no-lock, or a dry run (takes no lock)
  bool acquired = false;
  bool waited = false;
  std::int64_t wait_ms = 0;
};

struct ReapRun {
  std::vector<TempRootFacts> roots;
  Plan plan;
  std::optional<platform::ExecutionResult> execution;  // absent for a dry run
  ReapOptions options;
  bool dry_run = false;
  std::optional<std::int64_t> max_runtime_ms;
  ReapLockInfo lock;
  std::optional<std::string> journal;
  std::vector<ObservationError> errors;  // run-level (the journal, ...)
  std::int64_t started_at_ms = 0;
  std::int64_t finished_at_ms = 0;
  bool incomplete = false;  // a temp dir could not be observed
};

struct ReapOutcomeCounts {
  std::size_t removed = 0;
  std::size_t vanished = 0;
  std::size_t became_live = 0;
  std::size_t changed = 0;
  std::size_t failed = 0;
  std::size_t not_attempted = 0;
};

ReapOutcomeCounts count_outcomes(const platform::ExecutionResult& execution);

// One JSON object for a plan item or an action (also the journal's lines).
nlohmann::json plan_item_json(const Plan& plan, std::size_t item);
nlohmann::json action_json(const Plan& plan, const platform::ReapActionRecord& record);

nlohmann::json reap_report_json(const ReapRun& run, const HostInfo& host);
std::string reap_report_text(const ReapRun& run);

}  // namespace hsperfguard
