// The command line: main only lists the subcommands; each declares its own options
// (commands/subcommand.hpp) in its own file.
#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "commands/audit_command.hpp"
#include "commands/completion.hpp"
#include "commands/create_command.hpp"
#include "commands/exit_codes.hpp"
#include "commands/inspect.hpp"
#include "commands/ps_command.hpp"
#include "commands/reap_command.hpp"
#include "commands/repair_command.hpp"
#include "commands/rules_command.hpp"
#include "commands/subcommand.hpp"
#include "platform/signals.hpp"
#include "version.hpp"

namespace hg = hsperfguard;

int main(int argc, char** argv) {
  hg::platform::ignore_broken_pipes();
  CLI::App app{"hsperfguard: audit and clean up the JVM's hsperfdata namespaces"};
  app.set_version_flag("--version", std::string("hsperfguard ") + hg::kVersion + " (" +
                                        hg::kBuildInfo + ")");
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print this help with every subcommand's options (the man page's source)");
  app.footer(
      "Exit codes: 0 clean/done, 1 findings at or above --fail-on (reap/repair: some actions\n"
      "failed), 2 usage error, 3 could not complete, 4 refused (unsafe existing state),\n"
      "5 invalid data (inspect: not a PerfData region).");

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? hg::kExitOk : hg::kExitUsage;
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
