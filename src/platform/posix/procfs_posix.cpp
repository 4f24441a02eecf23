#include "platform/posix/procfs_posix.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <limits>
#include <string_view>

#include "model/digits.hpp"
#include "platform/posix/dirents_posix.hpp"
#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {
namespace {

constexpr int kProcDirFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
constexpr std::size_t kMaxIndexErrors = 8;

}  // namespace

bool vanished(int err) { return err == ESRCH || err == ENOENT; }

int readlink_at(int dirfd, const char* name, std::string& out) {
  char buf[256];
  const ssize_t n = ::readlinkat(dirfd, name, buf, sizeof buf);
  if (n < 0) return errno;
  out.assign(buf, static_cast<std::size_t>(n));
  return 0;
}

int read_proc_file(int dirfd, const char* name, std::string& out) {
  UniqueFd fd(::openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return errno;
  // /proc files report size 0: read until EOF into a buffer that only grows.
  if (out.capacity() < 16384) out.reserve(16384);
  out.resize(out.capacity());
  std::size_t got = 0;
  for (;;) {
    if (got == out.size()) out.resize(out.size() * 2);
    const ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      out.clear();
      return err;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return 0;
}

namespace {

// How a chunked read of a /proc file ended: errno of its open or of a read, the limit that
// stopped it, and whether it ended before the file did (a stop, or `max_bytes`).
struct ChunkedRead {
  int error = 0;
  const char* stopped = nullptr;
  bool truncated = false;
};

// Reads file `name` of `dirfd` a chunk at a time (in `buffer`) into `feed`, at most `max_bytes`,
// until its end, a read error, or `limits` (checked before each read) being reached.
template <typename Feed>
ChunkedRead read_chunks(int dirfd, const char* name, std::vector<char>& buffer, const RunLimits* limits,
                        std::size_t max_bytes, Feed&& feed) {
  ChunkedRead read;
  UniqueFd fd(::openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    read.error = errno;
    return read;
  }
  constexpr std::size_t kChunk = std::size_t{64} * 1024;
  if (buffer.size() < kChunk) buffer.resize(kChunk);
  std::size_t got = 0;
  for (;;) {
    if (limits != nullptr && (read.stopped = limits->reached()) != nullptr) {
      read.truncated = true;
      break;
    }
    // At the cap, one byte more says whether the file ended exactly there.
    const std::size_t want = got < max_bytes ? std::min(kChunk, max_bytes - got) : 1;
    const ssize_t n = ::read(fd.get(), buffer.data(), want);
    if (n < 0) {
      if (errno == EINTR) continue;
      read.error = errno;
      return read;
    }
    if (n == 0) break;
    if (got >= max_bytes) {
      read.truncated = true;
      break;
    }
    got += static_cast<std::size_t>(n);
    feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  return read;
}

}  // namespace

MapsReading read_maps(int dirfd, const char* name, std::vector<char>& buffer,
                      const RunLimits* limits, std::size_t max_bytes) {
  MapsReading reading;
  procfs::MapsParser parser;
  const ChunkedRead read =
      read_chunks(dirfd, name, buffer, limits, max_bytes, [&](std::string_view chunk) { parser.feed(chunk); });
  reading.error = read.error;
  reading.stopped = read.stopped;
  if (read.error != 0) return reading;
  reading.summary = parser.finish(read.truncated);
  return reading;
}

UnixListenersReading read_unix_listeners(int dirfd, const char* name, std::vector<char>& buffer,
                                         const RunLimits* limits) {
  UnixListenersReading reading;
  procfs::UnixListenersParser parser;
  // No cap on the bytes: the parser keeps at most its own number of listeners.
  const ChunkedRead read = read_chunks(dirfd, name, buffer, limits, std::numeric_limits<std::size_t>::max(),
                                       [&](std::string_view chunk) { parser.feed(chunk); });
  reading.error = read.error;
  reading.stopped = read.stopped;
  if (read.error != 0) return reading;
  reading.listeners = parser.finish(read.truncated);
  return reading;
}

std::optional<std::uint64_t> held_socket(int proc_dirfd, const std::vector<std::uint64_t>& inodes,
                                         std::vector<char>& buffer, int& error) {
  constexpr std::string_view kSocket = "socket:[";
  error = 0;
  UniqueFd dir(::openat(proc_dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    error = errno;
    return std::nullopt;
  }
  DirentReader entries(dir.get(), buffer);
  std::string target;
  while (const auto entry = entries.next()) {
    const std::string name(entry->name);
    // A descriptor closed since the listing is no socket of it (ENOENT); any other error
    // (EACCES: no ptrace access) leaves the answer unknown.
    if (const int e = readlink_at(dir.get(), name.c_str(), target); e != 0) {
      if (e == ENOENT) continue;
      error = e;
      return std::nullopt;
    }
    std::string_view t = target;
    if (!t.starts_with(kSocket) || !t.ends_with(']')) continue;
    t.remove_prefix(kSocket.size());
    t.remove_suffix(1);
    const auto inode = parse_number<std::uint64_t>(t);
    if (inode && std::find(inodes.begin(), inodes.end(), *inode) != inodes.end()) return inode;
  }
  error = entries.error();
  return std::nullopt;
}

ObservationError partial_maps_error(const std::string& path, const MapsReading& reading) {
  if (reading.stopped != nullptr) {
    return ObservationError{path, "read", EINTR,
                            std::string("stopped (") + reading.stopped +
                                ") before the end: what it maps is not known whole"};
  }
  if (reading.summary.truncated) {
    return ObservationError{path, "read", EFBIG,
                            "longer than " + std::to_string(kMaxMapsBytes >> 20) +
                                " MiB, read that far: what it maps is not known whole"};
  }
  return ObservationError{path, "read", 0,
                          std::to_string(reading.summary.long_lines) +
                              " line(s) longer than " + std::to_string(procfs::kMaxMapsLine) +
                              " bytes: the paths they map were not read"};
}

procfs::FileId file_id(std::uint64_t dev, std::uint64_t ino) {
  const auto d = static_cast<dev_t>(dev);
  return {static_cast<std::uint32_t>(major(d)), static_cast<std::uint32_t>(minor(d)), ino};
}

std::optional<LockTable> LockTable::read(const char* path, ObservationError* err) {
  std::string text;
  const int e = read_proc_file(AT_FDCWD, path, text);
  if (e != 0) {
    if (err != nullptr) *err = make_error(path, "read", e);
    return std::nullopt;
  }
  return parse(text);
}

LockTable LockTable::parse(std::string_view text) {
  LockTable table;
  const procfs::LocksParse parsed = procfs::parse_locks(text);
  table.malformed_ = parsed.malformed;
  for (const auto& lock : parsed.held) {
    Holder holder{std::string(lock.kind) + " " + std::string(lock.access), lock.pid};
    table.by_inode_.try_emplace(lock.file.ino, holder);
    table.by_file_.try_emplace(lock.file, std::move(holder));
  }
  return table;
}

LockTable::Lookup LockTable::find(std::uint64_t dev, std::uint64_t ino, bool inode_only) const {
  if (auto it = by_file_.find(file_id(dev, ino)); it != by_file_.end()) return {&it->second, false};
  if (!inode_only) return {};
  if (auto it = by_inode_.find(ino); it != by_inode_.end()) return {&it->second, true};
  return {};
}

ProcReader::ProcReader(std::string proc, const RunLimits* limits)
    : proc_(std::move(proc)), limits_(limits) {
  clk_tck_ = ::sysconf(_SC_CLK_TCK);
  if (read_proc_file(AT_FDCWD, (proc_ + "/stat").c_str(), buffer_) == 0) {
    btime_sec_ = procfs::parse_btime(buffer_);
  }
}

ProcessRecord ProcReader::read(std::int32_t pid) { return read_process(pid, nullptr); }

ProcessRecord ProcReader::read(std::int32_t pid, MapsReading& maps) {
  return read_process(pid, &maps);
}

namespace {

// What the reads of one process met: their errors in order, the maps' own (which outranks
// them), and whether one of them found the process gone.
struct ProcessReadErrors {
  std::vector<ObservationError> errors;
  std::optional<ObservationError> maps_error;
  bool exited = false;

  void add(ObservationError error, int err) {
    exited = exited || vanished(err);
    errors.push_back(std::move(error));
  }
};

// What a process's maps prove. Another user's maps need ptrace read access: EACCES is the
// usual answer for non-root.
void record_maps(MapsReading& reading, const std::string& dir, ProcessRecord& record,
                 ProcessReadErrors& met) {
  ProcessFacts& f = record.facts;
  if (reading.error != 0) {
    met.exited = met.exited || vanished(reading.error);
    met.maps_error = make_error(dir + "/maps", "read", reading.error);
  } else if (reading.summary.lines == 0 && !reading.summary.truncated) {
    // A zombie or a kernel thread has no address space: "maps nothing" proves nothing.
    met.maps_error = ObservationError{dir + "/maps", "read", 0, "no address space"};
  } else {
    const procfs::MapsSummary& maps = reading.summary;
    // Only what was seen is proof: a file, libjvm or a backing file missing from a
    // partial reading may still be mapped.
    if (maps.libjvm || maps.paths_complete()) f.maps_libjvm = maps.libjvm;
    if (maps.hsperfdata || maps.paths_complete()) record.maps_hsperfdata = maps.hsperfdata;
    f.maps_cut = !maps.paths_complete();
    record.mapped_complete = maps.files_complete();
    if (!maps.paths_complete()) met.maps_error = partial_maps_error(dir + "/maps", reading);
    record.mapped = std::move(reading.summary.files);
  }
}

}  // namespace

ProcessRecord ProcReader::read_process(std::int32_t pid, MapsReading* given_maps) {
  using Existence = ProcessFacts::Existence;
  ProcessRecord record;
  ProcessFacts& f = record.facts;
  f.pid = pid;
  if (pid <= 0) {
    f.existence = Existence::gone;  // kill(0 or -n) would address groups: no JVM has such a pid
    return record;
  }
  const std::string dir = proc_ + "/" + std::to_string(pid);
  if (::kill(pid, 0) == 0) {
    f.existence = Existence::alive;
  } else if (errno == ESRCH) {
    f.existence = Existence::gone;
    return record;
  } else if (errno == EPERM) {
    f.existence = Existence::no_permission;
  } else {
    f.error = make_error(dir, "kill", errno);
    return record;
  }

  ProcessReadErrors met;
  UniqueFd d(::open(dir.c_str(), kProcDirFlags));
  if (!d.valid()) {
    const int e = errno;
    met.add(make_error(dir, "open", e), e);
  } else {
    if (const int e = read_proc_file(d.get(), "stat", buffer_); e != 0) {
      met.add(make_error(dir + "/stat", "read", e), e);
    } else if (const auto stat = procfs::parse_stat(buffer_)) {
      if (btime_sec_)
        f.start_time_ms = procfs::start_time_ms(*btime_sec_, stat->start_ticks, clk_tck_);
      if (!f.start_time_ms)
        met.errors.push_back(ObservationError{proc_ + "/stat", "read", 0, "no btime"});
    } else {
      met.errors.push_back(ObservationError{dir + "/stat", "read", 0, "unparseable"});
    }

    if (const int e = read_proc_file(d.get(), "status", buffer_); e != 0) {
      met.add(make_error(dir + "/status", "read", e), e);
    } else {
      procfs::StatusFields status = procfs::parse_status(buffer_);
      f.real_uid = status.real_uid;
      f.effective_uid = status.effective_uid;
      f.ns_pids = std::move(status.ns_pids);
    }

    std::string mnt;
    std::string mountinfo;
    if (const int e = read_mount_namespace(d.get(), "", own_mounts(), mnt, mountinfo); e != 0) {
      met.add(make_error(dir + "/ns/mnt", "readlink", e), e);
    } else {
      f.mount_namespace = std::move(mnt);
    }

    MapsReading reading = given_maps != nullptr ? std::move(*given_maps)
                                                : read_maps(d.get(), "maps", maps_buffer_, limits_);
    record_maps(reading, dir, record, met);
  }
  if (met.exited && ::kill(pid, 0) != 0 && errno == ESRCH) {
    // Gone while we looked: the reads above describe nothing alive.
    ProcessRecord gone;
    gone.facts.pid = pid;
    gone.facts.existence = Existence::gone;
    return gone;
  }
  if (met.maps_error) {
    f.error = std::move(met.maps_error);
  } else if (!met.errors.empty()) {
    f.error = std::move(met.errors.front());
  }
  return record;
}

const OwnMounts& ProcReader::own_mounts() {
  if (!own_mounts_) own_mounts_ = OwnMounts::read(proc_);
  return *own_mounts_;
}

std::optional<std::string> ProcReader::read_cgroup(std::int32_t pid) {
  if (read_proc_file(AT_FDCWD, (proc_ + "/" + std::to_string(pid) + "/cgroup").c_str(), buffer_) !=
      0) {
    return std::nullopt;
  }
  const auto path = procfs::parse_cgroup(buffer_);
  return path ? std::optional<std::string>(*path) : std::nullopt;
}

std::optional<std::string> ProcReader::read_cmdline(std::int32_t pid, std::size_t max) {
  if (read_proc_file(AT_FDCWD, (proc_ + "/" + std::to_string(pid) + "/cmdline").c_str(),
                     buffer_) != 0 ||
      buffer_.empty()) {
    return std::nullopt;
  }
  std::string out = buffer_.substr(0, max);
  while (!out.empty() && out.back() == '\0') out.pop_back();
  for (char& c : out) {
    if (c == '\0') c = ' ';
  }
  return out;
}

std::optional<std::string> ProcReader::read_raw(std::int32_t pid, const char* name) {
  if (read_proc_file(AT_FDCWD, (proc_ + "/" + std::to_string(pid) + "/" + name).c_str(), buffer_) != 0) {
    return std::nullopt;
  }
  return buffer_;
}

std::vector<std::int32_t> list_pids(const std::string& proc, int* err) {
  std::vector<std::int32_t> pids;
  if (err != nullptr) *err = 0;
  UniqueFd dir(::open(proc.c_str(), kProcDirFlags));
  if (!dir.valid()) {
    if (err != nullptr) *err = errno;
    return pids;
  }
  std::vector<char> buffer;
  DirentReader entries(dir.get(), buffer);
  while (const auto entry = entries.next()) {
    if (!all_digits(entry->name) || entry->name.size() > 9) continue;
    const std::int32_t pid = parse_number<std::int32_t>(entry->name).value_or(0);
    if (pid > 0) pids.push_back(pid);
  }
  if (err != nullptr) *err = entries.error();
  return pids;
}

OwnMounts OwnMounts::read(const std::string& proc) {
  OwnMounts own;
  std::string text;
  if (readlink_at(AT_FDCWD, (proc + "/self/ns/mnt").c_str(), text) == 0) own.mount_namespace = text;
  if (read_proc_file(AT_FDCWD, (proc + "/self/mountinfo").c_str(), text) == 0) {
    own.root_mounts = procfs::root_mount_ids(text);
  }
  return own;
}

int read_mount_namespace(int dirfd, const std::string& prefix, const OwnMounts& own,
                         std::string& out, std::string& buffer, bool* at_our_root) {
  if (at_our_root != nullptr) *at_our_root = false;
  const int link_err = readlink_at(dirfd, (prefix + "ns/mnt").c_str(), out);
  if (link_err == 0 || vanished(link_err) || !own.mount_namespace || own.root_mounts.empty()) {
    return link_err;
  }
  if (read_proc_file(dirfd, (prefix + "mountinfo").c_str(), buffer) != 0 ||
      procfs::root_mount_ids(buffer) != own.root_mounts) {
    return link_err;
  }
  out = *own.mount_namespace;
  if (at_our_root != nullptr) *at_our_root = true;
  return 0;
}

std::optional<ProcessPlacement> place_process(int dirfd, const char* status_path, std::int32_t pid,
                                              const std::string* mount_namespace, int mnt_error,
                                              std::string& buffer) {
  ProcessPlacement p;
  p.host_pid = pid;
  if (mount_namespace != nullptr) p.mount_namespace = *mount_namespace;
  p.mnt_error = mnt_error;
  if (dirfd == -1) return p;
  p.status_error = read_proc_file(dirfd, status_path, buffer);
  if (vanished(p.status_error)) return std::nullopt;  // exited since the listing
  if (p.status_error == 0) {
    const procfs::StatusFields status = procfs::parse_status(buffer);
    if (!status.ns_pids.empty()) p.ns_pid = status.ns_pids.back();
  }
  return p;
}

NamespaceIndex index_mount_namespace(const std::vector<ProcessPlacement>& placed,
                                     const std::string& mount_namespace, bool listed_all,
                                     const std::string& proc) {
  NamespaceIndex index;
  bool complete = listed_all;
  for (const ProcessPlacement& p : placed) {
    if (p.mount_namespace && *p.mount_namespace != mount_namespace) continue;
    // In the namespace, or unplaceable (ns links need ptrace access): its NSpid decides.
    const std::string pid_dir = proc + "/" + std::to_string(p.host_pid);
    if (!p.mount_namespace && index.errors.size() < kMaxIndexErrors) {
      index.errors.push_back(make_error(pid_dir + "/ns/mnt", "readlink", p.mnt_error));
    }
    if (!p.ns_pid) {
      // No NSpid (a kernel before 4.1, or an unreadable status): it could be anyone.
      complete = false;
      if (p.status_error != 0 && index.errors.size() < kMaxIndexErrors) {
        index.errors.push_back(make_error(pid_dir + "/status", "read", p.status_error));
      }
      continue;
    }
    if (!p.mount_namespace) {
      index.uncertain_nspids.insert(*p.ns_pid);
      continue;
    }
    index.host_pids_by_nspid[*p.ns_pid].push_back(p.host_pid);
  }
  index.complete = complete;
  return index;
}

namespace {

// One pass over `proc`: the placement of every process whose mount namespace `wanted`
// accepts, and of those whose link cannot be read (they could be in any).
std::vector<ProcessPlacement> place_where(const std::string& proc_path, const OwnMounts& own,
                                          const std::function<bool(const std::string&)>& wanted,
                                          bool& listed_all, std::vector<ObservationError>& errors) {
  std::vector<ProcessPlacement> placed;
  listed_all = false;
  UniqueFd proc(::open(proc_path.c_str(), kProcDirFlags));
  if (!proc.valid()) {
    errors.push_back(make_error(proc_path, "open", errno));
    return placed;
  }
  std::vector<char> buffer;
  DirentReader entries(proc.get(), buffer);
  std::string mnt;
  std::string status_text;
  while (const auto entry = entries.next()) {
    const std::string_view name = entry->name;
    if (!all_digits(name) || name.size() > 9) continue;
    const std::string pid_dir(name);
    const int link_err = read_mount_namespace(proc.get(), pid_dir + "/", own, mnt, status_text);
    if (link_err != 0 && vanished(link_err)) continue;  // exited since the listing
    if (link_err == 0 && !wanted(mnt)) continue;
    auto p = place_process(proc.get(), (pid_dir + "/status").c_str(),
                           parse_number<std::int32_t>(name).value_or(0),
                           link_err == 0 ? &mnt : nullptr, link_err, status_text);
    if (p) placed.push_back(std::move(*p));
  }
  listed_all = entries.error() == 0;
  if (entries.error() != 0) errors.push_back(make_error(proc_path, "getdents64", entries.error()));
  return placed;
}

}  // namespace

NamespaceIndex ProcReader::scan_mount_namespace(const std::string& mount_namespace) {
  bool listed_all = false;
  std::vector<ObservationError> errors;
  const std::vector<ProcessPlacement> placed = place_where(
      proc_, own_mounts(), [&](const std::string& mnt) { return mnt == mount_namespace; }, listed_all, errors);
  NamespaceIndex index = index_mount_namespace(placed, mount_namespace, listed_all, proc_);
  index.errors.insert(index.errors.end(), errors.begin(), errors.end());
  return index;
}

std::vector<ProcessPlacement> ProcReader::place_processes_outside(const std::string& except,
                                                                  bool& listed_all,
                                                                  std::vector<ObservationError>& errors) {
  return place_where(proc_, own_mounts(), [&](const std::string& mnt) { return mnt != except; }, listed_all, errors);
}

}  // namespace hsperfguard::platform
