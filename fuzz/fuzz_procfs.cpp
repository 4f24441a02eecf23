// libFuzzer target: the text of /proc and /etc/passwd, as a container's or another user's
// processes can shape it (command names, cgroup and mount paths, user names).
//
// The first byte chooses the parser, the rest is its text. Beyond "no crash, leak, UB":
// every view a parser returns lies inside the text it was given; counts add up; a maps
// summary's files are distinct, sorted and never anonymous; NSpid lists are never empty
// when a tgid was read from them alone; the lock-file holder parser accepts exactly what
// lock_file_content writes: a canonical decimal pid 1..INT32_MAX, then the marker line; every
// attach listener kept from net/unix is in the text and named after its pid as HotSpot names it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "model/digits.hpp"
#include "model/passwd.hpp"
#include "model/pid_name.hpp"
#include "model/procfs_parse.hpp"

namespace hsperfguard {
namespace {

bool inside(std::string_view view, std::string_view text) {
  if (view.empty()) return true;
  const auto* begin = text.data();
  const auto* end = text.data() + text.size();
  return view.data() >= begin && view.data() + view.size() <= end;
}

void check_locks(std::string_view text) {
  const procfs::LocksParse p = procfs::parse_locks(text);
  for (const auto& lock : p.held) {
    FUZZ_CHECK(inside(lock.kind, text));
    FUZZ_CHECK(inside(lock.access, text));
    FUZZ_CHECK(!lock.pid || *lock.pid > 0);
  }
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  FUZZ_CHECK(p.held.size() + p.waiters + p.malformed <= lines);
}

void check_maps(std::string_view text) {
  const procfs::MapsSummary m = procfs::parse_maps(text);
  FUZZ_CHECK(std::is_sorted(m.files.begin(), m.files.end()));
  FUZZ_CHECK(std::adjacent_find(m.files.begin(), m.files.end()) == m.files.end());
  for (const auto& f : m.files) FUZZ_CHECK(f.ino != 0);
  FUZZ_CHECK(m.malformed <= m.lines);
  if (m.backing) {
    FUZZ_CHECK(m.hsperfdata);
    FUZZ_CHECK(text.find(m.backing->range) != std::string_view::npos);
    FUZZ_CHECK(text.find(m.backing->path) != std::string_view::npos);
    FUZZ_CHECK(procfs::match_file(m.files, m.backing->file) != procfs::Match::none ||
               m.backing->file.ino == 0);
  }
  FUZZ_CHECK(!m.truncated && m.long_lines == 0);
  FUZZ_CHECK(m.files_complete() == (m.malformed == 0));
  // Fed in three pieces, cut anywhere, the text says the same; with a short line buffer,
  // only what long lines' paths would say may be missing.
  const std::size_t a = text.size() / 3, b = text.size() - text.size() / 5;
  for (const std::size_t max_line : {std::max(procfs::kMaxMapsLine, text.size()), std::size_t{256}}) {
    procfs::MapsParser parser(max_line);
    parser.feed(text.substr(0, a));
    parser.feed(text.substr(a, b - a));
    parser.feed(text.substr(b));
    const procfs::MapsSummary fed = parser.finish();
    FUZZ_CHECK(fed.lines == m.lines);
    FUZZ_CHECK(fed.long_lines <= fed.lines);
    if (fed.long_lines == 0) {
      FUZZ_CHECK(fed.files == m.files && fed.malformed == m.malformed);
      FUZZ_CHECK(fed.libjvm == m.libjvm && fed.hsperfdata == m.hsperfdata);
    } else {
      // A long line's file is kept, or the line is malformed and the files not complete.
      FUZZ_CHECK(!fed.paths_complete());
      FUZZ_CHECK(std::includes(m.files.begin(), m.files.end(), fed.files.begin(), fed.files.end()));
      FUZZ_CHECK(fed.files == m.files || !fed.files_complete());
      FUZZ_CHECK(!fed.libjvm || m.libjvm);
      FUZZ_CHECK(!fed.hsperfdata || m.hsperfdata);
    }
    // Stopped before the end, the last line (without its newline) is not parsed.
    procfs::MapsParser cut(max_line);
    cut.feed(text);
    const procfs::MapsSummary partial = cut.finish(true);
    FUZZ_CHECK(partial.truncated && !partial.files_complete() && partial.lines <= m.lines);
  }
}

void check_unix_listeners(std::string_view text) {
  const procfs::UnixListeners u = procfs::parse_unix_listeners(text);
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  FUZZ_CHECK(u.lines <= lines && u.malformed <= u.lines && u.listeners.size() <= u.lines);
  FUZZ_CHECK(!u.truncated && u.long_lines == 0);
  for (const auto& l : u.listeners) {
    // Every listener's path is in the text and names its pid the way HotSpot does.
    FUZZ_CHECK(text.find(l.path) != std::string_view::npos);
    FUZZ_CHECK(l.pid > 0 && procfs::attach_listener_pid(l.path) == l.pid);
    FUZZ_CHECK(!l.path.empty() && l.path.front() != '@');
  }
  // Fed in three pieces, cut anywhere, the text says the same; with a short line buffer, a
  // long line is skipped and counted, never cut into a listener.
  const std::size_t a = text.size() / 3, b = text.size() - text.size() / 5;
  for (const std::size_t max_line : {std::max(procfs::kMaxUnixLine, text.size()), std::size_t{128}}) {
    procfs::UnixListenersParser parser(max_line);
    parser.feed(text.substr(0, a));
    parser.feed(text.substr(a, b - a));
    parser.feed(text.substr(b));
    const procfs::UnixListeners fed = parser.finish();
    FUZZ_CHECK(fed.lines == u.lines);
    if (fed.long_lines == 0) {
      FUZZ_CHECK(fed.listeners == u.listeners && fed.malformed == u.malformed);
    } else {
      for (const auto& l : fed.listeners) {
        FUZZ_CHECK(std::find(u.listeners.begin(), u.listeners.end(), l) != u.listeners.end());
      }
    }
  }
}

void check_status(std::string_view text) {
  const procfs::StatusFields s = procfs::parse_status(text);
  for (const auto pid : s.ns_pids) FUZZ_CHECK(pid > 0);
}

void check_stat(std::string_view text) {
  const auto stat = procfs::parse_stat(text);
  const auto btime = procfs::parse_btime(text);
  const std::uint64_t ticks = stat ? stat->start_ticks : 0;
  const std::int64_t boot = btime.value_or(0);
  // Whatever the values: no overflow, nothing for a rate that is not positive, and a start
  // never before the boot.
  FUZZ_CHECK(!procfs::start_time_ms(boot, ticks, 0));
  FUZZ_CHECK(!procfs::start_time_ms(boot, ticks, -1));
  for (const std::int64_t hz :
       {std::int64_t{1}, std::int64_t{100}, std::numeric_limits<std::int64_t>::max()}) {
    if (const auto ms = procfs::start_time_ms(boot, ticks, hz)) FUZZ_CHECK(*ms / 1000 >= boot);
  }
}

void check_cgroup_and_mounts(std::string_view text, std::uint64_t id) {
  if (const auto path = procfs::parse_cgroup(text))
    FUZZ_CHECK(path->empty() || inside(*path, text) || *path == "/");
  if (const auto mount = procfs::find_mount(text, id)) {
    FUZZ_CHECK(mount->mount_id == id);
    FUZZ_CHECK(inside(mount->fs_type, text));
  }
}

void check_passwd(std::string_view text) {
  const passwd::Database db = passwd::parse(text);
  FUZZ_CHECK(db.by_name.size() == db.entries.size() && db.by_uid.size() == db.entries.size());
  for (const auto& e : db.entries) {
    FUZZ_CHECK(!e.name.empty() && e.name.find('\0') == std::string::npos);
    FUZZ_CHECK(e.uid != 0xffffffffU && e.gid != 0xffffffffU);
    const passwd::Entry* by_name = db.find_name(e.name);
    const passwd::Entry* by_uid = db.find_uid(e.uid);
    FUZZ_CHECK(by_name != nullptr && by_name->name == e.name && by_name <= &e);
    FUZZ_CHECK(by_uid != nullptr && by_uid->uid == e.uid && by_uid <= &e);
  }
}

void check_lock_holder(std::string_view text) {
  const auto pid = parse_lock_holder(text);
  // Ours: a canonical pid, a newline, the marker, a newline; nothing more, nothing less.
  const auto newline = text.find('\n');
  const std::string_view digits = text.substr(0, newline);
  const auto value = digits.size() <= 10 ? parse_number<std::int64_t>(digits) : std::nullopt;
  const bool canonical = value && *value >= 1 &&
                         *value <= std::numeric_limits<std::int32_t>::max() &&
                         std::to_string(*value) == digits;
  const bool ours = canonical && newline != std::string_view::npos &&
                    text.substr(newline + 1) == std::string(kLockFileMarker) + "\n";
  FUZZ_CHECK(pid.has_value() == ours);
  if (pid) {
    FUZZ_CHECK(*pid == *value);
    FUZZ_CHECK(lock_file_content(*pid) == text);
  }
  FUZZ_CHECK(is_lock_file_content(text) == ours);
}

}  // namespace
}  // namespace hsperfguard

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsperfguard;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 8) {
    case 0:
      check_locks(text);
      break;
    case 1:
      check_maps(text);
      break;
    case 2:
      check_status(text);
      break;
    case 3:
      check_stat(text);
      break;
    case 4:
      check_cgroup_and_mounts(text, size > 1 ? data[1] : 0);
      break;
    case 5:
      check_passwd(text);
      break;
    case 6:
      check_lock_holder(text);
      break;
    case 7:
      check_unix_listeners(text);
      break;
  }
  return 0;
}
