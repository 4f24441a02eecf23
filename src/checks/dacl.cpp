// dacl.*: Windows security descriptors of namespaces and backing files, judged against
// what HotSpot itself grants (docs/POLICY.md section 4) and against who can actually write.
#include "checks/dacl.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/registry.hpp"
#include "checks/rules.hpp"

namespace hsperfguard::checks {

namespace {

// Bits 24-27: ACCESS_SYSTEM_SECURITY (granted by privilege, never by a DACL),
// MAXIMUM_ALLOWED (a request flag) and two reserved bits.
constexpr std::uint32_t kNotGrantableByDacl = 0x0F000000;

bool is_inherit_only(const Ace& ace) { return (ace.flags & ace_flags::kInheritOnly) != 0; }

bool holds(const Principal& who, std::string_view sid) {
  if (sid.empty()) return false;
  if (!who.sid.empty() && who.sid == sid) return true;
  return std::find(who.groups.begin(), who.groups.end(), sid) != who.groups.end();
}

std::string_view ace_type_name(AceType type) {
  switch (type) {
    case AceType::access_allowed: return "allow";
    case AceType::access_denied: return "deny";
    case AceType::other: return "other";
  }
  return "other";  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

nlohmann::json dacl_json(const SecurityDescriptor& descriptor) {
  nlohmann::json j = {{"owner", descriptor.owner_sid ? nlohmann::json(*descriptor.owner_sid) : nullptr},
                      {"control", hex(descriptor.control)},
                      {"dacl_present", descriptor.dacl_present}};
  auto& aces = j["aces"] = nlohmann::json::array();
  for (const Ace& ace : descriptor.dacl) {
    aces.push_back({{"type", ace_type_name(ace.type)},
                    {"flags", hex(ace.flags)},
                    {"mask", hex(ace.mask)},
                    {"sid", printable(ace.sid)}});
  }
  return j;
}

nlohmann::json rights_json(std::uint32_t mask, SecuredObject object) {
  return {{"mask", hex(mask)}, {"rights", describe_rights(mask, object)}};
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string subject(SecuredObject object, const std::string& path) {
  return std::string(object == SecuredObject::directory ? "namespace " : "file ") + printable(path);
}

// SIDs that name no token member in an access check: CREATOR OWNER / GROUP (and their
// server variants) are placeholders for inheritance; OWNER RIGHTS stands for the owner.
bool is_placeholder(std::string_view sid) {
  return sid == sids::kCreatorOwner || sid == sids::kCreatorGroup || sid == "S-1-3-2" ||
         sid == "S-1-3-3" || sid == sids::kOwnerRights;
}

}  // namespace

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

// ---- the dacl.* rules, one function each --------------------------------------------------

namespace {

nlohmann::json dacl_evidence(const DescriptorSubject& s, nlohmann::json extra) {
  extra["object"] = to_string(s.object);
  extra["descriptor"] = dacl_json(s.descriptor);
  extra["user_sid"] = s.user_sid ? nlohmann::json(*s.user_sid) : nullptr;
  return extra;
}

std::uint32_t everyone_rights(const DescriptorSubject& s) {
  return effective_rights(s.descriptor, typical_principal(sids::kEveryone),
                          generic_mapping(s.object));
}

}  // namespace

// dacl.owner: the owner can rewrite the DACL whatever it says. When the user's SID is
// unknown only an owner that is certainly not one user (a broad group) is reported.
void dacl_owner(const DescriptorSubject& s, Findings& out) {
  const auto& owner = s.descriptor.owner_sid;
  const auto& user_sid = s.user_sid;
  const bool owner_trusted =
      owner && (*owner == sids::kAdministrators || (user_sid ? *owner == *user_sid : !is_broad_group(*owner)));
  if (owner_trusted) return;
  out.push_back(
      make_finding("dacl.owner", s.path,
                   subject(s.object, s.path) + " is owned by " +
                       (owner ? printable(*owner) : std::string("nobody")) + ", neither its user" +
                       (user_sid ? " (" + *user_sid + ")" : std::string()) + " nor Administrators",
                   dacl_evidence(s, {{"owner", owner ? nlohmann::json(*owner) : nullptr}})));
}

// dacl.null: no DACL at all. Every other DACL rule judges only a present DACL: it would
// only restate this one.
void dacl_null(const DescriptorSubject& s, Findings& out) {
  if (s.descriptor.dacl_present) return;
  out.push_back(
      make_finding("dacl.null", s.path,
                   subject(s.object, s.path) + " has no DACL (NULL DACL): everyone has full access",
                   dacl_evidence(s, nlohmann::json::object())));
}

void dacl_not_protected(const DescriptorSubject& s, Findings& out) {
  const SecurityDescriptor& descriptor = s.descriptor;
  if (!descriptor.dacl_present || (descriptor.control & control::kDaclProtected) != 0) return;
  const auto inherited =
      std::count_if(descriptor.dacl.begin(), descriptor.dacl.end(),
                    [](const Ace& ace) { return (ace.flags & ace_flags::kInherited) != 0; });
  out.push_back(
      make_finding("dacl.not-protected", s.path,
                   subject(s.object, s.path) +
                       " has an unprotected DACL: it takes in ACEs inherited from its parent (" +
                       std::to_string(inherited) + " inherited now)",
                   dacl_evidence(s, {{"inherited_aces", inherited}})));
}

void dacl_everyone_too_broad(const DescriptorSubject& s, Findings& out) {
  if (!s.descriptor.dacl_present) return;
  const std::uint32_t everyone = everyone_rights(s);
  const std::uint32_t hotspot_everyone =
      map_generic(hotspot_masks(s.object).everyone, generic_mapping(s.object));
  // SYNCHRONIZE only lets a handle be waited on; GENERIC_READ carries it, so a plain
  // "Everyone: read" would otherwise count as broader than HotSpot on every file.
  const std::uint32_t excess = everyone & ~hotspot_everyone & ~rights::kSynchronize;
  if (excess == 0) return;
  out.push_back(make_finding(
      "dacl.everyone-too-broad", s.path,
      subject(s.object, s.path) +
          " grants Everyone more than HotSpot does: " + join(describe_rights(excess, s.object)),
      dacl_evidence(s, {{"everyone", rights_json(everyone, s.object)},
                        {"hotspot_everyone", rights_json(hotspot_everyone, s.object)},
                        {"excess", rights_json(excess, s.object)}})));
}

// dacl.extra-writer: every SID an allow ACE names (and a group owner, which holds
// WRITE_DAC implicitly), evaluated as an ordinary account holding that SID. Without the
// user's SID any single account might be the user, so only broad groups are judged.
void dacl_extra_writer(const DescriptorSubject& s, Findings& out) {
  const SecurityDescriptor& descriptor = s.descriptor;
  if (!descriptor.dacl_present) return;
  const auto& owner = descriptor.owner_sid;
  const auto& user_sid = s.user_sid;
  std::vector<std::string> candidates;
  const auto consider = [&](const std::string& sid) {
    if (sid.empty() || is_placeholder(sid)) return;
    if (!user_sid && !is_broad_group(sid)) return;
    if (sid == sids::kAdministrators || sid == sids::kSystem || (user_sid && sid == *user_sid)) return;
    if (owner && sid == *owner && !is_broad_group(sid)) return;
    if (std::find(candidates.begin(), candidates.end(), sid) == candidates.end()) candidates.push_back(sid);
  };
  for (const Ace& ace : descriptor.dacl) {
    if (ace.type == AceType::access_allowed && !is_inherit_only(ace)) consider(ace.sid);
  }
  if (owner && is_broad_group(*owner)) consider(*owner);
  nlohmann::json writers = nlohmann::json::array();
  std::vector<std::string> writer_names;
  for (const std::string& sid : candidates) {
    const std::uint32_t granted =
        effective_rights(descriptor, typical_principal(sid), generic_mapping(s.object));
    const std::uint32_t writes = granted & write_class_rights(s.object);
    if (writes == 0) continue;
    writers.push_back({{"sid", printable(sid)},
                       {"granted", rights_json(granted, s.object)},
                       {"write", rights_json(writes, s.object)}});
    writer_names.push_back(printable(sid));
  }
  if (writers.empty()) return;
  out.push_back(make_finding("dacl.extra-writer", s.path,
                             subject(s.object, s.path) +
                                 " can be modified, replaced or deleted by " + join(writer_names) +
                                 " (not its user, Administrators or SYSTEM)",
                             dacl_evidence(s, {{"writers", writers}})));
}

void dacl_admins_missing(const DescriptorSubject& s, Findings& out) {
  if (!s.descriptor.dacl_present) return;
  const GenericMapping& mapping = generic_mapping(s.object);
  const std::uint32_t admins =
      effective_rights(s.descriptor, typical_principal(sids::kAdministrators), mapping);
  const std::uint32_t missing = mapping.all & ~admins;
  if (missing == 0) return;
  out.push_back(make_finding(
      "dacl.admins-missing", s.path,
      subject(s.object, s.path) + " does not give Administrators full control (HotSpot does)",
      dacl_evidence(s, {{"administrators", rights_json(admins, s.object)},
                        {"missing", rights_json(missing, s.object)}})));
}

// dacl.file-data-readable: any ordinary account (Everyone or a broad group) can read the
// counters, command line and system properties a backing file publishes. Other entries
// are judged by the file.* rules.
void dacl_file_data_readable(const DescriptorSubject& s, Findings& out) {
  if (!s.descriptor.dacl_present || s.object == SecuredObject::directory || !s.data_matters) return;
  const std::uint32_t any_user =
      effective_rights(s.descriptor, Principal{"", broad_group_sids()}, generic_mapping(s.object));
  if ((any_user & read_data_rights(s.object)) == 0) return;
  out.push_back(make_finding(
      "dacl.file-data-readable", s.path,
      subject(s.object, s.path) + " lets every user read its data (HotSpot's own DACL does this: "
                                  "FILE_LIST_DIRECTORY is FILE_READ_DATA on a file)",
      dacl_evidence(s, {{"any_user", rights_json(any_user, s.object)},
                        {"everyone", rights_json(everyone_rights(s), s.object)}})));
}

}  // namespace hsperfguard::checks
