#include "commands/ps_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <ostream>
#include <string_view>

#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "commands/exit_codes.hpp"
#include "commands/output_target.hpp"
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
  add_output_option(cmd, options.output);
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
  // Named members, not a structured binding: the render lambda below uses them (clang 14
  // cannot capture a structured binding).
  const PsObservation observed = observe_ps(options, env);
  const std::vector<PsRow>& rows = observed.rows;
  const std::vector<ObservationError>& errors = observed.errors;
  const bool incomplete = observed.incomplete;
  const std::int64_t now = env.now_epoch_ms();
  const bool json = options.format == "json";  // text unless --format json, wherever stdout goes
  const int exit_code = incomplete ? kExitIncomplete : kExitOk;
  // --output: the list in a file (no terminal: no line cut to its width).
  const auto render = [&](const platform::ContentSink& write) {
    write(json ? dump_json(ps_json(rows, now, errors)) + "\n"
               : ps_text(rows, now, options.output ? std::nullopt : env.stdout_terminal_columns()));
  };
  if (options.output) {
    if (auto error = write_output_to(*options.output, render, platform::OutputOptions{}, &out)) {
      err << "hsperfguard: ps: cannot write " << terminal_safe(*options.output) << ": " << terminal_safe(error->op)
          << ": " << terminal_safe(error->message) << "\n";
      return kExitIncomplete;
    }
  } else {
    render([&](std::string_view piece) { out.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
  }
  if (!json) {
    if (!errors.empty()) {
      err << "hsperfguard: ps: " << errors.size() << " thing" << (errors.size() == 1 ? "" : "s")
          << " could not be observed (first: " << terminal_safe(errors.front().path) << ": "
          << terminal_safe(errors.front().op) << ": " << terminal_safe(errors.front().message) << ")\n";
    }
  }
  out.flush();
  // The last line says why the status is not 0 (on stderr: the list on stdout stays a list).
  if (exit_code != kExitOk) err << "hsperfguard: ps: " << exit_line("ps", exit_code) << "\n";
  return exit_code;
}

}  // namespace hsperfguard
