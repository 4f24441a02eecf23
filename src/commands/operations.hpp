// What a run leaves for operators besides its report: the metrics file (--metrics, for
// node_exporter's textfile collector) and its log lines (--log-format, --quiet). Called once
// at the end of each audit and reap run.
#pragma once

#include <iosfwd>

namespace hsperfguard {

struct AuditCommandOptions;
struct AuditResult;
struct AuditTally;
struct ReapCommandOptions;
struct ReapRun;

// Whether the run counts as a success in the metrics (last-success timestamp): the audit
// observed every temp dir (findings do not matter); the reap would exit 0.
bool audit_run_succeeded(const AuditResult& result);
bool reap_run_succeeded(const ReapRun& run);

// Logs the actions and the summary (options.logger) and writes options.metrics atomically
// (temp name in the same directory, then rename; mode 0644: node_exporter runs as another
// user). Returns false, after writing the error to `err`, when the metrics file could not
// be written.
bool record_audit_run(const AuditCommandOptions& options, const AuditResult& result,
                      const AuditTally& tally, std::ostream& err);
bool record_reap_run(const ReapCommandOptions& options, const ReapRun& run, std::ostream& err);

}  // namespace hsperfguard
