// Real security descriptors: built from SDDL by the Win32 API, read back through the ACL
// API into the neutral model, and judged by the dacl.* rules. Wine implements the SDDL
// conversion and the ACL API faithfully (it ignores DACLs only when opening files).
#include "platform/windows/security_windows.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "checks/checks.hpp"
#include "checks/dacl_access.hpp"

namespace hsperfguard {
namespace {

using checks::SecuredObject;
namespace rights = checks::rights;

const std::string kUser = "S-1-5-21-1111-2222-3333-1001";
const std::string kMallory = "S-1-5-21-1111-2222-3333-1666";

SecurityDescriptor from_sddl(const std::string& sddl) {
  const auto result = platform::win::security_from_sddl(sddl);
  EXPECT_TRUE(result.descriptor.has_value())
      << sddl << ": " << (result.error ? result.error->message : std::string("no descriptor"));
  return result.descriptor.value_or(SecurityDescriptor{});
}

std::set<std::string> judge(const std::string& sddl, SecuredObject object = SecuredObject::directory) {
  std::set<std::string> ids;
  for (const auto& finding : checks::check_security_descriptor(from_sddl(sddl), object, "C:\\t\\hsperfdata_u", kUser)) {
    ids.insert(finding.rule);
  }
  return ids;
}

using Ids = std::set<std::string>;

// HotSpot's descriptors as SDDL: owner the user, protected DACL, allow ACEs for the user,
// Administrators (BA) and Everyone (WD), masks exactly as HotSpot passes them.
const std::string kHotSpotDirectory =
    "O:" + kUser + "D:P(A;;0x001f01ff;;;" + kUser + ")(A;;0x001f01ff;;;BA)(A;;0x80000021;;;WD)";
const std::string kHotSpotFile =
    "O:" + kUser + "D:P(A;;0x001f01ff;;;" + kUser + ")(A;;0x001f01ff;;;BA)(A;;0x000200a9;;;WD)";
const std::string kHotSpotMapping =
    "O:" + kUser + "D:P(A;;0x000f001f;;;" + kUser + ")(A;;0x001f001f;;;BA)(A;;0x00020000;;;WD)";

// The user and Administrators in full control, protected: the start of most hostile cases.
std::string owned(const std::string& extra_aces, const std::string& owner = kUser) {
  return "O:" + owner + "D:P(A;;FA;;;" + kUser + ")(A;;FA;;;BA)(A;;FA;;;SY)" + extra_aces;
}

TEST(SddlDescriptor, ReadsBackOwnerControlAndAcesInOrder) {
  const auto sd = from_sddl(kHotSpotDirectory);
  ASSERT_TRUE(sd.owner_sid.has_value());
  EXPECT_EQ(*sd.owner_sid, kUser);
  EXPECT_TRUE(sd.dacl_present);
  EXPECT_NE(sd.control & checks::control::kDaclProtected, 0);
  EXPECT_NE(sd.control & checks::control::kDaclPresent, 0);
  const auto expected = checks::hotspot_descriptor(SecuredObject::directory, kUser);
  ASSERT_EQ(sd.dacl.size(), expected.dacl.size());
  for (std::size_t i = 0; i < sd.dacl.size(); ++i) {
    EXPECT_EQ(sd.dacl[i].type, expected.dacl[i].type) << i;
    EXPECT_EQ(sd.dacl[i].flags, expected.dacl[i].flags) << i;
    EXPECT_EQ(sd.dacl[i].mask, expected.dacl[i].mask) << i;  // GENERIC_READ kept unmapped
    EXPECT_EQ(sd.dacl[i].sid, expected.dacl[i].sid) << i;
  }
}

TEST(SddlDescriptor, AceTypesFlagsAndWellKnownSids) {
  const auto sd = from_sddl("O:BAD:AI(D;OICIIO;FW;;;AU)(A;ID;GA;;;CO)(A;NP;0x1;;;AN)");
  EXPECT_EQ(sd.owner_sid, "S-1-5-32-544");
  EXPECT_EQ(sd.control & checks::control::kDaclProtected, 0);
  ASSERT_EQ(sd.dacl.size(), 3u);
  EXPECT_EQ(sd.dacl[0].type, AceType::access_denied);
  EXPECT_EQ(sd.dacl[0].flags, checks::ace_flags::kObjectInherit | checks::ace_flags::kContainerInherit |
                                  checks::ace_flags::kInheritOnly);
  EXPECT_EQ(sd.dacl[0].mask, rights::kFileGenericWrite);
  EXPECT_EQ(sd.dacl[0].sid, "S-1-5-11");
  EXPECT_EQ(sd.dacl[1].flags, checks::ace_flags::kInherited);
  EXPECT_EQ(sd.dacl[1].mask, rights::kGenericAll);
  EXPECT_EQ(sd.dacl[1].sid, "S-1-3-0");
  EXPECT_EQ(sd.dacl[2].flags, checks::ace_flags::kNoPropagateInherit);
  EXPECT_EQ(sd.dacl[2].sid, "S-1-5-7");
}

TEST(SddlDescriptor, NoDaclNullDaclAndEmptyDaclDiffer) {
  // No D: part: no DACL at all. (SDDL's "D:NO_ACCESS_CONTROL" should give a NULL DACL;
  // wine 8 turns it into an empty one, so the NULL DACL is built by hand below.)
  const auto no_dacl = from_sddl("O:" + kUser);
  EXPECT_FALSE(no_dacl.dacl_present);
  const auto empty = from_sddl("O:" + kUser + "D:P");
  EXPECT_TRUE(empty.dacl_present);
  EXPECT_TRUE(empty.dacl.empty());

  SECURITY_DESCRIPTOR absolute{};
  ASSERT_TRUE(::InitializeSecurityDescriptor(&absolute, SECURITY_DESCRIPTOR_REVISION));
  ASSERT_TRUE(::SetSecurityDescriptorDacl(&absolute, TRUE, nullptr, FALSE));  // present, NULL
  const auto null_dacl = platform::win::to_security_descriptor(&absolute);
  EXPECT_FALSE(null_dacl.dacl_present);
  EXPECT_NE(null_dacl.control & checks::control::kDaclPresent, 0);
  EXPECT_FALSE(null_dacl.owner_sid.has_value());
  std::set<std::string> ids;
  for (const auto& f : checks::check_security_descriptor(null_dacl, SecuredObject::file, "f", kUser)) ids.insert(f.rule);
  EXPECT_EQ(ids, (Ids{"dacl.null", "dacl.owner"}));
}

TEST(SddlDescriptor, InvalidSddlIsAnError) {
  const auto result = platform::win::security_from_sddl("D:(A;;FA;;;NOT-A-SID)");
  EXPECT_FALSE(result.descriptor.has_value());
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(result.error->op, "ConvertStringSecurityDescriptorToSecurityDescriptorW");
}

// ---- HotSpot's own three descriptors --------------------------------------------------------

TEST(SddlRules, HotSpotDirectoryIsClean) { EXPECT_EQ(judge(kHotSpotDirectory), Ids{}); }

TEST(SddlRules, HotSpotFileLetsEveryoneReadTheData) {
  EXPECT_EQ(judge(kHotSpotFile, SecuredObject::file), Ids{"dacl.file-data-readable"});
  EXPECT_EQ(checks::effective_rights(from_sddl(kHotSpotFile), checks::typical_principal(checks::sids::kEveryone)),
            0x000200A9u);
}

TEST(SddlRules, HotSpotMappingIsClean) { EXPECT_EQ(judge(kHotSpotMapping, SecuredObject::mapping), Ids{}); }

TEST(SddlRules, HotSpotEveryoneEffectiveRightsOnTheDirectory) {
  EXPECT_EQ(checks::effective_rights(from_sddl(kHotSpotDirectory), checks::typical_principal(checks::sids::kEveryone)),
            0x001200A9u);
}

// ---- hostile descriptors --------------------------------------------------------------------

struct Hostile {
  const char* name;
  std::string sddl;
  SecuredObject object;
  Ids expected;
};

void PrintTo(const Hostile& h, std::ostream* os) { *os << h.name; }

class HostileDescriptor : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileDescriptor, RaisesExactlyTheseRules) {
  const Hostile& h = GetParam();
  EXPECT_EQ(judge(h.sddl, h.object), h.expected) << h.sddl;
}

const Hostile kHostile[] = {
    {"NoDacl", "O:" + kUser, SecuredObject::directory, {"dacl.null"}},
    {"NoDaclOnFileOwnedByMallory", "O:" + kMallory, SecuredObject::file,
     {"dacl.null", "dacl.owner"}},
    {"EveryoneFullControl", owned("(A;;FA;;;WD)"), SecuredObject::directory,
     {"dacl.everyone-too-broad", "dacl.extra-writer"}},
    {"EveryoneFullControlOnFile", owned("(A;;FA;;;WD)"), SecuredObject::file,
     {"dacl.everyone-too-broad", "dacl.extra-writer", "dacl.file-data-readable"}},
    {"EveryoneGenericAll", owned("(A;;GA;;;WD)"), SecuredObject::directory,
     {"dacl.everyone-too-broad", "dacl.extra-writer"}},
    {"UsersModify", owned("(A;;0x001301bf;;;BU)"), SecuredObject::directory, {"dacl.extra-writer"}},
    {"AuthenticatedUsersWrite", owned("(A;;FW;;;AU)"), SecuredObject::directory, {"dacl.extra-writer"}},
    {"InheritedWriterNotProtected", "O:" + kUser + "D:AI(A;;FA;;;" + kUser + ")(A;;FA;;;BA)(A;ID;FA;;;BU)",
     SecuredObject::directory, {"dacl.not-protected", "dacl.extra-writer"}},
    {"NotProtectedTrustedInheritance", "O:" + kUser + "D:AI(A;;FA;;;" + kUser + ")(A;ID;FA;;;BA)(A;ID;FA;;;SY)",
     SecuredObject::directory, {"dacl.not-protected"}},
    {"DenyAfterAllowIsIgnored", owned("(A;;FA;;;BU)(D;;FA;;;BU)"), SecuredObject::directory, {"dacl.extra-writer"}},
    {"AllowAfterDenyKeepsTheDeny", owned("(D;;0x000d0046;;;BU)(A;;FA;;;BU)"), SecuredObject::directory, {}},
    {"OwnerIsAnotherUser", owned("", kMallory), SecuredObject::directory, {"dacl.owner"}},
    // The owner's implicit WRITE_DAC goes to every account.
    {"OwnerIsEveryone", owned("", "WD"), SecuredObject::directory,
     {"dacl.owner", "dacl.everyone-too-broad", "dacl.extra-writer"}},
    {"AdministratorsMissing", "O:" + kUser + "D:P(A;;FA;;;" + kUser + ")(A;;0x001200a9;;;WD)",
     SecuredObject::directory, {"dacl.admins-missing"}},
    {"AdministratorsOnlyRead", "O:" + kUser + "D:P(A;;FA;;;" + kUser + ")(A;;FR;;;BA)", SecuredObject::directory,
     {"dacl.admins-missing"}},
    {"WriteDacToUsers", owned("(A;;WD;;;BU)"), SecuredObject::directory, {"dacl.extra-writer"}},
    {"WriteOwnerToMallory", owned("(A;;WO;;;" + kMallory + ")"), SecuredObject::file, {"dacl.extra-writer"}},
    {"DeleteToEveryone", owned("(A;;SD;;;WD)"), SecuredObject::directory,
     {"dacl.everyone-too-broad", "dacl.extra-writer"}},
    {"DeleteChildToInteractive", owned("(A;;0x00000040;;;IU)"), SecuredObject::directory, {"dacl.extra-writer"}},
    {"InheritOnlyAceIsIgnored", owned("(A;OICIIO;GA;;;WD)"), SecuredObject::directory, {}},
    {"EmptyDaclIsNotTooBroad", "O:" + kUser + "D:P", SecuredObject::directory, {"dacl.admins-missing"}},
    {"CreatorOwnerGrantsNobody", owned("(A;OICIIO;GA;;;CO)(A;;GA;;;CO)"), SecuredObject::directory, {}},
    {"AnonymousFullControl", owned("(A;;FA;;;AN)"), SecuredObject::directory, {"dacl.extra-writer"}},
    {"EveryoneReadsFileData", owned("(A;;FR;;;WD)"), SecuredObject::file, {"dacl.file-data-readable"}},
    {"AuthenticatedUsersReadFileData", owned("(A;;FR;;;AU)"), SecuredObject::file, {"dacl.file-data-readable"}},
    {"EveryoneWriteAttributes", owned("(A;;0x00000110;;;WD)"), SecuredObject::directory,
     {"dacl.everyone-too-broad"}},
    {"DenyEveryoneWriteBeforeAllowMallory",
     "O:" + kUser + "D:P(D;;0x000d0046;;;WD)(A;;FA;;;" + kUser + ")(A;;FA;;;BA)(A;;FA;;;" + kMallory + ")",
     SecuredObject::directory, {"dacl.admins-missing"}},
    {"UsersAddFile", owned("(A;;0x00000002;;;BU)"), SecuredObject::directory, {"dacl.extra-writer"}},
    {"EveryoneAddSubdirectory", owned("(A;;0x00000004;;;WD)"), SecuredObject::directory,
     {"dacl.everyone-too-broad", "dacl.extra-writer"}},
    {"GenericWriteToMallory", owned("(A;;GW;;;" + kMallory + ")"), SecuredObject::file, {"dacl.extra-writer"}},
    {"InheritedEveryoneFullControl", "O:" + kUser + "D:AI(A;;FA;;;" + kUser + ")(A;;FA;;;BA)(A;ID;FA;;;WD)",
     SecuredObject::directory, {"dacl.not-protected", "dacl.everyone-too-broad", "dacl.extra-writer"}},
    {"MappingMapReadToEveryone",
     "O:" + kUser + "D:P(A;;0x000f001f;;;" + kUser + ")(A;;0x001f001f;;;BA)(A;;GR;;;WD)", SecuredObject::mapping,
     {"dacl.everyone-too-broad", "dacl.file-data-readable"}},
};

INSTANTIATE_TEST_SUITE_P(Sddl, HostileDescriptor, ::testing::ValuesIn(kHostile),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(SddlRules, AtLeastFifteenHostileDescriptors) { EXPECT_GE(std::size(kHostile), 15u); }

}  // namespace
}  // namespace hsperfguard
