// File names in an hsperfdata namespace: which ones name a process.
//
// HotSpot's own test (`filename_to_pid`) is reproduced exactly, truncation included,
// because the reaper must predict what a JVM would do to the same directory. The audit
// uses the stricter `classify_pid_name`, which tells apart the names a JVM writes from
// the ones it merely tolerates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hsperfguard {

// HotSpot semantics: the first character must be an ASCII digit, base-10 strtol must
// consume the whole name with errno 0, and the long is then narrowed to a 32-bit pid
// (so on LP64 "4294967297" yields 1, as it does in the JVM). 0 means "not a pid".
// An embedded NUL ends the name, as it would for the C string the JVM sees.
std::int32_t hotspot_filename_to_pid(std::string_view name);

enum class PidNameKind {
  canonical,      // decimal, no sign, no leading zero, 1..max_pid: what a JVM writes
  noncanonical,   // accepted by HotSpot, never written by it (leading zeros: "007")
  out_of_range,   // all digits, but 0, above max_pid or above INT32_MAX
  not_a_pid,      // anything else ("+12", " 12", "12x", "", "-1", "1.0")
};

struct PidName {
  PidNameKind kind = PidNameKind::not_a_pid;
  // The pid the name denotes when kind is canonical or noncanonical.
  std::optional<std::int32_t> pid;
  // What HotSpot's filename_to_pid returns for the same name (0: not a pid).
  std::int32_t hotspot_pid = 0;
};

// `max_pid` is the largest pid the kernel hands out (Linux: /proc/sys/kernel/pid_max - 1;
// the default 4194304 is used when the caller does not know).
inline constexpr std::int64_t kDefaultMaxPid = 4194304 - 1;
PidName classify_pid_name(std::string_view name, std::int64_t max_pid = kDefaultMaxPid);

std::string_view to_string(PidNameKind kind);

// The name HotSpot gives a backing file: decimal, no padding.
std::string pid_to_filename(std::int32_t pid);

// The reaper's single-instance lock file: its holder's pid (decimal, no sign, 1 to INT32_MAX)
// on the first line, as a pid file has it, then the marker line that says the file is ours:
// "12345\nhsperfguard reap lock\n". The file is made with this content and rewritten whole.
inline constexpr std::string_view kLockFileMarker = "hsperfguard reap lock";
std::string lock_file_content(std::int32_t holder);
// The holder's pid of a lock file of ours, or nullopt for anything else: an empty file, a bare
// pid (what versions before the marker wrote), any other file the path may name.
std::optional<std::int32_t> parse_lock_holder(std::string_view content);
// Whether `content` is exactly a lock file of ours (lock_file_content of some pid). Anything
// else means the path names some other file, which the reaper must never write.
bool is_lock_file_content(std::string_view content);

}  // namespace hsperfguard
