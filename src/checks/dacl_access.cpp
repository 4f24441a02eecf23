// The Windows access evaluator (checks/dacl_access.hpp): the access check walked over a
// DACL of the neutral model, the rights HotSpot grants, and the names of access bits.
#include "checks/dacl_access.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "checks/evidence.hpp"

namespace hsperfguard::checks {

namespace {

// Bits 24-27: ACCESS_SYSTEM_SECURITY (granted by privilege, never by a DACL),
// MAXIMUM_ALLOWED (a request flag) and two reserved bits.
constexpr std::uint32_t kNotGrantableByDacl = 0x0F000000;

bool holds(const Principal& who, std::string_view sid) {
  if (sid.empty()) return false;
  if (!who.sid.empty() && who.sid == sid) return true;
  return std::find(who.groups.begin(), who.groups.end(), sid) != who.groups.end();
}

}  // namespace

bool is_inherit_only(const Ace& ace) { return (ace.flags & ace_flags::kInheritOnly) != 0; }

std::uint32_t map_generic(std::uint32_t mask, const GenericMapping& mapping) {
  std::uint32_t out = mask & ~(rights::kGenericRead | rights::kGenericWrite | rights::kGenericExecute |
                               rights::kGenericAll);
  if ((mask & rights::kGenericRead) != 0) out |= mapping.read;
  if ((mask & rights::kGenericWrite) != 0) out |= mapping.write;
  if ((mask & rights::kGenericExecute) != 0) out |= mapping.execute;
  if ((mask & rights::kGenericAll) != 0) out |= mapping.all;
  return out;
}

std::string_view to_string(SecuredObject object) {
  switch (object) {
    case SecuredObject::directory: return "directory";
    case SecuredObject::file: return "file";
    case SecuredObject::mapping: return "mapping";
  }
  return "file";  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

const GenericMapping& generic_mapping(SecuredObject object) {
  return object == SecuredObject::mapping ? kSectionGenericMapping : kFileGenericMapping;
}

HotSpotMasks hotspot_masks(SecuredObject object) {
  using namespace rights;
  switch (object) {
    case SecuredObject::directory:
      return {kStandardRightsRequired | kFileAllAccess, kStandardRightsAll | kFileAllAccess,
              kGenericRead | kReadData | kExecute};
    case SecuredObject::file:
      return {kStandardRightsAll | kFileAllAccess, kStandardRightsAll | kFileAllAccess,
              kStandardRightsRead | kReadAttributes | kReadEa | kReadData | kExecute};
    case SecuredObject::mapping:
      return {kStandardRightsRequired | kFileMapAllAccess, kStandardRightsAll | kFileMapAllAccess,
              kStandardRightsRead};
  }
  return {};  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

SecurityDescriptor hotspot_descriptor(SecuredObject object, std::string user_sid) {
  const HotSpotMasks masks = hotspot_masks(object);
  SecurityDescriptor descriptor;
  descriptor.owner_sid = user_sid;
  descriptor.control = control::kDaclPresent | control::kDaclProtected;
  descriptor.dacl_present = true;
  descriptor.dacl = {
      {AceType::access_allowed, 0, masks.owner, std::move(user_sid)},
      {AceType::access_allowed, 0, masks.administrators, std::string(sids::kAdministrators)},
      {AceType::access_allowed, 0, masks.everyone, std::string(sids::kEveryone)},
  };
  return descriptor;
}

const std::vector<std::string>& broad_group_sids() {
  static const std::vector<std::string> groups = {
      std::string(sids::kEveryone),
      std::string(sids::kAuthenticatedUsers),
      std::string(sids::kUsers),
      "S-1-5-4",    // INTERACTIVE
      "S-1-5-2",    // NETWORK
      "S-1-5-3",    // BATCH
      "S-1-5-6",    // SERVICE
      "S-1-5-13",   // TERMINAL SERVER USER
      "S-1-5-14",   // REMOTE INTERACTIVE LOGON
      "S-1-5-15",   // THIS ORGANIZATION
      "S-1-5-113",  // LOCAL ACCOUNT
      "S-1-2-0",    // LOCAL
      "S-1-2-1",    // CONSOLE LOGON
  };
  return groups;
}

bool is_broad_group(std::string_view sid) {
  const auto& groups = broad_group_sids();
  return std::find(groups.begin(), groups.end(), sid) != groups.end();
}

Principal typical_principal(std::string_view sid) {
  if (sid == sids::kEveryone || sid == sids::kAnonymous) return Principal{std::string(sid), {}};
  return Principal{std::string(sid), broad_group_sids()};
}

std::uint32_t effective_rights(const SecurityDescriptor& descriptor, const Principal& who,
                               const GenericMapping& mapping) {
  if (!descriptor.dacl_present) return mapping.all;
  const bool is_owner = descriptor.owner_sid && holds(who, *descriptor.owner_sid);
  const bool has_owner_rights_ace = std::any_of(descriptor.dacl.begin(), descriptor.dacl.end(), [](const Ace& ace) {
    return !is_inherit_only(ace) && ace.type != AceType::other && ace.sid == sids::kOwnerRights;
  });
  std::uint32_t granted = 0;
  std::uint32_t denied = 0;
  // The owner may always read and change the DACL, unless OWNER RIGHTS says otherwise.
  if (is_owner && !has_owner_rights_ace) granted = rights::kReadControl | rights::kWriteDac;
  for (const Ace& ace : descriptor.dacl) {
    if (is_inherit_only(ace) || ace.type == AceType::other) continue;
    const bool applies = holds(who, ace.sid) || (is_owner && ace.sid == sids::kOwnerRights);
    if (!applies) continue;
    const std::uint32_t mask = map_generic(ace.mask, mapping) & ~kNotGrantableByDacl;
    if (ace.type == AceType::access_allowed) {
      granted |= mask & ~denied;
    } else {
      denied |= mask & ~granted;
    }
  }
  return granted;
}

std::uint32_t effective_rights(const SecurityDescriptor& descriptor, std::string_view sid,
                               const GenericMapping& mapping) {
  return effective_rights(descriptor, typical_principal(sid), mapping);
}

std::uint32_t write_class_rights(SecuredObject object) {
  using namespace rights;
  if (object == SecuredObject::mapping) {
    return kSectionMapWrite | kSectionExtendSize | kDelete | kWriteDac | kWriteOwner;
  }
  return kWriteData | kAppendData | kDeleteChild | kDelete | kWriteDac | kWriteOwner;
}

std::uint32_t read_data_rights(SecuredObject object) {
  return object == SecuredObject::mapping ? rights::kSectionMapRead : rights::kReadData;
}

std::vector<std::string> describe_rights(std::uint32_t mask, SecuredObject object) {
  static constexpr std::array<const char*, 9> kDirectory = {
      "FILE_LIST_DIRECTORY", "FILE_ADD_FILE",    "FILE_ADD_SUBDIRECTORY", "FILE_READ_EA",         "FILE_WRITE_EA",
      "FILE_TRAVERSE",       "FILE_DELETE_CHILD", "FILE_READ_ATTRIBUTES", "FILE_WRITE_ATTRIBUTES"};
  static constexpr std::array<const char*, 9> kFile = {
      "FILE_READ_DATA", "FILE_WRITE_DATA",   "FILE_APPEND_DATA",     "FILE_READ_EA",         "FILE_WRITE_EA",
      "FILE_EXECUTE",   "FILE_DELETE_CHILD", "FILE_READ_ATTRIBUTES", "FILE_WRITE_ATTRIBUTES"};
  static constexpr std::array<const char*, 9> kSection = {
      "SECTION_QUERY", "SECTION_MAP_WRITE", "SECTION_MAP_READ", "SECTION_MAP_EXECUTE", "SECTION_EXTEND_SIZE",
      "SECTION_MAP_EXECUTE_EXPLICIT", nullptr, nullptr, nullptr};
  static constexpr std::array<std::pair<std::uint32_t, const char*>, 11> kCommon = {{
      {rights::kDelete, "DELETE"},
      {rights::kReadControl, "READ_CONTROL"},
      {rights::kWriteDac, "WRITE_DAC"},
      {rights::kWriteOwner, "WRITE_OWNER"},
      {rights::kSynchronize, "SYNCHRONIZE"},
      {rights::kAccessSystemSecurity, "ACCESS_SYSTEM_SECURITY"},
      {rights::kMaximumAllowed, "MAXIMUM_ALLOWED"},
      {rights::kGenericAll, "GENERIC_ALL"},
      {rights::kGenericExecute, "GENERIC_EXECUTE"},
      {rights::kGenericWrite, "GENERIC_WRITE"},
      {rights::kGenericRead, "GENERIC_READ"},
  }};
  const auto& specific = object == SecuredObject::directory ? kDirectory
                         : object == SecuredObject::file    ? kFile
                                                            : kSection;
  std::vector<std::string> names;
  std::uint32_t named = 0;
  for (std::size_t bit = 0; bit < specific.size(); ++bit) {
    const std::uint32_t value = 1u << bit;
    if ((mask & value) != 0 && specific[bit] != nullptr) {
      names.emplace_back(specific[bit]);
      named |= value;
    }
  }
  for (const auto& [value, name] : kCommon) {
    if ((mask & value) != 0) {
      names.emplace_back(name);
      named |= value;
    }
  }
  if ((mask & ~named) != 0) names.push_back(hex(mask & ~named));
  return names;
}

}  // namespace hsperfguard::checks
