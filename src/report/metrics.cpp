#include "report/metrics.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "decide/audit.hpp"
#include "report/reap_report.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;  // name, raw value

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // A whole number (a count, a time in seconds) as an integer; any other value as the JSON
  // library writes a double, the shortest form that reads back as the same value. Not
  // to_chars: its double overloads are all that would make the binary need libm (their
  // rounding-mode calls), one library more to load at every start.
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (value > -kExactIntegers && value < kExactIntegers &&
      static_cast<double>(static_cast<std::int64_t>(value)) == value) {
    std::array<char, 24> buffer{};
    const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                                   static_cast<std::int64_t>(value)).ptr;
    return std::string(buffer.data(), end);
  }
  return nlohmann::json(value).dump();
}

std::string series_key(std::string_view name, const Labels& labels) {
  std::string key(name);
  if (labels.empty()) return key;
  key += '{';
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) key += ',';
    key += labels[i].first;
    key += "=\"";
    key += escape_label_value(labels[i].second);
    key += '"';
  }
  key += '}';
  return key;
}

// One metric family at a time: HELP, TYPE, then its samples, in the order given.
class Exposition {
 public:
  explicit Exposition(const MetricSamples& previous) : previous_(previous) {}

  void family(std::string_view name, std::string_view type, std::string_view help) {
    text_ += "# HELP ";
    text_ += name;
    text_ += ' ';
    text_ += help;  // fixed text: no backslash or newline to escape
    text_ += "\n# TYPE ";
    text_ += name;
    text_ += ' ';
    text_ += type;
    text_ += '\n';
    name_ = name;
  }
  void sample(const Labels& labels, double value) {
    text_ += series_key(name_, labels);
    text_ += ' ';
    text_ += format_value(value);
    text_ += '\n';
  }
  void sample(double value) { sample({}, value); }
  // A counter carried over from the previous file, plus this run's increment.
  void counter_sample(const Labels& labels, double increment) {
    sample(labels, carried(series_key(name_, labels)) + increment);
  }
  double carried(const std::string& key) const {
    const auto it = previous_.find(key);
    return it != previous_.end() && std::isfinite(it->second) && it->second >= 0 ? it->second : 0;
  }
  std::string take() { return std::move(text_); }

 private:
  const MetricSamples& previous_;
  std::string text_;
  std::string name_;
};

double seconds(std::int64_t ms) { return static_cast<double>(ms) / 1000.0; }

// `command` tells the audit's file from the reap's: one collector reads both, and a series
// in two files would be a scrape error.
void build_info(Exposition& out, const MetricsBuild& build, const std::string& command) {
  out.family("hsperfguard_build_info", "gauge",
             "Always 1; the labels say which hsperfguard wrote this file, for which command.");
  out.sample({{"command", command}, {"version", build.version}, {"build", build.build_info}}, 1);
}

// The run's time, outcome and the runs counter, for a command ("audit", "reap").
void run_outcome(Exposition& out, const std::string& command, bool success,
                 std::int64_t started_ms, std::int64_t finished_ms) {
  const std::string prefix = "hsperfguard_" + command + "_";
  out.family(prefix + "last_run_timestamp_seconds", "gauge",
             "When the last " + command + " run finished (Unix time).");
  out.sample(seconds(finished_ms));
  out.family(prefix + "last_success_timestamp_seconds", "gauge",
             "When the last successful " + command + " run finished (Unix time); 0 if none.");
  const std::string success_key = prefix + "last_success_timestamp_seconds";
  out.sample(success ? seconds(finished_ms) : out.carried(success_key));
  out.family(prefix + "last_run_success", "gauge",
             "1 if the last " + command + " run completed, 0 if it did not.");
  out.sample(success ? 1 : 0);
  out.family(prefix + "run_duration_seconds", "gauge",
             "Wall time of the last " + command + " run.");
  out.sample(seconds(std::max<std::int64_t>(0, finished_ms - started_ms)));
  out.family(prefix + "runs_total", "counter",
             "Runs of hsperfguard " + command + " that wrote this file, by result.");
  out.counter_sample({{"result", "failure"}}, success ? 0 : 1);
  out.counter_sample({{"result", "success"}}, success ? 1 : 0);
}

// Temp dirs of the last run by kind and by how far they were observed: complete; stopped (the
// run's limits, or a container's share of them, were reached in it); unobserved (not opened).
// When containers are cut off at their share of --max-runtime, the host's is still complete,
// and a dashboard can tell the two apart. Every series is written, 0 included.
void temp_dirs_observed(Exposition& out, const std::string& command, const std::vector<TempRootFacts>& roots) {
  constexpr std::array<RootKind, 6> kKinds = {RootKind::host,      RootKind::tmpdir,       RootKind::root,
                                              RootKind::container, RootKind::alt_temp_dir, RootKind::account_temp_dir};
  constexpr std::array<std::string_view, 3> kStates = {"complete", "stopped", "unobserved"};
  std::array<std::array<std::size_t, kStates.size()>, kKinds.size()> counts{};
  for (const auto& root : roots) {
    const std::size_t state = root.stopped ? 1 : root.opened ? 0 : 2;
    ++counts[static_cast<std::size_t>(root.kind)][state];
  }
  out.family("hsperfguard_" + command + "_temp_dirs_observed", "gauge",
             "Temp dirs of the last " + command +
                 " run by kind and by how far they were observed (complete; stopped at the run's "
                 "limits or a container's share of them; unobserved: not opened).");
  for (const RootKind kind : kKinds) {
    for (std::size_t s = 0; s < kStates.size(); ++s) {
      out.sample({{"kind", std::string(to_string(kind))}, {"state", std::string(kStates[s])}},
                 static_cast<double>(counts[static_cast<std::size_t>(kind)][s]));
    }
  }
}

// Processes of the last run whose mount namespace or root the container scan could not read
// (the first temp dir carries them): containers of theirs were neither audited nor reaped and
// the run was incomplete. Written 0 too, so that an alert can ask for > 0.
void processes_unobserved(Exposition& out, const std::string& command, const std::vector<TempRootFacts>& roots) {
  std::size_t count = 0;
  for (const auto& root : roots) count += root.unobserved.count;
  out.family("hsperfguard_" + command + "_processes_unobserved", "gauge",
             "Processes of the last " + command +
                 " run whose mount namespace or root could not be read (a container of theirs was "
                 "not looked into; the run was incomplete).");
  out.sample(static_cast<double>(count));
}

constexpr std::array<Verdict, 5> kVerdicts = {Verdict::live, Verdict::stale, Verdict::pid_reused,
                                              Verdict::foreign, Verdict::unknown};
constexpr std::array<Severity, 5> kSeverities = {Severity::info, Severity::low, Severity::medium,
                                                 Severity::high, Severity::critical};

bool rule_applies(const RuleInfo& rule, const std::vector<TempRootFacts>& roots) {
  if (roots.empty() || rule.platforms.empty()) return true;
  const std::string_view platform = roots.front().platform == Platform::windows ? "windows" : "linux";
  return std::find(rule.platforms.begin(), rule.platforms.end(), platform) != rule.platforms.end();
}

}  // namespace

std::string escape_label_value(std::string_view raw) {
  // The text outputs' rule first (no ESC, CR or bidi control reaches whoever cats or curls
  // the file), one-to-one (two names never make one series), then the exposition format's own
  // escapes.
  const std::string text = unambiguous_text(raw);
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '\\': escaped += "\\\\"; break;
      case '"': escaped += "\\\""; break;
      case '\n': escaped += "\\n"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

MetricSamples parse_metric_samples(std::string_view exposition) {
  MetricSamples samples;
  while (!exposition.empty()) {
    const auto eol = exposition.find('\n');
    std::string_view line = exposition.substr(0, eol);
    exposition = eol == std::string_view::npos ? std::string_view() : exposition.substr(eol + 1);
    if (line.empty() || line.front() == '#') continue;
    // The series ends at the first blank outside a quoted label value.
    std::size_t end = 0;
    bool quoted = false;
    while (end < line.size()) {
      const char c = line[end];
      if (quoted && c == '\\') {
        end += 2;
        continue;
      }
      if (c == '"') quoted = !quoted;
      if (!quoted && (c == ' ' || c == '\t')) break;
      ++end;
    }
    if (quoted || end == 0 || end >= line.size()) continue;
    const std::string_view series = line.substr(0, end);
    std::string_view rest = line.substr(end + 1);
    rest = rest.substr(0, rest.find(' '));  // an optional timestamp follows
    // The value as a JSON number (what format_value writes for a finite value), parsed by the
    // JSON library rather than from_chars, for the reason format_value gives.
    // The JSON parser skips white space around a number, which from_chars never did.
    if (rest.find_first_of(" \t\r\n") != std::string_view::npos) continue;
    const auto parsed = nlohmann::json::parse(rest.begin(), rest.end(), nullptr, false);
    if (!parsed.is_number()) continue;
    const double value = parsed.get<double>();
    if (!std::isfinite(value)) continue;
    samples.insert_or_assign(std::string(series), value);
  }
  return samples;
}

std::string audit_metrics_text(const AuditResult& result, bool success, const MetricsBuild& build,
                               const MetricSamples& previous) {
  return audit_metrics_text(result, tally_result(result), success, build, previous);
}

std::string audit_metrics_text(const AuditResult& result, const AuditTally& tally, bool success,
                               const MetricsBuild& build, const MetricSamples& previous) {
  Exposition out(previous);
  build_info(out, build, "audit");
  run_outcome(out, "audit", success, result.started_at_ms, result.finished_at_ms);

  // Findings by rule and severity: every enabled rule, 0 included, so that a series does
  // not vanish when its last finding is fixed.
  std::map<std::pair<std::string, Severity>, std::size_t> findings;
  for (const auto& [id, rule] : rule_catalog()) {
    if (result.policy.enabled(id) && rule_applies(rule, result.roots)) {
      findings[{id, result.policy.severity_of(id, rule.severity)}] = 0;
    }
  }
  for (const auto& [key, n] : tally.by_rule_and_severity) findings[key] += n;
  out.family("hsperfguard_audit_findings", "gauge",
             "Findings of the last audit by rule and severity.");
  for (const auto& [key, count] : findings) {
    out.sample({{"rule", key.first}, {"severity", std::string(to_string(key.second))}},
               static_cast<double>(count));
  }

  // Namespaces by their worst finding, files by liveness verdict.
  std::array<std::size_t, kSeverities.size() + 1> namespaces{};  // [0]: no finding
  namespaces[0] = tally.namespaces - tally.flagged_namespaces;
  for (std::size_t s = 0; s < tally.flagged_by_worst.size(); ++s) namespaces[s + 1] = tally.flagged_by_worst[s];
  const auto& files = tally.files_by_verdict;  // [last]: not judged
  static_assert(std::tuple_size_v<std::remove_cvref_t<decltype(files)>> == kVerdicts.size() + 1);
  const std::size_t temp_dirs = tally.roots, attach_files = tally.attach_files, errors = tally.error_count;
  out.family("hsperfguard_audit_temp_dirs", "gauge", "Temp dirs the last audit looked at.");
  out.sample(static_cast<double>(temp_dirs));
  temp_dirs_observed(out, "audit", result.roots);
  processes_unobserved(out, "audit", result.roots);
  out.family("hsperfguard_audit_namespaces", "gauge",
             "hsperfdata namespaces by their most severe finding (none: no finding).");
  out.sample({{"worst_severity", "none"}}, static_cast<double>(namespaces[0]));
  for (const Severity s : kSeverities) {
    out.sample({{"worst_severity", std::string(to_string(s))}},
               static_cast<double>(namespaces[static_cast<std::size_t>(s) + 1]));
  }
  out.family("hsperfguard_audit_files", "gauge",
             "Backing files by liveness verdict (not-judged: no liveness evidence gathered).");
  for (const Verdict v : kVerdicts) {
    out.sample({{"verdict", std::string(to_string(v))}},
               static_cast<double>(files[static_cast<std::size_t>(v)]));
  }
  out.sample({{"verdict", "not-judged"}}, static_cast<double>(files.back()));
  out.family("hsperfguard_audit_attach_files", "gauge",
             "Attach sockets and trigger files (.java_pid, .attach_pid) beside the namespaces.");
  out.sample(static_cast<double>(attach_files));
  out.family("hsperfguard_audit_observation_errors", "gauge",
             "Things the last audit could not observe (each is also in the report).");
  out.sample(static_cast<double>(errors));

  // The namespaces with findings, worst first (then by path), at most kMaxNamespaceSeries.
  const auto& flagged = tally.flagged;
  out.family("hsperfguard_audit_namespace_findings", "gauge",
             "Findings of the last audit in one namespace (its own and its files'), by severity.");
  for (std::size_t i = 0; i < flagged.size() && i < kMaxNamespaceSeries; ++i) {
    for (const auto& [severity, count] : flagged[i].by_severity) {
      out.sample({{"namespace", flagged[i].path}, {"severity", std::string(to_string(severity))}},
                 static_cast<double>(count));
    }
  }
  out.family("hsperfguard_audit_namespaces_not_exported", "gauge",
             "Namespaces with findings left out of hsperfguard_audit_namespace_findings (limit).");
  out.sample(static_cast<double>(tally.flagged_namespaces > kMaxNamespaceSeries
                                     ? tally.flagged_namespaces - kMaxNamespaceSeries
                                     : 0));
  return out.take();
}

std::string reap_metrics_text(const ReapRun& run, bool success, const MetricsBuild& build,
                              const MetricSamples& previous) {
  Exposition out(previous);
  build_info(out, build, "reap");
  run_outcome(out, "reap", success, run.started_at_ms, run.finished_at_ms);

  out.family("hsperfguard_reap_phase_duration_seconds", "gauge",
             "Wall time of each phase of the last reap run.");
  out.sample({{"phase", "lock"}}, seconds(run.timings.lock_ms));
  out.sample({{"phase", "discover"}}, seconds(run.timings.discover_ms));
  out.sample({{"phase", "observe"}}, seconds(run.timings.observe_ms));
  out.sample({{"phase", "plan"}}, seconds(run.timings.plan_ms));
  out.sample({{"phase", "execute"}}, seconds(run.timings.execute_ms));
  out.family("hsperfguard_reap_dry_run", "gauge", "1 if the last reap run was a dry run.");
  out.sample(run.dry_run ? 1 : 0);
  temp_dirs_observed(out, "reap", run.roots);
  processes_unobserved(out, "reap", run.roots);

  // The plan: namespaces by whether the reaper could act there, entries by verdict and action.
  std::map<std::string, std::size_t> namespaces;
  for (const auto& ns : run.plan.namespaces) ++namespaces[ns.why];
  out.family("hsperfguard_reap_namespaces", "gauge",
             "Namespaces in the last reap plan by status (ok: the reaper could act there).");
  if (!namespaces.contains("ok")) namespaces["ok"] = 0;
  for (const auto& [why, count] : namespaces) out.sample({{"status", why}}, static_cast<double>(count));

  std::map<std::pair<Verdict, ReapAction>, std::size_t> entries;
  for (const Verdict v : kVerdicts) {
    for (const ReapAction a : {ReapAction::remove, ReapAction::keep, ReapAction::skip}) entries[{v, a}] = 0;
  }
  const ReapTally tally = tally_of(run);
  for (const auto& [key, count] : tally.by_verdict_and_action) entries[key] += count;
  out.family("hsperfguard_reap_entries", "gauge",
             "Entries in the last reap plan by liveness verdict and planned action.");
  for (const auto& [key, count] : entries) {
    out.sample({{"verdict", std::string(to_string(key.first))}, {"action", std::string(to_string(key.second))}},
               static_cast<double>(count));
  }

  // What the plan keeps, by why: live and unknown entries wait for their evidence to change;
  // not-permitted ones (stale, but the identity the reaper acts with may not remove them) wait
  // for a person, and are not failures: a run that keeps them succeeds.
  std::map<std::string, std::size_t> kept = {{"live", 0}, {"unknown", 0}, {std::string(kNotPermitted), 0}};
  for (const auto& [why, count] : tally.kept_by_why) kept[why] += count;
  out.family("hsperfguard_reap_kept_entries", "gauge",
             "Entries the last reap plan keeps, by why (not-permitted: left to a person).");
  for (const auto& [why, count] : kept) out.sample({{"why", why}}, static_cast<double>(count));

  // What execution did: the last run's outcomes, and the counters of all runs.
  constexpr std::array<ReapOutcome, 6> kOutcomes = {
      ReapOutcome::removed, ReapOutcome::vanished, ReapOutcome::became_live,
      ReapOutcome::changed, ReapOutcome::failed,   ReapOutcome::not_attempted};
  std::array<std::size_t, kOutcomes.size()> outcomes{};
  if (run.execution) {
    const ReapOutcomeCounts& c = tally.outcomes;
    outcomes = {c.removed, c.vanished, c.became_live, c.changed, c.failed, c.not_attempted};
  }
  out.family("hsperfguard_reap_last_run_files", "gauge",
             "Entries the last reap run tried to remove, by outcome.");
  for (const auto o : kOutcomes) {
    out.sample({{"outcome", std::string(to_string(o))}},
               static_cast<double>(outcomes[static_cast<std::size_t>(o)]));
  }
  out.family("hsperfguard_reap_files_total", "counter",
             "Entries all reap runs tried to remove, by outcome (carried from the previous file).");
  for (const auto o : kOutcomes) {
    out.counter_sample({{"outcome", std::string(to_string(o))}},
                       static_cast<double>(outcomes[static_cast<std::size_t>(o)]));
  }
  out.family("hsperfguard_reap_deadline_reached", "gauge",
             "1 if the last reap run stopped at --max-runtime with work left.");
  out.sample(run.execution && run.execution->deadline_reached ? 1 : 0);
  out.family("hsperfguard_reap_interrupted", "gauge", "1 if the last reap run was stopped by a signal.");
  out.sample(run.execution && run.execution->interrupted ? 1 : 0);
  return out.take();
}

}  // namespace hsperfguard
