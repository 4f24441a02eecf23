#include "model/compliant_descriptor.hpp"

#include <utility>

namespace hsperfguard {

SecurityDescriptor compliant_descriptor(CompliantObject object, std::string owner_sid,
                                        std::string user_sid, bool everyone_may_list) {
  SecurityDescriptor descriptor;
  descriptor.owner_sid = std::move(owner_sid);
  descriptor.control = compliant_masks::kProtectedDaclControl;
  descriptor.dacl_present = true;
  descriptor.dacl.push_back(
      {AceType::access_allowed, 0, compliant_masks::kFullControl, std::move(user_sid)});
  descriptor.dacl.push_back(
      {AceType::access_allowed, 0, compliant_masks::kFullControl, std::string(kAdministratorsSid)});
  if (object == CompliantObject::backing_file) {
    descriptor.dacl.push_back(
        {AceType::access_allowed, 0, compliant_masks::kFileEveryone, std::string(kEveryoneSid)});
  } else if (everyone_may_list) {
    descriptor.dacl.push_back({AceType::access_allowed, 0, compliant_masks::kDirectoryEveryone,
                               std::string(kEveryoneSid)});
  }
  return descriptor;
}

}  // namespace hsperfguard
