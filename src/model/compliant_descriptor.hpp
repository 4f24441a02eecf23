// The Windows security descriptor hsperfguard gives what it makes (`create`) and what it
// repairs (`repair`), in the neutral model of facts.hpp (docs/POLICY.md section 4). Data only:
// decide/ plans with it, platform/windows writes it, checks/dacl judges it (and its tests
// prove every dacl.* rule passes on it).
#pragma once

#include <cstdint>
#include <string>

#include "model/facts.hpp"

namespace hsperfguard {

enum class CompliantObject { namespace_directory, backing_file };

// Access masks as winnt.h spells them (model/ includes no platform header).
namespace compliant_masks {
// STANDARD_RIGHTS_ALL | FILE_ALL_ACCESS.
inline constexpr std::uint32_t kFullControl = 0x001F01FF;
// HotSpot's GENERIC_READ | FILE_LIST_DIRECTORY | FILE_TRAVERSE for Everyone on the namespace,
// written mapped: READ_CONTROL | SYNCHRONIZE | FILE_LIST_DIRECTORY | FILE_READ_EA |
// FILE_TRAVERSE | FILE_READ_ATTRIBUTES, so that what is stored is what is judged.
inline constexpr std::uint32_t kDirectoryEveryone = 0x001200A9;
// READ_CONTROL | FILE_READ_ATTRIBUTES | FILE_READ_EA on a backing file. HotSpot also grants
// FILE_LIST_DIRECTORY and FILE_TRAVERSE, which on a file are FILE_READ_DATA and FILE_EXECUTE:
// every user could read the counters and the command line.
inline constexpr std::uint32_t kFileEveryone = 0x00020088;
// SE_DACL_PRESENT | SE_DACL_PROTECTED.
inline constexpr std::uint16_t kProtectedDaclControl = 0x0004 | 0x1000;
}  // namespace compliant_masks

inline constexpr std::string_view kAdministratorsSid = "S-1-5-32-544";
inline constexpr std::string_view kEveryoneSid = "S-1-1-0";

// Owner `owner_sid`, a protected DACL (nothing inherited from the temp dir) of allow ACEs in
// this order: `user_sid` full control, Administrators full control, then Everyone with the
// mask above; a namespace gets no Everyone ACE at all when `everyone_may_list` is false
// (create --mode 0700, or a namespace Everyone could not list before its repair).
SecurityDescriptor compliant_descriptor(CompliantObject object, std::string owner_sid,
                                        std::string user_sid, bool everyone_may_list = true);

}  // namespace hsperfguard
