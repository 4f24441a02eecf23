// dacl.* and the Windows namespace rules on hand-built descriptors: pure, runs everywhere.
#include "checks/dacl_access.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "model/compliant_descriptor.hpp"
#include "model/rule_catalog.hpp"
#include "rule_selections.hpp"

namespace hsperfguard::checks {
namespace {

using namespace rights;

const std::string kUser = "S-1-5-21-1111-2222-3333-1001";
const std::string kMallory = "S-1-5-21-1111-2222-3333-1666";
const std::string kEveryone(sids::kEveryone);
const std::string kAdmins(sids::kAdministrators);
const std::string kSystem(sids::kSystem);
const std::string kUsers(sids::kUsers);
const std::string kAuthUsers(sids::kAuthenticatedUsers);

constexpr std::uint16_t kProtected = control::kDaclPresent | control::kDaclProtected;

Ace allow(std::uint32_t mask, std::string sid, std::uint8_t flags = 0) {
  return {AceType::access_allowed, flags, mask, std::move(sid)};
}
Ace deny(std::uint32_t mask, std::string sid, std::uint8_t flags = 0) {
  return {AceType::access_denied, flags, mask, std::move(sid)};
}

SecurityDescriptor descriptor(std::vector<Ace> aces, std::optional<std::string> owner = kUser,
                              std::uint16_t control = kProtected) {
  SecurityDescriptor sd;
  sd.owner_sid = std::move(owner);
  sd.control = control;
  sd.dacl_present = true;
  sd.dacl = std::move(aces);
  return sd;
}

SecurityDescriptor null_dacl(std::optional<std::string> owner = kUser) {
  SecurityDescriptor sd;
  sd.owner_sid = std::move(owner);
  sd.control = 0;
  sd.dacl_present = false;
  return sd;
}

// The user's full control plus Administrators' and SYSTEM's, then `extra`: the shape of a
// well-made descriptor, with one thing added.
SecurityDescriptor good_plus(std::vector<Ace> extra, std::optional<std::string> owner = kUser) {
  std::vector<Ace> aces = {allow(kFileAllAccess, kUser), allow(kFileAllAccess, kAdmins),
                           allow(kFileAllAccess, kSystem)};
  aces.insert(aces.end(), extra.begin(), extra.end());
  return descriptor(std::move(aces), std::move(owner));
}

std::set<std::string> ids(const Findings& findings) {
  std::set<std::string> out;
  for (const auto& f : findings) out.insert(f.rule);
  return out;
}

std::set<std::string> judge(const SecurityDescriptor& sd, SecuredObject object = SecuredObject::directory,
                            std::optional<std::string> user = kUser) {
  return ids(check_security_descriptor(sd, object, "C:\\Temp\\hsperfdata_alice", user));
}

using Ids = std::set<std::string>;

// ---- generic mapping and HotSpot's masks ---------------------------------------------------

TEST(DaclMapping, GenericRightsMapToFileRights) {
  EXPECT_EQ(map_generic(kGenericRead, kFileGenericMapping), 0x00120089u);
  EXPECT_EQ(map_generic(kGenericWrite, kFileGenericMapping), 0x00120116u);
  EXPECT_EQ(map_generic(kGenericExecute, kFileGenericMapping), 0x001200A0u);
  EXPECT_EQ(map_generic(kGenericAll, kFileGenericMapping), 0x001F01FFu);
  EXPECT_EQ(map_generic(kGenericRead | kDelete, kFileGenericMapping), 0x00130089u);
  EXPECT_EQ(map_generic(kGenericAll, kSectionGenericMapping), 0x000F001Fu);
}

TEST(DaclMapping, HotSpotMasksArePolicyTableValues) {
  const auto dir = hotspot_masks(SecuredObject::directory);
  EXPECT_EQ(dir.owner, 0x001F01FFu);
  EXPECT_EQ(dir.administrators, 0x001F01FFu);
  EXPECT_EQ(dir.everyone, 0x80000021u);  // GENERIC_READ | FILE_LIST_DIRECTORY | FILE_TRAVERSE
  const auto file = hotspot_masks(SecuredObject::file);
  EXPECT_EQ(file.owner, 0x001F01FFu);
  EXPECT_EQ(file.everyone, 0x000200A9u);
  const auto mapping = hotspot_masks(SecuredObject::mapping);
  EXPECT_EQ(mapping.owner, 0x000F001Fu);
  EXPECT_EQ(mapping.administrators, 0x001F001Fu);
  EXPECT_EQ(mapping.everyone, 0x00020000u);
}

TEST(DaclMapping, DescribesBitsByObjectKind) {
  EXPECT_EQ(describe_rights(kReadData | kWriteDac, SecuredObject::directory),
            (std::vector<std::string>{"FILE_LIST_DIRECTORY", "WRITE_DAC"}));
  EXPECT_EQ(describe_rights(kReadData, SecuredObject::file), (std::vector<std::string>{"FILE_READ_DATA"}));
  EXPECT_EQ(describe_rights(kSectionMapRead, SecuredObject::mapping),
            (std::vector<std::string>{"SECTION_MAP_READ"}));
  EXPECT_EQ(describe_rights(0x00400000, SecuredObject::file), (std::vector<std::string>{"0x00400000"}));
}

// ---- the evaluator -------------------------------------------------------------------------

TEST(EffectiveRights, HotSpotDirectory) {
  const auto sd = hotspot_descriptor(SecuredObject::directory, kUser);
  EXPECT_EQ(effective_rights(sd, typical_principal(kEveryone)), 0x001200A9u);
  EXPECT_EQ(effective_rights(sd, kUser), kFileAllAccess);
  EXPECT_EQ(effective_rights(sd, kAdmins), kFileAllAccess);
  // Any other account gets exactly what Everyone gets.
  EXPECT_EQ(effective_rights(sd, kMallory), 0x001200A9u);
}

TEST(EffectiveRights, NullDaclGrantsEverything) {
  EXPECT_EQ(effective_rights(null_dacl(), kMallory), kFileAllAccess);
  EXPECT_EQ(effective_rights(null_dacl(), kMallory, kSectionGenericMapping), kSectionAllAccess);
}

TEST(EffectiveRights, EmptyDaclGrantsNothingButTheOwnersImplicitRights) {
  const auto sd = descriptor({});
  EXPECT_EQ(effective_rights(sd, kMallory), 0u);
  EXPECT_EQ(effective_rights(sd, typical_principal(kEveryone)), 0u);
  EXPECT_EQ(effective_rights(sd, kUser), kReadControl | kWriteDac);
}

TEST(EffectiveRights, OwnerRightsAceReplacesTheImplicitGrant) {
  const auto sd = descriptor({allow(kReadControl, std::string(sids::kOwnerRights))});
  EXPECT_EQ(effective_rights(sd, kUser), kReadControl);  // no implicit WRITE_DAC any more
  EXPECT_EQ(effective_rights(sd, kMallory), 0u);
}

TEST(EffectiveRights, DenyBeforeAllowRemovesTheBits) {
  const auto sd = descriptor({deny(kWriteData | kDelete, kEveryone), allow(kFileAllAccess, kEveryone)});
  EXPECT_EQ(effective_rights(sd, kMallory), kFileAllAccess & ~(kWriteData | kDelete));
}

TEST(EffectiveRights, DenyAfterAllowIsTooLate) {
  const auto sd = descriptor({allow(kFileAllAccess, kEveryone), deny(kFileAllAccess, kEveryone)});
  EXPECT_EQ(effective_rights(sd, kMallory), kFileAllAccess);
}

TEST(EffectiveRights, PartialDenyThenAllowThenDeny) {
  // Bit by bit: the first ACE that mentions a bit decides it.
  const auto sd = descriptor({deny(kWriteData, kEveryone), allow(kWriteData | kAppendData, kEveryone),
                              deny(kAppendData | kDelete, kEveryone), allow(kDelete, kEveryone)});
  EXPECT_EQ(effective_rights(sd, kMallory), kAppendData);
}

TEST(EffectiveRights, InheritOnlyAcesAreIgnored) {
  const auto sd = descriptor({allow(kGenericAll, kEveryone,
                                    ace_flags::kInheritOnly | ace_flags::kObjectInherit | ace_flags::kContainerInherit),
                              deny(kFileAllAccess, kUser, ace_flags::kInheritOnly)});
  EXPECT_EQ(effective_rights(sd, kMallory), 0u);
  EXPECT_EQ(effective_rights(sd, kUser), kReadControl | kWriteDac);
}

TEST(EffectiveRights, InheritedAcesCount) {
  const auto sd = descriptor({allow(kGenericRead, kEveryone, ace_flags::kInherited)});
  EXPECT_EQ(effective_rights(sd, kMallory), kFileGenericRead);
}

TEST(EffectiveRights, BroadGroupsReachOrdinaryAccountsButNotEveryone) {
  const auto sd = descriptor({allow(kGenericWrite, kAuthUsers)});
  EXPECT_EQ(effective_rights(sd, kMallory), kFileGenericWrite);
  EXPECT_EQ(effective_rights(sd, typical_principal(kEveryone)), 0u);
  // An exact token without the group: nothing.
  EXPECT_EQ(effective_rights(sd, Principal{kMallory, {}}), 0u);
}

TEST(EffectiveRights, DenyToEveryoneAppliesToEveryAccount) {
  const auto sd = descriptor({deny(kDelete, kEveryone), allow(kFileAllAccess, kMallory)});
  EXPECT_EQ(effective_rights(sd, kMallory), kFileAllAccess & ~kDelete);
}

TEST(EffectiveRights, OtherAceTypesAreIgnored) {
  auto sd = descriptor({allow(kFileAllAccess, kEveryone)});
  sd.dacl[0].type = AceType::other;
  EXPECT_EQ(effective_rights(sd, kMallory), 0u);
}

TEST(EffectiveRights, CreatorOwnerMatchesNobodyAtAccessTime) {
  const auto sd = descriptor({allow(kFileAllAccess, std::string(sids::kCreatorOwner))});
  EXPECT_EQ(effective_rights(sd, kMallory), 0u);
  EXPECT_EQ(effective_rights(sd, kUser), kReadControl | kWriteDac);
}

TEST(EffectiveRights, SystemSecurityIsNeverGrantedByADacl) {
  const auto sd = descriptor({allow(kAccessSystemSecurity | kMaximumAllowed | kReadData, kEveryone)});
  EXPECT_EQ(effective_rights(sd, kMallory), kReadData);
}

// ---- HotSpot's own descriptors, judged as docs/POLICY.md says ----------------------------------

TEST(DaclRules, HotSpotDirectoryIsClean) {
  EXPECT_EQ(judge(hotspot_descriptor(SecuredObject::directory, kUser)), Ids{});
}

TEST(DaclRules, HotSpotFileLetsEveryoneReadTheData) {
  const auto sd = hotspot_descriptor(SecuredObject::file, kUser);
  EXPECT_EQ(judge(sd, SecuredObject::file), Ids{"dacl.file-data-readable"});
  // It is FILE_LIST_DIRECTORY (= FILE_READ_DATA) in HotSpot's mask that does it.
  EXPECT_NE(effective_rights(sd, typical_principal(kEveryone)) & kReadData, 0u);
}

TEST(DaclRules, HotSpotMappingIsClean) {
  EXPECT_EQ(judge(hotspot_descriptor(SecuredObject::mapping, kUser), SecuredObject::mapping), Ids{});
}

TEST(DaclRules, HotSpotDescriptorOwnedByAdministratorsIsClean) {
  // An elevated administrator's JVM: the token's default owner is Administrators.
  auto sd = hotspot_descriptor(SecuredObject::directory, kUser);
  sd.owner_sid = kAdmins;
  EXPECT_EQ(judge(sd), Ids{});
}

// ---- one rule at a time --------------------------------------------------------------------

TEST(DaclRules, NullDacl) {
  EXPECT_EQ(judge(null_dacl()), Ids{"dacl.null"});
  EXPECT_EQ(judge(null_dacl(), SecuredObject::file), Ids{"dacl.null"});
  EXPECT_EQ(judge(null_dacl(kMallory)), (Ids{"dacl.null", "dacl.owner"}));
}

TEST(DaclRules, EmptyDaclIsNotTooBroad) {
  // No access for anyone but the owner's implicit rights: nothing is too broad, but
  // Administrators are locked out.
  EXPECT_EQ(judge(descriptor({})), Ids{"dacl.admins-missing"});
}

TEST(DaclRules, OwnerIsAnotherUser) {
  EXPECT_EQ(judge(good_plus({}, kMallory)), Ids{"dacl.owner"});
  EXPECT_EQ(judge(good_plus({}, kAdmins)), Ids{});
  EXPECT_EQ(judge(good_plus({}, kUser)), Ids{});
}

TEST(DaclRules, OwnerMissing) { EXPECT_EQ(judge(good_plus({}, std::nullopt)), Ids{"dacl.owner"}); }

TEST(DaclRules, OwnerWhenTheUserIsUnknown) {
  // Only an owner that cannot be one user is reported.
  EXPECT_EQ(judge(good_plus({}, kMallory), SecuredObject::directory, std::nullopt), Ids{});
  EXPECT_EQ(judge(good_plus({}, kAuthUsers), SecuredObject::directory, std::nullopt),
            (Ids{"dacl.owner", "dacl.extra-writer"}));
}

TEST(DaclRules, BroadGroupOwnerHoldsWriteDacImplicitly) {
  const auto findings = check_security_descriptor(good_plus({}, kUsers), SecuredObject::directory, "ns", kUser);
  EXPECT_EQ(ids(findings), (Ids{"dacl.owner", "dacl.extra-writer"}));
}

TEST(DaclRules, NotProtected) {
  auto sd = hotspot_descriptor(SecuredObject::directory, kUser);
  sd.control = control::kDaclPresent | control::kDaclAutoInherited;
  EXPECT_EQ(judge(sd), Ids{"dacl.not-protected"});
  sd.dacl.push_back(allow(kFileAllAccess, kSystem, ace_flags::kInherited));
  const auto findings = check_security_descriptor(sd, SecuredObject::directory, "ns", kUser);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].evidence["inherited_aces"], 1);
}

TEST(DaclRules, InheritedWriterFromTheParent) {
  auto sd = hotspot_descriptor(SecuredObject::directory, kUser);
  sd.control = control::kDaclPresent;
  sd.dacl.push_back(allow(kGenericAll, kUsers, ace_flags::kInherited));
  EXPECT_EQ(judge(sd), (Ids{"dacl.not-protected", "dacl.extra-writer"}));
}

TEST(DaclRules, EveryoneFullControl) {
  const auto sd = good_plus({allow(kFileAllAccess, kEveryone)});
  EXPECT_EQ(judge(sd), (Ids{"dacl.everyone-too-broad", "dacl.extra-writer"}));
  EXPECT_EQ(judge(sd, SecuredObject::file),
            (Ids{"dacl.everyone-too-broad", "dacl.extra-writer", "dacl.file-data-readable"}));
}

TEST(DaclRules, EveryoneGenericAll) {
  EXPECT_EQ(judge(good_plus({allow(kGenericAll, kEveryone)})), (Ids{"dacl.everyone-too-broad", "dacl.extra-writer"}));
}

TEST(DaclRules, EveryoneReadIsWithinHotSpotsGrant) {
  // GENERIC_READ is within HotSpot's directory grant; on a file it maps to FILE_READ_DATA
  // (in HotSpot's mask too) and SYNCHRONIZE (harmless): only the data is exposed.
  const auto sd = good_plus({allow(kGenericRead, kEveryone)});
  EXPECT_EQ(judge(sd), Ids{});
  EXPECT_EQ(judge(sd, SecuredObject::file), Ids{"dacl.file-data-readable"});
}

TEST(DaclRules, EveryoneWriteAttributesIsTooBroadButNoWriter) {
  const auto findings = check_security_descriptor(good_plus({allow(kWriteAttributes | kWriteEa, kEveryone)}),
                                                  SecuredObject::directory, "ns", kUser);
  ASSERT_EQ(ids(findings), Ids{"dacl.everyone-too-broad"});
  EXPECT_EQ(findings[0].evidence["excess"]["rights"],
            nlohmann::json::array({"FILE_WRITE_EA", "FILE_WRITE_ATTRIBUTES"}));
}

TEST(DaclRules, EveryoneDeleteOnly) {
  EXPECT_EQ(judge(good_plus({allow(kDelete, kEveryone)})), (Ids{"dacl.everyone-too-broad", "dacl.extra-writer"}));
}

TEST(DaclRules, UsersModify) {
  const std::uint32_t modify = kFileGenericRead | kFileGenericWrite | kFileGenericExecute | kDelete;
  EXPECT_EQ(judge(good_plus({allow(modify, kUsers)})), Ids{"dacl.extra-writer"});
}

TEST(DaclRules, AuthenticatedUsersWrite) {
  const auto findings =
      check_security_descriptor(good_plus({allow(kGenericWrite, kAuthUsers)}), SecuredObject::directory, "ns", kUser);
  ASSERT_EQ(ids(findings), Ids{"dacl.extra-writer"});
  const auto& writers = findings[0].evidence["writers"];
  ASSERT_EQ(writers.size(), 1u);
  EXPECT_EQ(writers[0]["sid"], kAuthUsers);
}

TEST(DaclRules, WriteDacToUsers) {
  EXPECT_EQ(judge(good_plus({allow(kWriteDac, kUsers)})), Ids{"dacl.extra-writer"});
}

TEST(DaclRules, WriteOwnerToAnotherUser) {
  EXPECT_EQ(judge(good_plus({allow(kWriteOwner, kMallory)})), Ids{"dacl.extra-writer"});
}

TEST(DaclRules, DeleteChildToAnotherUser) {
  EXPECT_EQ(judge(good_plus({allow(kDeleteChild, kMallory)})), Ids{"dacl.extra-writer"});
}

TEST(DaclRules, ReadOnlyGrantsAreNoWriters) {
  EXPECT_EQ(judge(good_plus({allow(kFileGenericRead | kFileGenericExecute, kMallory)})), Ids{});
  // Write attributes and extended attributes are not write-class.
  EXPECT_EQ(judge(good_plus({allow(kWriteAttributes | kWriteEa, kMallory)})), Ids{});
}

TEST(DaclRules, TrustedWritersAreNotReported) {
  EXPECT_EQ(judge(descriptor({allow(kGenericAll, kUser), allow(kGenericAll, kAdmins), allow(kGenericAll, kSystem)})),
            Ids{});
}

TEST(DaclRules, DenyAfterAllowStillWritable) {
  const auto sd = good_plus({allow(kFileAllAccess, kUsers), deny(kFileAllAccess, kUsers)});
  EXPECT_EQ(judge(sd), Ids{"dacl.extra-writer"});
}

TEST(DaclRules, AllowAfterDenyIsHarmless) {
  const auto sd = good_plus({deny(write_class_rights(SecuredObject::directory), kUsers), allow(kFileAllAccess, kUsers)});
  EXPECT_EQ(judge(sd), Ids{});
}

TEST(DaclRules, DenyToEveryoneBeforeAllowToMallory) {
  const auto sd =
      descriptor({deny(write_class_rights(SecuredObject::directory), kEveryone), allow(kFileAllAccess, kUser),
                  allow(kFileAllAccess, kAdmins), allow(kFileAllAccess, kMallory)});
  // Everyone's deny reaches Mallory, the user and Administrators alike.
  EXPECT_EQ(judge(sd), Ids{"dacl.admins-missing"});
}

TEST(DaclRules, InheritOnlyWriterIsIgnored) {
  const auto sd = good_plus({allow(kGenericAll, kEveryone, ace_flags::kInheritOnly | ace_flags::kObjectInherit)});
  EXPECT_EQ(judge(sd), Ids{});
}

TEST(DaclRules, CreatorOwnerAceIsNoWriter) {
  const auto sd = good_plus({allow(kGenericAll, std::string(sids::kCreatorOwner),
                                   ace_flags::kInheritOnly | ace_flags::kObjectInherit | ace_flags::kContainerInherit),
                             allow(kGenericAll, std::string(sids::kCreatorOwner))});
  EXPECT_EQ(judge(sd), Ids{});
}

TEST(DaclRules, AdminsMissing) {
  EXPECT_EQ(judge(descriptor({allow(kFileAllAccess, kUser)})), Ids{"dacl.admins-missing"});
  EXPECT_EQ(judge(descriptor({allow(kFileAllAccess, kUser), allow(kGenericRead, kAdmins)})), Ids{"dacl.admins-missing"});
  EXPECT_EQ(judge(descriptor({allow(kFileAllAccess, kUser), deny(kDelete, kAdmins), allow(kGenericAll, kAdmins)})),
            Ids{"dacl.admins-missing"});
  EXPECT_EQ(judge(descriptor({allow(kFileAllAccess, kUser), allow(kGenericAll, kAdmins)})), Ids{});
}

TEST(DaclRules, FileDataReadableThroughABroadGroup) {
  const auto sd = good_plus({allow(kFileGenericRead, kAuthUsers)});
  EXPECT_EQ(judge(sd, SecuredObject::file), Ids{"dacl.file-data-readable"});
  EXPECT_EQ(judge(sd, SecuredObject::directory), Ids{});  // listing a directory is expected
}

TEST(DaclRules, FileReadableOnlyByOneOtherUserIsNotEveryone) {
  EXPECT_EQ(judge(good_plus({allow(kFileGenericRead, kMallory)}), SecuredObject::file), Ids{});
}

TEST(DaclRules, FileWithHotSpotMaskMinusReadDataIsClean) {
  auto sd = hotspot_descriptor(SecuredObject::file, kUser);
  sd.dacl[2].mask &= ~kReadData;
  EXPECT_EQ(judge(sd, SecuredObject::file), Ids{});
}

TEST(DaclRules, MappingReadableByEveryone) {
  auto sd = hotspot_descriptor(SecuredObject::mapping, kUser);
  sd.dacl[2].mask = kGenericRead;
  EXPECT_EQ(judge(sd, SecuredObject::mapping), (Ids{"dacl.everyone-too-broad", "dacl.file-data-readable"}));
}

TEST(DaclRules, FindingsCarryTheDescriptorAndCatalogueSeverity) {
  const auto findings = check_security_descriptor(null_dacl(), SecuredObject::directory, "C:\\x", kUser);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].path, "C:\\x");
  EXPECT_EQ(findings[0].severity, Severity::critical);
  EXPECT_FALSE(findings[0].remediation.empty());
  EXPECT_EQ(findings[0].evidence["descriptor"]["dacl_present"], false);
  EXPECT_EQ(findings[0].evidence["object"], "directory");
}

// Every ACE is shown as it is, whatever its type: one the rules do not weigh (an audit or
// object ACE) is listed as "other", never dropped from the evidence.
TEST(DaclRules, EvidenceListsEveryAceWithItsType) {
  auto sd = good_plus({deny(kDelete, kEveryone), allow(kFileAllAccess, kEveryone)}, kMallory);
  sd.dacl.back().type = AceType::other;
  const auto findings = check_security_descriptor(sd, SecuredObject::directory, "C:\\x", kUser);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "dacl.owner");
  const auto& aces = findings[0].evidence["descriptor"]["aces"];
  ASSERT_EQ(aces.size(), 5u);
  EXPECT_EQ(aces[0]["type"], "allow");
  EXPECT_EQ(aces[3]["type"], "deny");
  EXPECT_EQ(aces[4]["type"], "other");
  EXPECT_EQ(aces[4]["sid"], kEveryone);
}

// ---- the entry points on facts -------------------------------------------------------------

NamespaceFacts windows_namespace(std::optional<SecurityDescriptor> security) {
  NamespaceFacts ns;
  ns.name = "hsperfdata_alice";
  ns.user_suffix = "alice";
  ns.path = "C:\\Temp\\hsperfdata_alice";
  ns.user = UserFacts{"alice", std::nullopt, std::nullopt, kUser};
  InodeFacts inode;
  inode.kind = FileKind::directory;
  inode.windows_attributes = 0x10;
  ns.lstat = inode;
  ns.opened = inode;
  ns.security = std::move(security);
  return ns;
}

TempRootFacts windows_root() {
  TempRootFacts root;
  root.platform = Platform::windows;
  root.temp_dir = "C:\\Temp";
  root.volume = VolumeFacts{};
  root.volume->fs_type = "NTFS";
  root.volume->acl_support = true;
  root.volume->compressed = false;
  return root;
}

FileFacts backing_file(std::optional<SecurityDescriptor> security, std::uint32_t attributes = 0x20) {
  FileFacts file;
  file.name = "1234";
  file.pid_name = classify_pid_name(file.name);
  file.path = "C:\\Temp\\hsperfdata_alice\\1234";
  InodeFacts inode;
  inode.kind = FileKind::regular;
  inode.windows_attributes = attributes;
  file.lstat = inode;
  file.opened = inode;
  file.security = std::move(security);
  return file;
}

TEST(DaclFacts, NamespaceUsesTheUsersSid) {
  const auto root = windows_root();
  EXPECT_EQ(ids(check_namespace(
                root, windows_namespace(hotspot_descriptor(SecuredObject::directory, kUser)),
                test::dacl_rules())),
            Ids{});
  EXPECT_EQ(ids(check_namespace(
                root, windows_namespace(hotspot_descriptor(SecuredObject::directory, kMallory)),
                test::dacl_rules())),
            (Ids{"dacl.owner"}));
}

TEST(DaclFacts, NoDescriptorNoFindings) {
  // POSIX facts never carry a descriptor.
  TempRootFacts root;
  NamespaceFacts ns;
  ns.path = "/tmp/hsperfdata_alice";
  EXPECT_TRUE(check_namespace(root, ns, test::dacl_rules()).empty());
  EXPECT_TRUE(check_file(root, ns, FileFacts{}, test::dacl_rules()).empty());
  EXPECT_TRUE(check_namespace(root, ns, test::windows_rules()).empty());
  EXPECT_TRUE(check_file(root, ns, FileFacts{}, test::windows_rules()).empty());
}

TEST(DaclFacts, FileUsesTheFileMasks) {
  const auto root = windows_root();
  const auto ns = windows_namespace(hotspot_descriptor(SecuredObject::directory, kUser));
  EXPECT_EQ(ids(check_file(root, ns, backing_file(hotspot_descriptor(SecuredObject::file, kUser)),
                           test::dacl_rules())),
            Ids{"dacl.file-data-readable"});
}

TEST(DaclFacts, ReadableDataMattersForBackingFilesOnly) {
  const auto root = windows_root();
  const auto ns = windows_namespace(hotspot_descriptor(SecuredObject::directory, kUser));
  FileFacts notes = backing_file(hotspot_descriptor(SecuredObject::file, kUser));
  notes.name = "notes.txt";
  notes.pid_name = classify_pid_name(notes.name);
  EXPECT_EQ(ids(check_file(root, ns, notes, test::dacl_rules())), Ids{});
  notes.security = good_plus({allow(kFileAllAccess, kEveryone)});
  EXPECT_EQ(ids(check_file(root, ns, notes, test::dacl_rules())),
            (Ids{"dacl.everyone-too-broad", "dacl.extra-writer"}));
}

TEST(DaclFacts, DirectoryEntryInANamespaceIsJudgedAsADirectory) {
  const auto root = windows_root();
  const auto ns = windows_namespace(hotspot_descriptor(SecuredObject::directory, kUser));
  FileFacts sub = backing_file(hotspot_descriptor(SecuredObject::directory, kUser), 0x10);
  sub.lstat->kind = sub.opened->kind = FileKind::directory;
  EXPECT_EQ(ids(check_file(root, ns, sub, test::dacl_rules())), Ids{});
}

// ---- Windows rules outside the DACL --------------------------------------------------------

TEST(WindowsRules, ReparsePointNamespace) {
  auto ns = windows_namespace(std::nullopt);
  ns.lstat->kind = FileKind::symlink;
  ns.lstat->windows_attributes = 0x410;
  ns.opened.reset();
  EXPECT_EQ(ids(check_namespace(windows_root(), ns, test::windows_rules())),
            Ids{"namespace.reparse-point"});
  EXPECT_EQ(
      ids(check_namespace(windows_root(), windows_namespace(std::nullopt), test::windows_rules())),
      Ids{});
}

TEST(WindowsRules, VolumeWithoutPersistentAcls) {
  auto root = windows_root();
  root.volume->fs_type = "FAT32";
  root.volume->acl_support = false;
  EXPECT_EQ(ids(check_namespace(root, windows_namespace(std::nullopt), test::windows_rules())),
            Ids{"volume.no-persistent-acls"});
  // The namespace's own volume, when observed, wins over the temp dir's.
  auto ns = windows_namespace(std::nullopt);
  ns.volume = VolumeFacts{};
  ns.volume->fs_type = "NTFS";
  ns.volume->acl_support = true;
  ns.volume->compressed = false;
  EXPECT_EQ(ids(check_namespace(root, ns, test::windows_rules())), Ids{});
}

TEST(WindowsRules, UncPath) {
  auto root = windows_root();
  root.volume->unc_path = true;
  root.volume->network = true;
  EXPECT_EQ(ids(check_namespace(root, windows_namespace(std::nullopt), test::windows_rules())),
            Ids{"volume.unc-path"});
}

TEST(WindowsRules, VolumeRulesAreWindowsOnly) {
  TempRootFacts root;  // POSIX: acl_support false means "no POSIX ACLs", another rule
  root.volume = VolumeFacts{};
  root.volume->acl_support = false;
  EXPECT_EQ(ids(check_namespace(root, NamespaceFacts{}, test::windows_rules())), Ids{});
}

TEST(WindowsRules, CompressedFile) {
  const auto root = windows_root();
  const auto ns = windows_namespace(std::nullopt);
  EXPECT_EQ(ids(check_file(root, ns, backing_file(std::nullopt, 0x820), test::windows_rules())),
            Ids{"file.compressed"});
  EXPECT_EQ(ids(check_file(root, ns, backing_file(std::nullopt, 0x20), test::windows_rules())),
            Ids{});
}

// ---- the catalogue knows every id these rules emit -----------------------------------------

TEST(DaclCatalogue, EveryRuleIsCataloguedForWindows) {
  for (const char* id : {"dacl.null", "dacl.owner", "dacl.not-protected", "dacl.everyone-too-broad",
                         "dacl.extra-writer", "dacl.admins-missing", "dacl.file-data-readable",
                         "namespace.reparse-point", "volume.no-persistent-acls", "volume.unc-path",
                         "file.compressed"}) {
    const RuleInfo* info = find_rule(id);
    ASSERT_NE(info, nullptr) << id;
    EXPECT_EQ(info->platforms, std::vector<std::string>{"windows"}) << id;
  }
}

// The descriptor create and repair give (model/compliant_descriptor.hpp), judged by the rules
// themselves: its masks are what the rules' constants say, and no dacl.* rule fires on it
// with the user or Administrators as owner; with another owner only dacl.owner does.
TEST(CompliantDescriptor, MasksAreTheMappedRightsTheRulesUse) {
  EXPECT_EQ(compliant_masks::kFullControl, kStandardRightsAll | kFileAllAccess);
  EXPECT_EQ(compliant_masks::kDirectoryEveryone,
            map_generic(hotspot_masks(SecuredObject::directory).everyone, kFileGenericMapping));
  EXPECT_EQ(compliant_masks::kFileEveryone, kReadControl | kReadAttributes | kReadEa);
  EXPECT_EQ(compliant_masks::kProtectedDaclControl,
            control::kDaclPresent | control::kDaclProtected);
  EXPECT_EQ(kAdministratorsSid, sids::kAdministrators);
  EXPECT_EQ(kEveryoneSid, sids::kEveryone);
}

TEST(CompliantDescriptor, PassesEveryDaclRuleUnlessAnotherAccountOwnsIt) {
  for (const std::string& owner : {kUser, std::string(sids::kAdministrators)}) {
    SCOPED_TRACE(owner);
    for (const bool list : {true, false}) {
      const auto dir =
          compliant_descriptor(CompliantObject::namespace_directory, owner, kUser, list);
      EXPECT_TRUE(
          check_security_descriptor(dir, SecuredObject::directory, "C:\\T\\hsperfdata_u", kUser)
              .empty());
      EXPECT_EQ(dir.dacl.size(), list ? 3u : 2u);
    }
    const auto file = compliant_descriptor(CompliantObject::backing_file, owner, kUser);
    EXPECT_TRUE(
        check_security_descriptor(file, SecuredObject::file, "C:\\T\\hsperfdata_u\\1", kUser)
            .empty());
    EXPECT_EQ(effective_rights(file, sids::kEveryone) & kReadData, 0u);
  }
  const auto squatted = compliant_descriptor(CompliantObject::namespace_directory, kMallory, kUser);
  std::set<std::string> ids;
  for (const auto& f :
       check_security_descriptor(squatted, SecuredObject::directory, "C:\\T\\hsperfdata_u", kUser))
    ids.insert(f.rule);
  EXPECT_EQ(ids, std::set<std::string>{"dacl.owner"});
}

}  // namespace
}  // namespace hsperfguard::checks
