// Rules on the temp dir (tmpdir.*), the namespace directory (namespace.*) and its volume
// (volume.*): a positive and a negative case for each, on hand-built facts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "checks/checks.hpp"
#include "checks/invisible.hpp"
#include "checks/publication.hpp"
#include "checks_builders.hpp"
#include "model/shell_word.hpp"

namespace hsperfguard::test {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

// ---- tmpdir.unsafe ------------------------------------------------------------------------

Findings temp_findings(const TempRootFacts& root) { return checks::check_temp_root(root); }

TEST(TmpdirUnsafe, RootOwnedStickyWorldWritableIsSafe) {
  EXPECT_THAT(temp_findings(temp_root()), IsEmpty());
}

TEST(TmpdirUnsafe, RootOwnedNotWritableWithoutStickyIsSafe) {
  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::directory, 0755, 0, 100));
  // Safe; but a user without a namespace cannot make one there (tmpdir.new-namespaces-fail).
  EXPECT_THAT(ids(temp_findings(root)), ElementsAre("tmpdir.new-namespaces-fail"));
}

TEST(TmpdirUnsafe, WritableWithoutStickyBit) {
  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::directory, 0777, 0, 100));
  const Findings f = temp_findings(root);
  ASSERT_THAT(ids(f), ElementsAre("tmpdir.unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"writable-without-sticky"}));
  EXPECT_EQ(f[0].evidence["mode"], "0777");
  EXPECT_EQ(f[0].evidence["mode_numeric"], 0777);
  EXPECT_EQ(f[0].evidence["sticky"], false);
  EXPECT_EQ(f[0].path, "/tmp");
  EXPECT_EQ(f[0].severity, Severity::high);
}

TEST(TmpdirUnsafe, GroupWritableWithoutStickyBit) {
  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::directory, 0775, 0, 100));
  EXPECT_THAT(ids(temp_findings(root)), UnorderedElementsAre("tmpdir.unsafe", "tmpdir.new-namespaces-fail"));
}

TEST(TmpdirUnsafe, NotRootOwned) {
  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::directory, 01777, kAliceUid, 100));
  const Findings f = temp_findings(root);
  ASSERT_THAT(ids(f), ElementsAre("tmpdir.unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"not-root-owned"}));
  EXPECT_EQ(f[0].evidence["uid"], kAliceUid);
  EXPECT_EQ(f[0].evidence["expected_uid"], 0);
}

// A container's /tmp (a user's own user namespace looks the same from here): named as the
// host reaches it and as that container's, with a remedy for that container, never a chown
// of this host's /tmp. The host's own keeps the catalogue's remedy.
TEST(TmpdirUnsafe, ContainersTempDirIsNamedAsReachedAndItsRemedyIsForThatContainer) {
  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::directory, 01777, 4242, 100));
  EXPECT_NE(temp_findings(root).at(0).remediation.find("chown root:root /tmp "), std::string::npos);
  root.kind = RootKind::container;
  root.root = "/proc/4/root";
  root.reachable_path = "/proc/4/root/tmp";
  root.container = ContainerFacts{4, "mnt:[4026532300]", std::nullopt, std::nullopt};
  const Findings f = temp_findings(root);
  ASSERT_THAT(ids(f), ElementsAre("tmpdir.unsafe"));
  EXPECT_EQ(f[0].path, "/proc/4/root/tmp");
  EXPECT_EQ(f[0].severity, Severity::high);
  EXPECT_EQ(f[0].message.rfind("temp dir /proc/4/root/tmp (the /tmp of container host_pid 4, mount namespace "
                               "mnt:[4026532300], not this host's /tmp) is unsafe",
                               0),
            0u)
      << f[0].message;
  EXPECT_NE(f[0].remediation.find("/proc/4/root/tmp"), std::string::npos) << f[0].remediation;
  EXPECT_EQ(f[0].remediation.find("chown"), std::string::npos) << f[0].remediation;
  EXPECT_EQ(f[0].evidence["temp_dir"]["host_pid"], 4);
  EXPECT_EQ(f[0].evidence["temp_dir"]["kind"], "container");
  // --root DIR: DIR/tmp, and the remedy names it.
  root.kind = RootKind::root;
  root.root = "/srv/image";
  root.reachable_path = "/srv/image/tmp";
  root.container.reset();
  const Findings g = temp_findings(root);
  ASSERT_THAT(ids(g), ElementsAre("tmpdir.unsafe"));
  EXPECT_EQ(g[0].path, "/srv/image/tmp");
  EXPECT_NE(g[0].remediation.find("chown root:root " + shell_word("/srv/image/tmp") + " && chmod 1777 " +
                                  shell_word("/srv/image/tmp")),
            std::string::npos)
      << g[0].remediation;
}

TEST(TmpdirUnsafe, SymlinkedTempDir) {
  TempRootFacts root = temp_root();
  root.lstat = inode(FileKind::symlink, 0777, 0, 99);
  root.opened.reset();
  const Findings f = temp_findings(root);
  ASSERT_THAT(ids(f), ElementsAre("tmpdir.unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"symlink"}));
  EXPECT_EQ(f[0].evidence["kind"], "symlink");
}

TEST(TmpdirUnsafe, TempDirThatIsNotADirectory) {
  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::regular, 0644, 0, 100));
  const Findings f = temp_findings(root);
  ASSERT_THAT(ids(f), ElementsAre("tmpdir.unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"not-directory"}));
}

TEST(TmpdirUnsafe, WindowsTempDirIsNotJudgedByPosixOwnership) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  set_inode(root, inode(FileKind::directory, 0, 0, 100));
  root.lstat->uid = root.opened->uid = 42;
  EXPECT_THAT(temp_findings(root), IsEmpty());
}

// ---- tmpdir.identity-changed, tmpdir.observation-error ---------------------------------------

TEST(TmpdirIdentityChanged, LstatAndFstatDisagree) {
  TempRootFacts root = temp_root();
  root.opened->ino = 101;
  const Findings f = temp_findings(root);
  ASSERT_THAT(ids(f), ElementsAre("tmpdir.identity-changed"));
  EXPECT_EQ(f[0].evidence["lstat"]["ino"], 100);
  EXPECT_EQ(f[0].evidence["fstat"]["ino"], 101);
}

TEST(TmpdirIdentityChanged, OnlyOneObservationIsNoEvidence) {
  TempRootFacts root = temp_root();
  root.opened.reset();
  EXPECT_THAT(temp_findings(root), IsEmpty());
}

TEST(TmpdirObservationError, ErrorsAreReported) {
  TempRootFacts root = temp_root();
  root.errors.push_back(error("/tmp", "opendir"));
  const Findings f = temp_findings(root);
  ASSERT_THAT(ids(f), ElementsAre("tmpdir.observation-error"));
  EXPECT_EQ(f[0].evidence["errors"][0]["op"], "opendir");
  EXPECT_EQ(f[0].evidence["errors"][0]["code"], 13);
  EXPECT_EQ(f[0].severity, Severity::low);
}

TEST(TmpdirObservationError, NoErrorsNoFinding) {
  EXPECT_THAT(ids(temp_findings(temp_root())), Not(Contains("tmpdir.observation-error")));
}

// ---- tmpdir.shared-pid-names -----------------------------------------------------------------

// A root whose /tmp another mount namespace shares, with a live JVM's locked file in gina's
// namespace.
TempRootFacts shared_root() {
  TempRootFacts root = temp_root();
  root.sharing_mount_namespaces = {"mnt:[4026532999]"};
  NamespaceFacts gina = namespace_of("gina", 1008);
  gina.files.push_back(locked_file(gina, "1", 300));
  root.namespaces.push_back(gina);
  return root;
}

const Finding* finding_of(const Findings& findings, const std::string& rule) {
  for (const Finding& f : findings) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

// The message's count of mount namespaces is the evidence's: the others and the root's own,
// the host's (as the tool sees it) or a container's.
TEST(TmpdirSharedPidNames, TheMessageCountsTheMountNamespacesTheEvidenceLists) {
  TempRootFacts host = shared_root();
  host.own_mount_namespace = "mnt:[4026531841]";
  TempRootFacts container = shared_root();
  container.container = ContainerFacts{};
  container.container->mount_namespace = "mnt:[4026533000]";
  for (const auto& [root, own] : {std::pair{&host, "mnt:[4026531841]"}, {&container, "mnt:[4026533000]"}}) {
    const Findings findings = temp_findings(*root);
    const Finding* f = finding_of(findings, "tmpdir.shared-pid-names");
    ASSERT_NE(f, nullptr) << own;
    EXPECT_EQ(f->evidence["mount_namespaces"], nlohmann::json({"mnt:[4026532999]", own}));
    EXPECT_THAT(f->message, ::testing::HasSubstr(" is the /tmp of 2 mount namespaces and "));
    EXPECT_EQ(f->evidence["locked_names"], nlohmann::json({{"hsperfdata_gina", {"1"}}}));
  }
  // The host's own id not read (no container scan told it): the list is one short, and the
  // message says why.
  TempRootFacts unread = shared_root();
  const Findings unread_findings = temp_findings(unread);
  const Finding* short_list = finding_of(unread_findings, "tmpdir.shared-pid-names");
  ASSERT_NE(short_list, nullptr);
  EXPECT_EQ(short_list->evidence["mount_namespaces"], nlohmann::json({"mnt:[4026532999]"}));
  EXPECT_THAT(short_list->message,
              ::testing::HasSubstr(" is the /tmp of 2 mount namespaces (this host's own unread) and "));
  // Three others: four in all.
  host.sharing_mount_namespaces.push_back("mnt:[4026533001]");
  host.sharing_mount_namespaces.push_back("mnt:[4026533002]");
  const Findings findings = temp_findings(host);
  const Finding* f = finding_of(findings, "tmpdir.shared-pid-names");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["mount_namespaces"].size(), 4u);
  EXPECT_THAT(f->message, ::testing::HasSubstr(" is the /tmp of 4 mount namespaces and "));
}

TEST(TmpdirSharedPidNames, NoOtherMountNamespaceOrNoLockedNameIsNoFinding) {
  TempRootFacts alone = shared_root();
  alone.sharing_mount_namespaces.clear();
  EXPECT_EQ(finding_of(temp_findings(alone), "tmpdir.shared-pid-names"), nullptr);
  TempRootFacts unlocked = shared_root();
  unlocked.namespaces[0].files[0].liveness->lock_held = false;
  EXPECT_EQ(finding_of(temp_findings(unlocked), "tmpdir.shared-pid-names"), nullptr);
}

// ---- namespace.symlink, namespace.not-directory ---------------------------------------------

TEST(NamespaceSymlink, SymlinkIsReportedAndNothingElseJudgesTheLink) {
  NamespaceFacts ns = namespace_of();
  ns.lstat = inode(FileKind::symlink, 0777, kMalloryUid, 9);
  ns.opened.reset();  // O_NOFOLLOW refused it
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("namespace.symlink"));
  EXPECT_EQ(f[0].evidence["link_owner_uid"], kMalloryUid);
  EXPECT_EQ(f[0].evidence["lstat"]["kind"], "symlink");
}

// The name was a link when looked at and a directory (with ACLs) when opened: a race. The
// link is what is reported; the directory's ACLs are not the namespace's, and no ACL rule
// judges them. On Windows no POSIX ACL rule runs at all.
// The space a JVM needs, to the byte and the inode: exactly one region of free space and one
// free inode publish in a namespace (root counts its reserved blocks), one byte or inode less
// does not; a new namespace needs two inodes (its directory and the file).
TEST(NamespaceNoSpace, ExactlyARegionAndAnInodeAreEnoughAndOneLessIsNot) {
  const TempRootFacts root = temp_root();
  NamespaceFacts ns = namespace_of();
  const std::uint64_t region = checks::predict_publication(root, ns).region_bytes;
  ASSERT_GT(region, 0u);
  const auto failures = [&](std::uint64_t bytes, std::uint64_t inodes, std::uint32_t uid) {
    NamespaceFacts n = ns;
    n.volume = tmpfs();
    n.volume->free_bytes = bytes;
    n.volume->free_bytes_root = bytes;
    n.volume->free_inodes = inodes;
    n.user->uid = uid;
    if (uid == 0) n.lstat->uid = n.opened->uid = 0;
    return checks::predict_publication(root, n).create_failures;
  };
  for (const std::uint32_t uid : {kAliceUid, 0u}) {
    SCOPED_TRACE(uid);
    EXPECT_THAT(failures(region, 1, uid), IsEmpty());
    EXPECT_THAT(failures(region - 1, 1, uid), ElementsAre("no-space"));
    EXPECT_THAT(failures(region, 0, uid), ElementsAre("no-free-inodes"));
  }
  TempRootFacts full = root;
  full.volume = tmpfs();
  full.volume->free_bytes = region;
  full.volume->free_inodes = 2;
  EXPECT_THAT(checks::predict_new_namespace(full, false).create_failures, IsEmpty());
  full.volume->free_inodes = 1;
  EXPECT_THAT(checks::predict_new_namespace(full, false).create_failures, ElementsAre("no-free-inodes"));
}

TEST(NamespaceSymlink, ADirectorysAclsSeenThroughASwappedLinkAreNotJudged) {
  NamespaceFacts ns = namespace_of();
  ns.lstat = inode(FileKind::symlink, 0777, kMalloryUid, 9);
  ns.opened = inode(FileKind::directory, 0775, kAliceUid, 10);
  const PosixAcl grants_write{{entry(AclTag::user_obj, 7), entry(AclTag::user, 7, kMalloryUid),
                               entry(AclTag::group_obj, 5), entry(AclTag::mask, 7),
                               entry(AclTag::other, 5)}};
  ns.access_acl = grants_write;
  ns.default_acl = grants_write;
  const Findings f = namespace_findings(ns);
  for (const Finding& finding : f) {
    EXPECT_EQ(finding.rule.rfind("namespace.acl", 0), std::string::npos) << finding.rule;
    EXPECT_NE(finding.rule, "namespace.default-acl");
  }
  EXPECT_THAT(ids(f), Contains("namespace.symlink"));

  TempRootFacts windows = temp_root();
  windows.platform = Platform::windows;
  NamespaceFacts dir = namespace_of();
  dir.access_acl = grants_write;
  dir.default_acl = grants_write;
  for (const Finding& finding : checks::check_namespace(windows, dir)) {
    EXPECT_EQ(finding.rule.rfind("namespace.acl", 0), std::string::npos) << finding.rule;
    EXPECT_NE(finding.rule, "namespace.default-acl");
  }
}

TEST(NamespaceSymlink, WindowsReparsePointsAreLeftToTheWindowsRule) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  NamespaceFacts ns = namespace_of();
  ns.lstat = inode(FileKind::symlink, 0, 0, 9);
  ns.opened.reset();
  EXPECT_THAT(ids(checks::check_namespace(root, ns)), Not(Contains("namespace.symlink")));
}

TEST(NamespaceSymlink, DirectoryIsNotALink) {
  EXPECT_THAT(namespace_findings(namespace_of()), IsEmpty());
}

TEST(NamespaceNotDirectory, FifoInPlaceOfTheNamespace) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::fifo, 0666, kMalloryUid, 9));
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("namespace.not-directory"));
  EXPECT_EQ(f[0].evidence["kind"], "fifo");
  EXPECT_EQ(f[0].evidence["owner_uid"], kMalloryUid);
  EXPECT_EQ(f[0].evidence["legacy_backing_file"], false);
}

TEST(NamespaceNotDirectory, LegacyPidFileIsRecognised) {
  NamespaceFacts ns = namespace_of("12345", kAliceUid);
  ns.user.reset();
  set_inode(ns, inode(FileKind::regular, 0600, kAliceUid, 9, 32768));
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("namespace.not-directory"));
  EXPECT_EQ(f[0].evidence["legacy_backing_file"], true);
}

TEST(NamespaceNotDirectory, DirectoryIsFine) {
  EXPECT_THAT(ids(namespace_findings(namespace_of())), Not(Contains("namespace.not-directory")));
}

// ---- namespace.group-other-writable, namespace.not-private -----------------------------------

TEST(NamespaceGroupOtherWritable, GroupWrite) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::directory, 0775, kAliceUid, 9));
  const Findings f = namespace_findings(ns);
  const Finding* w = find(f, "namespace.group-other-writable");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->evidence["mode"], "0775");
  EXPECT_EQ(w->evidence["group_writable"], true);
  EXPECT_EQ(w->evidence["other_writable"], false);
}

TEST(NamespaceGroupOtherWritable, OtherWriteEvenWithStickyBit) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::directory, 01757, kAliceUid, 9));
  const Findings w_all = namespace_findings(ns);
  const Finding* w = find(w_all, "namespace.group-other-writable");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->evidence["other_writable"], true);
  EXPECT_EQ(w->evidence["sticky"], true);
  EXPECT_EQ(w->evidence["mode"], "1757");
}

TEST(NamespaceGroupOtherWritable, HotSpotDefaultModeIsFine) {
  EXPECT_THAT(ids(namespace_findings(namespace_of())),
              Not(Contains("namespace.group-other-writable")));
}

TEST(NamespaceGroupOtherWritable, FstatDecidesOverLstat) {
  NamespaceFacts ns = namespace_of();
  ns.lstat->mode = 0777;  // what the name showed a moment before; the fd is what we verified
  const Findings f = namespace_findings(ns);
  EXPECT_THAT(ids(f), Not(Contains("namespace.group-other-writable")));
}

TEST(NamespaceNotPrivate, HotSpotDefaultModeIsNotPrivate) {
  // The rule judges HotSpot's own 0755; the default profile turns it off, strict keeps it.
  const Findings raw = checks::check_namespace(temp_root(), namespace_of());
  ASSERT_THAT(ids(raw), ElementsAre("namespace.not-private"));
  EXPECT_EQ(raw[0].evidence["mode"], "0755");
  EXPECT_EQ(raw[0].evidence["mode_numeric"], 0755);
  EXPECT_THAT(namespace_findings(namespace_of()), IsEmpty());
}

TEST(NamespaceNotPrivate, AnyGroupOrOtherBit) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::directory, 0701, kAliceUid, 9));
  EXPECT_THAT(ids(checks::check_namespace(temp_root(), ns)), ElementsAre("namespace.not-private"));
}

TEST(NamespaceNotPrivate, OwnerOnlyIsPrivate) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::directory, 0700, kAliceUid, 9));
  EXPECT_THAT(checks::check_namespace(temp_root(), ns), IsEmpty());
}

// ---- namespace.owner-mismatch ----------------------------------------------------------------

TEST(NamespaceOwnerMismatch, OwnedByAnotherUser) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::directory, 0755, kMalloryUid, 9));
  const Findings f = namespace_findings(ns);
  const Finding* m = find(f, "namespace.owner-mismatch");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->evidence["owner_uid"], kMalloryUid);
  EXPECT_EQ(m->evidence["expected_uid"], kAliceUid);
  EXPECT_EQ(m->evidence["owner_is_root"], false);
  EXPECT_EQ(m->evidence["hotspot_accepts"], false);
}

TEST(NamespaceOwnerMismatch, RootOwnedNamespaceOfAnotherUserIsStillAMismatch) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::directory, 0755, 0, 9));
  const Findings m_all = namespace_findings(ns);
  const Finding* m = find(m_all, "namespace.owner-mismatch");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->evidence["owner_is_root"], true);
  EXPECT_EQ(m->evidence["hotspot_accepts"], false);
  EXPECT_THAT(m->evidence["note"].get<std::string>(), ::testing::HasSubstr("JDK-8075773"));
}

// Root's JVMs accept it (JDK-8075773): no refusal, but a hijack risk of its own rule.
TEST(NamespaceOwnerMismatch, RootNamespaceOwnedBySomeoneElseIsAcceptedByRootJvms) {
  NamespaceFacts ns = namespace_of("root", 0);
  set_inode(ns, inode(FileKind::directory, 0755, kMalloryUid, 9));
  const Findings m_all = namespace_findings(ns);
  EXPECT_EQ(find(m_all, "namespace.owner-mismatch"), nullptr);
  const Finding* m = find(m_all, "namespace.root-owner-mismatch");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->evidence["hotspot_accepts"], true);
}

TEST(NamespaceOwnerMismatch, OwnerMatches) {
  EXPECT_THAT(ids(namespace_findings(namespace_of())), Not(Contains("namespace.owner-mismatch")));
  EXPECT_THAT(namespace_findings(namespace_of("root", 0)), IsEmpty());
}

TEST(NamespaceOwnerMismatch, NotJudgedOnWindowsFacts) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  NamespaceFacts ns = namespace_of();
  ns.user->uid.reset();
  ns.user->sid = "S-1-5-21-1-2-3-1001";
  set_inode(ns, inode(FileKind::directory, 0, 0, 9));
  EXPECT_THAT(namespace_findings(ns, root), IsEmpty());
}

// ---- namespace.unknown-user, namespace.user-lookup-failed ------------------------------------

TEST(NamespaceUnknownUser, SuffixNamesNoUser) {
  NamespaceFacts ns = namespace_of("ghost", kMalloryUid);
  ns.user.reset();
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("namespace.unknown-user"));
  EXPECT_EQ(f[0].evidence["user"], "ghost");
  EXPECT_EQ(f[0].evidence["owner_uid"], kMalloryUid);
}

TEST(NamespaceUnknownUser, NotRaisedWhenTheLookupFailed) {
  NamespaceFacts ns = namespace_of("ghost", kMalloryUid);
  ns.user.reset();
  ns.user_lookup_failed = true;
  const Findings f = namespace_findings(ns);
  EXPECT_THAT(ids(f), ElementsAre("namespace.user-lookup-failed"));
  EXPECT_EQ(f[0].severity, Severity::info);
}

TEST(NamespaceUnknownUser, KnownUser) {
  EXPECT_THAT(
      ids(namespace_findings(namespace_of())),
      Not(Contains(::testing::AnyOf("namespace.unknown-user", "namespace.user-lookup-failed"))));
}

TEST(NamespaceUnknownUser, NonUtf8SuffixIsEscapedInEvidence) {
  NamespaceFacts ns = namespace_of(std::string("al\xff"
                                               "ce"),
                                   kAliceUid);
  ns.user.reset();
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("namespace.unknown-user"));
  EXPECT_EQ(f[0].evidence["user"], "al\\xffce");
  EXPECT_EQ(f[0].path, std::string("/tmp/hsperfdata_al\xff"
                                   "ce"));  // raw bytes
  EXPECT_NO_THROW((void)f[0].evidence.dump());
}

// ---- namespace.acl-grants-write ----------------------------------------------------------------

NamespaceFacts namespace_with_acl(std::vector<AclEntry> entries) {
  NamespaceFacts ns = namespace_of();
  ns.access_acl = PosixAcl{std::move(entries)};
  return ns;
}

TEST(NamespaceAclGrantsWrite, MaskLimitsNamedUserWrite) {
  const auto ns = namespace_with_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 7, kMalloryUid), entry(AclTag::group_obj, 5),
       entry(AclTag::mask, 5), entry(AclTag::other, 5)});
  EXPECT_THAT(ids(namespace_findings(ns)), Not(Contains("namespace.acl-grants-write")));
}

TEST(NamespaceAclGrantsWrite, MaskPermitsNamedUserWrite) {
  const auto ns = namespace_with_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 7, kMalloryUid), entry(AclTag::group_obj, 5),
       entry(AclTag::mask, 7), entry(AclTag::other, 5)});
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.acl-grants-write");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->evidence["write_grants"].size(), 1u);
  EXPECT_EQ(f->evidence["write_grants"][0]["text"], "user:1001:rwx");
  EXPECT_EQ(f->evidence["write_grants"][0]["qualifier"], kMalloryUid);
  EXPECT_EQ(f->evidence["mask"], "rwx");
  EXPECT_EQ(f->evidence["acl"].size(), 5u);
}

TEST(NamespaceAclGrantsWrite, NamedGroupWrite) {
  const auto ns = namespace_with_acl({entry(AclTag::user_obj, 7), entry(AclTag::group_obj, 5),
                                      entry(AclTag::group, 6, kStaffGid), entry(AclTag::mask, 7),
                                      entry(AclTag::other, 5)});
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.acl-grants-write");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["write_grants"][0]["text"], "group:50:rw-");
}

TEST(NamespaceAclGrantsWrite, OwningGroupWriteThroughTheMask) {
  const auto ns = namespace_with_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 4, kMalloryUid), entry(AclTag::group_obj, 7),
       entry(AclTag::mask, 7), entry(AclTag::other, 5)});
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.acl-grants-write");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["write_grants"][0]["tag"], "group_obj");
}

TEST(NamespaceAclGrantsWrite, OwningGroupWriteMaskedOff) {
  const auto ns = namespace_with_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 4, kMalloryUid), entry(AclTag::group_obj, 7),
       entry(AclTag::mask, 5), entry(AclTag::other, 5)});
  EXPECT_THAT(ids(namespace_findings(ns)), Not(Contains("namespace.acl-grants-write")));
}

TEST(NamespaceAclGrantsWrite, OtherWriteThroughTheOtherEntryIgnoresTheMask) {
  // The mask never limits `other`: a mask of r-x does not take other's write away.
  const auto ns = namespace_with_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 4, kMalloryUid), entry(AclTag::group_obj, 5),
       entry(AclTag::mask, 5), entry(AclTag::other, 7)});
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.acl-grants-write");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->evidence["write_grants"].size(), 1u);
  EXPECT_EQ(f->evidence["write_grants"][0]["tag"], "other");
}

TEST(NamespaceAclGrantsWrite, NamedEntryForTheOwnerIsShadowed) {
  const auto ns = namespace_with_acl({entry(AclTag::user_obj, 7), entry(AclTag::user, 7, kAliceUid),
                                      entry(AclTag::group_obj, 5), entry(AclTag::mask, 7),
                                      entry(AclTag::other, 5)});
  EXPECT_THAT(ids(namespace_findings(ns)), Not(Contains("namespace.acl-grants-write")));
}

TEST(NamespaceAclGrantsWrite, MinimalAclIsLeftToTheModeRule) {
  NamespaceFacts ns = namespace_with_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::group_obj, 5), entry(AclTag::other, 7)});
  set_inode(ns, inode(FileKind::directory, 0757, kAliceUid, 9));
  const Findings f = namespace_findings(ns);
  EXPECT_THAT(ids(f), Contains("namespace.group-other-writable"));
  EXPECT_THAT(ids(f), Not(Contains("namespace.acl-grants-write")));
}

TEST(NamespaceAclGrantsWrite, ReadOnlyGrantsAreFine) {
  const auto ns = namespace_with_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 5, kMalloryUid), entry(AclTag::group_obj, 5),
       entry(AclTag::mask, 7), entry(AclTag::other, 5)});
  EXPECT_THAT(namespace_findings(ns), IsEmpty());
}

// ---- namespace.default-acl ---------------------------------------------------------------------

NamespaceFacts namespace_with_default_acl(std::vector<AclEntry> entries) {
  NamespaceFacts ns = namespace_of();
  ns.default_acl = PosixAcl{std::move(entries)};
  return ns;
}

TEST(NamespaceDefaultAcl, OwnerOnlyDefaultAclIsFine) {
  const auto ns = namespace_with_default_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::group_obj, 0), entry(AclTag::other, 0)});
  EXPECT_THAT(namespace_findings(ns), IsEmpty());
}

TEST(NamespaceDefaultAcl, EmptyDefaultAclMeansNone) {
  EXPECT_THAT(namespace_findings(namespace_with_default_acl({})), IsEmpty());
}

TEST(NamespaceDefaultAcl, GroupReadIsInherited) {
  const auto ns = namespace_with_default_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::group_obj, 5), entry(AclTag::other, 0)});
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.default-acl");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["grants_beyond_owner"][0]["tag"], "group_obj");
  EXPECT_EQ(f->evidence["default_acl"].size(), 3u);
  EXPECT_EQ(f->severity, Severity::medium);
}

TEST(NamespaceDefaultAcl, NamedUserMaskedToNothingIsFine) {
  const auto ns = namespace_with_default_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 6, kMalloryUid), entry(AclTag::group_obj, 0),
       entry(AclTag::mask, 0), entry(AclTag::other, 0)});
  EXPECT_THAT(namespace_findings(ns), IsEmpty());
}

TEST(NamespaceDefaultAcl, NamedUserThroughTheMask) {
  const auto ns = namespace_with_default_acl(
      {entry(AclTag::user_obj, 7), entry(AclTag::user, 6, kMalloryUid), entry(AclTag::group_obj, 0),
       entry(AclTag::mask, 6), entry(AclTag::other, 0)});
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.default-acl");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["grants_beyond_owner"][0]["text"], "user:1001:rw-");
  EXPECT_EQ(f->evidence["mask"], "rw-");
}

// ---- namespace.identity-changed, mount-boundary, observation-error, jvm-blinded --------------

TEST(NamespaceIdentityChanged, SwappedBetweenLstatAndFstat) {
  NamespaceFacts ns = namespace_of();
  ns.opened->ino += 1;
  ns.identity_matches = false;
  const Findings f = namespace_findings(ns);
  const Finding* c = find(f, "namespace.identity-changed");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->evidence["identity_matches"], false);
  EXPECT_NE(c->evidence["lstat"]["ino"], c->evidence["fstat"]["ino"]);
  EXPECT_EQ(count(f, "namespace.identity-changed"), 1u);
}

TEST(NamespaceIdentityChanged, ObservationVerdictAloneIsEnough) {
  NamespaceFacts ns = namespace_of();
  ns.identity_matches = false;  // e.g. the opendir handle disagreed
  EXPECT_THAT(ids(namespace_findings(ns)), Contains("namespace.identity-changed"));
}

TEST(NamespaceIdentityChanged, SameInode) {
  EXPECT_THAT(ids(namespace_findings(namespace_of())), Not(Contains("namespace.identity-changed")));
}

TEST(NamespaceMountBoundary, CrossesMount) {
  NamespaceFacts ns = namespace_of();
  ns.crosses_mount = true;
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.mount-boundary");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["temp_dir_dev"], 0x2a);
}

TEST(NamespaceMountBoundary, SameFileSystem) {
  EXPECT_THAT(ids(namespace_findings(namespace_of())), Not(Contains("namespace.mount-boundary")));
}

TEST(NamespaceObservationError, ErrorsAreReported) {
  NamespaceFacts ns = namespace_of();
  ns.errors.push_back(error(ns.path, "acl_get_fd"));
  ns.errors.push_back(error(ns.path, "fstatfs"));
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("namespace.observation-error"));
  EXPECT_EQ(f[0].evidence["errors"].size(), 2u);
  EXPECT_THAT(f[0].message, ::testing::HasSubstr("acl_get_fd"));
}

TEST(NamespaceObservationError, NoErrors) {
  EXPECT_THAT(ids(namespace_findings(namespace_of())),
              Not(Contains("namespace.observation-error")));
}

// A live JVM of the namespace's user that maps libjvm and no backing file.
JvmProcessFacts blind_jvm(std::int32_t pid, std::uint32_t uid = kAliceUid) {
  JvmProcessFacts jvm;
  jvm.process = process(pid, ProcessFacts::Existence::alive, uid);
  jvm.maps_backing_file = false;
  return jvm;
}

TEST(NamespaceBlindJvm, LiveJvmBlindedByAWritableNamespace) {
  NamespaceFacts ns = namespace_of();
  set_inode(ns, inode(FileKind::directory, 0777, kAliceUid, 9));
  ns.invisible_jvms.push_back(blind_jvm(77));
  const Findings f_all = namespace_findings(ns);
  const Finding* f = find(f_all, "namespace.jvm-blinded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["pids"], nlohmann::json({77}));
  EXPECT_EQ(f->evidence["hotspot_rejects"], nlohmann::json({"group-other-writable"}));
  // The count in the message is the evidence's (it read 0 when the list was moved into the
  // evidence before it was counted).
  EXPECT_THAT(f->message, ::testing::StartsWith("1 live JVM runs without shared performance data"));

  ns.invisible_jvms.push_back(blind_jvm(78));
  const Findings two = namespace_findings(ns);
  const Finding* g = find(two, "namespace.jvm-blinded");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->evidence["pids"], nlohmann::json({77, 78}));
  EXPECT_THAT(g->message, ::testing::StartsWith("2 live JVMs run without shared performance data"));
}

TEST(NamespaceBlindJvm, BlindJvmInASoundNamespaceIsItsOwnChoice) {
  NamespaceFacts ns = namespace_of();
  JvmProcessFacts jvm = blind_jvm(77);
  jvm.perf_data = PerfDataOption{true, "-XX:-UsePerfData", "command line"};
  ns.invisible_jvms.push_back(jvm);
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("jvm.perf-data-disabled"));
  EXPECT_EQ(f[0].severity, Severity::info);
  EXPECT_EQ(f[0].evidence["pid"], 77);
  EXPECT_EQ(f[0].evidence["details"], nlohmann::json({"-XX:-UsePerfData", "command line"}));
}

TEST(NamespaceBlindJvm, BlindJvmWithNoCauseSeenIsUndetermined) {
  NamespaceFacts ns = namespace_of();
  ns.invisible_jvms.push_back(blind_jvm(77));
  ASSERT_THAT(ids(namespace_findings(ns)), ElementsAre("jvm.cause-undetermined"));
}

// After `repair` fixed a 0777 namespace, the JVM it blinded stays blind until it restarts
// (HotSpot judges its namespace once, at start). Before: jvm.cause-undetermined (low), "nothing
// observed now explains it". The namespace's ctime, later than the JVM's start, says why.
TEST(NamespaceBlindJvm, NamespaceChangedAfterTheJvmStartedIsTheExplanationAtTheCausesSeverity) {
  NamespaceFacts ns = namespace_of();
  InodeFacts dir = inode(FileKind::directory, 0755, kAliceUid, 9);
  dir.ctime = Timestamp{1'700'000'100, 0};  // chmod 0755 by repair, 100 s after the start
  set_inode(ns, dir);
  JvmProcessFacts jvm = blind_jvm(77);
  jvm.process.start_time_ms = 1'700'000'000'000;
  ns.invisible_jvms.push_back(jvm);
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("jvm.namespace-changed"));
  EXPECT_EQ(f[0].severity, rule_catalog().at("namespace.jvm-blinded").severity);
  EXPECT_EQ(f[0].severity, Severity::medium);
  EXPECT_EQ(f[0].evidence["reason"], "namespace-changed");
  EXPECT_EQ(f[0].evidence["namespace_ctime_ms"], 1'700'000'100'000);
  EXPECT_EQ(f[0].evidence["jvm_start_ms"], 1'700'000'000'000);
  EXPECT_NE(f[0].message.find("changed after the JVM started"), std::string::npos) << f[0].message;
}

// A namespace last changed before the JVM started (or within the start time's imprecision)
// explains nothing: still undetermined.
TEST(NamespaceBlindJvm, NamespaceUnchangedSinceTheJvmStartedStaysUndetermined) {
  for (const std::int64_t ctime_sec : {1'699'999'900LL, 1'700'000'001LL}) {
    NamespaceFacts ns = namespace_of();
    InodeFacts dir = inode(FileKind::directory, 0755, kAliceUid, 9);
    dir.ctime = Timestamp{ctime_sec, 0};
    set_inode(ns, dir);
    JvmProcessFacts jvm = blind_jvm(77);
    jvm.process.start_time_ms = 1'700'000'000'000;
    ns.invisible_jvms.push_back(jvm);
    EXPECT_THAT(ids(namespace_findings(ns)), ElementsAre("jvm.cause-undetermined")) << ctime_sec;
  }
}

// A uid with no user name in its root: HotSpot gives up before it looks at any directory, so
// the cause comes before the prediction (here a temp dir where new namespaces would fail,
// which would otherwise say create-failed). A failed read of the user database is not it.
TEST(NamespaceBlindJvm, AUidWithNoPasswdEntryIsTheCauseBeforeAnyPrediction) {
  TempRootFacts root = temp_root();
  set_inode(root, inode(FileKind::directory, 0755, 0, 100));  // not writable for uid 54321
  JvmProcessFacts jvm = blind_jvm(77, 54321);
  jvm.no_user_entry = true;
  const checks::InvisibleDiagnosis d = checks::diagnose_invisible(jvm, root, nullptr);
  EXPECT_EQ(d.cause, checks::InvisibleCause::no_passwd_entry);
  EXPECT_EQ(checks::to_string(d.cause), "no-passwd-entry");
  EXPECT_EQ(checks::audit_rule_of(d.cause), "jvm.no-passwd-entry");
  EXPECT_THAT(d.details, ElementsAre("uid 54321"));
  EXPECT_EQ(d.fix, rule_catalog().at("jvm.no-passwd-entry").remediation);
  EXPECT_EQ(checks::invisible_finding_path(jvm, root, nullptr), "/tmp");

  jvm.no_user_entry = false;  // the database could not be read: nothing is known of the uid
  EXPECT_EQ(checks::diagnose_invisible(jvm, root, nullptr).cause, checks::InvisibleCause::create_failed);
}

TEST(NamespaceBlindJvm, RootNamespaceOfAnotherOwnerDoesNotBlindRootJvms) {
  NamespaceFacts ns = namespace_of("root", 0);
  set_inode(ns, inode(FileKind::directory, 0755, kMalloryUid, 9));
  ns.invisible_jvms.push_back(blind_jvm(77, 0));
  const auto found = ids(namespace_findings(ns));
  EXPECT_THAT(found, Not(Contains("namespace.jvm-blinded")));
  EXPECT_THAT(found, Contains("namespace.root-owner-mismatch"));
  EXPECT_THAT(found, Not(Contains("namespace.owner-mismatch")));
}

// ---- volume.* ------------------------------------------------------------------------------

TEST(VolumeNetworkFilesystem, NfsNamespace) {
  NamespaceFacts ns = namespace_of();
  ns.volume = tmpfs();
  ns.volume->fs_type = "nfs4";
  ns.volume->fs_magic = 0x6969;
  ns.volume->network = true;
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("volume.network-filesystem"));
  EXPECT_EQ(f[0].evidence["fs_type"], "nfs4");
  EXPECT_EQ(f[0].evidence["fs_magic"], "0x6969");
  EXPECT_EQ(f[0].evidence["volume_of"], "namespace");
}

TEST(VolumeNetworkFilesystem, TempDirVolumeIsUsedWhenTheNamespaceHasNone) {
  TempRootFacts root = temp_root();
  root.volume->fs_type = "fuse.sshfs";
  root.volume->network = true;
  const Findings f = namespace_findings(namespace_of(), root);
  ASSERT_THAT(ids(f), ElementsAre("volume.network-filesystem"));
  EXPECT_EQ(f[0].evidence["volume_of"], "temp-dir");
}

TEST(VolumeNetworkFilesystem, LocalFileSystem) {
  NamespaceFacts ns = namespace_of();
  ns.volume = tmpfs();
  EXPECT_THAT(namespace_findings(ns), IsEmpty());
}

TEST(VolumeNoAclSupport, NoAcls) {
  NamespaceFacts ns = namespace_of();
  ns.volume = tmpfs();
  ns.volume->acl_support = false;
  const Findings f = namespace_findings(ns);
  ASSERT_THAT(ids(f), ElementsAre("volume.no-acl-support"));
  EXPECT_EQ(f[0].evidence["acl_support"], false);
}

TEST(VolumeNoAclSupport, UnknownOrSupported) {
  NamespaceFacts ns = namespace_of();
  ns.volume = tmpfs();
  ns.volume->acl_support.reset();
  EXPECT_THAT(namespace_findings(ns), IsEmpty());
  ns.volume->acl_support = true;
  EXPECT_THAT(namespace_findings(ns), IsEmpty());
}

TEST(VolumeCompressed, CompressedWindowsVolume) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  NamespaceFacts ns = namespace_of();
  ns.volume = VolumeFacts{};
  ns.volume->fs_type = "NTFS";
  ns.volume->compressed = true;
  ns.volume->acl_support = true;
  const Findings f = namespace_findings(ns, root);
  ASSERT_THAT(ids(f), ElementsAre("volume.compressed"));
  EXPECT_EQ(f[0].evidence["compressed"], true);
}

TEST(VolumeCompressed, UncompressedOrUnknown) {
  NamespaceFacts ns = namespace_of();
  ns.volume = tmpfs();
  ns.volume->compressed = false;
  EXPECT_THAT(namespace_findings(ns), IsEmpty());
}

TEST(Volume, WindowsUncAndMissingAclsAreLeftToTheWindowsRules) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  NamespaceFacts ns = namespace_of();
  ns.user->uid.reset();
  ns.volume = VolumeFacts{};
  ns.volume->fs_type = "NTFS";
  ns.volume->unc_path = true;
  ns.volume->network = true;
  ns.volume->acl_support = false;
  std::set<std::string> rules;
  for (const auto& f : namespace_findings(ns, root)) rules.insert(f.rule);
  // The Windows rules speak for these facts; the Linux analogues stay silent.
  EXPECT_THAT(rules, ::testing::ElementsAre("volume.no-persistent-acls", "volume.unc-path"));
}

}  // namespace
}  // namespace hsperfguard::test
