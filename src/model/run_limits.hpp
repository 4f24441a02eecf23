// When a long run must stop before it is done: a stop signal (platform::StopSignals) or the
// --max-runtime deadline. Every phase that can take long (the container scan, observation,
// planning, acting, writing the report) asks between two units of its work.
#pragma once

#include <atomic>
#include <chrono>
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
};

}  // namespace hsperfguard
