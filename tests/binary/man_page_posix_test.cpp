// The built man page hsperfguard(1) against the binary's --help: for every subcommand (nested
// ones too) its description, usage, footer and every option --help shows are in the page in
// the same words, every exit status of the exit-code tables is in both, the value syntax and the
// column legends --help ends with are sections of the page, and it renders without a warning.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "commands/exit_codes.hpp"
#include "commands/help_format.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using test::run_tool;

constexpr std::size_t kColumn = 28;  // where --help's descriptions begin

std::string page_path() {
  return std::filesystem::path(test::tool_path()).parent_path().string() + "/share/man/man1/hsperfguard.1.gz";
}

// Whitespace collapsed: the help is wrapped at 80 columns, the page wherever man wraps it.
std::string normalized(const std::string& text) {
  std::string out;
  std::istringstream words(text);
  for (std::string w; words >> w;) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The page as man renders it for a terminal, without overstrikes, in sections ("COMMANDS")
// and, within them, subsections ("hsperfguard rules show"). Wide, so that a meaning is one line.
struct Rendered {
  std::vector<std::string> order;
  std::map<std::string, std::string> sections;
  std::map<std::string, std::map<std::string, std::string>> subsections;
};

Rendered render() {
  Rendered page;
  const auto r = test::run({"sh", "-c", "LC_ALL=C MANWIDTH=160 man --warnings -l '" + page_path() + "' | col -bx"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "warnings";
  std::string section, subsection;
  for (const auto& line : lines_of(r.out)) {
    if (!line.empty() && line[0] != ' ' && !line.starts_with("HSPERFGUARD(1)") && !line.starts_with("hsperfguard ")) {
      section = line;
      subsection.clear();
      page.order.push_back(section);
      continue;
    }
    if (line.starts_with("   ") && line[3] != ' ') {
      subsection = line.substr(3);
      page.sections[section] += line + "\n";
      continue;
    }
    page.sections[section] += line + "\n";
    if (!subsection.empty()) page.subsections[section][subsection] += line + "\n";
  }
  return page;
}

// One subcommand's --help, in its parts.
struct Help {
  std::string description, usage, footer;
  std::vector<std::pair<std::string, std::string>> options;  // "-f, --format json|text", description
  std::map<int, std::string> exit_codes;
  std::vector<std::string> subcommands;
};

Help parse_help(const std::string& text) {
  Help help;
  enum { description, usage, entries, subcommands, footer, exits } part = description;
  for (const auto& line : lines_of(text)) {
    if (line.starts_with("Usage: ")) {
      part = usage;
      help.usage = line.substr(7);
      continue;
    }
    if (line == "Options:" || line == "Positionals:") {
      part = entries;
      continue;
    }
    if (line == "Subcommands:") {
      part = subcommands;
      continue;
    }
    if (line == "Exit status:") {
      part = exits;
      continue;
    }
    switch (part) {
      case description: help.description += line + "\n"; break;
      case usage:
        if (line.empty()) part = footer;
        break;
      case entries:
        if (line.empty()) {
          part = footer;
        } else if (line.starts_with(std::string(kColumn, ' '))) {
          help.options.back().second += " " + line;
        } else if (line.size() > kColumn && line.substr(kColumn - 2, 2) == "  " && line[kColumn] != ' ') {
          help.options.emplace_back(normalized(line.substr(0, kColumn)), line.substr(kColumn));
        } else {
          help.options.emplace_back(normalized(line), "");
        }
        break;
      case subcommands:
        if (line.empty()) {
          part = footer;
        } else if (!line.starts_with(std::string(kColumn, ' '))) {
          help.subcommands.push_back(normalized(line.substr(0, kColumn)));
        }
        break;
      case footer: help.footer += line + "\n"; break;
      case exits: {
        static const std::regex row(R"(  (\d)  (.*))");
        std::smatch m;
        if (std::regex_match(line, m, row)) {
          help.exit_codes[std::stoi(m[1])] = m[2];
        } else if (!help.exit_codes.empty()) {
          help.exit_codes.rbegin()->second += " " + line;
        }
        break;
      }
    }
  }
  for (auto& [name, desc] : help.options) desc = normalized(desc);
  for (auto& [code, meaning] : help.exit_codes) meaning = normalized(meaning);
  return help;
}

// Every subcommand's words ({"rules", "show"}), from the help's own lists.
std::vector<std::vector<std::string>> every_subcommand() {
  std::vector<std::vector<std::string>> out;
  std::vector<std::vector<std::string>> todo{{}};
  while (!todo.empty()) {
    const auto words = todo.back();
    todo.pop_back();
    auto args = words;
    args.push_back("--help");
    const auto r = run_tool(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (const auto& sub : parse_help(r.out).subcommands) {
      auto deeper = words;
      deeper.push_back(sub);
      out.push_back(deeper);
      todo.push_back(deeper);
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

TEST(ManPage, HasTheSectionsOfAManPageAndTheToolsOwn) {
  ASSERT_TRUE(std::filesystem::exists(page_path())) << "the build made no man page";
  ASSERT_TRUE(test::have_program("man")) << "man (Debian: man-db)";
  const Rendered page = render();
  for (const char* section : {"NAME", "DESCRIPTION", "SEE ALSO", "ENVIRONMENT", "SYNOPSIS", "OPTIONS"}) {
    ASSERT_TRUE(page.sections.contains(section)) << section;
  }
  EXPECT_EQ(page.order, (std::vector<std::string>{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "DURATION",
                                                  "PS STATE", "EXIT STATUS", "ENVIRONMENT", "FILES", "THREAT MODEL",
                                                  "EXAMPLES", "SEE ALSO"}));
  EXPECT_EQ(normalized(page.sections.at("NAME")), "hsperfguard - audit and clean up the JVM's hsperfdata namespaces");
  // No line of the help's own framing strays into the description.
  EXPECT_EQ(page.sections.at("DESCRIPTION").find("hsperfguard: audit"), std::string::npos);
  EXPECT_NE(normalized(page.sections.at("SEE ALSO")).find("hsperfguard-policy(5)"), std::string::npos);
  EXPECT_NE(page.sections.at("ENVIRONMENT").find("NO_COLOR"), std::string::npos);
  // The program's usage lines and its own options.
  const Help top = parse_help(run_tool({"--help"}).out);
  EXPECT_NE(normalized(page.sections.at("SYNOPSIS")).find(normalized(top.usage)), std::string::npos);
  for (const auto& [name, desc] : top.options) {
    EXPECT_NE(normalized(page.sections.at("OPTIONS")).find(name + " " + desc), std::string::npos) << name;
  }
}

TEST(ManPage, EverySubcommandsHelpIsInThePageInTheSameWords) {
  ASSERT_TRUE(std::filesystem::exists(page_path())) << "the build made no man page";
  ASSERT_TRUE(test::have_program("man")) << "man (Debian: man-db)";
  const Rendered page = render();
  ASSERT_TRUE(page.sections.contains("SYNOPSIS"));
  ASSERT_TRUE(page.subsections.contains("COMMANDS")) << "no subcommand has a subsection under COMMANDS";
  ASSERT_TRUE(page.subsections.contains("EXIT STATUS")) << "no subcommand's exit codes under EXIT STATUS";
  const auto subcommands = every_subcommand();
  ASSERT_GE(subcommands.size(), 8u);
  const std::string synopsis = normalized(page.sections.at("SYNOPSIS"));
  std::size_t options = 0;
  for (const auto& words : subcommands) {
    const std::string name = "hsperfguard " + joined(words);
    auto args = words;
    args.push_back("--help");
    const Help help = parse_help(run_tool(args).out);
    ASSERT_TRUE(page.subsections.at("COMMANDS").contains(name)) << name << " has no subsection under COMMANDS";
    const std::string section = normalized(page.subsections.at("COMMANDS").at(name));
    EXPECT_NE(section.find(normalized(help.description)), std::string::npos) << name << ": description";
    EXPECT_NE(section.find(normalized(help.usage)), std::string::npos) << name << ": usage";
    EXPECT_NE(synopsis.find(normalized(help.usage)), std::string::npos) << name << ": usage in SYNOPSIS";
    ASSERT_FALSE(help.options.empty()) << name;
    for (const auto& [option, desc] : help.options) {
      EXPECT_NE(section.find(option + " " + desc), std::string::npos)
          << name << ": " << option << " " << desc << "\nis not in the page's:\n" << section;
      ++options;
    }
    // The footer's paragraphs: what the subcommand wrote is in its subsection; a legend or a
    // value's syntax, from the tables, is a section of its own (the legends are checked below).
    std::vector<std::string> paragraphs{""};
    for (const auto& line : lines_of(help.footer)) {
      if (line.empty()) {
        if (!paragraphs.back().empty()) paragraphs.emplace_back();
      } else {
        paragraphs.back() += line + "\n";
      }
    }
    for (const auto& paragraph : paragraphs) {
      if (paragraph.empty()) continue;
      bool generated = false;
      for (const ColumnLegend& legend : column_legends()) {
        if (legend.subcommand == joined(words) && paragraph.starts_with(std::string(legend.column) + ": ")) {
          generated = true;
        }
      }
      for (const HelpTerm& v : value_syntax_table()) {
        if (!paragraph.starts_with(std::string(v.term) + ": ")) continue;
        generated = true;
        ASSERT_TRUE(page.sections.contains(std::string(v.term))) << v.term;
        EXPECT_NE(normalized(page.sections.at(std::string(v.term))).find(normalized(paragraph.substr(v.term.size() + 2))),
                  std::string::npos)
            << paragraph;
      }
      if (!generated) {
        EXPECT_NE(section.find(normalized(paragraph)), std::string::npos) << name << ": footer\n" << paragraph;
      }
    }
    // Its exit codes, in its words, under EXIT STATUS.
    ASSERT_FALSE(help.exit_codes.empty()) << name;
    ASSERT_TRUE(page.subsections.at("EXIT STATUS").contains(name)) << name << " has no exit codes in the page";
    const std::string codes = page.subsections.at("EXIT STATUS").at(name);
    std::map<int, std::string> in_page;
    static const std::regex row(R"( +(\d) {2,}(.*))");
    int current = -1;
    for (const auto& line : lines_of(codes)) {
      std::smatch m;
      if (std::regex_match(line, m, row)) {
        current = std::stoi(m[1]);
        in_page[current] = m[2];
      } else if (current >= 0 && !line.empty()) {
        in_page[current] += " " + line;  // a meaning wider than the page
      }
    }
    for (auto& [code, meaning] : in_page) meaning = normalized(meaning);
    EXPECT_EQ(in_page, help.exit_codes) << name;
  }
  EXPECT_GT(options, 60u);
  // The legends, term by term.
  for (const ColumnLegend& legend : column_legends()) {
    const std::string title = std::string(legend.subcommand) + " " + std::string(legend.column);
    std::string heading;
    for (const char c : title) heading += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ASSERT_TRUE(page.sections.contains(heading)) << heading;
    for (const HelpTerm& t : legend.terms) {
      EXPECT_NE(normalized(page.sections.at(heading)).find(std::string(t.term) + " " + normalized(std::string(t.meaning))),
                std::string::npos)
          << t.term;
    }
  }
}

TEST(ManPage, EveryRowOfTheExitCodeTablesIsInHelpAndInThePage) {
  ASSERT_TRUE(std::filesystem::exists(page_path())) << "the build made no man page";
  ASSERT_TRUE(test::have_program("man")) << "man (Debian: man-db)";
  const Rendered page = render();
  ASSERT_TRUE(page.sections.contains("EXIT STATUS"));
  ASSERT_TRUE(page.subsections.contains("EXIT STATUS")) << "no subcommand's exit codes under EXIT STATUS";
  const std::string status = page.sections.at("EXIT STATUS");
  const std::string general = normalized(status.substr(0, status.find("\n   hsperfguard ")));
  const std::string help = normalized(run_tool({"--help"}).out);
  for (const auto& row : exit_code_table()) {
    const std::string said = std::to_string(row.code) + " " + normalized(std::string(row.meaning));
    EXPECT_NE(help.find(said), std::string::npos) << said;
    EXPECT_NE(general.find(said), std::string::npos) << said;
  }
  for (const auto& row : subcommand_exit_codes()) {
    const std::string name = "hsperfguard " + std::string(row.subcommand);
    const std::string said = std::to_string(row.code) + " " + normalized(std::string(row.meaning));
    std::vector<std::string> args;
    std::istringstream words{std::string(row.subcommand)};
    for (std::string w; words >> w;) args.push_back(w);
    args.push_back("--help");
    EXPECT_NE(normalized(run_tool(args).out).find(said), std::string::npos) << name << ": " << said;
    ASSERT_TRUE(page.subsections.at("EXIT STATUS").contains(name)) << name;
    EXPECT_NE(normalized(page.subsections.at("EXIT STATUS").at(name)).find(said), std::string::npos)
        << name << ": " << said;
  }
}

TEST(ManPage, GroffFindsNothingToWarnAbout) {
  ASSERT_TRUE(std::filesystem::exists(page_path())) << "the build made no man page";
  ASSERT_TRUE(test::have_program("groff")) << "groff (Debian: groff-base)";
  const auto r = test::run({"sh", "-c", "gzip -dc '" + page_path() + "' | groff -ww -man -z"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace hsperfguard
