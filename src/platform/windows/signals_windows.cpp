// Stop signals on Windows: the C runtime maps Ctrl+C to SIGINT and Ctrl+Break to SIGBREAK
// (its handler runs on a thread the console creates); SIGTERM exists only as raise().
// There is no SIGHUP.
#include <array>
#include <csignal>
#include <cstddef>

#include "platform/signals.hpp"

namespace hsperfguard::platform {
namespace {

std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void request_stop(int) { g_stop_requested.store(true); }

constexpr std::array<int, 3> kSignals = {SIGINT, SIGBREAK, SIGTERM};
std::array<void (*)(int), kSignals.size()> g_previous{};

}  // namespace

std::span<const int> stop_signal_numbers() { return kSignals; }

StopSignals::StopSignals() {
  g_stop_requested.store(false);
  for (std::size_t i = 0; i < kSignals.size(); ++i) g_previous[i] = std::signal(kSignals[i], request_stop);
}

StopSignals::~StopSignals() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (g_previous[i] != SIG_ERR) std::signal(kSignals[i], g_previous[i]);
  }
}

const std::atomic<bool>& StopSignals::requested() const { return g_stop_requested; }

bool stop_signal_arrived() { return g_stop_requested.load(); }

int hold_standard_streams() { return 0; }  // handles: a new file never takes a stream's place

void ignore_broken_pipes() {}  // no SIGPIPE: a write to a closed pipe fails with an error

bool stdout_reader_gone() { return false; }

}  // namespace hsperfguard::platform
