// System tests of the container scan's pass over /proc (platform/posix/containers_posix.cpp)
// against this host's real process table.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "model/roots.hpp"
#include "platform/posix/containers_posix.hpp"

namespace hsperfguard::platform {
namespace {

// A stop that comes after three processes were looked at is said with that count: the
// message counts the processes before the stop, not an address difference of a copy.
TEST(ContainerScanStop, SaysHowManyProcessesWereLookedAtBeforeTheStop) {
  std::atomic<bool> stop{false};
  ContainerScanOptions options;
  options.limits.stop = &stop;
  std::vector<std::int32_t> visited;
  const ContainerScan scan = scan_container_temp_dirs(options, [&](std::int32_t pid, int) {
    visited.push_back(pid);
    if (visited.size() == 3) stop = true;
    return false;  // no container is looked for through it: the count is what is tested
  });
  // The lowest pids (init and the first kernel threads) never exit: the first three listed
  // are the three visited.
  ASSERT_EQ(visited.size(), 3u);
  ASSERT_FALSE(scan.errors.empty());
  const std::string& message = scan.errors.back().message;
  EXPECT_NE(message.find("stopped (interrupted): containers of 3 of "), std::string::npos) << message;
  EXPECT_NE(message.find(" processes looked at"), std::string::npos) << message;
  EXPECT_FALSE(scan.placements_complete);
}

}  // namespace
}  // namespace hsperfguard::platform
