// Reading the cleaners' configuration of a system (this host's, or the one whose root is
// --root): the tmpfiles.d directories, tmpreaper's configuration, tmpwatch's cron job and the
// crontabs and cron scripts. Read-only, beneath the system's root (a link is resolved inside
// it, never out of it), each file bounded; what could not be read is an error of the facts.
#pragma once

#include <string>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// At most this much of each configuration file is read: no real one is near it, and a file
// of any size costs no more.
inline constexpr std::size_t kMaxCleanerConfigBytes = std::size_t{1} << 20;

// At most this many entries of each configuration directory are read.
inline constexpr std::size_t kMaxCleanerConfigEntries = 4096;

// The cleaners of the system whose root `root_fd` is (an O_PATH or directory descriptor),
// named in errors as `root_display`.
CleanerFacts observe_cleaners(int root_fd, const std::string& root_display);

}  // namespace hsperfguard::platform
