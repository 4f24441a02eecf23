// The record of an audit or reap run besides its report: its exit status, whether it counts
// as a success, the metrics file (--metrics, for node_exporter's textfile collector) and its
// log lines (--log-format, --quiet). Called once at the end of each audit and reap run.
#pragma once

#include <iosfwd>

namespace hsperfguard {

struct AuditCommandOptions;
struct AuditResult;
struct AuditTally;
struct ReapCommandOptions;
struct ReapRun;

// The exit status of a run (exit_codes.hpp): the audit's from its completeness and the worst
// finding against --fail-on; the reap's from its completeness, interruption, errors and
// failed removals (entries left to a person are not failures).
int audit_exit_code(const AuditCommandOptions& options, const AuditResult& result, const AuditTally& tally);
int reap_exit_code(const ReapRun& run);

// Whether the run counts as a success in the metrics (last-success timestamp): the audit
// observed every temp dir (findings do not matter); the reap would exit 0.
bool audit_run_succeeded(const AuditResult& result);
bool reap_run_succeeded(const ReapRun& run);

// Writes options.metrics atomically (temp name in the same directory, then rename; mode 0644:
// node_exporter runs as another user) and logs the run (options.logger): the reap's actions
// and the entries it leaves to a person, then a summary line whose level follows the outcome:
// info when clean or done, warning when the audit found findings at or above --fail-on or the
// reap left entries to a person, error when something failed or the run did not complete.
// `exit_code` is the run's; the one returned is 3 when the metrics file could not be written
// (its error written to `err`), else `exit_code`. --quiet leaves out an info summary only.
int record_audit_run(const AuditCommandOptions& options, const AuditResult& result,
                     const AuditTally& tally, int exit_code, std::ostream& err);
// The log lines of the actions and the entries left to a person that `run` holds (a run in
// parts: of the part being reported, called once a part; record_reap_run logs what is left).
void log_reap_part(const ReapCommandOptions& options, const ReapRun& run);
int record_reap_run(const ReapCommandOptions& options, const ReapRun& run, int exit_code,
                    std::ostream& err);

}  // namespace hsperfguard
