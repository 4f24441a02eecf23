// dacl.*: Windows security descriptors of namespaces and backing files, judged against
// what HotSpot itself grants (docs/POLICY.md section 4) and against who can actually write,
// by the access evaluator of checks/dacl_access.hpp.
#include <algorithm>
#include <string>
#include <vector>

#include "checks/dacl_access.hpp"
#include "checks/evidence.hpp"
#include "checks/rules.hpp"

namespace hsperfguard::checks {

namespace {

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
