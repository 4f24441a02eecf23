// The one path walk (platform::walk_path) and what is built on it: which links it follows,
// which directories it passes, what it hands back, and how the held descriptor is reopened.
// Another user is nobody (uid 65534); the tests that give them a file need root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cstddef>

#include "child_posix.hpp"
#include "refusals_posix.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "test_support.hpp"

namespace hsperfguard::platform {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

#define SKIP_UNLESS_ROOT() \
  if (!test::is_root()) GTEST_SKIP() << "needs root (a file of another user)"

class WalkPath : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::chmod(scratch_.path().c_str(), 0755), 0); }
  std::string at(const std::string& name) const { return scratch_ / name; }
  void dir(const std::string& name, uid_t owner = 0) {
    ASSERT_EQ(::mkdir(at(name).c_str(), 0755), 0) << name;
    if (owner != 0) {
      ASSERT_EQ(::chown(at(name).c_str(), owner, kNogroup), 0);
    }
  }
  void link(const std::string& target, const std::string& name, uid_t owner = 0) {
    ASSERT_EQ(::symlink(target.c_str(), at(name).c_str()), 0) << name;
    if (owner != 0) {
      ASSERT_EQ(::lchown(at(name).c_str(), owner, kNogroup), 0);
    }
  }
  void file(const std::string& name, uid_t owner = 0) {
    test::write_file(at(name), test::to_bytes("x"));
    if (owner != 0) {
      ASSERT_EQ(::chown(at(name).c_str(), owner, kNogroup), 0);
    }
  }
  static ino_t inode_of(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? st.st_ino : 0;
  }

  test::ScratchDir scratch_;
};

TEST_F(WalkPath, FollowsRootsOwnLinksToWhereTheyLead) {
  dir("real");
  file("real/f");
  link(at("real"), "abs");
  link("real", "rel");
  ObservationError error;
  for (const char* via : {"abs/f", "rel/f"}) {
    const auto walked = walk_path(at(via), WalkRules{}, error);
    ASSERT_TRUE(walked) << via << ": " << error.message;
    EXPECT_TRUE(S_ISREG(walked->st.st_mode));
    EXPECT_EQ(walked->st.st_ino, inode_of(at("real/f")));
    EXPECT_EQ(walked->reached, at("real/f"));
  }
}

TEST_F(WalkPath, AnotherUsersLinkIsNotFollowedAndTheErrorNamesIt) {
  SKIP_UNLESS_ROOT();
  dir("real");
  link(at("real"), "theirs", kNobody);
  ObservationError error;
  EXPECT_FALSE(walk_path(at("theirs/x"), WalkRules{}, error));
  EXPECT_EQ(error.code, ELOOP);
  EXPECT_EQ(error.path, at("theirs/x"));
  EXPECT_EQ(error.message, at("theirs") + " is a symbolic link owned by uid 65534: not followed "
                                          "(only root's or our own links are)");
}

TEST_F(WalkPath, RootsLinkInAnotherUsersDirectoryIsNotFollowed) {
  SKIP_UNLESS_ROOT();
  dir("real");
  dir("alice", kNobody);
  link(at("real"), "alice/app");  // root's link, in alice's directory
  ObservationError error;
  EXPECT_FALSE(walk_path(at("alice/app/x"), WalkRules{}, error));
  EXPECT_EQ(error.code, ELOOP);
  EXPECT_NE(error.message.find(at("alice/app") + " is a symbolic link in " + at("alice") +
                               ", a directory owned by uid 65534: not followed"),
            std::string::npos)
      << error.message;
}

// A reader may pass through another user's directory to that user's files (auditing
// /home/alice/tmp), but not on to a file of root's or a third user's they placed there, nor
// back up with "..".
TEST_F(WalkPath, AnotherUsersDirectoryLeadsOnlyToThatUsersFiles) {
  SKIP_UNLESS_ROOT();
  dir("alice", kNobody);
  dir("alice/tmp", kNobody);
  dir("alice/roots");
  ObservationError error;
  EXPECT_TRUE(walk_path(at("alice/tmp"), WalkRules{}, error)) << error.message;
  EXPECT_FALSE(walk_path(at("alice/roots"), WalkRules{}, error));
  EXPECT_EQ(error.code, EPERM);
  EXPECT_NE(error.message.find(at("alice/roots") + " is owned by uid 0 inside " + at("alice") +
                               ", a directory owned by uid 65534"),
            std::string::npos)
      << error.message;
  EXPECT_FALSE(walk_path(at("alice/tmp/../../alice"), WalkRules{}, error));
  EXPECT_NE(error.message.find(" is owned by uid 0 inside " + at("alice")), std::string::npos)
      << error.message;
}

TEST_F(WalkPath, WritersNeedEveryDirectoryOnTheWayToBeRootsOrOurs) {
  SKIP_UNLESS_ROOT();
  dir("alice", kNobody);
  dir("alice/reports");  // root's, inside alice's
  ObservationError error;
  const WalkRules writer{.trusted_directories = true, .parent_only = true};
  EXPECT_FALSE(walk_path(at("alice/reports/r.json"), writer, error));
  EXPECT_EQ(error.code, EPERM);
  EXPECT_NE(error.message.find(at("alice") + " is a directory owned by uid 65534"), std::string::npos)
      << error.message;
  dir("mine");
  const auto walked = walk_path(at("mine/r.json"), writer, error);
  ASSERT_TRUE(walked) << error.message;
  EXPECT_EQ(walked->name, "r.json");
  EXPECT_TRUE(S_ISDIR(walked->st.st_mode));
  EXPECT_EQ(walked->st.st_ino, inode_of(at("mine")));
}

// A relative path starts at the working directory, which is named so in the refusal: "." in
// a message says nothing to the person who typed `--output report.json`.
TEST_F(WalkPath, AWorkingDirectoryOfAnotherUserIsNamedSo) {
  SKIP_UNLESS_ROOT();
  dir("alice", kNobody);
  const std::string alice = at("alice");
  const test::ChildResult r = test::run_in_child([&]() -> std::string {
    if (::chdir(alice.c_str()) != 0) return "chdir failed";
    ObservationError error;
    if (walk_path("r.json", WalkRules{.trusted_directories = true, .parent_only = true}, error)) return "walked";
    return std::to_string(error.code) + " " + error.message;
  });
  ASSERT_TRUE(r.finished);
  EXPECT_EQ(r.out.rfind(std::to_string(EPERM) + " the working directory is a directory owned by uid 65534", 0), 0u)
      << r.out;
}

TEST_F(WalkPath, ALinkAsTheLastComponentIsHandedBackUnlessFollowed) {
  dir("real");
  link(at("real"), "link");
  ObservationError error;
  const auto held = walk_path(at("link"), WalkRules{}, error);
  ASSERT_TRUE(held) << error.message;
  EXPECT_TRUE(S_ISLNK(held->st.st_mode));
  const auto followed = walk_path(at("link"), WalkRules{.follow_last = true}, error);
  ASSERT_TRUE(followed) << error.message;
  EXPECT_TRUE(S_ISDIR(followed->st.st_mode));
}

TEST_F(WalkPath, NoLinkIsFollowedWhereLinksAreOff) {
  dir("real");
  link(at("real"), "link");
  ObservationError error;
  EXPECT_FALSE(walk_path(at("link/x"), WalkRules{.follow_links = false, .parent_only = true}, error));
  EXPECT_EQ(error.code, ELOOP);
  EXPECT_NE(error.message.find("no link is followed in this path"), std::string::npos) << error.message;
}

TEST_F(WalkPath, ALinkLoopEndsWithELOOP) {
  link(at("b"), "a");
  link(at("a"), "b");
  ObservationError error;
  EXPECT_FALSE(walk_path(at("a/x"), WalkRules{}, error));
  EXPECT_EQ(error.code, ELOOP);
}

// A link whose target reads back empty (no Linux file system makes one, but a FUSE server or a
// crafted image can; here a seccomp filter makes readlinkat answer 0) is unusable: followed as
// "", the walk would go on from the link's own directory and reach a file the link does not
// name.
TEST_F(WalkPath, ALinkWithAnEmptyTargetIsRefusedNotFollowedToItsDirectory) {
  dir("real");
  file("real/f");
  file("f");  // what an empty target, taken as "here", would lead to
  link("real", "rel");
  const auto child = test::run_in_child([&]() -> std::string {
    if (!test::refuse_system_calls({SYS_readlinkat}, 0)) return "filter refused";
    ObservationError error;
    const auto walked = walk_path(at("rel/f"), WalkRules{}, error);
    if (walked) return "walked to " + walked->reached;
    return std::to_string(error.code) + " " + error.message;
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, std::to_string(ENAMETOOLONG) + " " + at("rel") + ": unusable link target");
}

TEST_F(WalkPath, ARelativePathStartsAtTheWorkingDirectory) {
  dir("cwd");
  file("cwd/f");
  const int back = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(back, 0);
  ASSERT_EQ(::chdir(at("cwd").c_str()), 0);
  ObservationError error;
  const auto walked = walk_path("f", WalkRules{}, error);
  const auto missing = walk_path("nothing/f", WalkRules{}, error);
  ASSERT_EQ(::fchdir(back), 0);
  ::close(back);
  ASSERT_TRUE(walked);
  EXPECT_EQ(walked->st.st_ino, inode_of(at("cwd/f")));
  EXPECT_FALSE(missing);
  EXPECT_EQ(error.code, ENOENT);
  EXPECT_EQ(error.message, std::string("nothing: ") + std::strerror(ENOENT));
}

TEST_F(WalkPath, AParentWalkRefusesDirectoryNamesAndMakesOneLevel) {
  ObservationError error;
  for (const std::string& bad : {std::string(), at("x") + "/", at("x/."), at("x/..")}) {
    EXPECT_FALSE(walk_path(bad, WalkRules{.parent_only = true}, error)) << bad;
  }
  const WalkRules make{.parent_only = true, .create_parent = true};
  EXPECT_TRUE(walk_path(at("made/f"), make, error)) << error.message;
  struct stat st {};
  ASSERT_EQ(::stat(at("made").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_FALSE(walk_path(at("two/levels/f"), make, error)) << "one level only";
  EXPECT_EQ(error.code, ENOENT);
}

// What is held is reopened as that inode, whatever its name is meanwhile.
TEST_F(WalkPath, AHeldFileIsReopenedAsItselfNotByName) {
  file("f");
  ObservationError error;
  const auto held = walk_path(at("f"), WalkRules{}, error);
  ASSERT_TRUE(held) << error.message;
  ASSERT_EQ(::rename(at("f").c_str(), at("moved").c_str()), 0);
  file("f");  // another file under the name
  const UniqueFd fd = reopen_walked(*held, O_RDONLY, at("f"), error);
  ASSERT_TRUE(fd.valid()) << error.message;
  struct stat st {};
  ASSERT_EQ(::fstat(fd.get(), &st), 0);
  EXPECT_EQ(st.st_ino, inode_of(at("moved")));
}

// The held descriptor is reopened through /proc/self/fd, and what that opens must be the file
// held: here /proc is a tree of ordinary files on the scratch file system (a bind mount, in a
// child's own mount namespace), so the reopen gives a file of the same device with another
// inode number: the device alone does not make it the file held, and it is refused, not read.
TEST_F(WalkPath, AReopenThatGivesAnotherFileOfTheSameDeviceIsRefused) {
  SKIP_UNLESS_ROOT();
  file("f");
  ObservationError error;
  const auto held = walk_path(at("f"), WalkRules{}, error);
  ASSERT_TRUE(held) << error.message;
  dir("proc");
  dir("proc/self");
  dir("proc/self/fd");
  const std::string planted = "proc/self/fd/" + std::to_string(held->fd.get());
  file(planted);
  struct stat f {}, fake {};
  ASSERT_EQ(::stat(at("f").c_str(), &f), 0);
  ASSERT_EQ(::stat(at(planted).c_str(), &fake), 0);
  ASSERT_EQ(f.st_dev, fake.st_dev);
  ASSERT_NE(f.st_ino, fake.st_ino);
  const std::string proc = at("proc");
  const std::string path = at("f");
  const test::ChildResult child = test::run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return std::string("unshare: ") + std::strerror(errno);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "mount private";
    if (::mount(proc.c_str(), "/proc", nullptr, MS_BIND, nullptr) != 0) return "mount /proc";
    ObservationError reopened;
    const UniqueFd fd = reopen_walked(*held, O_RDONLY, path, reopened);
    if (fd.valid()) return "opened";
    return std::to_string(reopened.code) + " " + reopened.message;
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, std::to_string(EAGAIN) + " reopening it gave another file");
}

// Without /proc (an empty directory bound over it, in a child's own mount namespace) a held
// file cannot be reopened, and the error says that /proc is what it needs; a held directory
// needs no /proc (openat of "."), even one removed since it was held.
TEST_F(WalkPath, AFileReopenedWithoutProcSaysSoAndADirectoryNeedsNoProc) {
  SKIP_UNLESS_ROOT();
  file("f");
  dir("gone");
  dir("empty");
  ObservationError error;
  const auto held_file = walk_path(at("f"), WalkRules{}, error);
  ASSERT_TRUE(held_file) << error.message;
  const auto held_dir = walk_path(at("gone"), WalkRules{}, error);
  ASSERT_TRUE(held_dir) << error.message;
  ASSERT_EQ(::rmdir(at("gone").c_str()), 0);
  const std::string empty = at("empty");
  const test::ChildResult child = test::run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return std::string("unshare: ") + std::strerror(errno);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "mount private";
    if (::mount(empty.c_str(), "/proc", nullptr, MS_BIND, nullptr) != 0) return "mount /proc";
    std::string out;
    for (const auto* held : {&*held_file, &*held_dir}) {
      ObservationError reopened;
      const UniqueFd fd = reopen_walked(*held, O_RDONLY, "held", reopened);
      out += fd.valid() ? std::string("opened") : std::to_string(reopened.code) + " " + reopened.message;
      out += "|";
    }
    return out;
  });
  ASSERT_TRUE(child.finished);
  const std::string enoent = std::to_string(ENOENT) + " " + std::strerror(ENOENT);
  EXPECT_EQ(child.out, enoent + " (/proc is needed to reopen it)|opened|");
}

}  // namespace
}  // namespace hsperfguard::platform

namespace hsperfguard::platform {
namespace {

// Makes linkat with AT_EMPTY_PATH fail with `code` on this thread (and what it starts), as
// kernels before 6.10 answer a caller without CAP_DAC_READ_SEARCH (ENOENT); every other call,
// linkat without that flag included, is allowed.
bool refuse_linkat_empty_path(int code) {
  if (test::kAuditArch == 0) return false;
  // Jump offsets count from the next instruction: 6 allows, 7 refuses.
  std::vector<sock_filter> program = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),            // 0
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, test::kAuditArch, 0, 4),                 // 1
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),              // 2
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_linkat, 0, 2),                       // 3
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[4])),         // 4: flags
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 1, 0),                   // 5
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                                // 6
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<unsigned>(code) & SECCOMP_RET_DATA)),
  };
  const sock_fprog prog{static_cast<unsigned short>(program.size()), program.data()};
  if (::getuid() != 0 && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0;
}

// An unnamed file (O_TMPFILE) gets its name by linkat with AT_EMPTY_PATH, which kernels before
// 6.10 allow only with CAP_DAC_READ_SEARCH; where it is refused (here by a seccomp filter, in a
// child), through /proc/self/fd. Both give the file its name and refuse a name that is taken;
// an error other than the refusal is the answer.
TEST(LinkUnnamed, NamesTheFileWithOrWithoutTheCapabilityAndNeverReplaces) {
  test::ScratchDir scratch;
  const std::string dir = scratch / "d";
  ASSERT_EQ(::mkdir(dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  const auto name_one = [&](const char* name) -> std::string {
    const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (d < 0 || fd < 0) return std::string("open: ") + std::strerror(errno);
    const int err = link_unnamed(fd, d, name);
    ::close(fd);
    ::close(d);
    return err == 0 ? "named" : std::strerror(err);
  };
  ASSERT_EQ(name_one("as-root"), "named");
  const auto without = [&](int code) {
    return test::run_in_child([&, code]() -> std::string {
      if (!refuse_linkat_empty_path(code)) return "filter refused";
      const std::string first = name_one(code == ENOENT ? "refused-enoent" : "refused-eperm");
      return first + " " + name_one(code == ENOENT ? "refused-enoent" : "refused-eperm");
    });
  };
  for (const int code : {ENOENT, EPERM}) {
    const auto child = without(code);
    ASSERT_TRUE(child.finished);
    EXPECT_EQ(child.out, std::string("named ") + std::strerror(EEXIST)) << code;
  }
  // Another error is the answer, not a reason to try the other way.
  const auto other = test::run_in_child([&]() -> std::string {
    if (!refuse_linkat_empty_path(EIO)) return "filter refused";
    return name_one("eio");
  });
  ASSERT_TRUE(other.finished);
  EXPECT_EQ(other.out, std::strerror(EIO));
  struct stat st {};
  EXPECT_EQ(::lstat((dir + "/refused-enoent").c_str(), &st), 0);
  EXPECT_EQ(::lstat((dir + "/refused-eperm").c_str(), &st), 0);
  EXPECT_NE(::lstat((dir + "/eio").c_str(), &st), 0);
  EXPECT_EQ(::lstat((dir + "/as-root").c_str(), &st), 0);
}

}  // namespace
}  // namespace hsperfguard::platform
