// How a report is written (--format, --color) and where it and the metrics go: the standard
// stream a path names by convention ("-", /dev/stdout, /dev/stderr and their /dev/fd and
// /proc/self/fd forms), written to the process's own stream and never reopened or replaced,
// or else a path, written by platform::write_output (the one guarded way to write a file the
// user named).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"
#include "platform/output.hpp"

namespace hsperfguard {

enum class StandardStream { none, out, err };

StandardStream standard_stream_named(std::string_view path);

// --format: what a report is written as (audit, reap).
enum class ReportFormat { json, text };
std::optional<ReportFormat> parse_report_format(std::string_view text);  // "": nullopt

// --color: always, never, or auto (the default): on a terminal, unless NO_COLOR is set to
// anything but the empty string (no-color.org) or TERM is "dumb". Never in JSON, metrics,
// logs or a file (the commands ask only for their text on stdout).
enum class ColorChoice { automatic, always, never };
ColorChoice parse_color_choice(std::string_view text);  // "always", "never", else automatic
bool color_wanted(ColorChoice choice, bool stdout_is_terminal);

// Writes what `produce` produces to `path`: a standard stream goes to `out` (by default the
// process's stdout) or to the process's stderr, anything else to platform::write_output with
// `options`.
std::optional<ObservationError> write_output_to(const std::string& path,
                                                const platform::ContentProducer& produce,
                                                const platform::OutputOptions& options,
                                                std::ostream* out = nullptr);

}  // namespace hsperfguard
