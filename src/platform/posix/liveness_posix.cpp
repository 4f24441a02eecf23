// Liveness evidence on Linux: held locks from /proc/locks (read once), processes from
// /proc/<pid> (read once each), and for container roots the host processes of the
// container's mount namespace (from one pass over /proc that places every process outside
// ours, taken again only for a namespace with a file changed since it). ps hands over what its
// own pass over /proc read (adopt): its JVMs and where every process outside our mount
// namespace is, so that nothing is read twice; and it asks for the lock state only when a
// row depends on it (gather_locks).
//
// Reading /proc/locks never takes a lock, so a JVM starting at the same moment never finds
// its own file locked by us. The flock probe is only the fallback for an unreadable table.
#include "platform/posix/liveness_posix.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <unordered_map>
#include <vector>

#include "platform/host.hpp"
#include "platform/liveness.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/process.hpp"

namespace hsperfguard::platform {
namespace {

constexpr int kProbeOpenFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
constexpr int kDirOpenFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
// Linux's PID_MAX_LIMIT: gone pids up to here are remembered in a bitmap (512 KiB at most).
constexpr std::int32_t kMaxCachedPid = 4 * 1024 * 1024;

const InodeFacts* identity_of(const FileFacts& file) {
  return file.opened ? &*file.opened : file.lstat ? &*file.lstat : nullptr;
}

}  // namespace

std::optional<bool> probe_lock_at(int dirfd, const char* name, std::uint64_t dev, std::uint64_t ino,
                                  ObservationError* err) {
  auto fail = [&](std::string op, int code, std::string message = {}) -> std::optional<bool> {
    if (err != nullptr && code != 0) {
      *err = make_error(name, std::move(op), code);
    } else if (err != nullptr) {
      *err = ObservationError{name, std::move(op), 0, std::move(message)};
    }
    return std::nullopt;
  };
  UniqueFd fd(open_noatime(dirfd, name, kProbeOpenFlags));
  if (!fd.valid()) return fail("openat", errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail("fstat", errno);
  if (!S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_dev) != dev ||
      static_cast<std::uint64_t>(st.st_ino) != ino) {
    return fail("openat", 0, "replaced while being observed");
  }
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
    ::flock(fd.get(), LOCK_UN);  // closing would release it too; do not wait for that
    return false;
  }
  if (errno == EWOULDBLOCK) return true;
  return fail("flock", errno);
}

ProcessFacts observe_process(std::int32_t pid) { return ProcReader().read(pid).facts; }

std::optional<std::string> process_name(std::int32_t pid) {
  auto comm = ProcReader().read_raw(pid, "comm");
  if (!comm) return std::nullopt;
  while (!comm->empty() && comm->back() == '\n') comm->pop_back();
  return comm;
}

struct LivenessGatherer::Impl {
  explicit Impl(LivenessOptions o) : options(std::move(o)), reader("/proc", &options.limits) {}

  LivenessOptions options;
  bool locks_read = false;
  std::optional<LockTable> locks;
  std::optional<ObservationError> locks_error;
  ProcReader reader;
  // Processes read so far. Most pids named by files are gone: those are only a bit each.
  std::unordered_map<std::int32_t, ProcessRecord> processes;
  std::vector<bool> gone;
  ProcessFacts gone_facts;  // what process() last said of a gone pid
  std::unordered_map<std::string, NamespaceIndex> namespaces;
  std::optional<ContainerScan> adopted;  // placements to index namespaces from (ps)

  // Where every process outside our mount namespace was at one moment, and the indexes of
  // the mount namespaces asked for so far, made from it. One pass over /proc serves every
  // container: a pass per container namespace made a run over N containers cost N passes
  // over N processes (any user can make containers). A pass answers for the files observed
  // before it began, and for the files a later namespace observed holds that were last changed
  // before it began (ctime, less kReadingMarginMs: a process that made its file since could be
  // missing from it). A namespace with a later file gets a new pass, at most one per
  // kPassIntervalMs; until then such a file's search is not complete (its verdict stays
  // unknown), so that files changed on purpose cannot make every container cost a pass.
  struct Placements {
    std::int64_t began_ms = 0;
    std::uint64_t serial = 0;  // this pass's number among the gatherer's (passes_taken)
    std::vector<ProcessPlacement> placed;
    bool listed_all = false;
    std::vector<ObservationError> errors;
    // Positions in `placed`: by mount namespace, and those whose namespace is unknown (they
    // belong to every index).
    std::unordered_map<std::string, std::vector<std::size_t>> by_namespace;
    std::vector<std::size_t> unplaced;
    std::unordered_map<std::string, NamespaceIndex> indexes;
  };
  std::optional<Placements> placements;
  std::uint64_t passes_taken = 0;
  std::optional<std::string> own_mount_namespace;  // nullopt: not read yet; "": unreadable

  // The attach listeners of each network namespace read so far ("net:[4026531840]"), and
  // when that reading began: it answers for a socket file last changed before then (less
  // kReadingMarginMs), whose listener, if it had one, was listening before the file had its name.
  struct NetListeners {
    std::int64_t began_ms = 0;
    procfs::UnixListeners listeners;
    std::optional<ObservationError> error;
  };
  std::unordered_map<std::string, NetListeners> net_listeners;
  std::vector<char> listing_buffer;  // net/unix chunks and /proc/<pid>/fd listings

  NetListeners read_net_listeners(int proc_dirfd, const std::string& dir) {
    NetListeners net;
    net.began_ms = now_epoch_ms();
    UnixListenersReading reading = read_unix_listeners(proc_dirfd, "net/unix", listing_buffer, &options.limits);
    if (reading.error != 0) {
      net.error = make_error(dir + "/net/unix", "read", reading.error);
    } else if (reading.stopped != nullptr) {
      net.error = ObservationError{dir + "/net/unix", "read", EINTR,
                                   std::string("not read to its end: ") + reading.stopped};
    }
    net.listeners = std::move(reading.listeners);
    return net;
  }

  // Whether host process `host_pid`, whose own pid is `name_pid`, listens on an attach
  // socket named after it, for a socket file last changed at `ctime_ms`.
  AttachListenerFacts attach_listener(std::int32_t host_pid, std::int32_t name_pid, std::int64_t ctime_ms) {
    AttachListenerFacts out;
    out.pid = host_pid;
    const std::string dir = "/proc/" + std::to_string(host_pid);
    UniqueFd proc(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!proc.valid()) {
      out.errors.push_back(make_error(dir, "open", errno));
      return out;
    }
    // Its own network namespace's sockets: a container with a network of its own lists its
    // JVM's listener there only. Shared by the processes of that namespace when it is named.
    std::string netns;
    NetListeners unnamed;
    const NetListeners* net = &unnamed;
    if (readlink_at(proc.get(), "ns/net", netns) == 0) {
      auto it = net_listeners.find(netns);
      if (it == net_listeners.end() || reading_may_miss(ctime_ms, it->second.began_ms)) {
        it = net_listeners.insert_or_assign(netns, read_net_listeners(proc.get(), dir)).first;
      }
      net = &it->second;
    } else {
      unnamed = read_net_listeners(proc.get(), dir);
    }
    if (net->error) {
      out.errors.push_back(*net->error);
      return out;
    }
    std::vector<std::uint64_t> inodes;
    for (const procfs::AttachListenerLine& l : net->listeners.listeners) {
      if (l.pid == name_pid) inodes.push_back(l.inode);
    }
    const auto incomplete = [&] {
      out.errors.push_back(ObservationError{
          dir + "/net/unix", "read", 0,
          "more than " + std::to_string(procfs::kMaxAttachListeners) +
              " attach listeners in its network namespace: the others were not kept"});
    };
    if (!inodes.empty()) {
      int err = 0;
      if (const auto held = held_socket(proc.get(), inodes, listing_buffer, err)) {
        out.listens = true;
        out.socket_inode = *held;
        for (const procfs::AttachListenerLine& l : net->listeners.listeners) {
          if (l.inode == *held) out.bound_path = l.path;
        }
        return out;
      }
      if (err != 0) {
        out.errors.push_back(make_error(dir + "/fd", "read", err));
        return out;
      }
    }
    if (!net->listeners.complete()) {
      incomplete();
      return out;
    }
    out.listens = false;
    return out;
  }

  const LockTable* lock_table() {
    if (!options.use_lock_table) return nullptr;
    if (!locks_read) {
      locks_read = true;
      ObservationError err;
      locks = LockTable::read("/proc/locks", &err);
      if (!locks) locks_error = std::move(err);
    }
    return locks ? &*locks : nullptr;
  }

  // Fills the lock fields of every file of `ns` that has liveness facts.
  void add_lock_state(NamespaceFacts& ns);

  bool known_gone(std::int32_t pid) const {
    return pid > 0 && static_cast<std::size_t>(pid) < gone.size() &&
           gone[static_cast<std::size_t>(pid)];
  }

  // Reads `pid` unless it is cached; returns null when it is gone.
  const ProcessRecord* record(std::int32_t pid) {
    if (known_gone(pid)) return nullptr;
    if (auto it = processes.find(pid); it != processes.end()) return &it->second;
    ProcessRecord r = reader.read(pid);
    if (r.facts.existence == ProcessFacts::Existence::gone && pid > 0 && pid <= kMaxCachedPid) {
      const auto index = static_cast<std::size_t>(pid);
      if (gone.size() <= index) gone.resize(std::max(index + 1, gone.size() * 2));
      gone[index] = true;
      return nullptr;
    }
    return &processes.emplace(pid, std::move(r)).first->second;
  }

  // The index of a container's mount namespace for a namespace observed before the gathering
  // that began when `passes_before` passes had been taken, whose files were last changed at
  // `newest_change_ms` (epoch ms; 0: none) or before.
  const NamespaceIndex& namespace_index(const std::string& mount_namespace, std::uint64_t passes_before,
                                        std::int64_t newest_change_ms) {
    if (!own_mount_namespace) {
      std::string text;
      own_mount_namespace = readlink_at(AT_FDCWD, "/proc/self/ns/mnt", text) == 0 ? text : "";
    }
    const bool passes = !adopted && !own_mount_namespace->empty() && *own_mount_namespace != mount_namespace;
    if (!passes) return namespace_index(mount_namespace);
    const std::int64_t now = now_epoch_ms();
    if (!placements || (placements->serial <= passes_before &&
                        reading_may_miss(newest_change_ms, placements->began_ms) &&
                        pass_interval_over(placements->began_ms, now))) {
      Placements pass;
      pass.began_ms = now;
      pass.serial = ++passes_taken;
      pass.placed = reader.place_processes_outside(*own_mount_namespace, pass.listed_all, pass.errors);
      for (std::size_t i = 0; i < pass.placed.size(); ++i) {
        const auto& mnt = pass.placed[i].mount_namespace;
        (mnt ? pass.by_namespace[*mnt] : pass.unplaced).push_back(i);
      }
      placements = std::move(pass);
    }
    auto it = placements->indexes.find(mount_namespace);
    if (it == placements->indexes.end()) {
      // Its processes and the unplaced ones, in the order of the pass.
      std::vector<std::size_t> positions = placements->unplaced;
      if (auto in = placements->by_namespace.find(mount_namespace); in != placements->by_namespace.end()) {
        positions.insert(positions.end(), in->second.begin(), in->second.end());
        std::sort(positions.begin(), positions.end());
      }
      std::vector<ProcessPlacement> relevant;
      relevant.reserve(positions.size());
      for (const std::size_t i : positions) relevant.push_back(placements->placed[i]);
      NamespaceIndex index = index_mount_namespace(relevant, mount_namespace, placements->listed_all);
      index.errors.insert(index.errors.end(), placements->errors.begin(), placements->errors.end());
      index.pass_began_ms = placements->began_ms;
      index.pass_serial = placements->serial;
      it = placements->indexes.emplace(mount_namespace, std::move(index)).first;
    }
    return it->second;
  }

  const NamespaceIndex& namespace_index(const std::string& mount_namespace) {
    auto it = namespaces.find(mount_namespace);
    if (it == namespaces.end()) {
      // Adopted placements cover every mount namespace but the scanner's own.
      const bool placed = adopted && adopted->own_mount_namespace &&
                          *adopted->own_mount_namespace != mount_namespace;
      it = namespaces
               .emplace(mount_namespace,
                        placed ? index_mount_namespace(adopted->placements, mount_namespace,
                                                       adopted->placements_complete)
                               : reader.scan_mount_namespace(mount_namespace))
               .first;
    }
    return it->second;
  }

  // What process `host_pid` says, and, when `file` is given, whether it maps that file.
  ProcessFacts candidate(std::int32_t host_pid, const procfs::FileId* file) {
    const ProcessRecord* r = record(host_pid);
    if (r == nullptr) {
      ProcessFacts p;
      p.pid = host_pid;
      p.existence = ProcessFacts::Existence::gone;
      return p;
    }
    ProcessFacts p = r->facts;
    if (r->mapped && file != nullptr) {
      const procfs::Match m = procfs::match_file(*r->mapped, *file);
      // Maps read in part prove a mapping they show, never the absence of one.
      if (m != procfs::Match::none || r->mapped_complete) {
        p.maps_backing_file = m != procfs::Match::none;
        p.maps_inode_only = m == procfs::Match::inode_only;
      }
    }
    return p;
  }

  // The indexes of the mount namespaces whose processes may have written names under
  // `scope` (containers: by their last NSpid field), for files last changed at
  // `newest_change_ms` and observed before the gathering that began after `passes_before`
  // passes. A container root without its own namespace is never complete (`namespace_missing`).
  struct ScopeIndexes {
    std::vector<const NamespaceIndex*> indexes;
    bool namespace_missing = false;
  };
  ScopeIndexes scope_indexes(const LivenessScope& scope, std::uint64_t passes_before,
                             std::int64_t newest_change_ms, std::vector<ObservationError>* errors) {
    ScopeIndexes out;
    auto add_index = [&](const std::string& mount_namespace) {
      const NamespaceIndex* index = &namespace_index(mount_namespace, passes_before, newest_change_ms);
      if (std::find(out.indexes.begin(), out.indexes.end(), index) != out.indexes.end()) return;
      out.indexes.push_back(index);
      if (errors != nullptr) errors->insert(errors->end(), index->errors.begin(), index->errors.end());
    };
    if (scope.kind == RootKind::container) {
      if (scope.container && !scope.container->mount_namespace.empty()) {
        add_index(scope.container->mount_namespace);
      } else {
        out.namespace_missing = true;
      }
    }
    for (const auto& mount_namespace : scope.sharing_mount_namespaces) add_index(mount_namespace);
    return out;
  }

  // Adds to `candidates` the host processes of `scope`'s indexes whose last NSpid is `pid`
  // (each once).
  void add_nspid_candidates(const ScopeIndexes& scope, std::int32_t pid, const procfs::FileId* file,
                            std::vector<ProcessFacts>& candidates) {
    for (const NamespaceIndex* index : scope.indexes) {
      auto it = index->host_pids_by_nspid.find(pid);
      if (it == index->host_pids_by_nspid.end()) continue;
      for (const std::int32_t host_pid : it->second) {
        const bool known = std::any_of(candidates.begin(), candidates.end(),
                                       [&](const ProcessFacts& p) { return p.pid == host_pid; });
        if (!known) candidates.push_back(candidate(host_pid, file));
      }
    }
  }

  // Whether every process of `scope`'s indexes that could have pid `pid` (nullopt: any) was
  // placed, for a file last changed at `ctime_ms`: a file changed after a pass made before
  // this gathering began may belong to a process the pass missed.
  static bool complete_for(const ScopeIndexes& scope, std::optional<std::int32_t> pid, std::int64_t ctime_ms,
                           std::uint64_t passes_before) {
    return !scope.namespace_missing &&
           std::all_of(scope.indexes.begin(), scope.indexes.end(), [&](const NamespaceIndex* index) {
             if (index->pass_began_ms && index->pass_serial <= passes_before &&
                 reading_may_miss(ctime_ms, *index->pass_began_ms)) {
               return false;
             }
             return pid ? index->complete_for(*pid) : index->complete;
           });
  }
};

LivenessGatherer::LivenessGatherer(LivenessOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

LivenessGatherer::~LivenessGatherer() = default;

const ProcessFacts& LivenessGatherer::process(std::int32_t pid) {
  if (const ProcessRecord* r = impl_->record(pid)) return r->facts;
  // Gone pids are cached as a bit; their (trivial) facts are made in one place on request,
  // not kept: a reaper asks for the pid of every attach file, and anyone can make any number.
  ProcessFacts& gone = impl_->gone_facts;
  gone = ProcessFacts{};
  gone.pid = pid;
  gone.existence = ProcessFacts::Existence::gone;
  return gone;
}

void LivenessGatherer::adopt(const std::vector<JvmProcessFacts>& jvms) {
  for (const JvmProcessFacts& jvm : jvms) {
    if (!jvm.mapped_files) continue;  // its maps unread: let the gatherer try
    ProcessRecord r;
    r.facts = jvm.process;
    r.facts.maps_backing_file.reset();  // a per-file question
    r.facts.maps_inode_only = false;
    r.mapped = jvm.mapped_files;
    r.mapped_complete = !jvm.process.maps_cut;
    r.maps_hsperfdata = jvm.maps_backing_file;
    impl_->processes.try_emplace(jvm.process.pid, std::move(r));
  }
}

void LivenessGatherer::adopt(const ContainerScan& placed) {
  if (!placed.placements.empty() || placed.placements_complete) impl_->adopted = placed;
}

void LivenessGatherer::gather(TempRootFacts& root) {
  const LivenessScope scope = liveness_scope_of(root);
  for (auto& ns : root.namespaces) gather(ns, scope);
}

namespace {

// The directory of `ns`, opened for the lock probe only if a probe is needed, and only if it
// is still the directory that was observed.
class ProbeDir {
 public:
  explicit ProbeDir(NamespaceFacts& ns) : ns_(ns) {}
  int get() {
    if (!tried_) {
      tried_ = true;
      const InodeFacts* want = ns_.opened ? &*ns_.opened : ns_.lstat ? &*ns_.lstat : nullptr;
      UniqueFd fd(open_noatime(AT_FDCWD, ns_.path.c_str(), kDirOpenFlags));
      struct stat st {};
      if (!fd.valid()) {
        ns_.errors.push_back(make_error(ns_.path, "open", errno));
      } else if (::fstat(fd.get(), &st) != 0) {
        ns_.errors.push_back(make_error(ns_.path, "fstat", errno));
      } else if (want == nullptr || static_cast<std::uint64_t>(st.st_dev) != want->dev ||
                 static_cast<std::uint64_t>(st.st_ino) != want->ino) {
        ns_.errors.push_back(
            ObservationError{ns_.path, "open", 0, "replaced while being observed"});
      } else {
        dir_ = std::move(fd);
      }
    }
    return dir_.get();
  }

 private:
  NamespaceFacts& ns_;
  UniqueFd dir_;
  bool tried_ = false;
};

}  // namespace

void LivenessGatherer::Impl::add_lock_state(NamespaceFacts& ns) {
  const LockTable* table = lock_table();
  if (options.use_lock_table && table == nullptr && locks_error) {
    ns.errors.push_back(*locks_error);  // each namespace says why it fell back to probing
  }
  ProbeDir dir(ns);
  // Devices in /proc/locks are stat's st_dev on these file systems: no inode-only match.
  const bool inode_fallback = !ns.volume || (ns.volume->fs_type != "tmpfs" &&
                                             ns.volume->fs_type != "ext4" &&
                                             ns.volume->fs_type != "xfs");
  for (FileFacts& file : ns.files) {
    const InodeFacts* inode = identity_of(file);
    if (inode == nullptr || !file.liveness) continue;
    LivenessFacts& lf = *file.liveness;
    lf.lock_held.reset();
    lf.lock_holder_pid.reset();
    lf.lock_kind.clear();
    lf.lock_inode_only = false;
    if (table != nullptr) {
      const LockTable::Lookup found = table->find(inode->dev, inode->ino, inode_fallback);
      lf.lock_source = "proc-locks";
      lf.lock_held = found.holder != nullptr;
      if (found.holder != nullptr) {
        lf.lock_holder_pid = found.holder->pid;
        lf.lock_kind = found.holder->kind;
        lf.lock_inode_only = found.inode_only;
      }
    } else if (inode->kind == FileKind::regular && !file.crosses_mount) {
      lf.lock_source = "probe";
      if (const int dirfd = dir.get(); dirfd >= 0) {
        ObservationError err;
        lf.lock_held = probe_lock_at(dirfd, file.name.c_str(), inode->dev, inode->ino, &err);
        if (!lf.lock_held) {
          err.path = file.path;
          file.errors.push_back(std::move(err));
        }
      }
    } else {
      lf.lock_source = "none";  // nothing we would probe: the lock state stays unknown
    }
  }
}

void LivenessGatherer::gather_locks(TempRootFacts& root) {
  for (auto& ns : root.namespaces) impl_->add_lock_state(ns);
}

void LivenessGatherer::gather(NamespaceFacts& ns, const LivenessScope& scope) {
  Impl& impl = *impl_;
  for (FileFacts& file : ns.files) {
    file.liveness.reset();
    if (identity_of(file) == nullptr) continue;  // never stat'ed: nothing to look up
    file.liveness.emplace().lock_source = "none";
  }
  // The lock state is read before any process, as it always was.
  if (impl.options.lock_state) impl.add_lock_state(ns);

  const bool container = scope.kind == RootKind::container;
  // The last change of the files to judge (ctime: nobody can set it back), for an index made
  // before this call (one made during it came after their observation).
  const std::uint64_t passes_before = impl.passes_taken;
  std::int64_t newest_change_ms = 0;
  for (const FileFacts& file : ns.files) {
    if (const InodeFacts* inode = identity_of(file)) newest_change_ms = std::max(newest_change_ms, inode->ctime.millis());
  }
  const Impl::ScopeIndexes indexes = impl.scope_indexes(scope, passes_before, newest_change_ms, &ns.errors);
  if (indexes.namespace_missing) {
    ns.errors.push_back(ObservationError{ns.path, "liveness", 0, "container root without a mount namespace"});
  }

  for (FileFacts& file : ns.files) {
    if (!file.liveness) continue;
    const InodeFacts* inode = identity_of(file);
    const procfs::FileId id = file_id(inode->dev, inode->ino);
    LivenessFacts& lf = *file.liveness;
    if (file.pid_name.pid) {
      const std::int32_t name_pid = *file.pid_name.pid;
      if (!container) lf.candidates.push_back(impl.candidate(name_pid, &id));
      impl.add_nspid_candidates(indexes, name_pid, &id, lf.candidates);
    }
    if (container) {
      lf.candidates_complete = !indexes.indexes.empty() &&
                               Impl::complete_for(indexes, file.pid_name.pid, inode->ctime.millis(), passes_before);
    }
  }
}

void LivenessGatherer::gather(AttachFacts& attach, const LivenessScope& scope) {
  Impl& impl = *impl_;
  attach.liveness.reset();
  if (!attach.pid || !attach.lstat) return;  // nothing to look up
  const std::uint64_t passes_before = impl.passes_taken;
  const std::int64_t ctime_ms = attach.lstat->ctime.millis();
  // The indexes' errors are the namespaces' (every attach file would repeat them); a search
  // they leave incomplete says so through candidates_complete.
  const Impl::ScopeIndexes indexes = impl.scope_indexes(scope, passes_before, ctime_ms, nullptr);
  AttachLiveness& al = attach.liveness.emplace();
  // No file is asked about: a process's maps say nothing of an attach file.
  const bool container = scope.kind == RootKind::container;
  if (!container) al.candidates.push_back(impl.candidate(*attach.pid, nullptr));
  impl.add_nspid_candidates(indexes, *attach.pid, nullptr, al.candidates);
  // A container's files name only its namespaces' pids; the host's (and a foreign root's
  // of this host) name host pids, and those of the namespaces sharing it, if any.
  al.candidates_complete = (!container || !indexes.indexes.empty()) &&
                           Impl::complete_for(indexes, *attach.pid, ctime_ms, passes_before);
  // A listener socket whose pid lives: does that process listen on it? A file that is not
  // a socket is judged by its kind, and a trigger file has no listener.
  if (attach.kind != AttachFacts::Kind::listener_socket || attach.lstat->kind != FileKind::socket) return;
  for (const ProcessFacts& p : al.candidates) {
    if (p.existence == ProcessFacts::Existence::alive) {
      al.listeners.push_back(impl.attach_listener(p.pid, *attach.pid, ctime_ms));
    }
  }
}

}  // namespace hsperfguard::platform
