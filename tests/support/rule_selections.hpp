// Rule selections the tests judge with: one family of the registry at a time.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

#include "checks/registry.hpp"

namespace hsperfguard::test {

// dacl.*: the Windows security descriptor rules.
inline checks::RuleSelection dacl_rules() {
  return checks::RuleSelection::where([](std::string_view id) { return id.starts_with("dacl."); });
}

// rules/windows.json: HotSpot's own Windows refusals and compressed files.
inline checks::RuleSelection windows_rules() {
  static constexpr std::array<std::string_view, 4> kIds = {
      "namespace.reparse-point", "volume.no-persistent-acls", "volume.unc-path", "file.compressed"};
  return checks::RuleSelection::where(
      [](std::string_view id) { return std::find(kIds.begin(), kIds.end(), id) != kIds.end(); });
}

}  // namespace hsperfguard::test
