// The command line: main only lists the subcommands; each declares its own options
// (commands/subcommand.hpp) in its own file.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands/audit_command.hpp"
#include "commands/completion.hpp"
#include "commands/create_command.hpp"
#include "commands/exit_codes.hpp"
#include "commands/help_format.hpp"
#include "commands/inspect.hpp"
#include "commands/ps_command.hpp"
#include "commands/reap_command.hpp"
#include "commands/repair_command.hpp"
#include "commands/rules_command.hpp"
#include "commands/subcommand.hpp"
#include "platform/signals.hpp"
#include "version.hpp"

namespace hg = hsperfguard;

namespace {

std::string version_line() {
  return std::string("hsperfguard ") + hg::kVersion + " (" + hg::kBuildInfo + ")";
}

}  // namespace

int main(int argc, char** argv) {
  hg::platform::ignore_broken_pipes();
  // The version alone (what a package manager or a monitoring probe asks, often): printed
  // before the parser and its seven subcommands are built, which is most of what the
  // process would cost.
  if (argc == 2 && (std::string_view(argv[1]) == "--version" || std::string_view(argv[1]) == "-V")) {
    std::cout << version_line() << "\n";
    return std::cout.flush() ? hg::kExitOk : hg::kExitIncomplete;
  }
  // Named, not taken from argv[0]: the help says `hsperfguard`, however it was started.
  CLI::App app{"hsperfguard: audit and clean up the JVM's hsperfdata namespaces", std::string(hg::kProgramName)};
  // Before the subcommands are added: they take the parent's formatter.
  app.formatter(std::make_shared<hg::HelpFormatter>());
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.set_version_flag("-V,--version", version_line());
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print this help with every subcommand's options (the man page's source)");

  // In the order of --help.
  const std::vector<hg::SubcommandHook> subcommands = {
      hg::add_audit_command(app),  hg::add_rules_command(app), hg::add_inspect_command(app),
      hg::add_reap_command(app),   hg::add_ps_command(app),    hg::add_create_command(app),
      hg::add_repair_command(app),
  };

  // Generated from the definitions above, so it lists exactly what --help-all does.
  app.add_flag_callback(
      "--bash-completion",
      [&app] {
        std::cout << hg::bash_completion(app);
        throw CLI::Success();
      },
      "Print a bash completion script for these subcommands and options (the packages install it)");

  const std::vector<std::string> args(argv + 1, argv + argc);
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
        std::cerr << hg::unknown_word_message(app, {args[1]}).value_or("hsperfguard: help: no subcommand " + args[1]) << "\n";
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
