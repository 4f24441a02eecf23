// The parsers of the cleaners' configurations (model/cleaners.hpp): tmpfiles.d lines, shell
// assignments, crontabs and the scripts cron runs, read as far as a shell would take the
// commands that delete files, and no further.
#include "model/cleaners.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace hsperfguard::cleaners {
namespace {

std::string kept(std::string_view text) {
  return std::string(text.substr(0, kMaxKeptText));
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// The physical lines of `text`, each with its 1-based number.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    ++number;
    f(line, number);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

void not_understood(Configuration& out, std::string_view file, std::size_t line,
                    std::string_view text, std::string why) {
  out.not_understood.push_back(NotUnderstood{std::string(file), line, kept(trim(text)), std::move(why)});
}

// --- tmpfiles.d ---------------------------------------------------------------------------

// One field of a tmpfiles.d line as systemd's extract_first_word(EXTRACT_UNQUOTE |
// EXTRACT_CUNESCAPE) takes it: quotes removed, C escapes of the common kinds undone. nullopt
// at the end of the line; `bad` set on an unterminated quote.
std::optional<std::string> tmpfiles_field(std::string_view& rest, bool& bad) {
  while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
  if (rest.empty()) return std::nullopt;
  std::string word;
  char quote = 0;
  while (!rest.empty()) {
    const char c = rest.front();
    if (quote == 0 && is_blank(c)) break;
    rest.remove_prefix(1);
    if (quote != 0 && c == quote) {
      quote = 0;
    } else if (quote == 0 && (c == '"' || c == '\'')) {
      quote = c;
    } else if (c == '\\' && !rest.empty()) {
      const char e = rest.front();
      rest.remove_prefix(1);
      switch (e) {
        case 'n': word += '\n'; break;
        case 't': word += '\t'; break;
        case 'x':
          if (rest.size() >= 2) {
            const auto hex = [](char h) -> int {
              if (h >= '0' && h <= '9') return h - '0';
              if (h >= 'a' && h <= 'f') return h - 'a' + 10;
              if (h >= 'A' && h <= 'F') return h - 'A' + 10;
              return -1;
            };
            const int hi = hex(rest[0]);
            const int lo = hex(rest[1]);
            if (hi >= 0 && lo >= 0) {
              word += static_cast<char>(hi * 16 + lo);
              rest.remove_prefix(2);
              break;
            }
          }
          bad = true;
          break;
        default: word += e; break;
      }
    } else {
      word += c;
    }
  }
  if (quote != 0) bad = true;
  return word;
}

// The types tmpfiles.d(5) knows; those whose Age field ages out a directory's contents.
constexpr std::string_view kTmpfilesTypes = "fFwdDevqQpLcbCxXrRzZtThHaA";
constexpr std::string_view kAgedTypes = "dDevqQC";
constexpr std::string_view kTypeModifiers = "!-=~^+$?";

}  // namespace

const char* to_string(Tool tool) {
  switch (tool) {
    case Tool::tmpfiles: return "systemd-tmpfiles";
    case Tool::tmpreaper: return "tmpreaper";
    case Tool::tmpwatch: return "tmpwatch";
    case Tool::find: return "find";
  }
  return "?";
}

void parse_tmpfiles(std::string_view file, std::string_view text, Configuration& out) {
  for_each_line(text, [&](std::string_view raw, std::size_t number) {
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') return;
    std::string_view rest = line;
    bool bad = false;
    std::vector<std::string> fields;
    // Type, path, mode, user, group, age: the argument (the rest) says nothing of cleaning.
    while (fields.size() < 6) {
      auto f = tmpfiles_field(rest, bad);
      if (!f) break;
      fields.push_back(std::move(*f));
    }
    if (bad) return not_understood(out, file, number, raw, "unterminated quote or bad escape");
    if (fields.size() < 2) return not_understood(out, file, number, raw, "no path");
    const std::string& type = fields[0];
    if (type.empty() || kTmpfilesTypes.find(type[0]) == std::string_view::npos ||
        type.find_first_not_of(kTypeModifiers, 1) != std::string::npos) {
      return not_understood(out, file, number, raw, "unknown type '" + kept(type) + "'");
    }
    const std::string& path = fields[1];
    if (type[0] == 'x' || type[0] == 'X') {
      out.tmpfiles_exclusions.push_back(TmpfilesExclusion{path, type[0] == 'x', std::string(file), number});
      return;
    }
    if (kAgedTypes.find(type[0]) == std::string_view::npos) return;
    if (fields.size() < 6 || fields[5] == "-" || fields[5].empty()) return;
    std::string_view age = fields[5];
    // "[abcmABCM]*:" names which timestamps count; the age itself follows.
    if (const auto colon = age.find(':'); colon != std::string_view::npos) {
      if (age.substr(0, colon).find_first_not_of("abcmABCM") != std::string_view::npos) {
        return not_understood(out, file, number, raw, "bad age '" + kept(fields[5]) + "'");
      }
      age.remove_prefix(colon + 1);
    }
    const bool tilde = age.starts_with('~');
    if (tilde) age.remove_prefix(1);
    if (age.empty() || age.find_first_not_of("0123456789 usmhdwyinec") != std::string_view::npos ||
        age.front() < '0' || age.front() > '9') {
      return not_understood(out, file, number, raw, "bad age '" + kept(fields[5]) + "'");
    }
    Cleaning c;
    c.tool = Tool::tmpfiles;
    c.file = std::string(file);
    c.line = number;
    c.text = kept(line);
    c.paths = {path};
    c.age = fields[5];
    c.below_children_only = tilde;
    c.path_is_glob = type[0] == 'e';
    out.cleanings.push_back(std::move(c));
  });
}

namespace {

// --- shell --------------------------------------------------------------------------------

bool is_name_char(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

// A word of a command, or an operator between commands.
struct Token {
  std::string text;
  bool op = false;        // ; && || | & or a redirection's operator
  bool unknown = false;   // held $(...) or a backquote: its value is not known here
};

using Variables = std::map<std::string, std::string>;

// Expands the parameter at `s` (just after '$'): $NAME, ${NAME}, ${NAME:-default},
// ${NAME-default}. Returns nullopt for anything else ($(...), $1, ...), leaving `s`.
std::optional<std::string> expand_parameter(std::string_view& s, const Variables& vars, bool& unknown) {
  if (s.empty()) return std::string("$");
  if (s.front() == '{') {
    const std::size_t close = s.find('}');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view inner = s.substr(1, close - 1);
    s.remove_prefix(close + 1);
    std::size_t n = 0;
    while (n < inner.size() && is_name_char(inner[n], n == 0)) ++n;
    const std::string name(inner.substr(0, n));
    std::string_view op = inner.substr(n);
    const auto it = vars.find(name);
    if (op.empty()) {
      if (it == vars.end()) unknown = unknown || !name.empty();
      return it == vars.end() ? std::string() : it->second;
    }
    // The default is a word of its own: its quotes go (${X:-''} is empty).
    const auto unquoted = [](std::string_view d) {
      std::string out;
      for (const char ch : d) {
        if (ch != '\'' && ch != '"') out += ch;
      }
      return out;
    };
    if (op.starts_with(":-")) return it == vars.end() || it->second.empty() ? unquoted(op.substr(2)) : it->second;
    if (op.starts_with("-")) return it == vars.end() ? unquoted(op.substr(1)) : it->second;
    unknown = true;
    return std::string();
  }
  if (!is_name_char(s.front(), true)) return std::nullopt;
  std::size_t n = 0;
  while (n < s.size() && is_name_char(s[n], n == 0)) ++n;
  const std::string name(s.substr(0, n));
  s.remove_prefix(n);
  const auto it = vars.find(name);
  if (it == vars.end()) {
    unknown = true;
    return std::string();
  }
  return it->second;
}

// Debian's tmpreaper job turns each word of a variable into an option and its value with
// `for i in $VAR; do echo --protect "$i"; done` in backquotes: the one command substitution
// understood here. Returns the variable's name, or nullopt for any other text.
std::optional<std::pair<std::string, std::string>> option_per_word_idiom(std::string_view inner) {
  inner = trim(inner);
  const auto take = [&inner](std::string_view lit) {
    if (!inner.starts_with(lit)) return false;
    inner.remove_prefix(lit.size());
    return true;
  };
  const auto name = [&inner]() {
    std::size_t n = 0;
    while (n < inner.size() && is_name_char(inner[n], n == 0)) ++n;
    std::string out(inner.substr(0, n));
    inner.remove_prefix(n);
    return out;
  };
  if (!take("for ")) return std::nullopt;
  const std::string loop = name();
  if (loop.empty() || !take(" in $")) return std::nullopt;
  const std::string var = name();
  if (var.empty() || !take("; do echo ")) return std::nullopt;
  const std::size_t space = inner.find(' ');
  if (space == std::string_view::npos || !inner.starts_with("--")) return std::nullopt;
  const std::string option(inner.substr(0, space));
  inner.remove_prefix(space + 1);
  if (!take("\"$" + loop + "\"; done") || !inner.empty()) return std::nullopt;
  return std::pair{var, option};
}

// The words and operators of one logical line, as a POSIX shell splits them: quotes removed,
// parameters expanded (unquoted ones split at blanks), a comment dropped. `idiom_variable`
// receives the variable of an option_per_word_idiom, expanded in place.
std::vector<Token> shell_tokens(std::string_view s, const Variables& vars,
                                std::string* idiom_variable = nullptr) {
  std::vector<Token> out;
  Token word;
  bool in_word = false;
  const auto finish = [&] {
    if (in_word) out.push_back(std::move(word));
    word = Token{};
    in_word = false;
  };
  while (!s.empty()) {
    const char c = s.front();
    if (is_blank(c)) {
      finish();
      s.remove_prefix(1);
    } else if (c == '#' && !in_word) {
      break;
    } else if (c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
      finish();
      std::string op(1, c);
      s.remove_prefix(1);
      if ((c == '&' || c == '|' || c == ';') && !s.empty() && s.front() == c) {
        op += c;
        s.remove_prefix(1);
      }
      out.push_back(Token{op, true, false});
    } else if (c == '>' || c == '<') {
      // A redirection and its target are not words of the command.
      const bool fd_prefix = in_word && word.text.find_first_not_of("0123456789") == std::string::npos;
      if (fd_prefix) word = Token{}, in_word = false;
      finish();
      s.remove_prefix(1);
      while (!s.empty() && (s.front() == '>' || s.front() == '&' || s.front() == '<')) s.remove_prefix(1);
      out.push_back(Token{"redirect", true, false});
    } else if (c == '\'') {
      in_word = true;
      s.remove_prefix(1);
      const std::size_t close = s.find('\'');
      word.text += s.substr(0, close);
      s.remove_prefix(close == std::string_view::npos ? s.size() : close + 1);
    } else if (c == '"') {
      in_word = true;
      s.remove_prefix(1);
      while (!s.empty() && s.front() != '"') {
        const char d = s.front();
        s.remove_prefix(1);
        if (d == '\\' && !s.empty() && std::string_view("\"\\$`").find(s.front()) != std::string_view::npos) {
          word.text += s.front();
          s.remove_prefix(1);
        } else if (d == '$') {
          if (!s.empty() && s.front() == '(') word.unknown = true;
          if (auto v = expand_parameter(s, vars, word.unknown)) word.text += *v;
          else word.text += '$';
        } else {
          if (d == '`') word.unknown = true;
          word.text += d;
        }
      }
      if (!s.empty()) s.remove_prefix(1);
    } else if (c == '\\') {
      in_word = true;
      s.remove_prefix(1);
      if (!s.empty()) {
        word.text += s.front();
        s.remove_prefix(1);
      }
    } else if (c == '$') {
      s.remove_prefix(1);
      if (!s.empty() && s.front() == '(') word.unknown = true;
      bool unknown = false;
      if (auto v = expand_parameter(s, vars, unknown)) {
        word.unknown = word.unknown || unknown;
        // Unquoted: split at blanks.
        std::string_view value = *v;
        bool first = true;
        while (true) {
          const std::size_t start = value.find_first_not_of(" \t\n");
          if (start == std::string_view::npos) {
            if (!value.empty() && !first) finish();
            break;
          }
          if (start > 0 && (!first || in_word)) finish();
          value.remove_prefix(start);
          const std::size_t end = value.find_first_of(" \t\n");
          in_word = true;
          word.text += value.substr(0, end);
          first = false;
          if (end == std::string_view::npos) break;
          value.remove_prefix(end);
        }
      } else {
        in_word = true;
        word.text += '$';
      }
    } else if (c == '`' && !in_word && s.find('`', 1) != std::string_view::npos) {
      const std::size_t close = s.find('`', 1);
      const auto idiom = option_per_word_idiom(s.substr(1, close - 1));
      s.remove_prefix(close + 1);
      if (!idiom) {
        out.push_back(Token{"`...`", false, true});
        continue;
      }
      const auto it = vars.find(idiom->first);
      std::string_view value = it == vars.end() ? std::string_view() : std::string_view(it->second);
      while (true) {
        const std::size_t start = value.find_first_not_of(" \t\n");
        if (start == std::string_view::npos) break;
        value.remove_prefix(start);
        const std::size_t end = value.find_first_of(" \t\n");
        out.push_back(Token{idiom->second, false, false});
        out.push_back(Token{std::string(value.substr(0, end)), false, false});
        if (end == std::string_view::npos) break;
        value.remove_prefix(end);
      }
      if (idiom_variable != nullptr) *idiom_variable = idiom->first;
    } else {
      if (c == '`') word.unknown = true;
      in_word = true;
      word.text += c;
      s.remove_prefix(1);
    }
  }
  finish();
  return out;
}

std::string_view basename(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_assignment(const std::string& w) {
  const std::size_t eq = w.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i) {
    if (!is_name_char(w[i], i == 0)) return false;
  }
  return true;
}

// The words of a command from the one that runs: assignments, shell keywords and the wrappers
// cron jobs put in front (nice, ionice, exec, ...) dropped.
std::vector<std::string> command_words(std::vector<std::string> words) {
  std::size_t i = 0;
  const auto skip_options = [&](std::string_view with_value) {
    while (i < words.size() && words[i].starts_with('-') && words[i] != "--") {
      const std::string& w = words[i];
      ++i;
      if (w.size() == 2 && with_value.find(w[1]) != std::string_view::npos && i < words.size()) ++i;
    }
    if (i < words.size() && words[i] == "--") ++i;
  };
  while (i < words.size()) {
    const std::string& w = words[i];
    const std::string_view b = basename(w);
    if (is_assignment(w) || w == "if" || w == "then" || w == "else" || w == "elif" || w == "do" ||
        w == "while" || w == "until" || w == "!" || w == "{" || w == "exec" || w == "command" ||
        w == "nohup" || b == "env" || b == "chronic" || b == "setsid") {
      ++i;
    } else if (b == "nice") {
      ++i;
      skip_options("n");
    } else if (b == "ionice") {
      ++i;
      skip_options("cnp");
    } else {
      break;
    }
  }
  words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(i));
  return words;
}

struct Located {
  std::string_view file;
  std::size_t line;
  std::string_view text;
};

Cleaning cleaning_at(Tool tool, const Located& at) {
  Cleaning c;
  c.tool = tool;
  c.file = std::string(at.file);
  c.line = at.line;
  c.text = kept(trim(at.text));
  return c;
}

bool is_time_spec(std::string_view w) {
  if (w.empty() || w.front() < '0' || w.front() > '9') return false;
  const std::size_t digits = w.find_first_not_of("0123456789");
  return digits == std::string_view::npos ||
         (digits + 1 == w.size() && std::string_view("smhd").find(w[digits]) != std::string_view::npos);
}

// tmpwatch [options] TIME DIRS... and tmpreaper [options] TIME DIRS...
void parse_reaper(Tool tool, const std::vector<std::string>& words, const Located& at,
                  Configuration& out) {
  Cleaning c = cleaning_at(tool, at);
  c.removes_sockets = false;  // both remove regular files, links and directories unless --all
  // Short options taking a value; long options taking one (as "--opt=V" or "--opt V").
  const std::string_view short_valued = tool == Tool::tmpwatch ? "xXUD" : "T";
  bool options = true;
  bool have_time = false;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.empty()) continue;
    if (options && w == "--") {
      options = false;
    } else if (options && w.starts_with("--")) {
      const std::size_t eq = w.find('=');
      const std::string name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      std::optional<std::string> value;
      if (eq != std::string::npos) value = w.substr(eq + 1);
      const bool valued = name == "protect" || name == "exclude" || name == "exclude-pattern" ||
                          name == "exclude-user" || name == "runtime";
      if (valued && !value && i + 1 < words.size()) value = words[++i];
      if (name == "all") c.removes_sockets = true;
      if (name == "protect" || name == "exclude-pattern") {
        if (value) c.protect_patterns.push_back(*value);
      } else if (name == "exclude") {
        if (value) c.exclude_paths.push_back(*value);
      }
    } else if (options && w.starts_with('-') && w.size() > 1) {
      for (std::size_t k = 1; k < w.size(); ++k) {
        const char o = w[k];
        if (o == 'a') c.removes_sockets = true;
        if (short_valued.find(o) != std::string_view::npos) {
          std::string value = w.substr(k + 1);
          if (value.empty() && i + 1 < words.size()) value = words[++i];
          if (o == 'x') c.exclude_paths.push_back(value);
          if (o == 'X') c.protect_patterns.push_back(value);
          break;
        }
      }
    } else if (!have_time) {
      if (!is_time_spec(w)) {
        return not_understood(out, at.file, at.line, at.text,
                              std::string(to_string(tool)) + ": '" + kept(w) + "' is not an age");
      }
      c.age = w;
      have_time = true;
      // Both read their options with getopt_long, which takes options after the time too
      // (Debian's job gives --ctime and --protect there).
    } else {
      c.paths.push_back(w);
    }
  }
  if (!have_time || c.paths.empty()) {
    return not_understood(out, at.file, at.line, at.text,
                          std::string(to_string(tool)) + ": no age or no directory");
  }
  out.cleanings.push_back(std::move(c));
}

// find PATHS... EXPRESSION, when the expression deletes (-delete, -exec rm).
void parse_find(const std::vector<std::string>& words, const Located& at, Configuration& out) {
  Cleaning c = cleaning_at(Tool::find, at);
  std::size_t i = 1;
  while (i < words.size() && (words[i] == "-H" || words[i] == "-L" || words[i] == "-P")) ++i;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.starts_with('-') || w == "!" || w == "(" || w == ")" || w == ",") break;
    c.paths.push_back(w);
  }
  bool deletes = false;
  std::string types;
  bool negate = false;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    const bool has_value = i + 1 < words.size();
    if (w == "!" || w == "-not") {
      negate = true;
      continue;
    }
    if (w == "-delete") {
      deletes = true;
    } else if ((w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir") && has_value) {
      if (basename(words[i + 1]) == "rm") deletes = true;
      while (i + 1 < words.size() && words[i + 1] != ";" && words[i + 1] != "+") ++i;
      ++i;
    } else if ((w == "-mtime" || w == "-atime" || w == "-ctime" || w == "-mmin" || w == "-amin" ||
                w == "-cmin") && has_value) {
      c.age = w + " " + words[++i];
    } else if (w == "-type" && has_value) {
      types += words[++i];
    } else if (w == "-maxdepth" && has_value) {
      const std::string& v = words[++i];
      if (!v.empty() && v.size() < 6 && v.find_first_not_of("0123456789") == std::string::npos) {
        c.max_depth = std::stoi(v);
      }
    } else if ((w == "-name" || w == "-iname") && has_value) {
      const std::string& v = words[++i];
      if (negate) c.exclude_names.push_back(v);
    } else if ((w == "-path" || w == "-wholename" || w == "-ipath") && has_value) {
      const std::string& v = words[++i];
      if (i + 1 < words.size() && words[i + 1] == "-prune") {
        c.prune_patterns.push_back(v);
      } else if (negate) {
        c.protect_patterns.push_back(v);
      }
    }
    negate = false;
  }
  if (!deletes) return;
  if (c.paths.empty()) {
    return not_understood(out, at.file, at.line, at.text, "find: no starting directory");
  }
  if (!types.empty()) {
    c.removes_regular = types.find('f') != std::string::npos;
    c.removes_sockets = types.find('s') != std::string::npos;
  }
  out.cleanings.push_back(std::move(c));
}

// What a script has done so far, as far as it is followed: its variables, where each came
// from, the `if` tests it is inside, and whether it has exited.
struct ScriptState {
  Variables vars;
  std::map<std::string, std::string> origin;  // variable -> the sourced file that set it
  const std::map<std::string, Assignments>* sourced = nullptr;
  std::vector<std::optional<bool>> tests;  // of the enclosing ifs; nullopt: not known here
  std::optional<std::string> exited;       // why the script stops before what follows
  std::string last_sourced;                // the last file of `sourced` it sourced
};

// `[ A = B ]`, `[ A != B ]` and `test A = B`, on known values; nullopt otherwise.
std::optional<bool> evaluate_test(const std::vector<std::string>& words, bool unknown) {
  if (unknown) return std::nullopt;
  std::vector<std::string> w = words;
  if (!w.empty() && w.front() == "[" && w.back() == "]") {
    w.erase(w.begin());
    w.pop_back();
  } else if (!w.empty() && w.front() == "test") {
    w.erase(w.begin());
  } else {
    return std::nullopt;
  }
  if (w.size() != 3) return std::nullopt;
  if (w[1] == "=" || w[1] == "==") return w[0] == w[2];
  if (w[1] == "!=") return w[0] != w[2];
  return std::nullopt;
}

// The commands of one logical line; those that clean become cleanings. Assignments alone on a
// command set variables for the lines after (a script's flags=-umc).
void scan_commands(std::string_view command, const Located& at, ScriptState& state, Configuration& out) {
  std::string idiom_variable;
  const std::vector<Token> tokens = shell_tokens(command, state.vars, &idiom_variable);
  std::vector<std::vector<Token>> commands(1);
  for (const Token& t : tokens) {
    if (t.op && t.text != "redirect") {
      commands.emplace_back();
    } else {
      commands.back().push_back(t);
    }
  }
  for (const auto& cmd : commands) {
    std::vector<std::string> words;
    bool unknown = false;
    bool skip_next = false;
    for (const Token& t : cmd) {
      if (t.op) {
        skip_next = true;  // the target of a redirection
        continue;
      }
      if (skip_next) {
        skip_next = false;
        continue;
      }
      words.push_back(t.text);
      unknown = unknown || t.unknown;
    }
    if (words.empty()) continue;
    if (std::all_of(words.begin(), words.end(), is_assignment)) {
      for (const std::string& w : words) {
        const std::string name = w.substr(0, w.find('='));
        state.vars[name] = w.substr(name.size() + 1);
        // NAME=${NAME:-default} keeps the sourced setting it defaults: it still comes from there.
        if (command.find("$" + name) == std::string_view::npos && command.find("${" + name) == std::string_view::npos) {
          state.origin.erase(name);
        }
      }
      continue;
    }
    // The control flow a cron job uses to stop early; nothing else of it is followed.
    if (words.front() == "if" || words.front() == "elif") {
      if (words.front() == "elif" && !state.tests.empty()) state.tests.pop_back();
      state.tests.push_back(evaluate_test({words.begin() + 1, words.end()}, unknown));
      continue;
    }
    if (words.front() == "else" && !state.tests.empty()) {
      if (state.tests.back()) state.tests.back() = !*state.tests.back();
      continue;
    }
    if (words.front() == "fi") {
      if (!state.tests.empty()) state.tests.pop_back();
      continue;
    }
    if (words.front() == "exit") {
      const bool taken = std::all_of(state.tests.begin(), state.tests.end(),
                                     [](const std::optional<bool>& t) { return t && *t; });
      if (taken && !state.exited) state.exited = "the job exits at line " + std::to_string(at.line) + " before it";
      continue;
    }
    if ((words.front() == "." || words.front() == "source") && words.size() == 2 && state.sourced != nullptr) {
      if (const auto it = state.sourced->find(words[1]); it != state.sourced->end()) {
        for (const auto& [name, value] : it->second) {
          state.vars[name] = value;
          state.origin[name] = words[1];
        }
        state.last_sourced = words[1];
      }
      continue;
    }
    words = command_words(std::move(words));
    if (words.empty()) continue;
    const std::string_view program = basename(words[0]);
    const bool cleaner = program == "find" || program == "tmpwatch" || program == "tmpreaper";
    if (!cleaner) continue;
    if (unknown) {
      not_understood(out, at.file, at.line, at.text,
                     std::string(program) + ": a word holds a value not known here (a command "
                     "substitution or an unset variable)");
      continue;
    }
    const std::size_t before = out.cleanings.size();
    if (program == "find") {
      parse_find(words, at, out);
    } else {
      parse_reaper(program == "tmpwatch" ? Tool::tmpwatch : Tool::tmpreaper, words, at, out);
    }
    for (std::size_t k = before; k < out.cleanings.size(); ++k) {
      Cleaning& c = out.cleanings[k];
      if (state.exited) {
        c.disabled = true;
        c.disabled_by = *state.exited;
      }
      if (!idiom_variable.empty()) {
        c.protect_variable = idiom_variable;
        const auto v = state.vars.find(idiom_variable);
        if (v != state.vars.end()) c.protect_variable_value = v->second;
        // Set in a sourced file, or to be set there (the file the job sources its settings from).
        const auto o = state.origin.find(idiom_variable);
        c.protect_variable_file = o != state.origin.end() ? o->second : state.last_sourced;
      }
    }
  }
}

// Joins lines ending in a backslash, as the shell does, calling f(logical, first_line_number).
template <typename F>
void for_each_logical_line(std::string_view text, F&& f) {
  std::string logical;
  std::size_t first = 0;
  for_each_line(text, [&](std::string_view line, std::size_t number) {
    if (logical.empty()) first = number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.ends_with('\\')) {
      logical += line.substr(0, line.size() - 1);
      logical += ' ';
      if (logical.size() > std::size_t{64} * 1024) {  // bounded: a continuation that never ends
        f(std::string_view(logical), first);
        logical.clear();
      }
      return;
    }
    logical += line;
    f(std::string_view(logical), first);
    logical.clear();
  });
  if (!logical.empty()) f(std::string_view(logical), first);
}

}  // namespace

std::map<std::string, std::string> parse_assignments(std::string_view file, std::string_view text,
                                                     bool strict, Configuration& out) {
  Variables vars;
  for_each_logical_line(text, [&](std::string_view raw, std::size_t number) {
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') return;
    const std::vector<Token> tokens = shell_tokens(line, vars);
    bool all = !tokens.empty();
    for (const Token& t : tokens) all = all && !t.op && !t.unknown && is_assignment(t.text);
    if (!all) {
      if (strict) not_understood(out, file, number, raw, "not a shell assignment");
      return;
    }
    for (const Token& t : tokens) {
      const std::size_t eq = t.text.find('=');
      vars[t.text.substr(0, eq)] = t.text.substr(eq + 1);
    }
  });
  return vars;
}

void parse_cron(std::string_view file, std::string_view text, CronFile kind,
                const std::map<std::string, Assignments>& sourced, Configuration& out) {
  ScriptState state;
  state.sourced = &sourced;
  for_each_logical_line(text, [&](std::string_view raw, std::size_t number) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') return;
    const Located at{file, number, raw};
    if (kind == CronFile::script) {
      scan_commands(line, at, state, out);
      return;
    }
    // A crontab line: an environment setting, or a schedule (five fields or @word), the user
    // (system crontabs), then the command.
    const auto next_field = [&line]() {
      line = trim(line);
      const std::size_t end = std::min(line.find(' '), line.find('\t'));
      const std::string_view f = line.substr(0, end);
      line.remove_prefix(end == std::string_view::npos ? line.size() : end);
      return f;
    };
    {
      std::size_t n = 0;
      while (n < line.size() && is_name_char(line[n], n == 0)) ++n;
      std::size_t eq = n;
      while (eq < line.size() && is_blank(line[eq])) ++eq;
      if (n > 0 && eq < line.size() && line[eq] == '=') return;  // NAME=value
    }
    const std::string_view first = next_field();
    if (!first.starts_with('@')) {
      for (int k = 0; k < 4; ++k) {
        if (next_field().empty()) return not_understood(out, file, number, raw, "short crontab line");
      }
    }
    if (kind == CronFile::system_crontab && next_field().empty()) {
      return not_understood(out, file, number, raw, "no user field");
    }
    // cron gives the command to /bin/sh; '%' ends it (what follows is its input).
    std::string_view command = trim(line);
    if (const std::size_t pct = command.find('%'); pct != std::string_view::npos) {
      if (pct == 0 || command[pct - 1] != '\\') command = command.substr(0, pct);
    }
    // Each line of a crontab is a shell of its own.
    ScriptState line_state;
    line_state.sourced = &sourced;
    scan_commands(command, at, line_state, out);
  });
}

bool glob_match(std::string_view p, std::string_view n, bool pathname, bool period) {
  // Iterative with one backtrack point per '*', the classic way; bounded by |p| * |n|.
  std::size_t pi = 0;
  std::size_t ni = 0;
  std::size_t star_p = std::string_view::npos;
  std::size_t star_n = 0;
  const auto leading_period = [&](std::size_t at) {
    return period && n[at] == '.' && (at == 0 || (pathname && n[at - 1] == '/'));
  };
  while (ni < n.size()) {
    if (pi < p.size()) {
      const char pc = p[pi];
      if (pc == '*') {
        if (!leading_period(ni)) {
          star_p = pi++;
          star_n = ni;
          continue;
        }
      } else if (pc == '?') {
        if (!(pathname && n[ni] == '/') && !leading_period(ni)) {
          ++pi;
          ++ni;
          continue;
        }
      } else if (pc == '[') {
        std::size_t k = pi + 1;
        bool negated = false;
        if (k < p.size() && (p[k] == '!' || p[k] == '^')) {
          negated = true;
          ++k;
        }
        bool in = false;
        bool first = true;
        while (k < p.size() && (first || p[k] != ']')) {
          first = false;
          char lo = p[k];
          if (lo == '\\' && k + 1 < p.size()) lo = p[++k];
          char hi = lo;
          if (k + 2 < p.size() && p[k + 1] == '-' && p[k + 2] != ']') {
            hi = p[k + 2];
            k += 2;
          }
          if (n[ni] >= lo && n[ni] <= hi) in = true;
          ++k;
        }
        if (k < p.size() && !(pathname && n[ni] == '/') && !leading_period(ni) && in != negated) {
          pi = k + 1;
          ++ni;
          continue;
        }
        if (k >= p.size() && n[ni] == '[') {  // no closing ']': a literal '['
          ++pi;
          ++ni;
          continue;
        }
      } else {
        char lit = pc;
        std::size_t adv = 1;
        if (pc == '\\' && pi + 1 < p.size()) {
          lit = p[pi + 1];
          adv = 2;
        }
        if (lit == n[ni]) {
          pi += adv;
          ++ni;
          continue;
        }
      }
    }
    // Backtrack to the last '*', which takes one more character (never a '/' under pathname).
    if (star_p == std::string_view::npos || (pathname && n[star_n] == '/')) return false;
    ++star_n;
    ni = star_n;
    pi = star_p + 1;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace hsperfguard::cleaners
