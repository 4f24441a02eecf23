// Observation: read-only, fd-relative, never follows a link; returns facts, judges nothing.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"
#include "model/roots.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard::platform {

struct ObserveOptions {
  // Regions are read up to their `used` bytes (never more than this) to parse prologue
  // and entries; 0 reads no file contents at all.
  std::size_t max_region_bytes = std::size_t{2} * 1024 * 1024;
  // The counters kept from each region (every entry is still walked and checked). The audit
  // needs only sun.rt.createVmBeginTime: keeping fewer saves memory per file at scale.
  // Platforms may keep more than asked (Windows keeps kObservedCounters).
  std::span<const std::string_view> kept_counters = kObservedCounters;
  // Whether regular files are opened at all (fstat of the fd, ACL, inode flags, region).
  // The reaper plans from each entry's lstat alone and re-checks every entry through its
  // own handle before acting, so it skips the opens (POSIX; Windows opens anyway).
  bool open_files = true;
  // Whether the system calls for many files may be made in batches (Linux: io_uring, where
  // the kernel allows it). The facts are the same either way; tests observe both ways.
  bool batched_io = true;
  // A namespace listing fewer entries than this is observed one call at a time even so: a
  // ring costs more to set up than it saves on a few files (tests set 1 to batch every one).
  std::size_t min_batched_entries = 16;
  // Whether worker threads enter the namespaces while the caller consumes them (POSIX). false:
  // each is entered on the calling thread, for a caller whose namespaces hold a file or two
  // per JVM and whose consumer does nothing worth overlapping (ps), where starting threads
  // costs more than it saves.
  bool worker_threads = true;
  // 0: every namespace is handed over whole. N > 0 (POSIX): a namespace listing more than N
  // entries is handed over in parts of at most N files (NamespaceFacts::part), so that memory
  // does not grow with what one namespace holds (any user can fill their own); its files then
  // come in the order the directory lists them, each part sorted by name.
  std::size_t files_per_part = 0;
  // 0: the temp dir's namespaces are listed, sorted and observed at once. N > 0 (POSIX): they
  // are taken N names at a time (each batch sorted by name), so that memory does not grow with
  // how many namespaces there are (any user can make them in /tmp).
  std::size_t namespaces_per_batch = 0;
  // Checked before each namespace (and each part): once reached, no further namespace is
  // entered or handed over; the temp root's `stopped` says why and its errors how far
  // observation got.
  RunLimits limits;
  // Whether the `.java_pid<pid>` and `.attach_pid<pid>` entries beside the namespaces are
  // observed with them, all into TempRootFacts::attach_files. false: they are left out, for a
  // caller that observes them in parts afterwards (observe_attach_files): any user can make
  // any number of them in /tmp.
  bool attach_files = true;
  // Whether the cleaners configured on the system (tmpfiles.d, tmpreaper, tmpwatch, cron) are
  // read into TempRootFacts::cleaners, for this host's /tmp and a --root system's (POSIX): the
  // audit judges them, the other commands have no use for them.
  bool cleaners = false;
};

// Observes a temp root whole: its namespaces are in the result. (src/platform/observe.cpp, over the
// streaming form below.)
TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options);

// Receives each namespace of a temp root (or each part of it, in order), in name order, as
// soon as it and every namespace before it are observed, on the thread that called
// observe_temp_root. `root` is the temp
// dir as observed so far: its own facts, users resolved, no namespaces (its errors and
// attach files may still grow until observe_temp_root returns). The consumer owns `ns`.
using NamespaceConsumer = std::function<void(const TempRootFacts& root, NamespaceFacts&& ns)>;

// Per-namespace work that may run beside observation: called once for each namespace (each
// part of it), with its position in name order, on the thread that observed it (a worker; the calling thread
// for namespaces that were not entered), after its owner was looked up and before `consume`
// receives it. Calls for different namespaces may run at the same time, so a stage must be
// safe to call from several threads; `root` is as for the consumer and does not change while
// stages run. The audit gathers liveness, judges and renders each namespace here, on both
// CPUs.
using NamespaceStage =
    std::function<void(const TempRootFacts& root, std::size_t index, NamespaceFacts& ns)>;

// The streaming form: observes the namespaces a few ahead of `consume` (so an audit of any
// size holds a few namespaces' facts at a time) and returns the temp root without them.
// Implemented per platform.
TempRootFacts observe_temp_root(const RootSpec& spec, const ObserveOptions& options,
                                const NamespaceConsumer& consume, const NamespaceStage& stage = {});

// Receives a part of a temp dir's attach entries (sorted by name within the part).
using AttachConsumer = std::function<void(std::vector<AttachFacts>&& part)>;

// The `.java_pid<pid>` and `.attach_pid<pid>` entries of the temp dir of `spec`, which `root`
// observed (with ObserveOptions::attach_files false): the temp dir is opened again as for
// observe_temp_root and must be the same directory (root.opened); its attach entries are
// listed and stat'ed `per_part` at a time (0: all at once), each part handed to `consume` on
// the calling thread, so that memory holds one part whatever their number. `limits` are
// checked before each part; once reached, nothing more is listed and `errors` says how far it
// got. Errors of the temp dir (replaced, unreadable) go to `errors` too. Returns how many
// entries were handed over. Windows has no attach files: nothing.
std::size_t observe_attach_files(const RootSpec& spec, const TempRootFacts& root,
                                 std::size_t per_part, const RunLimits& limits,
                                 const AttachConsumer& consume,
                                 std::vector<ObservationError>& errors);

}  // namespace hsperfguard::platform
