#include "commands/cli_checks.hpp"

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

#include "model/digits.hpp"
#include "model/text_escape.hpp"

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

std::optional<std::string> missing_path_reason(int error_code) {
  if (error_code == ENOENT) return "does not exist";
  if (error_code == ENOTDIR) return "is not a directory (or a directory on its path is not)";
  return std::nullopt;
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
CLI::Validator dir_path() {
  return CLI::Validator(
      [](std::string& text) {
        if (text.empty()) return std::string("must not be empty (an unset variable?)");
        std::error_code error;
        const auto status = std::filesystem::status(text, error);
        if (status.type() == std::filesystem::file_type::not_found) return text + ": does not exist";
        if (error == std::errc::not_a_directory) return text + ": " + *missing_path_reason(ENOTDIR);
        if (error) return std::string();  // not permitted, an I/O error: the run reports it
        return std::filesystem::is_directory(status) ? std::string() : text + ": is not a directory";
      },
      "DIR", "dir_path");
}
CLI::Validator user_name() { return not_empty_named("USER", "user_name"); }

CLI::Validator duration() {
  return CLI::Validator(
      [](std::string& text) {
        return parse_duration_ms(text)
                   ? std::string()
                   : "not a duration of at most 3650d (90, 500ms, 90s, 15m, 2h, 1d): " + terminal_safe(text);
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
