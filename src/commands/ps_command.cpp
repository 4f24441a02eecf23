#include "commands/ps_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <ostream>

#include "commands/discovery.hpp"
#include "commands/exit_codes.hpp"
#include "decide/discover.hpp"
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
  cmd->add_option("-f,--format", options.format, "text (the default) or json")
      ->check(CLI::IsMember({"json", "text"}));
  cmd->add_flag("--all", options.all,
                "Also list backing files that no live JVM owns (stale, pid-reused, foreign)");
  auto* no_containers =
      cmd->add_flag("--no-containers", options.no_containers, "Look at the host's temp dir only");
  cmd->add_option("--container", options.container_pid,
                  "Only the JVMs of the container that process PID is in")
      ->option_text("PID")
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

PsObservation observe_ps(const PsCommandOptions& options) {
  const HostInfo host = platform::observe_host();
  DiscoverOptions discover;
  discover.host_temp_dir = platform::default_temp_dir();
  discover.containers = !options.no_containers && host.euid == 0;
  discover.container_pid = options.container_pid;
  std::vector<ObservationError> errors;
  // The processes first, in one pass (the containers' views and the JVMs), then the files.
  // A JVM that exits in between keeps its row this once; one that starts in between is
  // judged by its file (and its lock: see below).
  std::vector<RootSpec> specs;
  std::vector<JvmProcessFacts> jvms;
  std::vector<ObservationError> jvm_errors;  // reported after the roots', as they always were
  platform::HostProcesses host_processes;
  if (wants_container_scan(discover)) {
    ContainerScanOptions scan_options = container_scan_options(discover);
    scan_options.place_processes = true;  // the liveness of container files, from this pass
    host_processes = platform::scan_host_processes(scan_options, jvm_errors);
    const ContainerScan& scan = host_processes.containers;
    if (const UnobservedProcesses& u = scan.unobserved; !u.empty()) {
      // Their maps need the same ptrace access as their namespace: a JVM among them, or in a
      // container of theirs, is not listed. Said first, and the listing is incomplete.
      errors.push_back(ObservationError{
          "/proc", "scan", u.errors.empty() ? 0 : u.errors.front().code,
          std::to_string(u.count) + " process" + (u.count == 1 ? "" : "es") +
              " could not be looked into (mount namespace or root unreadable; without "
              "CAP_SYS_PTRACE, their maps too): a JVM among them or in a container of theirs is "
              "not listed"});
    }
    errors.insert(errors.end(), scan.errors.begin(), scan.errors.end());
    specs = discover_roots(discover, &scan);
    jvms = std::move(host_processes.jvms);
  } else {
    jvms = platform::observe_jvm_processes(jvm_errors);
    specs = discover_roots(discover);
  }

  std::vector<TempRootFacts> roots;
  bool incomplete = !host_processes.containers.unobserved.empty();
  // The lock state is read only if a row depends on it (see ps_rows_depend_on_locks).
  platform::LivenessGatherer liveness(platform::LivenessOptions{.lock_state = false});
  liveness.adopt(jvms);
  liveness.adopt(host_processes.containers);
  platform::ObserveOptions observe;
  observe.worker_threads = false;
  for (const auto& spec : specs) {
    TempRootFacts& root = roots.emplace_back(platform::observe_temp_root(spec, observe));
    if (container_vanished(root) && !options.container_pid) {
      roots.pop_back();  // the container stopped since discovery
      continue;
    }
    if (!root.opened) incomplete = true;
    errors.insert(errors.end(), root.errors.begin(), root.errors.end());
    liveness.gather(root);
  }
  errors.insert(errors.end(), jvm_errors.begin(), jvm_errors.end());
  auto make_rows = [&] {
    std::vector<PsRow> made = ps_rows(roots, jvms, PsOptions{options.all});
    if (options.container_pid && !roots.empty() && roots.front().container) {
      // Only that container's JVMs: its backing files, and processes of its mount namespace.
      const std::string& mnt = roots.front().container->mount_namespace;
      std::erase_if(
          made, [&](const PsRow& r) { return !r.mount_namespace || *r.mount_namespace != mnt; });
    }
    return made;
  };
  std::vector<PsRow> rows = make_rows();
  if (ps_rows_depend_on_locks(rows)) {
    for (auto& root : roots) liveness.gather_locks(root);
    rows = make_rows();
  }
  return PsObservation{std::move(rows), std::move(errors), incomplete};
}

int run_ps_command(const PsCommandOptions& options, std::ostream& out, std::ostream& err) {
  const auto [rows, errors, incomplete] = observe_ps(options);
  const std::int64_t now = platform::now_epoch_ms();
  const bool json = options.format == "json";  // text unless --format json, wherever stdout goes
  if (json) {
    out << dump_json(ps_json(rows, now, errors)) << "\n";
  } else {
    out << ps_text(rows, now, platform::stdout_terminal_columns());
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
