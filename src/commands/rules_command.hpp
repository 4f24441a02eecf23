// `hsperfguard rules`: the compiled-in rule catalogue.
#pragma once

#include <iosfwd>

#include "commands/subcommand.hpp"

namespace hsperfguard {

int run_rules_command(bool json, std::ostream& out);

// Adds `rules` and its options to the command line.
[[nodiscard]] SubcommandHook add_rules_command(CLI::App& app);

}  // namespace hsperfguard
