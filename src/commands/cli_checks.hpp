// What the command line accepts, checked before anything runs: a value that is empty, out of
// range or malformed is a usage error (exit 2), never a fallback to a default. An unset shell
// variable in a cron line (`--tmpdir "$DIR"`) must fail the run, not widen it to /tmp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace hsperfguard {

// The longest duration accepted (--min-age, --max-runtime): ten years. Longer values are
// refused rather than clamped, and nothing overflows a clock.
inline constexpr std::int64_t kMaxDurationMs = std::int64_t{3650} * 86'400'000;

// "90" (seconds), "500ms", "90s", "15m", "2h", "1d"; nullopt if malformed, negative or longer
// than kMaxDurationMs.
std::optional<std::int64_t> parse_duration_ms(std::string_view text);

// Plain decimal bytes ("32768"): no sign, no blanks, no suffix; nullopt on overflow.
std::optional<std::uint64_t> parse_byte_count(std::string_view text);

// What is wrong with a path the command line names, from the error of opening or looking at it:
// "does not exist", "is not a directory" (a component of it is not one); nullopt for another
// error (a permission, an I/O error), which is the run's to report.
std::optional<std::string> missing_path_reason(int error_code);

// Validators for CLI11 options.
CLI::Validator non_empty();     // names and text: "" is refused
CLI::Validator file_path();     // a file's path: "" is refused (type FILE: completed as a file name)
// A directory's path (type DIR: completed as one): "", a path that does not exist and one that
// is not a directory are refused. Looking only refuses: the run opens the path itself, with its
// own checks, and one that vanishes meanwhile is the run's error (exit 3).
CLI::Validator dir_path();
CLI::Validator user_name();     // a user's name: "" is refused (type USER: completed as one)
CLI::Validator duration();      // parse_duration_ms
CLI::Validator byte_count();    // parse_byte_count

}  // namespace hsperfguard
