// observe_temp_root on Linux.
//
// Discipline: every namespace and file is reached relative to a directory fd we opened and
// verified; nothing is reopened by path. Entries are stat'ed without following links;
// only directories (namespaces) and regular files are ever opened, read-only, non-blocking,
// with O_NOATIME where we may. A namespace or file on another mount than its parent is
// recorded but never entered: a FUSE server planted there could stall us or lie, and the
// reaper never crosses a mount either. Stats of directory entries use AT_STATX_DONT_SYNC
// for the same reason (on local file systems this is plain lstat). A file the directory
// lists as regular is opened without that lstat, by openat2 refusing links and mounts
// (open_entry_on_this_mount), and the fstat of the open file stands for it: the same
// guarantees, one system call fewer (see open_listed_file).
//
// Speed: 100 namespaces x 1,000 files is the design target, so a backing file costs five
// system calls (openat2, fstat, fgetxattr, pread, close; a second pread when `used` is beyond
// 16 KiB), made for 64 files at a time through io_uring where the kernel allows it
// (open_listed_files: four io_uring_enter calls instead of 320 system calls), and namespaces
// are shared between two worker threads. Inode flags of files come from the statx attributes
// (see below).
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "model/digits.hpp"
#include "model/perfdata.hpp"
#include "model/pid_name.hpp"
#include "model/procfs_parse.hpp"
#include "platform/observe.hpp"
#include "platform/posix/acl_posix.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/condition_posix.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/posix/dirents_posix.hpp"
#include "platform/posix/jvm_view_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/posix/stat_posix.hpp"
#include "platform/posix/uring_posix.hpp"
#include "platform/posix/volume_posix.hpp"
#include "platform/users.hpp"

namespace hsperfguard::platform {
namespace {

constexpr std::string_view kNamespacePrefix = "hsperfdata_";
constexpr std::string_view kListenerPrefix = ".java_pid";
constexpr std::string_view kTriggerPrefix = ".attach_pid";
constexpr unsigned kMaxWorkers = 2;
// How far the workers may observe ahead of the namespace being consumed (judged, written).
constexpr std::size_t kLookahead = 4;

constexpr int kEntryStatFlags = AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC;
constexpr int kDirOpenFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
constexpr int kFileOpenFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

bool same_mount(const InodeFacts& a, const std::optional<std::uint64_t>& a_mnt, const InodeFacts& b,
                const std::optional<std::uint64_t>& b_mnt) {
  if (a.dev != b.dev) return false;
  return !a_mnt || !b_mnt || *a_mnt == *b_mnt;
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out;
  out.reserve(dir.size() + 1 + name.size());
  out.append(dir);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

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
  int read(std::vector<DirEntry>& out, std::size_t max) {
    if (!started_) {
      started_ = true;
      if (const int err = entries_.rewind(); err != 0) {
        ended_ = true;
        return err;
      }
    }
    while (out.size() < max) {
      const auto entry = entries_.next();
      if (!entry) {  // the end, or an error (said once)
        if (ended_) return 0;
        ended_ = true;
        return entries_.error();
      }
      if (keep_ != nullptr && !keep_(entry->name)) continue;
      out.push_back(DirEntry{std::string(entry->name), entry->type});
    }
    return 0;
  }

 private:
  DirentReader entries_;
  bool (*keep_)(std::string_view);
  bool started_ = false, ended_ = false;
};

std::int64_t read_max_pid(std::vector<ObservationError>& errors) {
  const char* path = "/proc/sys/kernel/pid_max";
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    errors.push_back(make_error(path, "open", errno));
    return kDefaultMaxPid;
  }
  char text[32] = {};
  const ssize_t n = ::read(fd.get(), text, sizeof text - 1);
  if (n < 0) {
    errors.push_back(make_error(path, "read", errno));
    return kDefaultMaxPid;
  }
  const auto parsed =
      parse_number<std::int64_t>(digit_prefix(std::string_view(text, static_cast<std::size_t>(n))));
  const std::int64_t value = parsed.value_or(0);
  if (value < 2 || value > (1LL << 40)) {
    errors.push_back(ObservationError{path, "read", EINVAL, "not a number"});
    return kDefaultMaxPid;
  }
  return value - 1;  // pid_max is one more than the largest pid handed out
}

// Files observed together by one batch (IoBatch), and what each of their calls returned.
constexpr std::size_t kBatchFiles = 64;
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
  void enter_namespace(NamespaceFacts&& ns, Scratch& scratch, const PartSink& emit) const {
    UniqueFd dir(open_quietly(temp_fd_, ns.name.c_str(), kDirOpenFlags, ns.lstat->uid));
    if (!dir.valid()) {
      ns.errors.push_back(make_error(ns.path, "openat", errno));
      emit(std::move(ns), true);
      return;
    }
    Stat opened;
    if (const int err = stat_at(dir.get(), "", AT_EMPTY_PATH, opened); err != 0) {
      ns.errors.push_back(make_error(ns.path, "statx", err));
      emit(std::move(ns), true);
      return;
    }
    ns.opened = opened.inode;
    ns.identity_matches =
        ns.lstat && ns.lstat->dev == opened.inode.dev && ns.lstat->ino == opened.inode.ino;
    if (!ns.identity_matches) {
      // Replaced between lstat and open: its contents would describe another directory.
      ns.errors.push_back(ObservationError{ns.path, "openat", 0, "replaced while being observed"});
      emit(std::move(ns), true);
      return;
    }
    ns.access_acl = read_access_acl(dir.get(), opened.inode.mode, ns.path, ns.errors);
    ns.default_acl = read_default_acl(dir.get(), ns.path, ns.errors);
    ns.inode_flags = read_inode_flags(dir.get(), ns.path, ns.errors);
    ns.volume = observe_volume(dir.get(), ns.inode_flags, ns.path, ns.errors);
    view_.apply(*ns.volume);  // on the temp dir's mount: read-only as the JVMs see that

    const bool in_parts = options_.files_per_part > 0;
    const std::size_t per_part =
        in_parts ? options_.files_per_part : std::numeric_limits<std::size_t>::max();
    NamespaceFacts shell;  // the namespace's own facts, which every later part repeats
    if (in_parts) {
      shell = ns;
      shell.errors.clear();
      shell.invisible_jvms.clear();
    }
    DirectoryReader reader(dir.get(), scratch.dirents);
    scratch.entries.clear();
    for (std::size_t part = 0;; ++part) {
      if (const int err = reader.read(scratch.entries, in_parts ? per_part + 1 : per_part);
          err != 0) {
        ns.errors.push_back(make_error(ns.path, "getdents64", err));
      }
      std::optional<DirEntry> next;  // the first entry of the next part
      if (scratch.entries.size() > per_part) {
        next = std::move(scratch.entries.back());
        scratch.entries.pop_back();
      }
      const char* stopped = next ? options_.limits.reached() : nullptr;
      if (stopped != nullptr) {
        ns.errors.push_back(ObservationError{
            ns.path, "getdents64", EINTR,
            std::string("stopped (") + stopped + ") before every entry was observed"});
      }
      observe_entries(dir.get(), opened, ns, scratch);
      ns.part = part;
      ns.more_parts = next.has_value() && stopped == nullptr;
      const bool last = !ns.more_parts;
      if (!emit(std::move(ns), last) || last) return;
      ns = shell;
      scratch.entries.clear();
      scratch.entries.push_back(std::move(*next));
    }
  }

 private:
  // The entries listed in scratch.entries become ns.files, in name order, each observed.
  void observe_entries(int dirfd, const Stat& opened, NamespaceFacts& ns, Scratch& scratch) const {
    std::sort(scratch.entries.begin(), scratch.entries.end());
    ns.files.resize(scratch.entries.size());
    IoBatch* batch =
        scratch.entries.size() >= options_.min_batched_entries ? batch_for(scratch) : nullptr;
    scratch.listed_regular.clear();
    for (std::size_t i = 0; i < scratch.entries.size(); ++i) {
      FileFacts& file = ns.files[i];
      file.name = std::move(scratch.entries[i].name);
      file.path = join(ns.path, file.name);
      file.pid_name = classify_pid_name(file.name, max_pid_);
      const bool listed_regular = scratch.entries[i].type == DT_REG && options_.open_files &&
                                  !noatime_refused_.load(std::memory_order_relaxed);
      if (listed_regular && batch != nullptr) {
        scratch.listed_regular.push_back(i);
      } else if (!listed_regular || !open_listed_file(dirfd, opened, file, scratch)) {
        observe_file(dirfd, opened, file, scratch);
      }
    }
    for (std::size_t at = 0; at < scratch.listed_regular.size(); at += kBatchFiles) {
      const std::size_t n = std::min(kBatchFiles, scratch.listed_regular.size() - at);
      open_listed_files(*batch, dirfd, opened, ns.files,
                        std::span(scratch.listed_regular).subspan(at, n), scratch);
    }
  }

  // An entry the directory lists as a regular file is opened at once, with the guarantees the
  // lstat would have given: no link is followed and no mount is entered (a mount over the
  // file fails with EXDEV before its file system is asked anything). The fstat of what was
  // opened is then also the entry's lstat: one statx fewer per backing file. Returns false,
  // having recorded nothing, when the open is refused (a link, a mount, EACCES, a vanished
  // entry, no openat2): observe_file then takes the careful path and records why.
  bool open_listed_file(int dirfd, const Stat& ns, FileFacts& file, Scratch& scratch) const {
    // The owner is not known before the open; once O_NOATIME was refused for someone else's
    // file, the careful path (which knows the owner) keeps our own files' atimes.
    if (noatime_refused_.load(std::memory_order_relaxed)) return false;
    int raw = open_entry_on_this_mount(dirfd, file.name.c_str(), kFileOpenFlags | O_NOATIME);
    if (raw < 0) {
      if (errno == EPERM) noatime_refused_.store(true, std::memory_order_relaxed);
      return false;
    }
    UniqueFd fd(raw);
    Stat st;
    if (const int err = stat_at(fd.get(), "", AT_EMPTY_PATH, st); err != 0) {
      file.errors.push_back(make_error(file.path, "statx", err));
      return true;
    }
    if (!record_listed_file(st, ns, file)) return true;
    file.access_acl = read_access_acl(fd.get(), st.inode.mode, file.path, file.errors);
    file.inode_flags =
        st.inode_flags ? st.inode_flags : read_inode_flags(fd.get(), file.path, file.errors);
    read_region(fd.get(), st.inode.size, file, scratch);
    return true;
  }

  // What open_listed_file records of the open file; whether it is to be read (a regular file
  // on this mount, not something swapped in since the listing).
  static bool record_listed_file(const Stat& st, const Stat& ns, FileFacts& file) {
    file.lstat = st.inode;
    file.opened = st.inode;
    file.crosses_mount = !same_mount(st.inode, st.mount_id, ns.inode, ns.mount_id);
    return st.inode.kind == FileKind::regular && !file.crosses_mount;
  }

  // open_listed_file for up to kBatchFiles files at once, with the same calls in the same
  // order per file, made as three batches: the opens; the fstats and ACL probes; the closes.
  // Between the last two, each file that fstat showed to be a regular file on this mount is
  // read and decoded at once, into the worker's one region buffer: a batch of reads would
  // copy 64 regions into a megabyte the caches cannot hold, and the decoder would then read
  // them back from memory (measured: a read-only walk of 100,000 regions takes 1.55 s of
  // kernel time into 64 rotating buffers, 0.88 s into one). Whatever a batch could not do
  // (-ECANCELED) is done one call at a time, and an open that is refused sends the file down
  // the careful path, as in open_listed_file.
  void open_listed_files(IoBatch& batch, int dirfd, const Stat& ns, std::vector<FileFacts>& files,
                         std::span<const std::size_t> chosen, Scratch& scratch) const {
    if (noatime_refused_.load(std::memory_order_relaxed)) {  // as open_listed_file decides
      for (const std::size_t i : chosen) observe_file(dirfd, ns, files[i], scratch);
      return;
    }
    open_how how{};
    how.flags = static_cast<std::uint64_t>(kFileOpenFlags | O_NOATIME | O_CLOEXEC);
    how.resolve = kEntryOnThisMount;
    scratch.slots.assign(chosen.size(), BatchSlot{});
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      BatchSlot& slot = scratch.slots[k];
      slot.file = &files[chosen[k]];
      batch.openat2(dirfd, slot.file->name.c_str(), how, slot.opened);
    }
    batch.run();
    for (BatchSlot& slot : scratch.slots) {
      if (slot.opened >= 0) {
        slot.fd = slot.opened;
        batch.statx_fd(slot.fd, kStatxMask, slot.stx, slot.stat);
        batch.fgetxattr(slot.fd, kAccessXattr, slot.acl_probe.data(), slot.acl_probe.size(),
                        slot.probe);
      } else if (slot.opened == -ECANCELED) {
        if (!open_listed_file(dirfd, ns, *slot.file, scratch))
          observe_file(dirfd, ns, *slot.file, scratch);
      } else {
        if (slot.opened == -EPERM) noatime_refused_.store(true, std::memory_order_relaxed);
        observe_file(dirfd, ns, *slot.file, scratch);
      }
    }
    batch.run();
    for (BatchSlot& slot : scratch.slots) {
      if (slot.fd < 0) continue;
      FileFacts& file = *slot.file;
      Stat st;
      if (slot.stat == -ECANCELED) {
        slot.stat = -stat_at(slot.fd, "", AT_EMPTY_PATH, st);
      } else if (slot.stat >= 0) {
        st = to_stat(slot.stx);
      }
      if (slot.stat < 0) {
        file.errors.push_back(make_error(file.path, "statx", -slot.stat));
        continue;
      }
      if (!record_listed_file(st, ns, file)) continue;
      file.access_acl = slot.probe == -ECANCELED
                            ? read_access_acl(slot.fd, st.inode.mode, file.path, file.errors)
                            : access_acl_after_probe(slot.fd, slot.probe < 0 ? -slot.probe : 0,
                                                     st.inode.mode, file.path, file.errors);
      file.inode_flags =
          st.inode_flags ? st.inode_flags : read_inode_flags(slot.fd, file.path, file.errors);
      read_region(slot.fd, st.inode.size, file, scratch);
    }
    for (BatchSlot& slot : scratch.slots) {
      if (slot.fd >= 0) batch.close(slot.fd, slot.closed);
    }
    batch.run();
    for (BatchSlot& slot : scratch.slots) {
      if (slot.fd >= 0 && slot.closed == -ECANCELED) ::close(slot.fd);
    }
  }

  // The ring of this worker, made on first use; null where batches cannot be made.
  IoBatch* batch_for(Scratch& scratch) const {
    if (!options_.batched_io || !options_.open_files || !openat2_available()) return nullptr;
    if (!scratch.batch_tried) {
      scratch.batch_tried = true;
      scratch.batch = IoBatch::create(2 * kBatchFiles);
    }
    return scratch.batch.get();
  }

  // The careful path: lstat the entry, then open only a regular file on this mount.
  void observe_file(int dirfd, const Stat& ns, FileFacts& file, Scratch& scratch) const {
    Stat st;
    if (const int err = stat_at(dirfd, file.name.c_str(), kEntryStatFlags, st); err != 0) {
      file.errors.push_back(make_error(file.path, "statx", err));  // vanished, EACCES, ...
      return;
    }
    file.lstat = st.inode;
    file.crosses_mount = !same_mount(st.inode, st.mount_id, ns.inode, ns.mount_id);
    // FIFOs, devices, sockets and links are never opened; nor is anything mounted over.
    if (st.inode.kind != FileKind::regular || file.crosses_mount) return;
    if (!options_.open_files) return;

    UniqueFd fd(open_quietly(dirfd, file.name.c_str(), kFileOpenFlags, st.inode.uid));
    if (!fd.valid()) {
      file.errors.push_back(make_error(file.path, "openat", errno));
      return;
    }
    struct stat opened {};
    if (::fstat(fd.get(), &opened) != 0) {
      file.errors.push_back(make_error(file.path, "fstat", errno));
      return;
    }
    file.opened = to_inode_facts(opened);
    if (!S_ISREG(opened.st_mode)) return;  // swapped after the lstat: read nothing
    file.access_acl = read_access_acl(fd.get(), file.opened->mode, file.path, file.errors);
    const bool same_inode = file.opened->dev == st.inode.dev && file.opened->ino == st.inode.ino;
    file.inode_flags = same_inode && st.inode_flags
                           ? st.inode_flags
                           : read_inode_flags(fd.get(), file.path, file.errors);
    read_region(fd.get(), static_cast<std::uint64_t>(opened.st_size), file, scratch);
  }

  // The bytes of a region that may be read: never more than max_region_bytes or the file's
  // size. 0 reads nothing; an empty file still gets its (invalid) region summary.
  std::size_t region_cap(std::uint64_t file_size, FileFacts& file) const {
    const std::size_t cap =
        static_cast<std::size_t>(std::min<std::uint64_t>(file_size, options_.max_region_bytes));
    if (cap == 0 && options_.max_region_bytes > 0) {
      file.region = RegionSummary{perfdata::parse_region({}), 0};
    }
    return cap;
  }

  // The prologue first, then up to `used` bytes, never more than `cap` (region_cap): a sparse
  // terabyte file costs one 16 KiB read. What is parsed (and reported as bytes_read) does not
  // depend on the read size: the first 4 KiB, or `used` bytes when the prologue says more are
  // used.
  void read_region(int fd, std::uint64_t file_size, FileFacts& file, Scratch& scratch) const {
    const std::size_t cap = region_cap(file_size, file);
    if (cap == 0) return;
    const RegionBytes read = read_region_bytes(fd, cap, scratch.region);
    if (read.error != 0) file.errors.push_back(make_error(file.path, "pread", read.error));
    file.region =
        RegionSummary{perfdata::parse_region_keeping(std::span(scratch.region.data(), read.bytes),
                                                     options_.kept_counters),
                      read.bytes};
  }

  // O_NOATIME where we may: as the owner, or with CAP_FOWNER. Once the kernel refused it
  // for a file we do not own, later opens of others' files skip the attempt (an
  // unprivileged audit would otherwise pay two opens per file).
  int open_quietly(int dirfd, const char* name, int flags, std::uint32_t owner) const {
    const bool ours = owner == euid_;
    if (ours || !noatime_refused_.load(std::memory_order_relaxed)) {
      const int fd = ::openat(dirfd, name, flags | O_NOATIME);
      if (fd >= 0 || errno != EPERM) return fd;
      if (!ours) noatime_refused_.store(true, std::memory_order_relaxed);
    }
    return ::openat(dirfd, name, flags);
  }

  const ObserveOptions& options_;
  std::int64_t max_pid_;
  int temp_fd_;
  const JvmView& view_;
  std::uint32_t euid_;
  mutable std::atomic<bool> noatime_refused_{false};
};

// Opens the temp dir; fills lstat and the error list. Held first as itself (hold_temp_dir: a
// host temp dir by the one path walk, a foreign root's beneath root_fd), then opened as the
// directory it was seen to be.
UniqueFd open_temp_dir(const RootSpec& spec, int root_fd, const std::string& display,
                       TempRootFacts& facts) {
  ObservationError err;
  std::optional<WalkedPath> held = hold_temp_dir(root_fd, spec.temp_dir, err);
  if (!held) {
    err.path = display;
    facts.errors.push_back(std::move(err));
    return {};
  }
  Stat lst;
  if (const int code = stat_at(held->fd.get(), "", AT_EMPTY_PATH, lst); code != 0) {
    facts.errors.push_back(make_error(display, "statx", code));
    return {};
  }
  facts.lstat = lst.inode;
  if (!S_ISDIR(held->st.st_mode)) {
    facts.errors.push_back(not_a_temp_dir(display, held->st.st_mode));
    return {};
  }
  UniqueFd fd = reopen_walked(*held, kDirOpenFlags | O_NOATIME, display, err);
  if (!fd.valid()) facts.errors.push_back(std::move(err));
  return fd;
}

bool is_attach_name(std::string_view name) {
  return name.starts_with(kListenerPrefix) || name.starts_with(kTriggerPrefix);
}

bool is_temp_dir_entry_of_interest(std::string_view name) {
  return name.starts_with(kNamespacePrefix) || is_attach_name(name);
}

bool is_namespace_name(std::string_view name) { return name.starts_with(kNamespacePrefix); }

unsigned worker_count(std::size_t work_items) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>({kMaxWorkers, hw, work_items}));
}

// The mount table of the processes whose /tmp this is, read when first needed: what it says
// of a namespace on another mount (its type, whether it is read-only), so that the mount is
// never entered or asked itself.
class MountTable {
 public:
  MountTable(const RootSpec& spec, const JvmView& view) : spec_(spec), view_(view) {}

  // The volume of namespace `name`, seen by the observer as `seen` on mount `mount_id`.
  std::optional<VolumeFacts> volume_of(const std::string& name, const InodeFacts& seen,
                                       std::optional<std::uint64_t> mount_id) {
    auto own = own_volume_of(mount_id);
    if (auto jvms = view_.volume_beneath(name, seen)) {
      if (own && own->read_only != jvms->read_only) jvms->read_only_to_observer = own->read_only;
      return jvms;
    }
    if (own) view_.apply(*own);  // says whose view it is (the observer's, and why)
    return own;
  }

 private:
  std::optional<VolumeFacts> own_volume_of(std::optional<std::uint64_t> mount_id) {
    if (!mount_id) return std::nullopt;
    if (!text_) {
      text_.emplace();
      const std::string table =
          spec_.container ? "/proc/" + std::to_string(spec_.container->host_pid) + "/mountinfo"
                          : std::string("/proc/self/mountinfo");
      if (read_proc_file(AT_FDCWD, table.c_str(), *text_) != 0) text_->clear();
    }
    const auto mount = procfs::find_mount(*text_, *mount_id);
    if (!mount) return std::nullopt;
    VolumeFacts v;
    v.fs_type = std::string(mount->fs_type);
    v.mount_id = mount->mount_id;
    v.read_only = mount->read_only;
    return v;
  }

  const RootSpec& spec_;
  const JvmView& view_;
  std::optional<std::string> text_;
};

// The temp dir as opened, for the batches of its entries.
struct OpenedTempDir {
  int fd = -1;
  Stat stat;
  std::string display;  // its path as the report names it
};

// One batch of the temp dir's entries, listed: the namespaces (lstat'ed; which of them are
// directories on the temp dir's mount, to be entered) in name order. Attach files go straight
// into the temp root's facts.
struct ListedBatch {
  std::vector<NamespaceFacts> namespaces;
  std::vector<std::size_t> to_enter;
};

NamespaceFacts& list_namespace(ListedBatch& batch, std::string&& name, const OpenedTempDir& temp,
                               MountTable& mounts) {
  NamespaceFacts& ns = batch.namespaces.emplace_back();
  ns.name = std::move(name);
  ns.user_suffix = ns.name.substr(kNamespacePrefix.size());
  ns.path = join(temp.display, ns.name);
  Stat st;
  if (const int err = stat_at(temp.fd, ns.name.c_str(), kEntryStatFlags, st); err != 0) {
    ns.errors.push_back(make_error(ns.path, "statx", err));
    return ns;
  }
  ns.lstat = st.inode;
  ns.crosses_mount = !same_mount(st.inode, st.mount_id, temp.stat.inode, temp.stat.mount_id);
  if (ns.crosses_mount && st.inode.kind == FileKind::directory) {
    ns.errors.push_back(
        ObservationError{ns.path, "openat", EXDEV, "on another mount: not entered"});
    ns.volume = mounts.volume_of(ns.name, st.inode, st.mount_id);
  } else if (st.inode.kind == FileKind::directory) {
    batch.to_enter.push_back(batch.namespaces.size() - 1);
  }
  return ns;
}

AttachFacts observe_attach_entry(std::string&& name, const OpenedTempDir& temp, std::int64_t max_pid) {
  const std::string_view n = name;
  AttachFacts a;
  const bool listener = n.starts_with(kListenerPrefix);
  a.kind = listener ? AttachFacts::Kind::listener_socket : AttachFacts::Kind::trigger_file;
  a.pid = classify_pid_name(n.substr(listener ? kListenerPrefix.size() : kTriggerPrefix.size()),
                            max_pid)
              .pid;
  a.name = std::move(name);
  a.path = join(temp.display, a.name);
  Stat st;
  if (const int err = stat_at(temp.fd, a.name.c_str(), kEntryStatFlags, st); err != 0) {
    a.errors.push_back(make_error(a.path, "statx", err));
  } else {
    a.lstat = st.inode;
  }
  return a;
}

ListedBatch list_batch(std::vector<DirEntry>& listed, const OpenedTempDir& temp, MountTable& mounts,
                       TempRootFacts& facts) {
  std::sort(listed.begin(), listed.end());
  ListedBatch batch;
  for (auto& entry : listed) {
    const std::string_view n = entry.name;
    if (n.starts_with(kNamespacePrefix)) {
      list_namespace(batch, std::move(entry.name), temp, mounts);
    } else if (is_attach_name(n)) {
      facts.attach_files.push_back(observe_attach_entry(std::move(entry.name), temp, facts.max_pid));
    }
  }
  return batch;
}

// The namespaces of one batch entered by worker threads, shared by an atomic cursor, at most
// kLookahead namespaces ahead of the consumer, which takes them (or their parts) in order on
// the calling thread. A worker runs the stage of each namespace or part it observed, and
// queues at most kQueuedParts parts of one namespace: a namespace of any size costs a few
// parts' memory. What a worker throws (out of memory, a stage's failure) is rethrown on the
// calling thread when that namespace's turn comes.
class BatchPipeline {
 public:
  BatchPipeline(ListedBatch& batch, std::size_t first_index, const Observer& observer,
                const ObserveOptions& options, TempRootFacts& facts,
                const NamespaceConsumer& consume, const NamespaceStage& stage)
      : batch_(batch),
        first_(first_index),
        observer_(observer),
        options_(options),
        facts_(facts),
        consume_(consume),
        stage_(stage),
        failures_(batch.namespaces.size()),
        ready_(batch.namespaces.size()),
        entered_(batch.namespaces.size(), 0),
        finished_(batch.namespaces.size(), 0),
        skipped_(batch.namespaces.size(), 0) {
    for (const std::size_t n : batch.to_enter) entered_[n] = 1;
  }

  // Consumes every namespace of the batch in order. Returns the position of the first one
  // that was not observed because the run limits were reached, or nullopt when all were.
  std::optional<std::size_t> run(Scratch& main_scratch) {
    start_workers();
    std::optional<std::size_t> stopped_at;
    try {
      for (std::size_t n = 0; n < batch_.namespaces.size(); ++n) {
        if (options_.limits.reached() != nullptr || !consume_namespace(n, main_scratch)) {
          stopped_at = n;
          break;
        }
        batch_.namespaces[n] = NamespaceFacts{};  // its memory went with the consumer
        {
          const std::lock_guard lock(mutex_);
          consumed_ = n + 1;
        }
        changed_.notify_all();
      }
    } catch (...) {
      stop_workers();
      throw;
    }
    stop_workers();
    return stopped_at;
  }

 private:
  static constexpr std::size_t kQueuedParts = 2;

  void start_workers() {
    if (!options_.worker_threads) return;  // consume_namespace enters each itself
    workers_scratch_ = std::vector<Scratch>(worker_count(batch_.to_enter.size()));
    for (auto& scratch : workers_scratch_) {
      try {
        workers_.emplace_back([this, &scratch] { work(scratch); });
      } catch (const std::system_error&) {
        break;
      }
    }
  }

  void stop_workers() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  // A worker: takes the next namespace to enter, once it is near enough to the consumer.
  void work(Scratch& scratch) {
    for (;;) {
      const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= batch_.to_enter.size()) break;
      const std::size_t n = batch_.to_enter[i];
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || n < consumed_ + kLookahead; });
        if (stopping_) break;
        if (options_.limits.reached() != nullptr) {
          skipped_[n] = finished_[n] = 1;
          lock.unlock();
          changed_.notify_all();
          continue;
        }
      }
      enter_for_consumer(n, scratch);
    }
  }

  // On a worker: stage each part, then queue it for the consumer.
  void enter_for_consumer(std::size_t n, Scratch& scratch) {
    const auto queue = [&](NamespaceFacts&& part, bool last) {
      if (stage_) stage_(facts_, first_ + n, part);
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || ready_[n].size() < kQueuedParts; });
      if (stopping_) return false;
      ready_[n].emplace_back(std::move(part), last);
      if (last) finished_[n] = 1;
      lock.unlock();
      changed_.notify_all();
      return true;
    };
    try {
      observer_.enter_namespace(std::move(batch_.namespaces[n]), scratch, queue);
    } catch (...) {
      const std::lock_guard lock(mutex_);
      failures_[n] = std::current_exception();
      finished_[n] = 1;
    }
    changed_.notify_all();
  }

  // On the calling thread: namespace n, staged and consumed. false: it was not entered
  // because the run limits were reached.
  bool consume_namespace(std::size_t n, Scratch& main_scratch) {
    NamespaceFacts& ns = batch_.namespaces[n];
    if (entered_[n] == 0) {
      if (stage_) stage_(facts_, first_ + n, ns);
      consume_(facts_, std::move(ns));
      return true;
    }
    if (workers_.empty()) {
      // No thread could start: observed, staged and consumed here, part by part.
      observer_.enter_namespace(std::move(ns), main_scratch, [&](NamespaceFacts&& part, bool) {
        if (stage_) stage_(facts_, first_ + n, part);
        consume_(facts_, std::move(part));
        return true;
      });
      return true;
    }
    for (;;) {
      NamespaceFacts part;
      bool last = false;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !ready_[n].empty() || finished_[n] != 0; });
        if (ready_[n].empty()) {
          if (failures_[n]) std::rethrow_exception(failures_[n]);
          return skipped_[n] == 0;  // every part was consumed
        }
        part = std::move(ready_[n].front().first);
        last = ready_[n].front().second;
        ready_[n].pop_front();
      }
      changed_.notify_all();
      consume_(facts_, std::move(part));
      if (last) return true;
    }
  }

  ListedBatch& batch_;
  const std::size_t first_;  // the index, among the temp dir's namespaces, of the batch's first
  const Observer& observer_;
  const ObserveOptions& options_;
  TempRootFacts& facts_;
  const NamespaceConsumer& consume_;
  const NamespaceStage& stage_;
  std::vector<std::exception_ptr> failures_;
  // Parts staged and waiting for the consumer, each with whether it is its namespace's last
  // (the stage may have emptied the part's facts).
  std::vector<std::deque<std::pair<NamespaceFacts, bool>>> ready_;
  std::vector<char> entered_, finished_;
  std::vector<char> skipped_;  // not entered: the run limits were reached
  std::mutex mutex_;
  Condition changed_;
  std::size_t consumed_ = 0;
  bool stopping_ = false;
  std::atomic<std::size_t> next_{0};
  std::vector<Scratch> workers_scratch_;
  std::vector<std::thread> workers_;
};

// The temp dir of `spec`, opened (through its root for a foreign root); facts.errors says
// why not.
UniqueFd open_spec_temp_dir(const RootSpec& spec, UniqueFd& root_fd, std::string& display,
                            TempRootFacts& facts) {
  display = reachable_temp_dir(spec);
  if (spec.kind == RootKind::root || spec.kind == RootKind::container) {
    ObservationError err;
    root_fd = open_system_root(spec.root, spec.kind == RootKind::container, err);
    if (!root_fd.valid()) {
      facts.errors.push_back(std::move(err));
      return {};
    }
  }
  return open_temp_dir(spec, root_fd.get(), display, facts);
}

TempRootFacts temp_root_shell(const RootSpec& spec) {
  TempRootFacts facts;
  facts.kind = spec.kind;
  facts.platform = Platform::posix;
  facts.root = spec.root;
  facts.temp_dir = spec.temp_dir;
  facts.reachable_path = reachable_temp_dir(spec);
  facts.container = spec.container;
  if (facts.container) {
    // Which host uids its processes can be (the reaper acts in a container's /tmp only as
    // those); unread, the reaper acts as none (decide/reaper.hpp).
    std::string map;
    const std::string path = "/proc/" + std::to_string(facts.container->host_pid) + "/uid_map";
    if (read_proc_file(AT_FDCWD, path.c_str(), map) == 0) facts.container->uid_map = procfs::parse_uid_map(map);
  }
  facts.sharing_mount_namespaces = spec.sharing_mount_namespaces;
  facts.unobserved = spec.unobserved;
  // The host kernel hands out the pids, also for containers and foreign roots.
  facts.max_pid = read_max_pid(facts.errors);
  if (const long page = ::sysconf(_SC_PAGESIZE); page > 0) facts.page_size = static_cast<std::uint64_t>(page);
  return facts;
}

}  // namespace

TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options,
                                const NamespaceConsumer& consume, const NamespaceStage& stage) {
  TempRootFacts facts = temp_root_shell(spec);
  const bool foreign = spec.kind == RootKind::root || spec.kind == RootKind::container;
  UniqueFd root_fd;
  OpenedTempDir temp;
  const UniqueFd temp_fd = open_spec_temp_dir(spec, root_fd, temp.display, facts);
  if (!temp_fd.valid()) return facts;
  temp.fd = temp_fd.get();
  if (const int err = stat_at(temp.fd, "", AT_EMPTY_PATH, temp.stat); err != 0) {
    facts.errors.push_back(make_error(temp.display, "statx", err));
    return facts;
  }
  facts.opened = temp.stat.inode;
  const auto temp_flags = read_inode_flags(temp.fd, temp.display, facts.errors);
  facts.volume = observe_volume(temp.fd, temp_flags, temp.display, facts.errors);
  // This host's temp dir (a container's is reached through its own root already, a foreign
  // root's has no JVMs of this host): read-only as pid 1's mount namespace shows it.
  const JvmView view = foreign ? JvmView() : JvmView(spec.temp_dir, temp.stat.inode);
  view.apply(*facts.volume);

  // The namespace and attach names of the temp dir, a batch at a time (any user can make
  // namespaces in /tmp: with namespaces_per_batch set, memory does not grow with their
  // number), each batch sorted by name.
  Scratch main_scratch;
  DirectoryReader temp_reader(temp.fd, main_scratch.dirents,
                              options.attach_files ? is_temp_dir_entry_of_interest : is_namespace_name);
  const std::size_t per_batch = options.namespaces_per_batch > 0
                                    ? options.namespaces_per_batch
                                    : std::numeric_limits<std::size_t>::max();
  MountTable mounts(spec, view);
  // Owners are looked up on this thread (the user database caches and is not shared between
  // threads), before a batch is entered, so that a stage sees them. A foreign root's passwd is
  // read and indexed once, when a namespace is first listed (a root without one costs no
  // passwd at all); the host's cache is started afresh for each batch.
  std::unique_ptr<UserDatabase> users;
  bool reported = false;
  const Observer observer(options, facts.max_pid, temp.fd, view);
  std::size_t observed = 0;  // namespaces handed over so far (the index of the next)
  for (;;) {
    std::vector<DirEntry> listed;
    if (const int err = temp_reader.read(listed, per_batch); err != 0) {
      facts.errors.push_back(make_error(temp.display, "getdents64", err));
    }
    const bool last = listed.size() < per_batch;
    ListedBatch batch = list_batch(listed, temp, mounts, facts);
    if (!foreign) {
      users = host_user_database();
    } else if (!users && !batch.namespaces.empty()) {
      users = root_user_database_at(root_fd.get(), spec.root, &options.limits);
    }
    for (NamespaceFacts& ns : batch.namespaces) {
      ns.user = users->find_user(ns.user_suffix);
      ns.user_lookup_failed = users->failed();
      if (ns.user_lookup_failed && !reported) {
        if (auto e = users->error()) facts.errors.push_back(std::move(*e));
        reported = true;
      }
    }
    const auto stopped_at =
        BatchPipeline(batch, observed, observer, options, facts, consume, stage).run(main_scratch);
    if (stopped_at) {
      // The namespaces from there on are not observed: the run limits were reached.
      const char* why = options.limits.reached();
      facts.stopped = why != nullptr ? why : "interrupted";
      facts.errors.push_back(
          ObservationError{temp.display, "observe", EINTR,
                           "stopped (" + *facts.stopped + ") after " +
                               std::to_string(observed + *stopped_at) +
                               " namespaces: the others were not observed"});
      break;
    }
    observed += batch.namespaces.size();
    if (last) break;
  }
  return facts;
}

std::size_t observe_attach_files(const RootSpec& spec, const TempRootFacts& root,
                                 std::size_t per_part, const RunLimits& limits,
                                 const AttachConsumer& consume,
                                 std::vector<ObservationError>& errors) {
  if (!root.opened) return 0;  // the temp dir was never observed: nothing to compare with
  TempRootFacts scratch;       // what opening it again met
  UniqueFd root_fd;
  OpenedTempDir temp;
  const UniqueFd temp_fd = open_spec_temp_dir(spec, root_fd, temp.display, scratch);
  errors.insert(errors.end(), scratch.errors.begin(), scratch.errors.end());
  if (!temp_fd.valid()) return 0;
  temp.fd = temp_fd.get();
  if (const int err = stat_at(temp.fd, "", AT_EMPTY_PATH, temp.stat); err != 0) {
    errors.push_back(make_error(temp.display, "statx", err));
    return 0;
  }
  if (temp.stat.inode.dev != root.opened->dev || temp.stat.inode.ino != root.opened->ino) {
    errors.push_back(ObservationError{temp.display, "open", 0,
                                      "replaced since its namespaces were observed: its attach "
                                      "files were not observed"});
    return 0;
  }
  std::vector<char> dirents;
  DirectoryReader reader(temp.fd, dirents, is_attach_name);
  const std::size_t per = per_part > 0 ? per_part : std::numeric_limits<std::size_t>::max();
  std::size_t handed = 0;
  for (;;) {
    if (const char* why = limits.reached()) {
      errors.push_back(ObservationError{temp.display, "observe", EINTR,
                                        std::string("stopped (") + why + ") after " +
                                            std::to_string(handed) +
                                            " attach files: the others were not observed"});
      break;
    }
    std::vector<DirEntry> listed;
    if (const int err = reader.read(listed, per); err != 0) {
      errors.push_back(make_error(temp.display, "getdents64", err));
    }
    const bool last = listed.size() < per;
    std::sort(listed.begin(), listed.end());
    std::vector<AttachFacts> part;
    part.reserve(listed.size());
    for (auto& entry : listed) {
      part.push_back(observe_attach_entry(std::move(entry.name), temp, root.max_pid));
    }
    handed += part.size();
    if (!part.empty()) consume(std::move(part));
    if (last) break;
  }
  return handed;
}

}  // namespace hsperfguard::platform
