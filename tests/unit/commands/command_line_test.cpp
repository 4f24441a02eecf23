// The parser built with one subcommand alone (what a run naming one subcommand is parsed
// with) must take arguments exactly as the whole parser does: the same subcommand, the same
// options, the same help; and a run is parsed that way only when no other subcommand is named.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "commands/command_line.hpp"

namespace hsperfguard {
namespace {

const CLI::App* subcommand_named(const CommandLine& line, std::string_view name) {
  for (const CLI::App* sub : line.app.get_subcommands({})) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) names.push_back(opt->get_name());
  return names;
}

TEST(CommandLine, TheWholeParserHasEverySubcommandInTheListsOrder) {
  const CommandLine whole;
  const auto subs = whole.app.get_subcommands({});
  const auto names = subcommand_names();
  ASSERT_EQ(subs.size(), names.size());
  ASSERT_EQ(whole.subcommands.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(subs[i]->get_name(), names[i]);
    EXPECT_EQ(whole.subcommands[i].cmd, subs[i]);
  }
}

TEST(CommandLine, EachSubcommandBuiltAloneIsTheOneNamedWithTheSameOptionsAndHelp) {
  const CommandLine whole;
  for (const std::string_view name : subcommand_names()) {
    SCOPED_TRACE(std::string(name));
    const CommandLine alone(name);
    ASSERT_EQ(alone.subcommands.size(), 1u);
    ASSERT_EQ(alone.app.get_subcommands({}).size(), 1u);
    const CLI::App& sub = *alone.subcommands.front().cmd;
    EXPECT_EQ(sub.get_name(), name);
    const CLI::App* same = subcommand_named(whole, name);
    ASSERT_NE(same, nullptr);
    EXPECT_EQ(option_names(sub), option_names(*same));
    EXPECT_EQ(sub.help(), same->help());
    // The top level keeps its flags but --bash-completion, whose callback prints while the
    // command line is parsed: built alone, the parser acts on nothing it may refuse.
    std::vector<std::string> top = option_names(whole.app);
    std::erase(top, "--bash-completion");
    EXPECT_EQ(option_names(alone.app), top);
  }
}

TEST(CommandLine, ParsedAloneTheSameArgumentsGiveTheSameValues) {
  // What reaches the subcommand: parsed alone and whole, the options hold the same results.
  const std::vector<std::string> args = {"reap", "--tmpdir", "/tmp", "--min-age", "90s", "--no-lock",
                                         "--format", "json", "--dry-run"};
  std::vector<const char*> argv = {"hsperfguard"};
  for (const auto& a : args) argv.push_back(a.c_str());
  CommandLine alone(subcommand_alone(args));
  CommandLine whole;
  alone.app.parse(static_cast<int>(argv.size()), argv.data());
  whole.app.parse(static_cast<int>(argv.size()), argv.data());
  ASSERT_TRUE(*alone.subcommands.front().cmd);
  const CLI::App* whole_reap = subcommand_named(whole, "reap");
  ASSERT_TRUE(*whole_reap);
  for (const CLI::Option* opt : alone.subcommands.front().cmd->get_options()) {
    SCOPED_TRACE(opt->get_name());
    const CLI::Option* other = whole_reap->get_option_no_throw(opt->get_name());
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(opt->count(), other->count());
    EXPECT_EQ(opt->results(), other->results());
  }
}

TEST(CommandLine, ARunIsParsedAloneOnlyWhenItNamesOneSubcommandAndNoOther) {
  using Args = std::vector<std::string>;
  EXPECT_EQ(subcommand_alone(Args{"ps"}), "ps");
  EXPECT_EQ(subcommand_alone(Args{"ps", "--all", "--format", "json"}), "ps");
  EXPECT_EQ(subcommand_alone(Args{"inspect", "/tmp/hsperfdata_x/1"}), "inspect");
  // The same name again is no other subcommand (a file may be called so).
  EXPECT_EQ(subcommand_alone(Args{"inspect", "inspect"}), "inspect");
  // Another subcommand's name anywhere after it: the whole parser decides what it means.
  EXPECT_EQ(subcommand_alone(Args{"inspect", "audit"}), "");
  EXPECT_EQ(subcommand_alone(Args{"ps", "--format", "json", "reap"}), "");
  // Not a subcommand first: top-level flags, help, a mistyped name, nothing.
  EXPECT_EQ(subcommand_alone(Args{}), "");
  EXPECT_EQ(subcommand_alone(Args{"--help"}), "");
  EXPECT_EQ(subcommand_alone(Args{"--bash-completion"}), "");
  EXPECT_EQ(subcommand_alone(Args{"help", "ps"}), "");
  EXPECT_EQ(subcommand_alone(Args{"audti"}), "");
  EXPECT_EQ(subcommand_alone(Args{"PS"}), "");
  EXPECT_EQ(subcommand_alone(Args{"ps "}), "");
}

}  // namespace
}  // namespace hsperfguard
