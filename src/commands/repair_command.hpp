// The `repair` command end to end: observe and judge like `audit`, plan the fixes
// (decide/repair.hpp), print the plan (--dry-run stops there), apply it, and say what is left
// and why the run exits as it does (report/repair_report.hpp: text or JSON).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "commands/output_target.hpp"  // ReportFormat, ColorChoice
#include "commands/subcommand.hpp"

namespace hsperfguard {

struct RepairCommandOptions {
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  bool dry_run = false;
  std::string profile = "default";
  // The site policy on the profile, as the audit reads it (subcommand.hpp: load_policy).
  std::optional<std::string> policy_file;
  bool policy_file_is_default = false;
  std::optional<ReportFormat> format;  // default: text, wherever stdout goes
  std::optional<std::string> output;   // the report to this file (written to a temp name, renamed)
  bool quiet = false;                  // no report on stdout: what needs a person, one line each
  ColorChoice color = ColorChoice::automatic;  // text on stdout only (output_target.hpp)
};

class Environment;

// Repairs the world `env` shows (commands/environment.hpp; the real one by default).
int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err);
int run_repair_command(const RepairCommandOptions& options, std::ostream& out, std::ostream& err,
                       Environment& env);

[[nodiscard]] SubcommandHook add_repair_command(CLI::App& app);

}  // namespace hsperfguard
