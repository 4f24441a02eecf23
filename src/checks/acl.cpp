// POSIX ACL evaluation and the ACL rules: namespace.acl-grants-write,
// namespace.default-acl, file.acl.
#include "checks/acl.hpp"

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/modules.hpp"

namespace hsperfguard::checks {
namespace acl {

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
  return own;
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
  return "unknown";
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

}  // namespace acl

namespace {

std::string describe_grants(const std::vector<acl::Grant>& grants) {
  std::string out;
  for (const auto& grant : grants) {
    if (!out.empty()) out += ", ";
    out += acl::entry_text(grant.entry);
    if (grant.effective != (grant.entry.perms & acl::kAll)) {
      out += " (effective " + acl::perms_string(grant.effective) + ")";
    }
  }
  return out;
}

void put_mask(nlohmann::json& evidence, const PosixAcl& a) {
  const auto mask = acl::mask_of(a);
  evidence["mask"] = mask ? nlohmann::json(acl::perms_string(*mask)) : nlohmann::json();
}

}  // namespace

void check_namespace_acls(const TempRootFacts& root, const NamespaceFacts& ns, Findings& out) {
  if (root.platform != Platform::posix) return;
  // A link or a non-directory has its own finding; its ACLs are not the namespace's.
  if (is_symlink(ns.opened, ns.lstat)) return;
  const InodeFacts* inode = judged_inode(ns.opened, ns.lstat);
  if (inode != nullptr && inode->kind != FileKind::directory) return;
  const auto owner = namespace_owner(ns);
  const std::string where = printable(ns.path);

  // A minimal ACL (three entries) is the mode bits themselves: namespace.group-other-writable
  // already judges those. Only an extended ACL says more (who, through which entry).
  if (ns.access_acl && ns.access_acl->extended()) {
    const PosixAcl& access = *ns.access_acl;
    const auto grants = acl::grants_to_others(access, acl::kWrite, owner);
    if (!grants.empty()) {
      nlohmann::json evidence = {{"acl", acl::acl_json(access)},
                                 {"write_grants", acl::grants_json(grants)}};
      put_mask(evidence, access);
      if (owner) evidence["owner_uid"] = *owner;
      out.push_back(make_finding(
          "namespace.acl-grants-write", ns.path,
          "namespace " + where +
              " has an access ACL that lets others write to it: " + describe_grants(grants),
          std::move(evidence)));
    }
  }

  if (ns.default_acl && !ns.default_acl->entries.empty()) {
    const PosixAcl& inherited = *ns.default_acl;
    const auto grants = acl::grants_to_others(inherited, acl::kAll, owner);
    if (!grants.empty()) {
      nlohmann::json evidence = {{"default_acl", acl::acl_json(inherited)},
                                 {"grants_beyond_owner", acl::grants_json(grants)}};
      put_mask(evidence, inherited);
      evidence["note"] =
          "files created in the namespace inherit these entries and ignore the umask; "
          "HotSpot's create mode 0600 masks them, other creators' modes may not";
      out.push_back(make_finding("namespace.default-acl", ns.path,
                                 "namespace " + where +
                                     " has a default ACL that gives new files access beyond their "
                                     "owner: " +
                                     describe_grants(grants),
                                 std::move(evidence)));
    }
  }
}

void check_file_acl(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                    Findings& out) {
  (void)ns;
  if (root.platform != Platform::posix) return;
  if (!file.access_acl || !file.access_acl->extended() || !has_pid_like_name(file)) return;
  if (is_symlink(file.opened, file.lstat)) return;
  const InodeFacts* inode = judged_inode(file.opened, file.lstat);
  if (inode != nullptr && inode->kind != FileKind::regular) return;
  const PosixAcl& access = *file.access_acl;
  const std::optional<std::uint32_t> owner =
      inode != nullptr ? std::optional<std::uint32_t>(inode->uid) : std::nullopt;
  const auto grants = acl::grants_to_others(access, acl::kAll, owner);
  nlohmann::json evidence = {{"acl", acl::acl_json(access)},
                             {"grants_beyond_owner", acl::grants_json(grants)}};
  put_mask(evidence, access);
  const std::string where = printable(file.path);
  std::string message = "backing file " + where + " has an extended ACL";
  message += grants.empty() ? " (no entry currently grants access beyond the owner)"
                            : " giving access beyond its owner: " + describe_grants(grants);
  out.push_back(make_finding("file.acl", file.path, std::move(message), std::move(evidence)));
}

}  // namespace hsperfguard::checks
