// The observer of one namespace on Linux, for observe_temp_root (observe_posix.cpp): its
// directory entered, its entries listed a part at a time and each file observed, one at a
// time or kBatchFiles at a time through io_uring; and the listing of an open directory a batch
// at a time, which the temp dir's listing shares. The discipline and the costs it keeps are
// those said at the top of observe_posix.cpp.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"
#include "platform/observe.hpp"
#include "platform/posix/acl_posix.hpp"
#include "platform/posix/dirents_posix.hpp"
#include "platform/posix/jvm_view_posix.hpp"
#include "platform/posix/stat_posix.hpp"
#include "platform/posix/uring_posix.hpp"

namespace hsperfguard::platform {

inline constexpr int kEntryStatFlags = AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC;
inline constexpr int kDirOpenFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
inline constexpr int kFileOpenFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

// Whether two inodes sit on one mount (the same device, and the same mount where statx
// says which).
bool same_mount(const InodeFacts& a, const std::optional<std::uint64_t>& a_mnt, const InodeFacts& b,
                const std::optional<std::uint64_t>& b_mnt);

// `name` in directory `dir`, as the report names it.
std::string join(std::string_view dir, std::string_view name);

// An entry of a directory listing: its name and the type getdents reports (DT_UNKNOWN
// where the file system does not say).
struct DirEntry {
  std::string name;
  unsigned char type = DT_UNKNOWN;
  bool operator<(const DirEntry& other) const { return name < other.name; }
};

// Entries of an open directory, a batch at a time: only those `keep` accepts (a shared /tmp
// can hold millions of unrelated entries). A directory of any size is never listed whole
// unless asked to.
class DirectoryReader {
 public:
  DirectoryReader(int dirfd, std::vector<char>& buffer, bool (*keep)(std::string_view) = nullptr)
      : entries_(dirfd, buffer), keep_(keep) {}

  // Appends entries to `out` until it holds `max` or the directory ends. Returns errno or 0;
  // entries read before an error are kept, and the directory then counts as ended.
  int read(std::vector<DirEntry>& out, std::size_t max);

 private:
  DirentReader entries_;
  bool (*keep_)(std::string_view);
  bool started_ = false, ended_ = false;
};

// Files observed together by one batch (IoBatch), and what each of their calls returned.
inline constexpr std::size_t kBatchFiles = 64;
struct BatchSlot {
  FileFacts* file = nullptr;
  int fd = -1;
  int opened = 0, stat = 0, probe = 0, closed = 0;  // results: value or -errno
  struct statx stx {};
  std::array<char, kAccessAclProbeSize> acl_probe{};
};

// Per-worker buffers, reused for every namespace and file.
struct Scratch {
  std::vector<char> dirents;
  std::vector<DirEntry> entries;
  std::vector<std::byte> region;
  std::vector<BatchSlot> slots;
  std::vector<std::size_t> listed_regular;  // files the listing calls regular
  // Made by the worker that uses it, on its first namespace (null: one call at a time).
  std::unique_ptr<IoBatch> batch;
  bool batch_tried = false;
};

// Enters the namespaces of one temp dir, opened as temp_fd. Shared by the worker threads:
// each brings its own Scratch.
class Observer {
 public:
  Observer(const ObserveOptions& options, std::int64_t max_pid, int temp_fd, const JvmView& view)
      : options_(options), max_pid_(max_pid), temp_fd_(temp_fd), view_(view), euid_(::geteuid()) {}

  // Receives what enter_namespace observed: the whole namespace, or each of its parts in
  // order (`last` on the final call). Returns false when no further part is wanted.
  using PartSink = std::function<bool(NamespaceFacts&& part, bool last)>;

  // The namespace was lstat'ed, is a directory on the temp dir's mount: enter it, and hand it
  // to `emit` whole, or in parts of options_.files_per_part files (listing one part ahead
  // tells whether another follows). Between parts, the run limits are checked.
  void enter_namespace(NamespaceFacts&& ns, Scratch& scratch, const PartSink& emit) const;

 private:
  // The steps of enter_namespace, each said where it is defined (observe_namespace_posix.cpp).
  void observe_entries(int dirfd, const Stat& opened, NamespaceFacts& ns, Scratch& scratch) const;
  bool open_listed_file(int dirfd, const Stat& ns, FileFacts& file, Scratch& scratch) const;
  static bool record_listed_file(const Stat& st, const Stat& ns, FileFacts& file);
  void open_listed_files(IoBatch& batch, int dirfd, const Stat& ns, std::vector<FileFacts>& files,
                         std::span<const std::size_t> chosen, Scratch& scratch) const;
  IoBatch* batch_for(Scratch& scratch) const;
  void observe_file(int dirfd, const Stat& ns, FileFacts& file, Scratch& scratch) const;
  std::size_t region_cap(std::uint64_t file_size, FileFacts& file) const;
  void read_region(int fd, std::uint64_t file_size, FileFacts& file, Scratch& scratch) const;
  int open_quietly(int dirfd, const char* name, int flags, std::uint32_t owner) const;

  const ObserveOptions& options_;
  std::int64_t max_pid_;
  int temp_fd_;
  const JvmView& view_;
  std::uint32_t euid_;
  mutable std::atomic<bool> noatime_refused_{false};
};

}  // namespace hsperfguard::platform
