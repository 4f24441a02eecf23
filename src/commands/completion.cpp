#include "commands/completion.hpp"

#include <sstream>
#include <vector>

#include "model/rule_catalog.hpp"

namespace hsperfguard {
namespace {

// The choices CLI11 names in an option's type ("TEXT:{json,text}"), or none.
std::vector<std::string> choices_of(const std::string& type) {
  const auto open = type.find('{');
  const auto close = type.find('}', open);
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos) return out;
  std::string item;
  std::istringstream in(type.substr(open + 1, close - open - 1));
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string join(const std::vector<std::string>& words, const char* separator = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// Option names as typed: "--name" and "-n".
std::vector<std::string> names_of(const CLI::Option& option) {
  std::vector<std::string> out;
  for (const auto& l : option.get_lnames()) out.push_back("--" + l);
  for (const auto& s : option.get_snames()) out.push_back("-" + s);
  return out;
}

// What an option's value is completed as, from its type (commands/cli_checks.hpp names them).
enum class ValueKind { choices, file, directory, user, nothing };

ValueKind value_kind(const std::string& type) {
  if (!choices_of(type).empty()) return ValueKind::choices;
  if (type.find("FILE") != std::string::npos) return ValueKind::file;
  if (type.find("DIR") != std::string::npos) return ValueKind::directory;
  if (type.find("USER") != std::string::npos) return ValueKind::user;
  return ValueKind::nothing;  // a number, a duration, free text
}

// The case arms for options that take a value: choices, file or directory names, user names,
// or nothing to offer.
void value_arms(std::ostringstream& out, const CLI::App& cmd, const std::string& indent) {
  for (const CLI::Option* option : cmd.get_options()) {
    if (option->get_expected_min() == 0) continue;  // a flag
    const auto names = names_of(*option);
    if (names.empty()) continue;
    const std::string type = option->get_type_name();
    out << indent << join(names, "|") << ") ";
    switch (value_kind(type)) {
      case ValueKind::choices:
        out << "_hsperfguard_words \"" << join(choices_of(type)) << "\"; return ;;\n";
        break;
      case ValueKind::file: out << "_hsperfguard_names -f; return ;;\n"; break;
      case ValueKind::directory: out << "_hsperfguard_names -d; return ;;\n"; break;
      case ValueKind::user: out << "_hsperfguard_names -u; return ;;\n"; break;
      case ValueKind::nothing: out << "COMPREPLY=(); return ;;\n"; break;
    }
  }
}

std::vector<std::string> option_words(const CLI::App& cmd) {
  std::vector<std::string> words;
  for (const CLI::Option* option : cmd.get_options()) {
    for (const auto& n : option->get_lnames()) words.push_back("--" + n);
  }
  return words;
}

// What `cmd`'s operands are completed as: inspect's files, `rules show`'s rule ids (type
// RULE), or nothing (it takes none).
enum class OperandKind { none, files, rule_ids };

OperandKind operand_kind(const CLI::App& cmd) {
  for (const CLI::Option* option : cmd.get_options()) {
    if (!option->get_lnames().empty() || !option->get_snames().empty()) continue;
    return option->get_type_name().find("RULE") != std::string::npos ? OperandKind::rule_ids : OperandKind::files;
  }
  return OperandKind::none;
}

std::vector<std::string> rule_ids() {
  std::vector<std::string> out;
  for (const auto& [id, rule] : rule_catalog()) out.push_back(id);
  return out;
}

std::vector<std::string> names_of_subcommands(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::App* sub : cmd.get_subcommands({})) out.push_back(sub->get_name());
  return out;
}

// What a subcommand offers (`cmd`, below the program or below another subcommand): its
// options' values after them, its operands, then its own subcommands and options.
// `end`: what ends its last line (" ;;" for a case arm).
void subcommand_body(std::ostringstream& out, const std::string& name, const CLI::App& cmd, const std::string& indent,
                     const std::string& end) {
  out << indent << "case \"$prev\" in\n";
  value_arms(out, cmd, indent + "  ");
  out << indent << "esac\n";
  switch (operand_kind(cmd)) {
    case OperandKind::files:
      out << indent << "if [[ \"$cur\" != -* ]]; then _" << name << "_names -f; return; fi\n";
      break;
    case OperandKind::rule_ids:
      out << indent << "if [[ \"$cur\" != -* ]]; then _" << name << "_words \"" << join(rule_ids())
          << "\"; return; fi\n";
      break;
    case OperandKind::none: break;
  }
  std::vector<std::string> words = names_of_subcommands(cmd);
  for (auto& option : option_words(cmd)) words.push_back(option);
  out << indent << "_" << name << "_words \"" << join(words) << "\"" << end << "\n";
}

}  // namespace

// The script's helpers. Every name that comes from the file system (or the user database) is
// a candidate that readline must quote before it goes onto the command line: a file called
// `4242$(id>/tmp/x)`, `a b` or `*` is inserted as `4242\$\(id\>/tmp/x\)`, `a\ b`, `\*` and
// reaches the program as that one word. So:
// - `complete -o filenames` is the default (zsh's bashcompinit quotes only then), and bash's
//   `compopt` turns it off for fixed words (subcommands, options, choices);
// - candidates are read one per line into COMPREPLY, never through an unquoted `$(...)`, which
//   would split them on blanks and expand them as globs;
// - the word being completed is unquoted here (`'a b`, `a\ b`, `"a b"`), never evaluated.
const char* const kHelpers = R"BASH(# The word being completed without its shell quoting ('..', "..", \x), never evaluated.
_hsperfguard_unquote() {
  local word=$1 out="" quote="" c i
  for ((i = 0; i < ${#word}; i++)); do
    c=${word:$i:1}
    if [[ -z $quote ]]; then
      case $c in
        "'" | '"') quote=$c ;;
        \\) ((i++)); out+=${word:$i:1} ;;
        *) out+=$c ;;
      esac
    elif [[ $c == "$quote" ]]; then
      quote=""
    elif [[ $quote == '"' && $c == \\ ]]; then
      ((i++)); out+=${word:$i:1}
    else
      out+=$c
    fi
  done
  printf '%s' "$out"
}
# Fixed words (subcommands, options, choices): nothing to quote.
_hsperfguard_words() {
  compopt +o filenames 2>/dev/null
  COMPREPLY=($(compgen -W "$1" -- "$cur"))
}
# Names from the file system (-f files, -d directories) or the user database (-u), one per
# line, each quoted by readline when it is put on the line.
_hsperfguard_names() {
  local word line
  word=$(_hsperfguard_unquote "$cur")
  compopt -o filenames 2>/dev/null
  COMPREPLY=()
  while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen "$1" -- "$word")
}
)BASH";

std::string bash_completion(const CLI::App& app) {
  // For the installed command, whatever argv[0] the generator was run as.
  const std::string name = "hsperfguard";
  std::vector<std::string> subcommands;
  for (const CLI::App* sub : app.get_subcommands({})) subcommands.push_back(sub->get_name());
  subcommands.emplace_back("help");

  std::ostringstream out;
  out << "# bash completion for " << name << ", generated by `" << name
      << " --bash-completion` from its own option definitions.\n"
      << "# zsh: autoload -U bashcompinit && bashcompinit, then source this file.\n"
      << kHelpers
      << "_" << name << "() {\n"
      << "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" sub=\"\" "
         "i j\n"
      << "  # --option=value: bash splits the word at '=' (COMP_WORDBREAKS).\n"
      << "  if [[ $prev == \"=\" && COMP_CWORD -ge 2 ]]; then prev=\"${COMP_WORDS[COMP_CWORD-2]}\"; fi\n"
      << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      << "    case \"${COMP_WORDS[i]}\" in " << join(subcommands, "|")
      << ") sub=\"${COMP_WORDS[i]}\"; break ;; esac\n"
      << "  done\n"
      << "  case \"$sub\" in\n"
      << "    \"\")\n"
      << "      _" << name << "_words \"" << join(subcommands) << " " << join(option_words(app))
      << "\" ;;\n";
  // `help [SUBCOMMAND [SUBCOMMAND]]`: the subcommands, then a subcommand's own.
  out << "    help)\n"
      << "      case \"$prev\" in\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_subcommands({}).empty()) continue;
    out << "        " << sub->get_name() << ") _" << name << "_words \"" << join(names_of_subcommands(*sub))
        << "\"; return ;;\n";
  }
  out << "        help) _" << name << "_words \"" << join(names_of_subcommands(app)) << "\"; return ;;\n"
      << "      esac\n"
      << "      COMPREPLY=() ;;\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    out << "    " << sub->get_name() << ")\n";
    // Its own subcommands (rules show): after one's name, that one's options and operands.
    for (const CLI::App* nested : sub->get_subcommands({})) {
      out << "      for ((j = i + 1; j < COMP_CWORD; j++)); do\n"
          << "        if [[ \"${COMP_WORDS[j]}\" == " << nested->get_name() << " ]]; then\n";
      subcommand_body(out, name, *nested, "          ", "; return");
      out << "        fi\n"
          << "      done\n";
    }
    subcommand_body(out, name, *sub, "      ", " ;;");
  }
  out << "  esac\n"
      << "}\n"
      << "complete -o filenames -F _" << name << " " << name << "\n";
  return out.str();
}

}  // namespace hsperfguard
