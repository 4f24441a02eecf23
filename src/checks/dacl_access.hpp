// The Windows access evaluator: what a principal can actually do to an object, given its
// security descriptor. Not a rule family (the dacl.* rules of dacl.cpp stand on it, and so
// does repair, decide/repair.cpp): it emits no finding.
//
// Pure: the descriptors come from observation (platform/windows) or from a test, in the
// neutral model of facts.hpp. The evaluator walks the DACL the way the Windows access check
// does, so a rule asks "what can this principal actually do", not "is there an ACE that
// looks bad": an allow after a matching deny of the same bit grants nothing, a deny after
// an allow takes nothing away, inherit-only ACEs are ignored, generic rights are mapped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::checks {

// Well-known SIDs, string form.
namespace sids {
inline constexpr std::string_view kEveryone = "S-1-1-0";
inline constexpr std::string_view kCreatorOwner = "S-1-3-0";
inline constexpr std::string_view kCreatorGroup = "S-1-3-1";
inline constexpr std::string_view kOwnerRights = "S-1-3-4";
inline constexpr std::string_view kAnonymous = "S-1-5-7";
inline constexpr std::string_view kAuthenticatedUsers = "S-1-5-11";
inline constexpr std::string_view kSystem = "S-1-5-18";
inline constexpr std::string_view kAdministrators = "S-1-5-32-544";
inline constexpr std::string_view kUsers = "S-1-5-32-545";
}  // namespace sids

// ACCESS_MASK bits and descriptor flags, with the values winnt.h gives them (checks/ does
// not include platform headers).
namespace rights {
// Files and directories (the same bit has a directory name and a file name).
inline constexpr std::uint32_t kReadData = 0x0001;        // FILE_LIST_DIRECTORY on a directory
inline constexpr std::uint32_t kWriteData = 0x0002;       // FILE_ADD_FILE
inline constexpr std::uint32_t kAppendData = 0x0004;      // FILE_ADD_SUBDIRECTORY
inline constexpr std::uint32_t kReadEa = 0x0008;
inline constexpr std::uint32_t kWriteEa = 0x0010;
inline constexpr std::uint32_t kExecute = 0x0020;         // FILE_TRAVERSE
inline constexpr std::uint32_t kDeleteChild = 0x0040;
inline constexpr std::uint32_t kReadAttributes = 0x0080;
inline constexpr std::uint32_t kWriteAttributes = 0x0100;
// File-mapping (section) objects.
inline constexpr std::uint32_t kSectionQuery = 0x0001;
inline constexpr std::uint32_t kSectionMapWrite = 0x0002;
inline constexpr std::uint32_t kSectionMapRead = 0x0004;
inline constexpr std::uint32_t kSectionMapExecute = 0x0008;
inline constexpr std::uint32_t kSectionExtendSize = 0x0010;
// Standard rights.
inline constexpr std::uint32_t kDelete = 0x00010000;
inline constexpr std::uint32_t kReadControl = 0x00020000;
inline constexpr std::uint32_t kWriteDac = 0x00040000;
inline constexpr std::uint32_t kWriteOwner = 0x00080000;
inline constexpr std::uint32_t kSynchronize = 0x00100000;
inline constexpr std::uint32_t kStandardRightsRequired = 0x000F0000;
inline constexpr std::uint32_t kStandardRightsAll = 0x001F0000;
inline constexpr std::uint32_t kStandardRightsRead = kReadControl;
inline constexpr std::uint32_t kAccessSystemSecurity = 0x01000000;
inline constexpr std::uint32_t kMaximumAllowed = 0x02000000;
// Generic rights.
inline constexpr std::uint32_t kGenericAll = 0x10000000;
inline constexpr std::uint32_t kGenericExecute = 0x20000000;
inline constexpr std::uint32_t kGenericWrite = 0x40000000;
inline constexpr std::uint32_t kGenericRead = 0x80000000;
// Composites.
inline constexpr std::uint32_t kFileAllAccess = kStandardRightsRequired | kSynchronize | 0x1FF;
inline constexpr std::uint32_t kFileGenericRead =
    kStandardRightsRead | kReadData | kReadAttributes | kReadEa | kSynchronize;
inline constexpr std::uint32_t kFileGenericWrite =
    kReadControl | kWriteData | kWriteAttributes | kWriteEa | kAppendData | kSynchronize;
inline constexpr std::uint32_t kFileGenericExecute = kReadControl | kReadAttributes | kExecute | kSynchronize;
inline constexpr std::uint32_t kSectionAllAccess = kStandardRightsRequired | 0x1F;
inline constexpr std::uint32_t kFileMapAllAccess = kSectionAllAccess;
}  // namespace rights

namespace control {
inline constexpr std::uint16_t kDaclPresent = 0x0004;
inline constexpr std::uint16_t kDaclAutoInherited = 0x0400;
inline constexpr std::uint16_t kDaclProtected = 0x1000;
inline constexpr std::uint16_t kSelfRelative = 0x8000;
}  // namespace control

namespace ace_flags {
inline constexpr std::uint8_t kObjectInherit = 0x01;
inline constexpr std::uint8_t kContainerInherit = 0x02;
inline constexpr std::uint8_t kNoPropagateInherit = 0x04;
inline constexpr std::uint8_t kInheritOnly = 0x08;
inline constexpr std::uint8_t kInherited = 0x10;
}  // namespace ace_flags

// What GENERIC_READ/WRITE/EXECUTE/ALL mean for one kind of object.
struct GenericMapping {
  std::uint32_t read = 0;
  std::uint32_t write = 0;
  std::uint32_t execute = 0;
  std::uint32_t all = 0;
};
inline constexpr GenericMapping kFileGenericMapping{rights::kFileGenericRead, rights::kFileGenericWrite,
                                                    rights::kFileGenericExecute, rights::kFileAllAccess};
inline constexpr GenericMapping kSectionGenericMapping{
    rights::kStandardRightsRead | rights::kSectionQuery | rights::kSectionMapRead,
    rights::kReadControl | rights::kSectionMapWrite, rights::kReadControl | rights::kSectionMapExecute,
    rights::kSectionAllAccess};

// Replaces generic bits by the specific rights they stand for.
std::uint32_t map_generic(std::uint32_t mask, const GenericMapping& mapping);

// The three objects HotSpot secures, each with its own DACL (docs/POLICY.md section 4).
enum class SecuredObject { directory, file, mapping };
std::string_view to_string(SecuredObject object);
const GenericMapping& generic_mapping(SecuredObject object);

// The masks HotSpot grants, as it writes them (unmapped), and its descriptor in the neutral
// model: protected DACL, allow ACEs for the user, Administrators and Everyone in that order.
struct HotSpotMasks {
  std::uint32_t owner = 0;
  std::uint32_t administrators = 0;
  std::uint32_t everyone = 0;
};
HotSpotMasks hotspot_masks(SecuredObject object);
SecurityDescriptor hotspot_descriptor(SecuredObject object, std::string user_sid);

// An ACE that only passes to children (INHERIT_ONLY): it grants nothing on its own object.
bool is_inherit_only(const Ace& ace);

// Who asks: a SID and the group SIDs its token holds.
struct Principal {
  std::string sid;  // empty: a user whose own SID is named by no ACE
  std::vector<std::string> groups;
};
// The groups nearly every logged-on user holds: Everyone, Authenticated Users, Users,
// Interactive, Network, Batch, Service, Local, ... An ACE naming one of them reaches
// every ordinary account.
const std::vector<std::string>& broad_group_sids();
bool is_broad_group(std::string_view sid);
// `sid` with the token an ordinary account would have (the broad groups). Everyone and
// Anonymous stand for themselves only.
Principal typical_principal(std::string_view sid);

// The access the Windows access check grants `who` (MAXIMUM_ALLOWED), with the ACEs in
// order: the first matching ACE to mention a bit decides it (deny removes it for good,
// allow grants it for good), inherit-only ACEs and non-basic ACE types are skipped, generic
// rights are mapped, and the owner holds READ_CONTROL and WRITE_DAC unless an OWNER RIGHTS
// ACE is present. No DACL grants everything.
std::uint32_t effective_rights(const SecurityDescriptor& descriptor, const Principal& who,
                               const GenericMapping& mapping = kFileGenericMapping);
// The same for `sid` as an ordinary account (typical_principal).
std::uint32_t effective_rights(const SecurityDescriptor& descriptor, std::string_view sid,
                               const GenericMapping& mapping = kFileGenericMapping);

// Rights that let a holder change, replace or remove the object or what it contains:
// write data / add file, append / add subdirectory, delete child, DELETE, WRITE_DAC,
// WRITE_OWNER (GENERIC_WRITE and GENERIC_ALL map onto these).
std::uint32_t write_class_rights(SecuredObject object);
// The right that reads an object's contents (FILE_READ_DATA, SECTION_MAP_READ).
std::uint32_t read_data_rights(SecuredObject object);
// Names of the bits in `mask` for `object` ("FILE_LIST_DIRECTORY", "WRITE_DAC", ...).
std::vector<std::string> describe_rights(std::uint32_t mask, SecuredObject object);

}  // namespace hsperfguard::checks
