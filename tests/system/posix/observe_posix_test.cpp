// System tests of the Linux observation layer: real trees under a private scratch dir,
// built to look like what an attacker (or a careless admin) leaves in a temp dir. The
// facts are asserted exactly; the sentinels outside the tree must come out untouched.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/acl.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "child_posix.hpp"
#include "model/acl_xattr.hpp"
#include "model/perfdata.hpp"
#include "platform/observe.hpp"
#include "platform/posix/acl_posix.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/volume_posix.hpp"
#include "refusals_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

using test::ChildResult;
using test::run_in_child;
using test::ScratchDir;
using test::to_bytes;
using test::write_file;

constexpr std::uint32_t kAlice = 4242;
constexpr std::uint32_t kOther = 4343;

// ---- building trees ---------------------------------------------------------------------------

void make_dir(const std::string& path, mode_t mode = 0755) {
  ASSERT_EQ(::mkdir(path.c_str(), mode), 0) << path << ": " << std::strerror(errno);
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);  // whatever the umask
}

void own(const std::string& path, std::uint32_t uid, std::uint32_t gid) {
  ASSERT_EQ(::lchown(path.c_str(), uid, gid), 0) << path;
}

void put(const std::string& path, const std::vector<std::byte>& bytes, mode_t mode = 0600) {
  write_file(path, bytes);
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

void make_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << path;
  ::close(fd);  // the socket inode stays in the directory
}

// Sets atime and mtime to fixed old values, so that any read (relatime included) or write
// would visibly change them.
void age(const std::string& path) {
  const timespec times[2] = {{978307200, 111}, {978307200, 222}};  // 2001-01-01
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

std::vector<std::byte> small_region(const std::string& command) {
  perfdata::RegionSpec spec;
  spec.size = perfdata::kDefaultRegionSize;
  perfdata::NewEntry begin;
  begin.name = "sun.rt.createVmBeginTime";
  begin.units = perfdata::Units::ticks;
  begin.long_value = 1700000000000;
  perfdata::NewEntry cmd;
  cmd.name = "sun.rt.javaCommand";
  cmd.is_string = true;
  cmd.string_value = command;
  spec.entries = {begin, cmd};
  auto built = perfdata::build_region(spec);
  EXPECT_FALSE(built.error.has_value());
  return built.bytes;
}

std::vector<std::byte> jdk17_region() {
  return test::read_file(std::string(HSPERFGUARD_SOURCE_DIR) + "/tests/data/jdk17-default.hsperf");
}

std::int64_t host_max_pid() {
  std::ifstream in("/proc/sys/kernel/pid_max");
  std::int64_t v = 0;
  in >> v;
  return v - 1;
}

// Reads a file without touching its atime (we are root: O_NOATIME is allowed), so that a
// snapshot does not itself change what it records.
std::vector<std::byte> read_quietly(const std::string& path) {
  std::vector<std::byte> out;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOATIME | O_NOFOLLOW | O_CLOEXEC));
  EXPECT_TRUE(fd.valid()) << path;
  std::byte buf[4096];
  for (ssize_t n; fd.valid() && (n = ::read(fd.get(), buf, sizeof buf)) > 0;)
    out.insert(out.end(), buf, buf + n);
  return out;
}

struct Snapshot {
  std::vector<std::byte> content;
  struct stat st {};
};

Snapshot snapshot(const std::string& path) {
  Snapshot s;
  EXPECT_EQ(::lstat(path.c_str(), &s.st), 0) << path;
  if (S_ISREG(s.st.st_mode)) s.content = read_quietly(path);  // never a FIFO: it would block
  return s;
}

void expect_unchanged(const Snapshot& before, const std::string& path) {
  struct stat now {};
  ASSERT_EQ(::lstat(path.c_str(), &now), 0) << path;
  EXPECT_EQ(now.st_mode, before.st.st_mode) << path;
  EXPECT_EQ(now.st_uid, before.st.st_uid) << path;
  EXPECT_EQ(now.st_nlink, before.st.st_nlink) << path;
  EXPECT_EQ(now.st_size, before.st.st_size) << path;
  EXPECT_EQ(now.st_mtim.tv_sec, before.st.st_mtim.tv_sec) << path;
  EXPECT_EQ(now.st_mtim.tv_nsec, before.st.st_mtim.tv_nsec) << path;
  EXPECT_EQ(now.st_ctim.tv_sec, before.st.st_ctim.tv_sec) << path;
  EXPECT_EQ(now.st_ctim.tv_nsec, before.st.st_ctim.tv_nsec) << path;
  EXPECT_EQ(now.st_atim.tv_sec, before.st.st_atim.tv_sec) << path << ": read without O_NOATIME";
  EXPECT_EQ(now.st_atim.tv_nsec, before.st.st_atim.tv_nsec) << path;
  if (S_ISREG(now.st_mode)) {
    EXPECT_EQ(read_quietly(path), before.content) << path;
  }
}

// Records what happens to one inode (inotify): how it was opened, whether it was written.
class InodeWatch {
 public:
  explicit InodeWatch(const std::string& path) : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    EXPECT_TRUE(fd_.valid());
    EXPECT_GE(::inotify_add_watch(fd_.get(), path.c_str(), IN_ALL_EVENTS), 0) << path;
  }
  // The union of the event bits seen so far.
  std::uint32_t events() {
    alignas(inotify_event) char buf[4096];
    for (ssize_t n; (n = ::read(fd_.get(), buf, sizeof buf)) > 0;) {
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        seen_ |= e->mask;
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
    return seen_;
  }

 private:
  UniqueFd fd_;
  std::uint32_t seen_ = 0;
};

// ---- reading facts ------------------------------------------------------------------------------

const NamespaceFacts* find_namespace(const TempRootFacts& facts, std::string_view name) {
  for (const auto& ns : facts.namespaces) {
    if (ns.name == name) return &ns;
  }
  return nullptr;
}

const FileFacts* find_file(const NamespaceFacts& ns, std::string_view name) {
  for (const auto& f : ns.files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const AttachFacts* find_attach(const TempRootFacts& facts, std::string_view name) {
  for (const auto& a : facts.attach_files) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string describe(const std::vector<ObservationError>& errors) {
  std::string out;
  for (const auto& e : errors) out += e.op + "(" + e.path + "): " + e.message + "; ";
  return out;
}

bool has_error(const std::vector<ObservationError>& errors, std::string_view op, int code) {
  for (const auto& e : errors) {
    if (e.op == op && e.code == code) return true;
  }
  return false;
}

// Drops to uid/gid (and no supplementary groups) in a child; returns false on failure.
bool become(std::uint32_t uid, std::uint32_t gid) {
  return ::setgroups(0, nullptr) == 0 && ::setresgid(gid, gid, gid) == 0 &&
         ::setresuid(uid, uid, uid) == 0;
}

// ---- the hostile tree ---------------------------------------------------------------------------

// scratch/
//   outside/            sentinels the observation must never touch
//     secret            a file (hard-linked and symlinked from inside)
//     dir/              a directory (a namespace symlinks to it)
//   tmp/                the temp dir observed (01777, like /tmp)
// Every test runs twice: with the system calls for many files made in batches (io_uring,
// where the kernel has it) and one call at a time; the facts must not differ.
class ObserveTree : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!test::is_root()) GTEST_SKIP() << "builds trees with chown, mknod and ACLs: needs root";
    ASSERT_EQ(::chmod(scratch_.path().c_str(), 0755), 0);
    outside_ = scratch_ / "outside";
    tmp_ = scratch_ / "tmp";
    make_dir(outside_);
    make_dir(outside_ + "/dir");
    put(outside_ + "/dir/untouched", to_bytes("sentinel dir content\n"), 0644);
    put(outside_ + "/secret", to_bytes("sentinel file content\n"), 0644);
    make_dir(tmp_, 01777);
  }

  std::string ns(const std::string& user) const { return tmp_ + "/hsperfdata_" + user; }

  TempRootFacts observe(ObserveOptions options = {}) const {
    options.batched_io = GetParam();
    options.min_batched_entries = 1;  // even a few files
    RootSpec spec;
    spec.kind = RootKind::tmpdir;
    spec.temp_dir = tmp_;
    return observe_temp_root(spec, options);
  }

  ScratchDir scratch_;
  std::string outside_;
  std::string tmp_;
};

TEST_P(ObserveTree, EmptyTempDirFactsAreExact) {
  const TempRootFacts facts = observe();
  EXPECT_TRUE(facts.errors.empty()) << describe(facts.errors);
  EXPECT_EQ(facts.kind, RootKind::tmpdir);
  EXPECT_EQ(facts.platform, Platform::posix);
  EXPECT_EQ(facts.temp_dir, tmp_);
  EXPECT_EQ(facts.max_pid, host_max_pid());
  ASSERT_TRUE(facts.lstat && facts.opened);
  EXPECT_EQ(facts.lstat->kind, FileKind::directory);
  EXPECT_EQ(facts.lstat->mode, 01777u);
  EXPECT_EQ(facts.opened->ino, facts.lstat->ino);
  EXPECT_EQ(facts.opened->dev, facts.lstat->dev);
  struct stat st {};
  ASSERT_EQ(::stat(tmp_.c_str(), &st), 0);
  EXPECT_EQ(facts.opened->ino, st.st_ino);
  EXPECT_EQ(facts.opened->dev, static_cast<std::uint64_t>(st.st_dev));
  ASSERT_TRUE(facts.volume);
  EXPECT_NE(facts.volume->fs_type, "unknown");
  EXPECT_FALSE(facts.volume->network);
  EXPECT_TRUE(facts.volume->mount_id.has_value());
  EXPECT_TRUE(facts.namespaces.empty());
  EXPECT_TRUE(facts.attach_files.empty());
}

TEST_P(ObserveTree, ValidRegionsAreReadUpToUsedAndParsed) {
  make_dir(ns("alice"));
  own(ns("alice"), kAlice, kAlice);
  const auto small = small_region("Main --flag");
  put(ns("alice") + "/1234", small);
  own(ns("alice") + "/1234", kAlice, kAlice);
  put(ns("alice") + "/4567", jdk17_region());  // used = 12320 > 4096: a second read
  const TempRootFacts facts = observe();
  EXPECT_TRUE(facts.errors.empty()) << describe(facts.errors);
  ASSERT_EQ(facts.namespaces.size(), 1u);
  const NamespaceFacts& alice = facts.namespaces[0];
  EXPECT_TRUE(alice.errors.empty()) << describe(alice.errors);
  EXPECT_EQ(alice.name, "hsperfdata_alice");
  EXPECT_EQ(alice.user_suffix, "alice");
  EXPECT_EQ(alice.path, tmp_ + "/hsperfdata_alice");
  ASSERT_TRUE(alice.lstat && alice.opened);
  EXPECT_EQ(alice.lstat->kind, FileKind::directory);
  EXPECT_EQ(alice.lstat->uid, kAlice);
  EXPECT_EQ(alice.lstat->mode, 0755u);
  EXPECT_TRUE(alice.identity_matches);
  EXPECT_FALSE(alice.crosses_mount);
  ASSERT_TRUE(alice.access_acl);
  EXPECT_FALSE(alice.access_acl->extended());
  ASSERT_EQ(alice.access_acl->entries.size(), 3u);
  EXPECT_EQ(alice.access_acl->entries[0].perms, 7);
  EXPECT_EQ(alice.access_acl->entries[1].perms, 5);
  EXPECT_EQ(alice.access_acl->entries[2].perms, 5);
  EXPECT_FALSE(alice.default_acl.has_value());
  ASSERT_TRUE(alice.volume);
  EXPECT_EQ(alice.volume->fs_type, facts.volume->fs_type);
  EXPECT_EQ(alice.volume->mount_id, facts.volume->mount_id);

  ASSERT_EQ(alice.files.size(), 2u);
  const FileFacts& f1234 = alice.files[0];
  EXPECT_EQ(f1234.name, "1234");
  EXPECT_EQ(f1234.path, tmp_ + "/hsperfdata_alice/1234");
  EXPECT_TRUE(f1234.errors.empty()) << describe(f1234.errors);
  EXPECT_EQ(f1234.pid_name.kind, PidNameKind::canonical);
  EXPECT_EQ(f1234.pid_name.pid, 1234);
  ASSERT_TRUE(f1234.lstat && f1234.opened);
  EXPECT_EQ(f1234.lstat->kind, FileKind::regular);
  EXPECT_EQ(f1234.lstat->mode, 0600u);
  EXPECT_EQ(f1234.lstat->uid, kAlice);
  EXPECT_EQ(f1234.lstat->size, 32768u);
  EXPECT_EQ(f1234.opened->ino, f1234.lstat->ino);
  EXPECT_FALSE(f1234.crosses_mount);
  ASSERT_TRUE(f1234.access_acl);
  EXPECT_FALSE(f1234.access_acl->extended());
  ASSERT_TRUE(f1234.region);
  EXPECT_EQ(f1234.region->bytes_read, 4096u);  // used is far below 4 KiB: one read
  EXPECT_TRUE(f1234.region->region.valid());
  ASSERT_NE(f1234.region->region.find("sun.rt.javaCommand"), nullptr);
  EXPECT_EQ(f1234.region->region.find("sun.rt.javaCommand")->string_value, "Main --flag");
  EXPECT_EQ(f1234.region->region.find("sun.rt.createVmBeginTime")->long_value, 1700000000000);

  const FileFacts& f4567 = alice.files[1];
  ASSERT_TRUE(f4567.region);
  EXPECT_EQ(f4567.region->bytes_read, 12320u);  // exactly `used`
  EXPECT_TRUE(f4567.region->region.valid());
  // Every entry is walked and checked; only the counters the audit reads are kept.
  EXPECT_EQ(f4567.region->region.entry_count, 187u);
  EXPECT_EQ(f4567.region->region.entries.size(), std::size(kObservedCounters));
}

TEST_P(ObserveTree, MaxRegionBytesZeroReadsNoContents) {
  make_dir(ns("alice"));
  put(ns("alice") + "/1234", small_region("Main"));
  ObserveOptions options;
  options.max_region_bytes = 0;
  const TempRootFacts facts = observe(options);
  ASSERT_EQ(facts.namespaces.size(), 1u);
  ASSERT_EQ(facts.namespaces[0].files.size(), 1u);
  EXPECT_TRUE(facts.namespaces[0].files[0].opened.has_value());
  EXPECT_FALSE(facts.namespaces[0].files[0].region.has_value());
}

TEST_P(ObserveTree, SymlinkedNamespaceIsNotFollowed) {
  ASSERT_EQ(::symlink((outside_ + "/dir").c_str(), ns("bob").c_str()), 0);
  const Snapshot dir = snapshot(outside_ + "/dir");
  const Snapshot content = snapshot(outside_ + "/dir/untouched");
  InodeWatch watch(outside_ + "/dir");
  const TempRootFacts facts = observe();
  EXPECT_EQ(watch.events(), 0u) << "the sentinel directory was opened or listed";
  const NamespaceFacts* bob = find_namespace(facts, "hsperfdata_bob");
  ASSERT_NE(bob, nullptr);
  ASSERT_TRUE(bob->lstat);
  EXPECT_EQ(bob->lstat->kind, FileKind::symlink);
  EXPECT_FALSE(bob->opened.has_value());
  EXPECT_TRUE(bob->files.empty());
  EXPECT_FALSE(bob->access_acl.has_value());
  EXPECT_FALSE(bob->volume.has_value());
  EXPECT_TRUE(bob->errors.empty()) << describe(bob->errors);
  expect_unchanged(dir, outside_ + "/dir");
  expect_unchanged(content, outside_ + "/dir/untouched");
}

TEST_P(ObserveTree, NamespacesThatAreNotDirectoriesAreSeenNotOpened) {
  put(ns("file"), to_bytes("not a directory"), 0644);
  ASSERT_EQ(::mkfifo(ns("fifo").c_str(), 0666), 0);
  make_socket(ns("sock"));
  ASSERT_EQ(::mknod(ns("dev").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  const auto start = std::chrono::steady_clock::now();
  const TempRootFacts facts = observe();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_EQ(facts.namespaces.size(), 4u);
  const std::pair<const char*, FileKind> expected[] = {
      {"hsperfdata_dev", FileKind::char_device},
      {"hsperfdata_fifo", FileKind::fifo},
      {"hsperfdata_file", FileKind::regular},
      {"hsperfdata_sock", FileKind::socket},
  };
  for (std::size_t i = 0; i < 4; ++i) {
    const NamespaceFacts& n = facts.namespaces[i];  // sorted by name
    EXPECT_EQ(n.name, expected[i].first);
    ASSERT_TRUE(n.lstat) << n.name;
    EXPECT_EQ(n.lstat->kind, expected[i].second) << n.name;
    EXPECT_FALSE(n.opened.has_value()) << n.name;
    EXPECT_TRUE(n.files.empty()) << n.name;
    EXPECT_TRUE(n.errors.empty()) << describe(n.errors);
  }
}

TEST_P(ObserveTree, FifoPlantedInNamespaceDoesNotBlock) {
  make_dir(ns("alice"));
  ASSERT_EQ(::mkfifo((ns("alice") + "/1234").c_str(), 0666), 0);
  ASSERT_EQ(::mkfifo(ns("fifo").c_str(), 0666), 0);
  const std::string alice = ns("alice");
  // In a child with a deadline: a blocking open would hang, and be killed, not stall ctest.
  const ChildResult child = run_in_child(
      [&] {
        const TempRootFacts facts = observe();
        const NamespaceFacts* n = find_namespace(facts, "hsperfdata_alice");
        if (n == nullptr || n->files.size() != 1) return std::string("missing facts");
        const FileFacts& f = n->files[0];
        std::ostringstream out;
        out << "kind=" << (f.lstat && f.lstat->kind == FileKind::fifo)
            << " opened=" << f.opened.has_value() << " region=" << f.region.has_value()
            << " errors=" << f.errors.size() << " pid=" << f.pid_name.pid.value_or(0);
        return out.str();
      },
      std::chrono::seconds(10));
  ASSERT_TRUE(child.finished) << "observation blocked on a FIFO";
  EXPECT_EQ(child.out, "kind=1 opened=0 region=0 errors=0 pid=1234");
}

TEST_P(ObserveTree, DevicesAndSocketsInNamespaceAreNeverOpened) {
  make_dir(ns("alice"));
  ASSERT_EQ(::mknod((ns("alice") + "/1000").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  make_socket(ns("alice") + "/1001");
  // A block device too: opening one could spin up hardware, reading it would leak a disk.
  ASSERT_EQ(::mknod((ns("alice") + "/1002").c_str(), S_IFBLK | 0600, makedev(7, 0)), 0);
  const TempRootFacts facts = observe();
  const NamespaceFacts* n = find_namespace(facts, "hsperfdata_alice");
  ASSERT_NE(n, nullptr);
  ASSERT_EQ(n->files.size(), 3u);
  const FileKind kinds[] = {FileKind::char_device, FileKind::socket, FileKind::block_device};
  for (std::size_t i = 0; i < 3; ++i) {
    const FileFacts& f = n->files[i];
    ASSERT_TRUE(f.lstat) << f.name;
    EXPECT_EQ(f.lstat->kind, kinds[i]) << f.name;
    EXPECT_FALSE(f.opened.has_value()) << f.name;
    EXPECT_FALSE(f.access_acl.has_value()) << f.name;
    EXPECT_FALSE(f.region.has_value()) << f.name;
    EXPECT_TRUE(f.errors.empty()) << describe(f.errors);
  }
}

TEST_P(ObserveTree, SymlinkToSentinelIsSeenNotFollowed) {
  make_dir(ns("alice"));
  ASSERT_EQ(::symlink((outside_ + "/secret").c_str(), (ns("alice") + "/1234").c_str()), 0);
  age(outside_ + "/secret");
  const Snapshot secret = snapshot(outside_ + "/secret");
  InodeWatch watch(outside_ + "/secret");
  const TempRootFacts facts = observe();
  EXPECT_EQ(watch.events(), 0u) << "the link's target was touched";
  const FileFacts* f = find_file(*find_namespace(facts, "hsperfdata_alice"), "1234");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->lstat);
  EXPECT_EQ(f->lstat->kind, FileKind::symlink);
  EXPECT_EQ(f->lstat->size, outside_.size() + 7);  // the link's own size: its target's length
  EXPECT_FALSE(f->opened.has_value());
  EXPECT_FALSE(f->region.has_value());
  expect_unchanged(secret, outside_ + "/secret");
}

TEST_P(ObserveTree, HardLinkToSentinelIsSeenNotOpenedForWrite) {
  make_dir(ns("alice"));
  ASSERT_EQ(::link((outside_ + "/secret").c_str(), (ns("alice") + "/1234").c_str()), 0);
  age(outside_ + "/secret");
  const Snapshot secret = snapshot(outside_ + "/secret");
  InodeWatch watch(outside_ + "/secret");
  const TempRootFacts facts = observe();
  // Opened and read (it is a regular file), but only for reading: closed without a write.
  const std::uint32_t events = watch.events();
  EXPECT_NE(events & IN_OPEN, 0u);
  EXPECT_NE(events & IN_CLOSE_NOWRITE, 0u);
  EXPECT_EQ(events & (IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF), 0u);
  const FileFacts* f = find_file(*find_namespace(facts, "hsperfdata_alice"), "1234");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->lstat && f->opened);
  EXPECT_EQ(f->lstat->nlink, 2u);
  EXPECT_EQ(f->opened->nlink, 2u);
  EXPECT_EQ(f->lstat->ino, secret.st.st_ino);
  ASSERT_TRUE(f->region);
  EXPECT_FALSE(f->region->region.prologue.has_value());  // "sentinel file content"
  EXPECT_EQ(f->region->bytes_read, secret.content.size());
  // Same content, mode, times (atime too: read with O_NOATIME), link count.
  expect_unchanged(secret, outside_ + "/secret");
}

TEST_P(ObserveTree, SparseTerabyteFileIsNotReadWhole) {
  make_dir(ns("alice"));
  // A prologue that claims 2,000,000,000 bytes in use, at the start of a 1 TiB hole.
  auto head = small_region("Main");
  head.resize(4096);
  const std::int32_t used = 2000000000;
  std::memcpy(head.data() + 8, &used, 4);  // little-endian region on a little-endian host
  const std::string huge = ns("alice") + "/1234";
  put(huge, head);
  ASSERT_EQ(::truncate(huge.c_str(), 1LL << 40), 0);
  const std::string hole = ns("alice") + "/1235";
  put(hole, {});
  ASSERT_EQ(::truncate(hole.c_str(), 1LL << 40), 0);

  const auto start = std::chrono::steady_clock::now();
  const TempRootFacts facts = observe();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  const NamespaceFacts* n = find_namespace(facts, "hsperfdata_alice");
  ASSERT_NE(n, nullptr);
  ASSERT_EQ(n->files.size(), 2u);
  const FileFacts& f = n->files[0];
  ASSERT_TRUE(f.lstat && f.region);
  EXPECT_EQ(f.lstat->size, 1ULL << 40);
  EXPECT_EQ(f.region->bytes_read, perfdata::kMaxRegionSize);  // capped, never the file
  ASSERT_TRUE(f.region->region.prologue);
  EXPECT_EQ(f.region->region.prologue->used, used);
  EXPECT_FALSE(f.region->region.valid());
  const FileFacts& zeros = n->files[1];
  ASSERT_TRUE(zeros.region);
  EXPECT_EQ(zeros.region->bytes_read, 4096u);  // no magic: no second read
  EXPECT_FALSE(zeros.region->region.prologue.has_value());

  ObserveOptions small;
  small.max_region_bytes = 65536;
  const TempRootFacts capped = observe(small);
  EXPECT_EQ(find_file(*find_namespace(capped, "hsperfdata_alice"), "1234")->region->bytes_read,
            65536u);
}

TEST_P(ObserveTree, TruncatedAndGarbageFilesAreFactsNotFailures) {
  make_dir(ns("alice"));
  auto truncated = jdk17_region();
  truncated.resize(64);
  put(ns("alice") + "/1000", truncated);
  std::vector<std::byte> garbage(100);
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<std::byte>(i * 37 + 11);
  put(ns("alice") + "/1001", garbage);
  put(ns("alice") + "/1002", {});
  const TempRootFacts facts = observe();
  const NamespaceFacts* n = find_namespace(facts, "hsperfdata_alice");
  ASSERT_NE(n, nullptr);
  ASSERT_EQ(n->files.size(), 3u);
  for (const auto& f : n->files) EXPECT_TRUE(f.errors.empty()) << describe(f.errors);
  ASSERT_TRUE(n->files[0].region);
  EXPECT_EQ(n->files[0].region->bytes_read, 64u);
  ASSERT_TRUE(n->files[0].region->region.prologue);  // intact prologue, used beyond the file
  EXPECT_EQ(n->files[0].region->region.prologue->used, 12320);
  EXPECT_TRUE(n->files[0].region->region.error.has_value());
  ASSERT_TRUE(n->files[1].region);
  EXPECT_EQ(n->files[1].region->bytes_read, 100u);
  EXPECT_FALSE(n->files[1].region->region.prologue.has_value());
  ASSERT_TRUE(n->files[2].region);
  EXPECT_EQ(n->files[2].region->bytes_read, 0u);
  EXPECT_FALSE(n->files[2].region->region.valid());
}

// A name that is no pid ("1junk", "notes.txt", "12x") is read by no JVM and no JVM tool, and no
// rule judges its content: it is opened (its owner, mode and ACL are facts) but never read, so
// that an audit without CAP_FOWNER leaves its access time, by which systemd-tmpfiles ages it.
// All-digit names, in range or not, are read as before.
TEST_P(ObserveTree, ContentOfANameThatIsNoPidIsNeverRead) {
  make_dir(ns("alice"));
  own(ns("alice"), kAlice, kAlice);
  const auto region = small_region("Main");
  const std::vector<std::string> unread{"1junk", "notes.txt", "12x"};
  const std::vector<std::string> read{"1234", "007", "99999999999"};
  for (const auto& name : unread) put(ns("alice") + "/" + name, region);
  for (const auto& name : read) put(ns("alice") + "/" + name, region);
  put(ns("alice") + "/empty", {});
  std::map<std::string, std::unique_ptr<InodeWatch>> watches;
  for (const auto& name : unread) watches[name] = std::make_unique<InodeWatch>(ns("alice") + "/" + name);
  for (const auto& name : read) watches[name] = std::make_unique<InodeWatch>(ns("alice") + "/" + name);
  const TempRootFacts facts = observe();
  const NamespaceFacts& n = *find_namespace(facts, "hsperfdata_alice");
  for (const auto& name : unread) {
    const FileFacts* f = find_file(n, name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_TRUE(f->errors.empty()) << name << ": " << describe(f->errors);
    EXPECT_EQ(f->pid_name.kind, PidNameKind::not_a_pid) << name;
    ASSERT_TRUE(f->opened.has_value()) << name << ": still opened, its facts taken";
    EXPECT_EQ(f->opened->kind, FileKind::regular) << name;
    EXPECT_FALSE(f->region.has_value()) << name << ": its content was decoded";
    EXPECT_EQ(watches[name]->events() & IN_ACCESS, 0u) << name << ": its content was read";
  }
  EXPECT_FALSE(find_file(n, "empty")->region.has_value());
  for (const auto& name : read) {
    const FileFacts* f = find_file(n, name);
    ASSERT_NE(f, nullptr) << name;
    ASSERT_TRUE(f->region.has_value()) << name;
    EXPECT_TRUE(f->region->region.valid()) << name;
    EXPECT_NE(watches[name]->events() & IN_ACCESS, 0u) << name << ": not read";
  }
}

TEST_P(ObserveTree, PidNamesAreClassifiedWithTheHostMaxPid) {
  make_dir(ns("alice"));
  for (const char* name : {"1", "007", "99999999999", "12x", "-5", "0"})
    put(ns("alice") + "/" + name, {});
  const TempRootFacts facts = observe();
  const NamespaceFacts& n = *find_namespace(facts, "hsperfdata_alice");
  EXPECT_EQ(find_file(n, "1")->pid_name.kind, PidNameKind::canonical);
  EXPECT_EQ(find_file(n, "007")->pid_name.kind, PidNameKind::noncanonical);
  EXPECT_EQ(find_file(n, "007")->pid_name.pid, 7);
  EXPECT_EQ(find_file(n, "99999999999")->pid_name.kind, PidNameKind::out_of_range);
  EXPECT_EQ(find_file(n, "0")->pid_name.kind, PidNameKind::out_of_range);
  EXPECT_EQ(find_file(n, "12x")->pid_name.kind, PidNameKind::not_a_pid);
  EXPECT_EQ(find_file(n, "-5")->pid_name.kind, PidNameKind::not_a_pid);
  // Sorted by name (bytewise).
  std::vector<std::string> names;
  for (const auto& f : n.files) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"-5", "0", "007", "1", "12x", "99999999999"}));
}

TEST_P(ObserveTree, ChownedFilesReportTheirArbitraryOwners) {
  make_dir(ns("alice"), 0700);
  own(ns("alice"), kAlice, kAlice);
  put(ns("alice") + "/1234", small_region("Main"), 0644);
  own(ns("alice") + "/1234", kOther, 4444);
  make_dir(ns("alice") + "/subdir");
  const TempRootFacts facts = observe();
  const NamespaceFacts& n = *find_namespace(facts, "hsperfdata_alice");
  EXPECT_EQ(n.lstat->uid, kAlice);
  EXPECT_EQ(n.lstat->gid, kAlice);
  EXPECT_EQ(n.lstat->mode, 0700u);
  const FileFacts& f = *find_file(n, "1234");
  EXPECT_EQ(f.lstat->uid, kOther);
  EXPECT_EQ(f.lstat->gid, 4444u);
  EXPECT_EQ(f.opened->uid, kOther);
  EXPECT_EQ(f.lstat->mode, 0644u);
  const FileFacts& sub = *find_file(n, "subdir");
  EXPECT_EQ(sub.lstat->kind, FileKind::directory);
  EXPECT_FALSE(sub.opened.has_value());  // never recursed into
}

TEST_P(ObserveTree, ExtendedAndDefaultAclsAreRead) {
  if (!test::have_program("setfacl")) GTEST_SKIP() << "setfacl is needed";
  make_dir(ns("acl"));
  ASSERT_EQ(test::run({"setfacl", "-m", "u:4242:rwx", ns("acl")}).exit_code, 0);
  ASSERT_EQ(
      test::run({"setfacl", "-d", "--set", "u::rwx,u:4242:rw-,g::r-x,m::rwx,o::---", ns("acl")})
          .exit_code,
      0);
  put(ns("acl") + "/1234", small_region("Main"), 0600);
  ASSERT_EQ(test::run({"setfacl", "-m", "u:4343:rw-", ns("acl") + "/1234"}).exit_code, 0);
  const TempRootFacts facts = observe();
  const NamespaceFacts& n = *find_namespace(facts, "hsperfdata_acl");
  EXPECT_TRUE(n.errors.empty()) << describe(n.errors);
  ASSERT_TRUE(n.volume);
  EXPECT_EQ(n.volume->acl_support, true);
  ASSERT_TRUE(n.access_acl);
  EXPECT_TRUE(n.access_acl->extended());
  ASSERT_EQ(n.access_acl->entries.size(), 5u);
  const AclEntry expected_access[] = {{AclTag::user_obj, std::nullopt, 7},
                                      {AclTag::user, kAlice, 7},
                                      {AclTag::group_obj, std::nullopt, 5},
                                      {AclTag::mask, std::nullopt, 7},
                                      {AclTag::other, std::nullopt, 5}};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(n.access_acl->entries[i].tag, expected_access[i].tag) << i;
    EXPECT_EQ(n.access_acl->entries[i].qualifier, expected_access[i].qualifier) << i;
    EXPECT_EQ(n.access_acl->entries[i].perms, expected_access[i].perms) << i;
  }
  ASSERT_TRUE(n.default_acl);
  const AclEntry expected_default[] = {{AclTag::user_obj, std::nullopt, 7},
                                       {AclTag::user, kAlice, 6},
                                       {AclTag::group_obj, std::nullopt, 5},
                                       {AclTag::mask, std::nullopt, 7},
                                       {AclTag::other, std::nullopt, 0}};
  ASSERT_EQ(n.default_acl->entries.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(n.default_acl->entries[i].tag, expected_default[i].tag) << i;
    EXPECT_EQ(n.default_acl->entries[i].qualifier, expected_default[i].qualifier) << i;
    EXPECT_EQ(n.default_acl->entries[i].perms, expected_default[i].perms) << i;
  }
  const FileFacts& f = *find_file(n, "1234");
  ASSERT_TRUE(f.access_acl);
  EXPECT_TRUE(f.access_acl->extended());
  bool named_other = false;
  for (const auto& e : f.access_acl->entries) {
    named_other |= e.tag == AclTag::user && e.qualifier == kOther && e.perms == 6;
  }
  EXPECT_TRUE(named_other);
}

TEST_P(ObserveTree, XattrDecoderAgreesWithLibacl) {
  if (!test::have_program("setfacl")) GTEST_SKIP() << "setfacl is needed";
  const std::string file = scratch_ / "aclfile";
  put(file, {}, 0640);
  ASSERT_EQ(test::run({"setfacl", "-m", "u:4242:r--,g:4444:rw-,u:0:--x", file}).exit_code, 0);
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  std::vector<std::byte> raw(1024);
  const ssize_t n = ::fgetxattr(fd.get(), "system.posix_acl_access", raw.data(), raw.size());
  ASSERT_GT(n, 0);
  raw.resize(static_cast<std::size_t>(n));
  const auto decoded = decode_acl_xattr(raw);
  std::vector<ObservationError> errors;
  const auto via_libacl = read_access_acl(fd.get(), 0640, file, errors);
  ASSERT_TRUE(decoded && via_libacl);
  ASSERT_EQ(decoded->entries.size(), via_libacl->entries.size());
  for (std::size_t i = 0; i < decoded->entries.size(); ++i) {
    EXPECT_EQ(decoded->entries[i].tag, via_libacl->entries[i].tag);
    EXPECT_EQ(decoded->entries[i].qualifier, via_libacl->entries[i].qualifier);
    EXPECT_EQ(decoded->entries[i].perms, via_libacl->entries[i].perms);
  }
  EXPECT_EQ(decoded->entries.size(), 7u);  // u::, u:0, u:4242, g::, g:4444, m::, o::
  // Malformed values are rejected, never half-read.
  EXPECT_FALSE(decode_acl_xattr(std::span(raw.data(), raw.size() - 1)).has_value());
  auto bad_version = raw;
  bad_version[0] = std::byte{3};
  EXPECT_FALSE(decode_acl_xattr(bad_version).has_value());
  auto bad_tag = raw;
  bad_tag[4] = std::byte{0x40};
  EXPECT_FALSE(decode_acl_xattr(bad_tag).has_value());
  EXPECT_FALSE(decode_acl_xattr({}).has_value());
}

// Sets inode flags with FS_IOC_SETFLAGS; false where the file system has none.
bool set_inode_flags(const std::string& path, int flags) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  int current = 0;
  if (!fd.valid() || ::ioctl(fd.get(), FS_IOC_GETFLAGS, &current) != 0) return false;
  current = (current & ~(FS_NODUMP_FL | FS_APPEND_FL)) | flags;
  return ::ioctl(fd.get(), FS_IOC_SETFLAGS, &current) == 0;
}

TEST_P(ObserveTree, InodeFlagsOfNamespaceAndFilesAreRead) {
  make_dir(ns("alice"));
  put(ns("alice") + "/1234", small_region("Main"));
  put(ns("alice") + "/1235", small_region("Main"));
  if (!set_inode_flags(ns("alice"), FS_NODUMP_FL)) GTEST_SKIP() << "no inode flags here";
  // Append-only: the reaper could not unlink it. Cleared again before the scratch dir goes.
  ASSERT_TRUE(set_inode_flags(ns("alice") + "/1234", FS_APPEND_FL | FS_NODUMP_FL));
  struct Clear {
    std::string path;
    ~Clear() { set_inode_flags(path, 0); }
  } clear{ns("alice") + "/1234"};
  const TempRootFacts facts = observe();
  const NamespaceFacts& n = *find_namespace(facts, "hsperfdata_alice");
  ASSERT_TRUE(n.inode_flags);
  EXPECT_EQ(*n.inode_flags & FS_NODUMP_FL, static_cast<std::uint32_t>(FS_NODUMP_FL));
  ASSERT_TRUE(n.volume);
  EXPECT_EQ(n.volume->compressed, false);
  const FileFacts& flagged = *find_file(n, "1234");
  ASSERT_TRUE(flagged.inode_flags);
  EXPECT_EQ(*flagged.inode_flags & (FS_APPEND_FL | FS_NODUMP_FL),
            static_cast<std::uint32_t>(FS_APPEND_FL | FS_NODUMP_FL));
  EXPECT_TRUE(flagged.region && flagged.region->region.valid());  // append-only still reads
  const FileFacts& plain = *find_file(n, "1235");
  ASSERT_TRUE(plain.inode_flags);
  EXPECT_EQ(*plain.inode_flags & (FS_APPEND_FL | FS_NODUMP_FL | FS_IMMUTABLE_FL), 0u);
}

// The streaming form's promise to a stage: one call per namespace, entered or not, with its
// position in name order and its owner looked up, before the consumer receives it in order;
// a stage that throws makes observe_temp_root throw on the calling thread.
TEST_P(ObserveTree, StageRunsOnceForEveryNamespaceBeforeItIsConsumed) {
  make_dir(ns("root"));
  put(ns("root") + "/1234", small_region("Main"));
  make_dir(ns("alice"));
  put(ns("alice") + "/4321", small_region("Main"));
  ASSERT_EQ(::symlink(outside_.c_str(), ns("link").c_str()), 0);
  put(ns("plain"), to_bytes("a file, not a directory"));
  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = tmp_;
  ObserveOptions options;
  options.batched_io = GetParam();
  options.min_batched_entries = 1;  // even a few files
  std::mutex mutex;
  std::vector<std::string> staged_names(4);
  std::vector<int> stage_calls(4, 0);
  std::vector<std::string> consumed;
  bool root_user_seen = false;
  std::string problems;
  const TempRootFacts facts = observe_temp_root(
      spec, options,
      [&](const TempRootFacts&, NamespaceFacts&& n) {
        const std::lock_guard lock(mutex);
        const std::size_t at = consumed.size();
        if (at >= stage_calls.size() || stage_calls[at] != 1 || staged_names[at] != n.name) {
          problems += "consumed " + n.name + " before its stage; ";
        }
        consumed.push_back(n.name);
      },
      [&](const TempRootFacts&, std::size_t index, NamespaceFacts& n) {
        const std::lock_guard lock(mutex);
        if (index >= stage_calls.size()) {
          problems += "index " + std::to_string(index) + " out of range; ";
          return;
        }
        ++stage_calls[index];
        staged_names[index] = n.name;
        if (n.name == "hsperfdata_root") root_user_seen = n.user.has_value() && n.user->uid == 0;
      });
  EXPECT_EQ(problems, "");
  EXPECT_EQ(stage_calls, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(consumed, (std::vector<std::string>{"hsperfdata_alice", "hsperfdata_link",
                                                "hsperfdata_plain", "hsperfdata_root"}));
  EXPECT_EQ(staged_names, consumed);
  EXPECT_TRUE(root_user_seen) << "the stage ran before the owner was looked up";
  EXPECT_TRUE(facts.namespaces.empty());

  // Failing on the calling thread (the link, not entered) and on a worker (an entered one).
  for (const std::size_t failing : {std::size_t{1}, std::size_t{3}}) {
    std::vector<std::string> before_failure;
    EXPECT_THROW(
        observe_temp_root(
            spec, options,
            [&](const TempRootFacts&, NamespaceFacts&& n) { before_failure.push_back(n.name); },
            [&](const TempRootFacts&, std::size_t index, NamespaceFacts&) {
              if (index == failing) throw std::runtime_error("stage failed");
            }),
        std::runtime_error);
    EXPECT_EQ(before_failure, std::vector<std::string>(
                                  consumed.begin(), consumed.begin() + static_cast<long>(failing)));
  }
}

// Without worker threads (ps) every namespace is entered on the calling thread: the same
// facts, in the same order.
// The facts of a tree in a line per namespace: what each file's observation found (its inode
// as opened, the bytes of its region read, whether the region is valid, its errors).
std::string digest(const TempRootFacts& facts) {
  std::string out = describe(facts.errors) + "\n";
  for (const NamespaceFacts& n : facts.namespaces) {
    out += n.name + (n.lstat ? " lstat" : "") + (n.opened ? " opened" : "") + ":";
    for (const FileFacts& f : n.files) {
      out += " " + f.name + "/" + std::to_string(f.opened ? f.opened->ino : 0) + "/" +
             std::to_string(f.region ? f.region->bytes_read : 0) + "/" +
             (f.region && f.region->region.valid() ? "valid" : "-") +
             (f.errors.empty() ? "" : "/errors: " + describe(f.errors));
    }
    out += "\n";
  }
  return out;
}

TEST_P(ObserveTree, WithoutWorkerThreadsTheFactsAreTheSame) {
  for (const char* user : {"alice", "bob", "root"}) {
    make_dir(ns(user));
    for (int pid : {100, 200}) put(ns(user) + "/" + std::to_string(pid), small_region(user));
  }
  ASSERT_EQ(::symlink(outside_.c_str(), ns("link").c_str()), 0);
  ObserveOptions inline_options;
  inline_options.worker_threads = false;
  const std::string threaded = digest(observe());
  EXPECT_EQ(digest(observe(inline_options)), threaded);
  EXPECT_NE(threaded.find("hsperfdata_bob lstat opened: 100/"), std::string::npos) << threaded;
  EXPECT_NE(threaded.find("/valid"), std::string::npos) << threaded;
}

// A ring that is made and then refused its work (io_uring_enter refused by a seccomp filter
// made in a child, after io_uring_setup and the probe of its operations were allowed): every
// batched call comes back cancelled, and each file is then observed one call at a time, with
// the same facts as a run that never batched. Where io_uring is refused outright (the suite
// under seccomp_refuse) no ring is made, and the facts are the same too.
TEST_P(ObserveTree, RingThatRefusesItsWorkGivesTheSameFacts) {
  for (const char* user : {"alice", "bob"}) {
    make_dir(ns(user));
    for (int pid : {100, 200, 300}) put(ns(user) + "/" + std::to_string(pid), small_region(user));
  }
  ASSERT_EQ(::symlink((outside_ + "/secret").c_str(), (ns("alice") + "/400").c_str()), 0);
  ObserveOptions one_at_a_time;
  one_at_a_time.batched_io = false;
  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = tmp_;
  const std::string expected = digest(observe_temp_root(spec, one_at_a_time));
  const ChildResult child = run_in_child([&]() -> std::string {
    if (!test::refuse_system_calls({SYS_io_uring_enter}, EPERM)) return "filter refused";
    return digest(observe());  // batched where this run's parameter says so
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, expected);
  EXPECT_NE(expected.find("hsperfdata_alice lstat opened: 100/"), std::string::npos) << expected;
  EXPECT_NE(expected.find("/valid"), std::string::npos) << expected;
}

// A namespace listing more entries than files_per_part comes in parts, in order, each staged
// before it is consumed: every file exactly once, each part sorted, the namespace's own facts
// repeated, its namespace-level errors and blind JVMs only in part 0.
TEST_P(ObserveTree, LargeNamespaceComesInStagedPartsWithEveryFileOnce) {
  make_dir(ns("alice"));
  std::set<std::string> names;
  for (int i = 0; i < 10; ++i) {
    const std::string name = std::to_string(1000 + i);
    put(ns("alice") + "/" + name, small_region("Main"));
    names.insert(name);
  }
  make_dir(ns("bob"));
  put(ns("bob") + "/77", small_region("Main"));
  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = tmp_;
  ObserveOptions options;
  options.batched_io = GetParam();
  options.min_batched_entries = 1;  // even a few files
  options.files_per_part = 3;
  std::mutex mutex;
  std::map<std::pair<std::size_t, std::size_t>, int> staged;  // (index, part) -> calls
  std::vector<std::tuple<std::string, std::size_t, bool, std::size_t>> consumed;  // name, part, more, files
  std::set<std::string> seen;
  std::string problems;
  observe_temp_root(
      spec, options,
      [&](const TempRootFacts&, NamespaceFacts&& n) {
        consumed.emplace_back(n.name, n.part, n.more_parts, n.files.size());
        if (!std::is_sorted(n.files.begin(), n.files.end(),
                            [](const FileFacts& a, const FileFacts& b) { return a.name < b.name; })) {
          problems += "unsorted part; ";
        }
        if (!n.opened || n.path != ns(n.user_suffix)) problems += "part without the namespace's facts; ";
        for (const auto& f : n.files) {
          if (n.name == "hsperfdata_alice" && !seen.insert(f.name).second) problems += "twice: " + f.name + "; ";
          if (!f.region) problems += "unread: " + f.name + "; ";
        }
      },
      [&](const TempRootFacts&, std::size_t index, NamespaceFacts& n) {
        const std::lock_guard lock(mutex);
        ++staged[{index, n.part}];
      });
  EXPECT_EQ(problems, "");
  EXPECT_EQ(seen, names);
  using Part = std::tuple<std::string, std::size_t, bool, std::size_t>;
  EXPECT_EQ(consumed, (std::vector<Part>{{"hsperfdata_alice", 0, true, 3},
                                         {"hsperfdata_alice", 1, true, 3},
                                         {"hsperfdata_alice", 2, true, 3},
                                         {"hsperfdata_alice", 3, false, 1},
                                         {"hsperfdata_bob", 0, false, 1}}));
  EXPECT_EQ(staged.size(), 5u);
  for (const auto& [key, calls] : staged) EXPECT_EQ(calls, 1) << key.first << "/" << key.second;
}

// What waits for a slow consumer is bounded, and no part is stuck behind another: with two
// workers, four parts of the namespace being consumed and four of the later ones in all wait,
// each worker holds one more part it staged, and the consumer has one: 11 parts staged and
// not yet consumed at most, and that many once the consumer is slow enough. Three namespaces
// of 12 files each, a part a file, every part consumed in order.
TEST_P(ObserveTree, PartsWaitingForASlowConsumerAreBoundedAndEveryOneComes) {
  std::vector<std::string> users = {"alice", "bob", "carol"};
  for (const std::string& user : users) {
    make_dir(ns(user));
    for (int i = 0; i < 12; ++i) put(ns(user) + "/" + std::to_string(1000 + i), small_region("Main"));
  }
  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = tmp_;
  ObserveOptions options;
  options.batched_io = GetParam();
  options.min_batched_entries = 1;
  options.files_per_part = 1;
  std::mutex mutex;
  int in_flight = 0, most = 0;
  std::vector<std::pair<std::string, std::size_t>> consumed;
  observe_temp_root(
      spec, options,
      [&](const TempRootFacts&, NamespaceFacts&& n) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        consumed.emplace_back(n.name, n.part);
        const std::lock_guard lock(mutex);
        --in_flight;
      },
      [&](const TempRootFacts&, std::size_t, NamespaceFacts&) {
        const std::lock_guard lock(mutex);
        most = std::max(most, ++in_flight);
      });
  ASSERT_EQ(consumed.size(), 36u);
  for (std::size_t i = 0; i < consumed.size(); ++i) {
    EXPECT_EQ(consumed[i], std::make_pair("hsperfdata_" + users[i / 12], i % 12)) << i;
  }
  if (std::thread::hardware_concurrency() >= 2) {
    EXPECT_EQ(most, 11) << "parts staged and not yet consumed, at most";
  } else {
    EXPECT_LE(most, 11);
  }
}

// Run limits reached before observation: nothing is entered or handed over, and the root
// says how far it got; a stop during a namespace in parts ends it at a part boundary.
TEST_P(ObserveTree, RunLimitsStopObservationAndSaySo) {
  make_dir(ns("alice"));
  for (int i = 0; i < 10; ++i) put(ns("alice") + "/" + std::to_string(1000 + i), small_region("Main"));
  make_dir(ns("bob"));
  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = tmp_;
  ObserveOptions options;
  options.batched_io = GetParam();
  options.min_batched_entries = 1;  // even a few files
  std::atomic<bool> stop{true};
  options.limits.stop = &stop;
  std::size_t consumed = 0;
  const TempRootFacts stopped =
      observe_temp_root(spec, options, [&](const TempRootFacts&, NamespaceFacts&&) { ++consumed; });
  EXPECT_EQ(consumed, 0u);
  ASSERT_FALSE(stopped.errors.empty());
  EXPECT_NE(stopped.errors.back().message.find("stopped (interrupted) after 0 namespaces"),
            std::string::npos)
      << stopped.errors.back().message;

  // Stopped while the first namespace's first part is staged: it ends there, marked.
  stop = false;
  options.files_per_part = 3;
  std::vector<std::pair<std::size_t, bool>> parts;
  std::vector<std::string> part_errors;
  const TempRootFacts partial = observe_temp_root(
      spec, options,
      [&](const TempRootFacts&, NamespaceFacts&& n) {
        parts.emplace_back(n.part, n.more_parts);
        for (const auto& e : n.errors) part_errors.push_back(e.message);
      },
      [&](const TempRootFacts&, std::size_t index, NamespaceFacts& n) {
        if (index == 0 && n.part == 0) stop = true;
      });
  ASSERT_FALSE(partial.errors.empty());
  if (parts.empty()) {
    // The stop came before the consumer took alice's first part (a helper thread staged it
    // first): nothing is handed over, and the temp dir says where it stopped.
    EXPECT_NE(partial.errors.back().message.find("after 0 namespaces"), std::string::npos)
        << partial.errors.back().message;
  } else {
    EXPECT_FALSE(parts.back().second) << "the last part handed over says no more follow";
    EXPECT_LE(parts.size(), 3u) << "at most the parts already listed when the stop came";
  }
}

TEST_P(ObserveTree, AttachFilesBesideTheNamespaces) {
  make_socket(tmp_ + "/.java_pid123");
  put(tmp_ + "/.attach_pid123", {}, 0644);
  put(tmp_ + "/.java_pidabc", {}, 0644);
  put(tmp_ + "/unrelated", {}, 0644);
  const TempRootFacts facts = observe();
  EXPECT_TRUE(facts.namespaces.empty());
  ASSERT_EQ(facts.attach_files.size(), 3u);
  const AttachFacts* trigger = find_attach(facts, ".attach_pid123");
  ASSERT_NE(trigger, nullptr);
  EXPECT_EQ(trigger->kind, AttachFacts::Kind::trigger_file);
  EXPECT_EQ(trigger->pid, 123);
  EXPECT_EQ(trigger->path, tmp_ + "/.attach_pid123");
  ASSERT_TRUE(trigger->lstat);
  EXPECT_EQ(trigger->lstat->kind, FileKind::regular);
  const AttachFacts* listener = find_attach(facts, ".java_pid123");
  ASSERT_NE(listener, nullptr);
  EXPECT_EQ(listener->kind, AttachFacts::Kind::listener_socket);
  EXPECT_EQ(listener->pid, 123);
  ASSERT_TRUE(listener->lstat);
  EXPECT_EQ(listener->lstat->kind, FileKind::socket);
  const AttachFacts* bad = find_attach(facts, ".java_pidabc");
  ASSERT_NE(bad, nullptr);
  EXPECT_FALSE(bad->pid.has_value());
}

// Left out of the namespaces' observation (ObserveOptions::attach_files false), the attach
// files are observed afterwards, a part at a time, each part sorted; they are the same facts.
// The temp dir opened again must be the one observed, and the run limits stop the listing.
TEST_P(ObserveTree, AttachFilesObservedApartComeInPartsOfTheTempDirObserved) {
  make_dir(ns("alice"));
  for (int i = 0; i < 10; ++i) put(tmp_ + "/.attach_pid" + std::to_string(200 + i), {}, 0644);
  make_socket(tmp_ + "/.java_pid123");
  ObserveOptions without;
  without.attach_files = false;
  const TempRootFacts root = observe(without);
  EXPECT_EQ(root.namespaces.size(), 1u);
  EXPECT_TRUE(root.attach_files.empty());
  const TempRootFacts whole = observe();
  ASSERT_EQ(whole.attach_files.size(), 11u);

  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = tmp_;
  std::vector<std::size_t> parts;
  std::vector<AttachFacts> seen;
  std::vector<ObservationError> errors;
  const std::size_t handed = observe_attach_files(
      spec, root, 4, RunLimits{},
      [&](std::vector<AttachFacts>&& part) {
        parts.push_back(part.size());
        EXPECT_TRUE(std::is_sorted(part.begin(), part.end(),
                                   [](const AttachFacts& a, const AttachFacts& b) { return a.name < b.name; }));
        for (auto& a : part) seen.push_back(std::move(a));
      },
      errors);
  EXPECT_TRUE(errors.empty()) << describe(errors);
  EXPECT_EQ(handed, 11u);
  EXPECT_EQ(parts, (std::vector<std::size_t>{4, 4, 3}));
  for (const AttachFacts& a : seen) {
    const AttachFacts* same = find_attach(whole, a.name);
    ASSERT_NE(same, nullptr) << a.name;
    EXPECT_EQ(a.path, same->path);
    EXPECT_EQ(a.pid, same->pid);
    EXPECT_EQ(a.kind, same->kind);
    ASSERT_TRUE(a.lstat);
    EXPECT_EQ(a.lstat->ino, same->lstat->ino);
  }

  // Stopped: nothing more is listed, and the error says how far it got.
  std::atomic<bool> stop{true};
  RunLimits limits;
  limits.stop = &stop;
  errors.clear();
  EXPECT_EQ(observe_attach_files(spec, root, 4, limits, [](std::vector<AttachFacts>&&) {}, errors), 0u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("stopped (interrupted) after 0 attach files"), std::string::npos)
      << errors[0].message;

  // Another directory in its place: its attach files are not taken for the observed one's.
  TempRootFacts other = root;
  other.opened->ino += 1;
  errors.clear();
  EXPECT_EQ(observe_attach_files(spec, other, 4, RunLimits{}, [](std::vector<AttachFacts>&&) {}, errors), 0u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("replaced"), std::string::npos) << errors[0].message;
}

TEST_P(ObserveTree, HostUsersResolveThroughNss) {
  make_dir(ns("root"));
  make_dir(ns("no-such-user-hsperfguard"));
  make_dir(tmp_ + "/hsperfdata_");
  const TempRootFacts facts = observe();
  ASSERT_EQ(facts.namespaces.size(), 3u);
  const NamespaceFacts& empty = facts.namespaces[0];
  EXPECT_EQ(empty.user_suffix, "");
  EXPECT_FALSE(empty.user.has_value());
  const NamespaceFacts& nobody = *find_namespace(facts, "hsperfdata_no-such-user-hsperfguard");
  EXPECT_FALSE(nobody.user.has_value());
  EXPECT_FALSE(nobody.user_lookup_failed);
  const NamespaceFacts& root = *find_namespace(facts, "hsperfdata_root");
  ASSERT_TRUE(root.user);
  EXPECT_EQ(root.user->name, "root");
  EXPECT_EQ(root.user->uid, 0u);
  EXPECT_EQ(root.user->gid, 0u);
}

TEST_P(ObserveTree, AuditChangesNothingItLooksAt) {
  make_dir(ns("alice"));
  own(ns("alice"), kAlice, kAlice);
  put(ns("alice") + "/1234", small_region("Main"));
  own(ns("alice") + "/1234", kAlice, kAlice);
  put(ns("alice") + "/4567", jdk17_region(), 0644);
  ASSERT_EQ(::mkfifo((ns("alice") + "/fifo").c_str(), 0600), 0);
  for (const char* p : {"/1234", "/4567", "/fifo", ""}) age(ns("alice") + p);
  age(tmp_);
  std::vector<std::pair<std::string, Snapshot>> before;
  for (const std::string& p :
       {ns("alice") + "/1234", ns("alice") + "/4567", ns("alice") + "/fifo", ns("alice"), tmp_}) {
    before.emplace_back(p, snapshot(p));
  }
  const TempRootFacts facts = observe();
  ASSERT_EQ(find_namespace(facts, "hsperfdata_alice")->files.size(), 3u);
  for (const auto& [path, snap] : before) expect_unchanged(snap, path);
}

// An unprivileged user sees what it may; the rest is recorded as errors, never an abort.
TEST_P(ObserveTree, UnprivilegedObserverRecordsWhatItCannotSee) {
  make_dir(ns("alice"));
  own(ns("alice"), kAlice, kAlice);
  put(ns("alice") + "/1234", small_region("Main"), 0600);
  own(ns("alice") + "/1234", kAlice, kAlice);
  put(ns("alice") + "/4567", jdk17_region(), 0644);
  own(ns("alice") + "/4567", kAlice, kAlice);
  make_dir(ns("private"), 0700);
  own(ns("private"), kAlice, kAlice);
  put(ns("private") + "/1234", small_region("Main"), 0600);
  make_dir(ns("alice") + "/locked", 0700);
  const ChildResult child = run_in_child([&] {
    if (!become(kOther, kOther)) return std::string("setresuid failed");
    const TempRootFacts facts = observe();
    std::ostringstream out;
    out << "root-errors=" << facts.errors.size() << "\n";
    for (const auto& n : facts.namespaces) {
      out << n.name << " lstat=" << n.lstat.has_value() << " opened=" << n.opened.has_value()
          << " files=" << n.files.size() << " eacces=" << has_error(n.errors, "openat", EACCES)
          << "\n";
      for (const auto& f : n.files) {
        out << "  " << f.name << " lstat=" << f.lstat.has_value()
            << " opened=" << f.opened.has_value()
            << " valid=" << (f.region && f.region->region.valid())
            << " eacces=" << has_error(f.errors, "openat", EACCES) << "\n";
      }
    }
    return out.str();
  });
  ASSERT_TRUE(child.finished);
  ASSERT_TRUE(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0) << child.out;
  EXPECT_EQ(child.out,
            "root-errors=0\n"
            "hsperfdata_alice lstat=1 opened=1 files=3 eacces=0\n"
            "  1234 lstat=1 opened=0 valid=0 eacces=1\n"
            "  4567 lstat=1 opened=1 valid=1 eacces=0\n"
            "  locked lstat=1 opened=0 valid=0 eacces=0\n"
            "hsperfdata_private lstat=1 opened=0 files=0 eacces=1\n");
}

// A mount planted on a namespace (a user's FUSE server could answer slowly, or lie) and a
// file bind-mounted over a backing file: recorded, never entered or opened.
TEST_P(ObserveTree, MountPlantedOnNamespaceIsNotEntered) {
  make_dir(ns("mnt"));
  make_dir(ns("alice"));
  put(ns("alice") + "/1234", small_region("Main"));
  const std::string mnt = ns("mnt");
  const std::string bound = ns("alice") + "/1234";
  const std::string secret = outside_ + "/secret";
  const ChildResult child = run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return "skip: unshare: " + std::string(std::strerror(errno));
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "skip: private";
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m") != 0) return "skip: mount tmpfs";
    write_file(mnt + "/4321", to_bytes("inside the mount"));
    if (::mount(secret.c_str(), bound.c_str(), nullptr, MS_BIND, nullptr) != 0) return "skip: bind";
    const TempRootFacts facts = observe();
    const NamespaceFacts* m = find_namespace(facts, "hsperfdata_mnt");
    const NamespaceFacts* a = find_namespace(facts, "hsperfdata_alice");
    if (m == nullptr || a == nullptr || a->files.size() != 1) return "missing facts";
    const FileFacts& f = a->files[0];
    std::ostringstream out;
    out << "mnt crosses=" << m->crosses_mount << " opened=" << m->opened.has_value()
        << " files=" << m->files.size() << " exdev=" << has_error(m->errors, "openat", EXDEV)
        << " kind=" << (m->lstat && m->lstat->kind == FileKind::directory) << "\n"
        << "alice crosses=" << a->crosses_mount << "\n"
        << "file crosses=" << f.crosses_mount << " opened=" << f.opened.has_value()
        << " region=" << f.region.has_value() << "\n";
    return out.str();
  });
  ASSERT_TRUE(child.finished);
  if (child.out.starts_with("skip:")) GTEST_SKIP() << child.out;
  EXPECT_EQ(child.out,
            "mnt crosses=1 opened=0 files=0 exdev=1 kind=1\n"
            "alice crosses=0\n"
            "file crosses=1 opened=0 region=0\n");
}

// What the observer opens without an lstat first (an entry the directory lists as regular):
// a regular file, never the target of a link, never what is mounted over the name. Where the
// kernel refuses openat2 (seccomp_refuse), nothing is opened that way: every open says ENOSYS,
// and the observer lstats each entry first (MountPlantedOnNamespaceIsNotEntered, above, shows
// what it then records of the same mounts).
TEST_P(ObserveTree, ListedFilesAreOpenedWithoutLinksOrMounts) {
  const bool refused = test::openat2_refusal() != 0;
  make_dir(ns("alice"));
  make_dir(ns("alice") + "/mnt");
  put(ns("alice") + "/1234", small_region("Main"));
  put(ns("alice") + "/4321", small_region("Main"));
  ASSERT_EQ(::symlink((outside_ + "/secret").c_str(), (ns("alice") + "/link").c_str()), 0);
  const std::string dir = ns("alice");
  const std::string secret = outside_ + "/secret";
  const ChildResult child = run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return "skip: unshare: " + std::string(std::strerror(errno));
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "skip: private";
    if (::mount("tmpfs", (dir + "/mnt").c_str(), "tmpfs", 0, "size=1m") != 0) return "skip: tmpfs";
    if (::mount(secret.c_str(), (dir + "/4321").c_str(), nullptr, MS_BIND, nullptr) != 0) {
      return "skip: bind";
    }
    InodeWatch watch(secret);
    UniqueFd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    std::ostringstream out;
    for (const char* name : {"1234", "4321", "link", "mnt"}) {
      errno = 0;
      UniqueFd fd(open_entry_on_this_mount(dirfd.get(), name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
      const int code = fd.valid() ? 0 : errno;
      out << name << " opened=" << fd.valid() << " errno="
          << (code == EXDEV    ? "EXDEV"
              : code == ELOOP  ? "ELOOP"
              : code == ENOSYS ? "ENOSYS"
                               : std::to_string(code))
          << "\n";
    }
    out << "secret touched=" << (watch.events() != 0) << "\n";
    return out.str();
  });
  ASSERT_TRUE(child.finished);
  if (child.out.starts_with("skip:")) GTEST_SKIP() << child.out;
  EXPECT_EQ(child.out, refused ? "1234 opened=0 errno=ENOSYS\n"
                                 "4321 opened=0 errno=ENOSYS\n"
                                 "link opened=0 errno=ENOSYS\n"
                                 "mnt opened=0 errno=ENOSYS\n"
                                 "secret touched=0\n"
                               : "1234 opened=1 errno=0\n"
                                 "4321 opened=0 errno=EXDEV\n"
                                 "link opened=0 errno=ELOOP\n"
                                 "mnt opened=0 errno=EXDEV\n"
                                 "secret touched=0\n");
}

// A race against the listing: while the tree is observed again and again, a backing file's
// name is swapped (atomically, RENAME_EXCHANGE) between the region and a symlink to a
// sentinel. Whatever the listing said, the name is never followed: each observation sees
// the region (read and valid), the link (not opened), or a refused open; the sentinel is
// never opened.
TEST_P(ObserveTree, FileSwappedWithSymlinkDuringObservationIsNeverFollowed) {
  make_dir(ns("alice"));
  make_dir(outside_ + "/stage");
  const std::string name = ns("alice") + "/1234";
  const std::string staged = outside_ + "/stage/1234";
  put(name, small_region("Main"));
  ASSERT_EQ(::symlink((outside_ + "/secret").c_str(), staged.c_str()), 0);
  InodeWatch watch(outside_ + "/secret");
  std::atomic<bool> stop{false};
  std::atomic<long> swaps{0};
  std::thread swapper([&] {
    while (!stop.load()) {
      if (::renameat2(AT_FDCWD, name.c_str(), AT_FDCWD, staged.c_str(), RENAME_EXCHANGE) == 0) {
        ++swaps;
      }
    }
  });
  int regular = 0, link = 0, refused = 0, other = 0;
  for (int i = 0; i < 300; ++i) {
    const TempRootFacts facts = observe();
    const NamespaceFacts* a = find_namespace(facts, "hsperfdata_alice");
    const FileFacts* f = a != nullptr ? find_file(*a, "1234") : nullptr;
    if (f == nullptr || !f->lstat) {
      ++other;
    } else if (f->lstat->kind == FileKind::symlink && !f->opened && !f->region) {
      ++link;
    } else if (f->lstat->kind == FileKind::regular && f->opened &&
               f->opened->kind == FileKind::regular && f->region && f->region->region.valid()) {
      ++regular;
    } else if (f->lstat->kind == FileKind::regular && !f->region &&
               has_error(f->errors, "openat", ELOOP)) {
      ++refused;  // lstat'ed as the region, a link by the time it was opened
    } else {
      ++other;
    }
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(watch.events() & IN_OPEN, 0u) << "the sentinel behind the link was opened";
  EXPECT_EQ(other, 0) << "regular=" << regular << " link=" << link << " refused=" << refused;
  EXPECT_GT(swaps.load(), 300);
  EXPECT_GT(regular, 0);
  EXPECT_GT(link, 0);
}

// ---- foreign roots
// --------------------------------------------------------------------------------

class ObserveForeignRoot : public ObserveTree {
 protected:
  void SetUp() override {
    ObserveTree::SetUp();
    if (IsSkipped()) return;
    root_ = scratch_ / "root";
    make_dir(root_);
    make_dir(root_ + "/etc");
    make_dir(root_ + "/tmp", 01777);
    put(root_ + "/etc/passwd",
        to_bytes("root:x:0:0::/root:/bin/sh\nalice:x:4242:4343::/home/alice:/bin/sh\n"), 0644);
  }
  TempRootFacts observe_root(RootKind kind = RootKind::root) const {
    RootSpec spec;
    spec.kind = kind;
    spec.root = root_;
    spec.temp_dir = "/tmp";
    ObserveOptions options;
    options.batched_io = GetParam();
    options.min_batched_entries = 1;  // even a few files
    return observe_temp_root(spec, options);
  }
  std::string root_;
};

TEST_P(ObserveForeignRoot, UsersComeFromTheRootsPasswd) {
  make_dir(root_ + "/tmp/hsperfdata_alice");
  make_dir(root_ + "/tmp/hsperfdata_nobody");
  put(root_ + "/tmp/hsperfdata_alice/1234", small_region("Main"));
  for (RootKind kind : {RootKind::root, RootKind::container}) {
    const TempRootFacts facts = observe_root(kind);
    EXPECT_TRUE(facts.errors.empty()) << describe(facts.errors);
    EXPECT_EQ(facts.root, root_);
    ASSERT_EQ(facts.namespaces.size(), 2u);
    const NamespaceFacts& alice = facts.namespaces[0];
    EXPECT_EQ(alice.path, root_ + "/tmp/hsperfdata_alice");
    ASSERT_TRUE(alice.user);
    EXPECT_EQ(alice.user->uid, kAlice);
    EXPECT_EQ(alice.user->gid, kOther);
    EXPECT_FALSE(alice.user_lookup_failed);
    ASSERT_EQ(alice.files.size(), 1u);
    EXPECT_EQ(alice.files[0].path, root_ + "/tmp/hsperfdata_alice/1234");
    EXPECT_TRUE(alice.files[0].region && alice.files[0].region->region.valid());
    // "nobody" exists on the host, not in this root.
    EXPECT_FALSE(facts.namespaces[1].user.has_value());
    EXPECT_FALSE(facts.namespaces[1].user_lookup_failed);
  }
}

TEST_P(ObserveForeignRoot, MissingPasswdIsAFailedLookupNotAMissingUser) {
  make_dir(root_ + "/tmp/hsperfdata_alice");
  ASSERT_EQ(::unlink((root_ + "/etc/passwd").c_str()), 0);
  const TempRootFacts facts = observe_root();
  ASSERT_EQ(facts.namespaces.size(), 1u);
  EXPECT_FALSE(facts.namespaces[0].user.has_value());
  EXPECT_TRUE(facts.namespaces[0].user_lookup_failed);
  EXPECT_TRUE(has_error(facts.errors, "openat2", ENOENT) ||
              has_error(facts.errors, "openat", ENOENT))
      << describe(facts.errors);
}

TEST_P(ObserveForeignRoot, TmpSymlinkedToHostDirectoryIsNotFollowed) {
  ASSERT_EQ(::rmdir((root_ + "/tmp").c_str()), 0);
  // On the host, /<scratch>/tmp holds a namespace: the root's tmp must not lead there.
  make_dir(ns("alice"));
  ASSERT_EQ(::symlink(tmp_.c_str(), (root_ + "/tmp").c_str()), 0);
  const TempRootFacts facts = observe_root();
  EXPECT_TRUE(facts.namespaces.empty());
  EXPECT_FALSE(facts.opened.has_value());
  ASSERT_TRUE(facts.lstat);
  EXPECT_EQ(facts.lstat->kind, FileKind::symlink);
  // Held as itself (O_PATH | O_NOFOLLOW) and refused by its type, never opened.
  EXPECT_TRUE(has_error(facts.errors, "open", ELOOP)) << describe(facts.errors);
}

TEST_P(ObserveForeignRoot, EtcPasswdSymlinkedToHostSentinelIsNotRead) {
  make_dir(root_ + "/tmp/hsperfdata_sentinel");
  put(outside_ + "/passwd", to_bytes("sentinel:x:4444:4444::/:/bin/sh\n"), 0644);
  ASSERT_EQ(::unlink((root_ + "/etc/passwd").c_str()), 0);
  ASSERT_EQ(::symlink((outside_ + "/passwd").c_str(), (root_ + "/etc/passwd").c_str()), 0);
  InodeWatch watch(outside_ + "/passwd");
  const TempRootFacts facts = observe_root();
  EXPECT_EQ(watch.events(), 0u) << "the host's sentinel passwd was opened";
  ASSERT_EQ(facts.namespaces.size(), 1u);
  EXPECT_FALSE(facts.namespaces[0].user.has_value());
  EXPECT_TRUE(facts.namespaces[0].user_lookup_failed);
}

TEST_P(ObserveForeignRoot, MissingRootIsAnErrorNotACrash) {
  RootSpec spec;
  spec.kind = RootKind::root;
  spec.root = scratch_ / "no-such-root";
  const TempRootFacts facts = observe_temp_root(spec, {});
  // The path walk names the component it could not open.
  EXPECT_TRUE(has_error(facts.errors, "openat", ENOENT)) << describe(facts.errors);
  EXPECT_TRUE(facts.namespaces.empty());
}

std::string io_name(const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "Batched" : "OneCallAtATime";
}
INSTANTIATE_TEST_SUITE_P(Io, ObserveTree, ::testing::Bool(), io_name);
INSTANTIATE_TEST_SUITE_P(Io, ObserveForeignRoot, ::testing::Bool(), io_name);

TEST(ObserveHost, MissingTempDirIsAnErrorNotACrash) {
  ScratchDir scratch;
  RootSpec spec;
  spec.kind = RootKind::tmpdir;
  spec.temp_dir = scratch / "missing";
  const TempRootFacts facts = observe_temp_root(spec, {});
  EXPECT_TRUE(has_error(facts.errors, "openat", ENOENT)) << describe(facts.errors);
  EXPECT_FALSE(facts.lstat.has_value());
}

TEST(Volume, FsTypeTableNamesNetworkFileSystems) {
  EXPECT_EQ(fs_type_from_magic(0x01021994).name, "tmpfs");
  EXPECT_FALSE(fs_type_from_magic(0x01021994).network);
  EXPECT_FALSE(fs_type_from_magic(0xEF53).network);
  for (std::uint64_t magic : {0x6969ULL, 0xFF534D42ULL, 0xFE534D42ULL, 0x65735546ULL, 0x01021997ULL,
                              0x00c36400ULL, 0x01161970ULL, 0x7461636fULL}) {
    EXPECT_TRUE(fs_type_from_magic(magic).network) << std::hex << magic;
  }
  EXPECT_EQ(fs_type_from_magic(0x12345678).name, "unknown");
}

}  // namespace
}  // namespace hsperfguard::platform
