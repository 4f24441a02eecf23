// libFuzzer target: a directory entry's name, as the JVM and the audit read it.
//
// hotspot_filename_to_pid is checked against a restatement of HotSpot's rule that does not
// use strtol; classify_pid_name must agree with it, with pid_to_filename, and with itself
// for every pid_max a kernel can have.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "model/pid_name.hpp"

namespace hsperfguard {
namespace {

bool all_ascii_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// HotSpot's filename_to_pid without strtol: the C string up to the first NUL; its first
// character a digit, so strtol reads digits only and must read all of them; the value fits
// a long (else ERANGE); then it is narrowed to 32 bits.
std::int32_t reference_hotspot_pid(std::string_view raw) {
  const std::string_view name = raw.substr(0, raw.find('\0'));
  if (name.empty() || !all_ascii_digits(name)) return 0;
  constexpr auto kLongMax = static_cast<std::uint64_t>(std::numeric_limits<long>::max());
  std::uint64_t value = 0;
  for (char c : name) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kLongMax - digit) / 10) return 0;
    value = value * 10 + digit;
  }
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
}

// Decimal magnitude comparison of a digit string (no leading zeros) against a number.
bool digits_greater_than(std::string_view digits, std::int64_t limit) {
  const std::string bound = std::to_string(limit);
  return digits.size() != bound.size() ? digits.size() > bound.size() : digits > bound;
}

// Checks one classification; returns the pid it found, if any.
std::optional<std::int32_t> check_classification(std::string_view name, std::int64_t max_pid,
                                                 std::int32_t hotspot_pid) {
  const PidName c = classify_pid_name(name, max_pid);
  FUZZ_CHECK(c.hotspot_pid == hotspot_pid);
  FUZZ_CHECK(!to_string(c.kind).empty());
  const bool is_digit_string =
      !name.empty() && name.find('\0') == std::string_view::npos && all_ascii_digits(name);
  const std::int64_t limit =
      std::min<std::int64_t>(max_pid, std::numeric_limits<std::int32_t>::max());
  const std::size_t first_nonzero = name.find_first_not_of('0');
  const std::string_view significant =
      first_nonzero == std::string_view::npos ? std::string_view{} : name.substr(first_nonzero);

  switch (c.kind) {
    case PidNameKind::canonical:
    case PidNameKind::noncanonical: {
      FUZZ_CHECK(is_digit_string);
      FUZZ_CHECK(c.pid.has_value());
      FUZZ_CHECK(*c.pid >= 1 && *c.pid <= limit);
      // The JVM would attach to the very same process.
      FUZZ_CHECK(c.hotspot_pid == *c.pid);
      const std::string written = pid_to_filename(*c.pid);
      FUZZ_CHECK(written == significant);
      if (c.kind == PidNameKind::canonical) {
        FUZZ_CHECK(written == name);
      } else {
        FUZZ_CHECK(name.size() > written.size() && name.front() == '0');
      }
      // What a JVM writes for this pid reads back as the same pid, canonical.
      FUZZ_CHECK(hotspot_filename_to_pid(written) == *c.pid);
      const PidName again = classify_pid_name(written, max_pid);
      FUZZ_CHECK(again.kind == PidNameKind::canonical && again.pid == c.pid);
      break;
    }
    case PidNameKind::out_of_range:
      FUZZ_CHECK(is_digit_string);
      FUZZ_CHECK(!c.pid.has_value());
      FUZZ_CHECK(significant.empty() || digits_greater_than(significant, limit));
      break;
    case PidNameKind::not_a_pid:
      FUZZ_CHECK(!is_digit_string);
      FUZZ_CHECK(!c.pid.has_value());
      break;
  }
  return c.pid;
}

}  // namespace
}  // namespace hsperfguard

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsperfguard;
  const std::string_view name(reinterpret_cast<const char*>(data), size);

  const std::int32_t hotspot_pid = hotspot_filename_to_pid(name);
  FUZZ_CHECK(hotspot_pid == reference_hotspot_pid(name));

  // Ascending pid_max: 1, the old Linux default, the current default, the 32-bit limits,
  // and a caller's value beyond what a pid can hold. A pid found under one limit is found,
  // unchanged, under every larger one.
  constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  constexpr std::array<std::int64_t, 7> kMaxPids = {
      1, 32767, kDefaultMaxPid, 4194304, kInt32Max - 1, kInt32Max, kInt64Max};
  std::optional<std::int32_t> found;
  for (const std::int64_t max_pid : kMaxPids) {
    const auto pid = check_classification(name, max_pid, hotspot_pid);
    if (found) FUZZ_CHECK(pid == found);
    found = pid;
  }
  FUZZ_CHECK(classify_pid_name(name).kind == classify_pid_name(name, kDefaultMaxPid).kind);
  return 0;
}
