// The command line: main only builds the parser (commands/command_line.hpp); each subcommand
// declares its own options (commands/subcommand.hpp) in its own file.
#include <CLI/CLI.hpp>
#include <iostream>
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

}  // namespace

int main(int argc, char** argv) {
  hg::platform::ignore_broken_pipes();
  // The version alone (what a package manager or a monitoring probe asks, often): printed
  // before the parser and its seven subcommands are built, which is most of what the
  // process would cost.
  if (argc == 2 && (std::string_view(argv[1]) == "--version" || std::string_view(argv[1]) == "-V")) {
    std::cout << hg::version_line() << "\n";
    return std::cout.flush() ? hg::kExitOk : hg::kExitIncomplete;
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  // A run that names one subcommand is parsed with that one alone; what that parser refuses
  // (an error, --help) is parsed again below with every subcommand.
  if (const std::string_view alone = hg::subcommand_alone(args); !alone.empty()) {
    hg::CommandLine line(alone);
    bool parsed = true;
    try {
      line.app.parse(argc, argv);
    } catch (const CLI::ParseError&) {
      parsed = false;
    }
    if (parsed) {
      if (const auto problem = hg::contradicting_flag(line.app)) {
        std::cerr << *problem << "\n";
        return hg::kExitUsage;
      }
      return run_parsed(line.subcommands);
    }
  }
  hg::CommandLine line;
  CLI::App& app = line.app;
  // No subcommand: what there is to run. `help [SUBCOMMAND]`: that help, as --help prints it.
  if (args.empty()) {
    std::cerr << hg::short_usage(app);
    return hg::kExitUsage;
  }
  if (args.front() == "help" && args.size() <= 2) {
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
