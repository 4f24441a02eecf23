#include "commands/cli_checks.hpp"

#include <string>

namespace hsperfguard {

std::optional<std::int64_t> parse_duration_ms(std::string_view text) {
  std::size_t digits = 0;
  std::int64_t value = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    if (value > kMaxDurationMs) return std::nullopt;  // already too long in any unit
    value = value * 10 + (text[digits] - '0');
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  const std::string_view unit = text.substr(digits);
  std::int64_t scale = 0;
  if (unit == "ms") {
    scale = 1;
  } else if (unit.empty() || unit == "s") {
    scale = 1000;
  } else if (unit == "m" || unit == "min") {
    scale = 60'000;
  } else if (unit == "h") {
    scale = 3'600'000;
  } else if (unit == "d") {
    scale = 86'400'000;
  } else {
    return std::nullopt;
  }
  if (value > kMaxDurationMs / scale) return std::nullopt;
  return value * scale;
}

std::optional<std::uint64_t> parse_byte_count(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& text) {
        return text.empty() ? std::string("must not be empty (an unset variable?)") : std::string();
      },
      "NONEMPTY", "non_empty");
}

CLI::Validator duration() {
  return CLI::Validator(
      [](std::string& text) {
        return parse_duration_ms(text)
                   ? std::string()
                   : "not a duration of at most 3650d (90, 500ms, 90s, 15m, 2h, 1d): " + text;
      },
      "DURATION", "duration");
}

CLI::Validator byte_count() {
  return CLI::Validator(
      [](std::string& text) {
        return parse_byte_count(text) ? std::string() : "not a number of bytes (plain decimal): " + text;
      },
      "BYTES", "byte_count");
}

}  // namespace hsperfguard
