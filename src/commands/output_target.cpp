#include "commands/output_target.hpp"

#include <cstdlib>
#include <iostream>

namespace hsperfguard {

StandardStream standard_stream_named(std::string_view path) {
  if (path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1") {
    return StandardStream::out;
  }
  if (path == "/dev/stderr" || path == "/dev/fd/2" || path == "/proc/self/fd/2") return StandardStream::err;
  return StandardStream::none;
}

std::optional<ReportFormat> parse_report_format(std::string_view text) {
  if (text.empty()) return std::nullopt;
  return text == "json" ? ReportFormat::json : ReportFormat::text;
}

ColorChoice parse_color_choice(std::string_view text) {
  if (text == "always") return ColorChoice::always;
  if (text == "never") return ColorChoice::never;
  return ColorChoice::automatic;
}

bool color_wanted(ColorChoice choice, bool stdout_is_terminal) {
  if (choice != ColorChoice::automatic) return choice == ColorChoice::always;
  if (!stdout_is_terminal) return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  const char* term = std::getenv("TERM");
  return term == nullptr || std::string_view(term) != "dumb";
}

std::optional<ObservationError> write_output_to(const std::string& path,
                                                const platform::ContentProducer& produce,
                                                const platform::OutputOptions& options,
                                                std::ostream* out) {
  const StandardStream stream = standard_stream_named(path);
  if (stream == StandardStream::none) return platform::write_output(path, produce, options);
  std::ostream& to = stream == StandardStream::err ? std::cerr : out != nullptr ? *out : std::cout;
  produce([&](std::string_view piece) { to.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
  to.flush();
  if (!to && to.rdbuf() != nullptr) return ObservationError{path, "write", 5 /* EIO */, "the stream could not be written"};
  return std::nullopt;
}

}  // namespace hsperfguard
