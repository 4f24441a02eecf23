// create's primitives on Linux (platform/create.hpp), in process, in a scratch temp dir: a
// namespace that exists is verified by its identity before anything is done in it, and one
// that is not the directory that was judged (another inode of the same file system, as a swap
// between the judgement and the act leaves it) is refused as changed, nothing made in it.
#include "platform/create.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <vector>

#include "reap_test_support.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using platform::CreateFailure;
using reaptest::exists;

class CreatePosix : public ::testing::Test {
 protected:
  test::ScratchDir scratch_;
  std::string ns_ = scratch_ / "hsperfdata_me";

  platform::TempDirLocation where() const {
    platform::TempDirLocation w;
    w.temp_dir = scratch_.path();
    return w;
  }
  platform::NamespaceRequest namespace_request() const {
    platform::NamespaceRequest r;
    r.where = where();
    r.name = "hsperfdata_me";
    r.uid = ::getuid();
    r.gid = ::getgid();
    return r;
  }
  platform::BackingFileRequest file_request(const ExpectedInode& ns) const {
    platform::BackingFileRequest r;
    r.where = where();
    r.namespace_name = "hsperfdata_me";
    r.namespace_expected = ns;
    r.name = "4242";
    r.uid = ::getuid();
    r.gid = ::getgid();
    r.content.assign(platform::page_size(), std::byte{0});
    return r;
  }
  ExpectedInode made_namespace() {
    const auto made = platform::make_namespace(namespace_request());
    EXPECT_TRUE(made.ok()) << (made.error ? made.error->message : "");
    EXPECT_TRUE(made.created);
    EXPECT_TRUE(made.made.has_value());
    return made.made.value_or(ExpectedInode{});
  }
};

TEST_F(CreatePosix, ExistingNamespaceIsVerifiedByItsIdentity) {
  const ExpectedInode ns = made_namespace();
  auto verify = namespace_request();
  verify.existing = ns;
  const auto verified = platform::make_namespace(verify);
  ASSERT_TRUE(verified.ok()) << (verified.error ? verified.error->message : "");
  EXPECT_FALSE(verified.created);
  ASSERT_TRUE(verified.made.has_value());
  EXPECT_EQ(verified.made->ino, ns.ino);

  verify.existing->ino += 1;  // another directory than the one judged, on the same device
  const auto other = platform::make_namespace(verify);
  EXPECT_EQ(other.failure, CreateFailure::changed);
  EXPECT_FALSE(other.created);

  ExpectedInode not_it = ns;
  not_it.ino += 1;
  const auto written = platform::make_backing_file(file_request(not_it));
  EXPECT_EQ(written.failure, CreateFailure::changed);
  EXPECT_FALSE(written.created);
  EXPECT_FALSE(exists(ns_ + "/4242"));
}

// The swap itself: the judged namespace renamed away and another directory made under its name
// (same owner, same mode, same file system): neither verified nor written into.
TEST_F(CreatePosix, ANamespaceSwappedForAnotherDirectoryOfTheSameFileSystemIsRefused) {
  const ExpectedInode judged = made_namespace();
  ASSERT_EQ(::rename(ns_.c_str(), (scratch_ / "judged").c_str()), 0);
  ASSERT_EQ(::mkdir(ns_.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(ns_.c_str(), judged.mode & 07777), 0);

  auto verify = namespace_request();
  verify.existing = judged;
  const auto verified = platform::make_namespace(verify);
  EXPECT_EQ(verified.failure, CreateFailure::changed);
  ASSERT_TRUE(verified.error.has_value());
  EXPECT_EQ(verified.error->path, ns_);

  const auto written = platform::make_backing_file(file_request(judged));
  EXPECT_EQ(written.failure, CreateFailure::changed);
  EXPECT_FALSE(written.created);
  EXPECT_FALSE(exists(ns_ + "/4242"));
  EXPECT_FALSE(exists(scratch_ / "judged/4242"));
}

}  // namespace
}  // namespace hsperfguard
