#include "model/repair_plan.hpp"

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
  if (target.new_uid) {
    add("owner uid " + std::to_string(target.expected.uid) + " -> " +
        std::to_string(*target.new_uid));
  }
  return out;
}

}  // namespace hsperfguard
