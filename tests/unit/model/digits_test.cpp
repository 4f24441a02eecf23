// The one digit parser (model/digits.hpp) that every parser of untrusted text uses.
#include "model/digits.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

namespace hsperfguard {
namespace {

TEST(Digits, AllDigitsIsAsciiOnlyAndNeverEmpty) {
  EXPECT_TRUE(all_digits("0"));
  EXPECT_TRUE(all_digits("0123456789"));
  EXPECT_FALSE(all_digits(""));
  EXPECT_FALSE(all_digits("12a"));
  EXPECT_FALSE(all_digits(" 1"));
  EXPECT_FALSE(all_digits("+1"));
  EXPECT_FALSE(all_digits("\xd9\xa3"));  // ARABIC-INDIC DIGIT THREE is no digit here
  EXPECT_EQ(digit_prefix("90s"), "90");
  EXPECT_EQ(digit_prefix("s90"), "");
  EXPECT_EQ(digit_prefix(""), "");
}

TEST(Digits, ParseNumberTakesTheWholeTextOrNothing) {
  EXPECT_EQ(parse_number("0"), 0u);
  EXPECT_EQ(parse_number("007"), 7u);
  EXPECT_EQ(parse_number("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse_number("18446744073709551616"), std::nullopt);  // overflow
  EXPECT_EQ(parse_number<std::int32_t>("2147483647"), 2147483647);
  EXPECT_EQ(parse_number<std::int32_t>("2147483648"), std::nullopt);
  EXPECT_EQ(parse_number<std::uint32_t>("4294967295"), 4294967295u);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "1.5", "\n"}) {
    EXPECT_EQ(parse_number(bad), std::nullopt) << bad;
    EXPECT_EQ(parse_number<std::int64_t>(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(parse_number("fe", 16), 0xfeu);
  EXPECT_EQ(parse_number("FE", 16), 0xfeu);
  EXPECT_EQ(parse_number("fg", 16), std::nullopt);
  EXPECT_EQ(parse_number("fe", 10), std::nullopt);
}

}  // namespace
}  // namespace hsperfguard
