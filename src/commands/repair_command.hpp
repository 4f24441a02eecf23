// The `repair` command end to end: observe and judge like `audit`, plan the fixes
// (decide/repair.hpp), print the plan (--dry-run stops there), apply it, and say what is left.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "commands/subcommand.hpp"

namespace hsperfguard {

struct RepairCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  bool dry_run = false;
  std::string profile = "default";
};

class Environment;

// Repairs the world `env` shows (commands/environment.hpp; the real one by default).
int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err);
int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err,
                       Environment& env);

[[nodiscard]] SubcommandHook add_repair_command(CLI::App& app);

}  // namespace hsperfguard
