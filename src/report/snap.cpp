#include "report/snap.hpp"

#include <map>

namespace hsperfguard {

std::vector<std::string> snap_lines(const perfdata::Region& region, bool include_unsupported) {
  std::map<std::string, std::string> by_name;  // byte order == jstat's order for ASCII names
  for (const auto& e : region.entries) {
    if (!include_unsupported && !e.supported()) continue;
    by_name[std::string(e.name)] =
        e.is_string() ? "\"" + std::string(e.string_value) + "\"" : std::to_string(e.long_value);
  }
  // jvmstat flags its prologue pseudo-counters unsupported.
  if (region.prologue && include_unsupported) {
    const auto& p = *region.prologue;
    by_name["sun.perfdata.majorVersion"] = std::to_string(p.major_version);
    by_name["sun.perfdata.minorVersion"] = std::to_string(p.minor_version);
    by_name["sun.perfdata.overflow"] = std::to_string(p.overflow);
    by_name["sun.perfdata.size"] = std::to_string(region.size);
    by_name["sun.perfdata.timestamp"] = std::to_string(p.mod_time_stamp);
    by_name["sun.perfdata.used"] = std::to_string(p.used);
  }
  std::vector<std::string> lines;
  lines.reserve(by_name.size());
  for (const auto& [name, value] : by_name) lines.push_back(name + "=" + value);
  return lines;
}

}  // namespace hsperfguard
