// Prometheus exposition of audit and reap runs, pure: results built by hand. The real
// collector and promtool check the same text in metrics_posix_test.cpp.
#include "report/metrics.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "decide/audit.hpp"
#include "report/logging.hpp"
#include "report/reap_report.hpp"

namespace hsperfguard {
namespace {

const MetricsBuild kBuild{"0.1.0", "GNU 12.2.0, Linux x86_64"};

// Every line of an exposition: HELP and TYPE before the samples of their family, names and
// label names as the format allows, hsperfguard_ prefix, counters end in _total, no series
// twice, every sample line read back by parse_metric_samples.
::testing::AssertionResult well_formed(const std::string& text) {
  static const std::regex help(R"(# HELP (hsperfguard_[a-z0-9_]+) [^\n]+)");
  static const std::regex type(R"(# TYPE (hsperfguard_[a-z0-9_]+) (gauge|counter))");
  static const std::regex sample(
      R"((hsperfguard_[a-z0-9_]+)(\{[a-z_]+="([^"\\\n]|\\[\\"n])*"(,[a-z_]+="([^"\\\n]|\\[\\"n])*")*\})? (-?[0-9.e+]+|NaN))");
  std::map<std::string, std::string> types;
  std::string current;
  std::set<std::string> series;
  std::size_t samples = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      current = m[1];
      if (types.contains(current)) return ::testing::AssertionFailure() << "family twice: " << line;
    } else if (std::regex_match(line, m, type)) {
      if (m[1] != current) return ::testing::AssertionFailure() << "TYPE without HELP: " << line;
      types[current] = m[2];
      if ((m[2] == "counter") != current.ends_with("_total")) {
        return ::testing::AssertionFailure() << "_total iff counter: " << line;
      }
    } else if (std::regex_match(line, m, sample)) {
      if (m[1] != current || !types.contains(current)) {
        return ::testing::AssertionFailure() << "sample outside its family: " << line;
      }
      const std::string key = line.substr(0, line.rfind(' '));
      if (!series.insert(key).second) return ::testing::AssertionFailure() << "series twice: " << line;
      ++samples;
    } else {
      return ::testing::AssertionFailure() << "malformed line: [" << line << "]";
    }
  }
  if (!text.ends_with("\n")) return ::testing::AssertionFailure() << "no final newline";
  if (parse_metric_samples(text).size() != samples) {
    return ::testing::AssertionFailure() << "parse_metric_samples read " << parse_metric_samples(text).size()
                                         << " of " << samples << " samples";
  }
  return ::testing::AssertionSuccess();
}

double value_of(const std::string& text, const std::string& series) {
  const auto samples = parse_metric_samples(text);
  const auto it = samples.find(series);
  EXPECT_NE(it, samples.end()) << series << " missing in\n" << text;
  return it == samples.end() ? -1 : it->second;
}

Finding finding(const std::string& rule, Severity severity, const std::string& path) {
  Finding f;
  f.rule = rule;
  f.severity = severity;
  f.path = path;
  return f;
}

// Two namespaces: one clean with a live and a stale file, one with a hostile name (quote,
// backslash, newline, a byte that is not UTF-8) and findings.
AuditResult sample_audit() {
  AuditResult result;
  result.started_at_ms = 1'800'000'000'000;
  result.finished_at_ms = 1'800'000'000'250;
  TempRootFacts& root = result.roots.emplace_back();
  root.temp_dir = "/tmp";
  NamespaceFacts clean;
  clean.path = "/tmp/hsperfdata_alice";
  clean.files.resize(2);
  NamespaceFacts hostile;
  hostile.path = "/tmp/hsperfdata_a\"b\\c\nd\xff";
  hostile.files.resize(1);
  root.namespaces = {clean, hostile};
  root.attach_files.resize(1);
  RootJudgement& judged = result.judgements.emplace_back();
  judged.namespaces.resize(2);
  judged.namespaces[0].files.resize(2);
  judged.namespaces[0].files[0].verdict =
      LivenessJudgement{Verdict::live, "lock-held", "lock", std::nullopt, Verdict::unknown};
  judged.namespaces[0].files[1].verdict =
      LivenessJudgement{Verdict::stale, "process-gone", "process", std::nullopt, Verdict::unknown};
  judged.namespaces[1].findings = {finding("namespace.group-writable", Severity::high, hostile.path),
                                   finding("namespace.group-writable", Severity::high, hostile.path)};
  judged.namespaces[1].files.resize(1);
  judged.namespaces[1].files[0].findings = {finding("file.stale", Severity::low, hostile.path + "/1")};
  return result;
}

TEST(Metrics, LabelValuesEscapeBackslashQuoteAndNewline) {
  EXPECT_EQ(escape_label_value("plain /tmp/hsperfdata_bob"), "plain /tmp/hsperfdata_bob");
  // A backslash of the name is doubled before the format doubles it again: a\\b in the label.
  EXPECT_EQ(escape_label_value("a\\b"), "a\\\\\\\\b");
  EXPECT_EQ(escape_label_value("a\"b"), "a\\\"b");
  // A newline is made visible by the text outputs' rule before the format's own escapes.
  EXPECT_EQ(escape_label_value("a\nb"), "a\\\\x0ab");
  EXPECT_EQ(escape_label_value("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 stays as it is
}

TEST(Metrics, LabelValuesThatAreNotUtf8BecomeVisibleEscapes) {
  // The format requires UTF-8: the byte becomes the text \xff, whose backslash is escaped.
  EXPECT_EQ(escape_label_value("a\xff\"b"), "a\\\\xff\\\"b");
}

// One-to-one: a name holding a newline and one holding the four characters \x0a (or byte 0xff
// and \xff) made one label, so node_exporter kept one series and dropped the other with an
// error at every scrape (found by an outside review): a user could hide her namespace.
TEST(Metrics, LabelValuesOfDifferentNamesNeverAgree) {
  const std::vector<std::string> names = {"a\nb", "a\\x0ab", "a\xff", "a\\xff", "a\\\\xff", "a\\", "a\\\\",
                                          "a\u2028", "a\\u2028", "a\"", "a\\\""};
  std::set<std::string> labels;
  for (const auto& name : names) labels.insert(escape_label_value(name));
  EXPECT_EQ(labels.size(), names.size());
}

TEST(Metrics, HostileNamespaceNameCannotForgeASeries) {
  const std::string text = audit_metrics_text(sample_audit(), true, kBuild, {});
  ASSERT_TRUE(well_formed(text)) << text;
  // The newline in the name did not start a line of its own, and the series reads back
  // (the name is not UTF-8, so its backslash was already doubled to tell it from \xNN).
  EXPECT_EQ(text.find("\nd"), std::string::npos);
  EXPECT_EQ(value_of(text,
                     "hsperfguard_audit_namespace_findings{namespace=\"/tmp/hsperfdata_a\\\"b\\\\\\\\c\\\\x0ad\\\\xff\","
                     "severity=\"high\"}"),
            2);
}

TEST(Metrics, AuditCountsFindingsNamespacesAndFiles) {
  const std::string text = audit_metrics_text(sample_audit(), true, kBuild, {});
  ASSERT_TRUE(well_formed(text)) << text;
  EXPECT_EQ(value_of(text, "hsperfguard_build_info{command=\"audit\",version=\"0.1.0\",build=\"GNU 12.2.0, Linux x86_64\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_findings{rule=\"namespace.group-writable\",severity=\"high\"}"), 2);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_findings{rule=\"file.stale\",severity=\"low\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_namespaces{worst_severity=\"none\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_namespaces{worst_severity=\"high\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_namespaces{worst_severity=\"critical\"}"), 0);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_files{verdict=\"live\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_files{verdict=\"stale\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_files{verdict=\"not-judged\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_attach_files"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_run_duration_seconds"), 0.25);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_last_run_timestamp_seconds"), 1'800'000'000.25);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_last_success_timestamp_seconds"), 1'800'000'000.25);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_last_run_success"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_runs_total{result=\"success\"}"), 1);
}

TEST(Metrics, EveryEnabledRuleHasASeriesEvenAtZero) {
  AuditResult empty;
  empty.policy = *builtin_profile("default");
  const std::string text = audit_metrics_text(empty, true, kBuild, {});
  ASSERT_TRUE(well_formed(text)) << text;
  std::size_t enabled = 0;
  for (const auto& [id, rule] : rule_catalog()) {
    if (!empty.policy.enabled(id)) continue;
    ++enabled;
    const std::string series = "hsperfguard_audit_findings{rule=\"" + id + "\",severity=\"" +
                               std::string(to_string(empty.policy.severity_of(id, rule.severity))) + "\"}";
    EXPECT_EQ(value_of(text, series), 0);
  }
  EXPECT_GT(enabled, 10u);
}

TEST(Metrics, FailedRunKeepsTheLastSuccessAndCountsOn) {
  const AuditResult result = sample_audit();
  const std::string first = audit_metrics_text(result, true, kBuild, {});
  AuditResult later = result;
  later.started_at_ms += 3'600'000;
  later.finished_at_ms += 3'600'000;
  later.incomplete = true;
  const std::string second = audit_metrics_text(later, false, kBuild, parse_metric_samples(first));
  ASSERT_TRUE(well_formed(second)) << second;
  EXPECT_EQ(value_of(second, "hsperfguard_audit_last_success_timestamp_seconds"), 1'800'000'000.25);
  EXPECT_EQ(value_of(second, "hsperfguard_audit_last_run_timestamp_seconds"), 1'800'003'600.25);
  EXPECT_EQ(value_of(second, "hsperfguard_audit_last_run_success"), 0);
  EXPECT_EQ(value_of(second, "hsperfguard_audit_runs_total{result=\"success\"}"), 1);
  EXPECT_EQ(value_of(second, "hsperfguard_audit_runs_total{result=\"failure\"}"), 1);
  // Never succeeded: 0, so that "time() - last success" alerts at once.
  const std::string never = audit_metrics_text(later, false, kBuild, {});
  EXPECT_EQ(value_of(never, "hsperfguard_audit_last_success_timestamp_seconds"), 0);
}

TEST(Metrics, NamespaceSeriesAreCappedWorstFirst) {
  AuditResult result;
  TempRootFacts& root = result.roots.emplace_back();
  RootJudgement& judged = result.judgements.emplace_back();
  for (std::size_t i = 0; i < kMaxNamespaceSeries + 20; ++i) {
    NamespaceFacts ns;
    ns.path = "/tmp/hsperfdata_u" + std::to_string(1000 + i);
    root.namespaces.push_back(ns);
    judged.namespaces.emplace_back().findings = {
        finding("namespace.x", i == kMaxNamespaceSeries + 10 ? Severity::critical : Severity::low, ns.path)};
  }
  const std::string text = audit_metrics_text(result, true, kBuild, {});
  ASSERT_TRUE(well_formed(text));
  std::size_t series = 0;
  for (const auto& [key, value] : parse_metric_samples(text)) {
    if (key.starts_with("hsperfguard_audit_namespace_findings{")) ++series;
  }
  EXPECT_EQ(series, kMaxNamespaceSeries);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_namespace_findings{namespace=\"/tmp/hsperfdata_u" +
                               std::to_string(1000 + kMaxNamespaceSeries + 10) + "\",severity=\"critical\"}"),
            1);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_namespaces_not_exported"), 20);
}

// The tally stays small whatever the audit holds (a local user can make any number of
// namespaces and errors): it keeps the worst namespaces and the first errors, and counts all.
TEST(AuditTallyBounds, KeepsTheWorstNamespacesAndTheFirstErrorsAndCountsAll) {
  AuditTally tally;
  const std::size_t total = 3 * kKeptFlaggedNamespaces;
  for (std::size_t i = 0; i < total; ++i) {
    // Counted on its own tally as a worker would, then merged in order.
    AuditTally part;
    NamespaceFacts ns;
    ns.path = "/tmp/hsperfdata_u" + std::to_string(100000 + i);
    ns.errors.resize(10, ObservationError{ns.path, "openat", 2, "gone"});
    NamespaceJudgement judged;
    judged.findings = {finding("namespace.x", i % 7 == 0 ? Severity::high : Severity::low, ns.path)};
    part.add_namespace(ns, judged);
    tally.merge(std::move(part));
  }
  tally.add_root(TempRootFacts{}, RootJudgement{});
  EXPECT_EQ(tally.namespaces, total);
  EXPECT_EQ(tally.flagged_namespaces, total);
  const std::size_t high = (total + 6) / 7;
  EXPECT_EQ(tally.flagged_by_worst[static_cast<std::size_t>(Severity::high)], high);
  EXPECT_EQ(tally.flagged_by_worst[static_cast<std::size_t>(Severity::low)], total - high);
  ASSERT_EQ(tally.flagged.size(), kKeptFlaggedNamespaces);
  for (std::size_t i = 0; i < high; ++i) EXPECT_EQ(tally.flagged[i].worst, Severity::high) << i;
  EXPECT_TRUE(std::is_sorted(tally.flagged.begin() + static_cast<long>(high), tally.flagged.end(),
                             [](const auto& a, const auto& b) { return a.path < b.path; }));
  EXPECT_EQ(tally.error_count, total * 10);
  EXPECT_EQ(tally.errors.size(), kKeptErrors);
}

// A namespace in parts, each counted on its own tally: one flagged namespace whose counts add
// up, however the parts were split.
TEST(AuditTallyBounds, PartsOfANamespaceAreOneFlaggedNamespace) {
  AuditTally tally;
  for (std::size_t part = 0; part < 3; ++part) {
    AuditTally counted;
    NamespaceFacts ns;
    ns.path = "/tmp/hsperfdata_big";
    ns.part = part;
    ns.more_parts = part < 2;
    NamespaceJudgement judged;
    judged.findings = {finding("file.x", part == 1 ? Severity::critical : Severity::low, ns.path)};
    counted.add_namespace(ns, judged);
    tally.merge(std::move(counted));
  }
  AuditTally other;
  NamespaceFacts next;
  next.path = "/tmp/hsperfdata_next";
  NamespaceJudgement nothing;
  other.add_namespace(next, nothing);
  tally.merge(std::move(other));
  tally.add_root(TempRootFacts{}, RootJudgement{});
  EXPECT_EQ(tally.namespaces, 2u);
  EXPECT_EQ(tally.flagged_namespaces, 1u);
  ASSERT_EQ(tally.flagged.size(), 1u);
  EXPECT_EQ(tally.flagged[0].worst, Severity::critical);
  EXPECT_EQ(tally.flagged[0].by_severity.at(Severity::low), 2u);
  EXPECT_EQ(tally.flagged_by_worst[static_cast<std::size_t>(Severity::critical)], 1u);
}

ReapRun sample_reap() {
  ReapRun run;
  run.started_at_ms = 1'800'000'000'000;
  run.finished_at_ms = 1'800'000'001'500;
  run.timings = {10, 400, 5, 1000};
  NamespacePlan ok;
  ok.why = "ok";
  NamespacePlan refused;
  refused.why = "not-owner";
  run.plan.namespaces = {ok, refused};
  for (const auto& [verdict, action, why] :
       {std::tuple{Verdict::stale, ReapAction::remove, "reapable"},
        std::tuple{Verdict::stale, ReapAction::remove, "reapable"},
        std::tuple{Verdict::foreign, ReapAction::remove, "reapable"},
        std::tuple{Verdict::live, ReapAction::keep, "live"},
        std::tuple{Verdict::stale, ReapAction::skip, "too-young"},
        std::tuple{Verdict::stale, ReapAction::keep, "not-permitted"}}) {
    PlanItem item;
    item.verdict = verdict;
    item.action = action;
    item.why = why;
    run.plan.items.push_back(item);
  }
  ExecutionResult execution;
  execution.actions = {{0, ReapOutcome::removed, "unlinked", std::nullopt, 0},
                       {1, ReapOutcome::failed, "unlinkat", std::nullopt, 0},
                       {2, ReapOutcome::removed, "unlinked", std::nullopt, 0}};
  run.execution = execution;
  return run;
}

TEST(Metrics, ReapCountsPlanAndOutcomes) {
  const std::string text = reap_metrics_text(sample_reap(), false, kBuild, {});
  ASSERT_TRUE(well_formed(text)) << text;
  EXPECT_EQ(value_of(text, "hsperfguard_reap_entries{verdict=\"stale\",action=\"remove\"}"), 2);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_entries{verdict=\"foreign\",action=\"remove\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_entries{verdict=\"live\",action=\"keep\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_entries{verdict=\"unknown\",action=\"remove\"}"), 0);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_entries{verdict=\"stale\",action=\"keep\"}"), 1);
  // Kept entries by why: the one left to a person is not a failed removal.
  EXPECT_EQ(value_of(text, "hsperfguard_reap_kept_entries{why=\"live\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_kept_entries{why=\"unknown\"}"), 0);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_kept_entries{why=\"not-permitted\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_namespaces{status=\"ok\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_namespaces{status=\"not-owner\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_last_run_files{outcome=\"removed\"}"), 2);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_last_run_files{outcome=\"failed\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_last_run_files{outcome=\"not-attempted\"}"), 0);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_files_total{outcome=\"removed\"}"), 2);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_phase_duration_seconds{phase=\"observe\"}"), 0.4);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_run_duration_seconds"), 1.5);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_last_run_success"), 0);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_dry_run"), 0);
}

// When containers were cut off at their share of --max-runtime, the host's temp dir was still
// done: the metrics tell the two apart (and write every series, 0 included).
TEST(Metrics, TempDirsByKindAndHowFarTheyWereObserved) {
  ReapRun run = sample_reap();
  TempRootFacts host;
  host.kind = RootKind::host;
  host.opened = InodeFacts{};
  TempRootFacts cut = host;
  cut.kind = RootKind::container;
  cut.stopped = "deadline";
  TempRootFacts done = host;
  done.kind = RootKind::container;
  TempRootFacts unopened;
  unopened.kind = RootKind::container;
  run.roots = {host, cut, cut, done, unopened};
  const std::string text = reap_metrics_text(run, false, kBuild, {});
  ASSERT_TRUE(well_formed(text)) << text;
  EXPECT_EQ(value_of(text, "hsperfguard_reap_temp_dirs_observed{kind=\"host\",state=\"complete\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_temp_dirs_observed{kind=\"host\",state=\"stopped\"}"), 0);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_temp_dirs_observed{kind=\"container\",state=\"stopped\"}"), 2);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_temp_dirs_observed{kind=\"container\",state=\"complete\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_temp_dirs_observed{kind=\"container\",state=\"unobserved\"}"), 1);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_temp_dirs_observed{kind=\"root\",state=\"complete\"}"), 0);

  AuditResult audit;
  audit.roots = run.roots;
  audit.judgements.resize(audit.roots.size());
  const std::string audit_text = audit_metrics_text(audit, false, kBuild, {});
  ASSERT_TRUE(well_formed(audit_text)) << audit_text;
  EXPECT_EQ(value_of(audit_text, "hsperfguard_audit_temp_dirs_observed{kind=\"container\",state=\"stopped\"}"), 2);
  EXPECT_EQ(value_of(audit_text, "hsperfguard_audit_temp_dirs_observed{kind=\"host\",state=\"complete\"}"), 1);
}

TEST(Metrics, ReapCountersAddUpAcrossRuns) {
  const ReapRun run = sample_reap();
  std::string text = reap_metrics_text(run, true, kBuild, {});
  for (int i = 0; i < 2; ++i) text = reap_metrics_text(run, true, kBuild, parse_metric_samples(text));
  ASSERT_TRUE(well_formed(text)) << text;
  EXPECT_EQ(value_of(text, "hsperfguard_reap_files_total{outcome=\"removed\"}"), 6);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_files_total{outcome=\"failed\"}"), 3);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_runs_total{result=\"success\"}"), 3);
  // The last run's own counts are not summed.
  EXPECT_EQ(value_of(text, "hsperfguard_reap_last_run_files{outcome=\"removed\"}"), 2);
  // A dry run removes nothing and adds nothing.
  ReapRun dry = run;
  dry.dry_run = true;
  dry.execution.reset();
  text = reap_metrics_text(dry, true, kBuild, parse_metric_samples(text));
  EXPECT_EQ(value_of(text, "hsperfguard_reap_files_total{outcome=\"removed\"}"), 6);
  EXPECT_EQ(value_of(text, "hsperfguard_reap_dry_run"), 1);
}

TEST(Metrics, PreviousFileThatIsGarbageIsIgnored) {
  const MetricSamples junk = parse_metric_samples(
      "hsperfguard_reap_files_total{outcome=\"removed\"} lots\n"
      "hsperfguard_reap_files_total{outcome=\"failed\"} -5\n"
      "hsperfguard_reap_files_total{outcome=\"vanished\"} NaN\n"
      "hsperfguard_reap_files_total{outcome=\"changed\n"
      "{\"} 1\n\n# comment\n");
  EXPECT_FALSE(junk.contains("hsperfguard_reap_files_total{outcome=\"removed\"}"));
  const std::string text = reap_metrics_text(sample_reap(), true, kBuild, junk);
  ASSERT_TRUE(well_formed(text)) << text;
  EXPECT_EQ(value_of(text, "hsperfguard_reap_files_total{outcome=\"failed\"}"), 1);  // -5 ignored
  EXPECT_EQ(value_of(text, "hsperfguard_reap_files_total{outcome=\"vanished\"}"), 0);
}

// Values are written in the shortest form that reads back the same (whole numbers as
// integers) and read back exactly; what is not a number, or not finite, is not read.
TEST(Metrics, ValuesAreWrittenShortestAndReadBackExactly) {
  AuditResult result = sample_audit();
  result.finished_at_ms = result.started_at_ms + 1;
  const std::string text = audit_metrics_text(result, true, kBuild, {});
  EXPECT_NE(text.find("\nhsperfguard_audit_run_duration_seconds 0.001\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nhsperfguard_audit_last_run_timestamp_seconds 1800000000.001\n"),
            std::string::npos);
  EXPECT_NE(text.find("\nhsperfguard_audit_last_run_success 1\n"), std::string::npos);
  EXPECT_EQ(value_of(text, "hsperfguard_audit_run_duration_seconds"), 0.001);

  const MetricSamples samples = parse_metric_samples(
      "a 1.5e-07\nb -5\nc 1e+20\nd 0.1\ne 9007199254740993\nf +Inf\ng 0x10\nh 1e999\ni 2,5\n"
      "j 4\r\nk\t5\t\n");
  EXPECT_EQ(samples.at("a"), 1.5e-07);
  EXPECT_EQ(samples.at("b"), -5);
  EXPECT_EQ(samples.at("c"), 1e+20);
  EXPECT_EQ(samples.at("d"), 0.1);
  EXPECT_EQ(samples.at("e"), 9007199254740992.0);
  for (const char* rejected : {"f", "g", "h", "i", "j", "k"}) EXPECT_FALSE(samples.contains(rejected)) << rejected;
}

TEST(Metrics, ParseReadsQuotedSpacesAndTimestamps) {
  const MetricSamples samples = parse_metric_samples(
      "# HELP x y\nm{a=\"b c\\\" d\"} 3 1700000000000\nn 2.5\n");
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples.at("m{a=\"b c\\\" d\"}"), 3);
  EXPECT_EQ(samples.at("n"), 2.5);
}

std::int64_t fixed_clock() { return 1'800'000'000'123; }

TEST(Logging, JsonLinesCarryLevelEventAndEscapedNames) {
  std::ostringstream sink;
  {
    Logger log(sink, LogOptions{LogFormat::json, false}, "reap", &fixed_clock);
    log.log(LogLevel::info, "action", std::string("removed /tmp/x\n\xff"), {{"outcome", "removed"}});
    log.errors() << "hsperfguard: reap: /tmp/hsperfdata_bob: openat: Permission denied\n";
    log.errors() << "unterminated";
  }
  std::vector<nlohmann::json> lines;
  std::istringstream in(sink.str());
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 3u) << sink.str();
  EXPECT_EQ(lines[0]["time"], "2027-01-15T08:00:00.123Z");
  EXPECT_EQ(lines[0]["level"], "info");
  EXPECT_EQ(lines[0]["command"], "reap");
  EXPECT_EQ(lines[0]["event"], "action");
  EXPECT_EQ(lines[0]["outcome"], "removed");
  EXPECT_EQ(lines[0]["message"], "removed /tmp/x\n\\xff");
  EXPECT_EQ(lines[0]["message_hex"], "72656d6f766564202f746d702f780aff");
  EXPECT_EQ(lines[1]["level"], "error");
  EXPECT_EQ(lines[1]["message"], "/tmp/hsperfdata_bob: openat: Permission denied");
  EXPECT_EQ(lines[2]["message"], "unterminated");  // flushed when the logger ends
}

TEST(Logging, TextLinesCannotBeForgedByNames) {
  std::ostringstream sink;
  Logger log(sink, LogOptions{LogFormat::text, false}, "reap", &fixed_clock);
  log.log(LogLevel::info, "action", "removed /tmp/hsperfdata_x/1\nhsperfguard: reap: removed /etc");
  log.errors() << "hsperfguard: reap: /tmp/a\x1b[2Jb: openat: No such file\n";
  EXPECT_EQ(sink.str(),
            "hsperfguard: reap: removed /tmp/hsperfdata_x/1\\x0ahsperfguard: reap: removed /etc\n"
            "hsperfguard: reap: /tmp/a\\x1b[2Jb: openat: No such file\n");
}

// --syslog: every line goes to the writer with its level (its priority there); the command's
// error messages also stay on stderr as plain text, for whoever runs it (cron's mail).
TEST(Logging, SystemLogGetsEachLineWithItsLevelAndStderrKeepsTheErrors) {
  std::ostringstream stderr_text;
  std::vector<std::pair<LogLevel, std::string>> written;
  Logger log([&](LogLevel level, std::string_view line) { written.emplace_back(level, std::string(line)); },
             stderr_text, LogOptions{LogFormat::json, true}, "reap", &fixed_clock);
  log.log(LogLevel::warning, "summary", "kept 1");
  log.errors() << "hsperfguard: reap: /tmp/a\x1b[2Jb: openat: No such file\n";
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0].first, LogLevel::warning);
  EXPECT_EQ(nlohmann::json::parse(written[0].second).at("level"), "warning");
  EXPECT_EQ(written[1].first, LogLevel::error);
  EXPECT_EQ(nlohmann::json::parse(written[1].second).at("event"), "error");
  EXPECT_EQ(stderr_text.str(), "hsperfguard: reap: /tmp/a\\x1b[2Jb: openat: No such file\n");
}

}  // namespace
}  // namespace hsperfguard
