#include "model/perfdata.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>

#include "report/snap.hpp"
#include "test_support.hpp"

namespace hsperfguard::perfdata {
namespace {

using test::read_file;

std::string data_path(const std::string& name) {
  return std::string(HSPERFGUARD_SOURCE_DIR) + "/tests/data/" + name;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void put32(std::vector<std::byte>& b, std::size_t at, std::int32_t v, ByteOrder order) {
  for (int i = 0; i < 4; ++i) {
    const int shift = order == ByteOrder::little ? 8 * i : 8 * (3 - i);
    b[at + static_cast<std::size_t>(i)] = static_cast<std::byte>((static_cast<std::uint32_t>(v) >> shift) & 0xff);
  }
}

// Re-encodes a little-endian region as big-endian by swapping every multi-byte field.
std::vector<std::byte> to_big_endian(std::vector<std::byte> b) {
  auto swap = [&](std::size_t at, std::size_t width) {
    std::reverse(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(at + width));
  };
  const Region r = parse_region(b);
  b[4] = std::byte{0};
  for (std::size_t at : {8u, 12u, 24u, 28u}) swap(at, 4);
  swap(16, 8);
  for (const auto& e : r.entries) {
    for (std::size_t f : {0u, 4u, 8u, 16u}) swap(e.offset + f, 4);
    if (!e.is_string()) swap(e.offset + static_cast<std::size_t>(e.data_offset), 8);
  }
  return b;
}

TEST(PerfData, RealJdk17RegionParsesCompletely) {
  for (const char* name : {"jdk17-default.hsperf", "jdk17-serial.hsperf"}) {
    const auto bytes = read_file(data_path(name));
    ASSERT_EQ(bytes.size(), 32768u);
    const Region r = parse_region(bytes);
    ASSERT_TRUE(r.valid()) << name << ": " << (r.error ? r.error->reason : "");
    const Prologue& p = *r.prologue;
    EXPECT_EQ(p.byte_order, ByteOrder::little);
    EXPECT_EQ(p.accessible, 1);
    EXPECT_EQ(static_cast<std::size_t>(p.num_entries), r.entries.size());
    EXPECT_EQ(r.walk_end, static_cast<std::size_t>(p.used));
    EXPECT_GT(r.entries.size(), 150u);
    const Entry* begin = r.find("sun.rt.createVmBeginTime");
    ASSERT_NE(begin, nullptr);
    EXPECT_GT(begin->long_value, 1600000000000);  // epoch milliseconds
    const Entry* command = r.find("sun.rt.javaCommand");
    ASSERT_NE(command, nullptr);
    EXPECT_EQ(command->string_value, "Demo arg1 two words");
  }
}

TEST(PerfData, SnapOfRealRegionEqualsJstatOutput) {
  for (const char* base : {"jdk17-default", "jdk17-serial"}) {
    const Region r = parse_region(read_file(data_path(std::string(base) + ".hsperf")));
    EXPECT_EQ(snap_lines(r, true), read_lines(data_path(std::string(base) + ".snap"))) << base;
    EXPECT_EQ(snap_lines(r, false), read_lines(data_path(std::string(base) + ".supported.snap")))
        << base;
  }
}

TEST(PerfData, BigEndianRegionDecodesToTheSameCounters) {
  const auto little = read_file(data_path("jdk17-default.hsperf"));
  const Region a = parse_region(little);
  const Region b = parse_region(to_big_endian(little));
  ASSERT_TRUE(b.valid()) << b.error->reason;
  EXPECT_EQ(b.prologue->byte_order, ByteOrder::big);
  EXPECT_EQ(snap_lines(a, true), snap_lines(b, true));
}

TEST(PerfData, EveryTruncationIsAnErrorNeverACrash) {
  const auto bytes = read_file(data_path("jdk17-default.hsperf"));
  const auto used = static_cast<std::size_t>(parse_region(bytes).prologue->used);
  for (std::size_t n = 0; n < used; ++n) {
    const Region r = parse_region(std::span(bytes).first(n));
    ASSERT_FALSE(r.valid()) << "prefix of " << n << " bytes";
    ASSERT_LE(r.error->offset, n);
  }
  EXPECT_TRUE(parse_region(std::span(bytes).first(used)).valid());
}

struct Corruption {
  const char* what;
  std::size_t at;
  std::int32_t value;
  std::size_t error_offset;
};

TEST(PerfData, PrologueCorruptionsAreReportedAtTheirOffset) {
  const auto good = read_file(data_path("jdk17-default.hsperf"));
  const Corruption cases[] = {
      {"used below the prologue", 8, 16, 8},
      {"used beyond the region", 8, 40000, 8},
      {"negative used", 8, -1, 8},
      {"negative overflow", 12, -5, 12},
      {"entry_offset inside the prologue", 24, 8, 24},
      {"entry_offset beyond used", 24, 30000, 24},
      {"misaligned entry_offset", 24, 34, 24},
      {"negative num_entries", 28, -1, 28},
  };
  for (const auto& c : cases) {
    auto b = good;
    put32(b, c.at, c.value, ByteOrder::little);
    const Region r = parse_region(b);
    ASSERT_TRUE(r.error.has_value()) << c.what;
    EXPECT_EQ(r.error->offset, c.error_offset) << c.what << ": " << r.error->reason;
    EXPECT_TRUE(r.entries.empty()) << c.what;
  }
  for (std::size_t i = 0; i < 4; ++i) {
    auto b = good;
    b[i] ^= std::byte{0x01};
    EXPECT_EQ(parse_region(b).error->offset, 0u) << "magic byte " << i;
  }
  auto b = good;
  b[4] = std::byte{2};
  EXPECT_EQ(parse_region(b).error->offset, 4u);
  b = good;
  b[5] = std::byte{1};
  EXPECT_EQ(parse_region(b).error->offset, 5u);
  b = good;
  b[6] = std::byte{1};
  EXPECT_EQ(parse_region(b).error->offset, 5u);
}

// The bounds of an entry at their edge: a byte vector's data may start at the entry's end
// (then it has no room) but not one byte past it, and the vector may fill the entry but not
// run one byte past it. Each one-past case stops the walk at that entry with a reason.
TEST(PerfData, EntryBoundsHoldToTheLastByte) {
  const auto good = read_file(data_path("jdk17-default.hsperf"));
  const Region base = parse_region(good);
  ASSERT_FALSE(base.error.has_value());
  std::size_t index = 0;
  while (index < base.entries.size() && base.entries[index].data_type != DataType::byte_array)
    ++index;
  ASSERT_LT(index, base.entries.size()) << "the region has a string entry";
  const Entry& e = base.entries[index];
  const auto room = static_cast<std::int32_t>(e.entry_length - e.data_offset);

  auto b = good;
  put32(b, e.offset + 16, e.entry_length + 1, ByteOrder::little);  // data_offset one past
  Region r = parse_region(b);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.entries.size(), index) << r.error->reason;

  b = good;
  put32(b, e.offset + 8, room, ByteOrder::little);  // vector_length fills the entry: fine
  r = parse_region(b);
  EXPECT_FALSE(r.error.has_value()) << r.error->reason;
  b = good;
  put32(b, e.offset + 8, room + 1, ByteOrder::little);  // one byte past the entry
  r = parse_region(b);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.entries.size(), index) << r.error->reason;
}

TEST(PerfData, EntryCorruptionsStopTheWalkWithAReason) {
  const auto good = read_file(data_path("jdk17-default.hsperf"));
  const Region base = parse_region(good);
  const Entry& second = base.entries.at(1);
  const std::size_t at = second.offset;
  struct Case {
    const char* what;
    std::size_t field;
    std::int32_t value;
    std::size_t entries_before_error;
  } cases[] = {
      {"negative entry_length", 0, -8, 1},
      {"entry_length past used", 0, 0x7fffffff, 1},
      {"entry_length shorter than header", 0, 12, 1},
      // The second entry still decodes; the third starts misaligned.
      {"misaligned next entry", 0, second.entry_length + 2, 2},
      {"name_offset inside header", 4, 4, 1},
      {"name_offset past entry", 4, 4096, 1},
      {"data_offset before name", 16, 8, 1},
      {"data_offset past entry", 16, 4096, 1},
      {"negative vector_length", 8, -1, 1},
  };
  for (const auto& c : cases) {
    auto b = good;
    put32(b, at + c.field, c.value, ByteOrder::little);
    const Region r = parse_region(b);
    ASSERT_TRUE(r.error.has_value()) << c.what;
    EXPECT_GE(r.error->offset, at) << c.what;
    EXPECT_EQ(r.entries.size(), c.entries_before_error) << c.what << ": " << r.error->reason;
  }
  auto b = good;
  b[at + 12] = std::byte{'I'};  // unknown type
  EXPECT_EQ(parse_region(b).error->offset, at + 12);
  b = good;
  b[at + 14] = std::byte{9};  // unknown units
  EXPECT_EQ(parse_region(b).error->offset, at + 14);
  b = good;
  b[at + 15] = std::byte{0};  // unknown variability
  EXPECT_EQ(parse_region(b).error->offset, at + 15);
  b = good;  // name without its NUL: overwrite name bytes up to data_offset
  for (auto i = static_cast<std::size_t>(second.name_offset); i < static_cast<std::size_t>(second.data_offset); ++i) {
    b[at + i] = std::byte{'x'};
  }
  EXPECT_NE(parse_region(b).error->reason.find("NUL"), std::string::npos);
}

// Each check of a byte vector (a string entry) stops the walk at that entry, its error at
// the byte of the field it judged: the data_type at 12, the units at 14, the variability at
// 15, the vector_length at 8. And a scalar's data_type other than 'J' at 12 too.
TEST(PerfData, AByteVectorsChecksEachPointAtTheirOwnField) {
  const auto good = read_file(data_path("jdk17-default.hsperf"));
  const Region base = parse_region(good);
  ASSERT_FALSE(base.error.has_value());
  std::size_t str = 0;
  while (str < base.entries.size() && base.entries[str].data_type != DataType::byte_array) ++str;
  std::size_t scalar = 0;
  while (scalar < base.entries.size() && base.entries[scalar].data_type != DataType::long_value)
    ++scalar;
  ASSERT_LT(str, base.entries.size());
  ASSERT_LT(scalar, base.entries.size());
  const Entry& e = base.entries[str];
  const auto room = static_cast<std::int32_t>(e.entry_length - e.data_offset);
  struct Case {
    const char* what;
    std::size_t entry;
    std::size_t field;
    std::uint8_t byte;
    const char* reason;
  } cases[] = {
      {"a vector of longs", str, 12, 'J', "data_type other than 'B'"},
      {"a vector in bytes, not a string", str, 14, 2, "units are not string"},
      {"a monotonic string", str, 15, 2, "monotonic byte vector"},
      {"a scalar of bytes", scalar, 12, 'B', "scalar of unsupported data_type B"},
  };
  for (const auto& c : cases) {
    auto b = good;
    const std::size_t at = base.entries[c.entry].offset;
    b[at + c.field] = std::byte{c.byte};
    const Region r = parse_region(b);
    ASSERT_TRUE(r.error.has_value()) << c.what;
    EXPECT_EQ(r.error->offset, at + c.field) << c.what << ": " << r.error->reason;
    EXPECT_NE(r.error->reason.find(c.reason), std::string::npos) << c.what << ": " << r.error->reason;
    EXPECT_EQ(r.entries.size(), c.entry) << c.what;
  }
  auto b = good;
  put32(b, e.offset + 8, room + 1, ByteOrder::little);
  const Region r = parse_region(b);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->offset, e.offset + 8) << r.error->reason;
}

// A name is read up to its NUL, as jvmstat reads it: the padding HotSpot puts between the NUL
// and the data need not be NULs. Its last byte made 'x', the name is the same and the region
// valid; only a name with no NUL before the data is refused.
TEST(PerfData, ANamesPaddingAfterItsNulIsNotTheName) {
  const auto good = read_file(data_path("jdk17-default.hsperf"));
  const Region base = parse_region(good);
  ASSERT_FALSE(base.error.has_value());
  std::size_t index = 0;
  while (index < base.entries.size() &&
         base.entries[index].name.size() + 1 >=
             static_cast<std::size_t>(base.entries[index].data_offset - base.entries[index].name_offset)) {
    ++index;
  }
  ASSERT_LT(index, base.entries.size()) << "an entry whose name is padded";
  const Entry& e = base.entries[index];
  auto b = good;
  b[e.offset + static_cast<std::size_t>(e.data_offset) - 1] = std::byte{'x'};
  const Region r = parse_region(b);
  ASSERT_FALSE(r.error.has_value()) << r.error->reason;
  ASSERT_EQ(r.entries.size(), base.entries.size());
  EXPECT_EQ(r.entries[index].name, e.name);
}

TEST(PerfData, KeepingOnlySomeEntriesStillChecksThemAll) {
  const auto bytes = read_file(data_path("jdk17-default.hsperf"));
  const std::string_view keep[] = {"sun.rt.javaCommand", "no.such.counter"};
  const Region some = parse_region_keeping(bytes, keep);
  const Region all = parse_region(bytes);
  ASSERT_TRUE(some.valid());
  EXPECT_EQ(some.entry_count, all.entry_count);
  EXPECT_EQ(all.entry_count, all.entries.size());
  ASSERT_EQ(some.entries.size(), 1u);
  EXPECT_EQ(some.entries[0].string_value, all.find("sun.rt.javaCommand")->string_value);
  EXPECT_EQ(some.walk_end, all.walk_end);
  // A corrupt entry that is not kept is still an error.
  auto b = bytes;
  put32(b, all.entries.at(5).offset + 4, 4096, ByteOrder::little);
  const Region broken = parse_region_keeping(b, keep);
  ASSERT_TRUE(broken.error.has_value());
  EXPECT_EQ(broken.entry_count, 5u);
}

// Names and strings are views (no allocation per entry): they must point into the Region,
// never into the bytes parsed, and survive the Region they were copied from.
// However little text the kept entries have (here one entry named with one byte), it is the
// region's own, not a view of the bytes parsed.
TEST(PerfData, AKeptEntryOfOneByteOfTextOutlivesTheBytesParsed) {
  RegionSpec spec;
  NewEntry one;
  one.name = "a";
  one.long_value = 7;
  spec.entries.push_back(one);
  auto bytes = std::make_unique<std::vector<std::byte>>(build_region(spec).bytes);
  const std::string_view keep[] = {"a"};
  const Region some = parse_region_keeping(*bytes, keep);
  std::fill(bytes->begin(), bytes->end(), std::byte{0x5a});
  bytes.reset();
  ASSERT_EQ(some.entries.size(), 1u);
  EXPECT_EQ(some.entries[0].name, "a");
  EXPECT_EQ(some.entries[0].long_value, 7);
}

TEST(PerfData, EntriesOutliveTheBytesParsedAndTheRegionTheyWereCopiedFrom) {
  const auto original = read_file(data_path("jdk17-default.hsperf"));
  const std::string_view keep[] = {"sun.rt.javaCommand", "sun.rt.createVmBeginTime"};
  std::vector<std::pair<std::string, std::string>> expected;
  for (const Entry& e : parse_region(original).entries)
    expected.emplace_back(e.name, e.string_value);
  ASSERT_GT(expected.size(), 150u);

  auto bytes = std::make_unique<std::vector<std::byte>>(original);
  auto all = std::make_unique<Region>(parse_region(*bytes));
  auto some = std::make_unique<Region>(parse_region_keeping(*bytes, keep));
  std::fill(bytes->begin(), bytes->end(), std::byte{0x5a});  // what was parsed is overwritten,
  bytes.reset();                                             // then freed
  const Region all_copy = *all;
  const Region some_copy = *some;
  all.reset();  // the originals go; the copies share their text
  some.reset();
  ASSERT_EQ(all_copy.entries.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(all_copy.entries[i].name, expected[i].first) << i;
    EXPECT_EQ(all_copy.entries[i].string_value, expected[i].second) << i;
  }
  ASSERT_EQ(some_copy.entries.size(), 2u);
  EXPECT_EQ(some_copy.find("sun.rt.javaCommand")->string_value, "Demo arg1 two words");
  EXPECT_NE(some_copy.find("sun.rt.createVmBeginTime"), nullptr);
}

TEST(PerfData, ZeroLengthEntryEndsTheWalk) {
  auto b = read_file(data_path("jdk17-default.hsperf"));
  const Region base = parse_region(b);
  put32(b, base.entries.at(10).offset, 0, ByteOrder::little);
  const Region r = parse_region(b);
  EXPECT_TRUE(r.valid());
  EXPECT_EQ(r.entries.size(), 10u);
}

NewEntry long_entry(std::string name, std::int64_t v) {
  NewEntry e;
  e.name = std::move(name);
  e.units = Units::ticks;
  e.variability = Variability::monotonic;
  e.long_value = v;
  return e;
}

NewEntry string_entry(std::string name, std::string v, std::size_t capacity = 0) {
  NewEntry e;
  e.name = std::move(name);
  e.is_string = true;
  e.units = Units::string;
  e.variability = Variability::variable;
  e.string_value = std::move(v);
  e.string_capacity = capacity;
  return e;
}

TEST(PerfDataWriter, RoundTripsRandomRegionsInBothByteOrders) {
  std::mt19937_64 rng(20261122);
  auto random_text = [&](std::size_t max) {
    std::string s(rng() % max + 1, 'a');
    for (auto& c : s) c = static_cast<char>(0x20 + rng() % 0x5f);
    return s;
  };
  for (int round = 0; round < 300; ++round) {
    RegionSpec spec;
    spec.byte_order = round % 2 ? ByteOrder::big : ByteOrder::little;
    spec.mod_time_stamp = static_cast<std::int64_t>(rng());
    const auto count = rng() % 40;
    for (std::size_t i = 0; i < count; ++i) {
      if (rng() % 3 == 0) {
        spec.entries.push_back(string_entry(random_text(60), random_text(200), rng() % 300));
      } else {
        auto e = long_entry(random_text(60), static_cast<std::int64_t>(rng()));
        e.supported = rng() % 2;
        spec.entries.push_back(e);
      }
    }
    const auto built = build_region(spec);
    ASSERT_FALSE(built.error.has_value()) << built.error->reason;
    const Region r = parse_region(built.bytes);
    ASSERT_TRUE(r.valid()) << r.error->reason;
    EXPECT_EQ(r.prologue->byte_order, spec.byte_order);
    EXPECT_EQ(r.prologue->mod_time_stamp, spec.mod_time_stamp);
    ASSERT_EQ(r.entries.size(), spec.entries.size());
    for (std::size_t i = 0; i < count; ++i) {
      const auto& want = spec.entries[i];
      const auto& got = r.entries[i];
      EXPECT_EQ(got.name, want.name);
      EXPECT_EQ(got.offset % 8, 0u);
      EXPECT_EQ(got.is_string(), want.is_string);
      EXPECT_EQ(got.supported(), want.supported);
      if (want.is_string) {
        EXPECT_EQ(got.string_value, want.string_value);
        // The vector holds the string and its NUL at least, however small the capacity asked.
        EXPECT_EQ(static_cast<std::size_t>(got.vector_length),
                  std::max(want.string_capacity, want.string_value.size() + 1));
      } else {
        EXPECT_EQ(got.long_value, want.long_value);
        EXPECT_EQ(got.units, want.units);
      }
    }
  }
}

TEST(PerfDataWriter, RefusesWhatCannotBeWritten) {
  RegionSpec spec;
  spec.size = 128;
  spec.entries.push_back(string_entry("sun.rt.javaCommand", std::string(200, 'x')));
  EXPECT_TRUE(build_region(spec).error.has_value());
  spec.entries = {long_entry(std::string("a\0b", 3), 1)};
  EXPECT_TRUE(build_region(spec).error.has_value());
  // A capacity near SIZE_MAX must not wrap the layout arithmetic (found by review).
  spec.size = 128;
  spec.entries = {string_entry("filler", std::string(40, 'f'), 53),
                  string_entry("sun.rt.javaCommand", "Main", SIZE_MAX - 40)};
  EXPECT_TRUE(build_region(spec).error.has_value());
  spec.size = 4 * 1024 * 1024;
  spec.entries.clear();
  EXPECT_TRUE(build_region(spec).error.has_value());
}

TEST(PerfDataWriter, LaysOutEntriesLikeHotSpot) {
  // The first entry of a real JDK 17 region: a 23-character name and a long value.
  RegionSpec spec;
  spec.entries.push_back(long_entry("sun.rt._sync_Inflations", 3));
  const auto built = build_region(spec);
  const auto real = read_file(data_path("jdk17-default.hsperf"));
  const Region a = parse_region(built.bytes), b = parse_region(real);
  EXPECT_EQ(a.entries[0].entry_length, b.entries[0].entry_length);
  EXPECT_EQ(a.entries[0].data_offset, b.entries[0].data_offset);
  EXPECT_EQ(a.entries[0].name_offset, b.entries[0].name_offset);
}

// The one rule for how much of a region is read and parsed (every platform, every command).
TEST(PerfData, RegionBytesToParseFollowUsedWithinTheCap) {
  const auto bytes = read_file(data_path("jdk17-default.hsperf"));
  const Region r = parse_region(bytes);
  ASSERT_TRUE(r.valid());
  const auto used = static_cast<std::size_t>(r.prologue->used);
  ASSERT_GT(used, kRegionHeadBytes);
  ASSERT_LE(used, kRegionFirstRead);
  const auto head = std::span(bytes).first(kRegionFirstRead);
  // A JVM's region: its used bytes, whatever the first read held, never beyond the cap.
  EXPECT_EQ(region_bytes_to_parse(head, bytes.size()), used);
  EXPECT_EQ(region_bytes_to_parse(std::span(bytes).first(kPrologueSize), bytes.size()), used);
  EXPECT_EQ(region_bytes_to_parse(head, 8192), 8192u);
  // used at or below one page, a prologue that cannot be read, nothing at all: one page.
  auto small = bytes;
  put32(small, 8, 2048, ByteOrder::little);
  EXPECT_EQ(region_bytes_to_parse(std::span(small).first(kRegionFirstRead), small.size()),
            kRegionHeadBytes);
  const std::vector<std::byte> zeros(kRegionFirstRead);
  EXPECT_EQ(region_bytes_to_parse(zeros, 1u << 30), kRegionHeadBytes);
  EXPECT_EQ(region_bytes_to_parse({}, 100), 100u);
  EXPECT_EQ(region_bytes_to_parse({}, 0), 0u);
  // A prologue that claims more than any JVM writes is still bounded by the cap.
  auto huge = bytes;
  put32(huge, 8, 0x7fffffff, ByteOrder::little);
  EXPECT_EQ(region_bytes_to_parse(std::span(huge).first(kRegionFirstRead), kMaxRegionSize),
            kMaxRegionSize);
}

}  // namespace
}  // namespace hsperfguard::perfdata
