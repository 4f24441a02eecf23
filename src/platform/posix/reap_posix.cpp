// The reap executor on Linux. See platform/reap.hpp for the sequence; the reasons are here.
//
// Identity: setfsuid/setfsgid and the raw setgroups system call change only the calling
// thread's credentials (glibc's setgroups() would change every thread's), so two acting
// threads can each be a different user, and the main thread stays root. Moving the fsuid
// from 0 to another uid also drops the file-system capabilities (CAP_DAC_OVERRIDE,
// CAP_FOWNER, ...) from that thread's effective set: a raced path then meets exactly the
// permission checks the namespace owner would.
//
// What is left to a racer, and why it is harmless: (1) a regular file is opened by name
// (O_NOFOLLOW|O_NONBLOCK|O_NOCTTY) to take its lock; a device node swapped in at that instant
// would be opened read-only with the owner's identity before fstat refuses it, and only root
// can make device nodes (or the owner hard-link one it may read and write). (2) Linux cannot
// unlink "this inode": between the last fstatat and unlinkat someone who may rename in the
// directory can swap the name, and then another entry of that same directory is removed, as
// that user could remove it. If the held inode then still has a name, that is reported as a
// failure ("swapped-during-unlink"). If the swapper also removed the held inode's last name
// in that instant, the judged file is gone as "removed" says, and the other entry went with
// it: the model (verify/reap.pml, STRICT_REPORT) finds that trail, and only the namespace's
// owner or root can make it. Nothing outside the directory is reachable.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "model/perfdata.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/posix/stat_posix.hpp"
#include "platform/reap.hpp"
#include "platform/reap_ledger.hpp"

namespace hsperfguard::platform {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
constexpr int kNameStat = AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC;

bool same_entry(const Stat& s, const ExpectedInode& e) {
  return s.inode.dev == e.dev && s.inode.ino == e.ino && s.inode.kind == e.kind &&
         s.inode.uid == e.uid;
}

// The directory an entry lives in: its device and mount, which the entry must share.
struct Place {
  std::uint64_t dev = 0;
  std::optional<std::uint64_t> mount_id;
  bool contains(const Stat& s) const {
    return s.inode.dev == dev && (!mount_id || !s.mount_id || *mount_id == *s.mount_id);
  }
};

// Whether `fd` is still the directory `want` describes. When it is not, `err` (at `path`,
// opened by `op`) says why: its fstat's error, or that another directory is there now.
bool same_dir(int fd, const std::optional<InodeFacts>& want, const std::string& path,
              const char* op, ObservationError& err) {
  struct stat st {};
  const int stat_err = ::fstat(fd, &st) == 0 ? 0 : errno;
  if (stat_err == 0 && want && S_ISDIR(st.st_mode) &&
      static_cast<std::uint64_t>(st.st_dev) == want->dev &&
      static_cast<std::uint64_t>(st.st_ino) == want->ino) {
    return true;
  }
  err = stat_err != 0 ? make_error(path, "fstat", stat_err)
                      : ObservationError{path, op, 0, "replaced while being observed"};
  return false;
}

// ---- Per-thread file-system identity --------------------------------------------------------

class ThreadIdentity {
 public:
  ThreadIdentity() = default;
  ThreadIdentity(const ThreadIdentity&) = delete;
  ThreadIdentity& operator=(const ThreadIdentity&) = delete;
  ~ThreadIdentity() { restore(); }

  // Takes (uid, gid) as this thread's fsuid/fsgid with no supplementary groups, and checks
  // that the kernel applied it. On failure everything is restored and the error returned.
  std::optional<ObservationError> assume(std::uint32_t uid, std::uint32_t gid,
                                         const std::string& where) {
    restore();
    saved_fsuid_ = static_cast<uid_t>(::setfsuid(static_cast<uid_t>(-1)));
    saved_fsgid_ = static_cast<gid_t>(::setfsgid(static_cast<gid_t>(-1)));
    const int n = ::getgroups(0, nullptr);
    if (n < 0) return make_error(where, "getgroups", errno);
    saved_groups_.resize(static_cast<std::size_t>(n));
    if (n > 0 && ::getgroups(n, saved_groups_.data()) < 0) {
      return make_error(where, "getgroups", errno);
    }
    active_ = true;
    if (::syscall(SYS_setgroups, 0, nullptr) != 0) {
      const int err = errno;
      restore();
      return make_error(where, "setgroups", err);
    }
    ::setfsgid(static_cast<gid_t>(gid));
    ::setfsuid(static_cast<uid_t>(uid));
    // Each call returns the previous value: asking again reads back what is in effect.
    const auto fsgid = static_cast<gid_t>(::setfsgid(static_cast<gid_t>(gid)));
    const auto fsuid = static_cast<uid_t>(::setfsuid(static_cast<uid_t>(uid)));
    if (fsuid != uid || fsgid != gid) {
      restore();
      return ObservationError{where, "setfsuid", EPERM,
                              "could not take the file-system identity " + std::to_string(uid) +
                                  ":" + std::to_string(gid)};
    }
    return std::nullopt;
  }

  void restore() {
    if (!active_) return;
    active_ = false;
    ::setfsuid(saved_fsuid_);
    ::setfsgid(saved_fsgid_);
    ::syscall(SYS_setgroups, saved_groups_.size(), saved_groups_.data());
  }

 private:
  bool active_ = false;
  uid_t saved_fsuid_ = 0;
  gid_t saved_fsgid_ = 0;
  std::vector<gid_t> saved_groups_;
};

// ---- The executor ----------------------------------------------------------------------------

class Executor {
 public:
  Executor(const Plan& plan, const ExecuteOptions& options, ExecutionResult& result)
      : plan_(plan), ledger_(plan, options, result) {}

  void run() {
    ledger_.run([&](const RootPlan& root, const ExecutionLedger::RootWork& work) { run_root(root, work); });
  }

 private:
  using Batch = ExecutionLedger::Batch;

  void run_root(const RootPlan& root, const ExecutionLedger::RootWork& work) {
    UniqueFd temp = open_temp_dir(root);
    if (!temp.valid()) return;
    Stat temp_seen;
    if (const int err = stat_at(temp.get(), "", AT_EMPTY_PATH, temp_seen); err != 0) {
      ledger_.fail_root(root, make_error(root.temp_dir, "statx", err), "temp-dir-changed");
      return;
    }
    if (!root.expected || temp_seen.inode.dev != root.expected->dev ||
        temp_seen.inode.ino != root.expected->ino || temp_seen.inode.kind != FileKind::directory) {
      ledger_.fail_root(root, ObservationError{root.temp_dir, "open", 0, "replaced since it was observed"},
                        "temp-dir-changed");
      return;
    }
    const Place temp_place{temp_seen.inode.dev, temp_seen.mount_id};

    // Namespaces and their batches of files are shared between acting threads (a namespace's
    // directory after all its files: ExecutionLedger::share); each thread has its own identity.
    ledger_.share(work, [&](const ExecutionLedger::NextBatch& next) {
      ThreadIdentity identity;
      while (const Batch* batch = next()) {
        run_namespace(temp.get(), temp_place, *batch, identity);
        identity.restore();
      }
    });

    ThreadIdentity identity;
    for (const std::size_t i : work.attach) {
      if (halted()) break;
      const PlanItem& item = plan_.items[i];
      if (item.acting) {
        if (auto e = identity.assume(item.acting->uid, item.acting->gid, item.path)) {
          settle(i, ReapOutcome::failed, "identity-switch-failed", std::move(e));
          continue;
        }
      }
      remove_entry(temp.get(), temp_place, i);
      identity.restore();
    }
  }

  UniqueFd open_temp_dir(const RootPlan& root) {
    ObservationError err;
    UniqueFd temp = platform::open_temp_dir(root.kind, root.root_dir, root.temp_dir, kDirFlags, err);
    if (!temp.valid()) fail_root(root, err, "temp-dir-changed");
    return temp;
  }

  void run_namespace(int temp_fd, const Place& temp_place, const Batch& batch,
                     ThreadIdentity& identity) {
    if (!batch.ns) return;
    const NamespacePlan& ns = plan_.namespaces[*batch.ns];
    auto fail_all = [&](const ObservationError& e, const char* detail) {
      record_error(e);
      for (const std::size_t i : batch.items) settle(i, ReapOutcome::failed, detail, e);
    };
    // The namespace's owner may rename it, or put anything in its place, at any time (its
    // name is hers in the sticky temp dir): that is not the reaper's failure, and alerting on
    // it would let any user make every reap "fail". Its items were not removed: vanished when
    // nothing is there, changed when something else is.
    auto changed_all = [&](ObservationError e) {
      const ReapOutcome outcome = e.code == ENOENT ? ReapOutcome::vanished : ReapOutcome::changed;
      for (const std::size_t i : batch.items) settle(i, outcome, "namespace-changed", e);
    };
    if (!ns.expected) return fail_all(ObservationError{ns.path, "open", 0, "never observed"}, "namespace-changed");

    // A direct child of the verified temp dir: one component, never followed.
    UniqueFd dir(::openat(temp_fd, ns.name.c_str(), kDirFlags));
    if (!dir.valid()) {
      const int err = errno;
      if (err == ENOENT || err == ELOOP || err == ENOTDIR) return changed_all(make_error(ns.path, "openat", err));
      return fail_all(make_error(ns.path, "openat", err), "namespace-changed");
    }
    Stat seen;
    if (const int err = stat_at(dir.get(), "", AT_EMPTY_PATH, seen); err != 0) {
      return fail_all(make_error(ns.path, "statx", err), "namespace-changed");
    }
    const ExpectedInode& want = *ns.expected;
    if (seen.inode.dev != want.dev || seen.inode.ino != want.ino ||
        seen.inode.kind != FileKind::directory || seen.inode.uid != want.uid ||
        seen.inode.mode != want.mode) {
      return changed_all(ObservationError{ns.path, "openat", 0,
                                          "not the directory that was observed (dev, ino, owner "
                                          "or mode changed)"});
    }
    if (!temp_place.contains(seen)) {
      return fail_all(ObservationError{ns.path, "openat", EXDEV, "on another mount than its temp dir"},
                      "crosses-mount");
    }
    if (ns.acting) {
      if (auto e = identity.assume(ns.acting->uid, ns.acting->gid, ns.path)) {
        return fail_all(*e, "identity-switch-failed");
      }
    }
    const Place ns_place{seen.inode.dev, seen.mount_id};
    for (const std::size_t i : batch.items) {
      if (halted()) break;
      if (plan_.items[i].subject == ReapSubject::namespace_dir) {
        remove_namespace_dir(temp_fd, temp_place, i);
      } else {
        remove_entry(dir.get(), ns_place, i);
      }
    }
  }

  // One entry of `dirfd` (a namespace, or the temp dir for attach files).
  void remove_entry(int dirfd, const Place& place, std::size_t i) {
    const PlanItem& item = plan_.items[i];
    if (!item.expected) return settle(i, ReapOutcome::changed, "identity-changed");
    const ExpectedInode& want = *item.expected;
    const char* name = item.name.c_str();

    // Hold the very inode the name leads to now, and check it. A regular file is opened
    // for reading (O_NOFOLLOW|O_NONBLOCK|O_NOCTTY: a link is refused, a FIFO or device
    // swapped in since the plan never blocks, and is opened, if at all, with the owner's
    // identity, then refused by the fstat) so that its lock can be taken; anything else is
    // held with O_PATH, which opens nothing and holds a symlink as itself.
    const bool regular = want.kind == FileKind::regular;
    UniqueFd handle(::openat(dirfd, name,
                             regular ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
                                     : O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!handle.valid()) {
      // Refused (someone else's file, a socket): a failure only if it is still the file
      // that was judged.
      const int err = errno;
      Stat now;
      if (err != ENOENT && stat_at(dirfd, name, kNameStat, now) == 0 && !same_entry(now, want)) {
        return settle(i, ReapOutcome::changed, "identity-changed");
      }
      return settle_errno(i, err, "openat");
    }
    Stat seen;
    if (const int err = stat_at(handle.get(), "", AT_EMPTY_PATH, seen); err != 0) {
      return settle_errno(i, err, "statx");
    }
    if (!same_entry(seen, want)) return settle(i, ReapOutcome::changed, "identity-changed");
    if (!place.contains(seen)) return settle(i, ReapOutcome::changed, "crosses-mount");
    if (seen.inode.nlink > 1) return settle(i, ReapOutcome::changed, "hard-linked");
    if (regular && ::flock(handle.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) return settle(i, ReapOutcome::became_live, "lock-held");
      return settle_errno(i, errno, "flock");
    }
    // The name must still lead to the held inode, or we would unlink another file.
    Stat again;
    if (const int err = stat_at(dirfd, name, kNameStat, again); err != 0) {
      return settle_errno(i, err, "statx");
    }
    if (again.inode.dev != seen.inode.dev || again.inode.ino != seen.inode.ino) {
      return settle(i, ReapOutcome::changed, "renamed-while-locked");
    }
    unlink_checked(dirfd, handle.get(), i, 0);
    // `handle` closes after the unlink: the lock was held across it.
  }

  void remove_namespace_dir(int temp_fd, const Place& temp_place, std::size_t i) {
    const PlanItem& item = plan_.items[i];
    if (!item.expected) return settle(i, ReapOutcome::changed, "identity-changed");
    UniqueFd handle(::openat(temp_fd, item.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!handle.valid()) return settle_errno(i, errno, "openat");
    Stat seen;
    if (const int err = stat_at(handle.get(), "", AT_EMPTY_PATH, seen); err != 0) {
      return settle_errno(i, err, "statx");
    }
    if (!same_entry(seen, *item.expected) || seen.inode.mode != item.expected->mode) {
      return settle(i, ReapOutcome::changed, "identity-changed");
    }
    if (!temp_place.contains(seen)) return settle(i, ReapOutcome::changed, "crosses-mount");
    // rmdir only removes an empty directory; whatever appeared in it since keeps it.
    unlink_checked(temp_fd, handle.get(), i, AT_REMOVEDIR);
  }

  // Unlinks the item's name, announced first (write-ahead), then checks that the inode held
  // by `handle` lost its last name. The check between lookup and unlink cannot be atomic
  // (there is no "unlink this inode"): whoever may rename in the directory (its owner, whose
  // identity we act with, or root) can swap the name in that instant. Then we removed another
  // one of that directory's names, which the swapper could have removed itself: nothing
  // outside the directory, no data. While the judged inode keeps a name it is reported as a
  // failure; if the swapper also took the judged inode's last name, the report says
  // "removed", which is true of the judged file (see the comment at the top).
  void unlink_checked(int dirfd, int handle, std::size_t i, int flags) {
    if (!write_ahead(i)) return;
    if (::unlinkat(dirfd, plan_.items[i].name.c_str(), flags) != 0) {
      return settle_errno(i, errno, "unlinkat");
    }
    Stat after;
    if (stat_at(handle, "", AT_EMPTY_PATH, after) == 0 && after.inode.nlink != 0) {
      return settle(i, ReapOutcome::failed, "swapped-during-unlink",
                    ObservationError{plan_.items[i].path, "unlinkat", 0,
                                     "the judged file still has a name after the unlink: the "
                                     "name was swapped in the instant before it, and another "
                                     "entry of this directory was removed instead"});
    }
    settle(i, ReapOutcome::removed, flags == AT_REMOVEDIR ? "removed-directory" : "unlinked");
  }

  bool write_ahead(std::size_t i) { return ledger_.write_ahead(i); }

  void settle_errno(std::size_t i, int err, const char* op) {
    if (err == ENOENT) return settle(i, ReapOutcome::vanished, "not-found");
    // O_NOFOLLOW met a symlink, or a directory where a file was: not what was judged.
    if (err == ELOOP || err == EISDIR || err == ENOTDIR) {
      return settle(i, ReapOutcome::changed, "identity-changed");
    }
    settle(i, ReapOutcome::failed, op, make_error(plan_.items[i].path, op, err));
  }

  void settle(std::size_t i, ReapOutcome outcome, const char* detail,
              std::optional<ObservationError> error = std::nullopt) {
    ledger_.settle(i, outcome, detail, std::move(error));
  }
  void fail_root(const RootPlan& root, const ObservationError& e, const char* detail) {
    ledger_.fail_root(root, e, detail);
  }
  void record_error(const ObservationError& e) { ledger_.record_error(e); }
  bool halted() { return ledger_.halted(); }

  const Plan& plan_;
  ExecutionLedger ledger_;
};

}  // namespace

ExecutionResult execute_plan(const Plan& plan, const ExecuteOptions& options) {
  ExecutionResult result;
  Executor(plan, options, result).run();
  return result;
}

// ---- Regions, read late ------------------------------------------------------------------------

namespace {

void read_region_at(int dirfd, FileFacts& file, std::size_t max_bytes,
                    std::vector<std::byte>& buffer) {
  const InodeFacts& want = *file.lstat;
  UniqueFd fd(open_noatime(dirfd, file.name.c_str(),
                           O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    file.errors.push_back(make_error(file.path, "openat", errno));
    return;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    file.errors.push_back(make_error(file.path, "fstat", errno));
    return;
  }
  if (!S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_dev) != want.dev ||
      static_cast<std::uint64_t>(st.st_ino) != want.ino) {
    file.errors.push_back(ObservationError{file.path, "openat", 0, "replaced while being observed"});
    return;
  }
  const std::size_t cap =
      static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(st.st_size), max_bytes));
  // How much: the rule the audit's observation follows (read_region_bytes).
  const RegionBytes read = read_region_bytes(fd.get(), cap, buffer);
  if (read.error != 0) file.errors.push_back(make_error(file.path, "pread", read.error));
  file.region = RegionSummary{
      perfdata::parse_region_keeping(std::span(buffer.data(), read.bytes), kObservedCounters),
      read.bytes};
}

}  // namespace

void read_regions(const TempRootFacts& root, std::span<NamespaceFacts> namespaces,
                  const std::function<bool(const FileFacts&)>& wanted, std::size_t max_bytes,
                  std::vector<ObservationError>& errors) {
  UniqueFd temp;
  UniqueFd dir;
  std::vector<std::byte> buffer;
  walk_wanted_files(
      namespaces, wanted,
      [&] {
        ObservationError err;
        temp = platform::open_temp_dir(root.kind, root.root, root.temp_dir, kDirFlags, err);
        if (temp.valid() && !same_dir(temp.get(), root.opened, root.temp_dir, "open", err)) {
          temp.reset();
        }
        if (!temp.valid()) errors.push_back(err);
        return temp.valid();
      },
      [&](NamespaceFacts& ns) {
        dir.reset(::openat(temp.get(), ns.name.c_str(), kDirFlags));
        if (!dir.valid()) {
          ns.errors.push_back(make_error(ns.path, "openat", errno));
        } else if (ObservationError err; !same_dir(dir.get(), ns.opened, ns.path, "openat", err)) {
          ns.errors.push_back(std::move(err));
          dir.reset();
        }
        return dir.valid();
      },
      [&](NamespaceFacts&, FileFacts& file) { read_region_at(dir.get(), file, max_bytes, buffer); });
}

}  // namespace hsperfguard::platform
