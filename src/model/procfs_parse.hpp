// The text files of Linux /proc that liveness evidence comes from, parsed.
//
// Pure: these take the bytes a reader got and never touch the OS, so tests and fuzzers can
// feed them anything. They never read past the view, never throw, and skip a line they do
// not understand instead of guessing. Devices are kept as the (major, minor) pair /proc
// prints; the caller turns it into a dev_t with makedev() to compare with st_dev.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hsperfguard::procfs {

// A file as /proc/locks and /proc/<pid>/maps name it: device of its superblock, inode.
struct FileId {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint64_t ino = 0;
  friend bool operator==(const FileId&, const FileId&) = default;
  friend auto operator<=>(const FileId&, const FileId&) = default;
};

// One held lock from /proc/locks, e.g. `1: FLOCK  ADVISORY  WRITE 2436 fe:00:10960898 0 EOF`.
// The views point into the parsed text.
struct HeldLock {
  std::string_view kind;    // FLOCK, POSIX, OFDLCK, LEASE, DELEG, ...
  std::string_view access;  // WRITE, READ, UNLCK, ...
  // Absent for OFD locks (printed as -1) and for holders outside our pid namespace (0).
  std::optional<std::int32_t> pid;
  FileId file;
};

struct LocksParse {
  std::vector<HeldLock> held;  // in file order; blocked waiters ("->" lines) are not holders
  std::size_t waiters = 0;
  std::size_t malformed = 0;  // lines skipped because they did not parse
};
LocksParse parse_locks(std::string_view text);

// /proc/<pid>/stat: the fields after the command name, which may itself contain spaces and
// parentheses (the last ')' ends it).
struct StatFields {
  char state = '?';               // field 3: R, S, D, Z, T, ...
  std::uint64_t start_ticks = 0;  // field 22: clock ticks after boot
};
std::optional<StatFields> parse_stat(std::string_view text);

// The `btime` line of /proc/stat: boot time in seconds since the epoch.
std::optional<std::int64_t> parse_btime(std::string_view proc_stat);

// Start time in epoch milliseconds from btime (seconds) and starttime (ticks of clk_tck Hz).
// btime is truncated to the second, so the result may be up to a second early.
std::optional<std::int64_t> start_time_ms(std::int64_t btime_sec, std::uint64_t start_ticks,
                                          std::int64_t clk_tck);

// /proc/<pid>/status: the lines liveness needs.
struct StatusFields {
  std::optional<std::int32_t> tgid;
  std::optional<std::uint32_t> real_uid;       // first field of Uid:
  std::optional<std::uint32_t> effective_uid;  // second field of Uid:
  std::vector<std::int32_t> ns_pids;           // NSpid:, outermost (ours) first
};
StatusFields parse_status(std::string_view text);

// A mapping of a backing file, as /proc/<pid>/maps shows it.
struct BackingMapping {
  std::string range;  // "7f3c...-7f3c...": its name under /proc/<pid>/map_files/
  std::string path;   // as the kernel names it from the reader's root, " (deleted)" cut off
  // The kernel appended " (deleted)": the file has no name left. A file literally named so
  // reads the same; a reader that can open the mapping checks the link count instead.
  bool deleted = false;
  FileId file;
};

// /proc/<pid>/maps, reduced to what liveness asks: which files are mapped, and whether one
// of them is a libjvm.so run as code. Only the permissions, device and inode fields of each line
// are parsed.
struct MapsSummary {
  std::vector<FileId> files;  // distinct, sorted; anonymous mappings (inode 0) left out
  // An executable mapping's path ends in /libjvm.so (or "/libjvm.so (deleted)"): the process
  // runs libjvm's code. A mapping only readable (a file read through mmap) is not one.
  bool libjvm = false;
  // An executable mapping's file name is libj9vm<digits>.so (or ends " (deleted)"): OpenJ9's
  // VM library, which an OpenJ9 JDK loads through its own libjvm.so redirector.
  bool j9vm = false;
  // A mapping's path is <dir>/hsperfdata_<user>/<name>: the process maps a backing file (as
  // the kernel names it from our root, which may not be the process's own).
  bool hsperfdata = false;
  std::optional<BackingMapping> backing;  // the first such mapping
  std::size_t lines = 0;      // 0: no address space (a zombie or a kernel thread)
  std::size_t malformed = 0;
  // Lines longer than the parser keeps (MapsParser's max_line): their device and inode were
  // read from the start of the line, their path was not looked at.
  std::size_t long_lines = 0;
  // The text was not read to its end (a cap on its size, or the run was stopped): a file
  // missing from `files` may still be mapped, and libjvm or hsperfdata false prove nothing.
  bool truncated = false;

  // Whether a file missing from `files` is not mapped: the whole text was read and every
  // line parsed (the kernel writes none that does not parse; one that did not may have been
  // a mapping of any file).
  bool files_complete() const { return !truncated && malformed == 0; }
  // Whether libjvm and hsperfdata false mean that no mapping's path is such a file.
  bool paths_complete() const { return files_complete() && long_lines == 0; }
};
MapsSummary parse_maps(std::string_view text);

// A line of /proc/<pid>/maps is a few fields and a path: PATH_MAX (4,096) bytes at most for
// any file a process can open by name, so 8 KiB keeps every line the kernel prints for a
// real process whole.
inline constexpr std::size_t kMaxMapsLine = 8192;

// /proc/<pid>/maps parsed as it is read, a chunk at a time, so that maps of any size cost a
// line's memory (and the summary), never the text: a process can map a file with a long
// path 65,000 times (260 MB of maps). parse_maps(text) is feed(text), then finish().
class MapsParser {
 public:
  // `max_line`: the bytes of one line kept (at least 256, enough for every field before the
  // path); the rest of a longer line is skipped and the line counted in long_lines.
  explicit MapsParser(std::size_t max_line = kMaxMapsLine);
  // The next bytes of the text, cut anywhere (within a line, a field, a number).
  void feed(std::string_view chunk);
  // After the last chunk. `truncated`: the reader stopped before the end of the file; a
  // last line without its newline is then not parsed (its inode may be cut short), and the
  // summary says it is not the whole file.
  MapsSummary finish(bool truncated = false);

 private:
  void parse_line(std::string_view line, bool long_line);

  std::size_t max_line_;
  std::string line_;       // the current line so far (at most max_line_ bytes)
  bool long_line_ = false;  // the current line is longer than max_line_
  std::size_t sorted_ = 0;  // files_[0, sorted_) are sorted and distinct
  MapsSummary out_;
};

// A listening socket of /proc/<pid>/net/unix whose bound path's last component is what
// HotSpot's attach listener binds: `.java_pid<pid>`, or `.java_pid<pid>.tmp` (it binds that
// name, listens, then renames the file to `.java_pid<pid>`; the kernel keeps printing the
// path given to bind). `inode` is the socket's own (sockfs) inode, which the process's
// /proc/<pid>/fd links name as `socket:[inode]`, not the st_ino of the file in the temp dir.
struct AttachListenerLine {
  std::int32_t pid = 0;    // the pid in the name
  std::uint64_t inode = 0;
  std::string path;        // as printed
  friend bool operator==(const AttachListenerLine&, const AttachListenerLine&) = default;
};

// The pid an attach socket's bound path names: its last component is `.java_pid<pid>` or
// `.java_pid<pid>.tmp`, the pid canonical decimal (as HotSpot prints it), 1..INT32_MAX.
std::optional<std::int32_t> attach_listener_pid(std::string_view path);

struct UnixListeners {
  std::vector<AttachListenerLine> listeners;  // in file order
  std::size_t lines = 0;       // the header line included
  std::size_t malformed = 0;   // lines that did not parse (the rest of a path with a newline)
  std::size_t long_lines = 0;  // longer than the parser keeps: not looked at
  // More listeners matched than the parser keeps (UnixListenersParser's max_kept): a pid
  // missing from `listeners` may still have one.
  bool capped = false;
  // The text was not read to its end: a listener missing from `listeners` may exist.
  bool truncated = false;
  // Whether a pid missing from `listeners` has no listening attach socket in that network
  // namespace. Malformed and long lines do not spoil it: the kernel prints every socket on a
  // line of at most ~170 bytes (sun_path is 108) whose fields always parse; only a path with
  // a newline in it makes more lines, and the first of them is that socket's own.
  bool complete() const { return !truncated && !capped; }
};

// A line of /proc/net/unix is at most ~170 bytes: 512 keeps every one the kernel prints.
inline constexpr std::size_t kMaxUnixLine = 512;
// Attach listeners kept from one network namespace: each is a socket some process holds
// open, so real hosts have a few; more is someone's doing, and leaves the answer unknown.
inline constexpr std::size_t kMaxAttachListeners = 4096;

// /proc/<pid>/net/unix parsed as it is read, a chunk at a time, keeping only the attach
// listeners (SOCK_STREAM, __SO_ACCEPTCON in the flags, a path bound in the file system, its
// last component an attach socket's name): a namespace with a million sockets costs a line's
// memory and the few it keeps, never the text.
class UnixListenersParser {
 public:
  explicit UnixListenersParser(std::size_t max_line = kMaxUnixLine,
                               std::size_t max_kept = kMaxAttachListeners);
  // The next bytes of the text, cut anywhere.
  void feed(std::string_view chunk);
  // After the last chunk. `truncated`: the reader stopped before the end of the file; a last
  // line without its newline is then not parsed.
  UnixListeners finish(bool truncated = false);

 private:
  void parse_line(std::string_view line, bool long_line);

  std::size_t max_line_;
  std::size_t max_kept_;
  std::string line_;
  bool long_line_ = false;
  UnixListeners out_;
};
UnixListeners parse_unix_listeners(std::string_view text);

// /proc/<pid>/cgroup: the process's cgroup path, the most telling one. cgroup v2 ("0::/path")
// when it is not the root; otherwise the first cgroup v1 hierarchy whose path is not "/"
// (name=systemd first); "/" when every path is the root; nullopt for text that has no
// well-formed line.
std::optional<std::string_view> parse_cgroup(std::string_view text);

// One mount of /proc/<pid>/mountinfo: what observation may know of a mount without asking
// its file system anything (a FUSE server could stall a statfs).
struct MountEntry {
  std::uint64_t mount_id = 0;
  std::string_view fs_type;  // "tmpfs", "ext4", "fuse.sshfs", ...
  bool read_only = false;    // "ro" in the mount's options or its super block's
};
// A range of host uids a user namespace maps (a line of /proc/<pid>/uid_map).
struct UidRange {
  std::uint32_t first_host_uid = 0;
  std::uint32_t count = 0;
  friend bool operator==(const UidRange&, const UidRange&) = default;
};

// /proc/<pid>/uid_map ("inside outside count" per line): the ranges of host uids it maps.
// nullopt when a line is not three numbers (the kernel writes at most 340 lines).
std::optional<std::vector<UidRange>> parse_uid_map(std::string_view text);

// The mount whose id (field 1) is `mount_id`, or nullopt.
std::optional<MountEntry> find_mount(std::string_view mountinfo, std::uint64_t mount_id);
// The ids (field 1) of the mounts whose mount point (field 5) is "/", the reader's root, in
// the order listed (mounts stacked on the root follow the one beneath). The kernel prints only
// the mounts of the reader's mount namespace, a mount belongs to one namespace and its id is
// not given to another mount while it lives: a process whose list holds the ids of our root's
// live mounts is in our namespace, at our root.
std::vector<std::uint64_t> root_mount_ids(std::string_view mountinfo);

// How a file's identity matches a set of FileIds: the exact device and inode, or only the
// inode (the device differs on overlayfs and btrfs), or not at all.
enum class Match { none, inode_only, exact };
// `files` sorted as MapsSummary::files is.
Match match_file(const std::vector<FileId>& files, const FileId& wanted);

}  // namespace hsperfguard::procfs
