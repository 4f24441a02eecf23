// The man page hsperfguard(1), written from the parser itself: every subcommand (nested ones
// too), its usage, its footer and every option with the name, value and description its
// --help prints, and the tables --help ends with (the syntax of a value, the legend of a
// column, the exit codes of each subcommand), in the place of the lines of docs/hsperfguard.1.in
// that name them. The prose around them (description, threat model, files, examples) is that
// template's. An option or a subcommand added to the parser is in the page without more work.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace hsperfguard {

// The page: `page_template` with each line that is one of @NAME@, @SYNOPSIS@, @OPTIONS@,
// @COMMANDS@, @VALUES@, @LEGENDS@ and @EXIT_STATUS@ replaced by that section made from `app`
// (the whole command line, commands/command_line.hpp) and the help tables, under a .TH line
// naming `version`; the template's comment lines (.\") are left out. nullopt, with `error`
// saying why, when a placeholder is missing, repeated or unknown.
std::optional<std::string> man_page(const CLI::App& app, std::string_view page_template, std::string_view version,
                                    std::string& error);

// `text` as roff text: backslashes, dashes and quotes escaped (a dash is a minus sign, so that
// a copied option works), a leading dot made plain, newlines joined with spaces.
std::string roff_text(std::string_view text);

}  // namespace hsperfguard
