// A reader that closes the tool's standard output early (`ps --all | head -2`, a pager quit):
// what only lists or shows ends quietly, exit 0, as rg, fd and jps do; an audit's or a reap's
// report cut is an incomplete run (exit 3), said on a standard error that is not a terminal
// (cron's mail, the journal) and not to the person at the terminal who typed `| head`; any
// other failure to write (a full disk) is said, exit 3, whatever printed. The pipe's read end
// is closed before the tool starts, so that its first write meets it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace hsperfguard
