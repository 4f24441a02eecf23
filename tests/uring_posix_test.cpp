// IoBatch: each batched operation returns what its system call returns (value or -errno), a
// full queue runs itself, and every fd a batch opens reaches the caller.
#include "platform/posix/uring_posix.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>
#include <vector>

#include "platform/posix/acl_posix.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

using test::ScratchDir;
using test::to_bytes;
using test::write_file;

class IoBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    batch_ = IoBatch::create(8);
    if (!batch_)
      GTEST_SKIP() << "io_uring is not available here (observation makes one call at a time)";
    write_file(scratch_ / "file", to_bytes("region bytes"));
    ASSERT_EQ(::symlink((scratch_ / "file").c_str(), (scratch_ / "link").c_str()), 0);
    dir_.reset(::open(scratch_.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(dir_.valid());
    how_.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    how_.resolve = kEntryOnThisMount;
  }

  static bool fd_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

  ScratchDir scratch_;
  UniqueFd dir_;
  open_how how_{};
  std::unique_ptr<IoBatch> batch_;
};

TEST_F(IoBatchTest, OperationsReturnWhatTheSystemCallsReturn) {
  int file = 0, link = 0, missing = 0;
  batch_->openat2(dir_.get(), "file", how_, file);
  batch_->openat2(dir_.get(), "link", how_, link);
  batch_->openat2(dir_.get(), "missing", how_, missing);
  batch_->run();
  ASSERT_GE(file, 0);
  EXPECT_EQ(link, -ELOOP);  // the link is refused, as open_entry_on_this_mount refuses it
  EXPECT_EQ(missing, -ENOENT);

  struct statx stx {};
  int stat = 0, probe = 0;
  std::array<char, kAccessAclProbeSize> value{};
  batch_->statx_fd(file, STATX_BASIC_STATS, stx, stat);
  batch_->fgetxattr(file, kAccessXattr, value.data(), value.size(), probe);
  batch_->run();
  struct stat st {};
  ASSERT_EQ(::fstat(file, &st), 0);
  EXPECT_EQ(stat, 0);
  EXPECT_EQ(stx.stx_ino, st.st_ino);
  EXPECT_EQ(stx.stx_size, static_cast<std::uint64_t>(st.st_size));
  EXPECT_EQ(stx.stx_mode, st.st_mode);
  EXPECT_EQ(probe, -ENODATA);  // no extended ACL

  // An extended ACL is larger than the probe: ERANGE, which tells that it exists.
  acl_t acl = ::acl_from_text("u::rw-,u:4242:r--,g::---,m::r--,o::---");
  ASSERT_NE(acl, nullptr);
  ASSERT_EQ(::acl_set_fd(file, acl), 0);
  ::acl_free(acl);
  batch_->fgetxattr(file, kAccessXattr, value.data(), value.size(), probe);
  batch_->run();
  EXPECT_EQ(probe, -ERANGE);

  int closed = -1;
  batch_->close(file, closed);
  batch_->run();
  EXPECT_EQ(closed, 0);
  EXPECT_FALSE(fd_open(file));
}

TEST_F(IoBatchTest, AFullQueueRunsItselfAndEveryResultArrives) {
  std::vector<int> fds(21, 0);  // capacity 8: runs itself twice before run() is called
  for (int& fd : fds) batch_->openat2(dir_.get(), "file", how_, fd);
  batch_->run();
  for (const int fd : fds) {
    ASSERT_GE(fd, 0);
    EXPECT_TRUE(fd_open(fd));
  }
  std::vector<int> closed(fds.size(), -1);
  for (std::size_t i = 0; i < fds.size(); ++i) batch_->close(fds[i], closed[i]);
  batch_->run();
  for (std::size_t i = 0; i < fds.size(); ++i) {
    EXPECT_EQ(closed[i], 0);
    EXPECT_FALSE(fd_open(fds[i]));
  }
}

TEST_F(IoBatchTest, RunWithNothingQueuedReturns) {
  batch_->run();
  int fd = 0;
  batch_->openat2(dir_.get(), "file", how_, fd);
  batch_->run();
  ASSERT_GE(fd, 0);
  ::close(fd);
}

}  // namespace
}  // namespace hsperfguard::platform
