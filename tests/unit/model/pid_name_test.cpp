#include "model/pid_name.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hsperfguard {
namespace {

struct Row {
  std::string name;
  std::int32_t hotspot;  // what the JVM's filename_to_pid returns
  PidNameKind kind;
  std::int32_t pid;  // for canonical / noncanonical
};

// Escaped (gtest's string printer): a raw NUL or newline in a test's name breaks the test
// listing that ctest's discovery reads (under wine the listing stops at the NUL).
void PrintTo(const Row& row, std::ostream* os) { *os << ::testing::PrintToString(row.name); }

class PidNameTable : public ::testing::TestWithParam<Row> {};

TEST_P(PidNameTable, MatchesHotSpotAndClassifies) {
  const Row& row = GetParam();
  EXPECT_EQ(hotspot_filename_to_pid(row.name), row.hotspot) << "name '" << row.name << "'";
  const PidName got = classify_pid_name(row.name, 4194303);
  EXPECT_EQ(got.kind, row.kind) << "name '" << row.name << "' got " << to_string(got.kind);
  EXPECT_EQ(got.hotspot_pid, row.hotspot);
  if (row.kind == PidNameKind::canonical || row.kind == PidNameKind::noncanonical) {
    ASSERT_TRUE(got.pid.has_value());
    EXPECT_EQ(*got.pid, row.pid);
  } else {
    EXPECT_FALSE(got.pid.has_value());
  }
}

constexpr bool kLongIs64Bits = sizeof(long) == 8;

const Row kRows[] = {
    {"1", 1, PidNameKind::canonical, 1},
    {"12", 12, PidNameKind::canonical, 12},
    {"32768", 32768, PidNameKind::canonical, 32768},
    {"4194303", 4194303, PidNameKind::canonical, 4194303},
    // Leading zeros: strtol accepts them, the JVM never writes them.
    {"007", 7, PidNameKind::noncanonical, 7},
    {"01", 1, PidNameKind::noncanonical, 1},
    {"0000000000000000000000012", 12, PidNameKind::noncanonical, 12},
    // Zero is "not a pid" to HotSpot; all digits, so out of range for us.
    {"0", 0, PidNameKind::out_of_range, 0},
    {"00", 0, PidNameKind::out_of_range, 0},
    // Above pid_max but a valid int: HotSpot takes it, no kernel hands it out.
    {"4194304", 4194304, PidNameKind::out_of_range, 0},
    {"2147483647", 2147483647, PidNameKind::out_of_range, 0},
    // Above INT_MAX: where long is 64 bits (LP64: Linux) HotSpot narrows it to pid_t, with
    // wrap-around; where it is 32 bits (LLP64: Windows) strtol overflows and it is no pid.
    {"2147483648", kLongIs64Bits ? static_cast<std::int32_t>(0x80000000u) : 0,
     PidNameKind::out_of_range, 0},
    {"4294967297", kLongIs64Bits ? 1 : 0, PidNameKind::out_of_range, 0},
    {"4294967296", 0, PidNameKind::out_of_range, 0},
    // strtol overflow sets ERANGE: HotSpot says not a pid; still all digits for us.
    {"99999999999999999999", 0, PidNameKind::out_of_range, 0},
    // Not pids at all.
    {"", 0, PidNameKind::not_a_pid, 0},
    {"+12", 0, PidNameKind::not_a_pid, 0},
    {"-12", 0, PidNameKind::not_a_pid, 0},
    {" 12", 0, PidNameKind::not_a_pid, 0},
    {"12 ", 0, PidNameKind::not_a_pid, 0},
    {"12x", 0, PidNameKind::not_a_pid, 0},
    {"x12", 0, PidNameKind::not_a_pid, 0},
    {"0x1f", 0, PidNameKind::not_a_pid, 0},
    {"1.0", 0, PidNameKind::not_a_pid, 0},
    {"1e3", 0, PidNameKind::not_a_pid, 0},
    {".", 0, PidNameKind::not_a_pid, 0},
    {"..", 0, PidNameKind::not_a_pid, 0},
    {"\xd9\xa1", 0, PidNameKind::not_a_pid, 0},  // ARABIC-INDIC DIGIT ONE
    {"1\n", 0, PidNameKind::not_a_pid, 0},
    // An embedded NUL: the JVM's C string ends there, so it sees "12"; we refuse the name.
    {std::string("12\0x", 4), 12, PidNameKind::not_a_pid, 0},
};

INSTANTIATE_TEST_SUITE_P(All, PidNameTable, ::testing::ValuesIn(kRows));

TEST(PidName, MaxPidIsRespected) {
  EXPECT_EQ(classify_pid_name("32768", 32767).kind, PidNameKind::out_of_range);
  EXPECT_EQ(classify_pid_name("32767", 32767).kind, PidNameKind::canonical);
}

TEST(PidName, EveryCanonicalNameRoundTrips) {
  for (std::int32_t pid = 1; pid < 200000; pid += 7) {
    const auto name = pid_to_filename(pid);
    const auto got = classify_pid_name(name);
    ASSERT_EQ(got.kind, PidNameKind::canonical) << name;
    ASSERT_EQ(*got.pid, pid);
    ASSERT_EQ(hotspot_filename_to_pid(name), pid);
  }
}

// The reaper's lock file is ours only with its marker: an empty file, a bare pid (the format
// before the marker), a pid file of another program or a bent marker is not.
TEST(LockFileContent, OnlyAPidAndTheMarkerAreOurs) {
  EXPECT_EQ(lock_file_content(4242), "4242\nhsperfguard reap lock\n");
  for (const std::int32_t pid : {1, 4242, 2147483647}) {
    EXPECT_EQ(parse_lock_holder(lock_file_content(pid)), pid);
    EXPECT_TRUE(is_lock_file_content(lock_file_content(pid)));
  }
  for (const std::string other :
       {"", "4242", "4242\n", "42\n", "hsperfguard reap lock\n", "\nhsperfguard reap lock\n",
        "0\nhsperfguard reap lock\n", "0042\nhsperfguard reap lock\n", "+42\nhsperfguard reap lock\n",
        "2147483648\nhsperfguard reap lock\n", "4242\nhsperfguard reap lock",
        "4242\nhsperfguard reap lock\n\n", "4242\nhsperfguard reap lock\nmore\n",
        "4242 \nhsperfguard reap lock\n", "4242\nHSPERFGUARD REAP LOCK\n"}) {
    EXPECT_FALSE(parse_lock_holder(other).has_value()) << other;
    EXPECT_FALSE(is_lock_file_content(other)) << other;
  }
}

}  // namespace
}  // namespace hsperfguard
