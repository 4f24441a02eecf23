#include "report/logging.hpp"

#include <utility>

#include "model/text_escape.hpp"
#include "report/audit_report_json.hpp"

namespace hsperfguard {

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::info: return "info";
    case LogLevel::warning: return "warning";
    case LogLevel::error: return "error";
  }
  return "error";
}

Logger::Logger(std::ostream& sink, LogOptions options, std::string command,
               std::int64_t (*clock_ms)())
    : sink_(sink),
      options_(options),
      command_(std::move(command)),
      clock_ms_(clock_ms),
      buffer_(*this),
      errors_(&buffer_) {}

Logger::Logger(LogLineWriter writer, std::ostream& plain_errors, LogOptions options, std::string command,
               std::int64_t (*clock_ms)())
    : Logger(plain_errors, options, std::move(command), clock_ms) {
  writer_ = std::move(writer);
}

// NOLINTNEXTLINE(bugprone-exception-escape): a throw ends the process (logging.hpp says why)
Logger::~Logger() { buffer_.flush_partial(); }

void Logger::log(LogLevel level, std::string_view event, std::string_view message,
                 const nlohmann::json& fields) {
  if (options_.format == LogFormat::json) {
    nlohmann::json line = {{"time", format_utc_millis(clock_ms_())},
                           {"level", std::string(to_string(level))},
                           {"command", command_},
                           {"event", std::string(event)}};
    put_text(line, "message", message);
    if (fields.is_object()) {
      for (const auto& [key, value] : fields.items()) line[key] = value;
    }
    emit(level, dump_json(line, -1));
  } else {
    // The level is said when it is not routine: "hsperfguard: audit: warning: ...".
    std::string text = "hsperfguard: " + command_ + ": ";
    if (level != LogLevel::info) text.append(to_string(level)).append(": ");
    emit(level, text + terminal_safe(message));
  }
}

void Logger::emit(LogLevel level, std::string_view line) {
  if (writer_) {
    writer_(level, line);
    return;
  }
  sink_ << line << '\n';
  sink_.flush();
}

void Logger::error_line(std::string_view line) {
  // The command's own text line; a raw name in it must not forge a second line.
  if (writer_) {
    sink_ << terminal_safe(line) << '\n';
    sink_.flush();
  }
  if (options_.format != LogFormat::json) {
    emit(LogLevel::error, terminal_safe(line));
    return;
  }
  const std::string prefix = "hsperfguard: " + command_ + ": ";
  if (line.starts_with(prefix)) line.remove_prefix(prefix.size());
  log(LogLevel::error, "error", line);
}

void Logger::LineBuffer::flush_partial() {
  if (line_.empty()) return;
  std::string line;
  line.swap(line_);
  owner_.error_line(line);
}

Logger::LineBuffer::int_type Logger::LineBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  if (ch == '\n') {
    std::string line;
    line.swap(line_);
    owner_.error_line(line);
  } else {
    line_ += ch;
  }
  return c;
}

std::streamsize Logger::LineBuffer::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(s[i]));
  return n;
}

int Logger::LineBuffer::sync() { return 0; }  // a line is written when it is complete

}  // namespace hsperfguard
