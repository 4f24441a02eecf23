// System tests of the statx wrapper and the second source of a mount id
// (platform/posix/stat_posix.cpp) against this host's mounts.
#include "platform/posix/stat_posix.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "platform/posix/posix_util.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

// name_to_handle_at's mount id is the one statx gives (Linux 5.8 and later), for a directory
// itself (AT_EMPTY_PATH) and for a name in it; a link to /proc (another mount) is not
// followed: it is an entry of the directory it is in. /proc exports no handles: no id from
// there, nor for a name that does not exist.
TEST(HandleMountId, IsStatxsMountIdAndFollowsNoLink) {
  test::ScratchDir scratch;
  ASSERT_EQ(::symlink("/proc", (scratch / "to-proc").c_str()), 0);
  const UniqueFd dir(::open(scratch.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  const UniqueFd proc(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(dir.valid());
  ASSERT_TRUE(proc.valid());
  Stat dir_stat, proc_stat;
  ASSERT_EQ(stat_at(dir.get(), "", AT_EMPTY_PATH, dir_stat), 0);
  ASSERT_EQ(stat_at(proc.get(), "", AT_EMPTY_PATH, proc_stat), 0);
  if (!dir_stat.mount_id) GTEST_SKIP() << "this kernel's statx gives no mount id (before 5.8)";
  EXPECT_NE(dir_stat.mount_id, proc_stat.mount_id);
  EXPECT_EQ(handle_mount_id(dir.get(), "", AT_EMPTY_PATH), dir_stat.mount_id);
  EXPECT_EQ(handle_mount_id(proc.get(), "", AT_EMPTY_PATH), std::nullopt);
  EXPECT_EQ(handle_mount_id(dir.get(), "to-proc", 0), dir_stat.mount_id);
  EXPECT_EQ(handle_mount_id(dir.get(), "no-such-name", 0), std::nullopt);
}

}  // namespace
}  // namespace hsperfguard::platform
