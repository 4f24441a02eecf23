#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

#include "model/pid_name.hpp"
#include "model/procfs_parse.hpp"
#include "platform/files.hpp"
#include "platform/posix/dirents_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/posix/safe_path_posix.hpp"

namespace hsperfguard::platform {

namespace {

// fstat's `fd`, refuses anything but a regular file and reads at most `max_bytes`.
void read_opened(int fd_raw, const std::string& path, std::size_t max_bytes, FileRead& out, struct stat& st) {
  if (::fstat(fd_raw, &st) != 0) {
    out.error = make_error(path, "fstat", errno);
    return;
  }
  out.stat = to_inode_facts(st);
  if (!S_ISREG(st.st_mode)) {
    out.error = ObservationError{path, "fstat", 0, "not a regular file"};
    return;
  }
  const auto want = std::min<std::size_t>(static_cast<std::size_t>(st.st_size), max_bytes);
  out.bytes.resize(want);
  int err = 0;
  out.bytes.resize(pread_upto(fd_raw, out.bytes.data(), want, 0, err));
  if (err != 0) out.error = make_error(path, "pread", err);
}

}  // namespace

FileRead read_regular_file(const std::string& path, std::size_t max_bytes) {
  FileRead out;
  ObservationError error;
  // The one path walk; the file itself is judged by its type before it is opened.
  const std::optional<WalkedPath> held = walk_path(path, WalkRules{}, error);
  if (!held) {
    out.error = std::move(error);
    return out;
  }
  if (!S_ISREG(held->st.st_mode)) {
    out.stat = to_inode_facts(held->st);
    out.error = ObservationError{path, "fstat", 0, std::string("is ") + kind_name(held->st.st_mode) + ", not a regular file"};
    return out;
  }
  UniqueFd fd = reopen_held(held->fd.get(), held->st, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOATIME, path, error);
  if (!fd.valid()) {
    out.error = std::move(error);
    return out;
  }
  struct stat st {};
  read_opened(fd.get(), path, max_bytes, out, st);
  return out;
}

std::optional<MappedBackingFile> read_mapped_backing_file(std::int32_t pid, std::size_t max_bytes) {
  const std::string dir = "/proc/" + std::to_string(pid);
  std::vector<char> buffer;
  const MapsReading maps = read_maps(AT_FDCWD, (dir + "/maps").c_str(), buffer);
  if (maps.error != 0) return std::nullopt;
  const procfs::MapsSummary& summary = maps.summary;
  if (!summary.backing) return std::nullopt;
  MappedBackingFile out;
  out.path = std::string(summary.backing->path);
  out.deleted = summary.backing->deleted;
  out.through = dir + "/map_files/" + std::string(summary.backing->range);
  out.dev = makedev(summary.backing->file.major, summary.backing->file.minor);
  out.ino = summary.backing->file.ino;
  // The maps name a file of another mount namespace as that namespace sees it (its /tmp is
  // not ours): this host reaches it through the process's root.
  std::string theirs, ours;
  if (readlink_at(AT_FDCWD, (dir + "/ns/mnt").c_str(), theirs) == 0 &&
      readlink_at(AT_FDCWD, "/proc/self/ns/mnt", ours) == 0 && theirs != ours) {
    out.host_path = dir + "/root" + out.path;
  }
  // A magic link to the mapped file itself: no path is walked, nothing can be swapped in.
  UniqueFd fd(::open(out.through.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) {
    out.read.error = make_error(out.through, "open", errno);
    return out;
  }
  struct stat st {};
  read_opened(fd.get(), out.through, max_bytes, out.read, st);
  if (out.read.stat) {
    if (static_cast<std::uint64_t>(st.st_ino) != summary.backing->file.ino) {
      // The process unmapped it and mapped something else at that address since.
      out.read = FileRead{};
      out.read.error = ObservationError{out.through, "fstat", 0, "the mapping changed while it was read"};
      return out;
    }
    out.deleted = st.st_nlink == 0;
  }
  return out;
}

std::string default_temp_dir() { return "/tmp"; }

AccountTempDirs observe_account_temp_dirs(const std::string&, const std::vector<JvmProcessFacts>&) { return {}; }

std::vector<BackingFileCandidate> find_backing_files(const std::string& temp_dir, std::int32_t pid) {
  std::vector<BackingFileCandidate> found;
  ObservationError error;
  UniqueFd tmp = open_temp_dir(RootKind::tmpdir, "", temp_dir, O_RDONLY | O_DIRECTORY, error);
  if (!tmp.valid()) return {};
  std::vector<char> buffer;
  DirentReader entries(tmp.get(), buffer);
  const std::string file = pid_to_filename(pid);
  while (const auto entry = entries.next()) {
    const std::string name(entry->name);
    if (!name.starts_with("hsperfdata_")) continue;
    UniqueFd ns(::openat(tmp.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!ns.valid()) continue;
    struct stat st {};
    if (::fstatat(ns.get(), file.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
      continue;
    }
    BackingFileCandidate& c = found.emplace_back();
    c.path = temp_dir + "/" + name + "/" + file;
    c.owner_uid = st.st_uid;
    c.dev = st.st_dev;
    c.ino = st.st_ino;
    c.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  std::sort(found.begin(), found.end(),
            [](const BackingFileCandidate& a, const BackingFileCandidate& b) { return a.mtime_ns > b.mtime_ns; });
  return found;
}

}  // namespace hsperfguard::platform
