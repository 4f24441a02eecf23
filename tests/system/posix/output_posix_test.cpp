// platform::write_output on what a path may name, and on what may appear there while the
// report is being written (the producer itself swaps the target, so the race is certain).
#include "platform/output.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "platform/posix/posix_util.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

std::string kind_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "missing";
  if (S_ISREG(st.st_mode)) return "regular";
  if (S_ISLNK(st.st_mode)) return "symlink";
  if (S_ISFIFO(st.st_mode)) return "fifo";
  if (S_ISDIR(st.st_mode)) return "directory";
  return "other";
}

std::size_t entries_in(const std::string& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

std::string content_of(const std::string& path) {
  const auto bytes = test::read_file(path);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

TEST(WriteOutput, ReplacesARegularFileWholeWithItsModeAndLeavesNothingElse) {
  test::ScratchDir scratch;
  const std::string path = scratch / "report.json";
  test::write_file(path, test::to_bytes("old"));
  ASSERT_FALSE(write_output_text(path, "new report\n").has_value());
  EXPECT_EQ(content_of(path), "new report\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  OutputOptions metrics;
  metrics.mode = 0644;
  ASSERT_FALSE(write_output_text(scratch / "metrics.prom", "m 1\n", metrics).has_value());
  ASSERT_EQ(::stat((scratch / "metrics.prom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(entries_in(scratch.path()), 2u);
}

// The target turns into a FIFO, a symlink or a directory while the report is written: what
// appeared is left alone (never renamed over) and the write fails.
TEST(WriteOutput, TargetReplacedWhileWrittenIsNeverRenamedOver) {
  for (const std::string became : {"fifo", "symlink", "directory"}) {
    test::ScratchDir scratch;
    const std::string path = scratch / "report.json";
    test::write_file(path, test::to_bytes("old"));
    const auto error = write_output(path, [&](const ContentSink& write) {
      write("half ");
      ASSERT_EQ(::unlink(path.c_str()), 0);
      int made = 0;
      if (became == "fifo") made = ::mkfifo(path.c_str(), 0600);
      if (became == "symlink") made = ::symlink("/etc/passwd", path.c_str());
      if (became == "directory") made = ::mkdir(path.c_str(), 0700);
      ASSERT_EQ(made, 0) << became;
      write("and the rest\n");
    });
    ASSERT_TRUE(error.has_value()) << became;
    EXPECT_NE(error->message.find("while being written"), std::string::npos) << error->message;
    EXPECT_EQ(kind_of(path), became);
    EXPECT_EQ(entries_in(scratch.path()), 1u) << became << ": no temp file left";
  }
}

// An absent target that something appears at while the report is written: looked at again,
// and refused unless it is a regular file.
TEST(WriteOutput, SomethingAppearingAtAnAbsentTargetIsLookedAtAgain) {
  test::ScratchDir scratch;
  const std::string link = scratch / "report.json";
  const auto refused = write_output(link, [&](const ContentSink& write) {
    ASSERT_EQ(::symlink("/etc/shadow", link.c_str()), 0);
    write("report\n");
  });
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(kind_of(link), "symlink");

  const std::string plain = scratch / "other.json";
  const auto replaced = write_output(plain, [&](const ContentSink& write) {
    test::write_file(plain, test::to_bytes("someone's regular file"));
    write("report\n");
  });
  EXPECT_FALSE(replaced.has_value());
  EXPECT_EQ(content_of(plain), "report\n");
  EXPECT_EQ(entries_in(scratch.path()), 2u);
}

TEST(WriteOutput, StopRequestedLeavesTheTargetAsItWas) {
  test::ScratchDir scratch;
  const std::string path = scratch / "report.json";
  test::write_file(path, test::to_bytes("old"));
  std::atomic<bool> stop{false};
  OutputOptions options;
  options.stop = &stop;
  const auto error = write_output(path, [&](const ContentSink& write) {
    write("part of a report ");
    stop = true;  // a SIGTERM arrives
    write("the rest\n");
  }, options);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, EINTR);
  EXPECT_EQ(content_of(path), "old");
  EXPECT_EQ(entries_in(scratch.path()), 1u);
}

// A stream socket is connected through the descriptor the walk held (its /proc name), never
// by its path again, and gets the whole text; the socket stays what it was.
TEST(WriteOutput, AStreamSocketOfOursGetsTheTextThroughTheHeldDescriptor) {
  test::ScratchDir scratch;
  const std::string path = scratch / "report.sock";
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(listener.valid());
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof address.sun_path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener.get(), 1), 0);
  // Small enough for the socket's buffer: written before anyone accepts.
  const auto error = write_output_text(path, "report through a socket\n");
  ASSERT_FALSE(error.has_value()) << error->op << ": " << error->message;
  UniqueFd peer(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(peer.valid());
  std::string got(64, '\0');
  const ssize_t n = ::read(peer.get(), got.data(), got.size());
  ASSERT_GT(n, 0);
  got.resize(static_cast<std::size_t>(n));
  EXPECT_EQ(got, "report through a socket\n");
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
}

TEST(WriteOutput, EmptyPathAndDirectoryNamesAreRefused) {
  test::ScratchDir scratch;
  EXPECT_TRUE(write_output_text("", "x").has_value());
  EXPECT_TRUE(write_output_text(scratch.path() + "/", "x").has_value());
  EXPECT_TRUE(write_output_text(scratch / ".", "x").has_value());
  EXPECT_TRUE(write_output_text(scratch / "missing/report.json", "x").has_value());
  EXPECT_EQ(entries_in(scratch.path()), 0u);
}

}  // namespace
}  // namespace hsperfguard::platform
