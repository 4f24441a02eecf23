// Help and usage errors for people: the help formatter (each option with a metavar that says
// what to pass, its description wrapped, its constraints as a sentence, the program's name and
// each subcommand's exit codes), the tables a help ends with (the syntax of a value, the legend
// of an output's column; the man page prints the same ones: commands/man_page.hpp), the nearest
// match for a mistyped subcommand or option, and the short usage printed when no subcommand is
// given.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/nearest_word.hpp"

namespace hsperfguard {

// The name the help and the messages give the program, whatever argv[0] was.
inline constexpr std::string_view kProgramName = "hsperfguard";

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter();
  std::string make_description(const CLI::App* app) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;
  std::string make_option_usage(const CLI::Option* opt) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_footer(const CLI::App* app) const override;
};

// A word an output or a value uses, and what it means: one row of a table that --help and the
// man page both print.
struct HelpTerm {
  std::string_view term;
  std::string_view meaning;
};

// The syntax of each kind of value a metavar names that needs one (DURATION): a subcommand's
// --help ends with the rows of the kinds its options take, the man page has a section of each.
std::span<const HelpTerm> value_syntax_table();

// The legend of a column of a subcommand's text output (ps's STATE): in that subcommand's
// --help, and a section of the man page. `subcommand` is its path below the program.
struct ColumnLegend {
  std::string_view subcommand;
  std::string_view column;
  std::string_view intro;
  std::span<const HelpTerm> terms;
};
std::span<const ColumnLegend> column_legends();

// The subcommand's words as typed: "hsperfguard", "hsperfguard rules show".
std::string command_path(const CLI::App* app);

// "text" wrapped at `width` columns, every line but the first indented by `indent` spaces
// (the first is where the caller's column is); a newline in `text` starts a new line.
std::string wrap_text(std::string_view text, std::size_t indent, std::size_t width);

// "Exit status:" and one line per code ("  0  clean ..."): the whole table for "" (the
// program's --help), else the codes `subcommand` can end with (commands/exit_codes.hpp).
std::string exit_status_help(std::string_view subcommand);

// The message for a command line naming a subcommand or option `app` does not have, with the
// nearest match ("unknown subcommand 'audti'; did you mean 'audit'?"), or nullopt when every
// word is known (the parser's own message stands).
std::optional<std::string> unknown_word_message(const CLI::App& app, const std::vector<std::string>& args);

// The subcommand `help TOPIC...` is about: the program for no topic (or `help`), else the
// subcommand the words name, one level after the other ("rules", "show"); nullptr when a word
// names none.
const CLI::App* help_topic(const CLI::App& app, const std::vector<std::string>& topic);

// The usage error for a `help` topic help_topic does not know, with the nearest match and the
// subcommands there are: "hsperfguard: help: no subcommand 'rules shwo'; did you mean 'rules show'?".
std::string unknown_topic_message(const CLI::App& app, const std::vector<std::string>& topic);

// What an option's value must be, said for a person: "a DURATION (e.g. 90s, 15m, 2h, 7d; at
// most 3650d)", "a PID (a process id: a whole number from 1)", "one of json, text".
std::string value_wanted(const CLI::Option& option);

// The parser's refusal of an option's value (`what`: missing, not converted, not valid), said
// in one line that names the subcommand, the option, what it takes and what was given, with
// the nearest choice of a closed set: "hsperfguard: reap: --min-age needs a DURATION (...):
// got 'x'". nullopt when `what` is about no option `args` give a value to.
std::optional<std::string> value_error_message(const CLI::App& app, const std::vector<std::string>& args,
                                               std::string_view what);

// Any other error of the parser's (`what`), said by the subcommand `args` name, with where to
// read its options: "hsperfguard audit: --tmpdir: /x: does not exist".
std::string usage_error_message(const CLI::App& app, const std::vector<std::string>& args, std::string_view what);

// What `hsperfguard` alone prints: the usage and the subcommands, one line each.
std::string short_usage(const CLI::App& app);

// A flag given more than once with opposite values (`reap --dry-run --dry-run=false`): the
// parser takes the last, so a dry run became a real one. The usage error to print, naming the
// subcommand and the flag; nullopt when every flag is given one way. Asked of the parsed
// `app` and every subcommand it parsed.
std::optional<std::string> contradicting_flag(const CLI::App& app);

}  // namespace hsperfguard
