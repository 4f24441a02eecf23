// Windows security descriptors and accounts, read into the neutral model of facts.hpp.
//
// Observation only: nothing here changes a descriptor (creation_sddl only spells out the
// descriptor `create` gives what it makes). The rules that judge the result are in
// checks/dacl.* and run on any platform.
#pragma once

#include <windows.h>

#include <optional>
#include <string>
#include <string_view>

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

// The user SID of this process's token ("S-1-5-21-...").
std::optional<std::string> current_user_sid(ObservationError* error);

// What `create` makes, and the descriptor it gives each (docs/POLICY.md section 4): owner
// `owner_sid`, a protected DACL (nothing inherited from the temp dir) of allow ACEs, in this
// order: `user_sid` full control, Administrators full control, then Everyone:
// - namespace directory: HotSpot's own mask, GENERIC_READ | FILE_LIST_DIRECTORY |
//   FILE_TRAVERSE, written mapped (READ_CONTROL | SYNCHRONIZE | FILE_LIST_DIRECTORY |
//   FILE_READ_EA | FILE_TRAVERSE | FILE_READ_ATTRIBUTES) so that what is stored is what is
//   judged; no Everyone ACE at all when `everyone_may_list` is false (--mode 0700);
// - backing file: READ_CONTROL | FILE_READ_ATTRIBUTES | FILE_READ_EA only. HotSpot also
//   grants FILE_LIST_DIRECTORY and FILE_TRAVERSE, which on a file are FILE_READ_DATA and
//   FILE_EXECUTE: every user could read the counters and the command line.
enum class CreatedObject { namespace_directory, backing_file };
inline constexpr DWORD kCreatedFullControl = 0x001F01FF;  // STANDARD_RIGHTS_ALL | FILE_ALL_ACCESS
inline constexpr DWORD kCreatedDirectoryEveryone = 0x001200A9;
inline constexpr DWORD kCreatedFileEveryone = 0x00020088;
std::string creation_sddl(CreatedObject object, std::string_view owner_sid, std::string_view user_sid,
                          bool everyone_may_list = true);

}  // namespace hsperfguard::platform::win
