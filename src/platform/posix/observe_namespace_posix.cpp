// The observer of one namespace on Linux (observe_namespace_posix.hpp): a namespace entered
// and its files observed, relative to the directory fds opened and verified, one at a time or
// in io_uring batches; the reasons for each step are said at the top of observe_posix.cpp.
#include "platform/posix/observe_namespace_posix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "model/perfdata.hpp"
#include "model/pid_name.hpp"
#include "platform/posix/acl_posix.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/volume_posix.hpp"

namespace hsperfguard::platform {

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

int DirectoryReader::read(std::vector<DirEntry>& out, std::size_t max) {
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

void Observer::enter_namespace(NamespaceFacts&& ns, Scratch& scratch, const PartSink& emit) const {
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

// The entries listed in scratch.entries become ns.files, in name order, each observed.
void Observer::observe_entries(int dirfd, const Stat& opened, NamespaceFacts& ns,
                               Scratch& scratch) const {
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
bool Observer::open_listed_file(int dirfd, const Stat& ns, FileFacts& file,
                                Scratch& scratch) const {
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
bool Observer::record_listed_file(const Stat& st, const Stat& ns, FileFacts& file) {
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
void Observer::open_listed_files(IoBatch& batch, int dirfd, const Stat& ns,
                                 std::vector<FileFacts>& files, std::span<const std::size_t> chosen,
                                 Scratch& scratch) const {
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
IoBatch* Observer::batch_for(Scratch& scratch) const {
  if (!options_.batched_io || !options_.open_files || !openat2_available()) return nullptr;
  if (!scratch.batch_tried) {
    scratch.batch_tried = true;
    scratch.batch = IoBatch::create(2 * kBatchFiles);
  }
  return scratch.batch.get();
}

// The careful path: lstat the entry, then open only a regular file on this mount.
void Observer::observe_file(int dirfd, const Stat& ns, FileFacts& file, Scratch& scratch) const {
  Stat st;
  if (const int err = stat_at(dirfd, file.name.c_str(), kEntryStatFlags, st); err != 0) {
    file.errors.push_back(make_error(file.path, "statx", err));  // vanished, EACCES, ...
    return;
  }
  file.lstat = st.inode;
  file.crosses_mount = !same_mount(st.inode, st.mount_id, ns.inode, ns.mount_id);
  if (st.inode.kind == FileKind::symlink) file.link_target = link_target_at(dirfd, file.name.c_str());
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
std::size_t Observer::region_cap(std::uint64_t file_size, FileFacts& file) const {
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
// used. A file whose name is no pid (PidNameKind::not_a_pid: "notes.txt", "1junk") is not
// read at all: no JVM and no JVM tool reads it, no rule judges its content, and where
// O_NOATIME is refused (someone else's file, without CAP_FOWNER) the read would renew its
// access time, by which systemd-tmpfiles ages it.
void Observer::read_region(int fd, std::uint64_t file_size, FileFacts& file,
                           Scratch& scratch) const {
  if (file.pid_name.kind == PidNameKind::not_a_pid) return;
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
int Observer::open_quietly(int dirfd, const char* name, int flags, std::uint32_t owner) const {
  const bool ours = owner == euid_;
  if (ours || !noatime_refused_.load(std::memory_order_relaxed)) {
    const int fd = ::openat(dirfd, name, flags | O_NOATIME);
    if (fd >= 0 || errno != EPERM) return fd;
    if (!ours) noatime_refused_.store(true, std::memory_order_relaxed);
  }
  return ::openat(dirfd, name, flags);
}

}  // namespace hsperfguard::platform
