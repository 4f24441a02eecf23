// `hsperfguard rules`: the compiled-in rule catalogue.
#pragma once

#include <iosfwd>
#include <string_view>

#include "commands/subcommand.hpp"

namespace hsperfguard {

int run_rules_command(bool json, std::ostream& out);
// `rules show ID`: one rule's title, severity by profile, rationale, evidence, remedy and
// whether repair fixes it. An unknown id is a usage error with the nearest id, if any.
int run_rules_show_command(std::string_view id, bool json, std::ostream& out, std::ostream& err);

// Adds `rules` and its options to the command line.
[[nodiscard]] SubcommandHook add_rules_command(CLI::App& app);

}  // namespace hsperfguard
