// Decimal digits in untrusted text (file names, /proc fields, options): one definition for
// every parser of the tree. ASCII only; no sign, no spaces, no locale.
#pragma once

#include <charconv>
#include <cstddef>
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

// The leading ASCII digits of `text` (empty when it does not start with one).
constexpr std::string_view digit_prefix(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && is_digit(text[n])) ++n;
  return text.substr(0, n);
}

// The value of all of `text` in `base` (10, or 16 with either case of a-f) when it fits in
// T; nullopt otherwise: empty, a sign, a space, a "0x", any other character, overflow.
template <typename T = std::uint64_t>
std::optional<T> parse_number(std::string_view text, int base = 10) {
  if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace hsperfguard
