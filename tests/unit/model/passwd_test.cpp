#include "model/passwd.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

namespace hsperfguard::passwd {
namespace {

// Look-ups answer as glibc's files backend: the first line with the name (or uid) wins.
TEST(Passwd, LookupsFindTheFirstEntryOfANameOrUid) {
  const Database db = parse(
      "dup:x:10:10:::\n"
      "other:x:20:20:::\n"
      "dup:x:30:30:::\n"
      "again:x:10:11:::\n");
  ASSERT_EQ(db.entries.size(), 4u);
  ASSERT_NE(db.find_name("dup"), nullptr);
  EXPECT_EQ(db.find_name("dup")->uid, 10u);
  EXPECT_EQ(db.find_uid(10)->name, "dup");
  EXPECT_EQ(db.find_uid(30)->name, "dup");
  EXPECT_EQ(db.find_uid(20)->name, "other");
  EXPECT_EQ(db.find_name("nobody"), nullptr);
  EXPECT_EQ(db.find_name(""), nullptr);
  EXPECT_EQ(db.find_uid(12), nullptr);
}

// A container's passwd is whoever made the container's to write: a large one is indexed once,
// and every name and uid in it is found (by the index, not a scan per namespace).
TEST(Passwd, LargeDatabaseIsIndexed) {
  std::string text;
  for (int i = 0; i < 50000; ++i) {
    text += "user" + std::to_string(i) + ":x:" + std::to_string(100000 + i) + ":1:::\n";
  }
  const Database db = parse(text);
  ASSERT_EQ(db.entries.size(), 50000u);
  ASSERT_EQ(db.by_name.size(), 50000u);
  ASSERT_EQ(db.by_uid.size(), 50000u);
  for (int i = 0; i < 50000; i += 997) {
    const Entry* e = db.find_name("user" + std::to_string(i));
    ASSERT_NE(e, nullptr) << i;
    EXPECT_EQ(e->uid, static_cast<std::uint32_t>(100000 + i));
    EXPECT_EQ(db.find_uid(static_cast<std::uint32_t>(100000 + i)), e);
  }
  EXPECT_EQ(db.find_name("user50000"), nullptr);
}

// A stop signal or the deadline stops the parse of a large passwd: the database is marked
// stopped and holds nothing (no look-up may conclude "no such user" from half a file). Not
// reached, the limits change nothing.
TEST(Passwd, LimitsStopALargeParseAndLeaveNothingToLookUp) {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += "user" + std::to_string(i) + ":x:" + std::to_string(i) + ":1:::\n";
  std::atomic<bool> stop{true};
  const RunLimits stopped{&stop, std::nullopt};
  const Database interrupted = parse(text, &stopped);
  EXPECT_STREQ(interrupted.stopped, "interrupted");
  EXPECT_TRUE(interrupted.entries.empty());
  EXPECT_EQ(interrupted.find_name("user1"), nullptr);

  const RunLimits past{nullptr, std::chrono::steady_clock::now() - std::chrono::seconds(1)};
  EXPECT_STREQ(parse(text, &past).stopped, "deadline");

  stop = false;
  const RunLimits going{&stop, std::chrono::steady_clock::now() + std::chrono::hours(1)};
  const Database whole = parse(text, &going);
  EXPECT_EQ(whole.stopped, nullptr);
  EXPECT_EQ(whole.entries.size(), 20000u);
  ASSERT_NE(whole.find_name("user19999"), nullptr);
}

// Each temp root has its share of the run's time: a large passwd that several roots open is
// parsed on by each from where the last one stopped, and even calls each made after their
// deadline finish it between them (every call goes on by a step), with the database the
// whole file gives.
TEST(Passwd, AParseStoppedGoesOnWhereItStoppedAndEndsWithTheWholeDatabase) {
  std::string text = "# comment\nbad line\n+nis\n";
  for (int i = 0; i < 20000; ++i)
    text += "user" + std::to_string(i) + ":x:" + std::to_string(50000 - i) + ":1:::\n";
  text += "user7:x:1:1:::\n";  // a second user7: the first one wins
  const RunLimits late{nullptr, std::chrono::steady_clock::now() - std::chrono::seconds(1)};
  PartialParse state;
  int calls = 0;
  const char* why = "deadline";
  while (why != nullptr && calls < 100) {
    const std::size_t offset = state.offset;
    why = parse_some(text, state, &late);
    ++calls;
    if (why != nullptr) {
      EXPECT_STREQ(why, "deadline");
      EXPECT_FALSE(state.done);
      EXPECT_TRUE(state.offset > offset || state.offset == text.size()) << "call " << calls;
    }
  }
  // 20,004 lines: five steps of 4,096 lines, then the indexing.
  EXPECT_EQ(calls, 6);
  ASSERT_TRUE(state.done);
  const Database whole = parse(text);
  EXPECT_EQ(state.db.entries.size(), whole.entries.size());
  EXPECT_EQ(state.db.malformed_lines, whole.malformed_lines);
  EXPECT_EQ(state.db.nis_lines, whole.nis_lines);
  EXPECT_EQ(state.db.by_name, whole.by_name);
  EXPECT_EQ(state.db.by_uid, whole.by_uid);
  ASSERT_NE(state.db.find_name("user7"), nullptr);
  EXPECT_EQ(state.db.find_name("user7")->uid, 49993u);
  EXPECT_EQ(state.db.find_uid(1)->name, "user7");
  EXPECT_EQ(parse_some(text, state, &late), nullptr) << "a finished parse stays finished";
}

TEST(Passwd, ParsesTheSevenFields) {
  const Database db = parse(
      "root:x:0:0:root:/root:/bin/bash\n"
      "alice:x:1000:1000:Alice,,,:/home/alice:/bin/sh\n"
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
  ASSERT_EQ(db.entries.size(), 3u);
  EXPECT_EQ(db.malformed_lines, 0u);
  const Entry& alice = db.entries[1];
  EXPECT_EQ(alice.name, "alice");
  EXPECT_EQ(alice.uid, 1000u);
  EXPECT_EQ(alice.gid, 1000u);
  EXPECT_EQ(db.entries[2].uid, 65534u);
}

TEST(Passwd, EmptyFieldsAreAllowedExceptTheName) {
  const Database db = parse("svc::4242:4242:::\n:x:1:1:::\n");
  ASSERT_EQ(db.entries.size(), 1u);
  EXPECT_EQ(db.entries[0].name, "svc");
  EXPECT_EQ(db.entries[0].uid, 4242u);
  EXPECT_EQ(db.malformed_lines, 1u);
}

TEST(Passwd, SkipsCommentsAndBlankLinesWithoutCountingThem) {
  const Database db =
      parse("# a comment\n\n   \n\t# indented comment\nbob:x:1001:1001::/home/bob:/bin/sh");
  ASSERT_EQ(db.entries.size(), 1u);  // the last line has no newline
  EXPECT_EQ(db.entries[0].name, "bob");
  EXPECT_EQ(db.malformed_lines, 0u);
}

TEST(Passwd, CrLfLineEndingsAndLeadingBlanks) {
  const Database db = parse("  carol:x:7:8::/home/carol:/bin/zsh\r\n");
  ASSERT_EQ(db.entries.size(), 1u);
  EXPECT_EQ(db.entries[0].name, "carol");
  EXPECT_EQ(db.entries[0].gid, 8u);
  EXPECT_EQ(db.find_name("carol"), &db.entries[0]);
}

TEST(Passwd, NisCompatLinesAreSkippedAndCountedApart) {
  const Database db = parse("+@admins::::::\n-mallory::::::\n+\nroot:x:0:0::/root:/bin/sh\n");
  ASSERT_EQ(db.entries.size(), 1u);
  EXPECT_EQ(db.nis_lines, 3u);
  EXPECT_EQ(db.malformed_lines, 0u);
}

TEST(Passwd, MalformedLinesAreCountedNeverTrusted) {
  const std::string text =
      "too:few:1:1\n"
      "too:many:1:1:x:/h:/s:extra\n"
      "neg:x:-1:0::/:/bin/sh\n"
      "plus:x:+5:0::/:/bin/sh\n"
      "hex:x:0x10:0::/:/bin/sh\n"
      "space:x: 5:0::/:/bin/sh\n"
      "big:x:4294967296:0::/:/bin/sh\n"
      "minus1:x:4294967295:0::/:/bin/sh\n"
      "nogid:x:5::::\n"
      "ok:x:4294967294:0::/:/bin/sh\n"
      "zeros:x:000000000001:0::/:/bin/sh\n";
  const Database db = parse(text);
  ASSERT_EQ(db.entries.size(), 2u);
  EXPECT_EQ(db.entries[0].name, "ok");
  EXPECT_EQ(db.entries[0].uid, 4294967294u);
  EXPECT_EQ(db.entries[1].uid, 1u);  // leading zeros are still plain decimal
  EXPECT_EQ(db.malformed_lines, 9u);
}

TEST(Passwd, EmbeddedNulMakesTheLineMalformed) {
  using namespace std::string_literals;
  const std::string text = "evil\0root:x:0:0::/:/bin/sh\nfine:x:1:1::/:/bin/sh\n"s;
  const Database db = parse(text);
  ASSERT_EQ(db.entries.size(), 1u);
  EXPECT_EQ(db.entries[0].name, "fine");
  EXPECT_EQ(db.malformed_lines, 1u);
}

TEST(Passwd, FirstEntryWinsLikeGlibc) {
  const Database db =
      parse("dup:x:10:10::/a:/bin/sh\ndup:x:20:20::/b:/bin/sh\nother:x:10:3::/c:/bin/sh\n");
  ASSERT_NE(db.find_name("dup"), nullptr);
  EXPECT_EQ(db.find_name("dup")->uid, 10u);
  ASSERT_NE(db.find_uid(10), nullptr);
  EXPECT_EQ(db.find_uid(10)->name, "dup");
  EXPECT_EQ(db.find_name("nobody-here"), nullptr);
  EXPECT_EQ(db.find_uid(99), nullptr);
}

TEST(Passwd, EmptyAndGarbageInputNeverThrow) {
  EXPECT_TRUE(parse("").entries.empty());
  EXPECT_TRUE(parse("\n\n\n").entries.empty());
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 131) & 0xff));
  const Database db = parse(garbage);
  EXPECT_TRUE(db.entries.empty());
  const Database colons = parse(std::string(100000, ':'));
  EXPECT_TRUE(colons.entries.empty());
  EXPECT_EQ(colons.malformed_lines, 1u);
}

}  // namespace
}  // namespace hsperfguard::passwd

namespace hsperfguard::passwd {
namespace {

// A passwd of more accounts than any system has (a tenant's, of short lines) is no database:
// empty, every look-up fails, and what it holds is bounded by the cap, not by the lines.
TEST(Passwd, MoreAccountsThanTheCapAreNoDatabase) {
  std::string text;
  text.reserve((kMaxEntries + 1) * 10);
  for (std::size_t i = 0; i <= kMaxEntries; ++i) text += "a::1:1:::\n";
  const Database over = parse(text);
  EXPECT_TRUE(over.too_many_entries);
  EXPECT_TRUE(over.entries.empty());
  EXPECT_EQ(over.find_name("a"), nullptr);
  text.resize(kMaxEntries * 10);  // exactly the cap: indexed
  const Database at = parse(text);
  EXPECT_FALSE(at.too_many_entries);
  EXPECT_EQ(at.entries.size(), kMaxEntries);
  ASSERT_NE(at.find_name("a"), nullptr);
  EXPECT_EQ(at.find_name("a")->uid, 1u);
}

// Names are views into the database's own storage, which a move keeps.
TEST(Passwd, NamesSurviveMovingTheDatabase) {
  Database first = parse("ab:x:7:7:::\n");  // shorter than any small-string buffer
  Database moved = std::move(first);
  ASSERT_NE(moved.find_uid(7), nullptr);
  EXPECT_EQ(moved.find_uid(7)->name, "ab");
}

}  // namespace
}  // namespace hsperfguard::passwd
