// The whole command line: the parser with its subcommands, built once per run, with all of
// them or (for a run that names one and no other) with that one alone.
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands/subcommand.hpp"

namespace hsperfguard {

// "hsperfguard <version> (<build>)", what --version prints.
std::string version_line();

// Every subcommand's name, in the order of --help.
std::span<const std::string_view> subcommand_names();

// Whether the subcommand `name` only lists or shows (ps, rules, inspect): a reader of its
// output that goes away early has what it wanted, and the run ends quietly (main.cpp). An
// audit's or a reap's report is a record, and a cut one makes the run incomplete.
bool only_shows(std::string_view name);

// The parser. Built with every subcommand, or with `only` alone (a name of
// subcommand_names()): building the seven costs about 0.2 ms of every run's start
// (bench_start_time: `help ps` 1,024 us, `--version`, which builds nothing, 772 us). Built for one subcommand, it has no
// --bash-completion (the one flag that acts while parsing). Not moved once made: the hooks and
// the flag callbacks refer to it.
struct CommandLine {
  explicit CommandLine(std::string_view only = {});
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  CLI::App app;
  std::vector<SubcommandHook> subcommands;
};

// The subcommand a run may be parsed with alone: `args` (argv without argv[0]) begin with a
// subcommand's name and no other argument is another subcommand's name. The parser then takes
// the same arguments the same way with or without the others (CLI11 matches a subcommand by
// its exact name, here with no aliases, prefixes, case folding, environment or config file);
// whatever it refuses (an error, --help) is parsed again with every subcommand, so that
// messages and help are the whole parser's. Empty when the run needs the whole parser.
std::string_view subcommand_alone(const std::vector<std::string>& args);


}  // namespace hsperfguard
