// Round trip through real shells: every word shell_word makes, given to bash (and zsh, the
// other root shell of note) on one command line, comes back as an argument holding exactly
// the bytes it was made from, and nothing runs. The corpus is shell_words_corpus.hpp: every
// byte 0x01-0xff alone, between letters and doubled, quotes, $(...), backticks, backslashes,
// newlines, a leading '-', globs, invalid UTF-8 and invisible Unicode controls.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "model/shell_word.hpp"
#include "model/text_escape.hpp"
#include "shell_words_corpus.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

// The arguments `shell` reads from `printf '%s\0' WORDS...` in an empty working directory
// (where `>PWNED` would leave a file).
std::vector<std::string> read_back(const std::string& shell, const std::vector<std::string>& words,
                                   bool& ran_something) {
  test::ScratchDir cwd;
  std::string line = "cd " + posix_shell_word(cwd.path()) + " && printf '%s\\0'";
  for (const std::string& w : words) line += " " + posix_shell_word(w);
  const auto result = test::run({shell, "-c", line});
  EXPECT_EQ(result.exit_code, 0) << shell << ": " << result.err;
  std::vector<std::string> args;
  std::string::size_type at = 0;
  while (at < result.out.size()) {
    const auto end = result.out.find('\0', at);
    if (end == std::string::npos) break;
    args.push_back(result.out.substr(at, end - at));
    at = end + 1;
  }
  const auto listing = test::run({"ls", "-A", cwd.path()});
  ran_something = !listing.out.empty();
  return args;
}

void expect_round_trip(const std::string& shell) {
  const std::vector<std::string> words = test::hostile_words();
  bool ran_something = true;
  const std::vector<std::string> back = read_back(shell, words, ran_something);
  EXPECT_FALSE(ran_something) << shell << " made a file: a word was run, not read";
  ASSERT_EQ(back.size(), words.size()) << shell;
  std::size_t same = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    EXPECT_EQ(to_hex(back[i]), to_hex(words[i])) << shell << " read " << posix_shell_word(words[i]);
    same += back[i] == words[i] ? 1 : 0;
  }
  EXPECT_EQ(same, words.size());
}

TEST(ShellWordRoundTrip, BashReadsEveryWordAsExactlyItsBytes) {
  if (!test::have_program("bash")) GTEST_SKIP() << "needs bash";
  expect_round_trip("bash");
}

TEST(ShellWordRoundTrip, ZshReadsEveryWordAsExactlyItsBytes) {
  if (!test::have_program("zsh")) GTEST_SKIP() << "needs zsh (Debian: zsh)";
  expect_round_trip("zsh");
}

// In a POSIX shell without $'...' (dash) a word that needs it reads as a path relative to the
// working directory that begins with "$": never an absolute path of the file system's.
TEST(ShellWordRoundTrip, DashReadsAnAnsiCWordAsARelativePathNothingElse) {
  if (!test::have_program("dash")) GTEST_SKIP() << "needs dash";
  const std::string raw = "/tmp/hsperfdata_x\ny";
  bool ran_something = true;
  const auto back = read_back("dash", {raw}, ran_something);
  EXPECT_FALSE(ran_something);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].substr(0, 2), "$/") << back[0];
}

// Every command the binary prints for a person (the audit's remedies in JSON, text and --quiet,
// its next and or-run lines, the reap's remedies for what it leaves to a person, user names
// from a foreign root's passwd), run by bash with its programs stubbed: each name comes back
// as exactly its bytes and nothing runs (tests/support/remedy_roundtrip.py says how).
TEST(ShellWordRoundTrip, EveryCommandTheToolPrintsMeansExactlyItsNamesInBash) {
  if (!test::is_root()) GTEST_SKIP() << "plants entries of other users: needs root";
  const auto result = test::run({"/usr/bin/python3", test::source_path("tests/support/remedy_roundtrip.py"),
                                 test::tool_path(), test::source_path("")});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find(" 0 mismatches"), std::string::npos) << result.out << result.err;
  std::cout << result.out;
}

}  // namespace
}  // namespace hsperfguard
