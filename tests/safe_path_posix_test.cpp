// The one path walk (platform::walk_path) and what is built on it: which links it follows,
// which directories it passes, what it hands back, and how the held descriptor is reopened.
// Another user is nobody (uid 65534); the tests that give them a file need root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

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

}  // namespace
}  // namespace hsperfguard::platform
