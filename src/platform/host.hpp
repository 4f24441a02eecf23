// Facts about the running system and process, and small OS services the commands need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

// Reads a small configuration file (a policy document). Not for untrusted namespaces.
std::optional<std::string> read_config_file(const std::string& path, ObservationError* error);

}  // namespace hsperfguard::platform
