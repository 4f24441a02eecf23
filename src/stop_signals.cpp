// platform::StopSignals in standard C++ (std::signal); the platforms only name their signals.
#include <csignal>
#include <cstddef>
#include <vector>

#include "platform/signals.hpp"

namespace hsperfguard::platform {
namespace {

std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void request_stop(int) { g_stop_requested.store(true); }

std::vector<void (*)(int)> g_previous;

}  // namespace

StopSignals::StopSignals() {
  g_stop_requested.store(false);
  const std::span<const int> signals = stop_signal_numbers();
  g_previous.assign(signals.size(), SIG_ERR);
  for (std::size_t i = 0; i < signals.size(); ++i) g_previous[i] = std::signal(signals[i], request_stop);
}

StopSignals::~StopSignals() {
  const std::span<const int> signals = stop_signal_numbers();
  for (std::size_t i = 0; i < signals.size() && i < g_previous.size(); ++i) {
    if (g_previous[i] != SIG_ERR) std::signal(signals[i], g_previous[i]);
  }
}

const std::atomic<bool>& StopSignals::requested() const { return g_stop_requested; }

}  // namespace hsperfguard::platform
