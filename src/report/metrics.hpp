// Prometheus text exposition (format 0.0.4) of an audit or a reap run, for node_exporter's
// textfile collector. Pure: the caller writes the text atomically (temp name, rename).
//
// Naming follows Prometheus conventions: every name starts with hsperfguard_, base units
// (seconds), `_total` only on counters. A run's own counts (findings, files by verdict) are
// gauges: the file is a snapshot of the last run. The counters (files removed by all runs)
// and the last-success timestamp survive a failed or restarted run because they are carried
// over from the previous file (`previous`), like a process that keeps its counters.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "decide/audit.hpp"  // kKeptFlaggedNamespaces

namespace hsperfguard {

struct AuditResult;
struct AuditTally;
struct ReapRun;

// A label value escaped for the exposition format: first as every text output is
// (terminal_safe: bytes that are not valid UTF-8 and invisible controls such as ESC, CR,
// U+2028 and the bidi controls become the visible text "\xNN" or "\uXXXX"), then backslash,
// double quote and newline (\\, \", \n) as the format requires.
std::string escape_label_value(std::string_view raw);

// The samples of an exposition text, keyed by the series as written ("name{labels}", or
// "name"): how a run reads the counters of the run before it. Comments, malformed lines and
// values that are not finite numbers are ignored; never throws.
using MetricSamples = std::map<std::string, double, std::less<>>;
MetricSamples parse_metric_samples(std::string_view exposition);

struct MetricsBuild {
  std::string version;
  std::string build_info;
};

// `success`: whether the run completed (the audit: everything in scope looked at, whatever the
// findings; the reap: exit status 0). Sets the last-success timestamp to this run's end.
std::string audit_metrics_text(const AuditResult& result, bool success, const MetricsBuild& build,
                               const MetricSamples& previous);
// The same from a tally (a streamed audit keeps no namespaces): `result` needs its roots'
// platform, the policy and the times only.
std::string audit_metrics_text(const AuditResult& result, const AuditTally& tally, bool success,
                               const MetricsBuild& build, const MetricSamples& previous);
std::string reap_metrics_text(const ReapRun& run, bool success, const MetricsBuild& build,
                              const MetricSamples& previous);

// At most this many namespaces get their own series (hsperfguard_audit_namespace_findings):
// anyone can create hsperfdata_* directories, and a scrape must stay small.
inline constexpr std::size_t kMaxNamespaceSeries = kKeptFlaggedNamespaces;

}  // namespace hsperfguard
