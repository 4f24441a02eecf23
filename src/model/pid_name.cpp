#include "model/pid_name.hpp"

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace hsperfguard {
namespace {

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// The C string the JVM would see for this directory entry.
std::string_view up_to_nul(std::string_view name) {
  auto nul = name.find('\0');
  return nul == std::string_view::npos ? name : name.substr(0, nul);
}

}  // namespace

std::int32_t hotspot_filename_to_pid(std::string_view raw) {
  const std::string name(up_to_nul(raw));
  // isdigit() in the C locale is exactly '0'..'9'; an empty name has a NUL first.
  if (name.empty() || !is_ascii_digit(name.front())) return 0;
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
    if (!is_ascii_digit(c)) return out;  // not_a_pid
  }
  // All digits from here on. Compare by magnitude without overflowing.
  std::string_view digits = raw;
  const bool leading_zero = digits.size() > 1 && digits.front() == '0';
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  const std::int64_t limit = std::min<std::int64_t>(max_pid, INT32_MAX);
  std::int64_t value = 0;
  for (char c : digits) {
    value = value * 10 + (c - '0');
    if (value > limit) {
      out.kind = PidNameKind::out_of_range;
      return out;
    }
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

std::optional<std::int32_t> parse_lock_holder(std::string_view content) {
  if (content.ends_with('\n')) content.remove_suffix(1);
  if (content.empty() || content.size() > 10 || content.front() == '0') return std::nullopt;
  std::int64_t pid = 0;
  for (const char c : content) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + (c - '0');
  }
  if (pid > INT32_MAX) return std::nullopt;
  return static_cast<std::int32_t>(pid);
}

bool is_lock_file_content(std::string_view content) {
  return content.empty() || parse_lock_holder(content).has_value();
}

}  // namespace hsperfguard
