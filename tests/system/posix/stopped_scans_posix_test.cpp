// The passes over /proc that a stop signal or --max-runtime can end early (the container scan,
// the search for JVM processes by their maps) say how far they got: "N of M processes looked
// at", N counted in the list being walked. Stopped before the first process, N is 0.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "model/roots.hpp"
#include "model/run_limits.hpp"
#include "platform/containers.hpp"
#include "platform/ps.hpp"

namespace hsperfguard {
namespace {

TEST(StoppedScans, ContainerScanCountsTheProcessesLookedAtBeforeTheStop) {
  std::atomic<bool> stop{true};
  ContainerScanOptions options;
  options.limits.stop = &stop;
  const ContainerScan scan = platform::scan_container_temp_dirs(options);
  ASSERT_FALSE(scan.errors.empty());
  const std::string& message = scan.errors.back().message;
  EXPECT_EQ(message.rfind("stopped (interrupted): containers of 0 of ", 0), 0u) << message;
  EXPECT_EQ(scan.processes, 0u);
}

TEST(StoppedScans, JvmSearchCountsTheProcessesLookedAtBeforeTheStop) {
  std::atomic<bool> stop{true};
  RunLimits limits;
  limits.stop = &stop;
  std::vector<ObservationError> errors;
  const auto jvms = platform::observe_jvm_processes(errors, limits);
  EXPECT_TRUE(jvms.empty());
  ASSERT_FALSE(errors.empty());
  const std::string& message = errors.back().message;
  EXPECT_EQ(message.rfind("stopped (interrupted): the maps of 0 of ", 0), 0u) << message;
}

}  // namespace
}  // namespace hsperfguard
