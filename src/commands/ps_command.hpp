// The `ps` command: every JVM of the host, like `jps -l` but across users and containers,
// and without starting a JVM.
#pragma once

#include <iosfwd>

#include "commands/ps_observation.hpp"
#include "commands/subcommand.hpp"

namespace hsperfguard {

class Environment;

// Adds `ps` and its options to the command line.
[[nodiscard]] SubcommandHook add_ps_command(CLI::App& app);

// Lists the JVMs of the world `env` shows (commands/environment.hpp; the real one by default).
int run_ps_command(const PsCommandOptions& options, std::ostream& out, std::ostream& err);
int run_ps_command(const PsCommandOptions& options, std::ostream& out, std::ostream& err,
                   Environment& env);

}  // namespace hsperfguard
