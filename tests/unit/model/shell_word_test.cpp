// The one maker of shell words (model/shell_word.hpp), on its own: what any word looks like,
// whatever the bytes. That a shell reads each word back as exactly its bytes is
// shell_word_posix_test.cpp, with real shells.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/shell_word.hpp"
#include "model/text_escape.hpp"
#include "shell_words_corpus.hpp"

namespace hsperfguard {
namespace {

TEST(ShellWord, PlainWordsStayAsTheyAre) {
  EXPECT_EQ(posix_shell_word("/tmp/hsperfdata_bob/4242"), "/tmp/hsperfdata_bob/4242");
  EXPECT_EQ(posix_shell_word("a.b_c,d:e@f%g+h-i"), "a.b_c,d:e@f%g+h-i");
  EXPECT_EQ(posix_shell_word(""), "''");
}

TEST(ShellWord, QuotesWithSingleQuotesOrAnsiCNeverDoubleQuotes) {
  EXPECT_EQ(posix_shell_word("x$(id>PWNED)\\y"), "'x$(id>PWNED)\\y'");
  EXPECT_EQ(posix_shell_word("nob\\ody"), "'nob\\ody'");
  EXPECT_EQ(posix_shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(posix_shell_word("=ls"), "'=ls'");
  EXPECT_EQ(posix_shell_word("a\nb"), "$'a\\x0ab'");
  EXPECT_EQ(posix_shell_word("a\xff'\\"), "$'a\\xff\\'\\\\'");
  EXPECT_EQ(posix_shell_word("\xe2\x80\xae" "x"), "$'\\xe2\\x80\\xaex'");
  EXPECT_EQ(posix_shell_word("caf\xc3\xa9"), "'caf\xc3\xa9'");
}

// A word is printed as it is: no raw control, no byte a terminal could take for a command,
// nothing that the text outputs' escaping (terminal_safe) would change inside the quotes.
TEST(ShellWord, EveryWordIsPrintableAndUnchangedByTheTerminalEscaping) {
  for (const std::string& raw : test::hostile_words()) {
    for (const std::string& word : {posix_shell_word(raw), powershell_word(raw)}) {
      EXPECT_EQ(terminal_safe(word), word) << to_hex(raw);
      EXPECT_TRUE(is_valid_utf8(word)) << to_hex(raw);
      EXPECT_EQ(word.find('\n'), std::string::npos) << to_hex(raw);
    }
    const std::string posix = posix_shell_word(raw);
    EXPECT_NE(posix.front(), '"') << to_hex(raw);
  }
}

TEST(ShellWord, PowerShellDoublesEveryQuoteItReadsAsOne) {
  EXPECT_EQ(powershell_word("C:\\Users\\A B\\Temp"), "'C:\\Users\\A B\\Temp'");
  EXPECT_EQ(powershell_word("it's"), "'it''s'");
  EXPECT_EQ(powershell_word("a\xe2\x80\x98" "b"), "'a\xe2\x80\x98\xe2\x80\x98" "b'");
  EXPECT_EQ(powershell_word("$(calc)x"), "'$(calc)x'");
  // A backquote, PowerShell's escape, is written as its code point: the text outputs set
  // commands off with backquotes.
  EXPECT_EQ(powershell_word("a`b"), "('a'+[char]0x0060+'b')");
  EXPECT_EQ(powershell_word("a\xe2\x80\xae" "b"), "('a'+[char]0x202e+'b')");
  EXPECT_EQ(powershell_word(""), "''");
  // An unpaired surrogate of a Windows name (WTF-8) is that UTF-16 unit again.
  EXPECT_EQ(powershell_word("a\xed\xa0\x80"), "('a'+[char]0xd800)");
}

TEST(ShellWord, AnOptionWhoseValueLooksLikeAnOptionIsJoinedToIt) {
#ifndef _WIN32
  EXPECT_EQ(shell_option("--user", "bob"), "--user bob");
  EXPECT_EQ(shell_option("--user", "-rf"), "--user=-rf");
  EXPECT_EQ(shell_option("--tmpdir", "/a b"), "--tmpdir '/a b'");
#endif
}

// A tmpfiles.d path field reads back as exactly the path (tmpfiles.d(5): C-style quotes and
// escapes, '%' specifiers in every field).
TEST(TmpfilesPathField, QuotesWhatTmpfilesWouldSplitOrUnescape) {
  EXPECT_EQ(tmpfiles_path_field("/tmp/hsperfdata_*"), "/tmp/hsperfdata_*");
  EXPECT_EQ(tmpfiles_path_field("/srv/my tmp/hsperfdata_*"), "\"/srv/my tmp/hsperfdata_*\"");
  EXPECT_EQ(tmpfiles_path_field("/a\"b\\c"), "\"/a\\\"b\\\\c\"");
  EXPECT_EQ(tmpfiles_path_field("/a\tb\n"), "\"/a\\x09b\\x0a\"");
  EXPECT_EQ(tmpfiles_path_field("/it's"), "\"/it's\"");
  EXPECT_EQ(tmpfiles_path_field("/100%"), "/100%%");
}

}  // namespace
}  // namespace hsperfguard
