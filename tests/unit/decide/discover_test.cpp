// discover_roots: which temp roots the commands look at, from a hand-built container scan;
// alt_temp_dir_roots: the -XX:AltTempDir of this host's JVMs.
#include "decide/discover.hpp"

#include <cerrno>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hsperfguard {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr DirIdentity kHostTmp{0x801, 2};

ProcessTempDir entry(std::int32_t pid, std::string mnt, DirIdentity tmp,
                     std::string pidns = "pid:[4026532200]") {
  ProcessTempDir e;
  e.host_pid = pid;
  e.mount_namespace = std::move(mnt);
  e.pid_namespace = std::move(pidns);
  e.cgroup = "/docker/" + std::to_string(pid);
  e.temp_dir = tmp;
  return e;
}

ContainerScan scan_of(std::vector<ProcessTempDir> entries) {
  ContainerScan scan;
  scan.own_mount_namespace = "mnt:[4026531841]";
  scan.own_pid_namespace = "pid:[4026531836]";
  scan.host_temp_dir = kHostTmp;
  scan.temp_dirs = std::move(entries);
  return scan;
}

DiscoverOptions host_options(bool containers = true) {
  DiscoverOptions o;
  o.host_temp_dir = "/tmp";
  o.containers = containers;
  return o;
}

TEST(Discover, HostOnlyWithoutContainers) {
  const auto scan = scan_of({entry(100, "mnt:[1]", {0x30, 2})});
  EXPECT_FALSE(wants_container_scan(host_options(false)));
  const auto roots = discover_roots(host_options(false), &scan);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].kind, RootKind::host);
  EXPECT_EQ(roots[0].temp_dir, "/tmp");
}

TEST(Discover, EachDistinctContainerTempDirIsOneRoot) {
  const auto scan = scan_of({entry(100, "mnt:[1]", {0x30, 2}), entry(200, "mnt:[2]", {0x31, 2})});
  const auto roots = discover_roots(host_options(), &scan);
  ASSERT_EQ(roots.size(), 3u);
  EXPECT_EQ(roots[0].kind, RootKind::host);
  EXPECT_EQ(roots[1].kind, RootKind::container);
  EXPECT_EQ(roots[1].root, "/proc/100/root");
  EXPECT_EQ(roots[1].temp_dir, "/tmp");
  ASSERT_TRUE(roots[1].container);
  EXPECT_EQ(roots[1].container->host_pid, 100);
  EXPECT_EQ(roots[1].container->mount_namespace, "mnt:[1]");
  EXPECT_EQ(roots[1].container->cgroup, "/docker/100");
  EXPECT_THAT(roots[1].sharing_mount_namespaces, IsEmpty());
  EXPECT_EQ(roots[2].container->mount_namespace, "mnt:[2]");
}

// The scan lists the host temp dir's root-owned systemd-private-*/tmp directories by identity;
// a container root is named after the one whose tmp is its /tmp, and only that one: a service's
// directory that is no scanned /tmp names nothing, and a /tmp that is none of them stays
// without a unit (same inode on another device is another directory).
TEST(Discover, AContainerIsNamedAfterTheSystemdPrivateDirWhoseTmpIsItsTmp) {
  auto scan = scan_of({entry(100, "mnt:[1]", {0x30, 2}), entry(200, "mnt:[2]", {0x31, 2}),
                       entry(300, "mnt:[3]", {0x32, 5})});
  scan.systemd_private_tmps = {{"systemd-private-abc-idle.service-x", {0x33, 2}},
                               {"systemd-private-abc-tomcat.service-y", {0x31, 2}},
                               {"systemd-private-abc-other.service-z", {0x30, 9}}};
  const auto roots = discover_roots(host_options(), &scan);
  ASSERT_EQ(roots.size(), 4u);
  EXPECT_EQ(roots[1].container->host_pid, 100);
  EXPECT_EQ(roots[1].container->systemd_private_dir, std::nullopt);
  EXPECT_EQ(roots[2].container->host_pid, 200);
  EXPECT_EQ(roots[2].container->systemd_private_dir, "systemd-private-abc-tomcat.service-y");
  EXPECT_EQ(roots[3].container->host_pid, 300);
  EXPECT_EQ(roots[3].container->systemd_private_dir, std::nullopt);
}

// Two mount namespaces with one bind-mounted /tmp: one root, both namespaces asked about
// liveness (the same pid number may be a JVM in either).
TEST(Discover, SharedTempDirIsDeduplicatedByIdentityAndNamesEveryNamespace) {
  const auto scan = scan_of({entry(100, "mnt:[1]", {0x30, 7}), entry(200, "mnt:[2]", {0x30, 7}),
                             entry(300, "mnt:[3]", {0x30, 7}), entry(400, "mnt:[2]", {0x30, 7})});
  const auto roots = discover_roots(host_options(), &scan);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[1].container->mount_namespace, "mnt:[1]");
  EXPECT_THAT(roots[1].sharing_mount_namespaces, ElementsAre("mnt:[2]", "mnt:[3]"));
}

// Same device, another inode: another directory (two tmpfs instances can share nothing).
TEST(Discover, SameDeviceOtherInodeIsAnotherRoot) {
  const auto scan = scan_of({entry(100, "mnt:[1]", {0x30, 7}), entry(200, "mnt:[2]", {0x30, 8})});
  EXPECT_EQ(discover_roots(host_options(), &scan).size(), 3u);
}

TEST(Discover, HostTempDirIsNotCountedTwice) {
  // A container of another pid namespace with the host /tmp bind-mounted: its pids are
  // candidates for the host's files. So is a mount namespace whose first process is in our
  // pid namespace (`unshare --pid --fork --mount`: the unshare process stays in ours, the
  // JVM it starts does not): the scan names the first process's pid namespace only.
  const auto scan = scan_of({entry(100, "mnt:[1]", kHostTmp, "pid:[4026531836]"),
                             entry(200, "mnt:[2]", kHostTmp, "pid:[4026532999]"),
                             entry(300, "mnt:[4026531841]", kHostTmp, "pid:[4026532998]")});
  const auto roots = discover_roots(host_options(), &scan);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].kind, RootKind::host);
  EXPECT_THAT(roots[0].sharing_mount_namespaces, ElementsAre("mnt:[1]", "mnt:[2]"));
  // Its own, the tool's, is named apart: the finding that counts them lists it too.
  EXPECT_EQ(roots[0].own_mount_namespace, "mnt:[4026531841]");
  EXPECT_FALSE(discover_roots(host_options(), nullptr)[0].own_mount_namespace);
}

// Containers alternating between two passwd files (A, B, A, B, ...; any user can bind-mount
// one over its etc/passwd) come as A, A, ..., B, B, ...: a run keeps a bounded number of parsed
// passwd files, and alternating roots had each parsed again for every root. The host's root
// stays first, each group where its first member was, the scan's order within a group, and a
// root whose passwd was not seen where it was.
TEST(Discover, ContainersSharingAPasswdFileComeOneAfterAnother) {
  const FileVersion a{0x40, 11, 40'000'000, 1, 0, 1, 0};
  FileVersion b = a;
  b.ino = 12;
  FileVersion a_written = a;  // the same file written since: another version
  a_written.ctime_sec = 2;
  std::vector<ProcessTempDir> entries;
  const std::optional<FileVersion> passwd_of[] = {a, b, std::nullopt, a, b, a_written, a, b};
  for (std::int32_t k = 0; k < 8; ++k) {
    entries.push_back(entry(100 + k, "mnt:[" + std::to_string(k) + "]", {0x30, 100u + static_cast<std::uint64_t>(k)}));
    entries.back().passwd = passwd_of[k];
  }
  const auto scan = scan_of(std::move(entries));
  const auto roots = discover_roots(host_options(), &scan);
  std::vector<std::string> order;
  for (const auto& root : roots) order.push_back(root.root);
  EXPECT_THAT(order, ElementsAre("/", "/proc/100/root", "/proc/103/root", "/proc/106/root",
                                 "/proc/101/root", "/proc/104/root", "/proc/107/root",
                                 "/proc/102/root", "/proc/105/root"));
}

// --containers-only (the node image in a pod with the node's pid namespace): no temp dir of our
// own mount namespace, the node's /tmp (pid 1's) first as the temp dir of its mount namespace,
// then each container's; a process sharing our own /tmp adds nothing.
TEST(Discover, ContainersOnlyLooksAtEveryOtherMountNamespaceAndNotOurs) {
  const auto scan = scan_of({entry(1, "mnt:[4026531832]", {0x20, 2}, "pid:[4026531836]"),
                             entry(7, "mnt:[4026531841]", kHostTmp, "pid:[4026531836]"),
                             entry(100, "mnt:[1]", {0x30, 2}), entry(101, "mnt:[9]", kHostTmp)});
  DiscoverOptions options = host_options();
  options.containers_only = true;
  EXPECT_TRUE(wants_container_scan(options));
  const auto roots = discover_roots(options, &scan);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0].kind, RootKind::container);
  EXPECT_EQ(roots[0].root, "/proc/1/root");
  EXPECT_EQ(roots[0].temp_dir, "/tmp");
  EXPECT_EQ(roots[1].root, "/proc/100/root");
  for (const auto& root : roots) EXPECT_THAT(root.sharing_mount_namespaces, IsEmpty());
  // Without the scan (not root), nothing.
  EXPECT_THAT(discover_roots(options, nullptr), IsEmpty());
}

TEST(Discover, TmpdirAndRootOptionsLookAtNoContainer) {
  const auto scan = scan_of({entry(100, "mnt:[1]", {0x30, 2})});
  DiscoverOptions tmpdir = host_options();
  tmpdir.tmpdir = "/srv/tmp";
  EXPECT_FALSE(wants_container_scan(tmpdir));
  ASSERT_EQ(discover_roots(tmpdir, &scan).size(), 1u);
  EXPECT_EQ(discover_roots(tmpdir, &scan)[0].kind, RootKind::tmpdir);
  DiscoverOptions root = host_options();
  root.root = "/mnt/image";
  const auto roots = discover_roots(root, &scan);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].kind, RootKind::root);
}

TEST(Discover, ContainerPidLooksAtThatRootOnly) {
  DiscoverOptions o = host_options(false);
  o.container_pid = 200;
  EXPECT_TRUE(wants_container_scan(o));
  EXPECT_EQ(container_scan_options(o).focus_pid, 200);
  // Even the host's /tmp; the other namespaces sharing its /tmp are candidates too.
  const auto scan = scan_of({entry(100, "mnt:[1]", {0x30, 2}), entry(150, "mnt:[3]", kHostTmp),
                             entry(200, "mnt:[2]", kHostTmp)});
  const auto roots = discover_roots(o, &scan);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].kind, RootKind::container);
  EXPECT_EQ(roots[0].root, "/proc/200/root");
  EXPECT_EQ(roots[0].container->mount_namespace, "mnt:[2]");
  EXPECT_THAT(roots[0].sharing_mount_namespaces, ElementsAre("mnt:[3]"));
}

TEST(Discover, ContainerPidThatCouldNotBeScannedIsStillNamed) {
  DiscoverOptions o = host_options();
  o.container_pid = 4242;
  const auto scan = scan_of({});
  const auto roots = discover_roots(o, &scan);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].root, "/proc/4242/root");  // observation then says why it failed
  EXPECT_TRUE(roots[0].container->mount_namespace.empty());
}

}  // namespace
}  // namespace hsperfguard

namespace hsperfguard {
namespace {

TEST(Discover, ContainerThatStoppedSinceDiscoveryIsDropped) {
  TempRootFacts root;
  root.kind = RootKind::container;
  root.root = "/proc/4242/root";
  root.errors.push_back(ObservationError{"/proc/4242/root", "open", ENOENT, "No such file"});
  EXPECT_TRUE(container_vanished(root));
  root.errors.front().code = EACCES;  // could not look: an error, not a vanished container
  EXPECT_FALSE(container_vanished(root));
  root.errors.front() = ObservationError{"/proc/4242/root/tmp", "open", ENOENT, "No such file"};
  EXPECT_FALSE(container_vanished(root));  // the process is there, its /tmp is not
  root.kind = RootKind::root;
  root.errors.front() = ObservationError{"/proc/4242/root", "open", ENOENT, "No such file"};
  EXPECT_FALSE(container_vanished(root));  // --root DIR that does not exist: an error
}

// Processes the scan could not look into go with the first root of a run over every
// container (the run is then incomplete), never with a --container run's: another container
// is not the one it was asked to look at.
TEST(Discover, UnobservedProcessesGoWithTheHostRootOfAScanningRunOnly) {
  ContainerScan scan = scan_of({entry(100, "mnt:[1]", {0x30, 2})});
  scan.unobserved.count = 2;
  scan.unobserved.pids = {5, 7};
  scan.unobserved.errors = {ObservationError{"/proc/5/ns/mnt", "readlink", EACCES, "Permission denied"}};
  const auto roots = discover_roots(host_options(), &scan);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0].unobserved.count, 2u);
  EXPECT_THAT(roots[0].unobserved.pids, ElementsAre(5, 7));
  EXPECT_TRUE(roots[1].unobserved.empty());
  DiscoverOptions focus = host_options();
  focus.container_pid = 100;
  const auto focused = discover_roots(focus, &scan);
  ASSERT_EQ(focused.size(), 1u);
  EXPECT_TRUE(focused[0].unobserved.empty());
}

// The container's process exited after its namespaces were observed: opening its root again
// (for its attach files) fails with ENOENT, which says it is gone; EACCES does not, nor an
// error of something beneath the root.
TEST(Discover, ContainerGoneSinceItsNamespacesWereObserved) {
  TempRootFacts root;
  root.kind = RootKind::container;
  root.root = "/proc/4242/root";
  root.opened = InodeFacts{};
  EXPECT_TRUE(container_gone(root, ObservationError{"/proc/4242/root", "open", ENOENT, "No such file"}));
  EXPECT_TRUE(container_gone(root, ObservationError{"/proc/4242/root", "open", ESRCH, "No such process"}));
  EXPECT_FALSE(container_gone(root, ObservationError{"/proc/4242/root", "open", EACCES, "Permission denied"}));
  EXPECT_FALSE(container_gone(root, ObservationError{"/proc/4242/root/tmp", "openat2", ENOENT, "No such file"}));
  root.kind = RootKind::root;
  EXPECT_FALSE(container_gone(root, ObservationError{"/proc/4242/root", "open", ENOENT, "No such file"}));
}

JvmProcessFacts jvm_naming(std::int32_t pid, std::string alt, bool own_namespace = true) {
  JvmProcessFacts jvm;
  jvm.process.pid = pid;
  jvm.in_own_mount_namespace = own_namespace;
  jvm.alt_temp_dir = AltTempDirOption{std::move(alt), "command line"};
  return jvm;
}

TEST(AltTempDirRoots, EachDirectoryOnceNamedByItsLowestPidAfterTheHostsTempDir) {
  const DiscoverOptions options = host_options(false);
  const std::vector<RootSpec> specs = discover_roots(options);
  const std::vector<JvmProcessFacts> jvms = {jvm_naming(300, "/var/diags/"), jvm_naming(200, "//var/./diags"),
                                             jvm_naming(400, "/srv/jvm tmp"), JvmProcessFacts{}};
  const auto roots = alt_temp_dir_roots(options, specs, jvms);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0].kind, RootKind::alt_temp_dir);
  EXPECT_EQ(roots[0].root, "/");
  EXPECT_EQ(roots[0].temp_dir, "/srv/jvm tmp");
  EXPECT_EQ(roots[0].alt_temp_dir_pid, 400);
  EXPECT_EQ(roots[1].temp_dir, "/var/diags");
  EXPECT_EQ(roots[1].alt_temp_dir_pid, 200);
}

TEST(AltTempDirRoots, WhatHotSpotIgnoresOrThisViewCannotNameIsNotLookedAt) {
  const DiscoverOptions options = host_options(false);
  const std::vector<RootSpec> specs = discover_roots(options);
  // Relative (HotSpot ignores it and keeps /tmp), the host's own /tmp, a ".." only the file
  // system resolves, and a JVM of another mount namespace (its path is of its own view).
  const std::vector<JvmProcessFacts> jvms = {jvm_naming(10, "diags"), jvm_naming(11, "/tmp/"),
                                             jvm_naming(12, "/var/../etc"), jvm_naming(13, "/srv/x", false),
                                             jvm_naming(14, "")};
  EXPECT_THAT(alt_temp_dir_roots(options, specs, jvms), IsEmpty());
}

TEST(AltTempDirRoots, OnlyInTheHostsOwnView) {
  const std::vector<JvmProcessFacts> jvms = {jvm_naming(10, "/srv/x")};
  DiscoverOptions tmpdir = host_options(false);
  tmpdir.tmpdir = "/scratch";
  EXPECT_THAT(alt_temp_dir_roots(tmpdir, discover_roots(tmpdir), jvms), IsEmpty());
  DiscoverOptions root = host_options(false);
  root.root = "/srv/chroot";
  EXPECT_THAT(alt_temp_dir_roots(root, discover_roots(root), jvms), IsEmpty());
  DiscoverOptions container = host_options(false);
  container.container_pid = 4242;
  EXPECT_THAT(alt_temp_dir_roots(container, {}, jvms), IsEmpty());
  DiscoverOptions only = host_options(true);
  only.containers_only = true;
  EXPECT_THAT(alt_temp_dir_roots(only, {}, jvms), IsEmpty());
  const DiscoverOptions host = host_options(false);
  EXPECT_EQ(alt_temp_dir_roots(host, discover_roots(host), jvms).size(), 1u);
}

// Windows: other accounts' temp dirs as observed (services', then JVMs'), as discovery
// makes them roots.
AccountTempDir account_dir(std::string name, std::string path, std::optional<DirIdentity> identity,
                           std::optional<std::int32_t> pid = std::nullopt) {
  return AccountTempDir{TempDirAccount{std::move(name), pid}, std::move(path), identity};
}

TEST(AccountTempDirRoots, EachDirectoryOnceAfterTheRunsOwnAndNeverThatOne) {
  DiscoverOptions options = host_options(false);
  options.host_temp_dir = "C:\\Users\\ann\\AppData\\Local\\Temp";
  const std::vector<RootSpec> specs = discover_roots(options);
  AccountTempDirs dirs;
  dirs.host_temp_dir = DirIdentity{7, 100};
  dirs.dirs = {
      account_dir("SYSTEM", "C:\\Windows\\Temp", DirIdentity{7, 200}),
      account_dir("LOCAL SERVICE", "C:\\Windows\\ServiceProfiles\\LocalService\\AppData\\Local\\Temp", std::nullopt),
      // The run's own temp dir by its 8.3 name: the same identity.
      account_dir("ann", "C:\\Users\\ANN~1\\AppData\\Local\\Temp", DirIdentity{7, 100}, 40),
      // The run's own by another case and a trailing separator, without an identity.
      account_dir("ann", "c:\\users\\ann\\appdata\\local\\temp\\", std::nullopt, 44),
      // A JVM whose TMP names SYSTEM's temp dir again, by another path (the same identity).
      account_dir("SYSTEM", "C:\\WINDOWS\\TEMP\\", DirIdentity{7, 200}, 48),
      // A JVM with a TMP of its own.
      account_dir("svc", "D:\\jvm tmp", DirIdentity{9, 5}, 52),
  };
  const auto roots = account_temp_dir_roots(options, specs, dirs);
  ASSERT_EQ(roots.size(), 3u);
  EXPECT_EQ(roots[0].kind, RootKind::account_temp_dir);
  EXPECT_EQ(roots[0].temp_dir, "C:\\Windows\\Temp");
  EXPECT_EQ(roots[0].account, (TempDirAccount{"SYSTEM", std::nullopt}));
  // Unopenable, still a root: its observation says why it could not be read.
  EXPECT_EQ(roots[1].account->name, "LOCAL SERVICE");
  EXPECT_EQ(roots[2].temp_dir, "D:\\jvm tmp");
  EXPECT_EQ(roots[2].account, (TempDirAccount{"svc", 52}));
}

TEST(AccountTempDirRoots, OnlyTheHostsViewAndWithUserOnlyThatAccounts) {
  AccountTempDirs dirs;
  dirs.dirs = {account_dir("SYSTEM", "C:\\Windows\\Temp", DirIdentity{7, 200}),
               account_dir("svc", "D:\\t", DirIdentity{9, 5}, 52)};
  const DiscoverOptions host = host_options(false);
  EXPECT_EQ(account_temp_dir_roots(host, discover_roots(host), dirs).size(), 2u);
  const auto system = account_temp_dir_roots(host, discover_roots(host), dirs, std::string("system"));
  ASSERT_EQ(system.size(), 1u);  // account names are without regard to case on Windows
  EXPECT_EQ(system[0].temp_dir, "C:\\Windows\\Temp");
  DiscoverOptions tmpdir = host_options(false);
  tmpdir.tmpdir = "C:\\scratch";
  EXPECT_THAT(account_temp_dir_roots(tmpdir, discover_roots(tmpdir), dirs), IsEmpty());
  DiscoverOptions root = host_options(false);
  root.root = "D:\\image";
  EXPECT_THAT(account_temp_dir_roots(root, discover_roots(root), dirs), IsEmpty());
}

// Trailing separators end at a drive's root: "C://" is the root "C:\" named again, while "C:"
// (the current directory of drive C) is another directory.
TEST(AccountTempDirRoots, TrailingSeparatorsEndAtTheDrivesRoot) {
  DiscoverOptions options = host_options(false);
  options.host_temp_dir = "C:\\";
  const std::vector<RootSpec> specs = discover_roots(options);
  AccountTempDirs dirs;
  dirs.dirs = {account_dir("svc", "C://", std::nullopt, 40), account_dir("svc", "C:", std::nullopt, 44)};
  const auto roots = account_temp_dir_roots(options, specs, dirs);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].temp_dir, "C:");
}

}  // namespace
}  // namespace hsperfguard
