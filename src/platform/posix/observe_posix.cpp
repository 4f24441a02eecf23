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
//
// The work is in three files: this one, the entry points and the temp dir's own listing;
// observe_namespace_posix.cpp, one namespace entered and its files observed;
// observe_pipeline_posix.cpp, the worker threads that observe a batch of namespaces ahead.
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/digits.hpp"
#include "model/pid_name.hpp"
#include "model/procfs_parse.hpp"
#include "platform/observe.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/cleaners_posix.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/posix/jvm_view_posix.hpp"
#include "platform/posix/observe_namespace_posix.hpp"
#include "platform/posix/observe_pipeline_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/posix/stat_posix.hpp"
#include "platform/posix/volume_posix.hpp"
#include "platform/users.hpp"

namespace hsperfguard::platform {
namespace {

constexpr std::string_view kNamespacePrefix = "hsperfdata_";
constexpr std::string_view kListenerPrefix = ".java_pid";
constexpr std::string_view kTriggerPrefix = ".attach_pid";

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
  if (st.inode.kind == FileKind::symlink) ns.link_target = link_target_at(temp.fd, ns.name.c_str());
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
  facts.alt_temp_dir_pid = spec.alt_temp_dir_pid;
  facts.account = spec.account;
  facts.container = spec.container;
  if (facts.container) {
    // Which host uids its processes can be (the reaper acts in a container's /tmp only as
    // those); unread, the reaper acts as none (decide/reaper.hpp).
    std::string map;
    const std::string path = "/proc/" + std::to_string(facts.container->host_pid) + "/uid_map";
    if (read_proc_file(AT_FDCWD, path.c_str(), map) == 0) facts.container->uid_map = procfs::parse_uid_map(map);
  }
  facts.sharing_mount_namespaces = spec.sharing_mount_namespaces;
  facts.own_mount_namespace = spec.own_mount_namespace;
  facts.unobserved = spec.unobserved;
  // The host kernel hands out the pids, also for containers and foreign roots.
  facts.max_pid = read_max_pid(facts.errors);
  if (const long page = ::sysconf(_SC_PAGESIZE); page > 0) facts.page_size = static_cast<std::uint64_t>(page);
  return facts;
}

// The owner of each namespace of the batch, by its name's suffix; the first failure of the
// user database goes to the temp root's errors once (`reported`). `users` is null only where
// the batch has no namespace.
void look_up_owners(ListedBatch& batch, UserDatabase* users, bool& reported, TempRootFacts& facts) {
  for (NamespaceFacts& ns : batch.namespaces) {
    ns.user = users->find_user(ns.user_suffix);
    ns.user_lookup_failed = users->failed();
    if (ns.user_lookup_failed && !reported) {
      if (auto e = users->error()) facts.errors.push_back(std::move(*e));
      reported = true;
    }
  }
}

}  // namespace

TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options,
                                const NamespaceConsumer& consume, const NamespaceStage& stage) {
  TempRootFacts facts = temp_root_shell(spec);
  const bool foreign = spec.kind == RootKind::root || spec.kind == RootKind::container;
  UniqueFd root_fd;
  OpenedTempDir temp;
  const UniqueFd temp_fd = open_spec_temp_dir(spec, root_fd, temp.display, facts);
  if (options.cleaners && (spec.kind == RootKind::host || (spec.kind == RootKind::root && root_fd.valid()))) {
    const UniqueFd host_root(spec.kind == RootKind::host ? ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1);
    const int system_root = spec.kind == RootKind::host ? host_root.get() : root_fd.get();
    if (system_root >= 0) {
      facts.cleaners = observe_cleaners(system_root, spec.kind == RootKind::host ? std::string("/") : spec.root);
    } else {
      facts.cleaners = CleanerFacts{};
      facts.cleaners->errors.push_back(make_error("/", "open", errno));
    }
  }
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
    look_up_owners(batch, users.get(), reported, facts);
    const auto stopped_at =
        run_batch_pipeline(batch, observed, observer, options, facts, consume, stage, main_scratch);
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