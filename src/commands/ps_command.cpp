#include "commands/ps_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <ostream>

#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "model/text_escape.hpp"
#include "report/ps_report.hpp"
#include "report/audit_report_json.hpp"

namespace hsperfguard {

SubcommandHook add_ps_command(CLI::App& app) {
  auto options_ptr = std::make_shared<PsCommandOptions>();
  PsCommandOptions& options = *options_ptr;
  auto* cmd = app.add_subcommand(
      "ps", "List every JVM of the host, across users and containers (without starting a JVM)");
  add_format_option(cmd, options.format);
  cmd->add_flag("--all", options.all,
                "Also list backing files that no live JVM owns (stale, pid-reused, foreign)");
  add_container_options(cmd, options.no_containers, options.container_pid,
                        "Only the JVMs of the container that process PID is in",
                        "Look at the host's temp dir only");
  // STATE's legend follows, from the table the man page prints too (commands/help_format.hpp).
  cmd->footer("Containers are looked at when running as root.");
  return SubcommandHook{
      cmd, [options_ptr]() { return run_ps_command(*options_ptr, std::cout, std::cerr); }};
}

int run_ps_command(const PsCommandOptions& options, std::ostream& out, std::ostream& err) {
  return run_ps_command(options, out, err, system_environment());
}

int run_ps_command(const PsCommandOptions& options, std::ostream& out, std::ostream& err,
                   Environment& env) {
  if (auto problem = container_pid_problem(env, options.container_pid)) {
    err << "hsperfguard: ps: " << *problem << "\n";
    return kExitUsage;
  }
  const auto [rows, errors, incomplete] = observe_ps(options, env);
  const std::int64_t now = env.now_epoch_ms();
  const bool json = options.format == "json";  // text unless --format json, wherever stdout goes
  if (json) {
    out << dump_json(ps_json(rows, now, errors)) << "\n";
  } else {
    out << ps_text(rows, now, env.stdout_terminal_columns());
    if (!errors.empty()) {
      err << "hsperfguard: ps: " << errors.size() << " thing" << (errors.size() == 1 ? "" : "s")
          << " could not be observed (first: " << terminal_safe(errors.front().path) << ": "
          << terminal_safe(errors.front().op) << ": " << terminal_safe(errors.front().message) << ")\n";
    }
  }
  out.flush();
  return incomplete ? kExitIncomplete : kExitOk;
}

}  // namespace hsperfguard
