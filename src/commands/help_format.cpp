#include "commands/help_format.hpp"

#include <algorithm>
#include <array>
#include <sstream>

#include "commands/cli_checks.hpp"
#include "commands/exit_codes.hpp"
#include "model/digits.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

constexpr std::size_t kWidth = 80;   // the help is wrapped to a terminal's width
constexpr std::size_t kColumn = 28;  // where descriptions begin

std::string join(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += separator;
    out += w;
  }
  return out;
}

// "--a", "--a or --b", "--a, --b or --c".
std::string either(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

// In the order of their names: CLI11 keeps an option's needs and excludes in a set ordered by
// address, which would make the help depend on where the parser happened to be allocated.
std::vector<std::string> long_names(const std::vector<CLI::Option*>& options) {
  std::vector<std::string> out;
  out.reserve(options.size());
  for (const CLI::Option* o : options) out.push_back(o->get_name(false, false));
  std::sort(out.begin(), out.end());
  return out;
}

// The choices CLI11 names in an option's type ("TEXT:{json,text}"), joined by '|'.
std::string choices_of(const std::string& type) {
  const auto open = type.find('{');
  const auto close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::string out = type.substr(open + 1, close - open - 1);
  std::replace(out.begin(), out.end(), ',', '|');
  return out;
}

// Whether an option is named `word` ("--tmpdir", "-q").
const CLI::Option* find_option(const CLI::App& app, const std::string& word) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional() && o->get_lnames().empty() && o->get_snames().empty()) continue;
    if (o->check_name(word)) return o;
  }
  return nullptr;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
  }
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& s : o->get_snames()) out.push_back("-" + s);
  }
  return out;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands({})) out.push_back(sub->get_name());
  return out;
}

// What a mistyped subcommand is compared with: the subcommands, and at the top `help`.
std::vector<std::string> subcommand_candidates(const CLI::App& app) {
  std::vector<std::string> out = subcommand_names(app);
  if (app.get_parent() == nullptr) out.emplace_back("help");
  return out;
}

// The closed set of values an option takes (its IsMember choices), or none.
std::vector<std::string> choice_list(const CLI::Option& option) {
  const std::string joined = choices_of(option.get_type_name());
  std::vector<std::string> out;
  std::string item;
  for (std::istringstream in(joined); std::getline(in, item, '|');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Whether `value` is of the kind `option` takes (value_wanted says it). A value of the right
// kind can still be refused (a directory that does not exist, --every under 1s): then the
// parser's reason is shown too.
bool value_of_kind(const CLI::Option& option, const std::string& value) {
  if (value.empty()) return false;
  if (option.get_option_text() == "PID") {
    const auto pid = parse_number<std::int32_t>(value);
    return pid && *pid > 0;
  }
  const std::string type = option.get_type_name();
  if (const auto choices = choice_list(option); !choices.empty()) {
    return std::find(choices.begin(), choices.end(), value) != choices.end();
  }
  if (type.find("DURATION") != std::string::npos) return parse_duration_ms(value).has_value();
  if (type.find("BYTES") != std::string::npos) return parse_byte_count(value).has_value();
  if (type.find("INT") != std::string::npos) return parse_number<std::int64_t>(value).has_value();
  return true;
}

// An option given a value on the command line, the subcommand it was given to, and the value
// (nullopt: none followed it).
struct GivenValue {
  const CLI::App* where = nullptr;
  const CLI::Option* option = nullptr;
  std::optional<std::string> value;
};

// Every option `args` give a value to, in order, walking into the subcommands they name.
std::vector<GivenValue> given_values(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<GivenValue> out;
  const CLI::App* current = &app;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg.size() > 1 && arg.starts_with('-')) {
      const bool is_long = arg.starts_with("--");
      const std::string name = is_long ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
      const CLI::Option* option = find_option(*current, name);
      if (option == nullptr || option->get_expected_min() == 0) continue;
      GivenValue given{current, option, std::nullopt};
      if (is_long && arg.find('=') != std::string::npos) {
        given.value = arg.substr(arg.find('=') + 1);
      } else if (!is_long && arg.size() > 2) {
        given.value = arg.substr(2);
      } else if (i + 1 < args.size() && !(args[i + 1].size() > 1 && args[i + 1].starts_with('-') &&
                                          find_option(*current, args[i + 1].substr(0, args[i + 1].find('='))))) {
        given.value = args[++i];
      }
      out.push_back(std::move(given));
      continue;
    }
    for (const CLI::App* sub : current->get_subcommands({})) {
      if (sub->get_name() == arg) {
        current = sub;
        break;
      }
    }
  }
  return out;
}

std::string subcommand_list(const CLI::App& app) {
  if (app.get_parent() != nullptr) return "subcommands: " + join(subcommand_names(app), ", ") + " (" + command_path(&app) + " --help)";
  return "subcommands: " + join(subcommand_names(app), ", ") + " (" + std::string(kProgramName) +
         " help SUBCOMMAND)";
}

// DURATION: what commands/cli_checks.cpp's parse_duration_ms takes.
constexpr std::array<HelpTerm, 1> kValueSyntax{{
    {"DURATION", "90 (seconds), 500ms, 90s, 15m, 2h, 1d; at most 3650d."},
}};

// ps's STATE: the closed set of schemas/ps.schema.json (a test compares them).
constexpr std::array<HelpTerm, 9> kPsStates{{
    {"live", "a JVM holds its backing file's lock or maps it"},
    {"unknown",
     "whether the backing file's JVM is alive cannot be proven (permissions, an unreadable /proc), or a JVM "
     "whose maps could not be read"},
    {"stale", "--all: the backing file's JVM is gone"},
    {"pid-reused", "--all: the backing file's pid is now another process's"},
    {"foreign", "--all: not a JVM's backing file"},
    {"blind",
     "a live process that maps libjvm.so but no backing file (-XX:-UsePerfData, -XX:+PerfDisableSharedMem, a "
     "namespace HotSpot refused, a file it could not make, a name another JVM locks, a uid with no user "
     "name); jps cannot see it"},
    {"deleted",
     "a live JVM whose backing file was deleted (a temp cleaner); jps cannot see it, as root `hsperfguard "
     "inspect PID` still reads its counters"},
    {"unlisted", "a live JVM whose backing file is in no namespace looked at (a container's own mount)"},
    {"openj9", "a live OpenJ9 JVM: it writes no hsperfdata by design; OpenJ9's own jcmd and jps reach it"},
}};

constexpr std::array<ColumnLegend, 1> kLegends{{
    {"ps", "STATE",
     "the backing file's verdict, or why a live JVM has none; each JVM jps cannot see gets a line below "
     "the table with its reason and fix",
     kPsStates},
}};

// The value kind an option's metavar names, as its help shows it ("DURATION"); empty for a flag.
std::string metavar(const HelpFormatter& formatter, const CLI::Option* opt) {
  const std::string opts = formatter.make_option_opts(opt);
  return opts.empty() ? opts : opts.substr(1);
}

}  // namespace

std::span<const HelpTerm> value_syntax_table() { return kValueSyntax; }

std::span<const ColumnLegend> column_legends() { return kLegends; }

std::string command_path(const CLI::App* app) {
  std::vector<std::string> names;
  for (; app != nullptr && app->get_parent() != nullptr; app = app->get_parent()) names.push_back(app->get_name());
  std::string out(kProgramName);
  for (auto it = names.rbegin(); it != names.rend(); ++it) out += " " + *it;
  return out;
}

std::string wrap_text(std::string_view text, std::size_t indent, std::size_t width) {
  const std::size_t room = width > indent + 20 ? width - indent : 20;
  std::string out;
  bool first_line = true;
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    const std::size_t newline = text.find('\n', line_start);
    const std::string_view paragraph =
        text.substr(line_start, newline == std::string_view::npos ? std::string_view::npos : newline - line_start);
    std::istringstream words{std::string(paragraph)};
    std::string line;
    const auto flush = [&] {
      if (!first_line) out += "\n" + std::string(indent, ' ');
      out += line;
      first_line = false;
      line.clear();
    };
    for (std::string w; words >> w;) {
      if (!line.empty() && line.size() + 1 + w.size() > room) flush();
      line += (line.empty() ? "" : " ") + w;
    }
    flush();
    if (newline == std::string_view::npos) break;
    line_start = newline + 1;
  }
  return out;
}

std::string exit_status_help(std::string_view subcommand) {
  std::string out = "Exit status:\n";
  const auto row = [&](ExitCode code, std::string_view meaning) {
    out += "  " + std::to_string(code) + "  " + wrap_text(meaning, 5, kWidth) + "\n";
  };
  if (subcommand.empty()) {
    for (const auto& r : exit_code_table()) row(r.code, r.meaning);
  } else {
    for (const auto& r : subcommand_exit_codes()) {
      if (r.subcommand == subcommand) row(r.code, r.meaning);
    }
  }
  return out;
}

HelpFormatter::HelpFormatter() { column_width(kColumn); }

std::string HelpFormatter::make_description(const CLI::App* app) const {
  return app->get_description().empty() ? std::string() : app->get_description() + "\n";
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string) const {
  // After the description, apart from it (--help-all's subcommands have no usage line).
  std::string out = "\n" + get_label("Usage") + ": " + command_path(app);
  if (app->get_parent() == nullptr) {
    return out + " SUBCOMMAND [OPTIONS]\n       " + std::string(kProgramName) + " help [SUBCOMMAND]\n";
  }
  out += " [OPTIONS]";
  for (const CLI::Option* o : app->get_options([](const CLI::Option* opt) { return opt->get_positional(); })) {
    out += " " + make_option_usage(o);
  }
  return out + "\n";
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  const std::string left = "  " + make_option_name(opt, is_positional) + (is_positional ? "" : make_option_opts(opt));
  std::string out = left;
  if (left.size() + 2 > kColumn) {
    out += "\n" + std::string(kColumn, ' ');
  } else {
    out += std::string(kColumn - left.size(), ' ');
  }
  return out + wrap_text(make_option_desc(opt), kColumn, kWidth) + "\n";
}

std::string HelpFormatter::make_option_name(const CLI::Option* opt, bool is_positional) const {
  if (is_positional) return make_option_usage(opt);
  std::vector<std::string> names;
  for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
  return join(names, ", ");
}

// What to pass: the option's own text (PID), one of its choices (json|text), else what its
// validator names (FILE, DIR, USER, DURATION, BYTES; commands/cli_checks.hpp), N or TEXT.
std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  if (opt->get_expected_min() == 0) return {};  // a flag
  if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
  const std::string type = opt->get_type_name();
  if (auto choices = choices_of(type); !choices.empty()) return " " + choices;
  for (const char* kind : {"FILE", "DURATION", "DIR", "USER", "BYTES"}) {
    if (type.find(kind) != std::string::npos) return std::string(" ") + kind;
  }
  if (type.find("INT") != std::string::npos) return " N";
  return " TEXT";
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  std::string out = opt->get_description();
  if (!opt->get_default_str().empty()) out += " (default: " + opt->get_default_str() + ")";
  // A sentence of its own, also where the man page joins the lines.
  const auto sentence = [&](const std::string& text) {
    if (!out.empty() && out.back() != '.') out += '.';
    out += "\n" + text;
  };
  if (opt->get_required() && !opt->get_positional()) sentence("Required.");
  // Both are returned by value: copied once each.
  if (const auto needs = opt->get_needs(); !needs.empty()) {
    sentence("Only with " + join(long_names({needs.begin(), needs.end()}), " and ") + ".");
  }
  if (const auto excludes = opt->get_excludes(); !excludes.empty()) {
    sentence("Cannot be combined with " + either(long_names({excludes.begin(), excludes.end()})) + ".");
  }
  return out;
}

std::string HelpFormatter::make_option_usage(const CLI::Option* opt) const {
  if (!opt->get_option_text().empty()) return opt->get_option_text();
  std::string name = opt->get_name(true, false);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  return name;
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  std::string left = "  " + sub->get_name();
  left += std::string(left.size() < kColumn ? kColumn - left.size() : 1, ' ');
  return left + wrap_text(sub->get_description(), kColumn, kWidth) + "\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  std::string out;
  if (!app->get_footer().empty()) out += app->get_footer() + "\n\n";
  if (app->get_parent() == nullptr) {
    out += wrap_text("Run `" + std::string(kProgramName) + " help SUBCOMMAND` (or `" + std::string(kProgramName) +
                         " SUBCOMMAND --help`) for a subcommand's options and exit codes.",
                     0, kWidth) +
           "\n\n";
  }
  // A nested subcommand's codes are its path below the program ("rules show").
  const std::string path = command_path(app);
  const std::string_view below =
      app->get_parent() == nullptr ? std::string_view{} : std::string_view(path).substr(kProgramName.size() + 1);
  for (const ColumnLegend& legend : column_legends()) {
    if (legend.subcommand != below) continue;
    out += wrap_text(std::string(legend.column) + ": " + std::string(legend.intro) + ":", 0, kWidth) + "\n";
    constexpr std::size_t kTermColumn = 14;
    for (const HelpTerm& t : legend.terms) {
      const std::string left = "  " + std::string(t.term);
      out += left + std::string(left.size() + 2 > kTermColumn ? 2 : kTermColumn - left.size(), ' ') +
             wrap_text(t.meaning, kTermColumn, kWidth) + "\n";
    }
    out += "\n";
  }
  // The syntax of the values its options take (the parent's options are not its own).
  for (const HelpTerm& value : value_syntax_table()) {
    const auto options = app->get_options();
    if (std::any_of(options.begin(), options.end(),
                    [&](const CLI::Option* o) { return metavar(*this, o) == value.term; })) {
      out += wrap_text(std::string(value.term) + ": " + std::string(value.meaning), 0, kWidth) + "\n\n";
    }
  }
  return out + exit_status_help(below);
}

std::optional<std::string> unknown_word_message(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* current = &app;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;  // operands follow
    const std::string where = command_path(current) + ": ";
    if (arg.size() > 1 && arg.starts_with('-')) {
      const bool is_long = arg.starts_with("--");
      const std::string name = is_long ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
      const CLI::Option* option = find_option(*current, name);
      if (option == nullptr) {
        std::string message = where + "unknown option " + terminal_safe(name);
        // "-tmpdir" is compared with the long names too.
        if (auto near = nearest_match(is_long ? name : arg.substr(0, arg.find('=')), option_names(*current))) {
          message += "; did you mean " + *near + "?";
        }
        return message + "\nRun `" + command_path(current) + " --help` for its options.";
      }
      // Its value is the next word unless given with '=' (or glued to a short option).
      const bool inline_value = is_long ? arg.find('=') != std::string::npos : arg.size() > 2;
      if (option->get_expected_min() > 0 && !inline_value) ++i;
      continue;
    }
    const auto subs = current->get_subcommands({});
    // An operand (inspect's target, rules show's id): the parser judges it.
    if (subs.empty() || !current->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) {
      continue;
    }
    const CLI::App* sub = nullptr;
    for (const CLI::App* s : subs) {
      if (s->get_name() == arg) sub = s;
    }
    if (sub == nullptr) {
      std::string message = command_path(current) + ": unknown subcommand '" + terminal_safe(arg) + "'";
      if (arg == "help" && current->get_parent() != nullptr) {
        // `rules help show`: help comes first, as `git help COMMAND`.
        std::string topic = command_path(current).substr(kProgramName.size());
        if (i + 1 < args.size() && !args[i + 1].starts_with('-')) topic += " " + terminal_safe(args[i + 1]);
        message += "; did you mean '" + std::string(kProgramName) + " help" + topic + "'?";
      } else if (auto near = nearest_match(arg, subcommand_candidates(*current))) {
        message += "; did you mean '" + *near + "'?";
      }
      return message + "\n" + subcommand_list(*current);
    }
    current = sub;
  }
  return std::nullopt;
}

const CLI::App* help_topic(const CLI::App& app, const std::vector<std::string>& topic) {
  if (topic.size() == 1 && topic.front() == "help") return &app;
  const CLI::App* current = &app;
  for (const std::string& word : topic) {
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : current->get_subcommands({})) {
      if (sub->get_name() == word) next = sub;
    }
    if (next == nullptr) return nullptr;
    current = next;
  }
  return current;
}

std::string unknown_topic_message(const CLI::App& app, const std::vector<std::string>& topic) {
  const CLI::App* current = &app;
  std::string known;  // the words that name a subcommand, each followed by a space
  std::size_t i = 0;
  for (; i < topic.size(); ++i) {
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : current->get_subcommands({})) {
      if (sub->get_name() == topic[i]) next = sub;
    }
    if (next == nullptr) break;
    known += topic[i] + " ";
    current = next;
  }
  std::string given;
  for (const auto& word : topic) given += (given.empty() ? "" : " ") + word;
  std::string message = std::string(kProgramName) + ": help: no subcommand '" + terminal_safe(given) + "'";
  if (i < topic.size() && i + 1 == topic.size()) {
    if (auto near = nearest_match(topic[i], subcommand_names(*current))) {
      message += "; did you mean '" + known + *near + "'?";
    }
  }
  if (current->get_subcommands({}).empty()) {
    return message + "\n" + command_path(current) + " has no subcommands (" + std::string(kProgramName) + " help " +
           known.substr(0, known.size() - 1) + ")";
  }
  return message + "\n" + subcommand_list(*current);
}

std::string value_wanted(const CLI::Option& option) {
  if (option.get_option_text() == "PID") return "a PID (a process id: a whole number from 1)";
  if (const auto choices = choice_list(option); !choices.empty()) return "one of " + join(choices, ", ");
  const std::string type = option.get_type_name();
  if (type.find("DURATION") != std::string::npos) return "a DURATION (e.g. 90, 500ms, 90s, 15m, 2h, 1d; at most 3650d)";
  if (type.find("BYTES") != std::string::npos) return "a number of BYTES (plain decimal, e.g. 32768)";
  if (type.find("DIR") != std::string::npos) return "a DIR (an existing directory)";
  if (type.find("FILE") != std::string::npos) return "a FILE name";
  if (type.find("USER") != std::string::npos) return "a USER name";
  if (type.find("INT") != std::string::npos) return "a whole number";
  return "a value";
}

std::optional<std::string> value_error_message(const CLI::App& app, const std::vector<std::string>& args,
                                               std::string_view what) {
  // CLI11 names the option first ("--min-age: 1 required ... missing", "--tmpdir: /x: does not
  // exist"), or after "Could not convert: " ("Could not convert: --container = 1.5").
  std::string_view named = what;
  if (named.starts_with("Could not convert: ")) named.remove_prefix(std::string_view("Could not convert: ").size());
  const std::string_view name = named.substr(0, named.find_first_of(": "));
  if (name.size() < 2 || !name.starts_with('-')) return std::nullopt;
  const std::vector<GivenValue> given = given_values(app, args);
  const GivenValue* culprit = nullptr;
  for (const GivenValue& g : given) {
    if (!g.option->check_name(std::string(name))) continue;
    if (culprit == nullptr) culprit = &g;
    // Given more than once: the one that is wrong.
    if (!g.value || !value_of_kind(*g.option, *g.value)) {
      culprit = &g;
      break;
    }
  }
  if (culprit == nullptr) return std::nullopt;
  const CLI::Option& option = *culprit->option;
  std::string where = std::string(kProgramName) + ": ";
  const std::string path = command_path(culprit->where);
  if (path.size() > kProgramName.size()) where += path.substr(kProgramName.size() + 1) + ": ";
  std::string message = where + option.get_name(false, false) + " needs " + value_wanted(option);
  if (!culprit->value) return message + ": none given";
  const std::string& value = *culprit->value;
  if (value.empty()) return message + ": got '' (an unset variable?)";
  message += ": got '" + terminal_safe(value) + "'";
  if (value_of_kind(option, value)) {
    // The right kind, refused all the same: the check's own reason, without the value again.
    std::string reason(what.substr(std::min(what.size(), name.size() + 2)));
    if (reason.starts_with(value + ": ")) reason.erase(0, value.size() + 2);
    if (reason.starts_with(std::string(name) + " ")) reason.erase(0, name.size() + 1);
    const std::string suffix = ": " + value;
    if (reason.ends_with(suffix)) reason.erase(reason.size() - suffix.size());
    if (!reason.empty()) message += ", which " + terminal_safe(reason);
    return message;
  }
  if (auto near = nearest_match(value, choice_list(option))) message += "; did you mean '" + *near + "'?";
  return message;
}

std::string usage_error_message(const CLI::App& app, const std::vector<std::string>& args, std::string_view what) {
  const CLI::App* named = &app;
  for (const auto& arg : args) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == arg) named = sub;
    }
    if (named != &app) break;
  }
  // The parser's message quotes what was given: escaped like every other output.
  return command_path(named) + ": " + terminal_safe(what) + "\nRun `" + command_path(named) + " --help` for its options.";
}

std::string short_usage(const CLI::App& app) {
  std::string out = "Usage: " + std::string(kProgramName) + " SUBCOMMAND [OPTIONS]\n\nSubcommands:\n";
  const HelpFormatter formatter;
  for (const CLI::App* sub : app.get_subcommands({})) out += formatter.make_subcommand(sub);
  return out + "\n" +
         wrap_text("Run `" + std::string(kProgramName) + " help SUBCOMMAND` for a subcommand's options, `" +
                       std::string(kProgramName) + " --help` for all of this.",
                   0, kWidth) +
         "\n";
}

std::optional<std::string> contradicting_flag(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_expected_max() != 0 || option->count() < 2) continue;  // flags given twice
    bool on = false, off = false;
    for (const std::string& value : option->results()) {
      std::int64_t flag = 1;
      try {
        flag = CLI::detail::to_flag_value(value);
      } catch (const CLI::Error&) {
        continue;  // the parser refused it already
      }
      (flag > 0 ? on : off) = true;
    }
    if (on && off) {
      return command_path(&app) + ": " + option->get_name() +
             " is given both on and off; say it once (the last would win, which turned a dry run into a "
             "real one)\nRun `" + command_path(&app) + " --help` for its options.";
    }
  }
  for (const CLI::App* sub : app.get_subcommands()) {
    if (auto problem = contradicting_flag(*sub)) return problem;
  }
  return std::nullopt;
}

}  // namespace hsperfguard
