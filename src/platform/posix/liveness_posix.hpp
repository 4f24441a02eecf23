// The POSIX-only pieces of liveness gathering, exposed for system tests.
#pragma once

#include <cstdint>
#include <optional>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// The fallback when the lock table is unreadable: opens `name` relative to `dirfd`
// (O_RDONLY|O_NOFOLLOW|O_NONBLOCK, never blocks on a FIFO), checks that it is still the
// regular file (dev, ino), tries flock(LOCK_EX|LOCK_NB) and releases it at once.
// true: held by someone (EWOULDBLOCK); false: free; nullopt: could not tell (`err` says why,
// its path being `name`).
std::optional<bool> probe_lock_at(int dirfd, const char* name, std::uint64_t dev, std::uint64_t ino,
                                  ObservationError* err);

}  // namespace hsperfguard::platform
