// The hsperfguard executable: answers --version without a parser, parses the command line
// (commands/command_line.hpp) with the one subcommand it names when it can, else with all of
// them, says what is wrong with it, and runs the subcommand chosen. Each subcommand declares
// its own options (commands/subcommand.hpp) in its own file.
#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/command_line.hpp"
#include "commands/exit_codes.hpp"
#include "commands/help_format.hpp"
#include "commands/subcommand.hpp"
#include "platform/host.hpp"
#include "platform/signals.hpp"

namespace hg = hsperfguard;

namespace {

// What a run printed on standard output, flushed, and the status the run ends with. A reader
// that went away (`| head` that had its lines, a pager quit) took what it wanted: what only
// lists or shows (ps, rules, inspect, the help, the completion script) ends as it would have,
// quietly, as rg, fd and jps do. An audit's or a reap's report is the record of what was found
// or done: cut, the run did not complete (exit 3), as git's 141 says to `set -o pipefail`; the
// person who typed `| head` at a terminal needs no sentence about it, an unattended run (its
// standard error mailed or journaled) gets one. Any other failure to write (a full disk, an
// I/O error) is said, and the run is incomplete, whatever it printed.
int finish_output(int rc, bool only_shows) {
  if (std::cout.flush()) return rc;
  const bool reader_gone = hg::platform::stdout_reader_gone();
  if (reader_gone && only_shows) return rc;
  if (!reader_gone || !hg::platform::stderr_is_terminal()) {
    std::cerr << "hsperfguard: cannot write to standard output ("
              << (reader_gone ? "its reader closed it" : "failing") << "): what this run printed is incomplete\n";
  }
  return rc == hg::kExitOk || rc == hg::kExitFindings ? hg::kExitIncomplete : rc;
}

// Runs the subcommand the command line chose.
int run_parsed(const std::vector<hg::SubcommandHook>& subcommands) {
  for (const auto& subcommand : subcommands) {
    if (!*subcommand.cmd) continue;
    return finish_output(subcommand.run(), hg::only_shows(subcommand.cmd->get_name()));
  }
  return hg::kExitUsage;
}

// A run that names one subcommand is parsed with that one alone, and run; nullopt when that
// parser refuses it (an error, --help): it is parsed again with every subcommand.
std::optional<int> run_alone(int argc, char** argv, const std::vector<std::string>& args) {
  const std::string_view alone = hg::subcommand_alone(args);
  if (alone.empty()) return std::nullopt;
  hg::CommandLine line(alone);
  try {
    line.app.parse(argc, argv);
  } catch (const CLI::ParseError&) {
    return std::nullopt;
  }
  if (const auto problem = hg::contradicting_flag(line.app)) {
    std::cerr << *problem << "\n";
    return hg::kExitUsage;
  }
  return run_parsed(line.subcommands);
}

// `help [SUBCOMMAND [SUBCOMMAND]]` (git's `git help COMMAND`): that help, as --help prints it;
// a topic it does not have is a usage error with the nearest match.
int print_help(const CLI::App& app, const std::vector<std::string>& args) {
  const std::vector<std::string> topic(args.begin() + 1, args.end());
  const CLI::App* about = hg::help_topic(app, topic);
  if (about == nullptr) {
    std::cerr << hg::unknown_topic_message(app, topic) << "\n";
    return hg::kExitUsage;
  }
  std::cout << about->help();
  return finish_output(hg::kExitOk, true);
}

}  // namespace

int main(int argc, char** argv) {
  if (const int e = hg::platform::hold_standard_streams(); e != 0) {
    std::cerr << "hsperfguard: a standard stream is closed and nothing can be opened in its place ("
              << std::strerror(e) << "): not run\n";
    return hg::kExitIncomplete;
  }
  hg::platform::ignore_broken_pipes();
  // Until main returns, what is printed is written whole (a terminal or pipe another program
  // made non-blocking cut the report: platform/host.hpp).
  const hg::platform::WholeStandardOutput whole_output;
  // The version alone (what a package manager or a monitoring probe asks, often): printed
  // before the parser and its seven subcommands are built, so that a probe pays for none of
  // them.
  if (argc == 2 && (std::string_view(argv[1]) == "--version" || std::string_view(argv[1]) == "-V")) {
    std::cout << hg::version_line() << "\n";
    return finish_output(hg::kExitOk, true);
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (const auto rc = run_alone(argc, argv, args)) return *rc;
  hg::CommandLine line;
  CLI::App& app = line.app;
  // No subcommand: what there is to run. `help [SUBCOMMAND]`: that help, as --help prints it.
  if (args.empty()) {
    std::cerr << hg::short_usage(app);
    return hg::kExitUsage;
  }
  if (args.front() == "help") return print_help(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped subcommand or option: the nearest match, whatever the parser made of it.
    if (e.get_exit_code() != 0) {
      if (const auto message = hg::unknown_word_message(app, args)) {
        std::cerr << *message << "\n";
        return hg::kExitUsage;
      }
    }
    // --help, --help-all, --bash-completion (printed while parsing).
    if (e.get_exit_code() == 0) return finish_output(app.exit(e), true);
    // A value the option does not take: the option, what it takes, what was given.
    if (const auto message = hg::value_error_message(app, args, e.what())) {
      std::cerr << *message << "\n";
      return hg::kExitUsage;
    }
    std::cerr << hg::usage_error_message(app, args, e.what()) << "\n";
    return hg::kExitUsage;
  }
  if (const auto problem = hg::contradicting_flag(app)) {
    std::cerr << *problem << "\n";
    return hg::kExitUsage;
  }
  return run_parsed(line.subcommands);
}
