// Decimal digits in untrusted text (file names, /proc fields, options): one definition for
// every parser of the tree. ASCII only; no sign, no spaces, no locale.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace hsperfguard {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// True when `text` is not empty and every character is an ASCII digit.
constexpr bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_digit(c)) return false;
  }
  return true;
}

// The value of `text` when it is all digits and fits in T; nullopt otherwise (empty, a
// sign, a space, any other character, overflow).
template <typename T = std::uint64_t>
std::optional<T> parse_decimal(std::string_view text) {
  if (!all_digits(text)) return std::nullopt;
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace hsperfguard
