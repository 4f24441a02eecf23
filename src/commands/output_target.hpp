// Where a report or the metrics go: the standard stream a path names by convention ("-",
// /dev/stdout, /dev/stderr and their /dev/fd and /proc/self/fd forms), written to the
// process's own stream and never reopened or replaced, or else a path, written by
// platform::write_output (the one guarded way to write a file the user named).
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

// Writes what `produce` produces to `path`: a standard stream goes to `out` (by default the
// process's stdout) or to the process's stderr, anything else to platform::write_output with
// `options`.
std::optional<ObservationError> write_output_to(const std::string& path,
                                                const platform::ContentProducer& produce,
                                                const platform::OutputOptions& options,
                                                std::ostream* out = nullptr);

}  // namespace hsperfguard
