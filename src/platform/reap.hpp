// The reap executor, the neutral interface: carries out a Plan (model/reap_plan.hpp, made by
// decide/reaper.hpp) with the hardened primitives of the platform, and the single-instance
// lock a cron or timer run takes. Judges nothing: every decision is in the plan; the executor
// only refuses to act when what it finds is no longer what was judged.
//
// POSIX (platform/posix/reap_posix.cpp), for each namespace with something to remove:
// - the temp dir is reopened the way observation opened it (the one path walk of
//   safe_path_posix.hpp, or beneath its root) and compared (dev, ino) with the plan; the namespace is
//   reopened beneath it O_DIRECTORY|O_NOFOLLOW and its fstat compared (dev, ino, owner,
//   mode); it must be on the temp dir's mount;
// - as root, the acting thread takes the namespace owner's file-system identity (setfsuid,
//   setfsgid, no supplementary groups), checked by reading it back, restored afterwards;
// - each entry is opened without following (a regular file O_RDONLY|O_NOFOLLOW|O_NONBLOCK,
//   anything else O_PATH) and its fstat compared (dev, ino, kind, owner, link count, mount)
//   with the plan; a regular file's flock is taken non-blocking (held by someone: it became
//   live, keep it); the name is looked up again (fstatat, AT_SYMLINK_NOFOLLOW) to be sure it
//   still names the held inode; it is unlinked while the lock is held, as the JVM does; and
//   the held inode must then have no name left, or the name was swapped in between (which
//   only someone who may rename in that directory can do) and that is reported as a failure;
// - nothing recurses, nothing removes a directory but an empty namespace directory the plan
//   names, and nothing crosses a mount.
// Every unlink is one atomic system call: a run killed at any point leaves each entry
// either removed or untouched, and the journal callback has been told before each unlink.
//
// Windows (platform/windows/reap_windows.cpp): the temp dir and namespace are pinned (opened
// as themselves, compared by volume serial and file index, held without FILE_SHARE_DELETE);
// each entry is opened with FILE_FLAG_OPEN_REPARSE_POINT and DELETE access, compared, and
// deleted through that handle; a file some process has open for writing (a live JVM) is
// "became_live" ("in-use"). No identity switch: the process's own token acts.
#pragma once

#include <atomic>
#include <chrono>
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
#include "model/reap_plan.hpp"

namespace hsperfguard::platform {

struct ExecuteOptions {
  // Checked before each item: once passed, the remaining items are not attempted.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  const std::atomic<bool>* stop = nullptr;  // set by a signal handler
  // Called (serialised, from the acting thread) when an item passed every check, right
  // before its unlink; returning false stops the run before that unlink (a journal that
  // cannot be written must not let removals go unrecorded).
  std::function<bool(const PlanItem&)> before_unlink;
  // Called (serialised) once per attempted item, as soon as it is settled.
  std::function<void(const PlanItem&, const ReapActionRecord&)> on_action;
  unsigned max_threads = 2;  // namespaces are shared between this many acting threads
  // The items before this one are not this call's (a reaper that acts on each temp root as
  // soon as it is planned hands over the plan's new items): they get no record.
  std::size_t first_item = 0;
};

// Carries out every `remove` item of the plan from options.first_item on; keeps and skips
// are not touched.
ExecutionResult execute_plan(const Plan& plan, const ExecuteOptions& options);

// Observation's complement for the reaper. Reading every region costs most of observing
// 100,000 stale files, and the VM begin time in it only decides when the file's pid is
// alive (region_may_decide): the reaper observes without regions (max_region_bytes = 0),
// gathers liveness, then reads the regions of the files `wanted` accepts, up to their `used`
// bytes (never more than `max_bytes`). The same discipline as observation: relative to the
// temp dir and namespace fds, each compared (dev, ino) with the facts, the file opened
// O_NOFOLLOW|O_NONBLOCK and fstat-compared; a file that changed gets an error, no region.
// `root` says where the temp dir is (it may be the temp dir as observed so far, without its
// namespaces); `namespaces` are some of its namespaces; the temp dir's own errors go to
// `errors`.
void read_regions(const TempRootFacts& root, std::span<NamespaceFacts> namespaces,
                  const std::function<bool(const FileFacts&)>& wanted, std::size_t max_bytes,
                  std::vector<ObservationError>& errors);

// The walk both platforms' read_regions make (src/platform/observe.cpp): each regular file that
// `wanted` accepts and that has no region yet, not on another mount. Before the first such
// file, `open_temp` (once; false: nothing more is read); before the first of a namespace,
// `enter` (once per namespace; false: none of its files is read); then `read` for the file.
void walk_wanted_files(std::span<NamespaceFacts> namespaces,
                       const std::function<bool(const FileFacts&)>& wanted,
                       const std::function<bool()>& open_temp,
                       const std::function<bool(NamespaceFacts&)>& enter,
                       const std::function<void(NamespaceFacts&, FileFacts&)>& read);

}  // namespace hsperfguard::platform
