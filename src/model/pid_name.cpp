#include "model/pid_name.hpp"

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "model/digits.hpp"

namespace hsperfguard {
namespace {

// The C string the JVM would see for this directory entry.
std::string_view up_to_nul(std::string_view name) {
  auto nul = name.find('\0');
  return nul == std::string_view::npos ? name : name.substr(0, nul);
}

}  // namespace

std::int32_t hotspot_filename_to_pid(std::string_view raw) {
  const std::string name(up_to_nul(raw));
  // isdigit() in the C locale is exactly '0'..'9'; an empty name has a NUL first.
  if (name.empty() || !is_digit(name.front())) return 0;
  char* remainder = nullptr;
  errno = 0;
  const long value = std::strtol(name.c_str(), &remainder, 10);
  if (errno != 0) return 0;
  if (remainder != nullptr && *remainder != '\0') return 0;
  // The JVM narrows the long to pid_t; reproduce the wrap-around on purpose.
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<unsigned long>(value)));
}

PidName classify_pid_name(std::string_view raw, std::int64_t max_pid) {
  PidName out;
  out.hotspot_pid = hotspot_filename_to_pid(raw);
  if (raw.empty() || raw.find('\0') != std::string_view::npos) return out;
  for (char c : raw) {
    if (!is_digit(c)) return out;  // not_a_pid
  }
  // All digits from here on. Compare by magnitude without overflowing.
  std::string_view digits = raw;
  const bool leading_zero = digits.size() > 1 && digits.front() == '0';
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  const std::int64_t limit = std::min<std::int64_t>(max_pid, INT32_MAX);
  // At most 10 digits can be within the int32 range; more are out of it whatever they say.
  const auto parsed = digits.size() <= 10 ? parse_number<std::int64_t>(digits) : std::nullopt;
  const std::int64_t value = parsed.value_or(0);
  if (!parsed || value > limit) {
    out.kind = PidNameKind::out_of_range;
    return out;
  }
  if (value == 0) {
    out.kind = PidNameKind::out_of_range;
    return out;
  }
  out.pid = static_cast<std::int32_t>(value);
  out.kind = leading_zero ? PidNameKind::noncanonical : PidNameKind::canonical;
  return out;
}

std::string_view to_string(PidNameKind kind) {
  switch (kind) {
    case PidNameKind::canonical: return "canonical";
    case PidNameKind::noncanonical: return "noncanonical";
    case PidNameKind::out_of_range: return "out-of-range";
    case PidNameKind::not_a_pid: return "not-a-pid";
  }
  return "not-a-pid";
}

std::string pid_to_filename(std::int32_t pid) { return std::to_string(pid); }

std::string lock_file_content(std::int32_t holder) {
  return std::to_string(holder) + "\n" + std::string(kLockFileMarker) + "\n";
}

std::optional<std::int32_t> parse_lock_holder(std::string_view content) {
  const auto newline = content.find('\n');
  if (newline == std::string_view::npos) return std::nullopt;
  const std::string_view pid = content.substr(0, newline);
  const std::string_view rest = content.substr(newline + 1);
  if (rest.size() != kLockFileMarker.size() + 1 || !rest.starts_with(kLockFileMarker) || !rest.ends_with('\n')) {
    return std::nullopt;
  }
  if (pid.empty() || pid.size() > 10 || pid.starts_with('0')) return std::nullopt;
  const auto value = parse_number<std::int64_t>(pid);
  if (!value || *value > INT32_MAX) return std::nullopt;
  return static_cast<std::int32_t>(*value);
}

bool is_lock_file_content(std::string_view content) { return parse_lock_holder(content).has_value(); }

}  // namespace hsperfguard
