// A reader that closes the tool's standard output early (`ps --all | head -2`, a pager quit):
// what only lists or shows ends quietly, exit 0, as rg, fd and jps do; an audit's or a reap's
// report cut is an incomplete run (exit 3), said on a standard error that is not a terminal
// (cron's mail, the journal) and not to the person at the terminal who typed `| head`; any
// other failure to write (a full disk) is said, exit 3, whatever printed. The pipe's read end
// is closed before the tool starts, so that its first write meets it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "reap_test_support.hpp"
#include "sandbox_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

// Runs the tool with `args`, its standard output a pipe whose reader is gone, its standard
// error a pipe (or a pseudo-terminal: `stderr_tty`); "rc=N" and what it said on stderr.
struct ClosedPipeRun {
  int rc = -1;
  std::string err;
};

ClosedPipeRun run_with_reader_gone(const std::vector<std::string>& args, bool stderr_tty = false) {
  std::vector<std::string> command = {"python3", "-c", R"PY(
import os, pty, subprocess, sys
r, w = os.pipe()
os.close(r)
if sys.argv[1] == "tty":
    master, slave = pty.openpty()
    p = subprocess.Popen(sys.argv[2:], stdout=w, stderr=slave)
    os.close(slave)
    p.wait()
    said = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        said += chunk
else:
    p = subprocess.run(sys.argv[2:], stdout=w, stderr=subprocess.PIPE)
    said = p.stderr
os.close(w)
sys.stdout.write("rc=%d\n" % p.returncode)
sys.stdout.write(said.decode("utf-8", "replace"))
)PY", stderr_tty ? "tty" : "pipe", test::tool_path()};
  command.insert(command.end(), args.begin(), args.end());
  const auto r = test::run(command);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ClosedPipeRun out;
  const auto newline = r.out.find('\n');
  if (r.out.starts_with("rc=") && newline != std::string::npos) {
    out.rc = std::stoi(r.out.substr(3, newline - 3));
    out.err = r.out.substr(newline + 1);
  }
  return out;
}

TEST(ClosedPipe, WhatOnlyListsOrShowsStopsQuietly) {
  if (!test::have_program("python3")) GTEST_SKIP() << "needs python3";
  const std::vector<std::vector<std::string>> runs = {
      {"rules"},          {"rules", "show", "file.stale"}, {"--help"}, {"help", "reap"}, {"reap", "--help"},
      {"--help-all"},     {"--bash-completion"},           {"--version"},
      {"ps", "--all", "--no-containers"},
  };
  for (const auto& args : runs) {
    const auto r = run_with_reader_gone(args);
    EXPECT_EQ(r.rc, 0) << args.front() << ": " << r.err;
    // ps may say what it could not look at; never that its output was cut.
    EXPECT_EQ(r.err.find("cannot write to standard output"), std::string::npos) << args.front() << ": " << r.err;
    if (args.front() != "ps") {
      EXPECT_EQ(r.err, "") << args.front();
    }
  }
}

TEST(ClosedPipe, ACutAuditReportIsIncompleteSaidOnlyWhereNoPersonTypedTheHead) {
  if (!test::have_program("python3")) GTEST_SKIP() << "needs python3";
  test::ScratchDir dir;
  const std::vector<std::string> audit = {"audit", "--tmpdir", dir.path(), "--no-containers", "--format", "text"};
  const auto unattended = run_with_reader_gone(audit);
  EXPECT_EQ(unattended.rc, 3) << unattended.err;
  EXPECT_EQ(unattended.err,
            "hsperfguard: cannot write to standard output (its reader closed it): what this run printed is "
            "incomplete\n");
  const auto at_terminal = run_with_reader_gone(audit, /*stderr_tty=*/true);
  EXPECT_EQ(at_terminal.rc, 3) << at_terminal.err;
  EXPECT_EQ(at_terminal.err, "") << "the person who closed the pipe is told nothing";
}

// A full disk is no reader going away: said, exit 3, for what only shows too.
TEST(ClosedPipe, AFailingStandardOutputIsStillSaid) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "needs /dev/full";
  const auto r = test::run({"sh", "-c", "\"$0\" rules >/dev/full; echo rc=$?", test::tool_path()});
  EXPECT_NE(r.out.find("rc=3"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("hsperfguard: cannot write to standard output (failing): what this run printed is incomplete"),
            std::string::npos)
      << r.err;
}

// A standard stream closed when the tool starts (`>&-`, a daemon's children) is no free number
// for the files the run opens: before, the first file opened took it, and a reap's dry run
// wrote its plan into whatever held number 1 when it printed (seen: its own spool file, an
// O_TMPFILE under /var/tmp, and it exited 0, the plan lost and the spool written over). Read
// from strace: after the tool's check of its three streams (`fcntl(N, F_GETFD)`; from the
// start, less the dynamic loader's opens, when there is none), no file it opens gets 0, 1 or
// 2 but the stand-in (an O_PATH of "/" without O_CLOEXEC); and its writes to standard output
// fail as on a closed stream: said, exit 3.
TEST(ClosedPipe, AClosedStandardStreamIsNoNumberAFileOfTheRunTakes) {
  if (!test::have_program("strace")) GTEST_SKIP() << "needs strace";
  reaptest::ReapTree tree;
  const std::string ns = tree.make_namespace("me", ::getuid(), ::getgid(), 0700);
  tree.stale_file(ns);
  const std::string trace = tree.outside + "/trace";
  const auto r = test::run({"sh", "-c",
                            "env \"$3\" strace -f -qq -e trace=openat,open,fcntl -o \"$2\" \"$0\" reap --tmpdir \"$1\" "
                            "--no-containers --no-lock --dry-run --min-age 0 <&- >&-; echo rc=$? >&2",
                            test::tool_path(), tree.tmp, trace, test::traced_asan_options()});
  EXPECT_NE(r.err.find("hsperfguard: cannot write to standard output (failing): what this run printed is incomplete"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rc=3"), std::string::npos) << r.err;
  std::istringstream lines(test::slurp(trace));
  std::vector<std::string> calls;
  std::size_t from = 0;
  for (std::string line; std::getline(lines, line);) {
    calls.push_back(line);
    if (line.find("fcntl(2, F_GETFD)") != std::string::npos) from = calls.size();
  }
  ASSERT_FALSE(calls.empty()) << r.err;
  const std::regex taken(R"(open(at)?\(.*\) = [012]$)");
  const std::regex loader(R"(ld\.so\.cache|\.so(\.[0-9]+)*")");
  std::vector<std::string> wrong;
  for (std::size_t i = from; i < calls.size(); ++i) {
    const std::string& c = calls[i];
    if (!std::regex_search(c, taken) || (from == 0 && std::regex_search(c, loader))) continue;
    if (c.find("\"/\", O_RDONLY|O_PATH|O_DIRECTORY)") != std::string::npos) continue;  // the stand-in
    wrong.push_back(c);
  }
  EXPECT_TRUE(wrong.empty()) << "opened as a standard stream:\n" << testing::PrintToString(wrong);
}

// All three closed: what the run writes where it was told to (--output) is whole, and it ends
// as it does with them open.
TEST(ClosedPipe, AllThreeStandardStreamsClosedLeaveTheReportWhole) {
  reaptest::ReapTree tree;
  const std::string ns = tree.make_namespace("me", ::getuid(), ::getgid(), 0700);
  tree.stale_file(ns);
  const std::string open_report = tree.outside + "/open.json";
  const std::string closed_report = tree.outside + "/closed.json";
  const auto r = test::run(
      {"sh", "-c",
       "\"$0\" audit --tmpdir \"$1\" --no-containers --format json --output \"$2\"; echo open_rc=$?; "
       "(\"$0\" audit --tmpdir \"$1\" --no-containers --format json --output \"$3\" <&- >&- 2>&-; echo closed_rc=$? > \"$3.rc\"); "
       "cat \"$3.rc\"",
       test::tool_path(), tree.tmp, open_report, closed_report});
  EXPECT_NE(r.out.find("open_rc=1"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("closed_rc=1"), std::string::npos) << r.out << r.err;
  const auto open = nlohmann::json::parse(test::slurp(open_report), nullptr, false);
  const auto closed = nlohmann::json::parse(test::slurp(closed_report), nullptr, false);
  ASSERT_FALSE(closed.is_discarded()) << test::slurp(closed_report);
  ASSERT_FALSE(open.is_discarded());
  EXPECT_EQ(closed.at("summary"), open.at("summary"));
}

}  // namespace
}  // namespace hsperfguard
