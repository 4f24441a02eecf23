// The text for people: remedies that name the real path, the text audit report (grouping,
// the repair hint, the summary) and the words of a verdict. Pure: hand-built facts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "model/rule_catalog.hpp"
#include "model/shell_word.hpp"
#include "report/audit_report_text.hpp"

namespace hsperfguard {
namespace {

std::string remedy(const char* rule, const std::string& path) {
  const RuleInfo* info = find_rule(rule);
  EXPECT_NE(info, nullptr) << rule;
  return info == nullptr ? std::string() : remediation_for(*info, path);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RemediationFor, NamesTheNamespaceAndItsUserWhereTheCatalogueHasPlaceholders) {
  const std::string writable = remedy("namespace.group-other-writable", "/srv/t/hsperfdata_bob");
  EXPECT_TRUE(has(writable, "`chmod go-w " + shell_word("/srv/t/hsperfdata_bob") + "`")) << writable;
  EXPECT_FALSE(has(writable, "<user>")) << writable;
  const std::string symlink = remedy("namespace.symlink", "/tmp/hsperfdata_bob");
  EXPECT_TRUE(has(symlink, "`unlink " + shell_word("/tmp/hsperfdata_bob") + "`")) << symlink;
  const std::string owner = remedy("namespace.owner-mismatch", "/tmp/hsperfdata_bob");
  EXPECT_TRUE(has(owner, "hsperfguard create --user " + shell_word("bob") + "`")) << owner;
  const std::string mode = remedy("file.mode", "/tmp/hsperfdata_bob/4242");
  EXPECT_TRUE(has(mode, "`chmod 0600 " + shell_word("/tmp/hsperfdata_bob/4242") + "`")) << mode;
  // Windows paths are quoted for the shell of the build (PowerShell on Windows, a POSIX shell
  // elsewhere): single quotes either way, never double quotes.
  const std::string dacl = remedy("dacl.owner", "C:\\Temp\\hsperfdata_bob");
  EXPECT_TRUE(has(dacl, "icacls 'C:\\Temp\\hsperfdata_bob' /setowner " + shell_word("bob"))) << dacl;
  const std::string compressed = remedy("file.compressed", "C:\\Temp\\hsperfdata_bob\\12");
  EXPECT_TRUE(has(compressed, "compact /u /s:'C:\\Temp\\hsperfdata_bob'")) << compressed;
}

// A name from the file system is one word of the command, whatever it holds.
TEST(RemediationFor, QuotesAPathThatAShellWouldSplitOrExpand) {
  const std::string spaced = remedy("file.mode", "/tmp/hsperfdata_bob/it's $(x)");
#ifdef _WIN32
  EXPECT_TRUE(has(spaced, "`chmod 0600 '/tmp/hsperfdata_bob/it''s $(x)'`")) << spaced;
#else
  EXPECT_TRUE(has(spaced, "`chmod 0600 '/tmp/hsperfdata_bob/it'\\''s $(x)'`")) << spaced;
#endif
  const std::string windows = remedy("dacl.admins-missing", "C:\\Users\\A B\\Temp\\hsperfdata_ab");
  EXPECT_TRUE(has(windows, "icacls 'C:\\Users\\A B\\Temp\\hsperfdata_ab' /grant")) << windows;
  EXPECT_FALSE(has(windows, "\"")) << windows;
#ifndef _WIN32
  // A byte that is not UTF-8 is written as an escape the shell turns back into that byte.
  const std::string bytes = remedy("file.mode", std::string("/tmp/hsperfdata_bob/\xff"));
  EXPECT_TRUE(has(bytes, "`chmod 0600 $'/tmp/hsperfdata_bob/\\xff'`")) << bytes;
  // The user name of a namespace is a word too: never in double quotes, where $(...) runs.
  const std::string owner = remedy("namespace.owner-mismatch", "/tmp/hsperfdata_x$(id>PWNED)\\y");
  EXPECT_TRUE(has(owner, "`hsperfguard create --user 'x$(id>PWNED)\\y'`")) << owner;
  const std::string dash = remedy("namespace.owner-mismatch", "/tmp/hsperfdata_-rf");
  EXPECT_TRUE(has(dash, "`hsperfguard create --user=-rf`")) << dash;
#endif
}

// Placeholders the path does not give are left for the reader.
TEST(RemediationFor, KeepsAPlaceholderThePathDoesNotGive) {
  const std::string unobserved = remedy("tmpdir.containers-unobserved", "/tmp");
  EXPECT_TRUE(has(unobserved, "/proc/<pid>/ns")) << unobserved;
  const std::string no_namespace = remedy("namespace.group-other-writable", "/srv/elsewhere");
  EXPECT_TRUE(has(no_namespace, "/tmp/hsperfdata_<user>")) << no_namespace;
}

// ---- the text audit report --------------------------------------------------------------------

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

Finding finding(const char* rule, const std::string& path, const std::string& message) {
  const RuleInfo* info = find_rule(rule);
  Finding f;
  f.rule = rule;
  f.path = path;
  f.message = message;
  f.evidence = {{"observed", path}};
  if (info != nullptr) {
    f.severity = info->severity;
    f.remediation = remediation_for(*info, path);
    f.repairable = info->repairable;  // what repair decides for these hand-built namespaces
  }
  return f;
}

// A temp dir /scratch/tmp named by --tmpdir, with bob's namespace holding `files` files named
// 1000, 1001, ..., each with a file.stale finding.
AuditResult stale_files_result(std::size_t files) {
  AuditResult result;
  TempRootFacts root;
  root.kind = RootKind::tmpdir;
  root.root = "/";
  root.temp_dir = "/scratch/tmp";
  NamespaceFacts ns;
  ns.name = "hsperfdata_bob";
  ns.user_suffix = "bob";
  ns.path = "/scratch/tmp/hsperfdata_bob";
  NamespaceJudgement nj;
  for (std::size_t i = 0; i < files; ++i) {
    FileFacts file;
    file.name = std::to_string(1000 + i);
    file.path = ns.path + "/" + file.name;
    FileJudgement fj;
    fj.findings.push_back(finding("file.stale", file.path, "pid " + file.name + " no longer exists"));
    ns.files.push_back(std::move(file));
    nj.files.push_back(std::move(fj));
  }
  root.namespaces.push_back(std::move(ns));
  RootJudgement rj;
  rj.namespaces.push_back(std::move(nj));
  result.roots.push_back(std::move(root));
  result.judgements.push_back(std::move(rj));
  return result;
}

ReportContext context_failing_at(Severity fail_on) {
  ReportContext context;
  context.fail_on = fail_on;
  return context;
}

TEST(TextReport, RepeatedFileFindingsAreOneEntryWithACountAndTheFirstNames) {
  const std::string text = audit_report_text(stale_files_result(5000), context_failing_at(Severity::medium));
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 30) << text;
  EXPECT_TRUE(has(text, "file.stale (Backing file of a JVM that is gone): 5000 files, the first 3: 1000, 1001, 1002"))
      << text;
  EXPECT_EQ(count_of(text, "fix: Run `hsperfguard reap`"), 1u) << text;
  EXPECT_FALSE(has(text, "evidence:")) << text;

  TextOptions verbose;
  verbose.verbose = true;
  const std::string every = audit_report_text(stale_files_result(5000), context_failing_at(Severity::medium), verbose);
  EXPECT_EQ(count_of(every, "evidence: {\"observed\":\"/scratch/tmp/hsperfdata_bob/"), 5000u);
  EXPECT_TRUE(has(every, "[low] file.stale 5999: pid 5999 no longer exists")) << every.substr(every.size() - 2000);
}

TEST(TextReport, HeaderNamesTheTempDirPlainly) {
  const std::string text = audit_report_text(stale_files_result(1), context_failing_at(Severity::medium));
  EXPECT_EQ(text.rfind("temp dir /scratch/tmp (named by --tmpdir)\n", 0), 0u) << text;
  EXPECT_FALSE(has(text, "(tmpdir /)")) << text;
}

// Below --fail-on only: the run reads as clean, and says what is below.
TEST(TextReport, SummaryOfARunWithoutFailingFindingsReadsClean) {
  TextOptions options;
  options.scope = " --tmpdir /scratch/tmp";
  const std::string text = audit_report_text(stale_files_result(2), context_failing_at(Severity::medium), options);
  EXPECT_TRUE(has(text, "; clean: no findings at or above medium (2 below it) (exit 0)\n")) << text;
  EXPECT_FALSE(has(text, "FAIL")) << text;
  EXPECT_FALSE(has(text, "failing at")) << text;
  EXPECT_TRUE(has(text, "findings  2 finding(s): 2 low")) << text;
  EXPECT_TRUE(has(text, "hsperfguard audit --verbose --tmpdir /scratch/tmp")) << text;
  // Files without a stat or liveness evidence are ones the reaper keeps (unknown): the next
  // line counts by the reap planner, not by the findings (CommandSeam tests it on full facts).
  EXPECT_FALSE(has(text, "hsperfguard reap --dry-run")) << text;
  EXPECT_FALSE(has(text, "hsperfguard repair")) << "file.stale is not repairable\n" << text;
}

// A repairable finding at or above --fail-on: the run fails, says why, names repair on the
// finding and in what to run next; a finding repair cannot fix does not name it.
TEST(TextReport, FailingRunSaysWhyAndNamesRepairWhereItApplies) {
  AuditResult result = stale_files_result(0);
  result.judgements[0].namespaces[0].findings = {
      finding("namespace.group-other-writable", "/scratch/tmp/hsperfdata_bob", "writable by its group"),
      finding("namespace.owner-mismatch", "/scratch/tmp/hsperfdata_bob", "owned by uid 7")};
  TextOptions options;
  options.scope = " --tmpdir /scratch/tmp";
  const std::string text = audit_report_text(result, context_failing_at(Severity::medium), options);
  EXPECT_TRUE(has(text, "looked at; FAIL: 2 finding(s) at or above --fail-on medium (exit 1)\n")) << text;
  EXPECT_EQ(count_of(text, "or run: hsperfguard repair --tmpdir /scratch/tmp (it fixes this finding)"), 1u) << text;
  EXPECT_TRUE(has(text, "`chmod go-w " + shell_word("/scratch/tmp/hsperfdata_bob") + "`")) << text;
  EXPECT_TRUE(has(text, "hsperfguard create --user " + shell_word("bob") + "`")) << text;
  EXPECT_TRUE(has(text, "next      hsperfguard repair --dry-run --tmpdir /scratch/tmp")) << text;
  EXPECT_TRUE(has(text, "hsperfguard rules show namespace.")) << text;
}

// What JSON counts as an error, text shows: a file that could not be read, and the total.
TEST(TextReport, FileErrorsAreShownAndCountedInTheSummary) {
  AuditResult result = stale_files_result(1);
  result.roots[0].namespaces[0].files[0].errors.push_back(
      ObservationError{"/scratch/tmp/hsperfdata_bob/1000", "openat", 13, "Permission denied"});
  const std::string text = audit_report_text(result, context_failing_at(Severity::medium));
  EXPECT_TRUE(has(text, "    error: 1000: openat: Permission denied\n")) << text;
  EXPECT_TRUE(has(text, "errors    1 (what could not be observed); the first: /scratch/tmp/hsperfdata_bob/1000: "
                        "openat: Permission denied")) << text;
}

TEST(TextReport, ColourOnlyWhenAsked) {
  AuditResult result = stale_files_result(1);
  result.judgements[0].namespaces[0].findings = {
      finding("namespace.symlink", "/scratch/tmp/hsperfdata_bob", "a symbolic link")};
  const std::string plain = audit_report_text(result, context_failing_at(Severity::medium));
  EXPECT_FALSE(has(plain, "\033[")) << plain;
  TextOptions color;
  color.color = true;
  const std::string colored = audit_report_text(result, context_failing_at(Severity::medium), color);
  EXPECT_TRUE(has(colored, "[\033[1;31mhigh\033[0m] namespace.symlink")) << colored;
  EXPECT_TRUE(has(colored, "[\033[2mlow\033[0m] file.stale")) << colored;
  EXPECT_TRUE(has(colored, "\033[1mtemp dir /scratch/tmp\033[0m")) << colored;
}

}  // namespace
}  // namespace hsperfguard
