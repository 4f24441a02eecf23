// Rendering a parsed region the way the JDK's tools show it.
#pragma once

#include <string>
#include <vector>

#include "model/perfdata.hpp"

namespace hsperfguard {

// The lines `jstat -J-Djstat.showUnsupported=true -snap` prints (or, with
// include_unsupported false, plain `jstat -snap`): one `name=value` per counter, strings
// in double quotes, the sun.perfdata.* pseudo-counters jvmstat derives from the prologue,
// sorted by name; a counter published twice shows its last value, as in jvmstat's map.
std::vector<std::string> snap_lines(const perfdata::Region& region, bool include_unsupported);

}  // namespace hsperfguard
