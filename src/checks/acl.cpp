// POSIX ACL evaluation (checks/acl.hpp). The rules that use it are namespace.acl-grants-write
// and namespace.default-acl (namespace.cpp) and file.acl (file.cpp).
#include "checks/acl.hpp"

namespace hsperfguard::checks::acl {

std::optional<std::uint8_t> mask_of(const PosixAcl& acl) {
  for (const auto& entry : acl.entries) {
    if (entry.tag == AclTag::mask) return static_cast<std::uint8_t>(entry.perms & kAll);
  }
  return std::nullopt;
}

std::uint8_t effective_perms(const PosixAcl& acl, const AclEntry& entry) {
  const auto own = static_cast<std::uint8_t>(entry.perms & kAll);
  switch (entry.tag) {
    case AclTag::user_obj:
    case AclTag::other:
      return own;
    case AclTag::user:
    case AclTag::group_obj:
    case AclTag::group: {
      const auto mask = mask_of(acl);
      return mask ? static_cast<std::uint8_t>(own & *mask) : own;
    }
    case AclTag::mask:
      return 0;
  }
  return own;  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

std::vector<Grant> grants_to_others(const PosixAcl& acl, std::uint8_t wanted,
                                    std::optional<std::uint32_t> owner_uid) {
  std::vector<Grant> out;
  for (const auto& entry : acl.entries) {
    if (entry.tag == AclTag::user_obj || entry.tag == AclTag::mask) continue;
    // The owner always matches user_obj first: a named entry for the owner's uid is dead.
    if (entry.tag == AclTag::user && owner_uid && entry.qualifier == owner_uid) continue;
    const std::uint8_t effective = effective_perms(acl, entry);
    if ((effective & wanted) != 0) out.push_back({entry, effective});
  }
  return out;
}

std::string_view to_string(AclTag tag) {
  switch (tag) {
    case AclTag::user_obj:
      return "user_obj";
    case AclTag::user:
      return "user";
    case AclTag::group_obj:
      return "group_obj";
    case AclTag::group:
      return "group";
    case AclTag::mask:
      return "mask";
    case AclTag::other:
      return "other";
  }
  return "unknown";  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

std::string perms_string(std::uint8_t perms) {
  std::string out = "---";
  if (perms & kRead) out[0] = 'r';
  if (perms & kWrite) out[1] = 'w';
  if (perms & kExecute) out[2] = 'x';
  return out;
}

std::string entry_text(const AclEntry& entry) {
  std::string tag;
  switch (entry.tag) {
    case AclTag::user_obj:
    case AclTag::user:
      tag = "user";
      break;
    case AclTag::group_obj:
    case AclTag::group:
      tag = "group";
      break;
    case AclTag::mask:
      tag = "mask";
      break;
    case AclTag::other:
      tag = "other";
      break;
  }
  const bool named = entry.tag == AclTag::user || entry.tag == AclTag::group;
  const std::string qualifier = named && entry.qualifier ? std::to_string(*entry.qualifier) : "";
  return tag + ":" + qualifier + ":" + perms_string(static_cast<std::uint8_t>(entry.perms & kAll));
}

namespace {

nlohmann::json entry_json(const PosixAcl& acl, const AclEntry& entry) {
  nlohmann::json out = {{"tag", to_string(entry.tag)},
                        {"text", entry_text(entry)},
                        {"perms", perms_string(static_cast<std::uint8_t>(entry.perms & kAll))},
                        {"perms_numeric", entry.perms & kAll}};
  if (entry.qualifier) out["qualifier"] = *entry.qualifier;
  if (entry.tag != AclTag::mask) {
    const std::uint8_t effective = effective_perms(acl, entry);
    out["effective"] = perms_string(effective);
    out["effective_numeric"] = effective;
  }
  return out;
}

}  // namespace

nlohmann::json acl_json(const PosixAcl& acl) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& entry : acl.entries) out.push_back(entry_json(acl, entry));
  return out;
}

nlohmann::json grants_json(const std::vector<Grant>& grants) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& grant : grants) {
    nlohmann::json g = {{"tag", to_string(grant.entry.tag)},
                        {"text", entry_text(grant.entry)},
                        {"effective", perms_string(grant.effective)}};
    if (grant.entry.qualifier) g["qualifier"] = *grant.entry.qualifier;
    out.push_back(std::move(g));
  }
  return out;
}

std::string describe_grants(const std::vector<Grant>& grants) {
  std::string out;
  for (const auto& grant : grants) {
    if (!out.empty()) out += ", ";
    out += entry_text(grant.entry);
    if (grant.effective != (grant.entry.perms & kAll)) {
      out += " (effective " + perms_string(grant.effective) + ")";
    }
  }
  return out;
}

void put_mask(nlohmann::json& evidence, const PosixAcl& a) {
  const auto mask = mask_of(a);
  evidence["mask"] = mask ? nlohmann::json(perms_string(*mask)) : nlohmann::json();
}

}  // namespace hsperfguard::checks::acl
