// Logging for unattended runs (cron, systemd timers): one line per action or error on
// stderr, as plain text or as one JSON object a line (journald and log pipelines).
//
// Without --log-format or --quiet a command behaves as it always has: the report on stdout
// lists every action, stderr carries the errors. With --log-format, every action (a removal
// and its outcome), every entry left to a person and every error is also a line of its own,
// and a summary line ends the run, its level following the outcome. --quiet prints no report
// on stdout (use --output) but only what needs a person (the commands do that), and no
// summary line of level info: a clean run prints nothing at all, so cron mails only when
// something needs doing.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hsperfguard {

enum class LogFormat { text, json };

struct LogOptions {
  std::optional<LogFormat> format;  // nullopt: errors only, as plain text
  bool quiet = false;
  // Whether actions and the summary are logged as lines of their own (--quiet alone prints
  // only what needs a person, on stdout, and the errors).
  bool logs_actions() const { return format.has_value(); }
};

enum class LogLevel { info, warning, error };
std::string_view to_string(LogLevel level);

// Writes one finished log line (no newline) somewhere other than a stream: the system log,
// which takes each line with its level as its priority.
using LogLineWriter = std::function<void(LogLevel, std::string_view)>;

class Logger {
 public:
  // `command`: "audit", "reap". `clock_ms`: the wall clock (epoch ms) for JSON lines.
  // Every line goes to `sink` (stderr).
  Logger(std::ostream& sink, LogOptions options, std::string command, std::int64_t (*clock_ms)());
  // Log lines go to `writer` (--syslog); the command's error messages also go to
  // `plain_errors` (stderr) as the plain text lines they are without --log-format, so that
  // whoever runs the command (cron's mail) still sees them.
  Logger(LogLineWriter writer, std::ostream& plain_errors, LogOptions options, std::string command,
         std::int64_t (*clock_ms)());
  // Writes the last line if it lacks its newline. A throw there (no memory for the line)
  // ends the process, as it should: a log that silently lost a line would mislead.
  ~Logger();  // NOLINT(bugprone-exception-escape): see above
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  const LogOptions& options() const { return options_; }

  // One line. Text: "hsperfguard: <command>: <message>". JSON: {"time", "level", "command",
  // "event", "message"} plus `fields` (strings in `fields` must be valid UTF-8: use
  // put_text for raw names).
  void log(LogLevel level, std::string_view event, std::string_view message,
           const nlohmann::json& fields = nlohmann::json::object());

  // A stream for the command's own error messages ("hsperfguard: reap: PATH: op: msg"):
  // each line written to it becomes one error line in the chosen format.
  std::ostream& errors() { return errors_; }

 private:
  class LineBuffer : public std::streambuf {
   public:
    explicit LineBuffer(Logger& owner) : owner_(owner) {}
    void flush_partial();

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    Logger& owner_;
    std::string line_;
  };
  void error_line(std::string_view line);
  void emit(LogLevel level, std::string_view line);

  std::ostream& sink_;  // the lines, or (with writer_) the plain error messages
  LogLineWriter writer_;
  LogOptions options_;
  std::string command_;
  std::int64_t (*clock_ms_)();
  LineBuffer buffer_;
  std::ostream errors_;
};

}  // namespace hsperfguard
