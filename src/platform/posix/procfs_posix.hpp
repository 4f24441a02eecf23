// Readers of Linux /proc for liveness evidence: the lock table, one process's stat, status,
// mount namespace and maps, and the processes of one mount namespace. Parsing is in
// procfs_parse.hpp (pure); this file only reads, and turns errors into facts.
//
// Devices: /proc/locks and maps print the device of the file's superblock, which is stat's
// st_dev on ext4 and tmpfs. It is not on btrfs (stat reports the subvolume's anonymous
// device) nor on overlayfs, where maps show the upper layer's file (another device, same
// inode number when the upper layer is not shared). Lookups therefore also report a match
// by inode number alone, which callers treat as "in use": a false match only keeps a file.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/facts.hpp"
#include "model/procfs_parse.hpp"
#include "model/roots.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard::platform {

// Reads all of `name` (relative to `dirfd`) into `out`. Returns 0 or an errno.
int read_proc_file(int dirfd, const char* name, std::string& out);

// At most this much of one process's /proc/<pid>/maps is read. Real JVMs have far less (a
// JDK 17 or 25 JVM sleeping: 15 KB, 200 lines; with 2,000 threads and a 4 GB heap: 210 KB,
// 4,200 lines; at the kernel's default limit of 65,530 mappings, lines of 50 to 130 bytes
// make 3 to 9 MB), while any process can make its maps 260 MB (a file with a 3,900-byte
// path mapped 65,000 times), which the kernel takes about a second to print.
inline constexpr std::size_t kMaxMapsBytes = std::size_t{16} * 1024 * 1024;

// One reading of a process's maps through read_maps.
struct MapsReading {
  int error = 0;                // errno of the open or a read; 0 when read (whole or not)
  procfs::MapsSummary summary;  // summary.truncated: cut at the cap, or stopped
  const char* stopped = nullptr;  // RunLimits::reached() when the run limits cut it short
};

// Reads `name` (relative to `dirfd`, a process's maps) a chunk at a time into `buffer` (its
// memory reused, 64 KiB), parsing each chunk as it comes, and stops after `max_bytes` or
// once `limits` (if any) are reached, which are checked before every chunk.
MapsReading read_maps(int dirfd, const char* name, std::vector<char>& buffer,
                      const RunLimits* limits = nullptr, std::size_t max_bytes = kMaxMapsBytes);
// Why a reading that is not the whole file is partial, as an error of `path` (the maps).
ObservationError partial_maps_error(const std::string& path, const MapsReading& reading);

// One reading of a network namespace's unix sockets (/proc/<pid>/net/unix) through
// read_unix_listeners: its attach listeners only.
struct UnixListenersReading {
  int error = 0;                      // errno of the open or a read; 0 when read
  procfs::UnixListeners listeners;    // listeners.truncated: stopped by the run limits
  const char* stopped = nullptr;      // RunLimits::reached() when they cut it short
};
// Reads `name` (relative to `dirfd`) a chunk at a time into `buffer` (64 KiB, reused),
// parsing each chunk as it comes: no size cap (each line is a socket someone holds open, and
// nothing of a line is kept but an attach listener's), `limits` checked before every chunk.
UnixListenersReading read_unix_listeners(int dirfd, const char* name, std::vector<char>& buffer,
                                         const RunLimits* limits = nullptr);

// Which of `inodes` (sockfs inodes) the process whose /proc directory is `proc_dirfd` holds
// open: the first of its /proc/<pid>/fd links that reads `socket:[inode]` for one of them,
// its links read one at a time (a process may hold a million descriptors). nullopt: none;
// `error` (errno) when the directory could not be listed whole.
std::optional<std::uint64_t> held_socket(int proc_dirfd, const std::vector<std::uint64_t>& inodes,
                                         std::vector<char>& buffer, int& error);

// The process exited while we read it: its /proc files answer ESRCH or vanish.
bool vanished(int err);
// readlinkat of a /proc link (at most 256 bytes: namespaces, exe, fd targets); errno or 0.
int readlink_at(int dirfd, const char* name, std::string& out);

// The pids listed in `proc` (a /proc mount), in directory order; errno in `err` on failure.
std::vector<std::int32_t> list_pids(const std::string& proc, int* err);

procfs::FileId file_id(std::uint64_t dev, std::uint64_t ino);

// Held locks by file, from one reading of /proc/locks.
class LockTable {
 public:
  struct Holder {
    std::string kind;  // "FLOCK WRITE", "POSIX READ", "OFDLCK WRITE", ...
    std::optional<std::int32_t> pid;
  };
  struct Lookup {
    const Holder* holder = nullptr;  // null: no lock on this file
    bool inode_only = false;         // found by inode number, on another device
  };

  // Reads the table at `path`; nullopt (and `err`) when it cannot be read.
  static std::optional<LockTable> read(const char* path, ObservationError* err);
  static LockTable parse(std::string_view text);

  // `inode_only`: also match by inode number on another device (btrfs, overlayfs). Not for
  // file systems whose st_dev is the superblock's (tmpfs, ext4, xfs): there every container's
  // tmpfs numbers its inodes alike, and another container's lock would keep a stale file.
  Lookup find(std::uint64_t dev, std::uint64_t ino, bool inode_only = true) const;
  std::size_t size() const { return by_file_.size(); }
  std::size_t malformed_lines() const { return malformed_; }

 private:
  struct FileHash {
    std::size_t operator()(const procfs::FileId& f) const noexcept {
      return std::hash<std::uint64_t>{}(f.ino * 0x9e3779b97f4a7c15ull ^
                                        (std::uint64_t{f.major} << 32 | f.minor));
    }
  };
  std::unordered_map<procfs::FileId, Holder, FileHash> by_file_;  // the first holder of each file
  std::unordered_map<std::uint64_t, Holder> by_inode_;
  std::size_t malformed_ = 0;
};

// One process, as read once per run.
struct ProcessRecord {
  ProcessFacts facts;  // maps_backing_file left unset: that is a per-file question
  std::optional<std::vector<procfs::FileId>> mapped;  // nullopt: maps unreadable or empty
  // `mapped` is every file it maps; false when its maps were read only in part
  // (facts.maps_cut): a file missing from them proves nothing.
  bool mapped_complete = true;
  // Whether a mapping's path is a hsperfdata backing file (nullopt: maps unreadable or empty).
  std::optional<bool> maps_hsperfdata;
};

// Host processes whose mount namespace is one container's, by their innermost pid.
struct NamespaceIndex {
  std::unordered_map<std::int32_t, std::vector<std::int32_t>> host_pids_by_nspid;
  // Innermost pids of processes whose mount namespace could not be read (EACCES): one of
  // them might be in the container, so for these pids the search is not complete.
  std::unordered_set<std::int32_t> uncertain_nspids;
  bool complete = false;  // every process was placed, in or out, or at least its NSpid known
  std::vector<ObservationError> errors;
  // When the pass over /proc it was made from began (epoch ms), if it was made for more than
  // one moment's files: it proves nothing about a file changed since (its process may have
  // started after the pass).
  std::optional<std::int64_t> pass_began_ms;
  // Which of its gatherer's passes it was made from (1 the first): whether the pass came
  // before a gathering is told by this count, not by the two's times, which a millisecond
  // cannot tell apart.
  std::uint64_t pass_serial = 0;

  // Whether "no candidate" proves that no process of the namespace has this innermost pid.
  bool complete_for(std::int32_t nspid) const {
    return complete && !uncertain_nspids.contains(nspid);
  }
};

// Our own mount namespace and the mounts at our root: what places a process whose ns/mnt
// link cannot be read.
struct OwnMounts {
  std::optional<std::string> mount_namespace;  // our ns/mnt link
  std::vector<std::uint64_t> root_mounts;      // procfs::root_mount_ids of our mountinfo
  // From `proc`/self.
  static OwnMounts read(const std::string& proc = "/proc");
};

// The mount namespace of the process whose /proc directory is `prefix` relative to `dirfd`
// ("" when dirfd is that directory, "123/" when it is /proc), into `out`; 0, or the errno of
// its ns/mnt link. That link needs ptrace access (CAP_SYS_PTRACE for a process whose
// capabilities are not a subset of ours; some VMs' pid 1 refuses it even to full root). When
// it cannot be read, the process's mountinfo (readable by anyone) still places it in our own
// namespace when the mounts at its root are the mounts at ours, by their ids: a mount lives
// in one namespace and its id is not given to another mount while it lives, so a namespace
// someone unshares (its mounts are copies, with new ids) cannot pass for ours. Then `out` is
// our namespace, `*at_our_root` true (it is at our root too), and 0 is returned. Otherwise
// the link's errno.
int read_mount_namespace(int dirfd, const std::string& prefix, const OwnMounts& own,
                         std::string& out, std::string& buffer, bool* at_our_root = nullptr);

// Where process `pid` is: its mount namespace (null: the link could not be read, errno
// `mnt_error`) and its innermost pid, from `status_path` (relative to `dirfd`) read into
// `buffer`. dirfd -1: its /proc directory could not be opened, nothing is read. nullopt: the
// process exited since it was listed.
std::optional<ProcessPlacement> place_process(int dirfd, const char* status_path, std::int32_t pid,
                                              const std::string* mount_namespace, int mnt_error,
                                              std::string& buffer);

// The index of `mount_namespace` from placed processes (pid order): those in it by their
// innermost pid, those unplaceable as uncertain, complete when `listed_all` and every one of
// them has an NSpid. Errors name paths under `proc`.
NamespaceIndex index_mount_namespace(const std::vector<ProcessPlacement>& placed,
                                     const std::string& mount_namespace, bool listed_all,
                                     const std::string& proc = "/proc");

class ProcReader {
 public:
  // Reads btime and the clock tick rate; errors show up in each record's start time.
  // `limits`: checked while a process's maps are read (it may be 16 MiB of them).
  explicit ProcReader(std::string proc = "/proc", const RunLimits* limits = nullptr);

  // kill(pid, 0), then /proc/<pid>/{stat,status,ns/mnt,maps} through one directory fd.
  ProcessRecord read(std::int32_t pid);
  // The same with its maps as the caller just read and parsed them (a pass over /proc that
  // looks for libjvm): they are not read again. `maps` is moved from.
  ProcessRecord read(std::int32_t pid, MapsReading& maps);
  // One pass over /proc: readlink <pid>/ns/mnt, and status of those that match.
  NamespaceIndex scan_mount_namespace(const std::string& mount_namespace);
  // One pass over /proc placing every process whose mount namespace is not `except` (and
  // those whose link cannot be read): what index_mount_namespace makes the index of any other
  // mount namespace from. `listed_all`: /proc was listed to its end; errors of the pass
  // itself go to `errors`.
  std::vector<ProcessPlacement> place_processes_outside(const std::string& except, bool& listed_all,
                                                        std::vector<ObservationError>& errors);
  // /proc/<pid>/cgroup, reduced by procfs::parse_cgroup; nullopt when unreadable.
  std::optional<std::string> read_cgroup(std::int32_t pid);
  // /proc/<pid>/cmdline with its NUL separators turned into spaces (at most `max` bytes);
  // nullopt when unreadable or empty (a kernel thread, a zombie).
  std::optional<std::string> read_cmdline(std::int32_t pid, std::size_t max = 4096);
  // /proc/<pid>/<name> as it is (cmdline and environ keep their NULs); nullopt when it
  // cannot be read (environ needs root or the process's own user). The kernel bounds both.
  std::optional<std::string> read_raw(std::int32_t pid, const char* name);

 private:
  ProcessRecord read_process(std::int32_t pid, MapsReading* given_maps);
  const OwnMounts& own_mounts();

  std::string proc_;
  std::optional<std::int64_t> btime_sec_;
  std::int64_t clk_tck_ = 0;
  const RunLimits* limits_ = nullptr;
  std::string buffer_;  // reused for every file read
  std::vector<char> maps_buffer_;
  std::optional<OwnMounts> own_mounts_;  // read when first needed
};

}  // namespace hsperfguard::platform
