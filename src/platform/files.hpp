// Reading files for the commands that take a path (inspect), the neutral interface.
// Implemented per platform in platform/posix/ and platform/windows/; observes, never judges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts.hpp"

namespace hsperfguard::platform {

struct FileRead {
  std::optional<InodeFacts> stat;  // of the opened handle
  std::vector<std::byte> bytes;    // at most max_bytes from offset 0
  std::optional<ObservationError> error;
};

// Opens `path` read-only without following a symlink in its last component, without
// blocking (FIFOs, devices), fstat's the handle, refuses anything but a regular file and
// reads at most `max_bytes` (a huge or sparse file is never read whole).
FileRead read_regular_file(const std::string& path, std::size_t max_bytes);

// The directory the JVM uses for hsperfdata on this host ("/tmp" on Linux).
std::string default_temp_dir();

// Backing files for `pid` in every hsperfdata_* directory of `temp_dir`, newest first,
// the way jstat resolves a local vmid.
std::vector<std::string> find_backing_files(const std::string& temp_dir, std::int32_t pid);

}  // namespace hsperfguard::platform
