// Reading files for the commands that take a path (inspect), the neutral interface.
// Implemented per platform in platform/posix/ and platform/windows/; observes, never judges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"
#include "model/roots.hpp"

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

// Windows, where each account has a temp dir of its own: those of the service accounts
// (LocalSystem's %SystemRoot%\Temp, LocalService's and NetworkService's
// %SystemRoot%\ServiceProfiles\<account>\AppData\Local\Temp) and those the environments of
// `jvms` name (JvmProcessFacts::temp_dir_path), each with its identity, and the identity of
// `host_temp_dir`. One that does not exist is left out; one that exists and cannot be opened
// has no identity. Linux: none (every account's temp dir is /tmp).
AccountTempDirs observe_account_temp_dirs(const std::string& host_temp_dir,
                                          const std::vector<JvmProcessFacts>& jvms);

// Regular files named `pid` in every hsperfdata_* directory of `temp_dir`, newest first (the
// order in which jstat tries them), each with its owner and identity, so that the caller can
// tell which is the process's own (decide/inspect_target.hpp).
std::vector<BackingFileCandidate> find_backing_files(const std::string& temp_dir, std::int32_t pid);

// The backing file a process maps, read through its mapping: on Linux
// /proc/<pid>/map_files/<range>, which still opens when the file's name was deleted (a tmp
// cleaner) and needs root (CAP_SYS_ADMIN). nullopt: the process maps no backing file, or
// its maps cannot be read (or, read only up to their cap, show none). `read.error` says why a mapping that exists could not be read.
struct MappedBackingFile {
  std::string path;      // as the process's maps name it (from its mount namespace's root)
  // A process in another mount namespace (a container) names the file from its own root:
  // the same file as this host reaches it, through /proc/<pid>/root. nullopt: in ours.
  std::optional<std::string> host_path;
  bool deleted = false;  // no name left: its link count when read, else the maps' " (deleted)"
  std::string through;   // what was opened ("/proc/<pid>/map_files/<range>")
  std::uint64_t dev = 0;  // the mapped file as the maps name it (dev as st_dev, inode)
  std::uint64_t ino = 0;
  FileRead read;
};
std::optional<MappedBackingFile> read_mapped_backing_file(std::int32_t pid, std::size_t max_bytes);

}  // namespace hsperfguard::platform
