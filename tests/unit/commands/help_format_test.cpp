// The tables a subcommand's --help ends with (commands/help_format.hpp): ps's STATE legend is the
// closed set of states its JSON schema allows, and every subcommand that takes a DURATION says
// its syntax, where the man page says it too (commands/man_page.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "commands/command_line.hpp"
#include "commands/help_format.hpp"
#include "test_support.hpp"

namespace hsperfguard::test {
namespace {

const CLI::App* subcommand_named(const CommandLine& line, std::string_view name) {
  for (const CLI::App* sub : line.app.get_subcommands({})) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

TEST(HelpTables, PsStateLegendIsTheSchemasClosedSetOfStates) {
  std::ifstream in(source_path("schemas/ps.schema.json"));
  ASSERT_TRUE(in.is_open());
  const auto schema = nlohmann::json::parse(in);
  std::set<std::string> in_schema;
  for (const auto& s : schema["$defs"]["jvm"]["properties"]["state"]["enum"]) in_schema.insert(s.get<std::string>());
  ASSERT_GE(in_schema.size(), 8u) << schema.dump();
  std::set<std::string> in_legend;
  for (const ColumnLegend& legend : column_legends()) {
    if (legend.subcommand != "ps" || legend.column != "STATE") continue;
    for (const HelpTerm& t : legend.terms) {
      EXPECT_TRUE(in_legend.insert(std::string(t.term)).second) << t.term << " twice";
      EXPECT_FALSE(t.meaning.empty()) << t.term;
    }
  }
  EXPECT_EQ(in_legend, in_schema);
}

TEST(HelpTables, PsHelpEndsWithTheStateLegendOneStateALine) {
  const CommandLine line;
  const std::string help = subcommand_named(line, "ps")->help();
  const auto legend = help.find("\nSTATE: ");
  ASSERT_NE(legend, std::string::npos) << help;
  for (const char* state : {"live", "unknown", "stale", "pid-reused", "foreign", "blind", "deleted", "unlisted"}) {
    EXPECT_NE(help.find("\n  " + std::string(state) + " ", legend), std::string::npos) << state << "\n" << help;
  }
  EXPECT_LT(legend, help.find("\nExit status:\n")) << help;
}

TEST(HelpTables, EverySubcommandTakingADurationSaysItsSyntaxAndNoOtherDoes) {
  const CommandLine line;
  const std::string syntax = "DURATION: 90 (seconds), 500ms, 90s, 15m, 2h, 1d; at most 3650d.\n";
  for (const char* name : {"audit", "reap"}) {
    EXPECT_NE(subcommand_named(line, name)->help().find("\n" + syntax), std::string::npos) << name;
  }
  for (const char* name : {"rules", "inspect", "ps", "create", "repair"}) {
    EXPECT_EQ(subcommand_named(line, name)->help().find("DURATION:"), std::string::npos) << name;
  }
  EXPECT_EQ(line.app.help().find("DURATION:"), std::string::npos);
}

}  // namespace
}  // namespace hsperfguard::test
