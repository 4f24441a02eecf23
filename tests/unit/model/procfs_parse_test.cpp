// /proc/<pid>/net/unix parsed for attach listeners: what the kernel prints for a JVM's listener
// (JDK 17 and 25 bind `.java_pid<pid>.tmp`, listen, then rename the file), what is left out,
// and that the text may come in chunks cut anywhere, of any length, at a line's memory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "model/procfs_parse.hpp"

namespace hsperfguard::procfs {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// As /proc/<pid>/net/unix read on this kernel with a JDK 17 JVM after `jcmd PID VM.version`
// (the listener) beside sockets that are not one.
constexpr std::string_view kNetUnix =
    "Num       RefCount Protocol Flags    Type St Inode Path\n"
    "00000000d5c26394: 00000002 00000000 00010000 0001 01 4788371 /tmp/.java_pid6686.tmp\n"
    "000000005ced1f68: 00000002 00000000 00010000 0001 01 4788658 /tmp/.java_pid7338.tmp\n"
    "0000000011111111: 00000003 00000000 00000000 0001 03 4788659 /tmp/.java_pid7338.tmp\n"
    "0000000022222222: 00000002 00000000 00010000 0002 01 4788660 /tmp/.java_pid7339\n"
    "0000000033333333: 00000002 00000000 00010000 0001 01 4788661 @/tmp/.java_pid7340\n"
    "0000000044444444: 00000002 00000000 00010000 0001 01 4788662 /run/systemd/notify\n"
    "0000000055555555: 00000002 00000000 00010000 0001 01 4788663\n"
    "0000000066666666: 00000002 00000000 00010000 0001 01   12345 /var/tmp/x y/.java_pid42\n"
    "0000000077777777: 00000002 00000000 00010000 0001 01 4788664 /tmp/.java_pid0042\n";

TEST(UnixListeners, KeepsTheListeningStreamSocketsBoundToAnAttachName) {
  const UnixListeners u = parse_unix_listeners(kNetUnix);
  EXPECT_THAT(u.listeners,
              ElementsAre(AttachListenerLine{6686, 4788371, "/tmp/.java_pid6686.tmp"},
                          AttachListenerLine{7338, 4788658, "/tmp/.java_pid7338.tmp"},
                          AttachListenerLine{42, 12345, "/var/tmp/x y/.java_pid42"}));
  EXPECT_EQ(u.lines, 10u);
  EXPECT_EQ(u.malformed, 0u);
  EXPECT_TRUE(u.complete());
}

TEST(UnixListeners, AttachNamesArePidsAsHotSpotPrintsThem) {
  EXPECT_EQ(attach_listener_pid("/tmp/.java_pid4242"), 4242);
  EXPECT_EQ(attach_listener_pid("/tmp/.java_pid4242.tmp"), 4242);
  EXPECT_EQ(attach_listener_pid(".java_pid1"), 1);
  EXPECT_EQ(attach_listener_pid("/tmp/.java_pid2147483647"), 2147483647);
  for (const std::string_view no :
       {"/tmp/.java_pid", "/tmp/.java_pid0", "/tmp/.java_pid042", "/tmp/.java_pid2147483648",
        "/tmp/.java_pid42.tmp.tmp", "/tmp/.java_pid42x", "/tmp/.java_pid-1", "/tmp/.java_pid+1",
        "/tmp/.java_pid42/", "/tmp/.java_pid42/x", "/tmp/java_pid42", "/tmp/.attach_pid42",
        "/tmp/.java_pid 42", "/tmp/.java_pid99999999999999999999"}) {
    EXPECT_FALSE(attach_listener_pid(no)) << no;
  }
}

// A path with a newline continues on the next line: that line is counted malformed, never
// taken for a listener (the first line is the socket's own, and says what it is).
TEST(UnixListeners, APathWithANewlineMakesAMalformedLineNotAListener) {
  const std::string text =
      "Num       RefCount Protocol Flags    Type St Inode Path\n"
      "0000000088888888: 00000002 00000000 00010000 0001 01 100 /tmp/a\nb/.java_pid5\n"
      "0000000099999999: 00000002 00000000 00010000 0001 01 101 /tmp/.java_pid6\n";
  const UnixListeners u = parse_unix_listeners(text);
  EXPECT_THAT(u.listeners, ElementsAre(AttachListenerLine{6, 101, "/tmp/.java_pid6"}));
  EXPECT_EQ(u.malformed, 1u);
  EXPECT_TRUE(u.complete());
}

TEST(UnixListeners, ChunksCutAnywhereSayTheSame) {
  const UnixListeners whole = parse_unix_listeners(kNetUnix);
  for (std::size_t size = 1; size <= 64; ++size) {
    UnixListenersParser parser;
    for (std::size_t at = 0; at < kNetUnix.size(); at += size) parser.feed(kNetUnix.substr(at, size));
    const UnixListeners fed = parser.finish();
    EXPECT_EQ(fed.listeners, whole.listeners) << size;
    EXPECT_EQ(fed.lines, whole.lines) << size;
  }
}

// A namespace of a million sockets streams through at a line's memory: nothing is kept but
// the listeners, and more of those than the parser keeps leave the answer unknown.
TEST(UnixListeners, AMillionSocketsKeepNothingButTheListenersAndACapSaysIncomplete) {
  UnixListenersParser parser(kMaxUnixLine, 3);
  parser.feed("Num       RefCount Protocol Flags    Type St Inode Path\n");
  const std::string other = "0000000000000000: 00000002 00000000 00010000 0001 01 7 /run/a.sock\n";
  std::string chunk;
  for (int i = 0; i < 1000; ++i) chunk += other;
  for (int i = 0; i < 1000; ++i) parser.feed(chunk);
  for (int pid = 1; pid <= 5; ++pid) {
    parser.feed("0000000000000000: 00000002 00000000 00010000 0001 01 9 /tmp/.java_pid" +
                std::to_string(pid) + "\n");
  }
  const UnixListeners u = parser.finish();
  EXPECT_EQ(u.lines, 1000u * 1000u + 6u);
  EXPECT_EQ(u.listeners.size(), 3u);
  EXPECT_TRUE(u.capped);
  EXPECT_FALSE(u.complete());
}

TEST(UnixListeners, LongLinesAndAReadingStoppedEarly) {
  UnixListenersParser parser(128);
  parser.feed("0000000000000000: 00000002 00000000 00010000 0001 01 9 /tmp/" + std::string(200, 'x') +
              "/.java_pid5\n");
  parser.feed("0000000000000000: 00000002 00000000 00010000 0001 01 9 /tmp/.java_pid6");
  const UnixListeners stopped = parser.finish(true);
  EXPECT_EQ(stopped.long_lines, 1u);
  EXPECT_THAT(stopped.listeners, IsEmpty());  // the last line, without its newline, not parsed
  EXPECT_TRUE(stopped.truncated);
  EXPECT_FALSE(stopped.complete());
}

TEST(UnixListeners, MalformedFieldsAreCountedAndSkipped) {
  const UnixListeners u = parse_unix_listeners(
      "0000000000000000 00000002 00000000 00010000 0001 01 9 /tmp/.java_pid5\n"
      "0000000000000000: 0000000g 00000000 00010000 0001 01 9 /tmp/.java_pid5\n"
      "0000000000000000: 00000002 00000000 00010000 0001 01 -9 /tmp/.java_pid5\n"
      "0000000000000000: 00000002 00000000 00010000 0001\n"
      "garbage\n");
  EXPECT_THAT(u.listeners, IsEmpty());
  EXPECT_EQ(u.malformed, 5u);
}

}  // namespace
}  // namespace hsperfguard::procfs
