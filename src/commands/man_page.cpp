// hsperfguard(1) from the parser and the help tables: each section is made from what --help
// prints (the same formatter, the same tables), so that the page and the help cannot say two
// things. The page is plain man(7) roff; no hyphenation and ragged right, so that an option or
// a path is never cut and the rendered text compares with --help word for word.
#include "commands/man_page.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

#include "commands/exit_codes.hpp"
#include "commands/help_format.hpp"

namespace hsperfguard {
namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    out.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

std::string bold(std::string_view text) { return "\\fB" + roff_text(text) + "\\fR"; }
std::string italic(std::string_view text) { return "\\fI" + roff_text(text) + "\\fR"; }

// A usage line as the help prints it ("hsperfguard rules show [OPTIONS] ID"): the words typed
// as they are in bold, what stands for a value in italics, brackets and bars plain.
std::string usage_roff(std::string_view line) {
  std::istringstream words{std::string(line)};
  std::string out;
  for (std::string word; words >> word;) {
    if (!out.empty()) out += ' ';
    const bool literal = std::all_of(word.begin(), word.end(), [](unsigned char c) {
      return std::islower(c) || std::isdigit(c) || c == '-' || c == '_';
    });
    if (literal) {
      out += bold(word);
      continue;
    }
    std::string run;
    const auto flush = [&] {
      if (!run.empty()) out += italic(run);
      run.clear();
    };
    for (const char c : word) {
      if (c == '[' || c == ']' || c == '|' || c == '.') {
        flush();
        out += c;
      } else {
        run += c;
      }
    }
    flush();
  }
  return out;
}

// The usage lines the help of `app` begins with, without "Usage:".
std::vector<std::string> usage_lines(const HelpFormatter& formatter, const CLI::App* app) {
  std::vector<std::string> out;
  for (std::string line : lines_of(formatter.make_usage(app, ""))) {
    const std::string label = "Usage:";
    if (line.starts_with(label)) line.erase(0, label.size());
    line.erase(0, line.find_first_not_of(' '));
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// Every subcommand below `app`, depth first in the order of --help ("rules", then "rules show").
void subcommands_of(const CLI::App* app, std::vector<const CLI::App*>& out) {
  for (const CLI::App* sub : app->get_subcommands({})) {
    out.push_back(sub);
    subcommands_of(sub, out);
  }
}

// The path of a subcommand below the program, as the exit-code table names it ("rules show").
std::string below_program(const CLI::App* app) {
  const std::string path = command_path(app);
  return path.size() > kProgramName.size() ? path.substr(kProgramName.size() + 1) : std::string();
}

// One option as its help line says it: its names in bold, what to pass in italics, then the
// description with its constraints.
void option_entry(std::ostream& out, const HelpFormatter& formatter, const CLI::Option* opt, bool positional) {
  out << ".TP\n";
  if (positional) {
    out << italic(formatter.make_option_name(opt, true)) << "\n";
  } else {
    std::string names;
    std::istringstream parts{formatter.make_option_name(opt, false)};
    for (std::string name; std::getline(parts, name, ',');) {
      name.erase(0, name.find_first_not_of(' '));
      names += (names.empty() ? "" : ", ") + bold(name);
    }
    const std::string opts = formatter.make_option_opts(opt);
    out << names << (opts.empty() ? "" : " " + usage_roff(opts.substr(1))) << "\n";
  }
  out << roff_text(formatter.make_option_desc(opt)) << "\n";
}

// Its operands, then its options, under the labels its help gives them (none in OPTIONS).
void options_of(std::ostream& out, const HelpFormatter& formatter, const CLI::App* app, bool labelled) {
  const auto operand = [](const CLI::Option* o) { return o->get_lnames().empty() && o->get_snames().empty(); };
  const auto all = app->get_options();
  if (std::any_of(all.begin(), all.end(), operand)) {
    if (labelled) out << ".PP\nPositionals:\n";
    for (const CLI::Option* o : all) {
      if (operand(o)) option_entry(out, formatter, o, true);
    }
  }
  if (labelled) out << ".PP\nOptions:\n";
  for (const CLI::Option* o : all) {
    if (!operand(o)) option_entry(out, formatter, o, false);
  }
}

// A footer's paragraphs: lines wrapped for a terminal are joined, a blank line starts another.
void paragraphs(std::ostream& out, std::string_view text) {
  std::string paragraph;
  const auto flush = [&] {
    if (!paragraph.empty()) out << ".PP\n" << roff_text(paragraph) << "\n";
    paragraph.clear();
  };
  for (const auto& line : lines_of(text)) {
    if (line.find_first_not_of(' ') == std::string::npos) {
      flush();
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + line;
    }
  }
  flush();
}

void name_section(std::ostream& out, const CLI::App& app) {
  std::string summary = app.get_description();
  const std::string prefix = std::string(kProgramName) + ": ";
  if (summary.starts_with(prefix)) summary.erase(0, prefix.size());
  out << ".SH NAME\n" << roff_text(std::string(kProgramName)) << " \\- " << roff_text(summary) << "\n";
}

void synopsis_section(std::ostream& out, const HelpFormatter& formatter, const CLI::App& app) {
  out << ".SH SYNOPSIS\n";
  std::vector<const CLI::App*> apps{&app};
  subcommands_of(&app, apps);
  bool first = true;
  for (const CLI::App* a : apps) {
    for (const auto& line : usage_lines(formatter, a)) {
      out << (first ? "" : ".br\n") << usage_roff(line) << "\n";
      first = false;
    }
  }
  // The program's own options, each alone.
  std::string alone;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_lnames().empty()) continue;
    alone += (alone.empty() ? "" : " | ") + bold("--" + o->get_lnames().front());
  }
  if (!alone.empty()) out << ".br\n" << bold(kProgramName) << " " << alone << "\n";
}

void options_section(std::ostream& out, const HelpFormatter& formatter, const CLI::App& app) {
  out << ".SH OPTIONS\n";
  options_of(out, formatter, &app, false);
}

void commands_section(std::ostream& out, const HelpFormatter& formatter, const CLI::App& app) {
  out << ".SH COMMANDS\n";
  std::vector<const CLI::App*> subs;
  subcommands_of(&app, subs);
  for (const CLI::App* sub : subs) {
    out << ".SS \"" << roff_text(command_path(sub)) << "\"\n" << roff_text(sub->get_description()) << "\n.PP\n";
    bool first = true;
    for (const auto& line : usage_lines(formatter, sub)) {
      out << (first ? "" : ".br\n") << usage_roff(line) << "\n";
      first = false;
    }
    paragraphs(out, sub->get_footer());
    const auto nested = sub->get_subcommands({});
    if (!nested.empty()) {
      std::string names;
      for (const CLI::App* n : nested) names += (names.empty() ? "" : ", ") + bold(command_path(n));
      out << ".PP\nSubcommands: " << names << " (below).\n";
    }
    options_of(out, formatter, sub, true);
  }
}

void values_section(std::ostream& out, const HelpFormatter& formatter, const CLI::App& app) {
  std::vector<const CLI::App*> subs;
  subcommands_of(&app, subs);
  for (const HelpTerm& value : value_syntax_table()) {
    std::string takers;
    for (const CLI::App* sub : subs) {
      for (const CLI::Option* o : sub->get_options()) {
        if (formatter.make_option_opts(o) != " " + std::string(value.term) || o->get_lnames().empty()) continue;
        takers += (takers.empty() ? "" : ", ") + bold(command_path(sub) + " --" + o->get_lnames().front());
      }
    }
    out << ".SH " << roff_text(value.term) << "\n";
    if (!takers.empty()) out << "The value of " << takers << ":\n";
    out << roff_text(value.meaning) << "\n";
  }
}

void legends_section(std::ostream& out) {
  for (const ColumnLegend& legend : column_legends()) {
    out << ".SH \"" << roff_text(upper(legend.subcommand) + " " + std::string(legend.column)) << "\"\n"
        << "The " << roff_text(legend.column) << " column of " << bold(std::string(kProgramName) + " " + std::string(legend.subcommand))
        << ": " << roff_text(legend.intro) << ".\n";
    for (const HelpTerm& t : legend.terms) out << ".TP\n" << bold(t.term) << "\n" << roff_text(t.meaning) << "\n";
  }
}

void exit_status_section(std::ostream& out, const CLI::App& app) {
  out << ".SH \"EXIT STATUS\"\n"
      << "Each code means the same whatever the subcommand; each subcommand ends with those listed under its "
         "name, in its own words (as its \\fB\\-\\-help\\fR ends).\n";
  for (const auto& row : exit_code_table()) {
    out << ".TP\n" << bold(std::to_string(row.code)) << "\n" << roff_text(row.meaning) << "\n";
  }
  std::vector<const CLI::App*> subs;
  subcommands_of(&app, subs);
  for (const CLI::App* sub : subs) {
    const std::string path = below_program(sub);
    bool any = false;
    for (const auto& row : subcommand_exit_codes()) {
      if (row.subcommand != path) continue;
      if (!any) out << ".SS \"" << roff_text(command_path(sub)) << "\"\n";
      any = true;
      out << ".TP\n" << bold(std::to_string(row.code)) << "\n" << roff_text(row.meaning) << "\n";
    }
  }
}

}  // namespace

std::string roff_text(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && c == '.') out += "\\&";
    line_start = false;
    switch (c) {
      case '\\': out += "\\e"; break;
      case '-': out += "\\-"; break;
      case '\'': out += "\\(aq"; break;
      case '`': out += "\\(ga"; break;
      case '"': out += "\\(dq"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::optional<std::string> man_page(const CLI::App& app, std::string_view page_template, std::string_view version,
                                    std::string& error) {
  const HelpFormatter formatter;
  using Section = void (*)(std::ostream&, const HelpFormatter&, const CLI::App&);
  const std::map<std::string, Section> sections = {
      {"@NAME@", [](std::ostream& o, const HelpFormatter&, const CLI::App& a) { name_section(o, a); }},
      {"@SYNOPSIS@", synopsis_section},
      {"@OPTIONS@", options_section},
      {"@COMMANDS@", commands_section},
      {"@VALUES@", values_section},
      {"@LEGENDS@", [](std::ostream& o, const HelpFormatter&, const CLI::App&) { legends_section(o); }},
      {"@EXIT_STATUS@", [](std::ostream& o, const HelpFormatter&, const CLI::App& a) { exit_status_section(o, a); }},
  };
  std::map<std::string, int> used;
  std::ostringstream out;
  out << ".\\\" " << roff_text(kProgramName) << "(1), generated from its command line and help tables "
      << "(src/commands/man_page.cpp) and docs/hsperfguard.1.in: edit those.\n"
      << ".TH " << upper(kProgramName) << " 1 \"\" \"" << roff_text(std::string(kProgramName) + " " + std::string(version))
      << "\" \"User Commands\"\n"
      << ".nh\n.ad l\n";
  for (const auto& line : lines_of(page_template)) {
    if (line.starts_with(".\\\"")) continue;
    if (line.starts_with('@')) {
      const auto section = sections.find(line);
      if (section == sections.end()) {
        error = "unknown placeholder " + line;
        return std::nullopt;
      }
      if (used[line]++ > 0) {
        error = "placeholder " + line + " given twice";
        return std::nullopt;
      }
      section->second(out, formatter, app);
      continue;
    }
    out << line << "\n";
  }
  for (const auto& [name, section] : sections) {
    if (!used.contains(name)) {
      error = "the template has no placeholder " + name;
      return std::nullopt;
    }
  }
  return out.str();
}

}  // namespace hsperfguard
