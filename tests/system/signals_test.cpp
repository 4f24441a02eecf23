// Stop signals: while a StopSignals lives, SIGINT and SIGTERM set its flag instead of ending
// the process; afterwards the previous handlers are back.
#include "platform/signals.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace hsperfguard::platform {
namespace {

std::atomic<int> g_previous_calls{0};
extern "C" void previous_handler(int) { g_previous_calls.fetch_add(1); }

TEST(StopSignals, SignalsSetTheFlagAndThePreviousHandlersComeBack) {
  for (const int sig : {SIGINT, SIGTERM}) {
    auto* before = std::signal(sig, previous_handler);
    ASSERT_NE(before, SIG_ERR);
    g_previous_calls.store(0);
    {
      const StopSignals stop;
      EXPECT_FALSE(stop.requested().load());
      ASSERT_EQ(std::raise(sig), 0);
      EXPECT_TRUE(stop.requested().load()) << sig;
      EXPECT_EQ(g_previous_calls.load(), 0);
    }
    {
      const StopSignals again;  // a new run starts with no request
      EXPECT_FALSE(again.requested().load());
    }
    ASSERT_EQ(std::raise(sig), 0);  // ours is gone: the previous handler runs
    EXPECT_EQ(g_previous_calls.load(), 1) << sig;
    std::signal(sig, before);
  }
}

}  // namespace
}  // namespace hsperfguard::platform
