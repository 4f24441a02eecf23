// read_regular_file (platform/files.hpp), what inspect reads a backing file with and a run reads
// its previous metrics file with: a regular file is read whole up to the most asked for, with
// no error; anything else is refused unread; a read that fails is the error, named by its call
// and errno, whichever errno it is.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "child_posix.hpp"
#include "platform/files.hpp"
#include "refusals_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using platform::FileRead;
using platform::read_regular_file;

std::string text_of(const FileRead& read) {
  return std::string(reinterpret_cast<const char*>(read.bytes.data()), read.bytes.size());
}

std::string said(const FileRead& read) {
  if (!read.error) return "read " + std::to_string(read.bytes.size()) + " bytes";
  return read.error->op + " " + std::to_string(read.error->code) + " (" + read.error->message + ")";
}

TEST(ReadRegularFile, AFileIsReadWholeUpToTheMostAskedForWithNoError) {
  test::ScratchDir dir;
  const std::string path = dir / "file";
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i) + "\n";
  test::write_file(path, test::to_bytes(text));
  const FileRead whole = read_regular_file(path, text.size() + 1);
  EXPECT_FALSE(whole.error) << said(whole);
  EXPECT_EQ(text_of(whole), text);
  ASSERT_TRUE(whole.stat.has_value());
  EXPECT_EQ(whole.stat->size, text.size());
  const FileRead cut = read_regular_file(path, 1000);
  EXPECT_FALSE(cut.error) << said(cut);
  EXPECT_EQ(text_of(cut), text.substr(0, 1000));
}

TEST(ReadRegularFile, AnythingButARegularFileIsRefusedUnread) {
  test::ScratchDir dir;
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [path, message] : {std::pair{dir.path(), "is a directory, not a regular file"},
                                       std::pair{fifo, "is a FIFO, not a regular file"}}) {
    const FileRead read = read_regular_file(path, 4096);  // a FIFO never blocks it
    ASSERT_TRUE(read.error) << path;
    EXPECT_EQ(read.error->message, message) << path << ": " << said(read);
    EXPECT_TRUE(read.bytes.empty()) << path;
  }
}

// Every pread answers EPERM (a seccomp filter in a child; a fanotify permission listener, as
// security scanners run, answers reads the same way): the read is that error, not an empty file.
TEST(ReadRegularFile, AReadRefusedIsTheErrorOfTheCallWithItsErrno) {
  test::ScratchDir dir;
  const std::string path = dir / "file";
  test::write_file(path, test::to_bytes("some bytes\n"));
  const auto child = test::run_in_child([&]() -> std::string {
    if (!test::refuse_system_calls({SYS_pread64}, EPERM)) return "no filter";
    return said(read_regular_file(path, 4096));
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, "pread " + std::to_string(EPERM) + " (" + std::string(std::strerror(EPERM)) + ")");
}

}  // namespace
}  // namespace hsperfguard
