// libFuzzer target: a backing file's bytes, through the parser and every renderer.
//
// Besides "no crash, no leak, no undefined behaviour", each result is checked against the
// input bytes themselves: what the parser reports must be what the region says, inside the
// region and inside `used`. A valid region is then rebuilt with build_region from its
// decoded counters and must read back to the same counters.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "model/perfdata.hpp"
#include "report/perfdata_json.hpp"
#include "report/snap.hpp"

namespace hsperfguard::perfdata {
namespace {

using Bytes = std::span<const std::byte>;

// Independent of the parser's reader: a field of the input in the given byte order.
std::uint64_t load(Bytes bytes, std::size_t at, std::size_t width, ByteOrder order) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const std::size_t index = order == ByteOrder::big ? at + i : at + width - 1 - i;
    value = (value << 8) | static_cast<std::uint8_t>(bytes[index]);
  }
  return value;
}
std::int32_t load_i32(Bytes bytes, std::size_t at, ByteOrder order) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(load(bytes, at, 4, order)));
}
std::uint8_t byte_at(Bytes bytes, std::size_t at) { return static_cast<std::uint8_t>(bytes[at]); }
bool bytes_equal(Bytes bytes, std::size_t at, std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (byte_at(bytes, at + i) != static_cast<std::uint8_t>(s[i])) return false;
  }
  return true;
}

// Whether `s` lies in `bytes`: a Region's names and strings must be its own copies, never
// views of the bytes it was parsed from (which its caller may reuse at once).
bool points_into(Bytes bytes, std::string_view s) {
  const auto* begin = reinterpret_cast<const char*>(bytes.data());
  return !s.empty() && std::less_equal<>()(begin, s.data()) &&
         std::less<>()(s.data(), begin + bytes.size());
}

// The prologue, against the bytes and against the rules of POLICY.md section 5.
void check_prologue(Bytes bytes, const PrologueResult& result) {
  FUZZ_CHECK(result.prologue.has_value() || result.error.has_value());
  if (result.error) FUZZ_CHECK(result.error->offset <= bytes.size());
  const bool readable = bytes.size() >= kPrologueSize && byte_at(bytes, 0) == 0xca &&
                        byte_at(bytes, 1) == 0xfe && byte_at(bytes, 2) == 0xc0 &&
                        byte_at(bytes, 3) == 0xc0 && byte_at(bytes, 4) <= 1 &&
                        byte_at(bytes, 5) == kMajorVersion && byte_at(bytes, 6) == kMinorVersion;
  FUZZ_CHECK(result.prologue.has_value() == readable);
  if (!result.prologue) return;

  const Prologue& p = *result.prologue;
  const auto order = static_cast<ByteOrder>(byte_at(bytes, 4));
  FUZZ_CHECK(p.magic == kMagic);
  FUZZ_CHECK(p.byte_order == order);
  FUZZ_CHECK(p.accessible == byte_at(bytes, 7));
  FUZZ_CHECK(p.used == load_i32(bytes, 8, order));
  FUZZ_CHECK(p.overflow == load_i32(bytes, 12, order));
  FUZZ_CHECK(p.mod_time_stamp == static_cast<std::int64_t>(load(bytes, 16, 8, order)));
  FUZZ_CHECK(p.entry_offset == load_i32(bytes, 24, order));
  FUZZ_CHECK(p.num_entries == load_i32(bytes, 28, order));
  const auto size = static_cast<std::int64_t>(bytes.size());
  const bool bounds_ok = p.used >= 32 && p.used <= size && p.entry_offset >= 32 &&
                         p.entry_offset <= p.used && p.entry_offset % 4 == 0 && p.overflow >= 0 &&
                         p.num_entries >= 0;
  FUZZ_CHECK(result.error.has_value() == !bounds_ok);
}

// One decoded entry, against the bytes it came from.
void check_entry(Bytes bytes, ByteOrder order, std::size_t used, const Entry& e) {
  const std::size_t at = e.offset;
  FUZZ_CHECK(at % 4 == 0);
  FUZZ_CHECK(e.entry_length >= static_cast<std::int32_t>(kEntryHeaderSize));
  const auto length = static_cast<std::size_t>(e.entry_length);
  FUZZ_CHECK(at < used && length <= used - at);  // inside `used`, hence inside the region
  FUZZ_CHECK(e.entry_length == load_i32(bytes, at, order));
  FUZZ_CHECK(e.name_offset == load_i32(bytes, at + 4, order));
  FUZZ_CHECK(e.vector_length == load_i32(bytes, at + 8, order));
  FUZZ_CHECK(static_cast<std::uint8_t>(e.data_type) == byte_at(bytes, at + 12));
  FUZZ_CHECK(e.flags == byte_at(bytes, at + 13));
  FUZZ_CHECK(static_cast<std::uint8_t>(e.units) == byte_at(bytes, at + 14));
  FUZZ_CHECK(static_cast<std::uint8_t>(e.variability) == byte_at(bytes, at + 15));
  FUZZ_CHECK(e.data_offset == load_i32(bytes, at + 16, order));
  FUZZ_CHECK(to_string(e.units) != "invalid" && to_string(e.variability) != "invalid");

  // The name: inside the entry, NUL-terminated before the data.
  FUZZ_CHECK(e.name_offset >= static_cast<std::int32_t>(kEntryHeaderSize));
  FUZZ_CHECK(e.data_offset > e.name_offset && static_cast<std::size_t>(e.data_offset) <= length);
  const auto name_offset = static_cast<std::size_t>(e.name_offset);
  const auto data_offset = static_cast<std::size_t>(e.data_offset);
  FUZZ_CHECK(!e.name.empty() && e.name.find('\0') == std::string::npos);
  FUZZ_CHECK(name_offset + e.name.size() < data_offset);
  FUZZ_CHECK(bytes_equal(bytes, at + name_offset, e.name));
  FUZZ_CHECK(!points_into(bytes, e.name));
  FUZZ_CHECK(byte_at(bytes, at + name_offset + e.name.size()) == 0);

  const std::size_t data = at + data_offset;
  if (!e.is_string()) {
    FUZZ_CHECK(e.vector_length == 0 && e.data_type == DataType::long_value);
    FUZZ_CHECK(data_offset + 8 <= length);
    FUZZ_CHECK(e.long_value == static_cast<std::int64_t>(load(bytes, data, 8, order)));
    FUZZ_CHECK(e.string_value.empty());
    return;
  }
  FUZZ_CHECK(e.vector_length > 0 && e.data_type == DataType::byte_array);
  FUZZ_CHECK(e.units == Units::string && e.variability != Variability::monotonic);
  const auto vector_length = static_cast<std::size_t>(e.vector_length);
  FUZZ_CHECK(vector_length <= length - data_offset);
  FUZZ_CHECK(e.string_value.size() <= vector_length);
  FUZZ_CHECK(e.string_value.find('\0') == std::string::npos);
  FUZZ_CHECK(bytes_equal(bytes, data, e.string_value));
  FUZZ_CHECK(!points_into(bytes, e.string_value));
  // The string stops at the first NUL of the vector, or at its end.
  FUZZ_CHECK(e.string_value.size() == vector_length ||
             byte_at(bytes, data + e.string_value.size()) == 0);
}

void check_region(Bytes bytes, const PrologueResult& prologue, const Region& r) {
  FUZZ_CHECK(r.size == bytes.size());
  FUZZ_CHECK(r.walk_end <= bytes.size());
  if (r.error) FUZZ_CHECK(r.error->offset <= bytes.size());
  FUZZ_CHECK(r.valid() == (r.prologue.has_value() && !r.error.has_value()));

  // parse_region starts with parse_prologue and stops at its error, whatever it is.
  FUZZ_CHECK(r.prologue.has_value() == prologue.prologue.has_value());
  if (prologue.error) {
    FUZZ_CHECK(r.error.has_value() && r.error->offset == prologue.error->offset &&
               r.error->reason == prologue.error->reason);
    FUZZ_CHECK(r.entries.empty() && r.walk_end == 0);
  }
  if (!r.prologue || prologue.error) return;

  const Prologue& p = *r.prologue;
  FUZZ_CHECK(p.used == prologue.prologue->used &&
             p.entry_offset == prologue.prologue->entry_offset);
  const auto used = static_cast<std::size_t>(p.used);
  const auto entry_offset = static_cast<std::size_t>(p.entry_offset);
  FUZZ_CHECK(r.walk_end >= entry_offset && r.walk_end <= used);

  // The walk is contiguous, strictly forward, from entry_offset to walk_end.
  std::size_t expected = entry_offset;
  for (const Entry& e : r.entries) {
    FUZZ_CHECK(e.offset == expected);
    check_entry(bytes, p.byte_order, used, e);
    expected = e.offset + static_cast<std::size_t>(e.entry_length);
    FUZZ_CHECK(expected > e.offset);
  }
  FUZZ_CHECK(r.walk_end == expected);

  if (r.error) {
    // A walk error names a place in the entry where the walk stopped.
    FUZZ_CHECK(r.error->offset >= r.walk_end && r.error->offset <= used);
    FUZZ_CHECK(!r.error->reason.empty());
  } else {
    // A valid walk ends exactly at `used` or at a zero entry_length.
    FUZZ_CHECK(r.walk_end == used ||
               (r.walk_end + 4 <= used && load_i32(bytes, r.walk_end, p.byte_order) == 0));
  }
  // find() returns the last entry of a name, as jvmstat's map does (a few names suffice:
  // it is a linear search).
  std::map<std::string_view, const Entry*> last;
  for (const Entry& e : r.entries) last[e.name] = &e;
  std::size_t checked = 0;
  for (const auto& [name, entry] : last) {
    if (++checked > 8) break;
    FUZZ_CHECK(r.find(name) == entry);
  }
  if (!r.entries.empty()) FUZZ_CHECK(r.find(r.entries.back().name) == &r.entries.back());
  FUZZ_CHECK(r.find("") == nullptr);
}

// The renderers: total over any parse result, and they never throw.
void check_renderers(const Region& r) {
  std::set<std::string> names;
  std::set<std::string> supported_names;
  for (const Entry& e : r.entries) {
    names.emplace(e.name);
    if (e.supported()) supported_names.emplace(e.name);
  }
  if (r.prologue) {
    for (const char* pseudo :
         {"sun.perfdata.majorVersion", "sun.perfdata.minorVersion", "sun.perfdata.overflow",
          "sun.perfdata.size", "sun.perfdata.timestamp", "sun.perfdata.used"}) {
      names.insert(pseudo);
    }
  }
  FUZZ_CHECK(snap_lines(r, true).size() == names.size());
  const auto supported_lines = snap_lines(r, false);
  FUZZ_CHECK(supported_lines.size() == supported_names.size());
  for (const std::string& line : supported_lines) FUZZ_CHECK(line.find('=') != std::string::npos);

  const nlohmann::json j = region_to_json(r);
  FUZZ_CHECK(j.at("entries").size() == r.entries.size());
  FUZZ_CHECK(j.at("error").is_null() == !r.error.has_value());
  // dump() throws on invalid UTF-8: every byte string from the input must be escaped.
  FUZZ_CHECK(!j.dump().empty());
}

NewEntry to_new_entry(const Entry& e) {
  NewEntry n;
  n.name = e.name;
  n.units = e.units;
  n.variability = e.variability;
  n.supported = e.supported();
  n.is_string = e.is_string();
  n.long_value = e.long_value;
  n.string_value = e.string_value;
  n.string_capacity = e.is_string() ? static_cast<std::size_t>(e.vector_length) : 0;
  return n;
}

RegionSpec to_spec(const Region& r, std::size_t size) {
  RegionSpec spec;
  spec.size = size;
  spec.byte_order = r.prologue->byte_order;
  spec.accessible = r.prologue->accessible;
  spec.mod_time_stamp = r.prologue->mod_time_stamp;
  for (const Entry& e : r.entries) spec.entries.push_back(to_new_entry(e));
  return spec;
}

// A valid region's counters, written again the way HotSpot lays them out, read back the
// same. Well-defined because a valid parse only yields what build_region accepts: names
// non-empty without NUL, strings without NUL, string units, never monotonic strings, and a
// capacity of at least the string. What may change: the layout (data 8-byte aligned, entries
// 8-byte aligned, so a region whose entries were packed tighter may need more room), the
// flags beyond "supported", a string vector that had no room for its NUL (one byte wider),
// the zero-length terminator, num_entries and overflow.
void check_rebuild(const Region& r) {
  if (!r.valid() || r.size > kMaxRegionSize) return;
  BuildResult built = build_region(to_spec(r, r.size));
  if (built.error) {
    // The only excuse: the HotSpot layout of these counters is larger than the region.
    // Entries grow by at most 8 bytes each, so half the largest region always has room.
    if (r.size > kMaxRegionSize / 2) return;
    built = build_region(to_spec(r, kMaxRegionSize));
    FUZZ_CHECK(!built.error);
    const Region wider = parse_region(built.bytes);
    FUZZ_CHECK(wider.valid() && static_cast<std::size_t>(wider.prologue->used) > r.size);
    return;
  }
  FUZZ_CHECK(built.bytes.size() == r.size);
  const Region back = parse_region(built.bytes);
  FUZZ_CHECK(back.valid());
  const Prologue& p = *back.prologue;
  FUZZ_CHECK(p.byte_order == r.prologue->byte_order && p.accessible == r.prologue->accessible &&
             p.mod_time_stamp == r.prologue->mod_time_stamp);
  FUZZ_CHECK(p.overflow == 0 && p.entry_offset == static_cast<std::int32_t>(kPrologueSize));
  FUZZ_CHECK(static_cast<std::size_t>(p.num_entries) == r.entries.size());
  FUZZ_CHECK(back.walk_end == static_cast<std::size_t>(p.used));
  FUZZ_CHECK(back.entries.size() == r.entries.size());
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    const Entry& a = r.entries[i];
    const Entry& b = back.entries[i];
    FUZZ_CHECK(b.offset % 8 == 0 && b.entry_length % 8 == 0);
    FUZZ_CHECK(a.name == b.name);
    FUZZ_CHECK(a.is_string() == b.is_string() && a.data_type == b.data_type);
    FUZZ_CHECK(a.units == b.units && a.variability == b.variability);
    FUZZ_CHECK(a.supported() == b.supported());
    FUZZ_CHECK(a.long_value == b.long_value && a.string_value == b.string_value);
    if (a.is_string() && a.string_value.size() < static_cast<std::size_t>(a.vector_length)) {
      FUZZ_CHECK(a.vector_length == b.vector_length);
    }
  }
  // The writer is a fixed point: what it wrote, decoded and written again, is the same bytes.
  FUZZ_CHECK(build_region(to_spec(back, r.size)).bytes == built.bytes);
}

// The keeping walk (what observation uses) is the same walk: the same checks, the same
// end, and exactly the entries of the names asked for. Asked for: names the full walk
// found, the same names one byte shorter or longer (a name is matched whole, not as a
// prefix), and one no region has.
void check_keeping(Bytes bytes, const Region& all) {
  std::vector<std::string> asked;
  for (const Entry& e : all.entries) {
    if (asked.size() >= 6) break;
    asked.emplace_back(e.name);
    if (e.name.size() > 1) asked.emplace_back(e.name.substr(0, e.name.size() - 1));
    asked.push_back(std::string(e.name) + "x");
  }
  asked.push_back("sun.rt.createVmBeginTime");
  const std::vector<std::string_view> names(asked.begin(), asked.end());
  const Region some = parse_region_keeping(bytes, names);
  FUZZ_CHECK(some.entry_count == all.entry_count && some.walk_end == all.walk_end);
  FUZZ_CHECK(some.error.has_value() == all.error.has_value());
  if (some.error)
    FUZZ_CHECK(some.error->offset == all.error->offset && some.error->reason == all.error->reason);
  const std::set<std::string_view> wanted(names.begin(), names.end());
  std::size_t k = 0;
  for (const Entry& e : all.entries) {
    if (wanted.count(e.name) == 0) continue;
    FUZZ_CHECK(k < some.entries.size());
    const Entry& kept = some.entries[k++];
    FUZZ_CHECK(kept.offset == e.offset && kept.name == e.name &&
               kept.string_value == e.string_value && kept.long_value == e.long_value &&
               kept.data_type == e.data_type);
  }
  FUZZ_CHECK(k == some.entries.size());
}

// The one rule for how much of a region is read (region_bytes_to_parse): never beyond the
// cap, `used` when the prologue of the head says more than a page is used, else one page.
void check_read_size(std::span<const std::byte> bytes) {
  const std::size_t head = std::min(bytes.size(), kRegionFirstRead);
  for (const std::size_t cap : {bytes.size(), head, std::size_t{0}, kMaxRegionSize}) {
    const std::size_t n = region_bytes_to_parse(bytes.first(head), cap);
    FUZZ_CHECK(n <= cap);
    const PrologueResult of_page = parse_prologue(bytes.first(std::min(head, kRegionHeadBytes)));
    const bool follows_used = of_page.prologue && of_page.prologue->used > 0 &&
                              static_cast<std::size_t>(of_page.prologue->used) > kRegionHeadBytes;
    FUZZ_CHECK(n == std::min(cap, follows_used ? static_cast<std::size_t>(of_page.prologue->used)
                                               : kRegionHeadBytes));
  }
}

}  // namespace
}  // namespace hsperfguard::perfdata

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsperfguard::perfdata;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  const PrologueResult prologue = parse_prologue(bytes);
  check_prologue(bytes, prologue);
  const Region region = parse_region(bytes);
  check_region(bytes, prologue, region);
  check_keeping(bytes, region);
  check_renderers(region);
  check_rebuild(region);
  check_read_size(bytes);
  return 0;
}
