#include "commands/operations.hpp"

#include <cstdio>
#include <ostream>
#include <string>

#include "decide/audit.hpp"
#include "commands/audit_command.hpp"
#include "report/logging.hpp"
#include "report/metrics.hpp"
#include "commands/output_target.hpp"
#include "platform/files.hpp"
#include "commands/reap_command.hpp"
#include "report/reap_report.hpp"
#include "report/report_json.hpp"
#include "version.hpp"

namespace hsperfguard {
namespace {

MetricsBuild this_build() { return MetricsBuild{kVersion, kBuildInfo}; }

std::string seconds_text(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", static_cast<double>(ms) / 1000.0);
  return text;
}

// The previous file's samples (its counters), or none if there is no readable file. It is
// read as the file the metrics replace: a regular file, never through a link as its last
// component (nor another user's link on the way); a standard stream has no previous file.
MetricSamples previous_samples(const std::string& path) {
  constexpr std::size_t kMaxMetricsFile = 16 * 1024 * 1024;
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

}  // namespace

bool audit_run_succeeded(const AuditResult& result) { return !result.incomplete; }

bool reap_run_succeeded(const ReapRun& run) {
  if (run.incomplete) return false;
  if (!run.execution) return true;
  return !run.execution->interrupted && run.errors.empty() && count_outcomes(*run.execution).failed == 0;
}

bool record_audit_run(const AuditCommandOptions& options, const AuditResult& result,
                      const AuditTally& tally, std::ostream& err) {
  bool written = true;
  if (options.metrics) {
    const std::string text = audit_metrics_text(result, tally, audit_run_succeeded(result), this_build(),
                                                previous_samples(*options.metrics));
    written = write_metrics("audit", *options.metrics, text, err);
  }
  if (options.logger != nullptr && options.logger->options().logs_actions() && !options.logger->options().quiet) {
    const std::string worst_text = tally.worst ? std::string(to_string(*tally.worst)) : "none";
    options.logger->log(LogLevel::info, "summary",
                        std::to_string(tally.findings) + " findings (worst: " + worst_text + ") in " +
                            std::to_string(tally.namespaces) + " namespaces, " +
                            seconds_text(result.finished_at_ms - result.started_at_ms),
                        {{"findings", tally.findings},
                         {"worst_severity", worst_text},
                         {"namespaces", tally.namespaces},
                         {"complete", !result.incomplete},
                         {"duration_seconds", static_cast<double>(result.finished_at_ms - result.started_at_ms) / 1000.0}});
  }
  return written;
}

bool record_reap_run(const ReapCommandOptions& options, const ReapRun& run, std::ostream& err) {
  bool written = true;
  if (options.metrics) {
    const std::string text = reap_metrics_text(run, reap_run_succeeded(run), this_build(),
                                               previous_samples(*options.metrics));
    written = write_metrics("reap", *options.metrics, text, err);
  }
  if (options.logger != nullptr && options.logger->options().logs_actions()) {
    Logger& log = *options.logger;
    log_reap_actions(log, run);
    if (!log.options().quiet) {
      const PlanCounts planned = run.plan.counts();
      const ReapOutcomeCounts done = run.execution ? count_outcomes(*run.execution) : ReapOutcomeCounts{};
      const std::int64_t ms = run.finished_at_ms - run.started_at_ms;
      std::string message = run.dry_run ? "dry run: " + std::to_string(planned.remove) + " to remove"
                                        : "removed " + std::to_string(done.removed) + " of " +
                                              std::to_string(planned.remove) + ", failed " +
                                              std::to_string(done.failed);
      message += ", kept " + std::to_string(planned.keep) + ", skipped " + std::to_string(planned.skip) +
                 ", " + seconds_text(ms);
      log.log(done.failed > 0 ? LogLevel::warning : LogLevel::info, "summary", message,
              {{"dry_run", run.dry_run},
               {"planned_removals", planned.remove},
               {"kept", planned.keep},
               {"skipped", planned.skip},
               {"removed", done.removed},
               {"vanished", done.vanished},
               {"became_live", done.became_live},
               {"changed", done.changed},
               {"failed", done.failed},
               {"not_attempted", done.not_attempted},
               {"complete", reap_run_succeeded(run)},
               {"duration_seconds", static_cast<double>(ms) / 1000.0}});
    }
  }
  return written;
}

}  // namespace hsperfguard
