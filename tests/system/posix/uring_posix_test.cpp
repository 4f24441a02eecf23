// IoBatch: each batched operation returns what its system call returns (value or -errno), a
// full queue runs itself, and every fd a batch opens reaches the caller. Where the kernel
// refuses io_uring (a seccomp filter: the suite runs a second time under seccomp_refuse), no
// batch is made and callers make the same calls one at a time.
#include "platform/posix/uring_posix.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <sstream>
#include <string>
#include <vector>

#include "child_posix.hpp"
#include "platform/posix/acl_posix.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "refusals_posix.hpp"
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
    refusal_ = test::io_uring_refusal();
    // The kernel's own answer decides, not the probe under test: a batch exactly where
    // io_uring works. Where it is refused, the tests below have no batch to run and end here,
    // having checked that none was made (observation then makes one call at a time, which
    // ObserveTree.*/Batched checks gives the same facts).
    if (refusal_ != 0) {
      ASSERT_EQ(batch_, nullptr) << "a batch was made where the kernel refuses io_uring with "
                                 << refusal_;
    } else {
      ASSERT_NE(batch_, nullptr) << "no batch where the kernel allows io_uring";
    }
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
  int refusal_ = 0;  // the kernel's answer to io_uring_setup: 0, or the errno
};

TEST_F(IoBatchTest, MadeExactlyWhereTheKernelAllowsIoUring) {
  // SetUp compared the batch with the kernel's answer; a second ring, after the first, too.
  EXPECT_EQ(IoBatch::create(4) != nullptr, refusal_ == 0);
  EXPECT_EQ(IoBatch::create(0), nullptr);
}

TEST_F(IoBatchTest, OperationsReturnWhatTheSystemCallsReturn) {
  if (refusal_ != 0) return;  // refused: SetUp checked that no batch was made
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
  if (refusal_ != 0) return;  // refused: SetUp checked that no batch was made
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

// A ring made, then refused its work (io_uring_enter refused by a seccomp filter made after the
// ring, in a child): every operation queued comes back -ECANCELED, nothing was done (no fd
// opened), and later batches are not handed to the ring at all. Callers then make each call
// themselves (ObserveTree.RingThatRefusesItsWorkGivesTheSameFacts).
TEST_F(IoBatchTest, RingRefusedItsWorkCancelsEveryOperation) {
  if (refusal_ != 0) return;  // refused: SetUp checked that no batch was made
  const test::ChildResult child = test::run_in_child([&]() -> std::string {
    if (!test::refuse_system_calls({SYS_io_uring_enter}, EPERM)) return "filter refused";
    std::ostringstream out;
    std::vector<int> opened(3, 0);
    for (int& fd : opened) batch_->openat2(dir_.get(), "file", how_, fd);
    batch_->run();
    for (const int fd : opened) out << fd << " ";
    int again = 0;
    batch_->openat2(dir_.get(), "file", how_, again);
    batch_->run();
    out << "again=" << again;
    for (int fd = 3; fd < 64; ++fd) {
      if (fd != dir_.get() && fd_open(fd)) {
        struct stat st {}, file {};
        if (::fstat(fd, &st) == 0 && ::stat((scratch_ / "file").c_str(), &file) == 0 &&
            st.st_ino == file.st_ino && st.st_dev == file.st_dev) {
          out << " opened-fd=" << fd;
        }
      }
    }
    return out.str();
  });
  ASSERT_TRUE(child.finished);
  const std::string cancelled = std::to_string(-ECANCELED);
  EXPECT_EQ(child.out, cancelled + " " + cancelled + " " + cancelled + " again=" + cancelled);
}

TEST_F(IoBatchTest, RunWithNothingQueuedReturns) {
  if (refusal_ != 0) return;  // refused: SetUp checked that no batch was made
  batch_->run();
  int fd = 0;
  batch_->openat2(dir_.get(), "file", how_, fd);
  batch_->run();
  ASSERT_GE(fd, 0);
  ::close(fd);
}

}  // namespace
}  // namespace hsperfguard::platform
