// When a long run must stop before it is done: a stop signal (platform::StopSignals) or the
// --max-runtime deadline. Every phase that can take long (the container scan, observation,
// planning, acting, writing the report) asks between two units of its work.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace hsperfguard {

struct RunLimits {
  const std::atomic<bool>* stop = nullptr;
  std::optional<std::chrono::steady_clock::time_point> deadline;

  // "interrupted" (a stop signal), "deadline" (--max-runtime), or nullptr: go on.
  const char* reached() const {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return "interrupted";
    if (deadline && std::chrono::steady_clock::now() >= *deadline) return "deadline";
    return nullptr;
  }

  // The limits of one of `ways` pieces of work still to do (a temp root among those not yet
  // begun): the same stop signal, and an equal share of the time left before the deadline,
  // so that one piece that costs much cannot leave nothing to the others.
  RunLimits share(std::size_t ways) const {
    RunLimits part = *this;
    const auto now = std::chrono::steady_clock::now();
    if (deadline && ways > 1 && now < *deadline) {
      part.deadline = now + (*deadline - now) / static_cast<std::int64_t>(ways);
    }
    return part;
  }
};

}  // namespace hsperfguard
