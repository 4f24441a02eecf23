#include "commands/command_line.hpp"

#include <algorithm>
#include <array>
#include <iostream>
#include <memory>

#include "commands/audit_command.hpp"
#include "commands/completion.hpp"
#include "commands/create_command.hpp"
#include "commands/help_format.hpp"
#include "commands/inspect_command.hpp"
#include "commands/ps_command.hpp"
#include "commands/reap_command.hpp"
#include "commands/repair_command.hpp"
#include "commands/rules_command.hpp"
#include "version.hpp"

namespace hsperfguard {
namespace {

struct SubcommandEntry {
  std::string_view name;
  SubcommandHook (*add)(CLI::App&);
  bool only_shows;  // lists or shows, acts on nothing, reports nothing a run is judged by
};

// In the order of --help. Each name is the one its add_*_command gives the subcommand
// (CommandLine.EachSubcommandBuiltAloneIsTheOneNamedWithTheSameOptionsAndHelp checks it).
constexpr std::array<SubcommandEntry, 7> kSubcommands{{
    {"audit", add_audit_command, false},
    {"rules", add_rules_command, true},
    {"inspect", add_inspect_command, true},
    {"reap", add_reap_command, false},
    {"ps", add_ps_command, true},
    {"create", add_create_command, false},
    {"repair", add_repair_command, false},
}};

constexpr std::array<std::string_view, kSubcommands.size()> kNames = [] {
  std::array<std::string_view, kSubcommands.size()> names{};
  std::size_t i = 0;
  for (const SubcommandEntry& entry : kSubcommands) names[i++] = entry.name;
  return names;
}();

}  // namespace

std::string version_line() {
  return std::string("hsperfguard ") + kVersion + " (" + kBuildInfo + ")";
}

std::span<const std::string_view> subcommand_names() { return kNames; }

bool only_shows(std::string_view name) {
  return std::any_of(kSubcommands.begin(), kSubcommands.end(),
                     [&](const SubcommandEntry& entry) { return entry.name == name && entry.only_shows; });
}

CommandLine::CommandLine(std::string_view only)
    // Named, not taken from argv[0]: the help says `hsperfguard`, however it was started.
    : app("hsperfguard: audit and clean up the JVM's hsperfdata namespaces", std::string(kProgramName)) {
  // Before the subcommands are added: they take the parent's formatter.
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.set_version_flag("-V,--version", version_line());
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print this help with every subcommand's options");
  for (const SubcommandEntry& entry : kSubcommands) {
    if (only.empty() || entry.name == only) subcommands.push_back(entry.add(app));
  }
  // The one flag whose callback acts while the command line is parsed. A parser built for one
  // subcommand has none (CLI11 can hand a top-level flag back to the parent, as after `--`):
  // what it refuses the whole parser parses again, and nothing is printed twice.
  if (!only.empty()) return;
  // Generated from the definitions above, so it lists exactly what --help-all does.
  app.add_flag_callback(
      "--bash-completion",
      [this] {
        std::cout << bash_completion(app);
        throw CLI::Success();
      },
      "Print a bash completion script for these subcommands and options (the packages install it)");
}

std::string_view subcommand_alone(const std::vector<std::string>& args) {
  if (args.empty()) return {};
  const auto named = std::find(kNames.begin(), kNames.end(), args.front());
  if (named == kNames.end()) return {};
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] != *named && std::find(kNames.begin(), kNames.end(), args[i]) != kNames.end()) return {};
  }
  return *named;
}

}  // namespace hsperfguard
