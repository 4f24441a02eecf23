// The spool file (platform/spool_file.hpp): what is appended comes back whole and in order, by
// any range, across its write buffer; it has no name, so nothing stays behind; a directory where
// none can be made is passed over for the next.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "platform/spool_file.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

std::size_t entries_in(const std::string& dir) {
  std::size_t n = 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  while (const dirent* e = ::readdir(d)) {
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
  }
  ::closedir(d);
  return n;
}

TEST(SpoolFile, GivesBackWhatWasAppendedByAnyRangeAndLeavesNoName) {
  test::ScratchDir scratch;
  ObservationError error;
  auto spool = platform::SpoolFile::create({scratch / "missing", scratch.path()}, error);
  ASSERT_TRUE(spool) << error.message;
  std::string all;
  for (int i = 0; i < 20000; ++i) {
    const std::string line = "line " + std::to_string(i) + (i % 7 == 0 ? std::string(9000, 'x') : "") + "\n";
    spool->append(line);
    all += line;
  }
  spool->append(std::string(200000, 'y'));  // larger than the buffer at once
  all += std::string(200000, 'y');
  EXPECT_EQ(spool->size(), all.size());
  EXPECT_EQ(entries_in(scratch.path()), 0u) << "the spool has no name";
  std::string back;
  spool->copy(0, spool->size(), [&](std::string_view piece) { back.append(piece); });
  EXPECT_EQ(back, all);
  back.clear();
  spool->copy(12345, 700001, [&](std::string_view piece) { back.append(piece); });
  EXPECT_EQ(back, all.substr(12345, 700001 - 12345));
  spool->append("tail\n");
  back.clear();
  spool->copy(all.size(), all.size() + 5, [&](std::string_view piece) { back.append(piece); });
  EXPECT_EQ(back, "tail\n");
  EXPECT_FALSE(spool->error());
}

TEST(SpoolFile, NoDirectoryWhereOneCanBeMadeIsAnError) {
  test::ScratchDir scratch;
  ObservationError error;
  EXPECT_FALSE(platform::SpoolFile::create({scratch / "missing"}, error));
  EXPECT_EQ(error.op, "open");
}

// A write of one byte (a buffer holding a single byte when it is read back) is a whole write,
// not a failure.
TEST(SpoolFile, AOneByteAppendComesBackWhole) {
  test::ScratchDir scratch;
  ObservationError error;
  auto spool = platform::SpoolFile::create({scratch.path()}, error);
  ASSERT_TRUE(spool) << error.message;
  spool->append("x");
  std::string back;
  spool->copy(0, spool->size(), [&](std::string_view piece) { back += piece; });
  EXPECT_EQ(back, "x");
  EXPECT_FALSE(spool->error()) << spool->error()->message;
}

// With standard input closed the spool's file is descriptor 0: one descriptor is opened, and
// kept, whatever number it gets.
TEST(SpoolFile, TakesOneDescriptorEvenWhenItIsZero) {
  test::ScratchDir scratch;
  ::close(0);
  const std::size_t before = entries_in("/proc/self/fd");
  ObservationError error;
  auto spool = platform::SpoolFile::create({scratch.path()}, error);
  ASSERT_TRUE(spool) << error.message;
  EXPECT_EQ(entries_in("/proc/self/fd"), before + 1);
  spool->append("x");
  std::string back;
  spool->copy(0, spool->size(), [&](std::string_view piece) { back += piece; });
  EXPECT_EQ(back, "x");
}

}  // namespace
}  // namespace hsperfguard
