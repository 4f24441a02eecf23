// The JSON report: shape (validated against schemas/report.schema.json), golden examples,
// hostile names, and the summary arithmetic.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "decide/audit.hpp"
#include "model/compact_json.hpp"
#include "model/json_text.hpp"
#include "model/rule_catalog.hpp"
#include "model/text_escape.hpp"
#include "report/audit_report_json.hpp"
#include "report/audit_report_text.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using test::source_path;

InodeFacts dir_inode(std::uint32_t mode, std::uint32_t uid) {
  InodeFacts i;
  i.kind = FileKind::directory;
  i.mode = mode;
  i.uid = uid;
  i.gid = uid;
  i.nlink = 2;
  i.size = 4096;
  i.dev = 42;
  i.ino = 1000 + mode;
  i.mtime = {1795379894, 0};
  return i;
}

// A region as a JVM writes it, with the VM's start time: the bytes.
std::vector<std::byte> region_bytes() {
  perfdata::RegionSpec spec;
  perfdata::NewEntry begin;
  begin.name = "sun.rt.createVmBeginTime";
  begin.long_value = 1795379894540;
  spec.entries.push_back(begin);
  return perfdata::build_region(spec).bytes;
}

FileFacts backing_file(const std::string& ns_path, const std::string& name, std::uint32_t mode,
                       std::uint32_t uid) {
  FileFacts f;
  f.name = name;
  f.path = ns_path + "/" + name;
  InodeFacts i;
  i.kind = FileKind::regular;
  i.mode = mode;
  i.uid = uid;
  i.gid = uid;
  i.size = 32768;
  i.dev = 42;
  i.ino = 5000;
  i.mtime = {1795379894, 540000000};
  f.lstat = i;
  f.opened = i;
  f.pid_name = classify_pid_name(name);
  const std::vector<std::byte> bytes = region_bytes();
  f.region = RegionSummary{perfdata::parse_region(bytes), bytes.size()};
  return f;
}

// A host /tmp with a clean namespace, an insecure one, and a hostile, non-UTF-8 name.
std::vector<TempRootFacts> example_roots() {
  TempRootFacts root;
  root.kind = RootKind::tmpdir;
  root.root = "/";
  root.temp_dir = "/scratch/tmp";
  root.lstat = root.opened = dir_inode(01777, 0);
  root.volume = VolumeFacts{};
  root.volume->fs_type = "tmpfs";
  root.volume->fs_magic = 0x01021994;
  root.volume->acl_support = true;

  NamespaceFacts clean;
  clean.name = "hsperfdata_alice";
  clean.user_suffix = "alice";
  clean.path = "/scratch/tmp/hsperfdata_alice";
  clean.lstat = clean.opened = dir_inode(0755, 1001);
  clean.user = UserFacts{"alice", 1001, 1001, std::nullopt};
  clean.volume = root.volume;
  clean.files.push_back(backing_file(clean.path, "4242", 0600, 1001));
  root.namespaces.push_back(clean);

  NamespaceFacts open;
  open.name = "hsperfdata_bob";
  open.user_suffix = "bob";
  open.path = "/scratch/tmp/hsperfdata_bob";
  open.lstat = open.opened = dir_inode(0777, 1002);
  open.user = UserFacts{"bob", 1002, 1002, std::nullopt};
  open.volume = root.volume;
  open.files.push_back(backing_file(open.path, "77", 0644, 1002));
  // Its JVM is gone: the lock is free and no process 77 exists.
  LivenessFacts gone;
  gone.lock_held = false;
  gone.lock_source = "proc-locks";
  ProcessFacts p77;
  p77.pid = 77;
  p77.existence = ProcessFacts::Existence::gone;
  gone.candidates.push_back(p77);
  open.files.back().liveness = gone;
  open.files.push_back(backing_file(open.path, "not\xff" "a-pid", 0600, 1002));
  root.namespaces.push_back(open);

  NamespaceFacts hostile;
  hostile.name = "hsperfdata_\xc3\x28";
  hostile.user_suffix = "\xc3\x28";
  hostile.path = "/scratch/tmp/hsperfdata_\xc3\x28";
  hostile.lstat = dir_inode(0755, 0);
  hostile.lstat->kind = FileKind::symlink;
  hostile.volume = root.volume;
  root.namespaces.push_back(hostile);
  return {root};
}

AuditResult example_result() {
  AuditResult result;
  result.roots = example_roots();
  result.policy = *builtin_profile("default");
  result.judgements = judge(result.roots, result.policy);
  result.started_at_ms = 1795379900000;
  result.finished_at_ms = 1795379900012;
  return result;
}

ReportContext example_context() {
  ReportContext context;
  context.host = HostInfo{"example-host", "linux", "6.1.0", 0};
  return context;
}

// Fields that depend on the build, not on the facts.
nlohmann::json without_volatile(nlohmann::json report) {
  report["tool"]["version"] = "*";
  report["tool"]["build"] = "*";
  return report;
}

// Schema validation runs on POSIX only (see test::schema_valid); the rendering under test is
// the same code on Windows.
void expect_schema_valid([[maybe_unused]] const std::string& document) {
#ifndef _WIN32
  EXPECT_TRUE(test::schema_valid(document, "schemas/report.schema.json"));
#endif
}

// A host's temp dir carries the cleaners read from its files: each cleaning with its file,
// line and age, the one a job never reaches with why, and the finding of the one that reaches
// JVM files; the document is valid against the schema.
TEST(Report, CleanersOfTheHostAreInTheTempDirObject) {
  AuditResult result = example_result();
  TempRootFacts& root = result.roots.front();
  root.kind = RootKind::host;
  root.temp_dir = "/tmp";
  root.cleaners = CleanerFacts{};
  cleaners::Configuration& config = root.cleaners->configuration;
  config.files = {"/usr/lib/tmpfiles.d/tmp.conf", "/etc/cron.daily/old"};
  cleaners::parse_tmpfiles("/usr/lib/tmpfiles.d/tmp.conf", "q /tmp 1777 root root 10d\nY /x\n", config);
  cleaners::parse_cron("/etc/cron.daily/old", "exit 0\nfind /tmp -mtime +3 -delete\n", cleaners::CronFile::script,
                       {}, config);
  root.cleaners->errors.push_back(ObservationError{"/etc/cron.d/fifo", "fstat", 22, "is a FIFO, not a regular file: not read"});
  result.judgements = judge(result.roots, result.policy);
  const auto report = audit_report_json(result, example_context());
  const std::string document = dump_json(report);
  expect_schema_valid(document);
  const nlohmann::json cleaners = nlohmann::json::parse(document).at("roots").at(0).at("cleaners");
  EXPECT_EQ(cleaners.at("files").size(), 2U);
  ASSERT_EQ(cleaners.at("cleanings").size(), 2U);
  EXPECT_EQ(cleaners.at("cleanings")[0].at("tool"), "systemd-tmpfiles");
  EXPECT_EQ(cleaners.at("cleanings")[0].at("age"), "10d");
  EXPECT_TRUE(cleaners.at("cleanings")[0].at("disabled_by").is_null());
  EXPECT_EQ(cleaners.at("cleanings")[1].at("disabled_by"), "the job exits at line 1 before it");
  EXPECT_EQ(cleaners.at("not_understood"), 1);
  EXPECT_EQ(cleaners.at("errors").size(), 1U);
  EXPECT_NE(document.find("tmpdir.cleaner-ages-jvm-files"), std::string::npos);
  EXPECT_NE(document.find("tmpdir.cleaners-unread"), std::string::npos);
}

TEST(Report, ExampleMatchesGoldenFileAndSchema) {
  auto report = without_volatile(audit_report_json(example_result(), example_context()));
  const std::string golden_path = source_path("schemas/examples/mixed.json");
  if (std::getenv("HSPERFGUARD_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden_path) << dump_json(report) << "\n";
  }
  std::ifstream in(golden_path);
  ASSERT_TRUE(in.good()) << "missing golden file " << golden_path;
  auto golden = nlohmann::json::parse(in);
#ifdef _WIN32
  // Commands are quoted for the shell of the build (PowerShell here): the example's remedies
  // are the POSIX build's, and so are the shared texts that hold them. Everything else is the
  // same document.
  const auto without_remedies = [](nlohmann::json& j, const auto& self) -> void {
    if (j.is_object()) {
      j.erase("remediation");
      j.erase("remediation_ref");
      j.erase("texts");
      for (auto& [key, value] : j.items()) self(value, self);
    } else if (j.is_array()) {
      for (auto& value : j) self(value, self);
    }
  };
  without_remedies(report, without_remedies);
  without_remedies(golden, without_remedies);
#endif
  EXPECT_EQ(report, golden) << "regenerate with HSPERFGUARD_UPDATE_GOLDEN=1 if the change is intended\n"
                            << dump_json(report);
  expect_schema_valid(dump_json(report));
}

// The audit command streams the report, the one rendering of it (audit_report_json parses
// it): valid JSON whatever the pieces (empty arrays, hostile names, findings, errors, attach
// files), pretty-printed except for the files, each of which is one compact line (half the
// bytes of a large report) that says exactly what the facts and the judgement say.
TEST(Report, StreamedReportHasOneCompactLinePerFileAndEscapesHostileBytes) {
  auto result = example_result();
  // An unreadable entry with a hostile name, and evidence that is not UTF-8: the record
  // writer must escape both.
  auto& odd = result.roots[0].namespaces[1].files[1];
  odd.errors.push_back(ObservationError{odd.path + "\x01\"", "openat", 13, "Permission \xfe denied"});
  result.judgements[0].namespaces[1].files[1].findings.push_back(
      Finding{"file.mode", Severity::high, odd.path, "mode \xff",
              nlohmann::json{{"bytes", std::string("a\xff\"b")}, {"n", 7}}, "chmod"});
  const auto context = example_context();
  std::string streamed;
  std::size_t pieces = 0;
  write_audit_report_json(result, context, [&](std::string_view piece) {
    streamed.append(piece);
    ++pieces;
  });
  EXPECT_GE(pieces, 1u);
  ASSERT_FALSE(streamed.empty());
  EXPECT_EQ(streamed.back(), '\n');
  const auto document = nlohmann::json::parse(streamed);
  expect_schema_valid(streamed);

  // One line per file, in the order of the facts, each a whole JSON value with the file's
  // own name, path, pid, findings and errors.
  std::vector<const FileFacts*> facts;
  std::vector<const FileJudgement*> judgements;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    for (std::size_t n = 0; n < result.roots[r].namespaces.size(); ++n) {
      for (std::size_t f = 0; f < result.roots[r].namespaces[n].files.size(); ++f) {
        facts.push_back(&result.roots[r].namespaces[n].files[f]);
        judgements.push_back(&result.judgements[r].namespaces[n].files[f]);
      }
    }
  }
  ASSERT_FALSE(facts.empty());
  std::size_t line_count = 0;
  std::istringstream lines(streamed);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find_first_not_of(' ');
    if (at != 8 || line.compare(at, 2, "{\"") != 0) continue;  // files sit at depth 4
    if (line.back() == ',') line.pop_back();
    ASSERT_LT(line_count, facts.size());
    const FileFacts& file = *facts[line_count];
    const FileJudgement& judged = *judgements[line_count];
    const auto record = nlohmann::json::parse(line.substr(at));
    EXPECT_EQ(record.dump(), line.substr(at)) << "members out of order or not compact";
    EXPECT_EQ(record.at("name"), escape_non_utf8(file.name));
    EXPECT_EQ(record.at("path"), escape_non_utf8(file.path));
    EXPECT_EQ(record.at("pid_name"), to_string(file.pid_name.kind));
    EXPECT_EQ(record.at("findings").size(), judged.findings.size());
    EXPECT_EQ(record.at("errors").size(), file.errors.size());
    EXPECT_EQ(record.at("verdict").is_null(), !judged.verdict.has_value());
    if (judged.verdict) {
      EXPECT_EQ(record.at("verdict").at("reason"), judged.verdict->reason);
    }
    ++line_count;
  }
  EXPECT_EQ(line_count, facts.size());

  // The hostile bytes, escaped where they were.
  const auto& odd_record = document.at("namespaces").at(1).at("files").at(1);
  EXPECT_EQ(odd_record.at("errors").at(0).at("message"), "Permission \\xfe denied");
  EXPECT_EQ(odd_record.at("errors").at(0).at("path"), escape_non_utf8(odd.path + "\x01\""));
  const auto& mode = odd_record.at("findings").back();
  EXPECT_EQ(mode.at("message"), "mode \\xff");
  EXPECT_EQ(mode.at("evidence").at("bytes"), "a\\xff\"b");
  EXPECT_EQ(mode.at("evidence").at("n"), 7);
  EXPECT_EQ(document, audit_report_json(result, context));

  AuditResult empty;
  std::string streamed_empty;
  write_audit_report_json(empty, context,
                          [&](std::string_view piece) { streamed_empty.append(piece); });
  const auto empty_document = nlohmann::json::parse(streamed_empty);
  EXPECT_TRUE(empty_document.at("namespaces").empty());
  EXPECT_EQ(empty_document.at("summary").at("findings"), 0);
  // The members known at the start come first, the namespaces next, the summary last.
  EXPECT_LT(streamed.find("\"started_at\""), streamed.find("\"namespaces\""));
  EXPECT_LT(streamed.find("\"namespaces\""), streamed.find("\"summary\""));
}

// What every finding of a rule shares is stated once (report version 2): the rules section is
// there once, with the catalogue's texts, and no finding repeats them.
TEST(Report, RulesAreStatedOnceAndFindingsCarryNoRuleText) {
  const auto result = example_result();
  std::string streamed;
  write_audit_report_json(result, example_context(), [&](std::string_view piece) { streamed.append(piece); });
  const auto document = nlohmann::json::parse(streamed);
  EXPECT_EQ(document.at("schema"), "hsperfguard-report/3");
  const auto& rules = document.at("rules");
  ASSERT_FALSE(rules.empty());
  std::size_t findings = 0;
  for_each_finding(result, [&](const Finding& f) {
    ++findings;
    const RuleInfo& info = *find_rule(f.rule);
    // The rationale is in the report once, whatever the number of findings of the rule.
    const std::string rationale = dump_json(nlohmann::json(info.rationale));
    const std::size_t first = streamed.find(rationale);
    EXPECT_NE(first, std::string::npos) << f.rule;
    EXPECT_EQ(streamed.find(rationale, first + 1), std::string::npos) << f.rule;
  });
  EXPECT_GT(findings, 3U);
  const std::function<void(const nlohmann::json&)> no_rule_text = [&](const nlohmann::json& j) {
    if (j.is_object()) {
      if (j.contains("rule")) {
        EXPECT_FALSE(j.contains("title") || j.contains("rationale") || j.contains("references")) << j;
        const auto& rule = rules.at(j.at("rule_index").get<std::size_t>());
        EXPECT_EQ(rule.at("id"), j.at("rule"));
        EXPECT_FALSE(j.contains("severity")) << "the rule's severity, said again: " << j;
      }
      for (const auto& [key, value] : j.items()) {
        if (key != "rules") no_rule_text(value);
      }
    } else if (j.is_array()) {
      for (const auto& value : j) no_rule_text(value);
    }
  };
  no_rule_text(document);
  // bob's 0644 file: its file.mode remedy names the file, and is shared as a text with <path>
  // for it.
  const auto& open = document.at("namespaces").at(1).at("files").at(0).at("findings");
  bool shared = false;
  for (const auto& f : open) {
    if (f.at("rule") != "file.mode") continue;
    const std::string text = document.at("texts").at(f.at("remediation_ref").get<std::string>());
    // (quoted for the build's shell: PowerShell puts the path in quotes)
    shared = text.find("chmod 0600 ") != std::string::npos && text.find("<path>") != std::string::npos;
  }
  EXPECT_TRUE(shared) << open << document.at("texts");
}

#ifndef _WIN32
// The migrations hold: schemas/report-3-to-2.jq and then schemas/report-2-to-1.jq, run on
// the report, give back every version 1 field of every finding (severity, path and its hex,
// message, remediation, repairable, evidence), equal to what the judgement found: a stale
// file's evidence left to its verdict, a broken region's to its region (with and without a
// prologue), hostile bytes and a re-rated rule included.
TEST(Report, Version1FindingsAreRebuiltFromVersion3) {
  auto result = example_result();
  {
    // The stale file (pid 77) has a region cut after its prologue; a second file, one byte.
    auto& files = result.roots[0].namespaces[1].files;
    const std::vector<std::byte> whole = region_bytes();
    files[0].region = RegionSummary{perfdata::parse_region(std::span(whole).first(40)), 40};
    ASSERT_TRUE(files[0].region->region.error && files[0].region->region.prologue);
    FileFacts tiny = files[0];
    tiny.path = result.roots[0].namespaces[1].path + "/78";
    tiny.name = "78";
    tiny.pid_name = classify_pid_name("78");
    tiny.liveness->candidates.at(0).pid = 78;
    const std::vector<std::byte> one{std::byte{0xca}};
    tiny.region = RegionSummary{perfdata::parse_region(one), 1};
    files.push_back(tiny);
    result.judgements = judge(result.roots, result.policy);
  }
  std::size_t left_to_record = 0;
  auto& odd = result.roots[0].namespaces[1].files[1];
  result.judgements[0].namespaces[1].files[1].findings.push_back(
      Finding{"file.mode", Severity::critical, odd.path, "mode \xff of " + odd.path + " and more words here",
              nlohmann::json{{"bytes", std::string("a\xff\"b")}}, "chmod <path> " + odd.path, true});
  result.judgements[0].namespaces[1].findings.push_back(
      Finding{"file.mode", Severity::high, "/elsewhere/x", "a finding about another path than its namespace",
              nlohmann::json::object(), "look at /elsewhere/x and at what made it, before anything else"});
  test::ScratchDir dir;
  const std::string path = dir / "report.json";
  {
    std::ofstream out(path);
    write_audit_report_json(result, example_context(), [&](std::string_view piece) { out << piece; });
  }
  std::ifstream in(path);
  const std::string v3((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  expect_schema_valid(v3);
  const auto document = nlohmann::json::parse(v3);
  for (const auto& ns : document.at("namespaces")) {
    for (const auto& file : ns.at("files")) {
      for (const auto& finding : file.at("findings")) left_to_record += finding.contains("evidence") ? 0 : 1;
    }
  }
  // 77's file.stale and file.bad-prologue, 78's file.stale and file.bad-prologue.
  EXPECT_EQ(left_to_record, 4U) << v3;
  const auto v2 = test::run({"/usr/bin/jq", "-f", source_path("schemas/report-3-to-2.jq"), path});
  ASSERT_EQ(v2.exit_code, 0) << v2.err;
  EXPECT_EQ(nlohmann::json::parse(v2.out).at("schema"), "hsperfguard-report/2");
  const std::string v2_path = dir / "report-2.json";
  std::ofstream(v2_path) << v2.out;
  const auto rebuilt = test::run({"/usr/bin/jq", "-f", source_path("schemas/report-2-to-1.jq"), v2_path});
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  const auto v1 = nlohmann::json::parse(rebuilt.out);
  EXPECT_EQ(v1.at("schema"), "hsperfguard-report/1");
  EXPECT_FALSE(v1.contains("rules") || v1.contains("texts"));

  const auto expected = [](const Finding& f) {
    nlohmann::json j;
    j["rule"] = f.rule;
    j["severity"] = to_string(f.severity);
    put_text(j, "path", f.path);
    j["message"] = escape_non_utf8(f.message);
    j["evidence"] = sanitize_json(f.evidence);
    j["remediation"] = f.remediation;
    j["repairable"] = f.repairable;
    return nlohmann::json::parse(dump_json(j));
  };
  const auto same = [&](const nlohmann::json& got, const Findings& want, const std::string& where) {
    ASSERT_EQ(got.size(), want.size()) << where;
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got.at(i), expected(want[i])) << where << " #" << i;
  };
  std::size_t compared = 0;
  std::size_t ns_at = 0;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    same(v1.at("roots").at(r).at("findings"), result.judgements[r].findings, "root");
    compared += result.judgements[r].findings.size();
    for (std::size_t n = 0; n < result.roots[r].namespaces.size(); ++n, ++ns_at) {
      const auto& jn = v1.at("namespaces").at(ns_at);
      same(jn.at("findings"), result.judgements[r].namespaces[n].findings, "namespace");
      compared += result.judgements[r].namespaces[n].findings.size();
      for (std::size_t f = 0; f < result.roots[r].namespaces[n].files.size(); ++f) {
        same(jn.at("files").at(f).at("findings"), result.judgements[r].namespaces[n].files[f].findings, "file");
        compared += result.judgements[r].namespaces[n].files[f].findings.size();
      }
    }
  }
  std::size_t total = 0;
  for_each_finding(result, [&](const Finding&) { ++total; });
  EXPECT_EQ(compared, total);
}
#endif

// A finding leaves its evidence to the file's record only when the record gives back exactly
// that evidence: one that says anything more, or anything else, keeps it.
TEST(Report, EvidenceTheRecordDoesNotStateExactlyStaysInTheFinding) {
  auto result = example_result();
  auto& facts = result.roots[0].namespaces[1].files[0];  // pid 77, stale
  const std::vector<std::byte> one{std::byte{0xca}};
  facts.region = RegionSummary{perfdata::parse_region(one), 1};
  result.judgements = judge(result.roots, result.policy);
  auto& findings = result.judgements[0].namespaces[1].files[0].findings;
  const auto written = [&]() {
    const auto report = audit_report_json(result, example_context());
    std::map<std::string, bool> has;
    for (const auto& f : report.at("namespaces").at(1).at("files").at(0).at("findings"))
      has[f.at("rule").get<std::string>()] = f.contains("evidence");
    return has;
  };
  auto has = written();
  ASSERT_EQ(has.count("file.stale"), 1U);
  ASSERT_EQ(has.count("file.bad-prologue"), 1U);
  EXPECT_FALSE(has["file.stale"]);
  EXPECT_FALSE(has["file.bad-prologue"]);
  for (auto& f : findings) {
    if (f.rule == "file.stale") f.evidence["lock"] = "held";
    if (f.rule == "file.bad-prologue") f.evidence["reason"] = "another reason";
  }
  has = written();
  EXPECT_TRUE(has["file.stale"]);
  EXPECT_TRUE(has["file.bad-prologue"]);
  for (auto& f : findings) f.evidence = nlohmann::json::object();
  has = written();
  EXPECT_TRUE(has["file.stale"]);
  EXPECT_TRUE(has["file.bad-prologue"]);
}

// The writer hands namespaces to its sink as they are added, not at the end: an audit of any
// size holds a few namespaces, never the report.
TEST(Report, WriterStreamsEachNamespaceBeforeTheEnd) {
  auto result = example_result();
  NamespaceFacts big = result.roots[0].namespaces[0];
  big.files.clear();
  for (int pid = 1000; pid < 4000; ++pid) {  // over 1 MiB of records
    big.files.push_back(backing_file(big.path, std::to_string(pid), 0600, 1001));
  }
  const NamespaceJudgement judged = judge_namespace(result.roots[0], big, result.policy);
  std::size_t received = 0;
  AuditJsonWriter writer(example_context(), result.policy, result.started_at_ms,
                         [&](std::string_view piece) { received += piece.size(); });
  std::size_t before = received;
  for (int i = 0; i < 3; ++i) {
    writer.add_namespace(0, result.roots[0], big, judged);
    EXPECT_GT(received, before) << "namespace " << i << " was not written when it was added";
    before = received;
  }
  const AuditTally tally = tally_result(result);
  writer.finish(result, tally);
  EXPECT_GT(received, before);
}

// The predictions are the judgement's (judge_root, judge_namespace), made once: the report
// writes what it is given and predicts nothing itself. A hand-set prediction comes out as it
// is, though the facts say otherwise, and a temp dir judged without one has none in the report.
TEST(Report, RendersThePredictionsOfTheJudgementWithoutPredictingAgain) {
  AuditResult result = example_result();
  ASSERT_TRUE(result.roots[0].opened);
  ASSERT_TRUE(result.judgements[0].new_namespace_prediction.has_value());
  const nlohmann::json expected = {{"publishes", false},
                                   {"causes", nlohmann::json::array({"hand-set"})},
                                   {"region_bytes_assumed", 12345},
                                   {"locked_names", nlohmann::json::array({"4242"})}};
  checks::PublicationPrediction hand_set;
  hand_set.publishes = false;
  hand_set.refusals = {"hand-set"};
  hand_set.region_bytes = 12345;
  hand_set.locked_names = {"4242"};
  result.judgements[0].namespaces[0].prediction = hand_set;
  result.judgements[0].new_namespace_prediction = hand_set;
  const auto report = audit_report_json(result, example_context());
  EXPECT_EQ(report["namespaces"][0]["prediction"], expected);
  EXPECT_EQ(report["roots"][0]["new_namespace_prediction"], expected);

  result.judgements[0].new_namespace_prediction.reset();
  EXPECT_FALSE(audit_report_json(result, example_context())["roots"][0].contains("new_namespace_prediction"));
}

// A root or namespace without its judgement is the caller's fault, never counted as clean.
TEST(Report, TallyOfAResultMissingAJudgementRefusesToCountIt) {
  AuditResult result = example_result();
  ASSERT_FALSE(result.roots.empty());
  ASSERT_FALSE(result.roots[0].namespaces.empty());
  EXPECT_NO_THROW(tally_result(result));
  AuditResult no_namespace = result;
  no_namespace.judgements[0].namespaces.pop_back();
  EXPECT_THROW(tally_result(no_namespace), std::out_of_range);
  AuditResult no_root = result;
  no_root.judgements.pop_back();
  EXPECT_THROW(tally_result(no_root), std::out_of_range);
}

#ifndef _WIN32
TEST(Report, GoldenExamplesInTheTreeAreSchemaValid) {
  test::ScratchDir dir;
  const auto result = test::run({"/bin/sh", "-c",
                                 "/usr/bin/python3 " + source_path("tests/support/validate_json.py") + " " +
                                     source_path("schemas/report.schema.json") + " " +
                                     source_path("schemas/examples") + "/*.json"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
}
#endif

TEST(Report, HostileNamesAreEscapedAndKeptExactlyInHex) {
  const auto report = audit_report_json(example_result(), example_context());
  const auto& hostile = report["namespaces"][2];
  EXPECT_EQ(hostile["name"], "hsperfdata_\\xc3(");
  EXPECT_EQ(hostile["name_hex"], "687370657266646174615fc328");
  const auto& file = report["namespaces"][1]["files"][1];
  EXPECT_EQ(file["name"], "not\\xffa-pid");
  EXPECT_EQ(file["name_hex"], "6e6f74ff612d706964");
  // Serialising never throws and yields valid UTF-8.
  const auto reparsed = nlohmann::json::parse(dump_json(report), nullptr, false);
  EXPECT_FALSE(reparsed.is_discarded());
}

TEST(Report, SummaryCountsEveryFindingOnce) {
  const auto result = example_result();
  const auto report = audit_report_json(result, example_context());
  std::size_t total = 0;
  for_each_finding(result, [&](const Finding&) { ++total; });
  EXPECT_GT(total, 0u);
  EXPECT_EQ(report["summary"]["findings"], total);
  std::size_t by_severity = 0;
  for (const auto& [k, v] : report["summary"]["by_severity"].items()) by_severity += v.get<std::size_t>();
  EXPECT_EQ(by_severity, total);
  std::size_t by_rule = 0;
  for (const auto& [k, v] : report["summary"]["by_rule"].items()) by_rule += v.get<std::size_t>();
  EXPECT_EQ(by_rule, total);
  EXPECT_EQ(report["summary"]["files"], 3);
  EXPECT_EQ(report["summary"]["namespaces"], 3);
  EXPECT_EQ(report["summary"]["files_by_verdict"]["stale"], 1);
  EXPECT_EQ(report["namespaces"][1]["files"][0]["verdict"]["verdict"], "stale");
  // The clean namespace has no finding, on it or its file.
  EXPECT_TRUE(report["namespaces"][0]["findings"].empty());
  EXPECT_TRUE(report["namespaces"][0]["files"][0]["findings"].empty());
}

TEST(Report, TextNamesEveryFindingRule) {
  const auto result = example_result();
  const auto text = audit_report_text(result, example_context());
  for_each_finding(result, [&](const Finding& f) {
    EXPECT_NE(text.find(f.rule), std::string::npos) << f.rule;
  });
  // alice's namespace is clean: only bob's and the hostile one are counted as having findings.
  EXPECT_NE(text.find("  3 namespace(s) in /scratch/tmp, 2 with findings or errors\n"), std::string::npos) << text;
}

TEST(Report, TimestampsAreUtcWithMilliseconds) {
  EXPECT_EQ(format_utc_millis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_utc_millis(1795379894540), "2026-11-22T20:38:14.540Z");
  EXPECT_EQ(format_utc_millis(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(format_utc_millis(946684800001), "2000-01-01T00:00:00.001Z");
  EXPECT_EQ(format_utc_millis(1709251199999), "2024-02-29T23:59:59.999Z");  // leap day
  EXPECT_EQ(format_utc_millis(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(format_utc_millis(253402300800000), "10000-01-01T00:00:00.000Z");  // past four digits
}

// The compact writer must produce the bytes dump_json(value, -1) produces for the same object,
// whatever the lengths (its short members go through one stack buffer, long ones are appended
// piece by piece) and whatever the text (plain, escaped, not UTF-8).
TEST(CompactJson, EveryKindOfMemberIsWhatDumpJsonWrites) {
  const std::string long_key(140, 'k');
  const std::string long_plain(300, 'p');
  const std::vector<std::string> texts = {"",
                                          "plain",
                                          "a\"quote",
                                          "back\\slash",
                                          "tab\there",
                                          std::string("nul\0byte", 8),
                                          "\xff\xfe not utf-8",
                                          long_plain,
                                          long_plain + "\n",
                                          "line\u2028para\u2029nel\u0085rlo\u202e"};
  // Members in sorted order, as callers write them: b < k... < k...z < n < negative < ...
  for (const std::string& key : {std::string("k"), long_key}) {
    for (const std::string& text : texts) {
      std::string out;
      {
        CompactObject o(out);
        o.boolean("b", true);
        o.null(key);
        o.string(key + "z", text);
        o.number("n", std::uint64_t{18446744073709551615u});
        o.number("negative", -42);
        o.number("optional", std::optional<int>{});
        o.string("s", text);
        o.boolean_or_null("t", false);
      }
      nlohmann::json want = {
          {"b", true},       {key, nullptr},        {"n", std::uint64_t{18446744073709551615u}},
          {"negative", -42}, {"optional", nullptr}, {"s", text},
          {key + "z", text}, {"t", false}};
      EXPECT_EQ(out, dump_json(want, -1))
          << "key of " << key.size() << " bytes, text of " << text.size() << " bytes";
      std::string appended = "[";
      append_json_string(appended, text);
      EXPECT_EQ(appended, "[" + dump_json(nlohmann::json(text), -1));
    }
  }
}

// One escaping rule: what terminal_safe makes visible in text, JSON escapes as \uXXXX where
// the serialiser left it raw; everything else is byte for byte what it was.
TEST(EscapingRule, JsonEscapesEveryInvisibleControlTheSerialiserLeavesRaw) {
  const std::string raw = "a\u2028b\u2029c\u0085d\u009be\u202ef\u2066g\u061ch\u200ei\u00e9j\u20acktab\t";
  const std::string text = dump_json(nlohmann::json(raw), -1);
  EXPECT_EQ(text, "\"a\\u2028b\\u2029c\\u0085d\\u009be\\u202ef\\u2066g\\u061ch\\u200ei\u00e9j\u20acktab\\t\"");
  EXPECT_EQ(nlohmann::json::parse(text).get<std::string>(), raw);  // the same string to a reader
  // Untouched: ASCII, other non-ASCII text, and an invalid byte the caller left (copied).
  std::string keep = "plain \u00e9\u20ac\xe2\x82";
  escape_json_invisibles(keep);
  EXPECT_EQ(keep, "plain \u00e9\u20ac\xe2\x82");
  std::string from = "\u2028|\u2028";
  escape_json_invisibles(from, 3);
  EXPECT_EQ(from, "\u2028|\\u2028");
}

TEST(EscapingRule, TextShowsLineSeparatorsAndControlsAsEscapes) {
  EXPECT_EQ(terminal_safe("a\u2028b\u2029c\u0085d\x1b[2Je\rf\u202e"), "a\\u2028b\\u2029c\\u0085d\\x1b[2Je\\x0df\\u202e");
  for (std::uint32_t c : {0x0au, 0x1bu, 0x7fu, 0x85u, 0x9bu, 0x2028u, 0x2029u, 0x202eu, 0x2066u}) {
    EXPECT_TRUE(is_invisible_control(c)) << c;
  }
  for (std::uint32_t c : {0x20u, 0x41u, 0xa0u, 0xe9u, 0x20acu, 0x2030u}) EXPECT_FALSE(is_invisible_control(c)) << c;
}

// Characters a terminal shows as nothing (found by an outside review: a namespace named
// "hsperfdata_root" and U+200B read as root's own, beside it): zero-width space, joiners,
// word joiner, soft hyphen, BOM, Hangul filler, variation selector, tags, annotation.
TEST(EscapingRule, CharactersATerminalShowsAsNothingAreEscapesToo) {
  EXPECT_EQ(terminal_safe("hsperfdata_root\u200b"), "hsperfdata_root\\u200b");
  EXPECT_EQ(terminal_safe("t\U000E0041g"), "t\\U000e0041g");
  for (std::uint32_t c : {0xadu, 0x34fu, 0x115fu, 0x180eu, 0x200bu, 0x200cu, 0x200du, 0x2060u, 0x2062u,
                          0x3164u, 0xfe0fu, 0xfeffu, 0xfff9u, 0x1d173u, 0xe0041u}) {
    EXPECT_TRUE(is_invisible_control(c)) << std::hex << c;
  }
  for (std::uint32_t c : {0xaeu, 0x350u, 0x3163u, 0xfe10u, 0xfffcu, 0x1f600u, 0xe1000u}) {
    EXPECT_FALSE(is_invisible_control(c)) << std::hex << c;
  }
  // JSON: a surrogate pair above the BMP, the same string to a reader.
  const std::string raw = "t\U000E0041g\u200b";
  const std::string text = dump_json(nlohmann::json(raw), -1);
  EXPECT_EQ(text, "\"t\\udb40\\udc41g\\u200b\"");
  EXPECT_EQ(nlohmann::json::parse(text).get<std::string>(), raw);
}

}  // namespace
}  // namespace hsperfguard
