// The `create` command end to end: resolve the user, observe and judge what exists, make
// the namespace (and a backing region with --pid), then observe and judge what was made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "commands/output_target.hpp"  // ReportFormat, ColorChoice
#include "commands/subcommand.hpp"

namespace hsperfguard {

struct CreateCommandOptions {
  std::string user;
  std::optional<std::string> tmpdir;
  std::optional<std::string> root;
  std::string mode = "0755";
  std::optional<std::int32_t> pid;
  std::optional<std::size_t> size;
  std::optional<std::string> command;
  std::string profile = "default";
  // The site policy on the profile, as the audit reads it (subcommand.hpp: load_policy).
  std::optional<std::string> policy_file;
  bool policy_file_is_default = false;
  std::optional<ReportFormat> format;  // default: text, wherever stdout goes
  std::optional<std::string> output;   // the report to this file (written to a temp name, renamed)
  bool quiet = false;                  // no report on stdout: only the exit line of a failed run
  // The severities of the findings in the report (those below the threshold), as the audit
  // colours them; the refusals go to stderr, never coloured.
  ColorChoice color = ColorChoice::automatic;
};

class Environment;

// Creates in the world `env` shows (commands/environment.hpp; the real one by default).
int run_create_command(const CreateCommandOptions& options, std::ostream& out, std::ostream& err);
int run_create_command(const CreateCommandOptions& options, std::ostream& out, std::ostream& err,
                       Environment& env);

[[nodiscard]] SubcommandHook add_create_command(CLI::App& app);

}  // namespace hsperfguard
