// The repair report: each finding with what was done to it (fixed, or left to a person and
// why) and the run's end, as text for people or as JSON ("schema": "hsperfguard-repair/1",
// schemas/repair.schema.json) for machines; --quiet's lines for cron.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/host_info.hpp"
#include "model/repair_plan.hpp"

namespace hsperfguard {

// One repair run, as the report tells it.
struct RepairRun {
  RepairPlan plan;
  std::vector<RepairOutcomeRecord> records;  // by target; empty for a dry run
  bool dry_run = false;
  std::string profile;
  std::optional<std::string> policy_file;  // the policy file applied on the profile, if any
  std::vector<ObservationError> errors;    // of the temp dirs that could not be opened
  bool incomplete = false;
  std::int64_t generated_at_ms = 0;
  // How the run ends: its exit status and, when not 0, why in words ("2 findings at or above
  // medium are left to a person").
  int exit_code = 0;
  std::string exit_reason;
};

struct RepairCounts {
  std::size_t fixed = 0;      // targets fixed (a dry run: items that would be)
  std::size_t failed = 0;     // targets not fixed (changed, vanished, failed)
  std::size_t left = 0;       // items left to a person
  std::size_t left_blocking = 0;  // of those, at or above `blocking`
};
RepairCounts count_repair(const RepairRun& run, Severity blocking);

// Text: one line per finding ("fixed", "would fix", "left" with its manual remedy), the
// counts, and, when the run does not exit 0, a last line "exit N: REASON". `color` styles
// the outcome words and severities as the audit does.
std::string repair_report_text(const RepairRun& run, bool color = false);
// JSON: the run as one document (schemas/repair.schema.json).
nlohmann::json repair_report_json(const RepairRun& run, const HostInfo& host, Severity blocking);
// --quiet: what needs a person, one line each: "failed PATH: CHANGE (DETAIL)" for a fix that
// was not done, "left SEVERITY RULE PATH: REMEDIATION" for each finding left at or above
// `blocking`, and the exit line when the run does not exit 0. Empty when all is well.
std::string repair_attention_text(const RepairRun& run, Severity blocking);

}  // namespace hsperfguard
