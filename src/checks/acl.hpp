// POSIX.1e access control lists, evaluated the way the kernel does (pure).
//
// Access check order: the owner gets the user_obj entry; a process matching a named user
// gets that entry; a process in the owning group or in named groups is granted a request
// when one of its matching group entries allows it, and is otherwise denied (it does not
// fall through to other); everyone else gets the other entry. The mask, when present,
// limits the named users, the owning group and the named groups, never user_obj or other.
// Without a mask (a minimal ACL) group_obj is not limited.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::checks::acl {

inline constexpr std::uint8_t kRead = 4;
inline constexpr std::uint8_t kWrite = 2;
inline constexpr std::uint8_t kExecute = 1;
inline constexpr std::uint8_t kAll = kRead | kWrite | kExecute;

// The mask entry's permissions; nullopt when the ACL has none.
std::optional<std::uint8_t> mask_of(const PosixAcl& acl);

// The permissions `entry` actually grants in `acl`: its own, limited by the mask for the
// entries the mask applies to. The mask entry itself grants nothing.
std::uint8_t effective_perms(const PosixAcl& acl, const AclEntry& entry);

// One entry that gives someone other than the owner some of the permissions asked about.
struct Grant {
  AclEntry entry;
  std::uint8_t effective = 0;  // after the mask
};

// Entries granting any of `wanted` (after the mask) to anyone but the owner: named users
// (except one naming `owner_uid`, which the owner's own entry shadows), the owning group,
// named groups and other.
std::vector<Grant> grants_to_others(const PosixAcl& acl, std::uint8_t wanted,
                                    std::optional<std::uint32_t> owner_uid = std::nullopt);

std::string_view to_string(AclTag tag);
// "rw-" style.
std::string perms_string(std::uint8_t perms);
// Short text form of one entry: "user:1001:rw-", "mask::r-x", "other::---".
std::string entry_text(const AclEntry& entry);

// Evidence: every entry with its own and its effective permissions.
nlohmann::json acl_json(const PosixAcl& acl);
nlohmann::json grants_json(const std::vector<Grant>& grants);
// For messages: "user:1001:rw- (effective r--), other::rw-".
std::string describe_grants(const std::vector<Grant>& grants);
// Adds "mask" (its text, or null without a mask) to `evidence`.
void put_mask(nlohmann::json& evidence, const PosixAcl& acl);

}  // namespace hsperfguard::checks::acl
