// The repair report: its text for a person, its JSON, and the lines that need a person's
// attention. One run record (RepairRun) feeds all three, so that they count alike.
#include "report/repair_report.hpp"

#include <sstream>

#include "model/json_text.hpp"
#include "model/text_escape.hpp"
#include "report/audit_report_json.hpp"
#include "report/audit_report_text.hpp"
#include "version.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;

std::string_view outcome_word(RepairOutcome outcome) {
  switch (outcome) {
    case RepairOutcome::fixed:
      return "fixed";
    case RepairOutcome::changed:
      return "changed";
    case RepairOutcome::vanished:
      return "vanished";
    case RepairOutcome::failed:
      return "failed";
  }
  return "failed";
}

// The outcome word in the audit's colours: done green, not done red.
std::string outcome_text(bool color, RepairOutcome outcome) {
  return styled_text(color, outcome == RepairOutcome::fixed ? "32" : "1;31", outcome_word(outcome));
}

// Why a fix was not done: its detail, and the failed operation.
std::string not_done_text(const RepairOutcomeRecord& record) {
  std::string text = terminal_safe(record.detail);
  if (record.error) text += ": " + terminal_safe(record.error->op) + ": " + terminal_safe(record.error->message);
  return text;
}

const RepairOutcomeRecord* record_of(const RepairRun& run, const RepairItem& item) {
  if (run.dry_run || !item.target || *item.target >= run.records.size()) return nullptr;
  return &run.records[*item.target];
}

}  // namespace

RepairCounts count_repair(const RepairRun& run, Severity blocking) {
  RepairCounts counts;
  if (run.dry_run) {
    counts.fixed = run.plan.count(RepairDisposition::fix);
  } else {
    for (const auto& r : run.records) (r.outcome == RepairOutcome::fixed ? counts.fixed : counts.failed) += 1;
  }
  for (const auto& item : run.plan.items) {
    if (item.disposition != RepairDisposition::left) continue;
    ++counts.left;
    if (item.severity >= blocking) ++counts.left_blocking;
  }
  return counts;
}

std::string repair_report_text(const RepairRun& run, bool color) {
  std::ostringstream out;
  for (const auto& item : run.plan.items) {
    const std::string where = terminal_safe(item.path);
    if (item.disposition == RepairDisposition::fix) {
      const RepairOutcomeRecord* record = record_of(run, item);
      if (record == nullptr) {
        out << "would fix  " << item.rule << "  " << where << ": " << terminal_safe(item.change) << "\n";
        continue;
      }
      out << outcome_text(color, record->outcome) << "  " << item.rule << "  " << where << ": "
          << terminal_safe(item.change);
      if (record->outcome != RepairOutcome::fixed) out << " (not done: " << not_done_text(*record) << ")";
      out << "\n";
      continue;
    }
    out << styled_text(color, "33", "left") << "  " << item.rule << "  " << where << " ["
        << severity_text(color, item.severity) << "]: " << terminal_safe(item.reason)
        << "\n      manual remedy: " << terminal_safe(item.remediation) << "\n";
  }
  // The counts the exit status follows from (medium: the severity left items block at).
  const RepairCounts c = count_repair(run, Severity::medium);
  out << "repair: " << c.fixed << (run.dry_run ? " would be fixed" : " fixed") << ", " << c.failed << " failed, "
      << c.left << " left to a person" << (c.left > 0 ? " (`hsperfguard audit` shows them)" : "") << "\n";
  if (run.exit_code != 0) out << "exit " << run.exit_code << ": " << run.exit_reason << "\n";
  return out.str();
}

json repair_report_json(const RepairRun& run, const HostInfo& host, Severity blocking) {
  json report;
  report["schema"] = "hsperfguard-repair/1";
  report["tool"] = {{"name", "hsperfguard"}, {"version", kVersion}};
  report["host"] = {{"name", escape_non_utf8(host.name)},
                    {"os", host.os},
                    {"kernel", escape_non_utf8(host.kernel)},
                    {"euid", host.euid}};
  report["command"] = "repair";
  report["generated_at"] = format_utc_millis(run.generated_at_ms);
  report["dry_run"] = run.dry_run;
  report["profile"] = run.profile;
  report["policy_file"] = run.policy_file ? json(escape_non_utf8(*run.policy_file)) : json(nullptr);
  json& items = report["items"] = json::array();
  for (const auto& item : run.plan.items) {
    json j;
    j["rule"] = item.rule;
    j["severity"] = to_string(item.severity);
    put_text(j, "path", item.path);
    put_text(j, "message", item.message);
    j["disposition"] = item.disposition == RepairDisposition::fix ? "fix" : "left";
    const RepairOutcomeRecord* record = record_of(run, item);
    if (item.disposition == RepairDisposition::fix) {
      put_text(j, "change", item.change);
      j["outcome"] = record != nullptr ? json(outcome_word(record->outcome)) : json(nullptr);
      if (record != nullptr && record->outcome != RepairOutcome::fixed) {
        put_text(j, "detail", record->detail);
        j["error"] = record->error ? error_to_json(*record->error) : json(nullptr);
      }
    } else {
      put_text(j, "reason", item.reason);
      put_text(j, "remediation", item.remediation);
    }
    items.push_back(std::move(j));
  }
  const RepairCounts c = count_repair(run, blocking);
  report["counts"] = {{run.dry_run ? "would_fix" : "fixed", c.fixed},
                      {"failed", c.failed},
                      {"left", c.left},
                      {"left_at_or_above_medium", c.left_blocking}};
  json& errors = report["errors"] = json::array();
  for (const auto& e : run.errors) errors.push_back(error_to_json(e));
  report["complete"] = !run.incomplete;
  report["exit_code"] = run.exit_code;
  report["exit_reason"] = run.exit_code != 0 ? json(run.exit_reason) : json(nullptr);
  return report;
}

std::string repair_attention_text(const RepairRun& run, Severity blocking) {
  std::ostringstream out;
  for (const auto& item : run.plan.items) {
    if (item.disposition == RepairDisposition::fix) {
      const RepairOutcomeRecord* record = record_of(run, item);
      if (record == nullptr || record->outcome == RepairOutcome::fixed) continue;
      out << outcome_word(record->outcome) << " " << terminal_safe(item.path) << ": " << terminal_safe(item.change)
          << " (" << not_done_text(*record) << ")\n";
    } else if (item.severity >= blocking) {
      out << "left " << to_string(item.severity) << " " << item.rule << " " << terminal_safe(item.path) << ": "
          << terminal_safe(item.remediation) << "\n";
    }
  }
  if (run.exit_code != 0) out << "exit " << run.exit_code << ": " << run.exit_reason << "\n";
  return out.str();
}

}  // namespace hsperfguard
