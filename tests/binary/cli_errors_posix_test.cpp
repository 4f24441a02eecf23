// Errors and help for people: a mistyped subcommand or option gets the nearest match, a path
// that is not there is a usage error naming it, a refusal names the option that gets past it,
// a bad policy says where, the help has no validator tags, and the exit codes have one table
// that the README, --help and the man page all print the same.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "hostile_support.hpp"
#include "model/text_escape.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using test::run_tool;
using test::ScratchDir;

// The lines of `text` up to the first that starts "Run " (the hint after the message).
std::string message_of(const std::string& text) { return text.substr(0, text.find("\nRun ")); }

TEST(CliErrors, MistypedSubcommandGetsTheNearestMatchAndTheList) {
  const auto r = run_tool({"audti"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("unknown subcommand 'audti'; did you mean 'audit'?"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("subcommands: audit, rules, inspect, reap, ps, create, repair"), std::string::npos) << r.err;
  // Nothing near: no guess, still the list.
  const auto far = run_tool({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
  EXPECT_NE(far.err.find("subcommands: audit"), std::string::npos) << far.err;
  // A subcommand's own subcommands likewise (rules show), and their help ends with their codes.
  const auto nested = run_tool({"rules", "shwo", "file.mode"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_NE(nested.err.find("hsperfguard rules: unknown subcommand 'shwo'; did you mean 'show'?"), std::string::npos)
      << nested.err;
  const auto show_help = run_tool({"rules", "show", "--help"});
  EXPECT_EQ(show_help.exit_code, 0);
  EXPECT_NE(show_help.out.find("Exit status:\n  0  shown\n  2  usage error"), std::string::npos) << show_help.out;
}

// A usage error quotes what was given, escaped like every other output: ESC and OSC bytes
// in a value, an option or a subcommand name reached the terminal raw (found by an outside
// review: a title set, a screen cleared by `--tmpdir`, `--profile`, `--color`, `--format`,
// `--max-runtime`, `--container`, an unknown subcommand and create's refusals).
TEST(CliErrors, UsageErrorsEchoNoRawControlBytes) {
  test::ScratchDir dir;
  const std::string evil = std::string("x\x1b]0;pwned\x07\x1b[2J\xc2\x9b") + "31m\u202e";
  const std::vector<std::vector<std::string>> runs = {
      {"audit", "--tmpdir", "/nonexistent/" + evil},
      {"audit", "--profile", evil},
      {"audit", "--color", evil},
      {"audit", "--format", evil},
      {"audit", "--max-runtime", evil},
      {"audit", "--container", evil},
      {"audit", "--fail-on", evil},
      {evil},
      {"help", evil},
      {"audit", "--" + evil},
      {"create", "--user", "nobody", "--tmpdir", dir.path(), "--mode", evil},
      {"create", "--user", "nobody", "--tmpdir", dir.path(), "--profile", evil},
      {"repair", "--tmpdir", dir.path(), "--profile", evil},
      {"reap", "--dry-run", "--tmpdir", dir.path(), "--min-age", evil},
  };
  for (const auto& args : runs) {
    const auto r = run_tool(args);
    std::string shown;
    for (const auto& a : args) shown += terminal_safe(a) + " ";
    EXPECT_EQ(r.exit_code, 2) << shown << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << shown << ": " << terminal_safe(r.err);
    EXPECT_EQ(r.err.find('\x07'), std::string::npos) << shown << ": " << terminal_safe(r.err);
    EXPECT_EQ(r.err.find("\xc2\x9b"), std::string::npos) << shown << ": " << terminal_safe(r.err);
    EXPECT_EQ(r.err.find("\xe2\x80\xae"), std::string::npos) << shown << ": " << terminal_safe(r.err);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << shown;
  }
}

// A flag given on and off is refused, not decided by its last word: `reap --dry-run
// --dry-run=false` removed files (found by an outside review). Given twice the same way it is
// fine.
TEST(CliErrors, AFlagGivenBothOnAndOffIsAUsageError) {
  test::ScratchDir dir;
  const std::string stale = dir.path() + "/hsperfdata_nobody";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"reap", "--dry-run", "--dry-run=false", "--tmpdir", dir.path()},
        {"reap", "--dry-run=false", "--tmpdir", dir.path(), "--dry-run"},
        {"repair", "--dry-run", "--tmpdir", dir.path(), "--dry-run=0"},
        {"audit", "--verbose", "--verbose=false", "--tmpdir", dir.path()}}) {
    const auto r = run_tool(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << " " << args[2] << ": " << r.err;
    EXPECT_NE(r.err.find("is given both on and off"), std::string::npos) << r.err;
  }
  const auto twice = run_tool({"reap", "--dry-run", "--dry-run", "--tmpdir", dir.path()});
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
}

TEST(CliErrors, MistypedOptionGetsTheNearestMatch) {
  const auto r = run_tool({"audit", "--tmp-dir", "/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("unknown option --tmp-dir; did you mean --tmpdir?"), std::string::npos) << r.err;
  const auto reap = run_tool({"reap", "--dry-run", "--no-lok"});
  EXPECT_EQ(reap.exit_code, 2);
  EXPECT_NE(reap.err.find("unknown option --no-lok; did you mean --no-lock?"), std::string::npos) << reap.err;
  // A value that looks like an option is the option's value, not an unknown option.
  const auto value = run_tool({"audit", "--fail-on", "--nope"});
  EXPECT_EQ(value.exit_code, 2);
  EXPECT_EQ(value.err.find("unknown option"), std::string::npos) << value.err;
}

// A value the option does not take is one line that names the subcommand, the option, what it
// takes and what was given, exit 2: `--container abc` answered with a 309-digit range,
// `--container 1.5` with "Could not convert", `reap --min-age` alone with "1 required
// TEXT:DURATION missing", `--fail-on hihg` with the list and no guess. One case per kind.
TEST(CliErrors, AValueErrorNamesTheOptionWhatItTakesAndWhatWasGiven) {
  ScratchDir dir;
  const std::string missing = dir / "nonexistent";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"audit", "--container", "abc"},
       "hsperfguard: audit: --container needs a PID (a process id: a whole number from 1): got 'abc'"},
      {{"ps", "--container", "1.5"},
       "hsperfguard: ps: --container needs a PID (a process id: a whole number from 1): got '1.5'"},
      {{"audit", "--container=99999999999"},
       "hsperfguard: audit: --container needs a PID (a process id: a whole number from 1): got '99999999999'"},
      {{"reap", "--dry-run", "--min-age"},
       "hsperfguard: reap: --min-age needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): none given"},
      {{"reap", "--dry-run", "--min-age", "x", "--tmpdir", dir.path()},
       "hsperfguard: reap: --min-age needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): got 'x'"},
      {{"audit", "--every", "500ms"},
       "hsperfguard: audit: --every needs a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d): got "
       "'500ms', which is less than 1s (the least --every takes)"},
      {{"audit", "--fail-on", "hihg"},
       "hsperfguard: audit: --fail-on needs one of info, low, medium, high, critical: got 'hihg'; did you mean 'high'?"},
      {{"repair", "--profile", "strcit"},
       "hsperfguard: repair: --profile needs one of default, hotspot, strict: got 'strcit'; did you mean 'strict'?"},
      {{"audit", "--color", "nevr"},
       "hsperfguard: audit: --color needs one of auto, always, never: got 'nevr'; did you mean 'never'?"},
      {{"rules", "show", "file.stale", "--format", "jsn"},
       "hsperfguard: rules show: --format needs one of json, text: got 'jsn'; did you mean 'json'?"},
      {{"inspect", "1", "--tmpdir", missing},
       "hsperfguard: inspect: --tmpdir needs a DIR (an existing directory): got '" + missing + "', which does not exist"},
      {{"reap", "--dry-run", "--journal", ""}, "hsperfguard: reap: --journal needs a FILE name: got '' (an unset variable?)"},
      {{"create", "--user", "nobody", "--pid", "5", "--size", "1k"},
       "hsperfguard: create: --size needs a number of BYTES (plain decimal, e.g. 32768): got '1k'"},
  };
  for (const auto& [args, said] : cases) {
    const auto r = run_tool(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    EXPECT_EQ(r.exit_code, 2) << shown << r.err;
    EXPECT_EQ(r.err, said + "\n") << shown;
    EXPECT_EQ(r.out, "") << shown;
  }
}

// Every option of every subcommand that takes a value, as --help lists it (a new one is swept
// without a word here), given a value it does not take: one line naming the subcommand and the
// option, exit 2. Free text (create --command) takes anything.
TEST(CliErrors, EveryValueOptionRefusesABadValueNamingIt) {
  ScratchDir dir;
  const std::map<std::string, std::string> bad = {
      {"PID", "x"}, {"DURATION", "x"}, {"DIR", dir / "nonexistent"}, {"FILE", ""},
      {"USER", ""}, {"BYTES", "x"},    {"N", "x"},
  };
  // What each subcommand needs besides the option swept.
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> subcommands = {
      {{"audit"}, {}},
      {{"rules"}, {}},
      {{"rules", "show"}, {"file.stale"}},
      {{"inspect"}, {"1"}},
      {{"reap"}, {"--dry-run"}},
      {{"ps"}, {}},
      {{"create"}, {"--user", "nobody", "--pid", "5"}},
      {{"repair"}, {"--dry-run"}},
  };
  std::size_t swept = 0;
  for (const auto& [path, base] : subcommands) {
    std::vector<std::string> help_args = path;
    help_args.push_back("--help");
    const auto help = run_tool(help_args);
    ASSERT_EQ(help.exit_code, 0) << help.err;
    std::string where;
    for (const auto& word : path) where += (where.empty() ? "" : " ") + word;
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with("  -")) continue;
      // "  -f, --format json|text   text (the default) or json": the names, then a metavar.
      const std::string left = line.substr(2, line.find("  ", 2) - 2);
      std::istringstream words(left);
      std::string word, option, metavar;
      while (words >> word) {
        if (word.ends_with(',')) word.pop_back();
        if (word.starts_with("--")) {
          option = word;
        } else if (!word.starts_with("-")) {
          metavar = word;
        }
      }
      if (metavar.empty() || metavar == "TEXT") continue;  // a flag; free text
      const std::string value = metavar.find('|') != std::string::npos ? "x" : bad.at(metavar);
      std::vector<std::string> args = path;
      args.insert(args.end(), base.begin(), base.end());
      args.push_back(option);
      args.push_back(value);
      const auto r = run_tool(args);
      EXPECT_EQ(r.exit_code, 2) << where << " " << option << " '" << value << "': " << r.err;
      EXPECT_TRUE(r.err.starts_with("hsperfguard: " + where + ": " + option + " needs ")) << option << ": " << r.err;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
      // The value was given: the message says what it was.
      EXPECT_NE(r.err.find("got '" + value + "'"), std::string::npos) << r.err;
      ++swept;
    }
  }
  EXPECT_GE(swept, 40u) << "every value option of the seven subcommands";
}

// `help` at every depth, as git's `git help COMMAND`: what --help of that command prints; an
// unknown topic is a usage error with the nearest match. `help rules show` was "unknown
// subcommand 'help'; did you mean 'reap'?".
TEST(CliErrors, HelpAtEveryDepthIsThatCommandsHelp) {
  const std::vector<std::vector<std::string>> topics = {{}, {"help"}, {"reap"}, {"rules"}, {"rules", "show"}};
  for (const auto& topic : topics) {
    std::vector<std::string> help = {"help"};
    help.insert(help.end(), topic.begin(), topic.end());
    std::vector<std::string> dashed = topic.size() == 1 && topic.front() == "help" ? std::vector<std::string>{} : topic;
    dashed.push_back("--help");
    const auto a = run_tool(help);
    const auto b = run_tool(dashed);
    EXPECT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(a.out, b.out) << help.size();
    EXPECT_EQ(a.err, "");
  }
  EXPECT_NE(run_tool({"help", "rules", "show"}).out.find("Usage: hsperfguard rules show [OPTIONS] ID"),
            std::string::npos);
  const auto nested = run_tool({"help", "rules", "shwo"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_EQ(nested.out, "");
  EXPECT_TRUE(nested.err.starts_with("hsperfguard: help: no subcommand 'rules shwo'; did you mean 'rules show'?\n"))
      << nested.err;
  const auto top = run_tool({"help", "rpae"});
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_TRUE(top.err.starts_with("hsperfguard: help: no subcommand 'rpae'; did you mean 'reap'?\n")) << top.err;
  const auto none = run_tool({"help", "ps", "show"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("hsperfguard ps has no subcommands"), std::string::npos) << none.err;
  // `help` after a subcommand: where it goes.
  const auto after = run_tool({"rules", "help", "show"});
  EXPECT_EQ(after.exit_code, 2);
  EXPECT_NE(after.err.find("unknown subcommand 'help'; did you mean 'hsperfguard help rules show'?"), std::string::npos)
      << after.err;
  // `help` mistyped is one of the subcommands a word is compared with.
  EXPECT_NE(run_tool({"hlep"}).err.find("did you mean 'help'?"), std::string::npos);
}

// -n is --dry-run wherever there is one, as in git clean, rsync and make: `reap -n`
// suggested -h.
TEST(CliErrors, DashNIsDryRun) {
  ScratchDir dir;
  const std::string ns = dir / "hsperfdata_nobody";
  std::filesystem::create_directory(ns);
  test::write_file(ns + "/4194301", test::to_bytes("x"));
  for (const char* sub : {"reap", "repair"}) {
    // No age in reap's plan (it would differ by a tenth of a second between the runs).
    const std::vector<std::string> args = {"--tmpdir", dir.path(), sub == std::string("reap") ? "--min-age" : "--profile",
                                           sub == std::string("reap") ? "0" : "default"};
    std::vector<std::string> n = {sub, "-n"}, dry = {sub, "--dry-run"};
    n.insert(n.end(), args.begin(), args.end());
    dry.insert(dry.end(), args.begin(), args.end());
    const auto short_form = run_tool(n);
    const auto long_form = run_tool(dry);
    EXPECT_EQ(short_form.exit_code, long_form.exit_code) << sub << ": " << short_form.err;
    EXPECT_EQ(short_form.out, long_form.out) << sub;
    EXPECT_NE(short_form.out, "") << sub;
    EXPECT_NE(run_tool({sub, "--help"}).out.find("  -n, --dry-run "), std::string::npos) << sub;
  }
  EXPECT_TRUE(std::filesystem::exists(ns + "/4194301")) << "reap -n removed nothing";
}

TEST(CliErrors, VersionHelpSubcommandAndNoSubcommand) {
  const auto version = run_tool({"--version"});
  const auto v = run_tool({"-V"});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out, version.out);
  EXPECT_TRUE(v.out.starts_with("hsperfguard ")) << v.out;

  const auto help = run_tool({"help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, run_tool({"--help"}).out);
  const auto help_audit = run_tool({"help", "audit"});
  EXPECT_EQ(help_audit.exit_code, 0) << help_audit.err;
  EXPECT_EQ(help_audit.out, run_tool({"audit", "--help"}).out);
  EXPECT_NE(help_audit.out.find("Usage: hsperfguard audit [OPTIONS]"), std::string::npos) << help_audit.out;

  const auto none = run_tool({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("Usage: hsperfguard SUBCOMMAND"), std::string::npos) << none.err;
  for (const char* sub : {"audit", "rules", "inspect", "reap", "ps", "create", "repair"}) {
    EXPECT_NE(none.err.find(std::string("\n  ") + sub + " "), std::string::npos) << sub << ": " << none.err;
  }
}

// A subcommand's arguments that CLI11 hands back to the top level (after `--`) reach the
// whole parser's --bash-completion: the script is printed once, as `--bash-completion` alone
// prints it (the parser built for one subcommand, tried first, has no such flag).
TEST(CliErrors, ATopLevelFlagAfterASubcommandActsOnce) {
  const auto script = run_tool({"--bash-completion"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  ASSERT_NE(script.out.find("complete "), std::string::npos) << script.out;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"rules", "--", "--bash-completion"},
        std::vector<std::string>{"ps", "--", "--bash-completion", "-h"}}) {
    const auto r = run_tool(args);
    EXPECT_EQ(r.exit_code, script.exit_code) << args[0];
    EXPECT_EQ(r.out, script.out) << args[0];
  }
}

TEST(CliErrors, AMissingPathIsAUsageErrorNamingItWithNoReport) {
  ScratchDir dir;
  const std::string missing = dir / "nonexistent";
  const std::string file = dir / "file";
  test::write_file(file, test::to_bytes("x"));
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"audit", "--tmpdir", missing, "--format", "json"},
       "audit: --tmpdir needs a DIR (an existing directory): got '" + missing + "', which does not exist"},
      {{"audit", "--root", missing, "--format", "json"}, "--root needs a DIR (an existing directory): got '" + missing + "', which does not exist"},
      {{"audit", "--tmpdir", file, "--format", "json"}, "--tmpdir needs a DIR (an existing directory): got '" + file + "', which is not a directory"},
      {{"audit", "--policy", missing, "--format", "json"}, "--policy " + missing + ": does not exist"},
      {{"reap", "--dry-run", "--tmpdir", missing, "--format", "json"}, "reap: --tmpdir needs a DIR (an existing directory): got '" + missing + "', which does not exist"},
      {{"inspect", missing}, missing + ": does not exist"},
  };
  for (const auto& [args, said] : cases) {
    const auto r = run_tool(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_EQ(r.out, "") << "no report: " << args[1];
    std::string message = message_of(r.err);
    if (message.ends_with('\n')) message.pop_back();
    EXPECT_NE(message.find(said), std::string::npos) << r.err;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << r.err;
  }
}

// Another user's FIFO where a temp dir is named: looked at (stat), never opened (an open
// would block on it), and refused as the usage error it is.
TEST(CliErrors, AFifoNamedAsTheTempDirIsRefusedUnopened) {
  ScratchDir dir;
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(test::run({"mkfifo", fifo}).exit_code, 0);
  const auto r = test::run({"timeout", "-k", "2", "20", test::tool_path(), "audit", "--tmpdir", fifo, "--format", "json"});
  EXPECT_EQ(r.exit_code, 2) << "124 would be a hang; " << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("got '" + fifo + "', which is not a directory"), std::string::npos) << r.err;
}

TEST(CliErrors, APolicyThatIsNotJsonSaysLineColumnAndWhatWasExpected) {
  ScratchDir dir;
  const std::string policy = dir / "policy.json";
  test::write_file(policy, test::to_bytes("{\n  \"rules\": {\n    \"x\": {\"severity\": \"high\"}\n    \"y\": 2\n  }\n}\n"));
  const auto r = run_tool({"audit", "--policy", policy, "--format", "json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--policy " + policy + ": not valid JSON at line 4, column 7: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected '}'"), std::string::npos) << r.err;
}

TEST(CliErrors, HelpHasMetavarsNoValidatorTagsTheProgramsNameAndItsOwnExitCodes) {
  for (const char* sub : {"audit", "rules", "inspect", "reap", "ps", "create", "repair"}) {
    const auto help = run_tool({sub, "--help"});
    ASSERT_EQ(help.exit_code, 0) << sub << help.err;
    for (const std::string& leak : {std::string("TEXT:"), std::string("NONEMPTY"), std::string("INT:"),
                                    std::string("UINT"), std::string("Excludes:"), std::string("Needs:"),
                                    std::string("REQUIRED"), test::tool_path()}) {
      EXPECT_EQ(help.out.find(leak), std::string::npos) << sub << " --help shows " << leak << ":\n" << help.out;
    }
    EXPECT_NE(help.out.find(std::string("Usage: hsperfguard ") + sub), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("Exit status:\n"), std::string::npos) << help.out;
  }
  const auto audit = run_tool({"audit", "--help"}).out;
  for (const char* shown : {"  --tmpdir DIR ", "  --container PID ", "  -f, --format json|text ", "  -o, --output FILE ",
                            "  --max-runtime DURATION ", "  -q, --quiet ", "Cannot be combined with --policy."}) {
    EXPECT_NE(audit.find(shown), std::string::npos) << shown << ":\n" << audit;
  }
  // Every line fits a terminal.
  std::istringstream lines(audit);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
  // rules ends with its own exit codes, not the audit's.
  const auto rules = run_tool({"rules", "--help"}).out;
  EXPECT_EQ(rules.find("--fail-on"), std::string::npos) << rules;
  const auto rules_codes = rules.substr(rules.find("Exit status:\n"));
  EXPECT_NE(rules_codes.find("\n  0  "), std::string::npos) << rules_codes;
  EXPECT_NE(rules_codes.find("\n  2  "), std::string::npos) << rules_codes;
  EXPECT_EQ(rules_codes.find("\n  1  "), std::string::npos) << rules_codes;
  // repair's 4 is what a dry run returns too (it was called "refused").
  const auto repair = run_tool({"repair", "--help"}).out;
  EXPECT_NE(repair.find("\n  4  findings at or above medium are left that repair does not fix (--dry-run"),
            std::string::npos)
      << repair;
}

TEST(CliErrors, ShortOptionsAreTheLongOnes) {
  const auto long_form = run_tool({"rules", "--format", "json"});
  const auto short_form = run_tool({"rules", "-f", "json"});
  ASSERT_EQ(short_form.exit_code, 0) << short_form.err;
  EXPECT_EQ(short_form.out, long_form.out);
  ScratchDir dir;
  std::filesystem::create_directory(dir / "tmp");
  const std::string report = dir / "report.json";
  const auto quiet = run_tool({"audit", "--tmpdir", dir / "tmp", "--no-containers", "-q", "-f", "json", "-o", report});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  const auto bytes = test::read_file(report);
  EXPECT_NE(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()).find("\"schema\""), std::string::npos);
  // -v is --verbose: each file of a grouped finding listed with its evidence.
  const std::filesystem::path ns = std::filesystem::path(dir / "tmp") / "hsperfdata_root";
  std::filesystem::create_directories(ns);
  for (int pid : {4194301, 4194302, 4194303, 4194304}) std::ofstream(ns / std::to_string(pid)) << "x";
  const auto verbose = run_tool({"audit", "--tmpdir", dir / "tmp", "--no-containers", "--verbose"});
  const auto v = run_tool({"audit", "--tmpdir", dir / "tmp", "--no-containers", "-v"});
  const auto grouped = run_tool({"audit", "--tmpdir", dir / "tmp", "--no-containers"});
  EXPECT_EQ(v.err, "");
  EXPECT_EQ(v.out.size(), verbose.out.size()) << v.out;
  EXPECT_GT(v.out.size(), grouped.out.size()) << v.out;
  const auto reap_v = run_tool({"reap", "--tmpdir", dir / "tmp", "--no-containers", "--no-lock", "--dry-run", "-v"});
  EXPECT_EQ(reap_v.exit_code, 0) << reap_v.err;
}

// An unprivileged reap cannot make root's lock directory: it says which options get past that.
TEST(CliErrors, UnprivilegedReapNamesTheOptionsThatGetPastTheLock) {
  SKIP_UNLESS_ROOT();
  const auto o = hostile::run_case(R"SH(
setpriv --reuid=65534 --regid=65534 --clear-groups $H reap --tmpdir /tmp/t --no-containers --format json \
  >/dev/null 2>/tmp/err; echo rc=$?
echo lock_file=$(grep -c -- '--lock-file FILE' /tmp/err) no_lock=$(grep -c -- '--no-lock' /tmp/err)
echo not_root=$(grep -c -- 'not running as root: run as root' /tmp/err)
cat /tmp/err >&2
)SH");
  EXPECT_EQ(o.at("rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("lock_file"), "1") << o.result.err;
  EXPECT_EQ(o.at("no_lock"), "1") << o.result.err;
  EXPECT_EQ(o.at("not_root"), "1") << o.result.err;
}

// Root refused the lock is not told to run as root: the lock file is one reap will not use
// (here another user's), and the advice says so.
TEST(CliErrors, RootRefusedTheLockIsToldTheTrueReason) {
  SKIP_UNLESS_ROOT();
  const auto o = hostile::run_case(R"SH(
mkdir -p /tmp/lockdir && chmod 0755 /tmp/lockdir
touch /tmp/lockdir/reap.lock && chown 65534:65534 /tmp/lockdir/reap.lock
$H reap --tmpdir /tmp/t --no-containers --format json --lock-file /tmp/lockdir/reap.lock >/dev/null 2>/tmp/err
echo rc=$?
echo as_root=$(grep -c 'run as root' /tmp/err) unusable=$(grep -c 'the lock file is not one reap may use' /tmp/err)
cat /tmp/err >&2
)SH");
  EXPECT_EQ(o.at("rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("as_root"), "0") << o.result.err;
  EXPECT_EQ(o.at("unusable"), "1") << o.result.err;
}

// ---- One exit-code table -------------------------------------------------------------------

// What the table says of 4 is what repair does, --dry-run included: a symlinked namespace
// (high, never entered) is left, and the dry run ends 4 as the real run would.
TEST(ExitCodes, RepairDryRunEndsAsItsHelpSays) {
  ScratchDir dir;
  std::filesystem::create_directory(dir / "tmp");
  std::filesystem::create_directory_symlink("/etc", dir / "tmp/hsperfdata_bin");
  const auto r = run_tool({"repair", "--tmpdir", dir / "tmp", "--dry-run"});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("left  namespace.symlink"), std::string::npos) << r.out;
  const auto help = run_tool({"repair", "--help"}).out;
  const auto four = help.find("\n  4  findings at or above medium are left that repair does not fix");
  ASSERT_NE(four, std::string::npos) << help;
  EXPECT_NE(help.find("(--dry-run:", four), std::string::npos) << help;
}

// "code -> meaning", whitespace collapsed and `code` marks dropped.
using CodeTable = std::map<int, std::string>;

std::string normalized(std::string text) {
  std::erase(text, '`');
  std::string out;
  std::istringstream words(text);
  for (std::string w; words >> w;) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Rows "  N  meaning" with the meaning's continuation lines (indented further), from `from` on
// to the first line that is neither.
CodeTable rows_of(const std::string& text, const std::regex& row) {
  CodeTable out;
  std::istringstream in(text);
  int current = -1;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      current = std::stoi(m[1]);
      out[current] = m[2];
    } else if (current >= 0 && line.starts_with("     ") && line.find_first_not_of(' ') != std::string::npos) {
      out[current] += " " + line;
    } else if (current >= 0) {
      current = -1;
    }
  }
  for (auto& [code, meaning] : out) meaning = normalized(meaning);
  return out;
}

TEST(ExitCodes, ReadmeHelpAndManPageListTheSameCodesWithTheSameMeanings) {
  // The README's "## Exit codes" table.
  const auto readme_bytes = test::read_file(test::source_path("README.md"));
  const std::string readme(reinterpret_cast<const char*>(readme_bytes.data()), readme_bytes.size());
  const auto section = readme.find("## Exit codes\n");
  ASSERT_NE(section, std::string::npos);
  const std::string table = readme.substr(section, readme.find("\n#", section + 1) - section);
  CodeTable in_readme;
  static const std::regex readme_row(R"(\| (\d) \| (.*) \|)");
  for (std::sregex_iterator it(table.begin(), table.end(), readme_row), end; it != end; ++it) {
    in_readme[std::stoi((*it)[1])] = normalized((*it)[2]);
  }

  // `hsperfguard --help`'s "Exit status:".
  const auto help = run_tool({"--help"});
  ASSERT_EQ(help.exit_code, 0);
  const auto status = help.out.find("Exit status:\n");
  ASSERT_NE(status, std::string::npos) << help.out;
  const CodeTable in_help = rows_of(help.out.substr(status), std::regex(R"(  (\d)  (.*))"));

  // The built man page's EXIT STATUS, rendered wide enough that no meaning is broken.
  const std::string page =
      std::filesystem::path(test::tool_path()).parent_path().string() + "/share/man/man1/hsperfguard.1.gz";
  ASSERT_TRUE(std::filesystem::exists(page)) << "the build made no man page";
  ASSERT_TRUE(test::have_program("man")) << "man (Debian: man-db)";
  const auto rendered = test::run({"sh", "-c", "LC_ALL=C MANWIDTH=400 man -l '" + page + "' | col -bx"});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  const auto man_status = rendered.out.find("\nEXIT STATUS\n");
  ASSERT_NE(man_status, std::string::npos) << rendered.out;
  const std::string man_section = rendered.out.substr(man_status + 1, rendered.out.find("\n\n\n", man_status) - man_status);
  // Up to the first subcommand's codes ("   hsperfguard audit"), each in its own words.
  CodeTable in_man = rows_of(man_section.substr(0, man_section.find("\n   hsperfguard ")),
                             std::regex(R"( +(\d) {2,}(.*))"));

  const CodeTable all = {{0, ""}, {1, ""}, {2, ""}, {3, ""}, {4, ""}, {5, ""}};
  ASSERT_EQ(in_help.size(), all.size()) << help.out;
  for (const auto& [code, meaning] : in_help) {
    EXPECT_FALSE(meaning.empty()) << code;
    EXPECT_EQ(in_readme[code], meaning) << "exit code " << code << ": README and --help differ";
    EXPECT_EQ(in_man[code], meaning) << "exit code " << code << ": the man page and --help differ";
  }
  EXPECT_EQ(in_readme.size(), all.size());
  EXPECT_EQ(in_man.size(), all.size()) << man_section;
}

}  // namespace
}  // namespace hsperfguard
