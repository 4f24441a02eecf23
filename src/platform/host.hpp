// Facts about the running system and process, and small OS services the commands need.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "facts.hpp"
#include "host_info.hpp"

namespace hsperfguard::platform {

HostInfo observe_host();
std::int64_t now_epoch_ms();
bool stdout_is_terminal();

// Writes `content` to a new temp file beside `path` and renames it over `path`, so a
// reader never sees a half-written report. Reports default to 0600: they describe other
// users' files. Returns the error, if any.
std::optional<ObservationError> write_file_atomically(const std::string& path,
                                                      const std::string& content,
                                                      std::uint32_t mode = 0600);

// The same, for content too large to hold: `produce` calls its argument with each piece in
// order. A failed write makes the rest of the pieces no-ops and is returned.
using ContentSink = std::function<void(std::string_view)>;
std::optional<ObservationError> write_file_atomically_streamed(
    const std::string& path, const std::function<void(const ContentSink&)>& produce,
    std::uint32_t mode = 0600);

// Reads a small configuration file (a policy document). Not for untrusted namespaces.
std::optional<std::string> read_config_file(const std::string& path, ObservationError* error);

}  // namespace hsperfguard::platform
