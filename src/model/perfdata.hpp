// The PerfData v2.0 format: a 32-byte prologue followed by self-describing entries.
//
// Parsing never trusts a length or offset from the input: every read is checked against
// the span and against the prologue's `used`, the walk always moves forward, and errors
// are values carrying the offending offset. Nothing here throws or touches the OS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hsperfguard::perfdata {

inline constexpr std::uint32_t kMagic = 0xcafec0c0;  // bytes CA FE C0 C0 in every file
inline constexpr std::size_t kPrologueSize = 32;
inline constexpr std::size_t kEntryHeaderSize = 20;
inline constexpr std::uint8_t kMajorVersion = 2;
inline constexpr std::uint8_t kMinorVersion = 0;
// HotSpot's PerfDataMemorySize bounds; the largest region a JVM can publish.
inline constexpr std::size_t kMinRegionSize = 128;
inline constexpr std::size_t kMaxRegionSize = std::size_t{2} * 1024 * 1024;
inline constexpr std::size_t kDefaultRegionSize = std::size_t{32} * 1024;

enum class ByteOrder : std::uint8_t { big = 0, little = 1 };

enum class DataType : char { long_value = 'J', byte_array = 'B' };

enum class Units : std::uint8_t { none = 1, bytes = 2, ticks = 3, events = 4, string = 5, hertz = 6 };

enum class Variability : std::uint8_t { constant = 1, monotonic = 2, variable = 3 };

inline constexpr std::uint8_t kFlagSupported = 0x01;

struct Prologue {
  std::uint32_t magic = 0;  // as read big-endian
  ByteOrder byte_order = ByteOrder::little;
  std::uint8_t major_version = 0;
  std::uint8_t minor_version = 0;
  std::uint8_t accessible = 0;
  std::int32_t used = 0;
  std::int32_t overflow = 0;
  std::int64_t mod_time_stamp = 0;
  std::int32_t entry_offset = 0;
  std::int32_t num_entries = 0;
};

struct Entry {
  std::size_t offset = 0;  // of the entry header, from the start of the region
  std::int32_t entry_length = 0;
  std::int32_t name_offset = 0;
  std::int32_t vector_length = 0;  // 0: scalar
  DataType data_type = DataType::long_value;
  std::uint8_t flags = 0;
  Units units = Units::none;
  Variability variability = Variability::constant;
  std::int32_t data_offset = 0;

  // The name and, for strings, the value are views. In a Region the parser made they point
  // into the Region's `text`, which lives as long as any copy of that Region does; keep the
  // Region (or copy the text) when an Entry is to outlive it.
  std::string_view name;
  // Scalars ('J'): the value. Strings ('B' vectors): the bytes up to the first NUL.
  std::int64_t long_value = 0;
  std::string_view string_value;

  bool supported() const { return (flags & kFlagSupported) != 0; }
  bool is_string() const { return vector_length != 0; }
};

struct ParseError {
  std::size_t offset = 0;  // where in the region the problem was found
  std::string reason;
};

struct Region {
  std::size_t size = 0;              // bytes that were available to the parser
  std::optional<Prologue> prologue;  // absent when the prologue itself is unusable
  std::vector<Entry> entries;        // the entries kept (all, for parse_region), in file order
  std::size_t entry_count = 0;       // every entry decoded before any error, kept or not
  std::optional<ParseError> error;   // the first error; none means the whole region is valid
  std::size_t walk_end = 0;          // offset where the entry walk stopped
  // What the names and string values of `entries` are views of: the used bytes (parse_region)
  // or the kept names and strings (parse_region_keeping), copied out of the parsed bytes into
  // one allocation (none per entry) and shared, never changed, by every copy of this Region.
  std::shared_ptr<const char[]> text;

  bool valid() const { return prologue.has_value() && !error.has_value(); }
  const Entry* find(std::string_view name) const;
};

// The prologue alone: magic, byte order, version and the bounds of `used` and
// `entry_offset` against the bytes supplied.
struct PrologueResult {
  std::optional<Prologue> prologue;
  std::optional<ParseError> error;
};
PrologueResult parse_prologue(std::span<const std::byte> bytes);

// How much of a backing file is read and parsed: one rule for every platform and command.
// A reader reads first kRegionFirstRead bytes (or the whole file when it is smaller, never
// more than its cap), which for most JVMs holds every entry (a JDK 17 region uses about
// 12 KiB of its 32 KiB); then region_bytes_to_parse says how many bytes to parse (reading
// more when that is beyond the first read): `used` bytes when the prologue says more than
// kRegionHeadBytes are used, else kRegionHeadBytes; never more than `cap`. What is parsed
// (and reported as bytes_read) does not depend on the size of the reads, and a sparse
// terabyte file costs one read.
inline constexpr std::size_t kRegionFirstRead = 16384;
inline constexpr std::size_t kRegionHeadBytes = 4096;
// `head`: the bytes the first read returned; `cap`: the file's size bounded by the reader.
std::size_t region_bytes_to_parse(std::span<const std::byte> head, std::size_t cap);

// Prologue plus the full entry walk, with the rules the jvmstat readers apply and a few
// stricter ones (NUL-terminated names, data inside the entry, the walk bounded by `used`).
Region parse_region(std::span<const std::byte> bytes);

// The same walk and the same checks as parse_region, but only entries named in `names` are
// kept: observing thousands of regions then allocates nothing per entry.
Region parse_region_keeping(std::span<const std::byte> bytes,
                            std::span<const std::string_view> names);

std::string_view to_string(Units units);
std::string_view to_string(Variability variability);
std::string_view to_string(ByteOrder order);

// ---- Writing ---------------------------------------------------------------------------

// A counter to publish. Strings are stored as NUL-terminated byte vectors of
// `string_capacity` bytes (at least the string plus its NUL).
struct NewEntry {
  std::string name;
  Units units = Units::none;
  Variability variability = Variability::constant;
  bool supported = true;
  bool is_string = false;
  std::int64_t long_value = 0;
  std::string string_value;
  std::size_t string_capacity = 0;  // 0: exactly the string and its NUL
};

struct RegionSpec {
  std::size_t size = kDefaultRegionSize;
  ByteOrder byte_order = ByteOrder::little;
  std::uint8_t accessible = 1;
  std::int64_t mod_time_stamp = 0;
  std::vector<NewEntry> entries;
};

struct BuildResult {
  std::vector<std::byte> bytes;    // `size` bytes, zero-filled after `used`
  std::optional<ParseError> error;  // e.g. the entries do not fit, or a name has a NUL
};

// Lays entries out the way HotSpot does: 8-byte aligned, the name right after the header,
// data aligned to its size. The result parses back to the same entries.
BuildResult build_region(const RegionSpec& spec);

ByteOrder host_byte_order();

// ---- Regions made by `create` ----------------------------------------------------------

// `bytes` rounded up to a whole number of pages (readers refuse a region whose size is not
// a multiple of the page size). `page_size` must be positive; nullopt if the sum overflows.
std::optional<std::size_t> round_up_to_page(std::size_t bytes, std::size_t page_size);

// The counters a region made by `create` carries: when "the VM" began (the reaper and the
// liveness rules compare it with the pid's start time), the command line jps shows, and the
// high-resolution timer frequency that jstat scales ticks with.
struct StandardCounters {
  std::int64_t create_vm_begin_time_ms = 0;  // epoch milliseconds
  std::optional<std::string> java_command;   // sun.rt.javaCommand, when given
  std::int64_t hrt_frequency = 1'000'000'000;  // sun.os.hrt.frequency (Linux JVMs: ns ticks)
};

// sun.rt.createVmBeginTime, sun.rt.createVmEndTime (the same instant: the region is complete
// once written), sun.os.hrt.frequency and, when given, sun.rt.javaCommand; all constant and
// flagged supported, as HotSpot publishes them.
std::vector<NewEntry> standard_entries(const StandardCounters& counters);

}  // namespace hsperfguard::perfdata
