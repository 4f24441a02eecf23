// Writing what the user asked to be written (--output, --metrics): the one guarded way,
// implemented per platform (platform/posix/output_posix.cpp, platform/windows/output_windows.cpp).
// The lock file and the journal (platform/reap.hpp) are reached the same careful way.
//
// What the target is decides how it is written; nothing else does:
// - absent, or a regular file: a new file is written beside it and put in its place at once
//   (a reader never sees half a report, a killed run leaves the old one), and what it replaces
//   must still be a regular file at that moment;
// - a character device (/dev/null, a terminal), a FIFO or a socket: written through, opened
//   without blocking (a FIFO nobody reads is an error at once, not a hang); a FIFO or socket
//   must belong to root or to us (another user's would receive a report about everyone);
// - a symbolic link, a directory, a block device, anything else: refused, nothing written.
// The standard streams ("-", /dev/stdout, /dev/stderr) are the caller's (output_target.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// Receives the output piece by piece; ContentProducer calls it with each piece in order.
using ContentSink = std::function<void(std::string_view)>;
using ContentProducer = std::function<void(const ContentSink&)>;

struct OutputOptions {
  // Of a file created for the output. Reports default to 0600: they describe other users'
  // files; the metrics file is 0644 (node_exporter reads it as another user).
  std::uint32_t mode = 0600;
  // Once set (a stop signal), writing stops, the target is left as it was and an
  // "interrupted" error is returned. Also ends a wait for a slow reader of a FIFO.
  const std::atomic<bool>* stop = nullptr;
};

// Writes what `produce` produces to `path`, as described above. A failed write stops the
// producer's pieces from being written (they become no-ops) and is returned; the target is
// then left as it was (a device or FIFO may have received part of it).
std::optional<ObservationError> write_output(const std::string& path, const ContentProducer& produce,
                                             const OutputOptions& options = {});

// The same for a text already made.
std::optional<ObservationError> write_output_text(const std::string& path, std::string_view text,
                                                  const OutputOptions& options = {});

}  // namespace hsperfguard::platform
