// The man page generator (commands/man_page.hpp): it walks whatever the parser holds, so an
// option or a subcommand someone adds is in the page with its help's words; roff's control
// characters in a help text come out as text; the template must name every section once.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "commands/command_line.hpp"
#include "commands/man_page.hpp"
#include "test_support.hpp"

namespace hsperfguard::test {
namespace {

const std::string kSections = "@NAME@\n@SYNOPSIS@\n@OPTIONS@\n@COMMANDS@\n@VALUES@\n@LEGENDS@\n@EXIT_STATUS@\n";

std::string page_of(const CLI::App& app, const std::string& page_template = kSections) {
  std::string error;
  const auto page = man_page(app, page_template, "1.2.3", error);
  EXPECT_TRUE(page.has_value()) << error;
  return page.value_or("");
}

TEST(ManPage, RoffTextEscapesWhatRoffWouldReadAsRequestsOrEscapes) {
  EXPECT_EQ(roff_text(".x -y 'a' `b` c\\d \"q\"\nnext"),
            "\\&.x \\-y \\(aqa\\(aq \\(gab\\(ga c\\ed \\(dqq\\(dq next");
  EXPECT_EQ(roff_text("a.b"), "a.b");
}

TEST(ManPage, AnOptionOrSubcommandAddedToTheParserIsInThePageWithItsHelpText) {
  CommandLine line;
  CLI::App* reap = nullptr;
  for (CLI::App* sub : line.app.get_subcommands({})) {
    if (sub->get_name() == "reap") reap = sub;
  }
  ASSERT_NE(reap, nullptr);
  std::string value;
  reap->add_option("-z,--zap-limit", value, "Zap at most this many (a test's option)")->option_text("N");
  CLI::App* nested = reap->add_subcommand("undo", "Undo the last reap (a test's subcommand)");
  bool all = false;
  nested->add_flag("--all-of-it", all, "Everything");
  const std::string page = page_of(line.app);
  EXPECT_NE(page.find(".TP\n\\fB\\-z\\fR, \\fB\\-\\-zap\\-limit\\fR \\fIN\\fR\nZap at most this many (a test\\(aqs option)\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find(".SS \"hsperfguard reap undo\"\nUndo the last reap (a test\\(aqs subcommand)\n"), std::string::npos)
      << page;
  EXPECT_NE(page.find(".TP\n\\fB\\-\\-all\\-of\\-it\\fR\nEverything\n"), std::string::npos) << page;
  EXPECT_NE(page.find("\\fBhsperfguard\\fR \\fBreap\\fR \\fBundo\\fR [\\fIOPTIONS\\fR]\n"), std::string::npos) << page;
}

TEST(ManPage, EverySubcommandHasItsSectionUsageAndExitCodes) {
  const CommandLine line;
  const std::string page = page_of(line.app);
  for (const char* sub : {"audit", "rules", "rules show", "inspect", "reap", "ps", "create", "repair"}) {
    const std::string heading = ".SS \"hsperfguard " + std::string(sub) + "\"\n";
    const auto commands = page.find(heading);
    ASSERT_NE(commands, std::string::npos) << sub;
    // Once under COMMANDS, once under EXIT STATUS.
    EXPECT_NE(page.find(heading, page.find(".SH \"EXIT STATUS\"")), std::string::npos) << sub;
  }
  EXPECT_NE(page.find("\\fBhsperfguard\\fR \\fBrules\\fR \\fBshow\\fR [\\fIOPTIONS\\fR] \\fIID\\fR\n"), std::string::npos);
  EXPECT_NE(page.find(".SH DURATION\nThe value of \\fBhsperfguard audit \\-\\-max\\-runtime\\fR"), std::string::npos)
      << page;
  EXPECT_NE(page.find(".SH \"PS STATE\"\n"), std::string::npos);
  EXPECT_NE(page.find(".TH HSPERFGUARD 1 \"\" \"hsperfguard 1.2.3\" \"User Commands\"\n"), std::string::npos);
}

TEST(ManPage, TheTemplateNamesEverySectionOnceAndItsCommentsAreLeftOut) {
  const CommandLine line;
  std::string error;
  EXPECT_FALSE(man_page(line.app, "@NAME@\n", "1", error));
  EXPECT_EQ(error, "the template has no placeholder @COMMANDS@");
  EXPECT_FALSE(man_page(line.app, kSections + "@NAME@\n", "1", error));
  EXPECT_EQ(error, "placeholder @NAME@ given twice");
  EXPECT_FALSE(man_page(line.app, kSections + "@NAMES@\n", "1", error));
  EXPECT_EQ(error, "unknown placeholder @NAMES@");
  const std::string page = page_of(line.app, ".\\\" a note to whoever edits it\n" + kSections + ".SH FILES\n");
  EXPECT_EQ(page.find("a note to whoever"), std::string::npos);
  EXPECT_TRUE(page.ends_with(".SH FILES\n"));

  // The project's template is complete.
  std::ifstream in(source_path("docs/hsperfguard.1.in"));
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(man_page(line.app, text.str(), "1", error)) << error;
}

}  // namespace
}  // namespace hsperfguard::test
