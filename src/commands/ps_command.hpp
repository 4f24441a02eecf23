// The `ps` command: every JVM of the host, like `jps -l` but across users and containers,
// and without starting a JVM.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include <vector>

#include "commands/subcommand.hpp"
#include "decide/ps.hpp"

namespace hsperfguard {

struct PsCommandOptions {
  std::string format;  // "json" or "text"; empty: text, wherever stdout goes
  bool all = false;    // also backing files that no live JVM owns
  bool no_containers = false;
  std::optional<std::int32_t> container_pid;  // only the JVMs of this process's container
};

// Adds `ps` and its options to the command line.
[[nodiscard]] SubcommandHook add_ps_command(CLI::App& app);

int run_ps_command(const PsCommandOptions& options, std::ostream& out, std::ostream& err);

// What `ps` observed and made of it: its rows, the errors met, and whether it is incomplete
// (a temp dir not opened, processes not looked into). `inspect PID` takes its diagnosis of a
// JVM with no backing file from these rows.
struct PsObservation {
  std::vector<PsRow> rows;
  std::vector<ObservationError> errors;
  bool incomplete = false;
};
PsObservation observe_ps(const PsCommandOptions& options);

}  // namespace hsperfguard
