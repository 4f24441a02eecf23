// What a person reads: the text reports of the real binary on a scratch tree with planted
// problems. The format is the same wherever stdout goes (run_tool's stdout is a pipe, as in
// `hsperfguard audit | cat`); JSON only with --format json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "reap_test_support.hpp"

namespace hsperfguard {
namespace {

using reaptest::kNobody;
using reaptest::kNogroup;
using reaptest::ReapTree;
using test::run_tool;

bool is_json(const std::string& text) { return !nlohmann::json::parse(text, nullptr, false).is_discarded(); }

// nobody's namespace with a stale file.
struct PlantedTree : ReapTree {
  std::string ns = make_namespace("nobody", kNobody, kNogroup);
  std::string stale = stale_file(ns);
};

TEST(TextOutput, PipedAuditReapAndPsAreTextAndJsonOnlyWhenAsked) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  PlantedTree tree;
  const auto audit = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers"});
  EXPECT_FALSE(is_json(audit.out)) << audit.out;
  EXPECT_NE(audit.out.find("file.stale"), std::string::npos) << audit.out;
  EXPECT_NE(audit.out.find(tree.ns), std::string::npos) << audit.out;
  const auto reap = run_tool({"reap", "--dry-run", "--tmpdir", tree.tmp, "--no-containers", "--no-lock",
                              "--min-age", "0"});
  EXPECT_EQ(reap.exit_code, 0) << reap.err;
  EXPECT_FALSE(is_json(reap.out)) << reap.out;
  EXPECT_NE(reap.out.find("dry run"), std::string::npos) << reap.out;
  const auto ps = run_tool({"ps", "--all"});
  EXPECT_FALSE(is_json(ps.out)) << ps.out;
  EXPECT_EQ(ps.out.find("\"schema\""), std::string::npos) << ps.out;

  // --format json is JSON, whatever stdout is.
  const auto audit_json = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers", "--format", "json"});
  ASSERT_TRUE(is_json(audit_json.out)) << audit_json.out;
  EXPECT_EQ(nlohmann::json::parse(audit_json.out).at("schema"), "hsperfguard-report/3");
  const auto reap_json = run_tool({"reap", "--dry-run", "--tmpdir", tree.tmp, "--no-containers", "--no-lock",
                                   "--min-age", "0", "--format", "json"});
  ASSERT_TRUE(is_json(reap_json.out)) << reap_json.out;
  EXPECT_EQ(nlohmann::json::parse(reap_json.out).at("command"), "reap");
  const auto ps_json = run_tool({"ps", "--format", "json"});
  ASSERT_TRUE(is_json(ps_json.out)) << ps_json.out;
  EXPECT_EQ(nlohmann::json::parse(ps_json.out).at("schema"), "hsperfguard-ps/1");
}

// A report file gets the same format as stdout would: text unless --format json.
TEST(TextOutput, OutputFileIsTextUnlessJsonIsAsked) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  PlantedTree tree;
  const std::string text_file = tree.scratch / "report.txt";
  ASSERT_EQ(run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers", "--fail-on", "critical", "--output",
                      text_file}).exit_code, 0);
  const auto bytes = test::read_file(text_file);
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  EXPECT_FALSE(is_json(text)) << text;
  EXPECT_NE(text.find("file.stale"), std::string::npos) << text;
}

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// 500 stale files and a group-writable namespace: a few lines, the remedy names the real
// namespace and repair, the summary says why the run fails and what to run next.
TEST(TextOutput, AuditOfManyStaleFilesIsAFewActionableLines) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  for (int i = 0; i < 500; ++i) tree.stale_file(ns);
  const std::string writable = tree.make_namespace("daemon", 1, 1, 0775);
  const auto audit = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers"});
  EXPECT_EQ(audit.exit_code, 1) << audit.err;
  EXPECT_LT(lines_of(audit.out), 30u) << audit.out;
  EXPECT_TRUE(audit.out.find("file.stale (Backing file of a JVM that is gone): 500 files in " + ns +
                             ", the first 3 by name: ") != std::string::npos) << audit.out;
  // daemon's namespace: the command runs as daemon (uid 1, gid 1).
  EXPECT_NE(audit.out.find("`setpriv --reuid=1 --regid=1 --clear-groups -- chmod go-w " + writable + "`"),
            std::string::npos)
      << audit.out;
  EXPECT_NE(audit.out.find("or run: hsperfguard repair --tmpdir " + tree.tmp), std::string::npos) << audit.out;
  EXPECT_NE(audit.out.find("looked at; FAIL: 1 finding(s) at or above --fail-on medium (exit 1)\n"), std::string::npos)
      << audit.out;
  EXPECT_NE(audit.out.find("hsperfguard reap --dry-run --tmpdir " + tree.tmp), std::string::npos) << audit.out;
  const auto verbose = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers", "--verbose"});
  EXPECT_GT(lines_of(verbose.out), 1500u) << "each of the 500 with its evidence and fix";
  const auto clean = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers", "--fail-on", "critical"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_NE(clean.out.find("looked at; clean: no findings at or above critical (501 below it) (exit 0)\n"),
            std::string::npos) << clean.out;
}

// One thing is said one way in audit and reap text, in words, not the JSON's codes: a
// symlinked namespace, a name that is not a pid, a file younger than --min-age (with its age,
// which clock, and the threshold).
TEST(TextOutput, AuditAndReapSayAVerdictInTheSameWordsWithoutCodes) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  tree.plain_file(ns, "notapid");
  ASSERT_EQ(::symlink(tree.outside.c_str(), (tree.tmp + "/hsperfdata_daemon").c_str()), 0);
  const auto audit = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers"});
  EXPECT_NE(audit.out.find("hsperfdata_daemon is a symbolic link"), std::string::npos) << audit.out;
  const auto reap = run_tool({"reap", "--dry-run", "--tmpdir", tree.tmp, "--no-containers", "--no-lock",
                              "--min-age", "1h"});
  EXPECT_NE(reap.out.find("hsperfdata_daemon  left alone: it is a symbolic link, not a directory"),
            std::string::npos) << reap.out;
  EXPECT_NE(reap.out.find("notapid  foreign: the name is not a pid: no JVM writes it; skipped: changed "),
            std::string::npos) << reap.out;
  EXPECT_NE(reap.out.find(" s ago (the later of its mtime and ctime), younger than --min-age 3600.0 s"),
            std::string::npos) << reap.out;
  for (const char* code : {"NOT ACTIONABLE", "not-a-directory", "not-a-pid", "too-young", "(not-a-pid-name)"}) {
    EXPECT_EQ(reap.out.find(code), std::string::npos) << code << "\n" << reap.out;
    EXPECT_EQ(audit.out.find(code), std::string::npos) << code << "\n" << audit.out;
  }
}

// 500 stale files are one line of the reap's plan; --verbose lists each.
TEST(TextOutput, ReapPlanGroupsLikeItemsWithACount) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  for (int i = 0; i < 500; ++i) tree.stale_file(ns);
  const auto reap = run_tool({"reap", "--dry-run", "--tmpdir", tree.tmp, "--no-containers", "--no-lock",
                              "--min-age", "1h"});
  EXPECT_LT(lines_of(reap.out), 15u) << reap.out;
  EXPECT_NE(reap.out.find("    skip    500 files ("), std::string::npos) << reap.out;
  EXPECT_NE(reap.out.find("--verbose lists each)  stale, the first: pid "), std::string::npos) << reap.out;
  const auto verbose = run_tool({"reap", "--dry-run", "--tmpdir", tree.tmp, "--no-containers", "--no-lock",
                                 "--min-age", "1h", "--verbose"});
  EXPECT_GT(lines_of(verbose.out), 500u);
}

// What `hsperfguard args...` wrote to a pseudo-terminal `columns` wide as its stdout, with the
// environment changes `env` ("NAME=VALUE"; TERM is xterm and NO_COLOR unset unless they say
// otherwise), byte for byte (the terminal's CR before each LF included), how it ended, and
// what it wrote to its standard error (a pipe), which says why a run did not end as expected.
struct TerminalRun {
  int exit_code = -1;  // the tool's; -1: the terminal's driver did not say (python's stderr in `err`)
  std::string out;
  std::string err;
};

TerminalRun run_on_a_terminal(const std::vector<std::string>& env, const std::vector<std::string>& args,
                              unsigned columns = 80) {
  // tests/support/stdout_driver.py: "exit=N\n" and the bytes read, the tool's stderr on its own.
  std::vector<std::string> argv = {"python3", test::source_path("tests/support/stdout_driver.py"), "terminal"};
  std::string joined;
  for (const auto& e : env) joined += (joined.empty() ? "" : "\n") + e;
  argv.push_back(joined);
  argv.push_back(std::to_string(columns));
  argv.push_back(test::tool_path());
  argv.insert(argv.end(), args.begin(), args.end());
  const auto ran = test::run(argv);
  TerminalRun result;
  result.err = ran.err;
  const auto newline = ran.out.find('\n');
  if (ran.exit_code == 0 && ran.out.starts_with("exit=") && newline != std::string::npos) {
    result.exit_code = std::stoi(ran.out.substr(5, newline - 5));
    result.out = ran.out.substr(newline + 1);
  } else {
    result.err += "\n(the terminal's driver exited " + std::to_string(ran.exit_code) + ")";
  }
  return result;
}

std::string output_on_a_terminal(const std::vector<std::string>& env, const std::vector<std::string>& args,
                                 unsigned columns = 80) {
  return run_on_a_terminal(env, args, columns).out;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// How a run on a terminal ended, and how many ANSI escapes (ESC [) and lines it wrote there;
// `said` is a failure's message: "exit=E escapes=N lines=M", what the tool wrote to its
// standard error, then the first lines of what it wrote on the terminal (a CI log keeps a
// failed test's first lines: a whole JSON report there hid the exit status and the error).
struct Escapes {
  int exit_code = -1;
  std::size_t escapes = 0;
  std::size_t lines = 0;
  std::string said;
};

Escapes escapes_on_a_terminal(const std::vector<std::string>& env, const std::vector<std::string>& args) {
  const TerminalRun run = run_on_a_terminal(env, args);
  Escapes result;
  result.exit_code = run.exit_code;
  result.escapes = count_of(run.out, "\x1b[");
  result.lines = lines_of(run.out);
  std::size_t end = 0;  // just past the 12th line, or the end
  for (int n = 0; n < 12 && end < run.out.size(); ++n) {
    const auto newline = run.out.find('\n', end);
    end = newline == std::string::npos ? run.out.size() : newline + 1;
  }
  result.said = "exit=" + std::to_string(run.exit_code) + " escapes=" + std::to_string(result.escapes) +
                " lines=" + std::to_string(result.lines) + "\nstandard error: " + run.err +
                "\non the terminal:\n" + run.out.substr(0, end) + (end < run.out.size() ? "[...]\n" : "");
  return result;
}

TEST(TextOutput, ColourOnATerminalOnlyAndNeverWithNoColorNeverOrAPipe) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  ReapTree tree;
  tree.make_namespace("daemon", 1, 1, 0775);  // high: group-writable
  const std::vector<std::string> audit = {"audit", "--tmpdir", tree.tmp, "--no-containers"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = audit;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  // Every run is the audit of one high finding, so each ends with exit 1 and writes its lines;
  // only the colour differs.
  const auto uncoloured = [](const Escapes& run) { return run.exit_code == 1 && run.lines > 0 && run.escapes == 0; };
  const auto coloured = [](const Escapes& run) { return run.exit_code == 1 && run.lines > 0 && run.escapes > 0; };
  const Escapes terminal = escapes_on_a_terminal({}, audit);
  EXPECT_TRUE(coloured(terminal)) << terminal.said;
  for (const auto& [env, args] : std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>{
           {{"NO_COLOR=1"}, audit},
           {{"TERM=dumb"}, audit},
           {{}, with({"--color", "never"})},
           {{}, with({"--format", "json"})}}) {
    const Escapes run = escapes_on_a_terminal(env, args);
    EXPECT_TRUE(uncoloured(run)) << run.said;
  }
  // An empty NO_COLOR does not count (no-color.org); --color always colours a pipe too.
  const Escapes empty_no_color = escapes_on_a_terminal({"NO_COLOR="}, audit);
  EXPECT_TRUE(coloured(empty_no_color)) << empty_no_color.said;
  const auto piped = run_tool(audit);
  EXPECT_EQ(piped.out.find("\033["), std::string::npos) << piped.out;
  const auto forced = run_tool(with({"--color", "always"}));
  EXPECT_NE(forced.out.find("\033[1;31mhigh\033[0m"), std::string::npos) << forced.out;
  const std::string file = tree.scratch / "report.txt";
  ASSERT_EQ(run_tool(with({"--color", "always", "--output", file})).exit_code, 1);
  const auto bytes = test::read_file(file);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()).find("\033["), std::string::npos)
      << "never in a file";
}

// A terminal or pipe that another program sharing it made non-blocking (O_NONBLOCK is the
// file description's, shared by all who hold it): the audit's report, far more than the
// reader takes at once, came out cut (276 of 1,163 lines) and the run said it was incomplete
// (exit 3). Now the writer waits for the reader: the whole report and exit 1. A stop signal
// still ends a write that waits on a reader that never reads: exit 3, at once.
TEST(TextOutput, ANonBlockingTerminalOrPipeGetsTheWholeReportAndAStopStillEndsTheWait) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  for (int i = 0; i < 200; ++i) tree.stale_file(ns);
  tree.make_namespace("daemon", 1, 1, 0775);  // high: the audit's verdict is exit 1
  // tests/support/stdout_driver.py: the tool's stdout made non-blocking and read after a
  // second (pty, pipe), or never read and SIGTERM after a second (stalled).
  const std::string driver = test::source_path("tests/support/stdout_driver.py");
  const std::vector<std::string> audit = {test::tool_path(), "audit", "--tmpdir", tree.tmp, "--no-containers",
                                          "--format", "json"};
  for (const char* mode : {"pty", "pipe"}) {
    std::vector<std::string> argv = {"python3", driver, "nonblocking", mode};
    argv.insert(argv.end(), audit.begin(), audit.end());
    const auto ran = test::run(argv);
    EXPECT_NE(ran.out.find("exit=1 json=whole"), std::string::npos) << mode << ": " << ran.out << ran.err;
    const auto bytes = ran.out.find("bytes=");
    ASSERT_NE(bytes, std::string::npos) << ran.out << ran.err;
    EXPECT_GT(std::stoul(ran.out.substr(bytes + 6)), 200'000u) << "far more than a pipe holds (64 KiB)";
  }
  std::vector<std::string> argv = {"python3", driver, "stalled"};
  argv.insert(argv.end(), audit.begin(), audit.end());
  const auto stalled = test::run(argv);
  EXPECT_NE(stalled.out.find("exit=3 "), std::string::npos) << stalled.out << stalled.err;
  const auto seconds = stalled.out.find("seconds=");
  ASSERT_NE(seconds, std::string::npos) << stalled.out << stalled.err;
  EXPECT_LT(std::stod(stalled.out.substr(seconds + 8)), 2.0) << "from SIGTERM to the end";
}

// On a terminal no line of inspect is wider than the terminal: a region's command line padded
// to the width and followed by a forged header ("user:    root (uid 0)") wrapped into a line
// of its own (found by an outside review). Piped, the line is whole.
TEST(TextOutput, InspectOnATerminalWrapsNoLineIntoALineOfItsOwn) {
  test::ScratchDir dir;
  const std::string forged = "com.example.App" + std::string(300, ' ') + "user:    root (uid 0)" +
                             std::string(60, 'x') + "file:    /tmp/hsperfdata_root/1";
  const auto made = run_tool({"create", "--user", test::is_root() ? "root" : std::to_string(::geteuid()),
                              "--tmpdir", dir.path(), "--pid", "4242", "--command", forged});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string file = dir.path() + "/hsperfdata_" + (test::is_root() ? std::string("root") : std::to_string(::geteuid())) + "/4242";
  for (const char* format : {"text", "snap"}) {
    const std::string out = output_on_a_terminal({}, {"inspect", "--format", format, file}, 80);
    std::size_t widest = 0, width = 0;
    for (const char c : out) {
      if (c == '\r') continue;
      if (c == '\n') {
        widest = std::max(widest, width);
        width = 0;
        continue;
      }
      if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++width;  // a code point: a column
    }
    widest = std::max(widest, width);
    EXPECT_LE(widest, 80u) << format << ": " << out;
    EXPECT_NE(count_of(out, ">\r\n"), 0u) << format << ": the cut lines say so\n" << out;
  }
  const auto piped = run_tool({"inspect", file});
  EXPECT_NE(piped.out.find("user:    root (uid 0)" + std::string(60, 'x')), std::string::npos) << "whole in a pipe";
}

// Links planted as a namespace and as an entry of one: the observation reads where each points
// (never following it), the JSON evidence gives it as "target", and --verbose shows the
// evidence as "key: value" lines.
TEST(TextOutput, PlantedLinksNameTheirTargetInTheEvidence) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of another user)";
  PlantedTree tree;
  ASSERT_EQ(::symlink("/etc/passwd", (tree.ns + "/4343").c_str()), 0);
  ASSERT_EQ(::symlink(tree.outside.c_str(), (tree.tmp + "/hsperfdata_daemon").c_str()), 0);
  const auto json = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers", "--format", "json"});
  ASSERT_TRUE(is_json(json.out)) << json.out;
  const std::string compact = nlohmann::json::parse(json.out).dump();
  EXPECT_NE(compact.find("\"name\":\"4343\",\"target\":\"/etc/passwd\"}"), std::string::npos) << json.out;
  EXPECT_NE(compact.find("\"name\":\"hsperfdata_daemon\",\"target\":\"" + tree.outside + "\""), std::string::npos)
      << json.out;
  const auto verbose = run_tool({"audit", "--tmpdir", tree.tmp, "--no-containers", "--verbose"});
  EXPECT_NE(verbose.out.find("        evidence:\n"), std::string::npos) << verbose.out;
  EXPECT_NE(verbose.out.find("\n          target: /etc/passwd\n"), std::string::npos) << verbose.out;
  EXPECT_NE(verbose.out.find("\n            kind: symlink\n"), std::string::npos) << verbose.out;
  EXPECT_EQ(verbose.out.find("evidence: {"), std::string::npos) << verbose.out;
}

}  // namespace
}  // namespace hsperfguard
