// The text for people: remedies that name the real path, the text audit report (grouping,
// the repair hint, the summary) and the words of a verdict. Pure: hand-built facts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "decide/remedy.hpp"
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
  EXPECT_TRUE(has(text, "file.stale (Backing file of a JVM that is gone): 5000 files in /scratch/tmp/hsperfdata_bob, "
                        "the first 3 by name: 1000, 1001, 1002"))
      << text;
  EXPECT_EQ(count_of(text, "fix: Run `hsperfguard reap`"), 1u) << text;
  EXPECT_FALSE(has(text, "evidence:")) << text;

  TextOptions verbose;
  verbose.verbose = true;
  const std::string every = audit_report_text(stale_files_result(5000), context_failing_at(Severity::medium), verbose);
  EXPECT_EQ(count_of(every, "evidence:\n          observed: /scratch/tmp/hsperfdata_bob/"), 5000u);
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
  EXPECT_TRUE(has(text, "  error: /scratch/tmp/hsperfdata_bob/1000: openat: Permission denied\n")) << text;
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


// ---- worst first, one remedy for many, one group whatever the parts ---------------------------

NamespaceFacts namespace_named(const std::string& user) {
  NamespaceFacts ns;
  ns.name = "hsperfdata_" + user;
  ns.user_suffix = user;
  ns.path = "/scratch/tmp/" + ns.name;
  return ns;
}

// A temp dir of the given namespaces, each with the findings `judge` gives it.
template <typename Judge>
AuditResult result_of(const std::vector<std::string>& users, const Judge& judge) {
  AuditResult result;
  TempRootFacts root;
  root.kind = RootKind::tmpdir;
  root.root = "/";
  root.temp_dir = "/scratch/tmp";
  RootJudgement rj;
  for (std::size_t n = 0; n < users.size(); ++n) {
    NamespaceFacts ns = namespace_named(users[n]);
    NamespaceJudgement nj;
    judge(n, ns, nj);
    root.namespaces.push_back(std::move(ns));
    rj.namespaces.push_back(std::move(nj));
  }
  result.roots.push_back(std::move(root));
  result.judgements.push_back(std::move(rj));
  return result;
}

void add_file(NamespaceFacts& ns, NamespaceJudgement& nj, const std::string& name, const char* rule,
              const std::string& message) {
  FileFacts file;
  file.name = name;
  file.path = ns.path + "/" + name;
  FileJudgement fj;
  fj.findings.push_back(finding(rule, file.path, message));
  ns.files.push_back(std::move(file));
  nj.files.push_back(std::move(fj));
}

// In name order the low finding (aaa's) comes first, the high one (zzz's) last; the page
// shows the high one first, then medium, then low, and findings of one severity by rule.
TEST(TextReport, FindingsComeWorstFirstWhateverTheNames) {
  const AuditResult result = result_of({"aaa", "mmm", "zzz"}, [](std::size_t n, NamespaceFacts& ns,
                                                                 NamespaceJudgement& nj) {
    if (n == 0) add_file(ns, nj, "1000", "file.stale", "pid 1000 no longer exists");
    if (n == 1) nj.findings.push_back(finding("namespace.unknown-user", ns.path, "names no known user"));
    if (n == 2) {
      add_file(ns, nj, "1001", "file.symlink", "a symbolic link");
      nj.findings.push_back(finding("namespace.group-other-writable", ns.path, "writable by others"));
    }
  });
  for (const bool verbose : {false, true}) {
    TextOptions options;
    options.verbose = verbose;
    const std::string text = audit_report_text(result, context_failing_at(Severity::medium), options);
    const std::size_t high_rule_a = text.find("[high] file.symlink");
    const std::size_t high_rule_b = text.find("[high] namespace.group-other-writable");
    const std::size_t medium = text.find("[medium] namespace.unknown-user");
    const std::size_t low = text.find("[low] file.stale");
    ASSERT_NE(low, std::string::npos) << text;
    if (verbose) {
      // Under --verbose each namespace is listed as it comes, its own findings worst first.
      EXPECT_LT(text.find("hsperfdata_aaa"), text.find("hsperfdata_zzz")) << text;
      EXPECT_LT(high_rule_a, high_rule_b) << text;
      continue;
    }
    EXPECT_LT(high_rule_a, high_rule_b) << text;
    EXPECT_LT(high_rule_b, medium) << text;
    EXPECT_LT(medium, low) << text;
    // A single finding names its subject.
    EXPECT_TRUE(has(text, "  [low] file.stale /scratch/tmp/hsperfdata_aaa/1000: pid 1000 no longer exists\n")) << text;
    EXPECT_TRUE(has(text, "  3 namespace(s) in /scratch/tmp, 3 with findings or errors\n")) << text;
  }
}

// 150 namespaces with one problem are one entry with one remedy, whose path and owner are
// the catalogue's placeholders; a name a shell would split is still recognised as the path.
TEST(TextReport, OneRemedyForManyNamespacesWithTheSameProblem) {
  std::vector<std::string> users;
  for (int i = 0; i < 149; ++i) users.push_back("u" + std::to_string(1000 + i));
  users.push_back("it's me");
  const AuditResult result = result_of(users, [](std::size_t n, NamespaceFacts& ns, NamespaceJudgement& nj) {
    Finding f = finding("namespace.group-other-writable", ns.path, "writable by group and others");
    const auto id = static_cast<std::uint32_t>(2000 + n);
    f.remediation = run_as_owner(f.remediation, id, id);
    nj.findings.push_back(std::move(f));
  });
  const std::string single = result.judgements[0].namespaces[149].findings[0].remediation;
  ASSERT_TRUE(has(single, "setpriv --reuid=2149 --regid=2149 --clear-groups -- chmod go-w " +
                              shell_word("/scratch/tmp/hsperfdata_it's me") + "`")) << single;
  TextOptions options;
  options.scope = " --tmpdir /scratch/tmp";
  const std::string text = audit_report_text(result, context_failing_at(Severity::medium), options);
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 20) << text;
  EXPECT_EQ(count_of(text, "] namespace.group-other-writable"), 1u) << text;
  EXPECT_TRUE(has(text, "[high] namespace.group-other-writable (Namespace is writable by group or others): "
                        "150 namespaces, the first 3 by name: /scratch/tmp/hsperfdata_it's me, "
                        "/scratch/tmp/hsperfdata_u1000, /scratch/tmp/hsperfdata_u1001 (--verbose lists each"))
      << text;
  EXPECT_TRUE(has(text, "fix, for each of the 150 (<path> its path, <uid> its owner's uid, <gid> its owner's gid): "
                        "Remove the write bits: `setpriv --reuid=<uid> --regid=<gid> --clear-groups -- chmod go-w "
                        "<path>`")) << text;
  EXPECT_TRUE(has(text, "or run: hsperfguard repair --tmpdir /scratch/tmp (it fixes these 150 findings)")) << text;
  EXPECT_FALSE(has(text, "2001")) << "no one namespace's owner in the remedy for all\n" << text;

  // Two of them: still one entry; one alone: its own remedy, every name one shell word.
  const AuditResult one = result_of({"it's me"}, [](std::size_t, NamespaceFacts& ns, NamespaceJudgement& nj) {
    Finding f = finding("namespace.group-other-writable", ns.path, "writable by group and others");
    f.remediation = run_as_owner(f.remediation, 7, 7);
    nj.findings.push_back(std::move(f));
  });
  const std::string alone = audit_report_text(one, context_failing_at(Severity::medium));
  EXPECT_TRUE(has(alone, "`setpriv --reuid=7 --regid=7 --clear-groups -- chmod go-w " +
                             shell_word("/scratch/tmp/hsperfdata_it's me") + "`")) << alone;
}

// The shape of a remedy puts back only the words that name the subject: the user's name is
// replaced inside a command, never in the prose around it.
TEST(TextReport, RemedyShapeReplacesOnlyTheSubjectsWords) {
  EXPECT_EQ(remedy_shape("run `hsperfguard create " + shell_option("--user", "root") + "` as root",
                         "/tmp/hsperfdata_root", "/tmp/hsperfdata_root", "root"),
            "run `hsperfguard create --user <user>` as root");
  const std::string file = shell_word("/t/hsperfdata_a/12");
  const std::string ns = shell_word("/t/hsperfdata_a");
  EXPECT_EQ(remedy_shape("`chmod 0600 " + file + "`; then look in " + ns + ".", "/t/hsperfdata_a/12",
                         "/t/hsperfdata_a", "a"),
            "`chmod 0600 <path>`; then look in <namespace>.");
  // A longer name that begins with the path is another name.
  EXPECT_EQ(remedy_shape("`rm /t/hsperfdata_a/12.bak`", "/t/hsperfdata_a/12", "/t/hsperfdata_a", "a"),
            "`rm /t/hsperfdata_a/12.bak`");
  // A quoted word is the path it quotes, whatever it holds.
  EXPECT_EQ(remedy_shape("`unlink " + shell_word("/t/hsperfdata_a/it's $(x)") + "`", "/t/hsperfdata_a/it's $(x)",
                         "/t/hsperfdata_a", "a"),
            "`unlink <path>`");
}

// A namespace observed in two parts (4096 files, then 904) is one entry of 5000 files; the
// digest keeps the first names, never the findings.
TEST(TextReport, ALargeNamespaceInPartsIsOneGroupPerRule) {
  const AuditResult whole = stale_files_result(5000);
  const NamespaceFacts& all = whole.roots[0].namespaces[0];
  const NamespaceJudgement& judged = whole.judgements[0].namespaces[0];
  TextDigest digest;
  for (std::size_t part = 0; part < 2; ++part) {
    NamespaceFacts ns = all;
    NamespaceJudgement nj;
    const std::size_t from = part == 0 ? 0 : 4096;
    const std::size_t to = part == 0 ? 4096 : 5000;
    ns.files.assign(all.files.begin() + static_cast<std::ptrdiff_t>(from), all.files.begin() + static_cast<std::ptrdiff_t>(to));
    nj.files.assign(judged.files.begin() + static_cast<std::ptrdiff_t>(from), judged.files.begin() + static_cast<std::ptrdiff_t>(to));
    ns.part = part;
    ns.more_parts = part == 0;
    TextDigest staged;
    staged.add_namespace(ns, nj);
    digest.merge(std::move(staged));
  }
  EXPECT_EQ(digest.namespaces_flagged(), 1u);
  const std::string text = audit_root_closing_text(whole.roots[0], whole.judgements[0], 1, {}, std::move(digest));
  EXPECT_EQ(count_of(text, "file.stale"), 1u) << text;
  EXPECT_TRUE(has(text, "5000 files in /scratch/tmp/hsperfdata_bob, the first 3 by name: 1000, 1001, 1002")) << text;
  EXPECT_FALSE(has(text, "continued")) << text;
  EXPECT_TRUE(has(text, "  1 namespace(s) in /scratch/tmp, 1 with findings or errors\n")) << text;
}

// --verbose evidence is "key: value" lines, nested values indented, a value quoted only when
// it is not plain.
TEST(TextReport, VerboseEvidenceIsReadableLines) {
  std::string out;
  append_evidence_lines(out,
                        {{"name", "19999"},
                         {"target", "/etc/passwd"},
                         {"why", "two words"},
                         {"pids", {22, 23}},
                         {"lstat", {{"kind", "symlink"}, {"mode", "0777"}}},
                         {"empty", ""},
                         {"flag", true},
                         {"errors", nlohmann::json::array({{{"op", "openat"}}})}},
                        "  ");
  EXPECT_EQ(out,
            "  empty: \"\"\n"
            "  errors:\n"
            "    -\n"
            "      op: openat\n"
            "  flag: true\n"
            "  lstat:\n"
            "    kind: symlink\n"
            "    mode: 0777\n"
            "  name: 19999\n"
            "  pids: [22, 23]\n"
            "  target: /etc/passwd\n"
            "  why: \"two words\"\n");
  // A control character in a value never reaches the terminal raw.
  std::string hostile;
  append_evidence_lines(hostile, {{"target", "/tmp/\x1b[2Jx"}}, "");
  EXPECT_FALSE(has(hostile, "\x1b")) << hostile;
}

// Each kind of temp dir says whose it is, in the opening line of its part of the report and in
// reap's: a service account's and a JVM's TMP are told apart, and an account's name is given
// where it is known.
TEST(TextReport, EachKindOfTempDirSaysWhoseItIs) {
  auto root_of = [](RootKind kind) {
    TempRootFacts root;
    root.kind = kind;
    root.root = "/";
    root.temp_dir = "/tmp";
    return root;
  };
  TempRootFacts service = root_of(RootKind::account_temp_dir);
  service.account = TempDirAccount{"LOCAL SERVICE", std::nullopt};
  TempRootFacts tmp_of_jvm = root_of(RootKind::account_temp_dir);
  tmp_of_jvm.account = TempDirAccount{"svc", 4242};
  TempRootFacts alt = root_of(RootKind::alt_temp_dir);
  alt.alt_temp_dir_pid = 77;
  TempRootFacts container = root_of(RootKind::container);
  container.container = ContainerFacts{};
  container.container->host_pid = 900;
  TempRootFacts system_root = root_of(RootKind::root);
  system_root.root = "/mnt/sys";
  const std::vector<std::pair<TempRootFacts, std::string>> cases = {
      {root_of(RootKind::host), "this host's"},
      {root_of(RootKind::tmpdir), "named by --tmpdir"},
      {alt, "named by -XX:AltTempDir of JVM pid 77"},
      {root_of(RootKind::alt_temp_dir), "named by a JVM's -XX:AltTempDir"},
      {service, "of account LOCAL SERVICE, a service account"},
      {tmp_of_jvm, "of account svc, named by the TMP of JVM pid 4242"},
      {root_of(RootKind::account_temp_dir), "another account's"},
      {system_root, "of the system root /mnt/sys, named by --root"},
      {container, "a container's, host pid 900"},
      {root_of(RootKind::container), "a container's"},
  };
  for (const auto& [root, whose] : cases) {
    EXPECT_EQ(temp_dir_whose(root), whose);
    EXPECT_EQ(audit_root_opening_text(root), "temp dir /tmp (" + whose + ")\n");
  }
}

}  // namespace
}  // namespace hsperfguard
