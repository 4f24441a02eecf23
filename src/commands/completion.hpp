// Shell completion generated from the command line's own definitions (CLI11), so that it
// cannot drift from --help: `hsperfguard --bash-completion` prints it; the packages install it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace hsperfguard {

// A bash completion script for `app` and its subcommands: subcommand names, each one's
// options, the choices of an option whose values are a fixed set (`--format json|text`), file
// names for an option that takes a path, nothing for one that takes a number or a duration.
// zsh loads it through bashcompinit.
std::string bash_completion(const CLI::App& app);

}  // namespace hsperfguard
