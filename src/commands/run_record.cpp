#include "commands/run_record.hpp"

#include <cstdio>
#include <ostream>
#include <string>

#include "commands/audit_options.hpp"
#include "commands/exit_codes.hpp"
#include "commands/output_target.hpp"
#include "commands/reap_options.hpp"
#include "decide/audit.hpp"
#include "platform/files.hpp"
#include "report/audit_report_json.hpp"
#include "report/logging.hpp"
#include "report/metrics.hpp"
#include "report/reap_report.hpp"
#include "version.hpp"

namespace hsperfguard {
namespace {

MetricsBuild this_build() { return MetricsBuild{kVersion, kBuildInfo}; }

std::string seconds_text(std::int64_t ms) {
  char text[32];  // at most 23 characters ("-9223372036854775.808 s"): never truncated
  static_cast<void>(std::snprintf(text, sizeof text, "%.3f s", static_cast<double>(ms) / 1000.0));
  return text;
}

// The previous file's samples (its counters), or none if there is no readable file. It is
// read as the file the metrics replace: a regular file, never through a link as its last
// component (nor another user's link on the way); a standard stream has no previous file.
MetricSamples previous_samples(const std::string& path) {
  constexpr std::size_t kMaxMetricsFile = std::size_t{16} * 1024 * 1024;
  if (standard_stream_named(path) != StandardStream::none) return {};
  const platform::FileRead previous = platform::read_regular_file(path, kMaxMetricsFile);
  if (previous.error) return {};
  return parse_metric_samples(
      std::string_view(reinterpret_cast<const char*>(previous.bytes.data()), previous.bytes.size()));
}

bool write_metrics(const std::string& command, const std::string& path, const std::string& text,
                   std::ostream& err) {
  platform::OutputOptions options;
  options.mode = 0644;  // node_exporter reads it as another user
  if (auto error = write_output_to(path, [&](const platform::ContentSink& write) { write(text); }, options)) {
    err << "hsperfguard: " << command << ": cannot write metrics " << path << ": " << error->op
        << ": " << error->message << "\n";
    return false;
  }
  return true;
}

LogLevel level_of(ReapOutcome outcome) {
  switch (outcome) {
    case ReapOutcome::removed:
    case ReapOutcome::vanished:
      return LogLevel::info;
    case ReapOutcome::failed:
      return LogLevel::error;
    default: return LogLevel::warning;
  }
}

void log_reap_actions(Logger& log, const ReapRun& run) {
  if (!run.execution) return;
  for (const auto& action : run.execution->actions) {
    if (action.item >= run.plan.items.size()) continue;
    const PlanItem& item = run.plan.items[action.item];
    std::string message = std::string(to_string(action.outcome)) + " " + item.path + " (" +
                          std::string(to_string(item.verdict)) + ": " + item.reason;
    if (action.outcome != ReapOutcome::removed) message += "; " + action.detail;
    if (action.error) message += "; " + action.error->op + ": " + action.error->message;
    message += ")";
    nlohmann::json fields = {{"outcome", std::string(to_string(action.outcome))},
                             {"detail", action.detail},
                             {"verdict", std::string(to_string(item.verdict))},
                             {"reason", item.reason}};
    put_text(fields, "path", item.path);
    if (action.error) fields["error"] = error_to_json(*action.error);
    log.log(level_of(action.outcome), "action", message, fields);
  }
}

// The entries the plan leaves to a person (the same in a dry run and a real one): a warning
// each, with what to do.
void log_entries_left_to_a_person(Logger& log, const ReapRun& run) {
  for (std::size_t i = 0; i < run.plan.items.size(); ++i) {
    const PlanItem& item = run.plan.items[i];
    const auto remediation = item_remediation(run.plan, i);
    if (!remediation) continue;
    nlohmann::json fields = {{"action", std::string(to_string(item.action))},
                             {"why", item.why},
                             {"verdict", std::string(to_string(item.verdict))},
                             {"reason", item.reason},
                             {"remediation", *remediation}};
    put_text(fields, "path", item.path);
    log.log(LogLevel::warning, "kept",
            "kept " + item.path + " (" + std::string(to_string(item.verdict)) + ": " + item.reason +
                "; " + item.why + "): " + *remediation,
            fields);
  }
}

// The summary's level: what the exit status says, and for an exit 0 whether something is
// waiting for a person.
LogLevel summary_level(int exit_code, bool needs_a_person, bool findings_fail) {
  if (exit_code == kExitOk) return needs_a_person ? LogLevel::warning : LogLevel::info;
  if (exit_code == kExitFindings && findings_fail) return LogLevel::warning;
  return LogLevel::error;
}

bool logs_summary(const Logger* log, LogLevel level) {
  return log != nullptr && log->options().logs_actions() &&
         (!log->options().quiet || level != LogLevel::info);
}

}  // namespace

int audit_exit_code(const AuditCommandOptions& options, const AuditResult& result, const AuditTally& tally) {
  if (result.incomplete) return kExitIncomplete;
  return tally.worst && *tally.worst >= options.fail_on ? kExitFindings : kExitOk;
}

int reap_exit_code(const ReapRun& run) {
  if (run.incomplete) return kExitIncomplete;
  if (!run.execution) return kExitOk;
  if (run.execution->interrupted || !run.errors.empty()) return kExitIncomplete;
  return tally_of(run).outcomes.failed > 0 ? kExitFindings : kExitOk;
}

bool audit_run_succeeded(const AuditResult& result) { return !result.incomplete; }

bool reap_run_succeeded(const ReapRun& run) { return reap_exit_code(run) == kExitOk; }

int record_audit_run(const AuditCommandOptions& options, const AuditResult& result,
                     const AuditTally& tally, int exit_code, std::ostream& err) {
  if (options.metrics) {
    const std::string text = audit_metrics_text(result, tally, audit_run_succeeded(result), this_build(),
                                                previous_samples(*options.metrics));
    if (!write_metrics("audit", *options.metrics, text, err)) exit_code = kExitIncomplete;
  }
  const LogLevel level = summary_level(exit_code, false, true);
  if (logs_summary(options.logger, level)) {
    const std::string worst_text = tally.worst ? std::string(to_string(*tally.worst)) : "none";
    options.logger->log(level, "summary",
                        std::to_string(tally.findings) + " findings (worst: " + worst_text + ", failing at " +
                            std::string(to_string(options.fail_on)) + ") in " +
                            std::to_string(tally.namespaces) + " namespaces, " +
                            seconds_text(result.finished_at_ms - result.started_at_ms) +
                            (result.incomplete ? ", incomplete" : "") + ", exit " + std::to_string(exit_code),
                        {{"findings", tally.findings},
                         {"worst_severity", worst_text},
                         {"fail_on", std::string(to_string(options.fail_on))},
                         {"namespaces", tally.namespaces},
                         {"complete", !result.incomplete},
                         {"exit_code", exit_code},
                         {"duration_seconds", static_cast<double>(result.finished_at_ms - result.started_at_ms) / 1000.0}});
  }
  return exit_code;
}

void log_reap_part(const ReapCommandOptions& options, const ReapRun& run) {
  if (options.logger == nullptr || !options.logger->options().logs_actions()) return;
  log_reap_actions(*options.logger, run);
  log_entries_left_to_a_person(*options.logger, run);
}

int record_reap_run(const ReapCommandOptions& options, const ReapRun& run, int exit_code, std::ostream& err) {
  if (options.metrics) {
    const std::string text = reap_metrics_text(run, reap_run_succeeded(run), this_build(),
                                               previous_samples(*options.metrics));
    if (!write_metrics("reap", *options.metrics, text, err)) exit_code = kExitIncomplete;
  }
  if (options.logger == nullptr || !options.logger->options().logs_actions()) return exit_code;
  Logger& log = *options.logger;
  // A run in parts logged each part's lines as it went (log_reap_part): it holds none here.
  log_reap_part(options, run);
  const ReapTally tally = tally_of(run);
  const std::size_t left = tally.left_to_a_person;
  const LogLevel level = summary_level(exit_code, left > 0, false);
  if (!logs_summary(&log, level)) return exit_code;
  const PlanCounts planned = tally.planned;
  const ReapOutcomeCounts done = run.execution ? tally.outcomes : ReapOutcomeCounts{};
  const std::int64_t ms = run.finished_at_ms - run.started_at_ms;
  std::string message = run.dry_run ? "dry run: " + std::to_string(planned.remove) + " to remove"
                                    : "removed " + std::to_string(done.removed) + " of " +
                                          std::to_string(planned.remove) + ", failed " +
                                          std::to_string(done.failed);
  message += ", kept " + std::to_string(planned.keep) + " (" + std::to_string(left) +
             " left to a person), skipped " + std::to_string(planned.skip) + ", " + seconds_text(ms) +
             (run.incomplete ? ", incomplete" : "") + ", exit " + std::to_string(exit_code);
  log.log(level, "summary", message,
          {{"dry_run", run.dry_run},
           {"planned_removals", planned.remove},
           {"kept", planned.keep},
           {"left_to_a_person", left},
           {"skipped", planned.skip},
           {"removed", done.removed},
           {"vanished", done.vanished},
           {"became_live", done.became_live},
           {"changed", done.changed},
           {"failed", done.failed},
           {"not_attempted", done.not_attempted},
           {"complete", reap_run_succeeded(run)},
           {"exit_code", exit_code},
           {"duration_seconds", static_cast<double>(ms) / 1000.0}});
  return exit_code;
}

}  // namespace hsperfguard
