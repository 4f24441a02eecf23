// The audit's pipeline, from discovery to the last line of the report: the temp roots in
// turn (root_loop.hpp), each namespace observed, judged and rendered on a worker and written
// in order, the attach files after, the temp dir judged last, then the summary. What comes
// before it (the policy, the report's options, the run's limits) and after it (where the
// report goes, metrics, exit status) is audit_command.cpp's.
#pragma once

#include <iosfwd>
#include <vector>

#include "commands/audit_options.hpp"
#include "decide/audit.hpp"
#include "decide/discover.hpp"
#include "model/facts.hpp"
#include "model/run_limits.hpp"
#include "platform/output.hpp"
#include "report/audit_report_json.hpp"
#include "report/audit_report_text.hpp"

namespace hsperfguard {

class Environment;

// What the pipeline is given: the command's options and what run_audit_command made of them.
struct AuditRunSettings {
  const AuditCommandOptions& options;
  Environment& env;
  const RunLimits& limits;
  DiscoverOptions discover;
  ReportContext context;
  TextOptions text;  // its jvm_processes is filled by the run
  ReportFormat format = ReportFormat::text;
};

// What the run found when there was nothing to audit (--containers-only found no other mount
// namespace): the discovery problems that may say why.
struct AuditRunEnd {
  bool no_temp_dir = false;
  std::vector<ObservationError> discovery_problems;
};

// Runs the audit, writing the report through `write` and, under --quiet, what needs a person
// on `out`; `result` and `tally` hold what the metrics and the exit status are made of.
AuditRunEnd run_audit_pipeline(AuditRunSettings& settings, AuditResult& result, AuditTally& tally,
                               std::ostream& out, const platform::ContentSink& write);

}  // namespace hsperfguard
