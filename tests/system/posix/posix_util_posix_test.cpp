// pread_upto (platform/posix/posix_util.hpp), the one loop of the tool's whole-file reads (a
// backing file, a passwd file, a reap journal, any file it reads whole): every byte up to the
// size asked for, from the offset asked for, across as many calls as the kernel answers with;
// the end of the file ends it with no error, whatever errno held before; a failed call is
// the error, with the bytes read before it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "platform/posix/posix_util.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using platform::pread_upto;
using platform::UniqueFd;

std::string bytes_of(std::size_t n) {
  std::string text(n, '\0');
  for (std::size_t i = 0; i < n; ++i) text[i] = static_cast<char>('a' + i % 23);
  return text;
}

TEST(PreadUpto, ReadsTheSizeAskedForFromTheOffsetAskedFor) {
  test::ScratchDir dir;
  const std::string path = dir / "file";
  const std::string text = bytes_of(300000);  // more than one page cache folio, any pipe
  test::write_file(path, test::to_bytes(text));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  std::string got(200000, 'x');
  int err = -1;
  EXPECT_EQ(pread_upto(fd.get(), got.data(), got.size(), 1000, err), 200000u);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(got, text.substr(1000, 200000));
}

// The file is shorter than asked (it shrank after its fstat): the read ends at its end with
// no error. errno still holds EINTR from an earlier call, as after an interrupted read that was
// made again: that is no reason to read again, and the end is not an error.
TEST(PreadUpto, TheEndOfTheFileEndsTheReadWithNoErrorWhateverErrnoHeld) {
  test::ScratchDir dir;
  const std::string path = dir / "file";
  test::write_file(path, test::to_bytes(bytes_of(100)));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  for (const int before : {EINTR, ENOENT, 0}) {
    std::string got(4096, 'x');
    int err = -1;
    errno = before;
    EXPECT_EQ(pread_upto(fd.get(), got.data(), got.size(), 40, err), 60u) << before;
    EXPECT_EQ(err, 0) << before;
    EXPECT_EQ(got.substr(0, 60), bytes_of(100).substr(40)) << before;
    errno = before;
    EXPECT_EQ(pread_upto(fd.get(), got.data(), got.size(), 100, err), 0u) << "at the end";
    EXPECT_EQ(err, 0) << before;
  }
}

// A pipe cannot be read at an offset (ESPIPE), a directory cannot be read at all (EISDIR):
// the error is the call's, nothing is read, and a call asking for nothing makes no call.
TEST(PreadUpto, AFailedCallIsTheErrorAndNothingAskedForIsNoCall) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  UniqueFd reader(fds[0]);
  UniqueFd writer(fds[1]);
  ASSERT_EQ(::write(writer.get(), "data", 4), 4);
  std::string got(16, 'x');
  int err = 0;
  EXPECT_EQ(pread_upto(reader.get(), got.data(), got.size(), 0, err), 0u);
  EXPECT_EQ(err, ESPIPE);
  test::ScratchDir dir;
  UniqueFd directory(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(directory.valid());
  EXPECT_EQ(pread_upto(directory.get(), got.data(), got.size(), 0, err), 0u);
  EXPECT_EQ(err, EISDIR);
  err = -1;
  EXPECT_EQ(pread_upto(reader.get(), got.data(), 0, 0, err), 0u) << "no call, so no ESPIPE";
  EXPECT_EQ(err, 0);
  EXPECT_EQ(got, std::string(16, 'x'));
}

}  // namespace
}  // namespace hsperfguard
