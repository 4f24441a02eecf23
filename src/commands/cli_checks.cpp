#include "commands/cli_checks.hpp"

#include <string>

#include "model/digits.hpp"

namespace hsperfguard {

std::optional<std::int64_t> parse_duration_ms(std::string_view text) {
  const std::string_view digits = digit_prefix(text);
  const auto number = parse_number<std::int64_t>(digits);
  if (!number) return std::nullopt;  // no digits, or too many for any unit
  const std::int64_t value = *number;
  const std::string_view unit = text.substr(digits.size());
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
  return parse_number<std::uint64_t>(text);
}

namespace {
// The validator's name is the value's type: the help shows it and the shell completion
// (commands/completion.cpp) decides by it what to offer.
CLI::Validator not_empty_named(const char* type, const char* id) {
  return CLI::Validator(
      [](std::string& text) {
        return text.empty() ? std::string("must not be empty (an unset variable?)") : std::string();
      },
      type, id);
}
}  // namespace

CLI::Validator non_empty() { return not_empty_named("NONEMPTY", "non_empty"); }
CLI::Validator file_path() { return not_empty_named("FILE", "file_path"); }
CLI::Validator dir_path() { return not_empty_named("DIR", "dir_path"); }
CLI::Validator user_name() { return not_empty_named("USER", "user_name"); }

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
