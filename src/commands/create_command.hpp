// The `create` command end to end: resolve the user, observe and judge what exists, make
// the namespace (and a backing region with --pid), then observe and judge what was made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

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
};

class Environment;

// Creates in the world `env` shows (commands/environment.hpp; the real one by default).
int run_create_command(const CreateCommandOptions& options, std::ostream& out, std::ostream& err);
int run_create_command(const CreateCommandOptions& options, std::ostream& out, std::ostream& err,
                       Environment& env);

[[nodiscard]] SubcommandHook add_create_command(CLI::App& app);

}  // namespace hsperfguard
