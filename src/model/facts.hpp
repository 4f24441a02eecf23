// The observed world, as plain data.
//
// Observation (src/platform/) fills these structs and judges nothing; rules (src/checks/)
// read them and touch nothing. Tests build them by hand. One model serves Linux and
// Windows: where the question is the same (who owns it, who may write it, is it a link)
// the field is shared; where the platform differs (POSIX ACLs, Windows DACLs) each has
// its own optional field, filled only by the platform that has it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/boxed.hpp"
#include "model/cleaners.hpp"
#include "model/perfdata.hpp"
#include "model/pid_name.hpp"
#include "model/procfs_parse.hpp"

namespace hsperfguard {

enum class Platform { posix, windows };

// Something observation could not see. Errors are facts: they go into the report.
struct ObservationError {
  std::string path;     // what we tried to look at
  std::string op;       // the call that failed: "openat", "fstatat", "acl_get_fd", ...
  int code = 0;         // errno, or a Win32 error code on Windows
  std::string message;  // strerror / FormatMessage text
};

enum class FileKind {
  regular,
  directory,
  symlink,  // on Windows: any reparse point
  fifo,
  socket,
  char_device,
  block_device,
  unknown,
};

struct Timestamp {
  std::int64_t sec = 0;
  std::int64_t nsec = 0;
  std::int64_t millis() const { return sec * 1000 + nsec / 1000000; }
};

// What lstat/fstat (or GetFileInformationByHandle) says about one inode.
struct InodeFacts {
  FileKind kind = FileKind::unknown;
  std::uint32_t mode = 0;  // permission bits incl. setuid/setgid/sticky (POSIX)
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint64_t nlink = 1;
  std::uint64_t size = 0;
  std::uint64_t dev = 0;  // Windows: volume serial number
  std::uint64_t ino = 0;  // Windows: file index
  Timestamp mtime;
  Timestamp ctime;
  Timestamp atime;
  // Windows FILE_ATTRIBUTE_* bits (reparse point, compressed, directory, ...).
  std::optional<std::uint32_t> windows_attributes;
};

// ---- POSIX access control lists (libacl) ------------------------------------------------
enum class AclTag { user_obj, user, group_obj, group, mask, other };

struct AclEntry {
  AclTag tag = AclTag::other;
  std::optional<std::uint32_t> qualifier;  // uid or gid for user / group entries
  std::uint8_t perms = 0;                  // r=4 w=2 x=1
};

struct PosixAcl {
  std::vector<AclEntry> entries;
  // True when the ACL has more than the three entries that mirror the mode bits.
  bool extended() const { return entries.size() > 3; }
};

// ---- Windows security descriptors, in a neutral form -------------------------------------
enum class AceType { access_allowed, access_denied, other };

struct Ace {
  AceType type = AceType::access_allowed;
  std::uint8_t flags = 0;  // OBJECT_INHERIT_ACE, INHERITED_ACE, INHERIT_ONLY_ACE, ...
  std::uint32_t mask = 0;
  std::string sid;  // string form, "S-1-5-32-544"
};

struct SecurityDescriptor {
  std::optional<std::string> owner_sid;
  std::uint16_t control = 0;  // SE_DACL_PRESENT, SE_DACL_PROTECTED, ...
  bool dacl_present = false;  // false (or a NULL DACL): everyone has full access
  std::vector<Ace> dacl;      // in evaluation order
};

// ---- Volumes -----------------------------------------------------------------------------
struct VolumeFacts {
  std::string fs_type;  // "tmpfs", "ext4", "nfs", "NTFS", ...
  std::uint64_t fs_magic = 0;  // statfs f_type (POSIX)
  bool network = false;        // NFS, CIFS/SMB, FUSE, ... (decided from fs_type by observation table)
  std::optional<bool> acl_support;  // POSIX: ACLs can be read/set; Windows: FS_PERSISTENT_ACLS
  std::optional<bool> compressed;   // Windows: FS_VOL_IS_COMPRESSED
  bool unc_path = false;            // Windows: the path has no drive letter
  std::optional<std::uint64_t> mount_id;  // statx STATX_MNT_ID where available
  // What decides whether a JVM can create its backing file here (POSIX: statfs, or the mount
  // table for a namespace on another mount, which is never asked itself).
  // read_only is as the JVMs that use this temp dir see it. An observer in a mount namespace
  // of its own (a systemd unit's ProtectSystem= makes /tmp read-only there alone) reads it
  // through pid 1's root, where this host's JVMs see it; read_only_seen_by says whose view it
  // is: "" for the observer's own when that is pid 1's mount namespace (or a container's view,
  // reached through its root), "pid 1" when taken from there, "observer" when pid 1's view
  // could not be reached (read_only_view_error says why) and the observer's own stands.
  std::optional<bool> read_only;                  // mounted read-only
  std::string read_only_seen_by;
  std::optional<bool> read_only_to_observer;      // the observer's own view, where it differs
  std::string read_only_view_error;
  std::optional<std::uint64_t> free_bytes;        // for a user (f_bavail)
  std::optional<std::uint64_t> free_bytes_root;   // for root, reserved blocks included (f_bfree)
  std::optional<std::uint64_t> free_inodes;       // f_ffree; nullopt where the file system has no count
};

// ---- Processes (liveness evidence; filled by the reaper issue onwards) --------------------
struct ProcessFacts {
  std::int32_t pid = 0;  // host pid
  enum class Existence { alive, gone, no_permission, unknown } existence = Existence::unknown;
  std::optional<std::int64_t> start_time_ms;  // epoch milliseconds
  std::optional<std::uint32_t> real_uid;
  std::optional<std::uint32_t> effective_uid;  // the uid HotSpot names its namespace after
  std::optional<std::string> mount_namespace;  // "mnt:[4026531841]"
  std::optional<std::string> cgroup;           // containers: the cgroup path, when read
  std::vector<std::int32_t> ns_pids;           // NSpid: host pid first, innermost last
  std::optional<bool> maps_backing_file;       // nullopt: maps unreadable
  // maps_backing_file matched the inode number on another device: overlayfs maps the
  // upper layer's file and btrfs reports the superblock's device, not stat's st_dev.
  bool maps_inode_only = false;
  std::optional<bool> maps_libjvm;
  // Its maps were not read whole (longer than the reader's cap, the run was stopped, or a
  // line too long to keep): a file missing from them may still be mapped, and whether it
  // maps libjvm or a backing file is known only when they show it.
  bool maps_cut = false;
  std::optional<ObservationError> error;
};

// A live process that maps libjvm: a JVM, whether it publishes a backing file or not.
// How a JVM's options decide whether it publishes its counters: -XX:-UsePerfData or
// -XX:+PerfDisableSharedMem, from its command line or the environment variables the JVM reads.
struct PerfDataOption {
  bool disables = false;
  std::string flag;    // the deciding flag as written ("-XX:-UsePerfData")
  std::string source;  // "command line", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"
};

// -XX:AltTempDir=DIR (JDK-8384557, Linux, in OpenJDK's mainline in 2026; no release of JDK 17
// or 25 has it): the directory HotSpot then uses instead of /tmp for its hsperfdata namespace
// and its attach socket. HotSpot ignores a relative one (with a warning) and keeps /tmp.
struct AltTempDirOption {
  std::string path;    // as written, after the '='
  std::string source;  // "command line", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"
  bool absolute() const { return !path.empty() && path.front() == '/'; }
};

// Which VM a JVM process runs, from the libraries it maps as code. OpenJ9 ships a libjvm.so
// too (a redirector to its own libj9vm<NN>.so), and never writes hsperfdata.
enum class VmKind { hotspot, openj9 };

struct JvmProcessFacts {
  ProcessFacts process;  // host pid, NSpid, mount namespace, cgroup, uids, start time
  VmKind vm = VmKind::hotspot;
  // Whether it maps a <dir>/hsperfdata_<user>/<name> file (nullopt: maps unreadable). A JVM
  // that maps libjvm and no such file is blind: jps and jstat cannot see it.
  std::optional<bool> maps_backing_file;
  // The backing file it maps, as its maps name it (from our root), and whether that file was
  // deleted since (a tmp cleaner): jps and jstat cannot see the JVM then either.
  std::optional<std::string> mapped_backing_file;
  bool backing_file_deleted = false;
  // The mapping's address range as /proc/<pid>/map_files names it ("7f..-7f.."): through it,
  // root can still read a deleted region.
  std::optional<std::string> backing_file_mapping;
  // What its deleted region still says, read through that mapping (root only).
  std::optional<std::string> region_main;        // sun.rt.javaCommand
  std::optional<std::string> region_vm_version;  // java.property.java.vm.version
  std::optional<std::int64_t> region_begin_ms;   // sun.rt.createVmBeginTime
  // Its perf-data options (nullopt: none seen, or the environment could not be read).
  std::optional<PerfDataOption> perf_data;
  // Its -XX:AltTempDir (nullopt: none seen, or neither its command line nor its environment
  // could be read). Read for every JVM: it moves where the JVM publishes.
  std::optional<AltTempDirOption> alt_temp_dir;
  // It is in the observer's own mount namespace: a path it names means the same directory here.
  bool in_own_mount_namespace = false;
  // Windows: the temp dir its environment names (TMP, else TEMP, else USERPROFILE, else the
  // Windows directory: GetTempPath's order, which HotSpot's os::get_temp_directory reads);
  // nullopt where it could not be read, and on Linux (always /tmp).
  std::optional<std::string> temp_dir_path;
  bool environment_read = false;  // its environment was read (root, or its own user)
  std::optional<std::string> user;          // its effective uid's name, from its own root
  // Its effective uid has no entry in its own root's user database, which was read (not a
  // failed read): HotSpot names its namespace after that name and, without one, makes none.
  bool no_user_entry = false;
  std::optional<std::string> command_line;  // /proc/<pid>/cmdline, blanks for NULs
  // Every file it maps, as its maps name them (Linux; nullopt elsewhere or unreadable): a
  // liveness gatherer that adopts this process asks it whether it maps a backing file.
  std::optional<std::vector<procfs::FileId>> mapped_files;
  // Identity of its /tmp, resolved beneath its root: which temp root its namespace is in (of
  // the directory its -XX:AltTempDir names, when that resolves to one there).
  std::optional<std::uint64_t> temp_dir_dev;
  std::optional<std::uint64_t> temp_dir_ino;
  // OpenJ9 publishes no backing file by design: it is never blind.
  bool blind() const { return vm == VmKind::hotspot && maps_backing_file.has_value() && !*maps_backing_file; }
  // Invisible to jps and jstat: blind, or its backing file is gone.
  bool invisible() const { return blind() || backing_file_deleted; }
};

// Evidence about one backing file's owner process.
struct LivenessFacts {
  std::optional<bool> lock_held;  // from /proc/locks by (dev, ino), or a probe
  std::string lock_source;        // "proc-locks", "probe", "file-mapping", "none" (not looked at)
  std::optional<std::int32_t> lock_holder_pid;
  std::string lock_kind;          // as /proc/locks names it: "FLOCK WRITE", "POSIX READ", ...
  bool lock_inode_only = false;   // matched by inode number, the device differed (see above)
  std::vector<ProcessFacts> candidates;  // processes that could be the owner
  // Containers: true when every process of the host could be placed in or out of the
  // container's mount namespace, so that no candidate proves no process has the file's NSpid.
  std::optional<bool> candidates_complete;
};

// ---- The namespace and its contents --------------------------------------------------------
// The counters observation keeps from each region: what the rules, liveness and `ps` read.
// Every other entry is still walked and checked, but not kept, so that observing 100,000
// regions costs no memory per entry.
inline constexpr std::string_view kObservedCounters[] = {
    "sun.rt.createVmBeginTime", "sun.rt.createVmEndTime", "sun.rt.javaCommand",
    "java.property.java.vm.version", "java.property.java.version"};

struct RegionSummary {
  perfdata::Region region;  // parsed prefix (prologue + entries) or the parse error
  std::size_t bytes_read = 0;
};

struct FileFacts {
  std::string name;  // raw bytes of the directory entry
  std::string path;  // for reports; never used to reopen the file
  std::optional<InodeFacts> lstat;  // fstatat(AT_SYMLINK_NOFOLLOW); absent if it failed
  Boxed<InodeFacts> opened;  // fstat of the O_NOFOLLOW|O_NONBLOCK fd, when opened
  std::optional<std::string> link_target;  // a symbolic link's (readlinkat), when it was read
  PidName pid_name;
  std::optional<PosixAcl> access_acl;
  Boxed<SecurityDescriptor> security;  // Windows
  std::optional<std::uint32_t> inode_flags;  // FS_IOC_GETFLAGS
  bool crosses_mount = false;  // st_dev differs from the namespace's
  Boxed<RegionSummary> region;  // for regular files that were read
  std::optional<LivenessFacts> liveness;
  std::vector<ObservationError> errors;
};

// A user as named by the system being audited (its own passwd, or Windows accounts).
struct UserFacts {
  std::string name;
  std::optional<std::uint32_t> uid;  // POSIX
  std::optional<std::uint32_t> gid;
  std::optional<std::string> sid;  // Windows
};

struct NamespaceFacts {
  std::string name;  // "hsperfdata_alice" (raw bytes)
  std::string user_suffix;  // "alice"
  std::string path;
  std::optional<InodeFacts> lstat;
  std::optional<InodeFacts> opened;  // fstat of the O_DIRECTORY|O_NOFOLLOW fd
  std::optional<std::string> link_target;  // a symbolic link's (readlinkat), when it was read
  bool identity_matches = true;      // lstat and fstat name the same (dev, ino)
  std::optional<UserFacts> user;     // the suffix resolved in that system's user database
  bool user_lookup_failed = false;   // the user database itself could not be read
  std::optional<PosixAcl> access_acl;
  std::optional<PosixAcl> default_acl;
  std::optional<SecurityDescriptor> security;
  std::optional<std::uint32_t> inode_flags;
  std::optional<VolumeFacts> volume;
  bool crosses_mount = false;  // on another file system than its temp dir
  std::vector<FileFacts> files;
  std::vector<ObservationError> errors;
  // Invisible JVMs (live, map libjvm, and no backing file, or a deleted one) whose user this
  // namespace is: HotSpot would have used this namespace for them.
  std::vector<JvmProcessFacts> invisible_jvms;
  // A namespace listing more entries than observation hands over at once
  // (ObserveOptions::files_per_part) comes in parts: part 0 is the namespace with its first
  // files; each later part repeats the namespace's own facts (no errors, no blind JVMs) with
  // the next files and the errors met while listing them. more_parts: another part follows.
  std::size_t part = 0;
  bool more_parts = false;
};

// Whether a live process listens on its `.java_pid<pid>` socket: the listening unix sockets
// of its own network namespace (/proc/<pid>/net/unix) bound to `.java_pid<pid>` or
// `.java_pid<pid>.tmp`, its pid being the one it sees (the last NSpid field), one of which it
// holds (/proc/<pid>/fd names it `socket:[inode]`). HotSpot listens before it renames the
// bound `.tmp` name into place, so a socket file a JVM made always has its listener by then.
struct AttachListenerFacts {
  std::int32_t pid = 0;  // the host pid of the live candidate
  // nullopt: could not be read (errors say why); false: nothing of it listens on such a name.
  std::optional<bool> listens;
  std::optional<std::uint64_t> socket_inode;  // the listening socket's (sockfs) inode
  std::string bound_path;                     // its path as the kernel prints it
  std::vector<ObservationError> errors;
};

// Who may have made an attach file. A JVM names its attach files by its own pid, the one it
// sees (the last NSpid field), so the name is matched the way a backing file's is: in every
// pid namespace whose processes use this temp dir, never only against host pids.
struct AttachLiveness {
  // The processes whose own pid is the file's: the host process of that pid (not for a
  // container's temp dir), then those of the container's mount namespace and of every mount
  // namespace sharing this temp dir (by their last NSpid field), each once.
  std::vector<ProcessFacts> candidates;
  // Every process that may use this temp dir from another pid namespace was placed in or out
  // of those mount namespaces with its NSpid (and none changed the file since): no candidate
  // that lives then proves that no process of any of them has this pid.
  bool candidates_complete = false;

  // The pid is gone in every pid namespace using this temp dir: the search was complete and
  // every candidate found is gone. What makes an attach file stale, for the reaper and the
  // audit alike.
  bool proves_gone() const {
    if (!candidates_complete) return false;
    for (const ProcessFacts& p : candidates) {
      if (p.existence != ProcessFacts::Existence::gone) return false;
    }
    return true;
  }
  // The first candidate that lives, if any.
  const ProcessFacts* alive() const {
    for (const ProcessFacts& p : candidates) {
      if (p.existence == ProcessFacts::Existence::alive) return &p;
    }
    return nullptr;
  }

  // A listener socket's: for each candidate that lives, whether it listens on a socket named
  // after the file (empty: not looked at, a trigger file, or facts from before this was read).
  std::vector<AttachListenerFacts> listeners;
  const AttachListenerFacts* listener_of(std::int32_t host_pid) const {
    for (const AttachListenerFacts& l : listeners) {
      if (l.pid == host_pid) return &l;
    }
    return nullptr;
  }
  // Nothing listens on this socket though a candidate lives: the search was complete, every
  // candidate is gone or lives without listening on such a name (read, not guessed), and at
  // least one lives. What makes a listener socket of a live pid stale, for the reaper and the
  // audit alike (a JVM's own socket file appears only after its listener listens).
  bool proves_no_listener() const {
    if (!candidates_complete || alive() == nullptr) return false;
    for (const ProcessFacts& p : candidates) {
      if (p.existence == ProcessFacts::Existence::gone) continue;
      if (p.existence != ProcessFacts::Existence::alive) return false;
      const AttachListenerFacts* l = listener_of(p.pid);
      if (l == nullptr || l->listens != false) return false;
    }
    return true;
  }
};

// `.java_pid<pid>` attach sockets and `.attach_pid<pid>` trigger files beside the namespaces.
struct AttachFacts {
  std::string name;
  std::string path;
  enum class Kind { listener_socket, trigger_file } kind = Kind::listener_socket;
  std::optional<std::int32_t> pid;
  std::optional<InodeFacts> lstat;
  std::optional<AttachLiveness> liveness;  // nullopt: its pid was not looked up
  std::vector<ObservationError> errors;
};

// Where a temp dir came from: this host, a directory given on the command line, a
// foreign system root, or a container seen through /proc/<pid>/root.
// alt_temp_dir: the directory a JVM of our own mount namespace names with -XX:AltTempDir,
// looked at because that JVM publishes there (decide/discover.hpp, alt_temp_dir_roots).
// account_temp_dir (Windows): the temp dir of another account than this run's, a service
// account's or the one a running JVM's environment names (decide/discover.hpp,
// account_temp_dir_roots): each account has a temp dir of its own there.
enum class RootKind { host, tmpdir, root, container, alt_temp_dir, account_temp_dir };

// RootKind::account_temp_dir: whose temp dir it is, and how it was found.
struct TempDirAccount {
  std::string name;  // the account ("SYSTEM", "LOCAL SERVICE", a JVM's user)
  // Found in this JVM's environment (TMP, TEMP, USERPROFILE, as GetTempPath reads them);
  // nullopt: a service account's temp dir, where Windows puts it.
  std::optional<std::int32_t> jvm_pid;
  friend bool operator==(const TempDirAccount&, const TempDirAccount&) = default;
};

struct ContainerFacts {
  std::int32_t host_pid = 0;    // a process through which the root was reached
  std::string mount_namespace;  // "mnt:[4026532123]"
  std::optional<std::string> cgroup;
  // The host uids host_pid's user namespace maps (nullopt: not read). A process in the
  // container can own nothing else: a namespace in its /tmp owned by another host uid was not
  // made there (a user's own user namespace binding a host directory over its /tmp), and the
  // reaper never acts as that uid there.
  std::optional<std::vector<procfs::UidRange>> uid_map;
  bool maps_host_uid(std::uint32_t uid) const {
    if (!uid_map) return false;
    for (const procfs::UidRange& r : *uid_map) {
      if (uid >= r.first_host_uid && uid - r.first_host_uid < r.count) return true;
    }
    return false;
  }
  // The name of the directory of the host's temp dir whose "tmp" is this /tmp (same dev, ino):
  // "systemd-private-<boot id>-tomcat.service-<random>", what systemd makes for PrivateTmp=
  // (docs/POLICY.md, "Reachable only from its own mount namespace"). Initialised here, so that
  // the positional initialisers of the members above stay complete.
  std::optional<std::string> systemd_private_dir{};
};

// Processes the container scan could not look into: their mount namespace, root or /tmp
// could not be read (ptrace access to /proc/<pid>/ns/mnt and /proc/<pid>/root needs
// CAP_SYS_PTRACE), so whether they are in a container, and what its /tmp holds, is not known.
// Carried by the first temp root of a run (the host's); a run that has them is incomplete.
struct UnobservedProcesses {
  static constexpr std::size_t kMaxListed = 16;
  std::size_t count = 0;
  std::vector<std::int32_t> pids;        // the first kMaxListed, in pid order
  std::vector<ObservationError> errors;  // the first few
  bool empty() const { return count == 0; }
};

// The cleaners configured on the system that owns a temp dir (systemd-tmpfiles, tmpreaper,
// tmpwatch, cron jobs), as its files say (model/cleaners.hpp), and what could not be read.
struct CleanerFacts {
  cleaners::Configuration configuration;
  std::vector<ObservationError> errors;
};

struct TempRootFacts {
  RootKind kind = RootKind::host;
  Platform platform = Platform::posix;
  std::string root;      // the system root ("/", "DIR", "/proc/123/root")
  std::string temp_dir;  // the temp dir audited (inside `root` for a foreign root or container)
  // The temp dir as this host reaches it ("/proc/123/root/tmp" for a container's, "DIR/tmp"
  // for --root DIR): what findings and messages name, so that nobody reads a container's
  // /tmp as the host's. Empty (facts built by hand): temp_dir.
  std::string reachable_path;
  std::optional<InodeFacts> lstat;
  std::optional<InodeFacts> opened;
  std::optional<VolumeFacts> volume;
  std::optional<ContainerFacts> container;
  // Further mount namespaces whose processes see this very directory as their /tmp from
  // another pid namespace (containers sharing a bind-mounted /tmp, or the host's): a name
  // here may be one of their pids too, matched by the last NSpid field.
  std::vector<std::string> sharing_mount_namespaces;
  // The host's temp dir: the mount namespace it is seen from (the tool's own), when the
  // container scan read it; a container's is container->mount_namespace.
  std::optional<std::string> own_mount_namespace;
  UnobservedProcesses unobserved;  // as RootSpec::unobserved
  std::optional<std::int32_t> alt_temp_dir_pid;  // as RootSpec::alt_temp_dir_pid
  std::optional<TempDirAccount> account;         // as RootSpec::account
  std::int64_t max_pid = kDefaultMaxPid;
  std::uint64_t page_size = 4096;  // of the host: a JVM rounds its region up to it
  // Invisible JVMs whose namespace (hsperfdata_<user> here) does not exist.
  std::vector<JvmProcessFacts> invisible_jvms;
  std::vector<NamespaceFacts> namespaces;
  std::vector<AttachFacts> attach_files;
  // This host's or the --root system's cleaners; nullopt: not read (a container's, a --tmpdir,
  // Windows, facts built by hand).
  std::optional<CleanerFacts> cleaners;
  std::vector<ObservationError> errors;
  // Why observation stopped before the end of this temp dir (its run limits were reached:
  // "deadline", "interrupted"); its errors say how far it got. nullopt: observed to the end,
  // or not opened at all (then its errors say why).
  std::optional<std::string> stopped;

  const std::string& shown_temp_dir() const { return reachable_path.empty() ? temp_dir : reachable_path; }
};

// A file named after a pid in one of a temp dir's namespaces (`inspect PID` chooses among
// them: decide/inspect_target.hpp).
struct BackingFileCandidate {
  std::string path;
  std::optional<std::uint32_t> owner_uid;  // POSIX
  std::uint64_t dev = 0;                   // POSIX: st_dev, as makedev(major, minor)
  std::uint64_t ino = 0;
  std::int64_t mtime_ns = 0;
};

// Names used in reports and messages ("char-device", "no-permission", "container").
std::string_view to_string(FileKind kind);
std::string_view to_string(RootKind kind);
std::string_view to_string(ProcessFacts::Existence existence);
// Permission bits, setuid/setgid/sticky included, as 4 octal digits: "0755", "1777".
std::string octal_mode(std::uint32_t mode);

}  // namespace hsperfguard
