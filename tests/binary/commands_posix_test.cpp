// The subcommands in process: each is added to a command line by its own file
// (commands/subcommand.hpp), parses its own options and runs without the binary.
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "commands/audit_command.hpp"
#include "commands/exit_codes.hpp"
#include "commands/reap_command.hpp"
#include "commands/subcommand.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using test::ScratchDir;

// A pid no process has now.
std::int32_t unused_pid() {
  for (std::int32_t pid = 30011; pid < 32000; ++pid) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return pid;
  }
  return 0;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// A temp dir holding this user's namespace, writable by all (HotSpot refuses it), with the
// backing file of a pid that does not exist.
struct Tree {
  ScratchDir scratch;
  std::string tmp = scratch / "tmp";
  std::string ns;
  std::string stale;

  Tree() {
    const passwd* me = ::getpwuid(::geteuid());
    ns = tmp + "/hsperfdata_" + (me != nullptr ? me->pw_name : "root");
    EXPECT_EQ(::mkdir(tmp.c_str(), 0755), 0);
    EXPECT_EQ(::mkdir(ns.c_str(), 0700), 0);
    EXPECT_EQ(::chmod(ns.c_str(), 0777), 0);
    stale = ns + "/" + std::to_string(unused_pid());
    test::write_file(stale, test::read_file(test::source_path("tests/data/jdk17-default.hsperf")));
    EXPECT_EQ(::chmod(stale.c_str(), 0600), 0);
  }
};

TEST(CommandsInProcess, AuditParsesItsOwnOptionsAndRuns) {
  Tree tree;
  const std::string out = tree.scratch / "report.json";
  CLI::App app;
  const SubcommandHook audit = add_audit_command(app);
  app.parse("audit --tmpdir " + tree.tmp + " --format json --output " + out + " --fail-on high",
            false);
  ASSERT_TRUE(*audit.cmd);
  EXPECT_EQ(audit.run(), kExitFindings);
  const auto report = read_json(out);
  ASSERT_EQ(report.at("namespaces").size(), 1u);
  const auto& ns = report.at("namespaces").at(0);
  EXPECT_EQ(ns.at("path"), tree.ns);
  bool refused = false;
  for (const auto& f : ns.at("findings"))
    refused |= f.at("rule") == "namespace.group-other-writable";
  EXPECT_TRUE(refused) << ns.dump();
  ASSERT_EQ(ns.at("files").size(), 1u);
  EXPECT_EQ(ns.at("files").at(0).at("verdict").at("verdict"), "stale");
}

TEST(CommandsInProcess, ReapPlansInProcessAndDryRunChangesNothing) {
  Tree tree;
  const std::string out = tree.scratch / "plan.json";
  CLI::App app;
  const SubcommandHook reap = add_reap_command(app);
  app.parse("reap --dry-run --no-lock --no-containers --min-age 0 --tmpdir " + tree.tmp +
                " --format json --output " + out,
            false);
  ASSERT_TRUE(*reap.cmd);
  EXPECT_EQ(reap.run(), kExitOk);
  const auto report = read_json(out);
  ASSERT_EQ(report.at("plan").size(), 1u) << report.dump();
  EXPECT_EQ(report.at("plan").at(0).at("path"), tree.stale);
  EXPECT_EQ(report.at("plan").at(0).at("verdict"), "stale");
  EXPECT_EQ(report.at("plan").at(0).at("action"), "remove");
  EXPECT_TRUE(report.at("actions").empty());
  struct stat st {};
  EXPECT_EQ(::lstat(tree.stale.c_str(), &st), 0) << "a dry run removed a file";
}

TEST(CommandsInProcess, EachSubcommandRefusesItsOwnConflictsAndBadValues) {
  CLI::App app;
  const SubcommandHook audit = add_audit_command(app);
  const SubcommandHook reap = add_reap_command(app);
  EXPECT_THROW(app.parse("audit --tmpdir /tmp --root /", false), CLI::ParseError);
  EXPECT_THROW(app.parse("audit --max-runtime 106752d", false), CLI::ParseError);
  EXPECT_THROW(app.parse("reap --no-lock --lock-file /run/x.lock", false), CLI::ParseError);
  EXPECT_THROW(app.parse("reap --wait --no-wait", false), CLI::ParseError);
  EXPECT_THROW(app.parse("reap --min-age soon", false), CLI::ParseError);
  EXPECT_THROW(app.parse("audit --fail-on everything", false), CLI::ParseError);
  app.parse("reap --dry-run --no-lock", false);
  EXPECT_TRUE(*reap.cmd);
  EXPECT_FALSE(*audit.cmd);
}

// ---- Shell completion ------------------------------------------------------------------------

// The long options `hsperfguard SUB --help` lists: the names that begin an option's line
// ("  -f, --format json|text", "  --tmpdir DIR"; a description's lines are indented further).
std::set<std::string> options_in_help(const std::string& help) {
  std::set<std::string> out;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("  -")) continue;
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      if (w.ends_with(',')) w.pop_back();  // "-f," before "--format"
      if (!w.starts_with("-")) break;      // the metavar, then the description
      if (w.starts_with("--")) out.insert(w);
    }
  }
  return out;
}

// What bash completes for `words` (the last one being completed), with the completion the
// build generated loaded, in `dir`.
std::set<std::string> complete(const std::string& script, const std::string& dir,
                               const std::vector<std::string>& words) {
  std::string array;
  for (const auto& w : words) array += " '" + w + "'";
  const auto r = test::run({"bash", "-c",
                            "cd '" + dir + "' && source '" + script + "' && COMP_WORDS=(" + array +
                                ") && COMP_CWORD=" + std::to_string(words.size() - 1) +
                                " && _hsperfguard && printf '%s\\n' \"${COMPREPLY[@]}\""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

TEST(BashCompletion, CompletesSubcommandsAndEveryOptionOfReapAsHelpListsThem) {
  // The file the build generated and the packages install, and what the binary prints now.
  const std::string script = std::filesystem::path(test::tool_path()).parent_path().string() +
                             "/share/bash-completion/completions/hsperfguard";
  const auto bytes = test::read_file(script);
  const auto printed = test::run_tool({"--bash-completion"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()), printed.out);

  ScratchDir dir;
  test::write_file(dir / "journal.jsonl", test::to_bytes("{}\n"));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "re"}),
            (std::set<std::string>{"reap", "repair"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "a"}), (std::set<std::string>{"audit"}));

  const auto help = test::run_tool({"reap", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  const std::set<std::string> listed = options_in_help(help.out);
  ASSERT_GE(listed.size(), 15u) << help.out;
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "reap", "--"}), listed);
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "reap", "--no-"}),
            (std::set<std::string>{"--no-lock", "--no-wait", "--no-containers"}));
  // Values: a fixed set, a path, nothing for a duration.
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "reap", "--format", ""}),
            (std::set<std::string>{"json", "text"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "reap", "--journal", "jou"}),
            (std::set<std::string>{"journal.jsonl"}));
  EXPECT_TRUE(complete(script, dir.path(), {"hsperfguard", "reap", "--min-age", ""}).empty());
  // After another subcommand's word, that subcommand's options.
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "audit", "--fail"}),
            (std::set<std::string>{"--fail-on"}));
}

// `help` and its topics, `rules show` and the rule ids after it, severities after --fail-on,
// profiles after --profile: none of the first three was offered.
TEST(BashCompletion, OffersHelpItsTopicsRulesShowAndRuleIds) {
  const std::string script = std::filesystem::path(test::tool_path()).parent_path().string() +
                             "/share/bash-completion/completions/hsperfguard";
  ScratchDir dir;
  test::write_file(dir / "file.stale-lookalike", {});
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "he"}), (std::set<std::string>{"help"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "help", ""}),
            (std::set<std::string>{"audit", "rules", "inspect", "reap", "ps", "create", "repair"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "help", "re"}), (std::set<std::string>{"reap", "repair"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "help", "rules", ""}), (std::set<std::string>{"show"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "rules", "sh"}), (std::set<std::string>{"show"}));
  // Rule ids, not the file names that look like them.
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "rules", "show", "file.st"}),
            (std::set<std::string>{"file.stale"}));
  const auto ids = complete(script, dir.path(), {"hsperfguard", "rules", "show", ""});
  const auto listed = test::run_tool({"rules"});
  std::size_t rules = 0;
  for (std::size_t at = 0; (at = listed.out.find('\n', at)) != std::string::npos; ++at) ++rules;
  EXPECT_EQ(ids.size(), rules) << listed.out;
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "rules", "show", "--f"}), (std::set<std::string>{"--format"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "rules", "show", "--format", ""}),
            (std::set<std::string>{"json", "text"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "audit", "--fail-on", ""}),
            (std::set<std::string>{"info", "low", "medium", "high", "critical"}));
  EXPECT_EQ(complete(script, dir.path(), {"hsperfguard", "repair", "--profile", ""}),
            (std::set<std::string>{"default", "strict", "hotspot"}));
}


// What a person at a terminal gets: a real interactive bash on a pseudo-terminal
// (tests/support/complete_pty.py) types a command line, presses TAB, then Enter; `hsperfguard` is a
// shell function there that prints the arguments it received. Names another user can give
// files in /tmp (a command substitution, blanks, a glob, a newline) must reach the program as
// the one word they are, quoted on the line, and never run.
struct PtyCompletion {
  std::string line_after_tab;  // what readline shows on the line after TAB
  std::vector<std::string> args;
  std::string transcript;
};

PtyCompletion complete_in_pty(const std::string& script, const std::string& dir, const std::string& typed,
                              const std::string& shell = "bash") {
  const auto r = test::run({"python3", std::string(HSPERFGUARD_SOURCE_DIR) + "/tests/support/complete_pty.py", script,
                            dir, typed, shell});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  PtyCompletion out;
  out.transcript = r.out;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, out.line_after_tab);
  while (std::getline(in, line)) {
    if (line == "ARGS-END") break;
    if (line.starts_with("ARG<") && line.ends_with(">")) out.args.push_back(line.substr(4, line.size() - 5));
  }
  return out;
}

TEST(BashCompletion, HostileFileNamesGoOnTheLineQuotedAndNeverRun) {
  if (!test::have_program("python3") || !test::have_program("bash")) GTEST_SKIP() << "needs python3 and bash";
  const std::string script = std::filesystem::path(test::tool_path()).parent_path().string() +
                             "/share/bash-completion/completions/hsperfguard";
  ScratchDir dir;
  const std::string run_it = "4242$(id>PWNED)";
  const std::string split_and_glob = "42 *";
  const std::string with_newline = "nl\n$(id>PWNED2)";
  const std::string directory = "sp ace$(id>PWNED3)";
  for (const std::string& name : {run_it, split_and_glob, with_newline, std::string("another"), std::string("other")}) {
    test::write_file(dir / name, {});
  }
  std::filesystem::create_directory(dir / directory);

  // The case: a pid-like prefix, TAB, Enter, as root would to inspect the file.
  const auto inspect = complete_in_pty(script, dir.path(), "hsperfguard inspect 424");
  EXPECT_EQ(inspect.line_after_tab, "hsperfguard inspect 4242\\$\\(id\\>PWNED\\) ") << inspect.transcript;
  EXPECT_EQ(inspect.args, (std::vector<std::string>{"inspect", run_it})) << inspect.transcript;
  // Every option that takes a path, in both of its forms.
  const auto output = complete_in_pty(script, dir.path(), "hsperfguard reap --output 42\\ ");
  EXPECT_EQ(output.args, (std::vector<std::string>{"reap", "--output", split_and_glob})) << output.transcript;
  const auto equals = complete_in_pty(script, dir.path(), "hsperfguard reap --journal=424");
  EXPECT_EQ(equals.args, (std::vector<std::string>{"reap", "--journal=" + run_it})) << equals.transcript;
  const auto tmpdir = complete_in_pty(script, dir.path(), "hsperfguard audit --tmpdir sp");
  EXPECT_EQ(tmpdir.args, (std::vector<std::string>{"audit", "--tmpdir", directory + "/"})) << tmpdir.transcript;
  // A word the user opened with a quote is completed inside it.
  const auto quoted = complete_in_pty(script, dir.path(), "hsperfguard inspect 'anot");
  EXPECT_EQ(quoted.args, (std::vector<std::string>{"inspect", "another"})) << quoted.transcript;
  // A newline splits the name into two candidates; neither runs.
  const auto newline = complete_in_pty(script, dir.path(), "hsperfguard inspect nl");
  EXPECT_EQ(newline.args, (std::vector<std::string>{"inspect", "nl"})) << newline.transcript;

  // zsh, through bashcompinit as the script's header says: the same words arrive.
  ASSERT_TRUE(test::have_program("zsh")) << "zsh (scripts/deps.sh installs it)";
  const auto zsh = complete_in_pty(script, dir.path(), "hsperfguard inspect 424", "zsh");
  EXPECT_EQ(zsh.args, (std::vector<std::string>{"inspect", run_it})) << zsh.transcript;
  const auto zsh_output = complete_in_pty(script, dir.path(), "hsperfguard reap --output 42\\ ", "zsh");
  EXPECT_EQ(zsh_output.args, (std::vector<std::string>{"reap", "--output", split_and_glob})) << zsh_output.transcript;
  // `help rules show` and a rule id, at a terminal, in both shells.
  for (const char* shell : {"bash", "zsh"}) {
    const auto topic = complete_in_pty(script, dir.path(), "hsperfguard help rules sh", shell);
    EXPECT_EQ(topic.args, (std::vector<std::string>{"help", "rules", "show"})) << shell << topic.transcript;
    const auto id = complete_in_pty(script, dir.path(), "hsperfguard rules show file.sta", shell);
    EXPECT_EQ(id.args, (std::vector<std::string>{"rules", "show", "file.stale"})) << shell << id.transcript;
  }

  for (const char* planted : {"PWNED", "PWNED2", "PWNED3"}) {
    EXPECT_FALSE(std::filesystem::exists(dir / planted)) << planted << " was created: a file name ran as a command";
  }
}

}  // namespace
}  // namespace hsperfguard
