// --metrics with the real collector: Debian's prometheus-node-exporter (only its textfile
// collector, on 127.0.0.1) exports what `hsperfguard audit` and `reap` wrote, hostile names
// included, without a scrape error; promtool accepts the files. And the log lines of
// unattended runs (--log-format, --quiet) from the binary.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jvm_support.hpp"
#include "loopback_posix.hpp"
#include "reap_test_support.hpp"
#include "report/metrics.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using reaptest::kNobody;
using test::http_get;
using test::LoopbackServer;
using test::NodeExporter;
using reaptest::kNogroup;
using reaptest::ReapTree;

// A namespace name no collector should choke on: quote, backslash, newline, not UTF-8.
const std::string kHostileUser = std::string("ev\"il\\x\nname\xff");

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The series of an exposition that start with `prefix` (sample lines only).
std::vector<std::string> series_lines(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) lines.push_back(line);
  }
  return lines;
}

TEST(MetricsCollector, NodeExporterExportsAuditAndReapMetricsWithoutScrapeError) {
  // Never skipped: CI installs both packages (scripts/deps.sh); a missing one is a failure.
  const std::string exporter = test::find_program("prometheus-node-exporter");
  ASSERT_FALSE(exporter.empty()) << "prometheus-node-exporter not found: install Debian's package "
                                    "prometheus-node-exporter";
  const std::string promtool = test::find_program("promtool");
  ASSERT_FALSE(promtool.empty()) << "promtool not found: install Debian's package prometheus";

  ReapTree tree;
  // Findings: a world-writable namespace of nobody with a foreign file, a hostile name, and a
  // stale region in a private namespace for the reaper.
  const std::string open_ns = tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  tree.plain_file(open_ns, "not-a-pid");
  const std::string hostile_ns = tree.make_namespace(kHostileUser, kNobody, kNogroup, 0755);
  const std::string private_ns = tree.make_namespace("daemon", 1, 1, 0700);
  const std::string stale = tree.stale_file(private_ns);

  const std::string textfiles = tree.scratch / "textfile";
  ASSERT_EQ(::mkdir(textfiles.c_str(), 0755), 0);
  const std::string audit_prom = textfiles + "/hsperfguard.prom";
  const std::string reap_prom = textfiles + "/hsperfguard-reap.prom";
  const auto audit = test::run_tool({"audit", "--tmpdir", tree.tmp, "--metrics", audit_prom, "--quiet"});
  ASSERT_EQ(audit.exit_code, 1) << audit.err;  // findings at or above medium
  // --quiet: one line per finding at or above medium, the hostile name escaped.
  EXPECT_EQ(std::count(audit.out.begin(), audit.out.end(), '\n'), 2) << audit.out;
  EXPECT_NE(audit.out.find("high namespace.group-other-writable " + open_ns + ": "), std::string::npos)
      << audit.out;
  EXPECT_NE(audit.out.find("medium namespace.unknown-user "), std::string::npos) << audit.out;
  const auto reap = test::run_tool({"reap", "--tmpdir", tree.tmp, "--no-lock", "--min-age", "0", "--metrics",
                                    reap_prom, "--quiet", "--log-format", "json"});
  ASSERT_EQ(reap.exit_code, 0) << reap.err;
  EXPECT_FALSE(reaptest::exists(stale));
  struct stat st {};
  ASSERT_EQ(::stat(audit_prom.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u) << "node_exporter runs as another user";

  for (const std::string& file : {audit_prom, reap_prom}) {
    const auto check = test::run({"sh", "-c", "'" + promtool + "' check metrics < '" + file + "'"});
    EXPECT_EQ(check.exit_code, 0) << file << ":\n" << check.out << check.err;
    EXPECT_EQ(check.out + check.err, "") << file;
  }

  NodeExporter node(exporter, textfiles, tree.scratch / "node-exporter.log");
  ASSERT_GT(node.port(), 0) << "node_exporter did not start:\n" << read_text(tree.scratch / "node-exporter.log");
  const auto scraped = http_get(node.port(), "/metrics");
  node.stop();
  ASSERT_TRUE(scraped.has_value());

  EXPECT_NE(scraped->find("\nnode_textfile_scrape_error 0\n"), std::string::npos) << *scraped;
  const auto exported = series_lines(*scraped, "hsperfguard_");
  const std::size_t written = parse_metric_samples(read_text(audit_prom)).size() +
                              parse_metric_samples(read_text(reap_prom)).size();
  EXPECT_EQ(exported.size(), written) << *scraped;
  EXPECT_GE(exported.size(), 60u);
  std::printf("hsperfguard series scraped by node_exporter: %zu\n", exported.size());
  RecordProperty("hsperfguard_series_scraped", static_cast<int>(exported.size()));

  // The hostile name arrived as one label value, escaped, not as a line of its own.
  const std::string hostile_label = "namespace=\"" + tree.tmp + "/hsperfdata_ev\\\"il\\\\\\\\x\\\\x0aname\\\\xff\"";
  bool found = false;
  for (const auto& line : exported) found = found || line.find(hostile_label) != std::string::npos;
  EXPECT_TRUE(found) << hostile_label << "\n" << *scraped;
  EXPECT_EQ(scraped->find("\nname"), std::string::npos);
  const MetricSamples samples = parse_metric_samples(*scraped);
  ASSERT_TRUE(samples.contains("hsperfguard_reap_last_run_files{outcome=\"removed\"}"));
  EXPECT_GE(samples.at("hsperfguard_reap_last_run_files{outcome=\"removed\"}"), 1);
  EXPECT_EQ(samples.at("hsperfguard_reap_last_run_files{outcome=\"failed\"}"), 0);
  EXPECT_NE(scraped->find("hsperfguard_audit_last_run_success 1\n"), std::string::npos);
  EXPECT_NE(scraped->find("hsperfguard_build_info{build=\""), std::string::npos);
}

// The metrics file is replaced, never written in place: a reader (the collector) sees the
// old file or the new one. Its inode changes and no temp file is left beside it.
TEST(MetricsCollector, MetricsFileIsReplacedAtomically) {
  ReapTree tree;
  const std::string dir = tree.scratch / "textfile";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const std::string prom = dir + "/hsperfguard.prom";
  ASSERT_EQ(test::run_tool({"audit", "--tmpdir", tree.tmp, "--metrics", prom, "--quiet"}).exit_code, 0);
  struct stat first {};
  ASSERT_EQ(::stat(prom.c_str(), &first), 0);
  ASSERT_EQ(test::run_tool({"audit", "--tmpdir", tree.tmp, "--metrics", prom, "--quiet"}).exit_code, 0);
  struct stat second {};
  ASSERT_EQ(::stat(prom.c_str(), &second), 0);
  EXPECT_NE(first.st_ino, second.st_ino);
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "hsperfguard.prom");
  }
  EXPECT_EQ(entries, 1u);
  // The second run counted on from the first.
  EXPECT_EQ(parse_metric_samples(read_text(prom)).at("hsperfguard_audit_runs_total{result=\"success\"}"), 2);
}

TEST(MetricsCollector, UnwritableMetricsFileIsAnErrorExit3) {
  ReapTree tree;
  const auto audit = test::run_tool({"audit", "--tmpdir", tree.tmp, "--metrics",
                                     tree.scratch / "no-such-dir/hsperfguard.prom", "--quiet"});
  EXPECT_EQ(audit.exit_code, 3);
  EXPECT_NE(audit.err.find("cannot write metrics"), std::string::npos) << audit.err;
}

// ---- logging for unattended runs ---------------------------------------------------------------

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not a JSON line: " << line;
    lines.push_back(j);
  }
  return lines;
}

TEST(ReapLogging, QuietCleanReapPrintsNothingAtAll) {
  ReapTree tree;
  tree.make_namespace("nobody", kNobody, kNogroup);
  for (const char* format : {"text", "json"}) {
    const auto reap = test::run_tool({"reap", "--tmpdir", tree.tmp, "--no-lock", "--quiet", "--log-format", format});
    EXPECT_EQ(reap.exit_code, 0) << reap.err;
    EXPECT_EQ(reap.out, "") << format;
    EXPECT_EQ(reap.err, "") << format;
  }
  const auto plain = test::run_tool({"reap", "--tmpdir", tree.tmp, "--no-lock", "--quiet"});
  EXPECT_EQ(plain.out + plain.err, "");
}

TEST(ReapLogging, JsonLogHasOneLinePerRemovalAndASummary) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string a = tree.stale_file(ns);
  const std::string b = tree.stale_file(ns);
  const std::string hostile = tree.plain_file(ns, "x\ny");
  const auto reap = test::run_tool(
      {"reap", "--tmpdir", tree.tmp, "--no-lock", "--min-age", "0", "--log-format", "json", "--format", "json",
       "--output", tree.scratch / "reap.json"});
  ASSERT_EQ(reap.exit_code, 0) << reap.err;
  EXPECT_EQ(reap.out, "");
  const auto lines = json_lines(reap.err);
  ASSERT_EQ(lines.size(), 4u) << reap.err;
  std::set<std::string> paths;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(lines[i].at("event"), "action");
    EXPECT_EQ(lines[i].at("command"), "reap");
    EXPECT_EQ(lines[i].at("level"), "info");
    EXPECT_EQ(lines[i].at("outcome"), "removed");
    EXPECT_TRUE(lines[i].contains("time"));
    paths.insert(lines[i].at("path").get<std::string>());
  }
  EXPECT_EQ(paths, (std::set<std::string>{a, b, hostile}));
  EXPECT_EQ(lines[3].at("event"), "summary");
  EXPECT_EQ(lines[3].at("removed"), 3);
  EXPECT_EQ(lines[3].at("failed"), 0);

  // --quiet: the same action lines, no summary.
  const std::string c = tree.stale_file(ns);
  const auto quiet = test::run_tool(
      {"reap", "--tmpdir", tree.tmp, "--no-lock", "--min-age", "0", "--log-format", "json", "--quiet"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  const auto quiet_lines = json_lines(quiet.err);
  ASSERT_EQ(quiet_lines.size(), 1u) << quiet.err;
  EXPECT_EQ(quiet_lines[0].at("path"), c);
}

TEST(ReapLogging, TextLogLineCannotBeForgedByAFileName) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  tree.plain_file(ns, "x\nhsperfguard: reap: removed passwd");
  const auto reap = test::run_tool(
      {"reap", "--tmpdir", tree.tmp, "--no-lock", "--min-age", "0", "--log-format", "text", "--quiet"});
  ASSERT_EQ(reap.exit_code, 0) << reap.err;
  EXPECT_EQ(std::count(reap.err.begin(), reap.err.end(), '\n'), 1) << reap.err;
  EXPECT_NE(reap.err.find("x\\x0ahsperfguard: reap: removed passwd"), std::string::npos) << reap.err;
}

TEST(AuditLogging, ErrorsAreJsonLinesAndTheSummaryFollows) {
  test::ScratchDir scratch;
  // A link: a temp dir is never followed, the run cannot complete (a missing one is a usage error).
  std::filesystem::create_directory_symlink(scratch.path(), scratch / "linked");
  const auto audit = test::run_tool({"audit", "--tmpdir", scratch / "linked", "--log-format", "json",
                                     "--format", "json", "--output", scratch / "report.json"});
  EXPECT_EQ(audit.exit_code, 3);
  const auto lines = json_lines(audit.err);
  ASSERT_GE(lines.size(), 2u) << audit.err;
  EXPECT_EQ(lines.front().at("event"), "summary");
  EXPECT_EQ(lines.front().at("complete"), false);
  EXPECT_EQ(lines.back().at("level"), "error");
  EXPECT_EQ(lines.back().at("command"), "audit");
  EXPECT_NE(lines.back().at("message").get<std::string>().find("linked"), std::string::npos);
  EXPECT_FALSE(lines.back().at("message").get<std::string>().starts_with("hsperfguard:"));
}

// ---- The alerting rules shipped for these metrics ----------------------------------------

// Every alert of the rule file carries its runbook as text (read away from the host), and its
// unit tests show it firing and not firing. Read line by line: the files are written in one
// plain layout ("- alert: NAME", "runbook:"; "alertname: NAME" then "exp_alerts: []" or
// "exp_alerts:").
TEST(AlertingRules, EveryAlertHasARunbookAndAFiringAndANotFiringCase) {
  const std::string dir = test::source_path("packaging/prometheus");
  std::map<std::string, int> runbooks;
  std::string alert;
  std::istringstream rules(read_text(dir + "/hsperfguard.rules.yml"));
  for (std::string line; std::getline(rules, line);) {
    const auto at = line.find("- alert: ");
    if (at != std::string::npos) runbooks[alert = line.substr(at + 9)] = 0;
    if (line.find(" runbook: ") != std::string::npos && !alert.empty()) ++runbooks[alert];
    EXPECT_EQ(line.find("file://"), std::string::npos) << "a runbook on the host only: " << line;
  }
  ASSERT_EQ(runbooks.size(), 6u);
  std::map<std::string, std::set<std::string>> cases;  // alert -> {"firing", "not-firing"}
  std::istringstream tests(read_text(dir + "/hsperfguard.rules.test.yml"));
  for (std::string line; std::getline(tests, line);) {
    const auto at = line.find("alertname: ");
    if (at != std::string::npos) alert = line.substr(at + 11);
    if (line.find("exp_alerts: []") != std::string::npos) {
      cases[alert].insert("not-firing");
    } else if (line.find("exp_alerts:") != std::string::npos) {
      cases[alert].insert("firing");
    }
  }
  for (const auto& [name, count] : runbooks) {
    EXPECT_EQ(count, 1) << name << " has no runbook annotation";
    EXPECT_EQ(cases[name], (std::set<std::string>{"firing", "not-firing"})) << name;
  }
}

// packaging/prometheus/hsperfguard.rules.yml is valid for Prometheus and its unit tests
// (hsperfguard.rules.test.yml: every alert firing and not firing, with its text) pass.
TEST(AlertingRules, PromtoolChecksThemAndTheirUnitTestsPass) {
  const std::string promtool = test::find_program("promtool");
  ASSERT_FALSE(promtool.empty()) << "promtool not found: install Debian's package prometheus";
  const std::string dir = test::source_path("packaging/prometheus");
  const auto check = test::run({promtool, "check", "rules", dir + "/hsperfguard.rules.yml"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("SUCCESS: 6 rules found"), std::string::npos) << check.out;
  const auto unit = test::run({promtool, "test", "rules", dir + "/hsperfguard.rules.test.yml"});
  EXPECT_EQ(unit.exit_code, 0) << unit.out << unit.err;
  EXPECT_NE(unit.out.find("SUCCESS"), std::string::npos) << unit.out;
}

// End to end with the real components on loopback: `audit --metrics` into a textfile
// directory, Debian's node_exporter with only the textfile collector, Debian's Prometheus with
// the shipped rule file, scraping and evaluating every second. A namespace others can write to
// (high, the worst a Linux namespace gets) must make HsperfdataNamespaceHigh fire, and
// nothing else of the file fire, within a bounded time.
TEST(AlertingRules, RealPrometheusFiresTheAlertForAPlantedUnsafeNamespace) {
  const std::string exporter = test::find_program("prometheus-node-exporter");
  ASSERT_FALSE(exporter.empty()) << "install Debian's package prometheus-node-exporter";
  const std::string prometheus = test::find_program("prometheus");
  ASSERT_FALSE(prometheus.empty()) << "install Debian's package prometheus";

  ReapTree tree;
  tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const std::string textfiles = tree.scratch / "textfile";
  ASSERT_EQ(::mkdir(textfiles.c_str(), 0755), 0);
  const auto audit = test::run_tool(
      {"audit", "--tmpdir", tree.tmp, "--metrics", textfiles + "/hsperfguard.prom", "--quiet"});
  ASSERT_EQ(audit.exit_code, 1) << audit.err;
  ASSERT_EQ(parse_metric_samples(read_text(textfiles + "/hsperfguard.prom"))
                .at("hsperfguard_audit_namespaces{worst_severity=\"high\"}"),
            1);

  NodeExporter node(exporter, textfiles, tree.scratch / "node-exporter.log");
  ASSERT_GT(node.port(), 0) << read_text(tree.scratch / "node-exporter.log");
  const std::string config = tree.scratch / "prometheus.yml";
  {
    std::ofstream out(config);
    out << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        << "rule_files:\n  - " << test::source_path("packaging/prometheus/hsperfguard.rules.yml")
        << "\n"
        << "scrape_configs:\n  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:"
        << node.port() << "']\n";
  }
  const auto started = std::chrono::steady_clock::now();
  LoopbackServer server(
      [&](int port) {
        return std::vector<std::string>{prometheus, "--config.file=" + config,
                                        "--storage.tsdb.path=" + (tree.scratch / "data"),
                                        "--web.listen-address=127.0.0.1:" + std::to_string(port)};
      },
      "/-/ready", tree.scratch / "prometheus.log");
  ASSERT_GT(server.port(), 0) << read_text(tree.scratch / "prometheus.log");

  nlohmann::json firing;
  std::set<std::string> others;
  std::string last_answer = "(none)";
  // Idle, the alert fires about 6 s after the start; 120 s leaves room for a machine whose two
  // cores run sanitized tests beside this one.
  const auto deadline = started + std::chrono::seconds(120);
  while (firing.is_null() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto body = http_get(server.port(), "/api/v1/alerts");
    if (!body) continue;
    last_answer = *body;
    const auto doc = nlohmann::json::parse(*body, nullptr, false);
    if (doc.is_discarded() || !doc.contains("data")) continue;
    for (const auto& alert : doc["data"]["alerts"]) {
      const std::string name = alert["labels"].value("alertname", "");
      if (name == "HsperfdataNamespaceHigh" && alert.value("state", "") == "firing")
        firing = alert;
      else
        others.insert(name);
    }
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  server.stop();
  node.stop();
  ASSERT_FALSE(firing.is_null()) << "no firing alert within 120 s; Prometheus's last answer: "
                                 << last_answer << "\nits log:\n"
                                 << read_text(tree.scratch / "prometheus.log");
  EXPECT_EQ(firing["labels"]["instance"], "127.0.0.1:" + std::to_string(node.port()));
  EXPECT_EQ(firing["labels"]["severity"], "warning");
  EXPECT_EQ(firing["value"], "1e+00");
  EXPECT_NE(firing["annotations"]["summary"].get<std::string>().find("1 hsperfdata namespace(s)"),
            std::string::npos);
  EXPECT_TRUE(others.empty()) << "other alerts fired or were pending: "
                              << nlohmann::json(others).dump() << " (after " << took.count()
                              << " ms; Prometheus's last answer: " << last_answer << ")";
  std::printf("alert firing %lld ms after Prometheus was started: %s\n",
              static_cast<long long>(took.count()), firing.dump().c_str());
  RecordProperty("alert_firing_ms", static_cast<int>(took.count()));
}

}  // namespace
}  // namespace hsperfguard
