// Windows security descriptors and accounts, read into the neutral model of facts.hpp.
//
// Observation only: nothing here changes a descriptor (to_sddl and creation_sddl only spell
// out a descriptor: what `create` gives what it makes, what `repair` sets). The rules that judge
// the result (checks/dacl.cpp, over the access evaluator of checks/dacl_access.hpp) run on any
// platform.
#pragma once

#include <windows.h>

#include <optional>
#include <string>
#include <string_view>

#include "model/compliant_descriptor.hpp"
#include "model/facts.hpp"

namespace hsperfguard::platform::win {

// Owner, control flags and DACL (every ACE in order, with type, flags, mask and SID) of a
// security descriptor in memory, absolute or self-relative. A missing or NULL DACL gives
// dacl_present == false.
SecurityDescriptor to_security_descriptor(PSECURITY_DESCRIPTOR descriptor);

// Owner and DACL of an opened object (the handle needs READ_CONTROL).
std::optional<SecurityDescriptor> read_security(HANDLE handle, const std::string& path,
                                                ObservationError* error);
// The same by name (GetNamedSecurityInfoW); follows a reparse point at the end of `path`,
// so observation of untrusted entries uses read_security on a handle instead.
std::optional<SecurityDescriptor> read_named_security(const std::string& path,
                                                      ObservationError* error);

// Builds a real descriptor from SDDL (ConvertStringSecurityDescriptorToSecurityDescriptorW)
// and reads it back through the ACL API: the same path an object's descriptor takes.
struct SddlResult {
  std::optional<SecurityDescriptor> descriptor;
  std::optional<ObservationError> error;
};
SddlResult security_from_sddl(std::string_view sddl);

// "S-1-5-32-544" for a binary SID; nullopt for an invalid one.
std::optional<std::string> sid_to_string(PSID sid);

// An account name resolved by LookupAccountNameW. `found` is false when the name maps to
// no account (ERROR_NONE_MAPPED) or to something that is not a user (a group, an alias);
// `error` is set when the lookup itself failed.
struct AccountLookup {
  bool found = false;
  std::optional<std::string> sid;
  std::optional<std::string> domain;
  std::optional<ObservationError> error;
};
AccountLookup lookup_account(std::string_view name);

// The user SID of a process's token ("S-1-5-21-..."): `process` needs
// PROCESS_QUERY_INFORMATION (or ..._LIMITED_INFORMATION).
std::optional<std::string> process_user_sid(HANDLE process, ObservationError* error);
// The same for this process.
std::optional<std::string> current_user_sid(ObservationError* error);
// The account name of a SID ("alice"; LookupAccountSidW), without its domain; nullopt when it
// maps to no account.
std::optional<std::string> account_name(std::string_view sid);

// SDDL of a neutral descriptor: owner, then the DACL ("D:", "P" when protected, "AI" when
// auto-inherited), allow and deny ACEs with their flags, masks in hex and SIDs in string
// form. Nullopt for what SDDL cannot say here (a NULL DACL, an ACE of another type).
std::optional<std::string> to_sddl(const SecurityDescriptor& descriptor);

// What `create` makes, and the descriptor it gives each: model/compliant_descriptor.hpp.
using CreatedObject = CompliantObject;
std::string creation_sddl(CreatedObject object, std::string_view owner_sid, std::string_view user_sid,
                          bool everyone_may_list = true);

}  // namespace hsperfguard::platform::win
