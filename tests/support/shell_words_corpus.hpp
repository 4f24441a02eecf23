// The hostile names every test of shell words uses: each byte but NUL alone, between two
// letters and doubled, and the classic attacks on a pasted command.
#pragma once

#include <string>
#include <vector>

namespace hsperfguard::test {

inline std::vector<std::string> hostile_words() {
  std::vector<std::string> words;
  for (int b = 1; b < 256; ++b) {
    const std::string c(1, static_cast<char>(b));
    words.push_back(c);
    words.push_back("x" + c + "y");
    words.push_back(c + c);
  }
  for (const char* w : {"x$(id>PWNED)\\y", "`id`", "it's", "''", "\"$HOME\"", "-rf", "--user", "*", "~root",
                        "=ls", "{a,b}", "a b", "!!", "a\nb", "\r", "\xff\xfe", "\xc3(", "caf\xc3\xa9",
                        "\xe2\x80\xae" "evil", "\xe2\x80\xa8", "\xc2\x9b" "31m", "\\x0a", "$'x'", "\xe2\x80\x98q",
                        "hsperfdata_root\xe2\x80\x8b", "a\xc2\xad" "b", "\xef\xbb\xbf" "x", "t\xf3\xa0\x80\x81" "g"}) {
    words.emplace_back(w);
  }
  return words;
}

}  // namespace hsperfguard::test
