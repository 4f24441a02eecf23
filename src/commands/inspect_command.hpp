// `hsperfguard inspect`: decode one backing file.
#pragma once

#include <iosfwd>
#include <string>

#include "commands/subcommand.hpp"
#include "model/perfdata.hpp"

namespace hsperfguard {

enum class InspectFormat { snap, json, text };

struct InspectOptions {
  std::string target;  // a path, or a decimal pid resolved like jstat does
  InspectFormat format = InspectFormat::text;
  bool supported_only = false;  // snap: hide counters without the "supported" flag
  std::string temp_dir;         // where pids are resolved; empty: the platform default
};

class Environment;

// Prints the decoded region to `out`, a one-line error to `err`; returns an exit code. Reads
// the world `env` shows (commands/environment.hpp; the real one by default).
int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err);
int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err, Environment& env);

// Adds `inspect` and its options to the command line.
[[nodiscard]] SubcommandHook add_inspect_command(CLI::App& app);

}  // namespace hsperfguard
