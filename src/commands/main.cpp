// The hsperfguard executable: answers --version without a parser, parses the command line
// (commands/command_line.hpp) with the one subcommand it names when it can, else with all of
// them, says what is wrong with it, and runs the subcommand chosen. Each subcommand declares
// its own options (commands/subcommand.hpp) in its own file.
#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/command_line.hpp"
#include "commands/exit_codes.hpp"
#include "commands/help_format.hpp"
#include "commands/subcommand.hpp"
#include "model/text_escape.hpp"
#include "platform/signals.hpp"

namespace hg = hsperfguard;

namespace {

// Runs the subcommand the command line chose.
int run_parsed(const std::vector<hg::SubcommandHook>& subcommands) {
  for (const auto& subcommand : subcommands) {
    if (!*subcommand.cmd) continue;
    int rc = subcommand.run();
    // Standard output closed by its reader, or failing (a full disk): what it should have
    // carried (the report, the lines cron mails) is cut, so the run did not complete, whatever
    // it did besides (a reap's removals are journaled and logged).
    if (!std::cout.flush()) {
      std::cerr << "hsperfguard: cannot write to standard output (closed by its reader, or failing): "
                   "what this run printed is incomplete\n";
      if (rc == hg::kExitOk || rc == hg::kExitFindings) rc = hg::kExitIncomplete;
    }
    return rc;
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

// `help [SUBCOMMAND]`: that help, as --help prints it.
int print_help(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* about = &app;
  if (args.size() == 2) {
    about = nullptr;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == args[1]) about = sub;
    }
    if (about == nullptr) {
      std::cerr << hg::unknown_word_message(app, {args[1]}).value_or("hsperfguard: help: no subcommand " +
                                                                     hg::terminal_safe(args[1]))
                << "\n";
      return hg::kExitUsage;
    }
  }
  std::cout << about->help();
  return hg::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  hg::platform::ignore_broken_pipes();
  // The version alone (what a package manager or a monitoring probe asks, often): printed
  // before the parser and its seven subcommands are built, so that a probe pays for none of
  // them.
  if (argc == 2 && (std::string_view(argv[1]) == "--version" || std::string_view(argv[1]) == "-V")) {
    std::cout << hg::version_line() << "\n";
    return std::cout.flush() ? hg::kExitOk : hg::kExitIncomplete;
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
  if (args.front() == "help" && args.size() <= 2) return print_help(app, args);
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
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << hg::usage_error_message(app, args, e.what()) << "\n";
    return hg::kExitUsage;
  }
  if (const auto problem = hg::contradicting_flag(app)) {
    std::cerr << *problem << "\n";
    return hg::kExitUsage;
  }
  return run_parsed(line.subcommands);
}
