// Rules on namespace entries (file.*) and attach files (attach.*): a positive and a
// negative case for each, on hand-built facts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checks/checks.hpp"
#include "checks_builders.hpp"

namespace hsperfguard::test {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(FileChecks, CompliantBackingFileIsClean) {
  EXPECT_THAT(file_findings(backing_file(namespace_of())), IsEmpty());
}

// ---- file.symlink, file.not-regular -----------------------------------------------------------

TEST(FileSymlink, LinkUnderAPidName) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat = inode(FileKind::symlink, 0777, kAliceUid, 7);
  file.opened.reset();
  file.region.reset();
  const Findings f = file_findings(file, ns);
  // Only the link is judged: not its mode, size or kind as a backing file.
  ASSERT_THAT(ids(f), ElementsAre("file.symlink"));
  EXPECT_EQ(f[0].evidence["lstat"]["kind"], "symlink");
  EXPECT_EQ(f[0].path, "/tmp/hsperfdata_alice/4242");
  EXPECT_FALSE(f[0].evidence.contains("target")) << "no target was read";
}

// Where the link points, as observed, is in its evidence (a name that is not UTF-8 escaped).
TEST(FileSymlink, EvidenceHoldsTheTargetWhenItWasRead) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat = inode(FileKind::symlink, 0777, kAliceUid, 7);
  file.opened.reset();
  file.region.reset();
  file.link_target = "/etc/passwd";
  Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.symlink"));
  EXPECT_EQ(f[0].evidence["target"], "/etc/passwd");
  file.link_target = std::string("/etc/\xff");
  f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.symlink"));
  EXPECT_EQ(f[0].evidence["target"], "/etc/\\xff");
}

TEST(FileSymlink, LinkWithAForeignName) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns, "passwd");
  file.lstat = inode(FileKind::symlink, 0777, kAliceUid, 7);
  file.opened.reset();
  file.region.reset();
  EXPECT_THAT(ids(file_findings(file, ns)), ElementsAre("file.foreign-name", "file.symlink"));
}

TEST(FileSymlink, RegularFileIsNotALink) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))), Not(Contains("file.symlink")));
}

TEST(FileNotRegular, FifoInTheNamespace) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  set_inode(file, inode(FileKind::fifo, 0600, kAliceUid, 7));
  file.region.reset();
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.not-regular"));
  EXPECT_EQ(f[0].evidence["kind"], "fifo");
  EXPECT_THAT(f[0].message, HasSubstr("a FIFO"));
}

TEST(FileNotRegular, DirectoryUnderAPidName) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  set_inode(file, inode(FileKind::directory, 0700, kAliceUid, 7));
  file.region.reset();
  EXPECT_THAT(ids(file_findings(file, ns)), ElementsAre("file.not-regular"));
}

TEST(FileNotRegular, ForeignFifoIsAForeignNameNotABackingFile) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns, "pipe");
  set_inode(file, inode(FileKind::fifo, 0666, kAliceUid, 7));
  file.region.reset();
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.foreign-name"));
  EXPECT_EQ(f[0].evidence["kind"], "fifo");
}

TEST(FileNotRegular, RegularFile) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))), Not(Contains("file.not-regular")));
}

// ---- file.hard-link ----------------------------------------------------------------------------

TEST(FileHardLink, TwoLinks) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->nlink = file.opened->nlink = 2;
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.hard-link"));
  EXPECT_EQ(f[0].evidence["nlink"], 2);
  EXPECT_EQ(f[0].severity, Severity::high);
}

TEST(FileHardLink, OneLink) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))), Not(Contains("file.hard-link")));
}

// ---- file.owner-mismatch -----------------------------------------------------------------------

TEST(FileOwnerMismatch, PlantedByAnotherUser) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->uid = file.opened->uid = kMalloryUid;
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.owner-mismatch"));
  EXPECT_EQ(f[0].evidence["uid"], kMalloryUid);
  EXPECT_EQ(f[0].evidence["namespace_uid"], kAliceUid);
  EXPECT_EQ(f[0].evidence["expected_uid"], kAliceUid);
}

TEST(FileOwnerMismatch, RootOwnedFileInAUserNamespace) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->uid = file.opened->uid = 0;
  EXPECT_THAT(ids(file_findings(file, ns)), ElementsAre("file.owner-mismatch"));
}

TEST(FileOwnerMismatch, OwnedByTheNamespaceOwner) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))),
              Not(Contains("file.owner-mismatch")));
}

TEST(FileOwnerMismatch, NamespaceOwnerUnknownMeansNoVerdict) {
  NamespaceFacts ns = namespace_of();
  ns.lstat.reset();
  ns.opened.reset();
  FileFacts file = backing_file(ns);
  file.lstat->uid = file.opened->uid = kMalloryUid;
  EXPECT_THAT(ids(file_findings(file, ns)), Not(Contains("file.owner-mismatch")));
}

// ---- file.mode, file.setid, file.acl -----------------------------------------------------------

TEST(FileMode, GroupReadable) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->mode = file.opened->mode = 0640;
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.mode"));
  EXPECT_EQ(f[0].evidence["mode"], "0640");
  EXPECT_EQ(f[0].evidence["mode_numeric"], 0640);
  EXPECT_EQ(f[0].evidence["group_readable"], true);
  EXPECT_EQ(f[0].evidence["other_readable"], false);
  EXPECT_EQ(f[0].evidence["expected_mode"], "0600");
}

TEST(FileMode, OtherWriteOnly) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->mode = file.opened->mode = 0602;
  EXPECT_THAT(ids(file_findings(file, ns)), ElementsAre("file.mode"));
}

TEST(FileMode, OwnerOnlyModes) {
  const NamespaceFacts ns = namespace_of();
  for (std::uint32_t mode : {0600u, 0400u, 0700u}) {
    FileFacts file = backing_file(ns);
    file.lstat->mode = file.opened->mode = mode;
    EXPECT_THAT(file_findings(file, ns), IsEmpty()) << std::oct << mode;
  }
}

TEST(FileMode, NotJudgedOnWindowsFacts) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->mode = file.opened->mode = 0777;
  file.lstat->uid = file.opened->uid = 0;
  EXPECT_THAT(file_findings(file, ns, root), IsEmpty());
}

TEST(FileSetid, SetuidBit) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->mode = file.opened->mode = 04600;
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.setid"));
  EXPECT_EQ(f[0].evidence["setuid"], true);
  EXPECT_EQ(f[0].evidence["mode"], "4600");
}

// Each special bit is said on its own, whichever are set with it.
TEST(FileSetid, EachBitIsSaidOnItsOwn) {
  const NamespaceFacts ns = namespace_of();
  for (const unsigned mode : {04600u, 02600u, 01600u, 06600u, 07600u}) {
    FileFacts file = backing_file(ns);
    file.lstat->mode = file.opened->mode = mode;
    const Findings f = file_findings(file, ns);
    ASSERT_THAT(ids(f), ElementsAre("file.setid")) << std::oct << mode;
    EXPECT_EQ(f[0].evidence["setuid"], (mode & 04000) != 0) << std::oct << mode;
    EXPECT_EQ(f[0].evidence["setgid"], (mode & 02000) != 0) << std::oct << mode;
    EXPECT_EQ(f[0].evidence["sticky"], (mode & 01000) != 0) << std::oct << mode;
  }
}

TEST(FileSetid, NoSpecialBits) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))), Not(Contains("file.setid")));
}

TEST(FileAcl, NamedUserCanRead) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.access_acl =
      PosixAcl{{entry(AclTag::user_obj, 6), entry(AclTag::user, 4, kMalloryUid),
                entry(AclTag::group_obj, 0), entry(AclTag::mask, 4), entry(AclTag::other, 0)}};
  file.lstat->mode = file.opened->mode = 0640;  // the group bits show the mask
  const Findings f = file_findings(file, ns);
  EXPECT_THAT(ids(f), ElementsAre("file.acl", "file.mode"));
  const Finding* a = find(f, "file.acl");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->evidence["grants_beyond_owner"][0]["text"], "user:1001:r--");
  EXPECT_EQ(a->evidence["acl"][1]["effective"], "r--");
}

TEST(FileAcl, ExtendedButMaskedToNothingIsStillReported) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.access_acl =
      PosixAcl{{entry(AclTag::user_obj, 6), entry(AclTag::user, 6, kMalloryUid),
                entry(AclTag::group_obj, 0), entry(AclTag::mask, 0), entry(AclTag::other, 0)}};
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.acl"));
  EXPECT_TRUE(f[0].evidence["grants_beyond_owner"].empty());
  EXPECT_THAT(f[0].message, HasSubstr("no entry currently grants"));
}

// The owner always matches user_obj first, so a named entry for the owner's own uid grants
// nobody anything beyond the owner; an entry for another uid does.
TEST(FileAcl, ANamedEntryForTheOwnersUidGrantsNothingBeyondTheOwner) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  ASSERT_EQ(file.lstat->uid, file.opened->uid);
  const std::uint32_t owner = file.opened->uid;
  ASSERT_NE(owner, kMalloryUid);
  file.access_acl =
      PosixAcl{{entry(AclTag::user_obj, 6), entry(AclTag::user, 6, owner),
                entry(AclTag::group_obj, 0), entry(AclTag::mask, 6), entry(AclTag::other, 0)}};
  Findings f = file_findings(file, ns);
  const Finding* a = find(f, "file.acl");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->evidence["grants_beyond_owner"].empty()) << a->evidence.dump();
  EXPECT_THAT(a->message, HasSubstr("no entry currently grants"));

  file.access_acl->entries[1] = entry(AclTag::user, 6, kMalloryUid);
  f = file_findings(file, ns);
  a = find(f, "file.acl");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->evidence["grants_beyond_owner"].size(), 1U);
  EXPECT_EQ(a->evidence["grants_beyond_owner"][0]["text"], "user:1001:rw-");
}

TEST(FileAcl, MinimalAclIsJustTheMode) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.access_acl =
      PosixAcl{{entry(AclTag::user_obj, 6), entry(AclTag::group_obj, 0), entry(AclTag::other, 0)}};
  EXPECT_THAT(file_findings(file, ns), IsEmpty());
}

// ---- names: file.foreign-name, file.pid-out-of-range, file.noncanonical-pid -------------------

TEST(FileForeignName, NotAPid) {
  const NamespaceFacts ns = namespace_of();
  const Findings f = file_findings(backing_file(ns, "notes.txt"), ns);
  ASSERT_THAT(ids(f), ElementsAre("file.foreign-name"));
  EXPECT_EQ(f[0].evidence["name"], "notes.txt");
  EXPECT_EQ(f[0].evidence["pid_name"], "not-a-pid");
  EXPECT_EQ(f[0].evidence["hotspot_pid"], 0);
  EXPECT_THAT(f[0].evidence["hotspot_action"].get<std::string>(), HasSubstr("unlinked"));
}

// A foreign regular file is not judged as a backing file, however unlike one it is: exactly
// its name finding, none of the backing-file rules (mode, special bits, links, size, ACL,
// contents), whichever of them would fire on a pid name.
TEST(FileForeignName, ForeignRegularFileGetsExactlyItsNameFindingAndNoBackingFileFindings) {
  const NamespaceFacts ns = namespace_of();
  for (const char* name : {"notes.txt", "4242"}) {
    FileFacts file = backing_file(ns, name);
    InodeFacts odd = inode(FileKind::regular, 06666, kAliceUid, 300, 5);
    odd.nlink = 2;
    set_inode(file, odd);
    file.region = region_of(std::vector<std::byte>(5, std::byte{0x41}));
    PosixAcl acl;
    acl.entries = {entry(AclTag::user_obj, 6), entry(AclTag::user, 6, kMalloryUid),
                   entry(AclTag::group_obj, 0), entry(AclTag::mask, 6), entry(AclTag::other, 0)};
    file.access_acl = acl;
    const Findings f = file_findings(file, ns);
    if (std::string_view(name) == "4242") {
      // The same file under a pid name: every backing-file rule above fires.
      EXPECT_THAT(ids(f), ::testing::IsSupersetOf({"file.acl", "file.bad-prologue", "file.bad-size",
                                                   "file.hard-link", "file.mode", "file.setid"}));
    } else {
      EXPECT_THAT(ids(f), ElementsAre("file.foreign-name"));
    }
  }
}

TEST(FileForeignName, SignedAndSpacedNumbersAreForeign) {
  const NamespaceFacts ns = namespace_of();
  for (const char* name : {"+12", " 12", "12x", "-1"}) {
    EXPECT_THAT(ids(file_findings(backing_file(ns, name), ns)), ElementsAre("file.foreign-name"))
        << name;
  }
}

TEST(FileForeignName, NonUtf8NameIsEscapedAndHexEncoded) {
  const NamespaceFacts ns = namespace_of();
  const Findings f = file_findings(backing_file(ns, std::string("x\xfe")), ns);
  ASSERT_THAT(ids(f), ElementsAre("file.foreign-name"));
  EXPECT_EQ(f[0].evidence["name"], "x\\xfe");
  EXPECT_EQ(f[0].evidence["name_hex"], "78fe");
  EXPECT_EQ(f[0].path, std::string("/tmp/hsperfdata_alice/x\xfe"));
  EXPECT_NO_THROW((void)f[0].evidence.dump());
  EXPECT_NO_THROW((void)nlohmann::json(f[0].message).dump());
}

TEST(FileForeignName, DirectoryStaysBehind) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns, "cache");
  set_inode(file, inode(FileKind::directory, 0700, kAliceUid, 7));
  file.region.reset();
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.foreign-name"));
  EXPECT_THAT(f[0].evidence["hotspot_action"].get<std::string>(), HasSubstr("stays"));
}

TEST(FileForeignName, PidName) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of(), "1"))),
              Not(Contains("file.foreign-name")));
}

TEST(FilePidOutOfRange, Zero) {
  const NamespaceFacts ns = namespace_of();
  const Findings f = file_findings(backing_file(ns, "0"), ns);
  ASSERT_THAT(ids(f), ElementsAre("file.pid-out-of-range"));
  EXPECT_EQ(f[0].evidence["hotspot_pid"], 0);
  EXPECT_THAT(f[0].evidence["hotspot_action"].get<std::string>(), HasSubstr("not a pid"));
}

TEST(FilePidOutOfRange, AbovePidMax) {
  const NamespaceFacts ns = namespace_of();
  const Findings f = file_findings(backing_file(ns, "99999999"), ns);
  ASSERT_THAT(ids(f), ElementsAre("file.pid-out-of-range"));
  EXPECT_EQ(f[0].evidence["max_pid"], kDefaultMaxPid);
  EXPECT_THAT(f[0].evidence["hotspot_action"].get<std::string>(), HasSubstr("cannot exist"));
}

TEST(FilePidOutOfRange, TruncatedToAnotherPidWhereLongIs64Bits) {
  const NamespaceFacts ns = namespace_of();
  const Findings f = file_findings(backing_file(ns, "4294967297"), ns);
  ASSERT_THAT(ids(f), ElementsAre("file.pid-out-of-range"));
  if (sizeof(long) == 8) {  // LP64 (Linux): strtol succeeds, the cast to pid_t truncates
    EXPECT_EQ(f[0].evidence["hotspot_pid"], 1);
    EXPECT_THAT(f[0].evidence["hotspot_action"].get<std::string>(), HasSubstr("truncation"));
  } else {  // LLP64 (Windows): strtol overflows, the JVM treats it as no pid
    EXPECT_EQ(f[0].evidence["hotspot_pid"], 0);
    EXPECT_THAT(f[0].evidence["hotspot_action"].get<std::string>(), HasSubstr("not a pid"));
  }
}

TEST(FilePidOutOfRange, NarrowedToANegativeNumberWhereLongIs64Bits) {
  const NamespaceFacts ns = namespace_of();
  const Findings f = file_findings(backing_file(ns, "2147483648"), ns);  // 2^31
  ASSERT_THAT(ids(f), ElementsAre("file.pid-out-of-range"));
  if (sizeof(long) == 8) {
    EXPECT_EQ(f[0].evidence["hotspot_pid"], -2147483647 - 1);
    EXPECT_EQ(f[0].evidence["hotspot_action"], "narrowed to -2147483648 by 32-bit truncation");
  } else {
    EXPECT_EQ(f[0].evidence["hotspot_pid"], 0);
  }
}

TEST(FilePidOutOfRange, LargestPidIsInRange) {
  const NamespaceFacts ns = namespace_of();
  EXPECT_THAT(file_findings(backing_file(ns, std::to_string(kDefaultMaxPid)), ns), IsEmpty());
}

TEST(FileNoncanonicalPid, LeadingZeros) {
  const NamespaceFacts ns = namespace_of();
  const Findings f = file_findings(backing_file(ns, "007"), ns);
  ASSERT_THAT(ids(f), ElementsAre("file.noncanonical-pid"));
  EXPECT_EQ(f[0].evidence["pid"], 7);
  EXPECT_EQ(f[0].evidence["canonical_name"], "7");
  EXPECT_THAT(f[0].message, HasSubstr("pid 7"));
}

TEST(FileNoncanonicalPid, CanonicalName) {
  EXPECT_THAT(file_findings(backing_file(namespace_of(), "7")), IsEmpty());
}

// ---- file.bad-size -----------------------------------------------------------------------------

Findings with_size(std::uint64_t size) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->size = file.opened->size = size;
  return file_findings(file, ns);
}

TEST(FileBadSize, DefaultSizeAndOnePageAreFine) {
  EXPECT_THAT(with_size(32768), IsEmpty());
  EXPECT_THAT(with_size(4096), IsEmpty());
  EXPECT_THAT(with_size(2 * 1024 * 1024), IsEmpty());
}

TEST(FileBadSize, NotAPageMultiple) {
  const Findings f = with_size(32769);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-size"));
  EXPECT_EQ(f[0].evidence["size"], 32769);
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"not-page-multiple"}));
  EXPECT_EQ(f[0].evidence["page_size"], 4096);
}

TEST(FileBadSize, Empty) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.lstat->size = file.opened->size = 0;
  file.region = region_of({});  // nothing to read: the prologue check stays quiet
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-size"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"empty"}));
}

TEST(FileBadSize, LargerThanAnyJvmWrites) {
  const Findings f = with_size(4 * 1024 * 1024);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-size"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"too-large"}));
  EXPECT_EQ(f[0].evidence["max_size"], 2 * 1024 * 1024);
}

TEST(FileBadSize, TooLargeAndNotAPageMultiple) {
  const Findings f = with_size(4 * 1024 * 1024 + 1);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-size"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"not-page-multiple", "too-large"}));
}

// ---- file.bad-prologue -------------------------------------------------------------------------

// The first entry (sun.rt.createVmBeginTime) starts right after the prologue.
std::vector<std::byte> valid_bytes() { return perfdata::build_region(region_spec()).bytes; }

TEST(FileBadPrologue, BadMagicAtOffsetZero) {
  auto bytes = valid_bytes();
  bytes[0] = std::byte{0};
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.region = region_of(bytes);
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-prologue"));
  EXPECT_EQ(f[0].evidence["offset"], 0);
  EXPECT_THAT(f[0].evidence["reason"].get<std::string>(), HasSubstr("magic"));
  EXPECT_TRUE(f[0].evidence["prologue"].is_null());
}

TEST(FileBadPrologue, CorruptEntryCarriesItsOffset) {
  auto bytes = valid_bytes();
  bytes[perfdata::kPrologueSize + 14] = std::byte{9};  // data_units of the first entry
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.region = region_of(bytes);
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-prologue"));
  EXPECT_EQ(f[0].evidence["offset"], perfdata::kPrologueSize + 14);
  EXPECT_THAT(f[0].evidence["reason"].get<std::string>(), HasSubstr("data_units 9"));
  // The prologue in the one shape the report and inspect give it.
  EXPECT_EQ(f[0].evidence["prologue"]["magic"], 0xcafec0c0u);
  EXPECT_EQ(f[0].evidence["prologue"]["major_version"], 2);
  EXPECT_EQ(f[0].evidence["prologue"]["minor_version"], 0);
  EXPECT_EQ(f[0].evidence["entries_decoded"], 0);
  EXPECT_THAT(f[0].message, HasSubstr("at offset 46"));
}

// A region marked not yet accessible may be one a JVM is still writing: the message says so.
TEST(FileBadPrologue, NotYetAccessibleRegionSaysAJvmMayBeInitialisingIt) {
  auto bytes = valid_bytes();
  bytes[perfdata::kPrologueSize + 14] = std::byte{9};
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.region = region_of(bytes);
  EXPECT_THAT(file_findings(file, ns)[0].message, Not(HasSubstr("not yet accessible")));
  bytes[7] = std::byte{0};  // the prologue's accessible byte
  file.region = region_of(bytes);
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-prologue"));
  EXPECT_EQ(f[0].evidence["prologue"]["accessible"], 0);
  EXPECT_THAT(f[0].message,
              HasSubstr("marked not yet accessible: a JVM may still be initialising it"));
}

TEST(FileBadPrologue, UsedBeyondTheRegion) {
  auto bytes = valid_bytes();
  bytes.resize(64);  // only a prefix: `used` now points past it
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.region = region_of(bytes);
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.bad-prologue"));
  EXPECT_EQ(f[0].evidence["offset"], 8);
}

TEST(FileBadPrologue, ValidRegion) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))), Not(Contains("file.bad-prologue")));
}

TEST(FileBadPrologue, NotReadIsNotJudged) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.region.reset();
  EXPECT_THAT(file_findings(file, ns), IsEmpty());
}

// ---- file.mount-boundary, file.identity-changed, file.observation-error ---------------------

TEST(FileMountBoundary, MountedOnTheEntry) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.crosses_mount = true;
  file.lstat->dev = file.opened->dev = 0x99;
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.mount-boundary"));
  EXPECT_EQ(f[0].evidence["dev"], 0x99);
  EXPECT_EQ(f[0].evidence["namespace_dev"], 0x2a);
}

TEST(FileMountBoundary, SameFileSystem) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))),
              Not(Contains("file.mount-boundary")));
}

TEST(FileIdentityChanged, ReplacedBetweenLstatAndOpen) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.opened->ino = 999;
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.identity-changed"));
  EXPECT_EQ(f[0].evidence["lstat"]["ino"], 300);
  EXPECT_EQ(f[0].evidence["fstat"]["ino"], 999);
}

TEST(FileIdentityChanged, SameInode) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))),
              Not(Contains("file.identity-changed")));
}

TEST(FileObservationError, UnreadableEntry) {
  const NamespaceFacts ns = namespace_of();
  FileFacts file = backing_file(ns);
  file.opened.reset();
  file.lstat.reset();
  file.region.reset();
  file.errors.push_back(error(file.path, "fstatat"));
  const Findings f = file_findings(file, ns);
  ASSERT_THAT(ids(f), ElementsAre("file.observation-error"));
  EXPECT_EQ(f[0].evidence["errors"][0]["op"], "fstatat");
}

TEST(FileObservationError, NoErrors) {
  EXPECT_THAT(ids(file_findings(backing_file(namespace_of()))),
              Not(Contains("file.observation-error")));
}

// ---- attach.socket-unsafe, attach.stale, attach.no-listener, attach.observation-error ------

Findings attach_findings(const AttachFacts& attach, const TempRootFacts& root = temp_root()) {
  return apply_policy_to_findings(checks::check_attach(root, attach), default_policy());
}

TEST(AttachSocketUnsafe, JvmListenerIsFine) { EXPECT_THAT(attach_findings(listener()), IsEmpty()); }

TEST(AttachSocketUnsafe, WorldWritableSocket) {
  AttachFacts a = listener();
  a.lstat->mode = 0666;
  const Findings f = attach_findings(a);
  ASSERT_THAT(ids(f), ElementsAre("attach.socket-unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"mode"}));
  EXPECT_EQ(f[0].evidence["mode"], "0666");
  EXPECT_EQ(f[0].evidence["pid"], 4242);
}

TEST(AttachSocketUnsafe, NotASocket) {
  AttachFacts a = listener();
  a.lstat->kind = FileKind::regular;
  const Findings f = attach_findings(a);
  ASSERT_THAT(ids(f), ElementsAre("attach.socket-unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"not-socket"}));
}

TEST(AttachSocketUnsafe, OwnedBySomeoneElseThanTheProcess) {
  AttachFacts a = listener(4242, kMalloryUid);
  a.liveness->candidates[0].real_uid = kAliceUid;
  const Findings f = attach_findings(a);
  ASSERT_THAT(ids(f), ElementsAre("attach.socket-unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"owner"}));
  EXPECT_EQ(f[0].evidence["expected_uid"], kAliceUid);
  EXPECT_EQ(f[0].evidence["expected_uid_source"], "process");
}

TEST(AttachSocketUnsafe, OwnerFromTheNamespaceWhenTheProcessIsUnreadable) {
  TempRootFacts root = compliant_world();  // alice's namespace holds backing file 4242
  AttachFacts a = listener(4242, kMalloryUid);
  a.liveness->candidates[0].real_uid.reset();
  const Findings f = attach_findings(a, root);
  ASSERT_THAT(ids(f), ElementsAre("attach.socket-unsafe"));
  EXPECT_EQ(f[0].evidence["expected_uid_source"], "namespace");
  EXPECT_EQ(f[0].evidence["expected_uid"], kAliceUid);
}

TEST(AttachSocketUnsafe, UnknownOwnerIsShownAsNullBesideTheOtherReasons) {
  AttachFacts a = listener(4242, kMalloryUid);
  a.liveness.reset();
  a.lstat->mode = 0666;
  const Findings f = attach_findings(a);
  ASSERT_THAT(ids(f), ElementsAre("attach.socket-unsafe"));
  EXPECT_EQ(f[0].evidence["reasons"], nlohmann::json({"mode"}));
  EXPECT_TRUE(f[0].evidence["expected_uid"].is_null());
  EXPECT_FALSE(f[0].evidence.contains("expected_uid_source"));
}

TEST(AttachSocketUnsafe, UnknownOwnerIsNotGuessed) {
  AttachFacts a = listener(4242, kMalloryUid);
  a.liveness.reset();
  EXPECT_THAT(attach_findings(a), IsEmpty());
}

TEST(AttachSocketUnsafe, TriggerFilesAreNotListeners) {
  AttachFacts a = trigger_file();
  a.lstat->mode = 0644;
  EXPECT_THAT(attach_findings(a), IsEmpty());
}

TEST(AttachStale, ProcessGone) {
  AttachFacts a = listener();
  a.liveness->candidates[0].existence = ProcessFacts::Existence::gone;
  const Findings f = attach_findings(a);
  ASSERT_THAT(ids(f), ElementsAre("attach.stale"));
  EXPECT_EQ(f[0].evidence["existence"], "gone");
  EXPECT_EQ(f[0].evidence["kind"], "listener-socket");
  EXPECT_EQ(f[0].evidence["pid"], 4242);
}

TEST(AttachStale, TriggerFileOfAGoneProcess) {
  AttachFacts a = trigger_file();
  a.liveness->candidates[0].existence = ProcessFacts::Existence::gone;
  const Findings f = attach_findings(a);
  ASSERT_THAT(ids(f), ElementsAre("attach.stale"));
  EXPECT_EQ(f[0].evidence["kind"], "trigger-file");
}

TEST(AttachStale, UnknownIsNotStale) {
  for (auto existence : {ProcessFacts::Existence::alive, ProcessFacts::Existence::no_permission,
                         ProcessFacts::Existence::unknown}) {
    AttachFacts a = listener();
    a.liveness->candidates[0].existence = existence;
    EXPECT_THAT(attach_findings(a), IsEmpty());
  }
  AttachFacts a = listener();
  a.liveness.reset();
  EXPECT_THAT(attach_findings(a), IsEmpty());
}

// A socket whose pid lives without listening on it: a killed JVM's, its pid given to another
// process. Only a reading that says "not listening" makes it; unread or listening keeps quiet.
AttachFacts orphan_socket(std::optional<bool> listens, std::optional<bool> jvm) {
  AttachFacts a = listener();
  a.liveness->candidates[0].maps_libjvm = jvm;
  a.liveness->listeners.push_back(listening(4242, listens));
  return a;
}

TEST(AttachNoListener, AliveProcessThatDoesNotListenOnIt) {
  const Findings f = attach_findings(orphan_socket(false, false));
  ASSERT_THAT(ids(f), ElementsAre("attach.no-listener"));
  EXPECT_EQ(f[0].evidence["existence"], "alive");
  EXPECT_EQ(f[0].evidence["listening"], false);
  EXPECT_EQ(f[0].evidence["jvm"], false);
  EXPECT_EQ(f[0].evidence["pid"], 4242);
  EXPECT_EQ(f[0].evidence["checked_pids"], nlohmann::json({4242}));
  EXPECT_NE(f[0].message.find("(not a JVM): attach tools get \"Connection refused\""),
            std::string::npos)
      << f[0].message;
  EXPECT_NE(attach_findings(orphan_socket(false, true))[0].message.find("a JVM without an attach listener"),
            std::string::npos);
  EXPECT_TRUE(attach_findings(orphan_socket(false, std::nullopt))[0].evidence["jvm"].is_null());
}

TEST(AttachNoListener, ListeningUnreadOrAnIncompleteSearchIsNotReported) {
  EXPECT_THAT(attach_findings(orphan_socket(true, true)), IsEmpty());
  EXPECT_THAT(attach_findings(orphan_socket(std::nullopt, true)), IsEmpty());
  EXPECT_THAT(attach_findings(listener()), IsEmpty());  // listeners not read: as before
  AttachFacts incomplete = orphan_socket(false, false);
  incomplete.liveness->candidates_complete = false;
  EXPECT_THAT(attach_findings(incomplete), IsEmpty());
  // Another candidate (a container's process with that pid) that may not be inspected.
  AttachFacts doubt = orphan_socket(false, false);
  doubt.liveness->candidates.push_back(process(9000, ProcessFacts::Existence::no_permission));
  EXPECT_THAT(attach_findings(doubt), IsEmpty());
  // A second live candidate whose listening state was not read.
  AttachFacts second = orphan_socket(false, false);
  second.liveness->candidates.push_back(process(9001, ProcessFacts::Existence::alive));
  EXPECT_THAT(attach_findings(second), IsEmpty());
  AttachFacts not_socket = orphan_socket(false, false);
  not_socket.lstat->kind = FileKind::regular;
  EXPECT_THAT(ids(attach_findings(not_socket)), ElementsAre("attach.socket-unsafe"));
}

TEST(AttachObservationError, Reported) {
  AttachFacts a = listener();
  a.lstat.reset();
  a.errors.push_back(error(a.path, "fstatat"));
  EXPECT_THAT(ids(attach_findings(a)), ElementsAre("attach.observation-error"));
}

TEST(AttachObservationError, NoErrors) {
  EXPECT_THAT(ids(attach_findings(listener())), Not(Contains("attach.observation-error")));
}

TEST(Attach, NotJudgedOnWindowsFacts) {
  TempRootFacts root = temp_root();
  root.platform = Platform::windows;
  AttachFacts a = listener();
  a.lstat->mode = 0777;
  a.liveness->candidates[0].existence = ProcessFacts::Existence::gone;
  EXPECT_THAT(attach_findings(a, root), IsEmpty());
}

}  // namespace
}  // namespace hsperfguard::test
