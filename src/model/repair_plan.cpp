#include "model/repair_plan.hpp"

#include <cstdio>

#include "model/compliant_descriptor.hpp"

namespace hsperfguard {

std::size_t RepairPlan::count(RepairDisposition disposition) const {
  std::size_t n = 0;
  for (const auto& item : items) n += item.disposition == disposition ? 1 : 0;
  return n;
}

std::string mode_change(std::uint32_t from, std::uint32_t to) {
  return "mode " + octal_mode(from) + " -> " + octal_mode(to);
}

std::string describe_target_changes(const RepairTarget& target) {
  std::string out;
  auto add = [&](const std::string& piece) { out += (out.empty() ? "" : ", ") + piece; };
  if (target.strip_access_acl) add("access ACL reduced to the mode bits");
  if (target.remove_default_acl) add("default ACL removed");
  if (target.new_mode) add(mode_change(target.expected.mode, *target.new_mode));
  if (target.new_security) add(describe_dacl(*target.new_security));
  return out;
}

std::string describe_dacl(const SecurityDescriptor& descriptor) {
  std::string out = "protected DACL set: ";
  bool first = true;
  for (const Ace& ace : descriptor.dacl) {
    out += first ? "" : ", ";
    first = false;
    out += ace.sid == kAdministratorsSid ? "Administrators"
           : ace.sid == kEveryoneSid     ? "Everyone"
                                         : ace.sid;
    char mask[16];  // "0x" and eight digits: never truncated
    static_cast<void>(std::snprintf(mask, sizeof mask, "0x%08x", static_cast<unsigned>(ace.mask)));
    out += ace.mask == compliant_masks::kFullControl ? std::string(" full control")
                                                     : std::string(" ") + mask;
  }
  if (descriptor.dacl.empty()) out += "no ACE";
  return out;
}

}  // namespace hsperfguard
