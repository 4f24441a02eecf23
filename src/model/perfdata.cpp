#include "model/perfdata.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <type_traits>

namespace hsperfguard::perfdata {
namespace {

// A cursor-free reader: every access names its offset and is checked by the caller.
class Reader {
 public:
  Reader(std::span<const std::byte> bytes, ByteOrder order)
      : bytes_(bytes),
        native_((order == ByteOrder::big) == (std::endian::native == std::endian::big)) {}

  std::uint8_t u8(std::size_t offset) const { return static_cast<std::uint8_t>(bytes_[offset]); }
  std::uint32_t u32(std::size_t offset) const { return static_cast<std::uint32_t>(load(offset, 4)); }
  std::int32_t i32(std::size_t offset) const { return static_cast<std::int32_t>(u32(offset)); }
  std::int64_t i64(std::size_t offset) const { return static_cast<std::int64_t>(load(offset, 8)); }
  const char* chars(std::size_t offset) const {
    return reinterpret_cast<const char*>(bytes_.data() + offset);
  }

 private:
  std::uint64_t load(std::size_t offset, std::size_t width) const {
    if (width == 4) {
      std::uint32_t v;
      std::memcpy(&v, bytes_.data() + offset, 4);
      return native_ ? v : __builtin_bswap32(v);
    }
    std::uint64_t v;
    std::memcpy(&v, bytes_.data() + offset, 8);
    return native_ ? v : __builtin_bswap64(v);
  }

  std::span<const std::byte> bytes_;
  bool native_;  // the region's byte order is the host's: no swap
};

ParseError error_at(std::size_t offset, std::string reason) { return {offset, std::move(reason)}; }

bool valid_units(std::uint8_t u) { return u >= 1 && u <= 6; }
bool valid_variability(std::uint8_t v) { return v >= 1 && v <= 3; }

std::size_t align_up(std::size_t value, std::size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Where an entry's name lies: from its first byte up to the start of its data. The name is
// known to be non-empty and NUL-terminated within that room; its length is found only when
// it is needed (most entries of a region are checked and skipped, not kept).
struct NameRoom {
  const char* begin = nullptr;
  std::size_t room = 0;

  std::string_view name() const {
    return {begin, static_cast<std::size_t>(static_cast<const char*>(std::memchr(begin, 0, room)) -
                                            begin)};
  }
  // Whether the name is `candidate` (not empty), without measuring it first. Counter names
  // share long prefixes ("sun.gc."), so the last byte is compared before the rest.
  bool is(std::string_view candidate) const {
    const std::size_t n = candidate.size();
    return n > 0 && n < room && begin[n] == '\0' && begin[n - 1] == candidate[n - 1] &&
           std::memcmp(begin, candidate.data(), n - 1) == 0;
  }
};

// Errors are rare and their messages need strings: they are made out of line, so that the
// checks on the walk's path stay small enough to inline and need no stack of their own.
// Each returns false, for `return fail(...)`.
[[gnu::cold, gnu::noinline]] bool fail(std::optional<ParseError>& error, std::size_t at,
                                       std::string_view reason) {
  error = error_at(at, std::string(reason));
  return false;
}

// "<before><value><after>", and optionally "<value2><after2>".
[[gnu::cold, gnu::noinline]] bool fail(std::optional<ParseError>& error, std::size_t at,
                                       std::string_view before, std::int64_t value,
                                       std::string_view after,
                                       std::optional<std::int64_t> value2 = std::nullopt,
                                       std::string_view after2 = {}) {
  std::string reason(before);
  reason += std::to_string(value);
  reason += after;
  if (value2) reason += std::to_string(*value2) + std::string(after2);
  error = error_at(at, std::move(reason));
  return false;
}

[[gnu::cold, gnu::noinline]] bool fail_scalar_type(std::optional<ParseError>& error, std::size_t at,
                                                   char type) {
  const bool printable = type >= 0x20 && type < 0x7f;
  error = error_at(at, "scalar of unsupported data_type " +
                           (printable ? std::string(1, type)
                                      : std::to_string(static_cast<unsigned char>(type))));
  return false;
}

// Decodes and checks one entry whose header starts at `pos` into `e`, except its name and
// string value, which stay in the region (NameRoom, string_of): a caller that keeps only a
// few entries neither copies nor measures the others. The caller advances by entry_length.
// False, with `error` set, when the entry breaks a rule.
[[gnu::always_inline]] inline bool decode_entry(const Reader& in, std::size_t pos, Entry& e,
                                                NameRoom& name, std::optional<ParseError>& error) {
  const auto length = static_cast<std::size_t>(e.entry_length);
  if (length < kEntryHeaderSize) {
    return fail(error, pos, "entry_length ", e.entry_length,
                " is shorter than the 20-byte entry header");
  }
  e.name_offset = in.i32(pos + 4);
  e.vector_length = in.i32(pos + 8);
  const auto type = static_cast<char>(in.u8(pos + 12));
  e.flags = in.u8(pos + 13);
  const auto units = in.u8(pos + 14);
  const auto variability = in.u8(pos + 15);
  e.data_offset = in.i32(pos + 16);

  if (e.name_offset < static_cast<std::int32_t>(kEntryHeaderSize) ||
      static_cast<std::size_t>(e.name_offset) >= length) {
    return fail(error, pos + 4, "name_offset ", e.name_offset, " lies outside the entry (length ",
                static_cast<std::int64_t>(length), ")");
  }
  if (e.data_offset <= e.name_offset || static_cast<std::size_t>(e.data_offset) > length) {
    return fail(error, pos + 16, "data_offset ", e.data_offset,
                " does not follow the name inside the entry");
  }
  if (e.vector_length < 0) {
    return fail(error, pos + 8, "negative vector_length ", e.vector_length, "");
  }
  if (!valid_units(units)) return fail(error, pos + 14, "unknown data_units ", units, "");
  if (!valid_variability(variability)) {
    return fail(error, pos + 15, "unknown data_variability ", variability, "");
  }
  e.units = static_cast<Units>(units);
  e.variability = static_cast<Variability>(variability);

  // The name must end with a NUL before the data starts. HotSpot pads the name with NULs up
  // to the data's alignment, so the byte before the data settles it without a scan.
  const std::size_t name_begin = pos + static_cast<std::size_t>(e.name_offset);
  name.begin = in.chars(name_begin);
  name.room = static_cast<std::size_t>(e.data_offset - e.name_offset);
  if (name.begin[name.room - 1] != '\0' && std::memchr(name.begin, 0, name.room) == nullptr) {
    return fail(error, name_begin, "entry name is not NUL-terminated");
  }
  if (name.begin[0] == '\0') return fail(error, name_begin, "entry name is empty");

  const std::size_t data = pos + static_cast<std::size_t>(e.data_offset);
  const std::size_t data_room = length - static_cast<std::size_t>(e.data_offset);
  if (e.vector_length == 0) {
    if (type != 'J') return fail_scalar_type(error, pos + 12, type);
    if (data_room < 8) return fail(error, data, "long value does not fit in the entry");
    e.data_type = DataType::long_value;
    e.long_value = in.i64(data);
    return true;
  }
  if (type != 'B') return fail(error, pos + 12, "vector of a data_type other than 'B'");
  if (e.units != Units::string) {
    return fail(error, pos + 14, "byte vector whose units are not string");
  }
  if (e.variability == Variability::monotonic) {
    return fail(error, pos + 15, "monotonic byte vector (jvmstat rejects these)");
  }
  if (static_cast<std::size_t>(e.vector_length) > data_room) {
    return fail(error, pos + 8, "vector_length ", e.vector_length,
                " runs past the end of the entry");
  }
  e.data_type = DataType::byte_array;
  return true;
}

// A checked byte-array entry's string: its bytes up to the first NUL, or all of them.
std::string_view string_of(const Reader& in, const Entry& e) {
  const char* text = in.chars(e.offset + static_cast<std::size_t>(e.data_offset));
  const auto size = static_cast<std::size_t>(e.vector_length);
  const void* nul = std::memchr(text, 0, size);
  return {text,
          nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - text) : size};
}

}  // namespace

const Entry* Region::find(std::string_view name) const {
  // Later entries win, as in jvmstat's name map.
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  return nullptr;
}

PrologueResult parse_prologue(std::span<const std::byte> bytes) {
  PrologueResult out;
  if (bytes.size() < kPrologueSize) {
    out.error = error_at(bytes.size(), "region of " + std::to_string(bytes.size()) +
                                           " bytes is shorter than the 32-byte prologue");
    return out;
  }
  const Reader big(bytes, ByteOrder::big);
  Prologue p;
  p.magic = big.u32(0);
  if (p.magic != kMagic) {
    out.error = error_at(0, "bad magic (not CA FE C0 C0)");
    return out;
  }
  const auto order = big.u8(4);
  if (order > 1) {
    out.error = error_at(4, "unknown byte_order " + std::to_string(order));
    return out;
  }
  p.byte_order = static_cast<ByteOrder>(order);
  p.major_version = big.u8(5);
  p.minor_version = big.u8(6);
  p.accessible = big.u8(7);
  if (p.major_version != kMajorVersion || p.minor_version != kMinorVersion) {
    out.error = error_at(5, "unsupported version " + std::to_string(p.major_version) + "." +
                                std::to_string(p.minor_version) + " (expected 2.0)");
    return out;
  }
  const Reader in(bytes, p.byte_order);
  p.used = in.i32(8);
  p.overflow = in.i32(12);
  p.mod_time_stamp = in.i64(16);
  p.entry_offset = in.i32(24);
  p.num_entries = in.i32(28);
  const auto size = static_cast<std::int64_t>(bytes.size());
  if (p.used < static_cast<std::int32_t>(kPrologueSize) || p.used > size) {
    out.error = error_at(8, "used " + std::to_string(p.used) + " outside [32, " +
                                std::to_string(size) + "]");
  } else if (p.entry_offset < static_cast<std::int32_t>(kPrologueSize) || p.entry_offset > p.used) {
    out.error = error_at(24, "entry_offset " + std::to_string(p.entry_offset) +
                                 " outside [32, used=" + std::to_string(p.used) + "]");
  } else if (p.entry_offset % 4 != 0) {
    out.error = error_at(24, "entry_offset " + std::to_string(p.entry_offset) + " is not 4-byte aligned");
  } else if (p.overflow < 0) {
    out.error = error_at(12, "negative overflow " + std::to_string(p.overflow));
  } else if (p.num_entries < 0) {
    out.error = error_at(28, "negative num_entries " + std::to_string(p.num_entries));
  }
  out.prologue = p;
  return out;
}

std::size_t region_bytes_to_parse(std::span<const std::byte> head, std::size_t cap) {
  const auto pro = parse_prologue(head.first(std::min(head.size(), kRegionHeadBytes)));
  if (pro.prologue && pro.prologue->used > 0 &&
      static_cast<std::size_t>(pro.prologue->used) > kRegionHeadBytes) {
    return std::min(cap, static_cast<std::size_t>(pro.prologue->used));
  }
  return std::min(cap, kRegionHeadBytes);
}

namespace {

// The kept entries' names and strings still point into the bytes parsed: copied into one
// buffer the Region owns, and the views moved onto it. When they fill most of the stretch of
// the region they lie in, that stretch is copied in one piece; when a few are kept of many,
// each is copied alone, so a Region held per file stays small.
void own_text(Region& region) {
  std::size_t total = 0;
  const char* lo = nullptr;
  const char* hi = nullptr;
  const auto span_of = [&](std::string_view view) {
    if (view.empty()) return;
    total += view.size();
    if (lo == nullptr || view.data() < lo) lo = view.data();
    if (hi == nullptr || view.data() + view.size() > hi) hi = view.data() + view.size();
  };
  for (const Entry& e : region.entries) {
    span_of(e.name);
    span_of(e.string_value);
  }
  if (total == 0) return;
  const bool whole = static_cast<std::size_t>(hi - lo) <= 2 * total;
  auto text =
      std::make_shared_for_overwrite<char[]>(whole ? static_cast<std::size_t>(hi - lo) : total);
  char* at = text.get();
  if (whole) std::memcpy(at, lo, static_cast<std::size_t>(hi - lo));
  const auto move_onto = [&](std::string_view& view) {
    if (view.empty()) return;
    if (whole) {
      view = std::string_view(at + (view.data() - lo), view.size());
      return;
    }
    std::memcpy(at, view.data(), view.size());
    view = std::string_view(at, view.size());
    at += view.size();
  };
  for (Entry& e : region.entries) {
    move_onto(e.name);
    move_onto(e.string_value);
  }
  region.text = std::move(text);
}

// The one entry walk behind parse_region and parse_region_keeping: every entry is checked;
// `keep` decides which are materialised.
template <typename Keep>
Region walk_region(std::span<const std::byte> bytes, Keep keep) {
  Region region;
  region.size = bytes.size();
  auto pro = parse_prologue(bytes);
  if (!pro.prologue) {
    region.error = std::move(pro.error);
    return region;
  }
  region.prologue = pro.prologue;
  if (pro.error) {
    // Bounds in the prologue are wrong: keep the fields as evidence, walk nothing.
    region.error = std::move(pro.error);
    return region;
  }
  const Prologue& p = *region.prologue;
  const auto end = static_cast<std::size_t>(p.used);
  if constexpr (std::is_same_v<Keep, std::true_type>) {
    // Every entry kept: the used bytes are copied once, before the walk, and the walk reads
    // the copy, so that every name and string is a view of the Region's own text already.
    auto text = std::make_shared_for_overwrite<char[]>(end);
    std::memcpy(text.get(), bytes.data(), end);
    bytes = std::span(reinterpret_cast<const std::byte*>(text.get()), end);
    region.text = std::move(text);
  }
  const Reader in(bytes, p.byte_order);
  std::size_t pos = static_cast<std::size_t>(p.entry_offset);
  if constexpr (std::is_same_v<Keep, std::true_type>) {
    // Room for the entries num_entries announces, never more than can fit before `used`
    // (an entry takes at least 24 bytes) nor more than a real JVM publishes.
    region.entries.reserve(std::min({static_cast<std::size_t>(p.num_entries), (end - pos) / 24,
                                     std::size_t{4096}}));
  }
  Entry scratch;
  while (true) {
    region.walk_end = pos;
    if (pos == end) break;
    if (pos % 4 != 0) {
      fail(region.error, pos, "entry is not 4-byte aligned");
      break;
    }
    // pos never passes end (it starts at entry_offset <= used and moves by an entry_length
    // checked to fit), and end (used) never passes the bytes (parse_prologue checks it).
    if (end - pos < 4) {
      fail(region.error, pos, "entry header truncated by used=", static_cast<std::int64_t>(end),
           "");
      break;
    }
    const std::int32_t entry_length = in.i32(pos);
    if (entry_length == 0) break;  // the end marker
    if (entry_length < 0 || static_cast<std::size_t>(entry_length) > end - pos) {
      fail(region.error, pos, "entry_length ", entry_length,
           " runs past used=", static_cast<std::int64_t>(end));
      break;
    }
    // Every entry is decoded where a kept one is stored (the vector's spare room, or one
    // scratch entry when only a few are kept), never copied whole afterwards.
    Entry* e = &scratch;
    if constexpr (std::is_same_v<Keep, std::true_type>) {
      e = &region.entries.emplace_back();
    } else {
      scratch = Entry{};  // nothing of the previous entry carries over
    }
    e->offset = pos;
    e->entry_length = entry_length;
    NameRoom name;
    if (!decode_entry(in, pos, *e, name, region.error)) {
      if constexpr (std::is_same_v<Keep, std::true_type>) region.entries.pop_back();
      break;
    }
    pos += static_cast<std::size_t>(entry_length);
    ++region.entry_count;
    bool kept = true;
    if constexpr (!std::is_same_v<Keep, std::true_type>) kept = keep(name);
    if (kept) {
      e->name = name.name();
      if (e->is_string()) e->string_value = string_of(in, *e);
      if constexpr (!std::is_same_v<Keep, std::true_type>) region.entries.push_back(*e);
    }
  }
  if constexpr (!std::is_same_v<Keep, std::true_type>) {
    // A few entries kept of many walked: held per file for the whole audit, so no spare
    // room, and their names and strings copied each alone.
    region.entries.shrink_to_fit();
    own_text(region);
  }
  return region;
}

}  // namespace

Region parse_region(std::span<const std::byte> bytes) {
  return walk_region(bytes, std::true_type{});
}

Region parse_region_keeping(std::span<const std::byte> bytes,
                            std::span<const std::string_view> names) {
  return walk_region(bytes, [names](const NameRoom& name) {
    return std::any_of(names.begin(), names.end(), [&](std::string_view n) { return name.is(n); });
  });
}

std::string_view to_string(Units units) {
  switch (units) {
    case Units::none: return "none";
    case Units::bytes: return "bytes";
    case Units::ticks: return "ticks";
    case Units::events: return "events";
    case Units::string: return "string";
    case Units::hertz: return "hertz";
  }
  return "invalid";
}

std::string_view to_string(Variability variability) {
  switch (variability) {
    case Variability::constant: return "constant";
    case Variability::monotonic: return "monotonic";
    case Variability::variable: return "variable";
  }
  return "invalid";
}

std::string_view to_string(ByteOrder order) { return order == ByteOrder::big ? "big" : "little"; }

ByteOrder host_byte_order() {
  return std::endian::native == std::endian::big ? ByteOrder::big : ByteOrder::little;
}

// ---- Writing ---------------------------------------------------------------------------
namespace {

class Writer {
 public:
  Writer(std::vector<std::byte>& out, ByteOrder order) : out_(out), order_(order) {}
  void u8(std::size_t at, std::uint8_t v) { out_[at] = static_cast<std::byte>(v); }
  void i32(std::size_t at, std::int32_t v) { store(at, static_cast<std::uint32_t>(v), 4); }
  void i64(std::size_t at, std::int64_t v) { store(at, static_cast<std::uint64_t>(v), 8); }
  void bytes(std::size_t at, std::string_view s) {
    std::memcpy(out_.data() + at, s.data(), s.size());
  }

 private:
  void store(std::size_t at, std::uint64_t v, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t index = order_ == ByteOrder::big ? width - 1 - i : i;
      out_[at + index] = static_cast<std::byte>(v & 0xff);
      v >>= 8;
    }
  }
  std::vector<std::byte>& out_;
  ByteOrder order_;
};

}  // namespace

BuildResult build_region(const RegionSpec& spec) {
  BuildResult result;
  if (spec.size < kPrologueSize || spec.size > kMaxRegionSize) {
    result.error = error_at(0, "region size " + std::to_string(spec.size) + " outside [32, 2 MiB]");
    return result;
  }
  result.bytes.assign(spec.size, std::byte{0});
  Writer out(result.bytes, spec.byte_order);
  std::size_t pos = kPrologueSize;
  for (const NewEntry& e : spec.entries) {
    if (e.name.empty() || e.name.find('\0') != std::string::npos) {
      result.error = error_at(pos, "entry name is empty or contains NUL");
      return result;
    }
    if (e.is_string && e.string_value.find('\0') != std::string::npos) {
      result.error = error_at(pos, "string value of " + e.name + " contains NUL");
      return result;
    }
    // Bound the inputs before any arithmetic on them, so no sum below can wrap.
    if (e.name.size() > spec.size || e.string_value.size() > spec.size ||
        e.string_capacity > spec.size) {
      result.error = error_at(pos, "entry " + e.name + " does not fit in a region of " +
                                       std::to_string(spec.size) + " bytes");
      return result;
    }
    const std::size_t element = e.is_string ? 1 : 8;
    const std::size_t vector_length =
        e.is_string ? std::max(e.string_capacity, e.string_value.size() + 1) : 0;
    const std::size_t data_offset = align_up(kEntryHeaderSize + e.name.size() + 1, element);
    const std::size_t data_size = e.is_string ? vector_length : 8;
    const std::size_t entry_length = align_up(data_offset + data_size, 8);
    if (entry_length > spec.size - pos || entry_length > INT32_MAX) {
      result.error = error_at(pos, "entry " + e.name + " does not fit in a region of " +
                                       std::to_string(spec.size) + " bytes");
      return result;
    }
    out.i32(pos, static_cast<std::int32_t>(entry_length));
    out.i32(pos + 4, static_cast<std::int32_t>(kEntryHeaderSize));
    out.i32(pos + 8, static_cast<std::int32_t>(vector_length));
    out.u8(pos + 12, static_cast<std::uint8_t>(e.is_string ? 'B' : 'J'));
    out.u8(pos + 13, e.supported ? kFlagSupported : 0);
    out.u8(pos + 14, static_cast<std::uint8_t>(e.is_string ? Units::string : e.units));
    out.u8(pos + 15, static_cast<std::uint8_t>(e.variability));
    out.i32(pos + 16, static_cast<std::int32_t>(data_offset));
    out.bytes(pos + kEntryHeaderSize, e.name);
    if (e.is_string) {
      out.bytes(pos + data_offset, e.string_value);
    } else {
      out.i64(pos + data_offset, e.long_value);
    }
    pos += entry_length;
  }
  // Prologue last, as a JVM makes the region accessible only once it is consistent.
  out.u8(0, 0xca);
  out.u8(1, 0xfe);
  out.u8(2, 0xc0);
  out.u8(3, 0xc0);
  out.u8(4, static_cast<std::uint8_t>(spec.byte_order));
  out.u8(5, kMajorVersion);
  out.u8(6, kMinorVersion);
  out.u8(7, spec.accessible);
  out.i32(8, static_cast<std::int32_t>(pos));
  out.i32(12, 0);
  out.i64(16, spec.mod_time_stamp);
  out.i32(24, static_cast<std::int32_t>(kPrologueSize));
  out.i32(28, static_cast<std::int32_t>(spec.entries.size()));
  return result;
}

std::optional<std::size_t> round_up_to_page(std::size_t bytes, std::size_t page_size) {
  if (page_size == 0) return std::nullopt;
  const std::size_t remainder = bytes % page_size;
  if (remainder == 0) return bytes;
  if (bytes > SIZE_MAX - (page_size - remainder)) return std::nullopt;
  return bytes + (page_size - remainder);
}

std::vector<NewEntry> standard_entries(const StandardCounters& counters) {
  auto scalar = [](std::string name, Units units, std::int64_t value) {
    NewEntry e;
    e.name = std::move(name);
    e.units = units;
    e.variability = Variability::constant;
    e.long_value = value;
    return e;
  };
  std::vector<NewEntry> entries;
  entries.push_back(scalar("sun.os.hrt.frequency", Units::hertz, counters.hrt_frequency));
  entries.push_back(scalar("sun.rt.createVmBeginTime", Units::none, counters.create_vm_begin_time_ms));
  entries.push_back(scalar("sun.rt.createVmEndTime", Units::none, counters.create_vm_begin_time_ms));
  if (counters.java_command) {
    NewEntry command;
    command.name = "sun.rt.javaCommand";
    command.is_string = true;
    command.units = Units::string;
    command.variability = Variability::constant;
    command.string_value = *counters.java_command;
    entries.push_back(std::move(command));
  }
  return entries;
}

}  // namespace hsperfguard::perfdata
