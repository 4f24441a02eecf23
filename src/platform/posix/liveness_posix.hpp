// The POSIX-only pieces of liveness gathering, exposed for system tests.
#pragma once

#include <cstdint>
#include <optional>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// How long before a reading of /proc began a file may have been changed and the reading still
// miss its process: file times come from the kernel's coarse clock, a tick or more behind the
// clock that times the reading.
inline constexpr std::int64_t kReadingMarginMs = 50;

// Whether a reading of /proc (a pass that places processes, or the attach listeners of a
// network namespace) that began at `reading_began_ms` may have missed the process that last
// changed a file at `changed_ms` (both milliseconds since the epoch): yes when the change was
// less than kReadingMarginMs before the reading began, exactly that much, or later. Such a
// file needs a newer reading before its search can be complete.
constexpr bool reading_may_miss(std::int64_t changed_ms, std::int64_t reading_began_ms) {
  return changed_ms + kReadingMarginMs >= reading_began_ms;
}

// A new pass over /proc for files changed since the last one is made at most once in this
// long: files changed on purpose (a tenant touching hers in a loop) cannot make every container
// cost a pass; until then such a file's search is not complete.
inline constexpr std::int64_t kPassIntervalMs = 1000;

// Whether a pass that began at `began_ms` may be followed by another at `now_ms`: once the
// whole interval has passed, not before.
constexpr bool pass_interval_over(std::int64_t began_ms, std::int64_t now_ms) {
  return now_ms - began_ms >= kPassIntervalMs;
}

// The fallback when the lock table is unreadable: opens `name` relative to `dirfd`
// (O_RDONLY|O_NOFOLLOW|O_NONBLOCK, never blocks on a FIFO), checks that it is still the
// regular file (dev, ino), tries flock(LOCK_EX|LOCK_NB) and releases it at once.
// true: held by someone (EWOULDBLOCK); false: free; nullopt: could not tell (`err` says why,
// its path being `name`).
std::optional<bool> probe_lock_at(int dirfd, const char* name, std::uint64_t dev, std::uint64_t ino,
                                  ObservationError* err);

}  // namespace hsperfguard::platform
