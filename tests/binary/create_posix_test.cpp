// `hsperfguard create` on real trees: what it makes audits clean (as root for another user
// and as that user), it refuses squatted, symlinked, planted and loose namespaces and leaves
// them as they were, a full file system leaves nothing behind, and real JVMs and JDK tools
// accept what it builds. Every tree is private (a scratch temp dir); JVMs and the process
// jstat reads see it as their /tmp through a private mount namespace, so the machine's real
// /tmp/hsperfdata_* are never touched.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "child_posix.hpp"
#include "model/perfdata.hpp"
#include "reap_test_support.hpp"
#include "refusals_posix.hpp"

namespace hsperfguard::test {
namespace {

using json = nlohmann::json;
using reaptest::exists;
using reaptest::kNobody;
using reaptest::kNogroup;
using reaptest::ReapTree;

constexpr uid_t kDaemon = 1;

struct Stat {
  bool ok = false;
  struct stat st {};
};

Stat lstat_of(const std::string& path) {
  Stat s;
  s.ok = ::lstat(path.c_str(), &s.st) == 0;
  return s;
}

bool has_xattr(const std::string& path, const char* name) {
  return ::lgetxattr(path.c_str(), name, nullptr, 0) >= 0;
}

// `audit --format json --profile PROFILE` of `tmp`: the parsed report and its exit code.
json audit_json(const std::string& tmp, int* exit_code, const std::string& profile = "default") {
  return reaptest::audit_json(tmp, exit_code, {"--profile", profile});
}

// The tool run as nobody:nogroup with no supplementary groups, the way `setpriv` starts a
// service.
CommandResult run_tool_as_nobody(std::vector<std::string> args) {
  std::vector<std::string> argv = {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                   test::tool_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

using reaptest::acls_work;

// ---- Round trip: create, then audit ---------------------------------------------------------

class CreateRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(CreateRoundTrip, AsRootForAnotherUserAuditsWithNoFinding) {
  if (!is_root()) GTEST_SKIP() << "needs root (creates for another user)";
  ReapTree tree;
  const std::string mode = GetParam();
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--mode", mode});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("created"), std::string::npos) << r.out;
  const std::string ns = tree.tmp + "/hsperfdata_nobody";
  const Stat s = lstat_of(ns);
  ASSERT_TRUE(s.ok);
  EXPECT_TRUE(S_ISDIR(s.st.st_mode));
  EXPECT_EQ(s.st.st_uid, kNobody);
  EXPECT_EQ(s.st.st_gid, kNogroup);
  EXPECT_EQ(s.st.st_mode & 07777, std::stoul(mode, nullptr, 8));
  int rc = -1;
  for (const char* profile : {"default", "strict", "hotspot"}) {
    const json doc = audit_json(tree.tmp, &rc, profile);
    ASSERT_FALSE(doc.is_discarded());
    // 0755 is HotSpot's own mode: only the strict profile's not-private rule names it.
    const bool expect_not_private = std::string(profile) == "strict" && mode == std::string("0755");
    EXPECT_EQ(doc.at("summary").at("findings"), expect_not_private ? 1 : 0)
        << profile << ": " << doc.at("summary").dump();
  }
  const json doc = audit_json(tree.tmp, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(doc.at("summary").at("namespaces"), 1);

  // Idempotent: a second run verifies the same directory.
  const auto again = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--mode", mode});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("verified"), std::string::npos) << again.out;
  EXPECT_EQ(lstat_of(ns).st.st_ino, s.st.st_ino);
}

TEST_P(CreateRoundTrip, AsTheUserItselfAuditsWithNoFinding) {
  if (!is_root() || !have_program("setpriv")) GTEST_SKIP() << "needs root and setpriv";
  ReapTree tree;
  const std::string mode = GetParam();
  const auto r = run_tool_as_nobody({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--mode", mode});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Stat s = lstat_of(tree.tmp + "/hsperfdata_nobody");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.st.st_uid, kNobody);
  EXPECT_EQ(s.st.st_mode & 07777, std::stoul(mode, nullptr, 8));
  int rc = -1;
  const json doc = audit_json(tree.tmp, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(doc.at("summary").at("findings"), 0) << doc.at("summary").dump();
}

INSTANTIATE_TEST_SUITE_P(Modes, CreateRoundTrip, ::testing::Values("0755", "0700"));

TEST(CreateCli, AnotherUsersNamespaceIsNotMadeByANonRootUser) {
  if (!is_root() || !have_program("setpriv")) GTEST_SKIP() << "needs root and setpriv";
  ReapTree tree;
  const auto r = run_tool_as_nobody({"create", "--user", "daemon", "--tmpdir", tree.tmp});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("only root"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(tree.tmp + "/hsperfdata_daemon"));
}

TEST(CreateCli, UsageErrors) {
  ReapTree tree;
  EXPECT_EQ(run_tool({"create", "--user", "no-such-user-here", "--tmpdir", tree.tmp}).exit_code, 2);
  EXPECT_EQ(run_tool({"create", "--user", "root", "--tmpdir", tree.tmp, "--mode", "0777"}).exit_code, 2);
  EXPECT_EQ(run_tool({"create", "--user", "root", "--tmpdir", tree.tmp, "--command", "x"}).exit_code, 2);
  EXPECT_EQ(run_tool({"create", "--user", "root", "--tmpdir", tree.tmp, "--pid", "1", "--size", "3000000"}).exit_code, 2);
  EXPECT_EQ(run_tool({"create", "--user", "../x", "--tmpdir", tree.tmp}).exit_code, 2);
  EXPECT_EQ(tree.count_entries(tree.tmp), 0u);
}

TEST(CreateCli, InheritedDefaultAclOfTheTempDirIsStripped) {
  if (!is_root() || !have_program("setfacl")) GTEST_SKIP() << "needs root and setfacl";
  ReapTree tree;
  if (!acls_work(tree.tmp)) GTEST_SKIP() << "no ACL support on the scratch file system";
  // Everything made in the temp dir would inherit daemon's write access.
  ASSERT_EQ(run({"setfacl", "-d", "-m", "u:daemon:rwx", tree.tmp}).exit_code, 0);
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4242"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ns = tree.tmp + "/hsperfdata_nobody";
  EXPECT_FALSE(has_xattr(ns, "system.posix_acl_default"));
  EXPECT_FALSE(has_xattr(ns, "system.posix_acl_access"));
  EXPECT_FALSE(has_xattr(ns + "/4242", "system.posix_acl_access"));
  EXPECT_EQ(lstat_of(ns).st.st_mode & 07777, 0755u);
  EXPECT_EQ(lstat_of(ns + "/4242").st.st_mode & 07777, 0600u);
}

// ---- Backing regions --------------------------------------------------------------------------

TEST(CreateRegionCli, BuildsAValidRegionOwnedByTheUserAndNeverOverwrites) {
  if (!is_root()) GTEST_SKIP() << "needs root (creates for another user)";
  ReapTree tree;
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4242",
                           "--command", "Demo 1", "--size", "5000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string file = tree.tmp + "/hsperfdata_nobody/4242";
  const Stat s = lstat_of(file);
  ASSERT_TRUE(s.ok);
  EXPECT_TRUE(S_ISREG(s.st.st_mode));
  EXPECT_EQ(s.st.st_mode & 07777, 0600u);
  EXPECT_EQ(s.st.st_uid, kNobody);
  EXPECT_EQ(static_cast<std::size_t>(s.st.st_size) % static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), 0u);
  EXPECT_GE(s.st.st_size, 5000);
  EXPECT_GE(s.st.st_blocks * 512, s.st.st_size);  // reserved, not sparse
  const auto bytes = read_file(file);
  const auto region = perfdata::parse_region(bytes);
  ASSERT_TRUE(region.valid());
  EXPECT_EQ(region.prologue->accessible, 1);
  EXPECT_EQ(region.find("sun.rt.javaCommand")->string_value, "Demo 1");
  EXPECT_GT(region.find("sun.rt.createVmBeginTime")->long_value, 1'600'000'000'000);

  // O_EXCL: an existing file of that name is refused, not rewritten.
  const auto again = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4242",
                               "--command", "Other"});
  EXPECT_EQ(again.exit_code, 4) << again.err;
  EXPECT_EQ(again.err.find("the file system is full"), std::string::npos) << again.err;  // only ENOSPC says so
  EXPECT_EQ(read_file(file), bytes);
  // The audit judges the file as a backing file: no finding but liveness (pid 4242 is not
  // a JVM that maps it).
  int rc = -1;
  const json doc = audit_json(tree.tmp, &rc);
  for (const auto& [rule, n] : doc.at("summary").at("by_rule").items()) {
    EXPECT_TRUE(rule == "file.stale" || rule == "file.pid-reused") << rule << " " << n;
  }
}

// Where the file system refuses fallocate (here a seccomp filter makes it EINVAL for the tool,
// started from a child), the region is reserved HotSpot's way, the size set and a zero written
// to every page: the file is exactly the pages asked for, not a byte more, every page allocated,
// and the region valid.
TEST(CreateRegionCli, WhereFallocateIsRefusedEveryPageIsWrittenAndTheSizeIsExact) {
  if (!is_root()) GTEST_SKIP() << "needs root (creates for another user)";
  ReapTree tree;
  const auto child = test::run_in_child([&]() -> std::string {
    if (!test::refuse_system_calls({SYS_fallocate}, EINVAL)) return "filter refused";
    const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4243",
                             "--command", "Demo 2", "--size", "5000"});
    return "exit " + std::to_string(r.exit_code) + " " + r.err;
  });
  ASSERT_TRUE(child.finished);
  ASSERT_EQ(child.out, "exit 0 ");
  const std::string file = tree.tmp + "/hsperfdata_nobody/4243";
  const Stat s = lstat_of(file);
  ASSERT_TRUE(s.ok);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(static_cast<std::size_t>(s.st.st_size), (5000 + page - 1) / page * page);
  EXPECT_GE(s.st.st_blocks * 512, s.st.st_size);  // every page written, none left sparse
  const auto region = perfdata::parse_region(read_file(file));
  ASSERT_TRUE(region.valid());
  EXPECT_EQ(region.find("sun.rt.javaCommand")->string_value, "Demo 2");
}

// A small tmpfs, mounted for the test and unmounted after.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const std::string& dir, const char* size) : dir_(dir) {
    ::mkdir(dir_.c_str(), 01777);
    const std::string options = std::string("size=") + size + ",mode=1777";
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) == 0;
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

TEST(CreateRegionCli, FullFileSystemFailsNowWithAClearErrorAndLeavesNoFile) {
  if (!is_root()) GTEST_SKIP() << "needs root (mounts a tmpfs)";
  ReapTree tree;
  const std::string small = tree.scratch / "small";
  SmallTmpfs tmpfs(small, "64k");
  if (!tmpfs.mounted()) GTEST_SKIP() << "mount tmpfs: " << std::strerror(errno);
  // 1. A region larger than the whole file system.
  auto r = run_tool({"create", "--user", "nobody", "--tmpdir", small, "--pid", "4242", "--size", "131072"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("No space left"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(the file system is full)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was left behind"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(small + "/hsperfdata_nobody/4242"));
  EXPECT_EQ(tree.count_entries(small + "/hsperfdata_nobody"), 0u);

  // 2. The default 32 KiB region on a file system already nearly full.
  std::vector<std::byte> filler(40 * 1024, std::byte{1});
  write_file(small + "/filler", filler);
  r = run_tool({"create", "--user", "nobody", "--tmpdir", small, "--pid", "4243"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_FALSE(exists(small + "/hsperfdata_nobody/4243"));
  // And once there is room, the same command works.
  ASSERT_EQ(::unlink((small + "/filler").c_str()), 0);
  r = run_tool({"create", "--user", "nobody", "--tmpdir", small, "--pid", "4243"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// pwrite answering 0 (nothing written, no error; strace injects it into every pwrite of the
// tool) ends the write as a full file system does: exit 3, the error named, nothing left
// behind. The loop used to ask again for ever: the tool is killed after 10 s, so such a loop
// fails the test instead of hanging the suite.
TEST(CreateRegionCli, WriteThatWritesNothingFailsAsAFullFileSystemAndLeavesNoFile) {
  if (!is_root()) GTEST_SKIP() << "needs root (creates for another user)";
  if (!have_program("strace")) GTEST_SKIP() << "needs strace to make pwrite answer 0";
  ReapTree tree;
  // LeakSanitizer cannot run under ptrace: in a sanitizer build the tool's leak check is off for
  // this run only (its exit would be the sanitizer's 97), its other checks kept.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string asan_options =
      std::string("ASAN_OPTIONS=") + (asan != nullptr ? std::string(asan) + ":" : std::string()) + "detect_leaks=0";
  const auto r = run({"strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64", "-e",
                      "inject=pwrite64:retval=0", "env", asan_options, "timeout", "-s", "KILL", "10", tool_path(), "create",
                      "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4244", "--command", "Demo 3"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // 137: killed, the write loop did not end
  const std::string file = tree.tmp + "/hsperfdata_nobody/4244";
  EXPECT_NE(r.err.find("hsperfguard: create: " + file + ": pwrite: No space left on device (the file system is full)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing was left behind"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(file));
  EXPECT_EQ(tree.count_entries(tree.tmp + "/hsperfdata_nobody"), 0u);
}

// Every pwrite of the tool fails with EIO (a disk error that does not go away): the first
// failure ends the write, with its error named, exit 3 and no file left. Only EINTR is
// asked again; a loop that asked again on any other error would never end here (the tool is
// killed after 10 s, and the test fails on its 137).
TEST(CreateRegionCli, AWriteThatKeepsFailingEndsAtTheFirstFailureAndLeavesNoFile) {
  if (!is_root()) GTEST_SKIP() << "needs root (creates for another user)";
  if (!have_program("strace")) GTEST_FAIL() << "strace is needed (apt-get install strace)";
  ReapTree tree;
  const auto r = run({"strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=pwrite64", "-e",
                      "inject=pwrite64:error=EIO", "env", traced_asan_options(), "timeout", "-s", "KILL", "10",
                      tool_path(), "create", "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4245", "--command",
                      "Demo 4"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // 137: killed, the write loop did not end
  const std::string file = tree.tmp + "/hsperfdata_nobody/4245";
  EXPECT_NE(r.err.find("hsperfguard: create: " + file + ": pwrite: Input/output error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hsperfguard: create: could not make backing file " + file), std::string::npos) << r.err;
  EXPECT_FALSE(exists(file));
  EXPECT_EQ(tree.count_entries(tree.tmp + "/hsperfdata_nobody"), 0u);
}

// ---- Squatting and other unsafe namespaces: refused, reported, left as they were -----------

struct Snapshot {
  ino_t ino = 0;
  uid_t uid = 0;
  mode_t mode = 0;
  std::size_t entries = 0;
};

Snapshot snapshot(const ReapTree& tree, const std::string& path) {
  const Stat s = lstat_of(path);
  Snapshot out{s.st.st_ino, s.st.st_uid, s.st.st_mode, 0};
  if (S_ISDIR(s.st.st_mode)) out.entries = tree.count_entries(path);
  return out;
}

void expect_unchanged(const Snapshot& before, const Snapshot& after) {
  EXPECT_EQ(before.ino, after.ino);
  EXPECT_EQ(before.uid, after.uid);
  EXPECT_EQ(before.mode, after.mode);
  EXPECT_EQ(before.entries, after.entries);
}

TEST(CreateSquatting, NamespaceOwnedByAnotherUserIsRefused) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kDaemon, kDaemon);
  const Snapshot before = snapshot(tree, ns);
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4242"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("namespace.owner-mismatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("squatted"), std::string::npos) << r.err;
  expect_unchanged(before, snapshot(tree, ns));
}

TEST(CreateSquatting, SymlinkedNamespaceIsRefusedAndItsTargetUntouched) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string target = tree.outside + "/victim";
  ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
  tree.sentinel_in(target, "secret");
  const std::string ns = tree.tmp + "/hsperfdata_nobody";
  ASSERT_EQ(::symlink(target.c_str(), ns.c_str()), 0);
  const Snapshot dir_before = snapshot(tree, target);
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp, "--pid", "4242"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("namespace.symlink"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("never follows"), std::string::npos) << r.err;
  EXPECT_TRUE(S_ISLNK(lstat_of(ns).st.st_mode));
  expect_unchanged(dir_before, snapshot(tree, target));
  EXPECT_FALSE(exists(target + "/4242"));
  EXPECT_TRUE(tree.sentinels_intact());
}

TEST(CreateSquatting, NamespaceWithAPlantedFileIsRefused) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string planted = tree.region_file(ns, "31337");
  ASSERT_EQ(::chown(planted.c_str(), kDaemon, kDaemon), 0);
  const Snapshot before = snapshot(tree, ns);
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("file.owner-mismatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("never changes an owner"), std::string::npos) << r.err;
  expect_unchanged(before, snapshot(tree, ns));
  EXPECT_EQ(lstat_of(planted).st.st_uid, kDaemon);
}

TEST(CreateSquatting, WritableNamespaceIsRefusedAndRepairIsNamed) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup, 0777);
  const Snapshot before = snapshot(tree, ns);
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("namespace.group-other-writable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`hsperfguard repair` fixes it (mode 0777 -> 0755)"), std::string::npos) << r.err;
  expect_unchanged(before, snapshot(tree, ns));
}

TEST(CreateSquatting, UnsafeTempDirIsRefused) {
  if (!is_root()) GTEST_SKIP() << "needs root (creates root's namespace)";
  ReapTree tree;
  ASSERT_EQ(::chmod(tree.tmp.c_str(), 0777), 0);  // world-writable without the sticky bit
  const auto r = run_tool({"create", "--user", "root", "--tmpdir", tree.tmp});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("tmpdir.unsafe"), std::string::npos) << r.err;
  EXPECT_EQ(tree.count_entries(tree.tmp), 0u);
}

TEST(CreateRootCli, ForeignRootUsesItsOwnUsersAndNeverLeavesIt) {
  if (!is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string root = tree.scratch / "image";
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/etc").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/tmp").c_str(), 01777), 0);
  ASSERT_EQ(::chmod((root + "/tmp").c_str(), 01777), 0);
  write_file(root + "/etc/passwd", to_bytes("root:x:0:0::/root:/bin/sh\nsvc:x:4321:4322::/:/bin/false\n"));
  const auto r = run_tool({"create", "--user", "svc", "--root", root});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Stat s = lstat_of(root + "/tmp/hsperfdata_svc");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.st.st_uid, 4321u);
  EXPECT_EQ(s.st.st_gid, 4322u);
  // The host's users are not the image's.
  EXPECT_EQ(run_tool({"create", "--user", "nobody", "--root", root}).exit_code, 2);

  // An absolute symlink for the image's /tmp resolves inside the image, never to the host.
  const std::string image2 = tree.scratch / "image2";
  ASSERT_EQ(::mkdir(image2.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((image2 + "/etc").c_str(), 0755), 0);
  write_file(image2 + "/etc/passwd", to_bytes("svc:x:4321:4322::/:/bin/false\n"));
  ASSERT_EQ(::symlink(tree.outside.c_str(), (image2 + "/tmp").c_str()), 0);
  const auto escaped = run_tool({"create", "--user", "svc", "--root", image2});
  EXPECT_NE(escaped.exit_code, 0) << escaped.out;
  EXPECT_FALSE(exists(tree.outside + "/hsperfdata_svc"));
}

// ---- Real JVMs and JDK tools --------------------------------------------------------------------

TEST(CreateJvm, JvmOfTheUserPublishesInTheCreatedNamespaceAndJpsListsIt) {
  if (!is_root()) GTEST_SKIP() << "needs root (mount namespaces, another user)";
  if (!have_jdk() || find_program("jps").empty()) GTEST_SKIP() << "no JDK";
  ReapTree tree;
  reaptest::PrivateTmpJvms jvms(tree);
  ASSERT_TRUE(jvms.prepare());
  const auto r = run_tool({"create", "--user", "nobody", "--tmpdir", tree.tmp});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ns = tree.tmp + "/hsperfdata_nobody";
  const Stat made = lstat_of(ns);

  reaptest::PrivateTmpJvm& jvm = jvms.start(kNobody, kNogroup);
  ASSERT_TRUE(jvm.wait_ready()) << jvm.describe();
  // The JVM accepted the directory create made (HotSpot silently refuses an insecure one).
  EXPECT_EQ(jvm.backing_file(), ns + "/" + std::to_string(jvm.pid()));
  const Stat after = lstat_of(ns);
  EXPECT_EQ(after.st.st_ino, made.st.st_ino);
  EXPECT_EQ(after.st.st_mode, made.st.st_mode);
  EXPECT_EQ(lstat_of(jvm.backing_file()).st.st_uid, kNobody);

  // jps, run as root outside the JVM's mount namespace, finds it through /proc/<pid>/root/tmp.
  const auto listed = run({find_program("jps"), "-J-XX:-UsePerfData", "-l"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find(std::to_string(jvm.pid()) + " IdleJvm"), std::string::npos) << listed.out;
  int rc = -1;
  const json doc = audit_json(tree.tmp, &rc);
  EXPECT_EQ(rc, 0) << doc.at("summary").dump();
}

TEST(CreateJvm, JstatReadsTheRegionOfALiveProcessAndPrintsTheWrittenValues) {
  if (!is_root() || !have_program("unshare")) GTEST_SKIP() << "needs root and unshare";
  if (!have_jdk()) GTEST_SKIP() << "no JDK";
  ReapTree tree;
  // A live `sleep` whose /tmp is the private temp dir: jstat <pid> looks for
  // /tmp/hsperfdata_*/<pid> as that process sees /tmp (/proc/<pid>/root/tmp).
  const std::string script = "mount --bind '" + tree.tmp + "' /tmp && exec sleep 600";
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::execlp("unshare", "unshare", "-m", "--propagation", "private", "sh", "-c", script.c_str(),
             static_cast<char*>(nullptr));
    ::_exit(127);
  }
  struct Reap {
    pid_t pid;
    ~Reap() {
      ::kill(pid, SIGKILL);
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  } reap{pid};
  // Wait until it is the sleep, inside its own /tmp.
  bool ready = false;
  for (int i = 0; i < 500 && !ready; ++i) {
    char exe[256] = {};
    const std::string link = "/proc/" + std::to_string(pid) + "/exe";
    const ssize_t n = ::readlink(link.c_str(), exe, sizeof exe - 1);
    ready = n > 0 && std::string(exe, static_cast<std::size_t>(n)).find("sleep") != std::string::npos;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(ready);

  const auto r = run_tool({"create", "--user", "root", "--tmpdir", tree.tmp, "--pid",
                           std::to_string(pid), "--command", "Demo 1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto region = perfdata::parse_region(read_file(tree.tmp + "/hsperfdata_root/" + std::to_string(pid)));
  ASSERT_TRUE(region.valid());
  const std::int64_t begin = region.find("sun.rt.createVmBeginTime")->long_value;

  const auto snap = run({"jstat", "-J-XX:-UsePerfData", "-J-Djstat.showUnsupported=true", "-snap",
                         std::to_string(pid)});
  ASSERT_EQ(snap.exit_code, 0) << snap.out << snap.err;
  EXPECT_NE(snap.out.find("sun.rt.javaCommand=\"Demo 1\"\n"), std::string::npos) << snap.out;
  EXPECT_NE(snap.out.find("sun.rt.createVmBeginTime=" + std::to_string(begin) + "\n"), std::string::npos)
      << snap.out;
  EXPECT_NE(snap.out.find("sun.os.hrt.frequency=1000000000\n"), std::string::npos) << snap.out;
  EXPECT_NE(snap.out.find("sun.perfdata.size=32768\n"), std::string::npos) << snap.out;
  // hsperfguard's own renderer prints exactly what jstat printed.
  const auto ours = run_tool({"inspect", tree.tmp + "/hsperfdata_root/" + std::to_string(pid), "--format", "snap"});
  EXPECT_EQ(ours.out, snap.out);
  // jps names it after the command.
  const auto listed = run({find_program("jps"), "-J-XX:-UsePerfData"});
  EXPECT_NE(listed.out.find(std::to_string(pid) + " Demo\n"), std::string::npos) << listed.out;
}

}  // namespace
}  // namespace hsperfguard::test
