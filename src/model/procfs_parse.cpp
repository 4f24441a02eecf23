#include "model/procfs_parse.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "model/digits.hpp"

namespace hsperfguard::procfs {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view skip_spaces(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

// Splits off the next blank-separated token; `rest` keeps what follows it.
std::string_view next_token(std::string_view& rest) {
  rest = skip_spaces(rest);
  std::size_t i = 0;
  while (i < rest.size() && !is_space(rest[i])) ++i;
  const std::string_view token = rest.substr(0, i);
  rest.remove_prefix(i);
  return token;
}

// Parses all of `s` as an unsigned number in `base` (10 or 16), with overflow checks.
std::optional<std::uint64_t> parse_unsigned(std::string_view s, unsigned base) {
  if (s.size() > 20) return std::nullopt;
  return parse_number<std::uint64_t>(s, static_cast<int>(base));
}

std::optional<std::int64_t> parse_signed(std::string_view s) {
  bool negative = false;
  if (!s.empty() && s.front() == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  const auto magnitude = parse_unsigned(s, 10);
  if (!magnitude ||
      *magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  const auto value = static_cast<std::int64_t>(*magnitude);
  return negative ? -value : value;
}

std::optional<std::int32_t> parse_pid(std::string_view s) {
  const auto v = parse_signed(s);
  if (!v || *v < std::numeric_limits<std::int32_t>::min() ||
      *v > std::numeric_limits<std::int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<std::int32_t>(*v);
}

std::optional<std::uint32_t> parse_u32(std::string_view s, unsigned base) {
  const auto v = parse_unsigned(s, base);
  if (!v || *v > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

// "MAJ:MIN" in hex, as both /proc/locks and maps print a device.
bool parse_device(std::string_view s, FileId& out) {
  const auto colon = s.find(':');
  if (colon == std::string_view::npos) return false;
  const auto major = parse_u32(s.substr(0, colon), 16);
  const auto minor = parse_u32(s.substr(colon + 1), 16);
  if (!major || !minor) return false;
  out.major = *major;
  out.minor = *minor;
  return true;
}

// Iterates over the lines of `text` (the last one may lack its newline).
template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const void* nl = std::memchr(text.data(), '\n', text.size());
    const std::size_t len =
        nl == nullptr ? text.size()
                      : static_cast<std::size_t>(static_cast<const char*>(nl) - text.data());
    fn(text.substr(0, len));
    text.remove_prefix(nl == nullptr ? len : len + 1);
  }
}

bool parse_lock_line(std::string_view line, LocksParse& out) {
  std::string_view rest = line;
  const std::string_view id = next_token(rest);
  if (id.size() < 2 || id.back() != ':') return false;
  std::string_view kind = next_token(rest);
  if (kind == "->") {
    ++out.waiters;  // blocked on the lock above it: wants the file, does not hold it
    return true;
  }
  const std::string_view mode = next_token(rest);  // ADVISORY, MANDATORY, ACTIVE, BREAKING, ...
  const std::string_view access = next_token(rest);
  const std::string_view pid_text = next_token(rest);
  const std::string_view file_text = next_token(rest);
  if (kind.empty() || mode.empty() || access.empty() || file_text.empty()) return false;
  const auto pid = parse_pid(pid_text);
  if (!pid) return false;
  // MAJ:MIN:INO; "<none>:0" for a lock without an inode (never a file of ours).
  const auto last_colon = file_text.rfind(':');
  if (last_colon == std::string_view::npos) return false;
  HeldLock lock;
  if (!parse_device(file_text.substr(0, last_colon), lock.file)) {
    return file_text.starts_with("<none>");
  }
  const auto ino = parse_unsigned(file_text.substr(last_colon + 1), 10);
  if (!ino) return false;
  lock.file.ino = *ino;
  lock.kind = kind;
  lock.access = access;
  if (*pid > 0) lock.pid = *pid;
  out.held.push_back(lock);
  return true;
}

// <anything>/hsperfdata_<user>/<name>, the name without a slash.
bool is_backing_file_path(std::string_view path) {
  constexpr std::string_view kPrefix = "hsperfdata_";
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == path.size()) return false;
  const std::string_view dir = path.substr(0, slash);
  const auto dir_start = dir.rfind('/');
  const std::string_view dir_name = dir_start == std::string_view::npos ? dir : dir.substr(dir_start + 1);
  return dir_name.size() > kPrefix.size() && dir_name.starts_with(kPrefix);
}

// Splits `chunk` into lines for `parse(line, long_line)`, carrying a line cut by the chunk's
// end in `line` (at most `max_line` bytes; `long_line` once it was longer). A whole line
// within the chunk is parsed where it lies, without a copy.
template <typename Parse>
void feed_lines(std::string_view chunk, std::string& line, bool& long_line, std::size_t max_line,
                Parse&& parse) {
  while (!chunk.empty()) {
    const void* nl = std::memchr(chunk.data(), '\n', chunk.size());
    const std::size_t len =
        nl == nullptr ? chunk.size()
                      : static_cast<std::size_t>(static_cast<const char*>(nl) - chunk.data());
    if (!long_line) {
      const std::size_t room = max_line - line.size();
      if (nl != nullptr && line.empty() && len <= room) {
        parse(chunk.substr(0, len), false);
      } else {
        line.append(chunk.data(), std::min(len, room));
        long_line = len > room;
      }
    }
    if (nl == nullptr) return;  // the line goes on in the next chunk
    if (!line.empty() || long_line) {
      parse(std::string_view(line), long_line);
      line.clear();
      long_line = false;
    }
    chunk.remove_prefix(len + 1);
  }
}

}  // namespace

LocksParse parse_locks(std::string_view text) {
  LocksParse out;
  for_each_line(text, [&](std::string_view line) {
    if (skip_spaces(line).empty()) return;
    if (!parse_lock_line(line, out)) ++out.malformed;
  });
  return out;
}

std::optional<StatFields> parse_stat(std::string_view text) {
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(close + 1);
  StatFields out;
  // Field 3 (state) is the first token after the name; field 22 is the twentieth.
  const std::string_view state = next_token(rest);
  if (state.size() != 1) return std::nullopt;
  out.state = state.front();
  for (int field = 4; field < 22; ++field) {
    if (next_token(rest).empty()) return std::nullopt;
  }
  const auto ticks = parse_unsigned(next_token(rest), 10);
  if (!ticks) return std::nullopt;
  out.start_ticks = *ticks;
  return out;
}

std::optional<std::int64_t> parse_btime(std::string_view proc_stat) {
  std::optional<std::int64_t> out;
  for_each_line(proc_stat, [&](std::string_view line) {
    if (out || !line.starts_with("btime")) return;
    std::string_view rest = line.substr(5);
    if (rest.empty() || !is_space(rest.front())) return;
    const auto v = parse_signed(next_token(rest));
    if (v && *v > 0) out = *v;
  });
  return out;
}

std::optional<std::int64_t> start_time_ms(std::int64_t btime_sec, std::uint64_t start_ticks,
                                          std::int64_t clk_tck) {
  constexpr std::int64_t kMaxSeconds = std::int64_t{1} << 40;  // far beyond any clock
  if (clk_tck <= 0 || btime_sec < 0 || btime_sec > kMaxSeconds) return std::nullopt;
  const auto hz = static_cast<std::uint64_t>(clk_tck);
  const std::uint64_t seconds = start_ticks / hz;
  if (seconds > static_cast<std::uint64_t>(kMaxSeconds)) return std::nullopt;
  const std::uint64_t millis = (start_ticks % hz) * 1000 / hz;
  return (btime_sec + static_cast<std::int64_t>(seconds)) * 1000 +
         static_cast<std::int64_t>(millis);
}

StatusFields parse_status(std::string_view text) {
  StatusFields out;
  for_each_line(text, [&](std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const std::string_view key = line.substr(0, colon);
    std::string_view rest = line.substr(colon + 1);
    if (key == "Tgid") {
      out.tgid = parse_pid(next_token(rest));
    } else if (key == "Uid") {
      out.real_uid = parse_u32(next_token(rest), 10);
      out.effective_uid = parse_u32(next_token(rest), 10);
    } else if (key == "NSpid") {
      out.ns_pids.clear();
      for (std::string_view t = next_token(rest); !t.empty(); t = next_token(rest)) {
        const auto pid = parse_pid(t);
        if (!pid || *pid <= 0) {
          out.ns_pids.clear();  // a partial list would name the wrong innermost pid
          return;
        }
        out.ns_pids.push_back(*pid);
      }
    }
  });
  return out;
}

MapsParser::MapsParser(std::size_t max_line) : max_line_(std::max<std::size_t>(max_line, 256)) {}

void MapsParser::feed(std::string_view chunk) {
  feed_lines(chunk, line_, long_line_, max_line_,
             [this](std::string_view line, bool long_line) { parse_line(line, long_line); });
}

MapsSummary MapsParser::finish(bool truncated) {
  // A last line without its newline is whole only when the file ended there.
  if (!truncated && (!line_.empty() || long_line_)) parse_line(line_, long_line_);
  line_.clear();
  long_line_ = false;
  out_.truncated = truncated;
  std::sort(out_.files.begin(), out_.files.end());
  out_.files.erase(std::unique(out_.files.begin(), out_.files.end()), out_.files.end());
  sorted_ = 0;
  return std::move(out_);
}

namespace {

// OpenJ9's VM library: libj9vm<NN>.so, NN its version (29 in every OpenJ9 JDK since 8: the
// openSUSE java-17-openj9 package lists lib/default/libj9vm29.so beside libj9thr29.so,
// libj9prt29.so and libjclse29.so, and lib/server/libjvm.so, lib/j9vm/libjvm.so as the
// redirectors a launcher loads first).
bool is_j9vm_library(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  constexpr std::string_view kPrefix = "libj9vm", kSuffix = ".so";
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return false;
  name.remove_prefix(kPrefix.size());
  name.remove_suffix(kSuffix.size());
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void MapsParser::parse_line(std::string_view line, bool long_line) {
  constexpr std::string_view kLibjvm = "/libjvm.so";
  if (line.empty()) return;
  ++out_.lines;
  if (long_line) ++out_.long_lines;
  // address perms offset dev inode [path]: skip three fields to reach the device.
  std::string_view rest = line;
  const std::string_view range = next_token(rest);
  const std::string_view perms = next_token(rest);  // "r-xp": read, write, execute, shared
  next_token(rest);
  FileId id;
  if (!parse_device(next_token(rest), id)) {
    ++out_.malformed;
    return;
  }
  const std::string_view ino_text = next_token(rest);
  // In a long line the inode must end before the kept bytes do, or its digits may be cut.
  const auto ino = long_line && rest.empty() ? std::nullopt : parse_unsigned(ino_text, 10);
  if (!ino) {
    ++out_.malformed;
    return;
  }
  if (*ino == 0) return;  // anonymous, heap, stack, vdso
  id.ino = *ino;
  if (out_.files.empty() || !(out_.files.back() == id)) {
    out_.files.push_back(id);
    // Many mappings of a few files (a file mapped a page at a time, alternately): the list
    // is made distinct again whenever it has doubled, so it stays near the distinct count.
    if (out_.files.size() >= 2 * sorted_ + 4096) {
      std::sort(out_.files.begin(), out_.files.end());
      out_.files.erase(std::unique(out_.files.begin(), out_.files.end()), out_.files.end());
      sorted_ = out_.files.size();
    }
  }
  if (long_line) return;  // its path was not kept whole: nothing is said of it
  if (!out_.libjvm || !out_.hsperfdata || !out_.j9vm) {
    std::string_view path = skip_spaces(rest);
    const bool deleted = path.ends_with(" (deleted)");
    if (deleted) path.remove_suffix(10);
    // A JVM runs libjvm's code: its text is mapped executable. A process that maps the file
    // only to read it (a scanner, a checksum, a backup) is no JVM.
    const bool code = perms.size() >= 3 && perms[2] == 'x';
    if (!out_.libjvm) out_.libjvm = code && path.ends_with(kLibjvm);
    if (!out_.j9vm) out_.j9vm = code && is_j9vm_library(path);
    if (!out_.hsperfdata && is_backing_file_path(path)) {
      out_.hsperfdata = true;
      out_.backing = BackingMapping{std::string(range), std::string(path), deleted, id};
    }
  }
}

MapsSummary parse_maps(std::string_view text) {
  MapsParser parser(std::max(kMaxMapsLine, text.size()));
  parser.feed(text);
  return parser.finish();
}

std::optional<std::string_view> parse_cgroup(std::string_view text) {
  std::optional<std::string_view> unified, systemd, first_v1;
  bool any = false;
  for_each_line(text, [&](std::string_view line) {
    // hierarchy-ID:controller-list:path; the path may itself contain ':'.
    const auto first = line.find(':');
    if (first == std::string_view::npos) return;
    const auto second = line.find(':', first + 1);
    if (second == std::string_view::npos) return;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string_view path = line.substr(second + 1);
    if (id.empty() || !parse_unsigned(id, 10) || !path.starts_with('/')) return;
    any = true;
    if (path == "/") return;
    if (id == "0" && controllers.empty()) {
      if (!unified) unified = path;
    } else if (controllers == "name=systemd") {
      if (!systemd) systemd = path;
    } else if (!first_v1) {
      first_v1 = path;
    }
  });
  if (unified) return unified;
  if (systemd) return systemd;
  if (first_v1) return first_v1;
  if (any) return std::string_view("/");
  return std::nullopt;
}

namespace {

bool has_option(std::string_view options, std::string_view wanted) {
  while (!options.empty()) {
    const auto comma = options.find(',');
    if (options.substr(0, comma) == wanted) return true;
    if (comma == std::string_view::npos) break;
    options.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::optional<std::vector<UidRange>> parse_uid_map(std::string_view text) {
  std::vector<UidRange> out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (skip_spaces(line).empty()) continue;
    const auto inside = parse_unsigned(next_token(line), 10);
    const auto outside = parse_unsigned(next_token(line), 10);
    const auto count = parse_unsigned(next_token(line), 10);
    if (!inside || !outside || !count || !skip_spaces(line).empty()) return std::nullopt;
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
    if (*outside > kMax || *count > kMax + 1 - *outside) return std::nullopt;
    out.push_back(UidRange{static_cast<std::uint32_t>(*outside), static_cast<std::uint32_t>(*count)});
  }
  return out;
}

std::optional<MountEntry> find_mount(std::string_view mountinfo, std::uint64_t mount_id) {
  std::optional<MountEntry> found;
  for_each_line(mountinfo, [&](std::string_view line) {
    if (found) return;
    // id parent major:minor root mountpoint options [optional fields...] - fstype source super
    std::string_view rest = line;
    const auto id = parse_unsigned(next_token(rest), 10);
    if (!id || *id != mount_id) return;
    next_token(rest);  // parent
    next_token(rest);  // major:minor
    next_token(rest);  // root
    next_token(rest);  // mount point
    const std::string_view options = next_token(rest);
    std::string_view field;
    do {
      field = next_token(rest);
    } while (!field.empty() && field != "-");
    if (field != "-") return;  // malformed: no separator
    const std::string_view fs_type = next_token(rest);
    next_token(rest);  // source
    const std::string_view super = next_token(rest);
    if (options.empty() || fs_type.empty()) return;
    found = MountEntry{*id, fs_type, has_option(options, "ro") || has_option(super, "ro")};
  });
  return found;
}

std::vector<std::uint64_t> root_mount_ids(std::string_view mountinfo) {
  std::vector<std::uint64_t> ids;
  for_each_line(mountinfo, [&](std::string_view line) {
    std::string_view rest = line;
    const auto id = parse_unsigned(next_token(rest), 10);
    next_token(rest);  // parent
    next_token(rest);  // major:minor
    next_token(rest);  // root
    if (id && next_token(rest) == "/") ids.push_back(*id);
  });
  return ids;
}

Match match_file(const std::vector<FileId>& files, const FileId& wanted) {
  if (std::binary_search(files.begin(), files.end(), wanted)) return Match::exact;
  const bool same_inode =
      std::any_of(files.begin(), files.end(), [&](const FileId& f) { return f.ino == wanted.ino; });
  return same_inode ? Match::inode_only : Match::none;
}

std::optional<std::int32_t> attach_listener_pid(std::string_view path) {
  constexpr std::string_view kPrefix = ".java_pid";
  constexpr std::string_view kTmp = ".tmp";
  const std::size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  if (name.ends_with(kTmp)) name.remove_suffix(kTmp.size());
  // Canonical decimal: what HotSpot prints with %d for a pid, never "0" or a leading zero.
  if (name.empty() || name.size() > 10 || name.front() == '0') return std::nullopt;
  const auto pid = parse_number<std::uint64_t>(name);
  if (!pid || *pid > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    return std::nullopt;
  }
  return static_cast<std::int32_t>(*pid);
}

UnixListenersParser::UnixListenersParser(std::size_t max_line, std::size_t max_kept)
    : max_line_(std::max<std::size_t>(max_line, 128)), max_kept_(max_kept) {}

void UnixListenersParser::feed(std::string_view chunk) {
  feed_lines(chunk, line_, long_line_, max_line_,
             [this](std::string_view line, bool long_line) { parse_line(line, long_line); });
}

UnixListeners UnixListenersParser::finish(bool truncated) {
  if (!truncated && (!line_.empty() || long_line_)) parse_line(line_, long_line_);
  line_.clear();
  long_line_ = false;
  out_.truncated = truncated;
  return std::move(out_);
}

// "Num: RefCount Protocol Flags Type St Inode[ Path]", e.g.
// "000000005ced1f68: 00000002 00000000 00010000 0001 01 4788658 /tmp/.java_pid7338.tmp";
// the first line is the header. An abstract name is printed with a leading '@': no file.
void UnixListenersParser::parse_line(std::string_view line, bool long_line) {
  constexpr std::uint32_t kAcceptCon = 0x10000;  // __SO_ACCEPTCON: listen() was called
  constexpr std::uint32_t kStream = 1;           // SOCK_STREAM, what HotSpot listens on
  if (line.empty()) return;
  ++out_.lines;
  if (long_line) {
    ++out_.long_lines;
    return;
  }
  std::string_view rest = line;
  const std::string_view num = next_token(rest);
  if (num == "Num") return;  // the header
  const auto refcount = parse_unsigned(next_token(rest), 16);
  const auto protocol = parse_unsigned(next_token(rest), 16);
  const auto flags = parse_unsigned(next_token(rest), 16);
  const auto type = parse_unsigned(next_token(rest), 16);
  const auto state = parse_unsigned(next_token(rest), 16);
  const auto inode = parse_unsigned(next_token(rest), 10);
  if (num.size() < 2 || num.back() != ':' || !refcount || !protocol || !flags || !type || !state ||
      !inode) {
    ++out_.malformed;
    return;
  }
  // The path is everything after the one space that follows the inode (it may hold spaces).
  if (rest.empty() || rest.front() != ' ') return;  // unbound
  const std::string_view path = rest.substr(1);
  if ((*flags & kAcceptCon) == 0 || *type != kStream || path.empty() || path.front() == '@') return;
  const auto pid = attach_listener_pid(path);
  if (!pid) return;
  if (out_.listeners.size() >= max_kept_) {
    out_.capped = true;
    return;
  }
  out_.listeners.push_back(AttachListenerLine{*pid, *inode, std::string(path)});
}

UnixListeners parse_unix_listeners(std::string_view text) {
  UnixListenersParser parser(std::max(kMaxUnixLine, text.size()));
  parser.feed(text);
  return parser.finish();
}

}  // namespace hsperfguard::procfs
