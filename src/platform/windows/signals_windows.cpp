// Stop signals on Windows: the C runtime maps Ctrl+C to SIGINT and Ctrl+Break to SIGBREAK
// (its handler runs on a thread the console creates); SIGTERM exists only as raise().
// There is no SIGHUP.
#include <array>
#include <csignal>

#include "platform/signals.hpp"

namespace hsperfguard::platform {

std::span<const int> stop_signal_numbers() {
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGBREAK, SIGTERM};
  return kSignals;
}

}  // namespace hsperfguard::platform
