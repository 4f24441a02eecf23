// Stop signals on POSIX: SIGINT, SIGTERM and SIGHUP (a cron job's terminal going away).
#include <array>
#include <csignal>

#include "platform/signals.hpp"

namespace hsperfguard::platform {

std::span<const int> stop_signal_numbers() {
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  return kSignals;
}

}  // namespace hsperfguard::platform
