#include "commands/ps_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <ostream>

#include "commands/discovery.hpp"
#include "commands/exit_codes.hpp"
#include "decide/ps.hpp"
#include "model/text_escape.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/liveness.hpp"
#include "platform/observe.hpp"
#include "platform/ps.hpp"
#include "report/ps_report.hpp"
#include "report/report_json.hpp"

namespace hsperfguard {

SubcommandHook add_ps_command(CLI::App& app) {
  auto options_ptr = std::make_shared<PsCommandOptions>();
  PsCommandOptions& options = *options_ptr;
  auto* cmd = app.add_subcommand(
      "ps", "List every JVM of the host, across users and containers (without starting a JVM)");
  cmd->add_option("--format", options.format, "json or text (default: text on a terminal)")
      ->check(CLI::IsMember({"json", "text"}));
  cmd->add_flag("--all", options.all,
                "Also list backing files that no live JVM owns (stale, pid-reused, foreign)");
  auto* no_containers =
      cmd->add_flag("--no-containers", options.no_containers, "Look at the host's temp dir only");
  cmd->add_option("--container", options.container_pid,
                  "Only the JVMs of the container that process PID is in")
      ->check(CLI::PositiveNumber)
      ->excludes(no_containers);
  cmd->footer(
      "STATE is the backing file's verdict (live, unknown, stale, pid-reused, foreign), or\n"
      "blind: a live process that maps libjvm.so but no backing file (-XX:-UsePerfData,\n"
      "-XX:+PerfDisableSharedMem, or a namespace HotSpot refused); jps cannot see those.\n"
      "Containers are looked at when running as root.");
  return SubcommandHook{
      cmd, [options_ptr]() { return run_ps_command(*options_ptr, std::cout, std::cerr); }};
}

int run_ps_command(const PsCommandOptions& options, std::ostream& out, std::ostream& err) {
  const HostInfo host = platform::observe_host();
  DiscoverOptions discover;
  discover.host_temp_dir = platform::default_temp_dir();
  discover.containers = !options.no_containers && host.euid == 0;
  discover.container_pid = options.container_pid;
  std::vector<ObservationError> errors;
  const auto specs = discover_roots_scanning(discover, &errors);

  std::vector<TempRootFacts> roots;
  bool incomplete = false;
  platform::LivenessGatherer liveness;
  for (const auto& spec : specs) {
    TempRootFacts& root = roots.emplace_back(platform::observe_temp_root(spec, {}));
    if (container_vanished(root) && !options.container_pid) {
      roots.pop_back();  // the container stopped since discovery
      continue;
    }
    if (!root.opened) incomplete = true;
    errors.insert(errors.end(), root.errors.begin(), root.errors.end());
    liveness.gather(root);
  }
  const auto jvms = platform::observe_jvm_processes(errors);
  std::vector<PsRow> rows = ps_rows(roots, jvms, PsOptions{options.all});
  if (options.container_pid && !roots.empty() && roots.front().container) {
    // Only that container's JVMs: its backing files, and processes of its mount namespace.
    const std::string& mnt = roots.front().container->mount_namespace;
    std::erase_if(rows, [&](const PsRow& r) { return !r.mount_namespace || *r.mount_namespace != mnt; });
  }

  const std::int64_t now = platform::now_epoch_ms();
  const bool json = options.format.empty() ? !platform::stdout_is_terminal() : options.format == "json";
  if (json) {
    out << dump_json(ps_json(rows, now, errors)) << "\n";
  } else {
    out << ps_text(rows, now);
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
