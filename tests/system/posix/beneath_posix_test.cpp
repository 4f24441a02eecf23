// Resolution beneath a foreign root, and the users read from that root: every test is an
// attack a container (or a hostile --root tree) could mount against a root-run audit.
#include "platform/posix/beneath_posix.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "child_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/users.hpp"
#include "refusals_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

using test::ScratchDir;
using test::to_bytes;
using test::write_file;

struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const Identity&) const = default;
};

Identity identity_of(int fd) {
  struct stat st {};
  EXPECT_EQ(::fstat(fd, &st), 0);
  return {st.st_dev, st.st_ino};
}

Identity identity_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return {st.st_dev, st.st_ino};
}

void make_dir(const std::string& path) { ASSERT_EQ(::mkdir(path.c_str(), 0755), 0) << path; }
void make_link(const std::string& target, const std::string& path) {
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
}

// What decides between the two methods: the probe says what the kernel says. Where openat2
// is refused (a seccomp filter, an old kernel: the suite runs a second time under
// seccomp_refuse), every open beneath a root takes the walk.
TEST(Openat2Probe, SaysWhatTheKernelSays) {
  const int refusal = test::openat2_refusal();
  EXPECT_EQ(openat2_available(), refusal == 0) << "the kernel answers openat2 with " << refusal;
}

// A root "root/" with etc/passwd, and, beside it, a sentinel tree the root must never reach.
// Every test runs with the method chosen at run time (openat2 where the kernel allows it, the
// walk where it is refused, as under seccomp_refuse) and with the walk forced.
class BeneathTest : public ::testing::TestWithParam<BeneathMethod> {
 protected:
  void SetUp() override {
    root_ = scratch_ / "root";
    outside_ = scratch_ / "outside";
    make_dir(root_);
    make_dir(root_ + "/etc");
    make_dir(outside_);
    write_file(root_ + "/etc/passwd", to_bytes("inside:x:4242:4242::/home/inside:/bin/sh\n"));
    write_file(outside_ + "/passwd", to_bytes("sentinel:x:0:0::/root:/bin/sh\n"));
    root_fd_.reset(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(root_fd_.valid());
  }

  UniqueFd open(std::string_view path, int flags, ObservationError* err = nullptr) {
    return open_beneath(root_fd_.get(), path, flags, err, GetParam());
  }

  // Whether this run resolves with openat2 (links followed inside the root) or the walk
  // (every link refused): decided by the kernel's answer, not by the probe under test.
  static bool by_openat2() {
    return GetParam() == BeneathMethod::automatic && test::openat2_refusal() == 0;
  }
  // The system call an error names.
  static const char* failing_call() { return by_openat2() ? "openat2" : "openat"; }

  ScratchDir scratch_;
  std::string root_;
  std::string outside_;
  UniqueFd root_fd_;
};

TEST_P(BeneathTest, OrdinaryPathsResolveInsideTheRoot) {
  const Identity passwd = identity_of(root_ + "/etc/passwd");
  for (const char* path :
       {"etc/passwd", "/etc/passwd", "etc/./passwd", "etc/../etc/passwd", "//etc//passwd"}) {
    ObservationError err;
    UniqueFd fd = open(path, O_RDONLY, &err);
    ASSERT_TRUE(fd.valid()) << path << ": " << err.message;
    EXPECT_EQ(identity_of(fd.get()), passwd) << path;
  }
  UniqueFd root = open("", O_RDONLY | O_DIRECTORY);
  ASSERT_TRUE(root.valid());
  EXPECT_EQ(identity_of(root.get()), identity_of(root_));
}

// A trailing "/" or "/." names a directory: a file there is ENOTDIR, as openat2 says, never the
// file itself.
// Descriptor 0 is a descriptor like any other: a process started with its standard input
// closed (a daemon, a cron job with <&-) gets it for its first open, and that open succeeded
// (openat2 gives it to the file; the walk, to the first directory it opens). In a child,
// which closes its own.
TEST_P(BeneathTest, AnOpenThatGetsDescriptorZeroSucceeded) {
  const Identity passwd = identity_of(root_ + "/etc/passwd");
  const auto child = test::run_in_child([&]() -> std::string {
    ::close(0);
    ObservationError err;
    UniqueFd fd = open("etc/passwd", O_RDONLY, &err);
    if (!fd.valid()) return "failed: " + err.op + " " + err.message;
    return std::string(identity_of(fd.get()) == passwd ? "passwd" : "other") +
           (by_openat2() && fd.get() != 0 ? " not on descriptor 0" : "");
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, "passwd");
}

TEST_P(BeneathTest, TrailingSlashNamesADirectoryOnly) {
  for (const char* path : {"etc/passwd/", "etc/passwd/.", "/etc/passwd//"}) {
    ObservationError err;
    UniqueFd fd = open(path, O_RDONLY, &err);
    EXPECT_FALSE(fd.valid()) << path;
    EXPECT_EQ(err.code, ENOTDIR) << path;
  }
  for (const char* path : {"etc/", "etc/.", "etc//", "/"}) {
    ObservationError err;
    UniqueFd fd = open(path, O_RDONLY, &err);
    ASSERT_TRUE(fd.valid()) << path << ": " << err.message;
    EXPECT_EQ(identity_of(fd.get()), identity_of(path == std::string("/") ? root_ : root_ + "/etc"))
        << path;
  }
}

// A path that ends at a directory already walked (the root, "etc/..") is that directory
// opened again with the flags asked for: opened, nothing is said of it; refused (written to,
// EISDIR), the error says why.
TEST_P(BeneathTest, ADirectoryReachedAgainSaysWhyOnlyWhenItsOpenFails) {
  for (const char* path : {"etc/..", "", "etc/../."}) {
    ObservationError err;
    UniqueFd fd = open(path, O_RDONLY | O_DIRECTORY, &err);
    ASSERT_TRUE(fd.valid()) << path << ": " << err.message;
    EXPECT_EQ(identity_of(fd.get()), identity_of(root_)) << path;
    EXPECT_EQ(err.code, 0) << path << ": " << err.op << " " << err.message;
    EXPECT_TRUE(err.op.empty()) << path << ": " << err.op;

    ObservationError refused;
    UniqueFd written = open(path, O_WRONLY, &refused);
    EXPECT_FALSE(written.valid()) << path;
    EXPECT_EQ(refused.code, EISDIR) << path << ": " << refused.message;
    EXPECT_EQ(refused.op, failing_call()) << path;
  }
}

TEST_P(BeneathTest, AbsoluteSymlinkToHostDirectoryNeverReachesIt) {
  // var -> /<scratch>/outside: on the host that is the sentinel; inside the root it is not.
  // (Not named "tmp": the scratch dir itself may live under /tmp, and the decoy below
  // must not be reached through the link it is a decoy for.)
  make_link(outside_, root_ + "/var");
  const Identity sentinel = identity_of(outside_);
  for (const char* path : {"var", "var/passwd", "var/."}) {
    ObservationError err;
    UniqueFd fd = open(path, O_RDONLY, &err);
    if (fd.valid()) {
      EXPECT_NE(identity_of(fd.get()), sentinel) << path;
    }
    EXPECT_FALSE(fd.valid()) << path << " resolved to something";
  }
  // A decoy at the same absolute path inside the root: openat2 resolves to it, as the
  // root's own processes would; the walk refuses the link.
  ASSERT_EQ(test::run({"mkdir", "-p", root_ + outside_}).exit_code, 0);
  ObservationError err;
  UniqueFd fd = open("var", O_RDONLY | O_DIRECTORY, &err);
  if (by_openat2()) {
    ASSERT_TRUE(fd.valid()) << err.message;
    EXPECT_EQ(identity_of(fd.get()), identity_of(root_ + outside_));
    EXPECT_NE(identity_of(fd.get()), sentinel);
  } else {
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(err.code, ELOOP);
    EXPECT_EQ(err.op, "openat");
  }
}

TEST_P(BeneathTest, DotDotChainIsClampedAtTheRoot) {
  const Identity sentinel = identity_of(outside_ + "/passwd");
  ObservationError err;
  UniqueFd fd = open("../outside/passwd", O_RDONLY, &err);
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(err.code, ENOENT);
  EXPECT_EQ(err.op, failing_call());
  fd = open("../../../../../../../../../../..//etc/passwd", O_RDONLY, &err);
  ASSERT_TRUE(fd.valid()) << err.message;
  EXPECT_EQ(identity_of(fd.get()), identity_of(root_ + "/etc/passwd"));
  EXPECT_NE(identity_of(fd.get()), sentinel);
  fd = open("etc/../../../../..", O_RDONLY | O_DIRECTORY, &err);
  ASSERT_TRUE(fd.valid()) << err.message;
  EXPECT_EQ(identity_of(fd.get()), identity_of(root_));
}

TEST_P(BeneathTest, DotDotChainInsideASymlinkNeverEscapes) {
  // up -> ../../../../../.. then up/outside/passwd: on the host, a path to the sentinel.
  make_link("../../../../../../../../..", root_ + "/etc/up");
  const std::string rel = "etc/up" + outside_ + "/passwd";
  ObservationError err;
  UniqueFd fd = open(rel, O_RDONLY, &err);
  if (fd.valid()) {
    EXPECT_NE(identity_of(fd.get()), identity_of(outside_ + "/passwd"));
  }
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(err.code, by_openat2() ? ENOENT : ELOOP);
  EXPECT_EQ(err.op, failing_call());
}

TEST_P(BeneathTest, SymlinkedEtcPasswdToSentinelIsNotRead) {
  ASSERT_EQ(::unlink((root_ + "/etc/passwd").c_str()), 0);
  make_link(outside_ + "/passwd", root_ + "/etc/passwd");
  ObservationError err;
  UniqueFd fd = open("etc/passwd", O_RDONLY, &err);
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(err.code, by_openat2() ? ENOENT : ELOOP);
  EXPECT_EQ(err.op, failing_call());
  // O_NOFOLLOW refuses a final symlink whatever the method.
  fd = open("etc/passwd", O_RDONLY | O_NOFOLLOW, &err);
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(err.code, ELOOP);
  // Relative, through "..": still inside the root, where there is no such file.
  ASSERT_EQ(::unlink((root_ + "/etc/passwd").c_str()), 0);
  make_link("../../outside/passwd", root_ + "/etc/passwd");
  fd = open("etc/passwd", O_RDONLY, &err);
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(err.code, by_openat2() ? ENOENT : ELOOP);
}

TEST_P(BeneathTest, OPathOnAFinalSymlinkNeverHandsBackTheLinkTarget) {
  make_link(outside_, root_ + "/var");
  ObservationError err;
  UniqueFd fd = open("var", O_PATH, &err);
  if (fd.valid()) {
    struct stat st {};
    ASSERT_EQ(::fstat(fd.get(), &st), 0);
    EXPECT_FALSE(S_ISDIR(st.st_mode) && identity_of(fd.get()) == identity_of(outside_));
  }
}

// The walk adds O_NOFOLLOW to the last component, and with O_PATH the kernel then hands back
// the link itself (an fd a caller could fstat, or follow through /proc/self/fd): the walk
// refuses it with ELOOP, whatever the link points to (a directory, a file, nothing), as it
// refuses every other link. Without O_PATH the kernel's own ELOOP comes through the same way.
TEST(BeneathWalk, OPathOnAFinalSymlinkIsRefusedWithEloopNeverHandedBack) {
  ScratchDir scratch;
  const std::string root = scratch / "root";
  make_dir(root);
  make_dir(root + "/dir");
  write_file(root + "/file", to_bytes("inside\n"));
  make_link("dir", root + "/to-dir");
  make_link("file", root + "/to-file");
  make_link("nowhere", root + "/dangling");
  make_link("/etc", root + "/dir/absolute");
  UniqueFd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(root_fd.valid());
  for (const char* path : {"to-dir", "to-file", "dangling", "dir/absolute", "dir/../to-file"}) {
    for (const int flags : {O_PATH, O_PATH | O_NOFOLLOW, O_RDONLY}) {
      ObservationError err;
      UniqueFd fd = open_beneath(root_fd.get(), path, flags, &err, BeneathMethod::walk);
      struct stat st {};
      const bool link = fd.valid() && ::fstat(fd.get(), &st) == 0 && S_ISLNK(st.st_mode);
      EXPECT_FALSE(fd.valid()) << path << " flags " << flags << (link ? ": handed back the link" : "");
      EXPECT_EQ(err.code, ELOOP) << path << " flags " << flags << ": " << err.message;
      EXPECT_EQ(err.op, "openat") << path << " flags " << flags;
      EXPECT_EQ(err.path, path) << path << " flags " << flags;
    }
  }
  // What the links name is reached by its own name.
  ObservationError err;
  EXPECT_TRUE(open_beneath(root_fd.get(), "dir", O_PATH, &err, BeneathMethod::walk).valid()) << err.message;
  EXPECT_TRUE(open_beneath(root_fd.get(), "file", O_PATH, &err, BeneathMethod::walk).valid()) << err.message;
}

TEST_P(BeneathTest, ProcMagicLinkIsRefused) {
  // /proc/self/root is a magic link to the host's "/": never follow it.
  UniqueFd proc(::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(proc.valid());
  ObservationError err;
  UniqueFd fd =
      open_beneath(proc.get(), "thread-self/root/etc", O_RDONLY | O_DIRECTORY, &err, GetParam());
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(err.code, ELOOP);
  EXPECT_EQ(err.op, failing_call());
  UniqueFd fd2 = open_beneath(proc.get(), "1/root/etc", O_RDONLY | O_DIRECTORY, &err, GetParam());
  EXPECT_FALSE(fd2.valid());  // ELOOP, or EACCES where pid 1 may not be looked into
  EXPECT_EQ(err.op, failing_call());
}

INSTANTIATE_TEST_SUITE_P(Methods, BeneathTest,
                         ::testing::Values(BeneathMethod::automatic, BeneathMethod::walk),
                         [](const auto& p) {
                           return p.param == BeneathMethod::automatic ? std::string("Automatic")
                                                                      : std::string("Walk");
                         });

// ---- users of a foreign root ----------------------------------------------------------------

class ForeignUsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = scratch_ / "root";
    make_dir(root_);
    make_dir(root_ + "/etc");
  }
  std::unique_ptr<UserDatabase> load() {
    UniqueFd fd(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    return root_user_database_at(fd.get(), root_);
  }
  ScratchDir scratch_;
  std::string root_;
};

TEST_F(ForeignUsersTest, UsersComeFromTheRootsOwnPasswdNotTheHost) {
  write_file(root_ + "/etc/passwd", to_bytes("alice:x:4242:4343::/home/alice:/bin/sh\nbad line\n"));
  auto users = load();
  EXPECT_FALSE(users->failed());
  const auto alice = users->find_user("alice");
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->name, "alice");
  EXPECT_EQ(alice->uid, 4242u);
  EXPECT_EQ(alice->gid, 4343u);
  EXPECT_EQ(users->find_name(4242), "alice");
  // The host has root; this system's passwd does not.
  EXPECT_FALSE(users->find_user("root").has_value());
  EXPECT_FALSE(users->find_name(0).has_value());
  EXPECT_FALSE(users->failed());
  // The same through the path-taking entry point.
  auto by_path = root_user_database(root_);
  EXPECT_EQ(by_path->find_name(4242), "alice");
}

// A parsed passwd is shared by the roots that open the same file (containers bind-mounting
// one), keyed by the file and what a write changes: a file rewritten in place, even to the
// same size, is read again, never answered from what it held before.
TEST_F(ForeignUsersTest, PasswdRewrittenInPlaceIsReadAgain) {
  const std::string path = root_ + "/etc/passwd";
  write_file(path, to_bytes("alice:x:4242:4343::/home/alice:/bin/sh\n"));
  EXPECT_EQ(load()->find_name(4242), "alice");
  const Identity before = identity_of(path);
  write_file(path, to_bytes("bob:x:4242:4343::/home/bob:/bin/sh\n"));  // another size
  ASSERT_EQ(identity_of(path), before) << "the same inode, rewritten";
  EXPECT_EQ(load()->find_name(4242), "bob");
  EXPECT_FALSE(load()->find_user("alice").has_value());
  // The same size: told apart by its times (set here, as a write within one clock tick
  // might leave them).
  write_file(path, to_bytes("eve:x:4242:4343::/home/bob:/bin/sh\n"));
  const struct timespec later[2] = {{0, UTIME_OMIT}, {std::time(nullptr) + 10, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
  EXPECT_EQ(load()->find_name(4242), "eve");
  // Another root whose etc/passwd is the same file: the same users.
  const std::string other = scratch_ / "other";
  make_dir(other);
  make_dir(other + "/etc");
  ASSERT_EQ(::link(path.c_str(), (other + "/etc/passwd").c_str()), 0);
  UniqueFd other_fd(::open(other.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  const auto users = root_user_database_at(other_fd.get(), other);
  EXPECT_EQ(users->find_name(4242), "eve");
  ASSERT_TRUE(users->find_user("eve").has_value());
  EXPECT_EQ(users->find_user("eve")->gid, 4343u);
}

// A passwd file whose read fails (here pread refused with EIO by a seccomp filter, in a child)
// makes a failed database that names the read and its error, at once: an error other than
// EINTR is never retried (the loop would spin on it), and EINTR alone is.
TEST_F(ForeignUsersTest, PasswdWhoseReadFailsIsAFailedDatabaseNamingTheRead) {
  write_file(root_ + "/etc/passwd", to_bytes("alice:x:4242:4343::/home/alice:/bin/sh\n"));
  const auto child = test::run_in_child(
      [&]() -> std::string {
        if (!test::refuse_system_calls({SYS_pread64}, EIO)) return "filter refused";
        const auto users = load();
        const auto error = users->error();
        return std::string(users->failed() ? "failed" : "not failed") + " " +
               (error ? error->op + " " + std::to_string(error->code) + " " + error->path : "-") +
               " " + (users->find_user("alice") ? "alice" : "no alice");
      },
      std::chrono::seconds(10));
  ASSERT_TRUE(child.finished) << "the read was retried without end";
  EXPECT_EQ(child.out, "failed pread " + std::to_string(EIO) + " " + root_ + "/etc/passwd no alice");
  // The same file read without the filter: alice.
  EXPECT_EQ(load()->find_name(4242), "alice");
}

// The parses kept for other roots come from at most 64 MiB of passwd text together, the one
// being read included: two files of 32 MiB fill the bound exactly and are both kept, so that
// the first is answered again without a read (seen here: a run whose limits are reached,
// which reads no new file, still has its users). One byte more than the bound evicts it.
TEST_F(ForeignUsersTest, PasswdFilesFillingTheBoundExactlyAreAllKept) {
  constexpr std::size_t kMiB = std::size_t{1024} * 1024;
  // `root`'s etc/passwd of exactly `size` bytes: one user, then a comment to fill it.
  const auto root_with = [&](const std::string& root, const std::string& user, std::size_t size) {
    make_dir(root);
    make_dir(root + "/etc");
    std::string text = user + ":x:4242:4343::/home/" + user + ":/bin/sh\n#";
    text.resize(size - 1, 'x');
    text += '\n';
    write_file(root + "/etc/passwd", to_bytes(text));
    return root;
  };
  const std::string full = root_with(scratch_ / "full", "carol", 64 * kMiB);
  const std::string first = root_with(scratch_ / "first", "alice", 32 * kMiB);
  const std::string second = root_with(scratch_ / "second", "bob", 32 * kMiB);
  const std::string over = root_with(scratch_ / "over", "dave", 32 * kMiB + 1);
  // In a child: the kept parses are the process's own, and earlier tests of this process may
  // have left some.
  const auto child = test::run_in_child(
      [&]() -> std::string {
        const auto users_of = [](const std::string& root, const RunLimits* limits) {
          UniqueFd fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
          const auto users = root_user_database_at(fd.get(), root, limits);
          return users->failed() ? std::string("failed") : users->find_name(4242).value_or("none");
        };
        RunLimits stopped;
        stopped.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        // One call at a time, in this order (the operands of + are not sequenced).
        std::string said;
        for (const auto& [root, limits] : std::vector<std::pair<std::string, const RunLimits*>>{
                 {full, nullptr},  // 64 MiB: every earlier parse is let go
                 {first, nullptr},
                 {second, nullptr},
                 {first, &stopped},
                 {second, &stopped},
                 // One byte more than what the first two leave room for: both are let go.
                 {over, nullptr},
                 {first, &stopped}}) {
          said += (said.empty() ? "" : " ") + users_of(root, limits);
        }
        return said;
      },
      std::chrono::seconds(60));
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, "carol alice bob alice bob dave failed");
}

TEST_F(ForeignUsersTest, MissingPasswdMakesTheDatabaseFailedNotEmpty) {
  auto users = load();
  EXPECT_FALSE(users->find_user("alice").has_value());
  EXPECT_TRUE(users->failed());
  ASSERT_TRUE(users->error().has_value());
  EXPECT_EQ(users->error()->code, ENOENT);
  EXPECT_EQ(users->error()->path, root_ + "/etc/passwd");
}

TEST_F(ForeignUsersTest, SymlinkedEtcPasswdToHostSentinelIsNeverRead) {
  const std::string sentinel = scratch_ / "sentinel-passwd";
  write_file(sentinel, to_bytes("sentinel:x:4444:4444::/:/bin/sh\n"));
  make_link(sentinel, root_ + "/etc/passwd");
  auto users = load();
  EXPECT_FALSE(users->find_user("sentinel").has_value());
  EXPECT_FALSE(users->find_name(4444).has_value());
  EXPECT_TRUE(users->failed());
}

TEST_F(ForeignUsersTest, SymlinkedEtcDirectoryToHostEtcIsNeverRead) {
  const std::string host_etc = scratch_ / "host-etc";
  make_dir(host_etc);
  write_file(host_etc + "/passwd", to_bytes("sentinel:x:4444:4444::/:/bin/sh\n"));
  ASSERT_EQ(::rmdir((root_ + "/etc").c_str()), 0);
  make_link(host_etc, root_ + "/etc");
  auto users = load();
  EXPECT_FALSE(users->find_user("sentinel").has_value());
  EXPECT_TRUE(users->failed());
}

TEST_F(ForeignUsersTest, FifoPlantedAsEtcPasswdDoesNotBlock) {
  ASSERT_EQ(::mkfifo((root_ + "/etc/passwd").c_str(), 0644), 0);
  const auto start = std::chrono::steady_clock::now();
  auto users = load();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(users->failed());
  ASSERT_TRUE(users->error().has_value());
  EXPECT_EQ(users->error()->message, "is a FIFO, not a regular file: not opened");
}

TEST_F(ForeignUsersTest, DirectoryAsEtcPasswdFailsCleanly) {
  make_dir(root_ + "/etc/passwd");
  auto users = load();
  EXPECT_TRUE(users->failed());
}

TEST(HostUsers, NssAnswersForTheHost) {
  auto users = host_user_database();
  const auto root = users->find_user("root");
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->uid, 0u);
  EXPECT_EQ(users->find_name(0), "root");
  EXPECT_FALSE(users->find_user("no-such-user-hsperfguard").has_value());
  EXPECT_FALSE(users->failed());
  using namespace std::string_literals;
  EXPECT_FALSE(users->find_user("root\0evil"s).has_value());  // a NUL never reaches NSS
  EXPECT_FALSE(users->failed());
}

// What the NSS look-ups' codes mean: getpwnam(3)'s "not found" codes are answered "no such
// user"; every other code (the name service failing: I/O, memory, descriptors, a signal) makes
// the database a failed one, never an empty one, so a namespace's owner is never judged
// against a user that only seemed absent.
TEST(HostUsers, NotFoundIsExactlyWhatGetpwnamSaysIt) {
  for (const int rc : {0, ENOENT, ESRCH, EBADF, EPERM}) EXPECT_TRUE(nss_not_found(rc)) << rc;
  for (const int rc : {EIO, ENOMEM, EMFILE, ENFILE, EINTR, ERANGE, EAGAIN, EACCES}) {
    EXPECT_FALSE(nss_not_found(rc)) << rc;
  }
}

}  // namespace
}  // namespace hsperfguard::platform
