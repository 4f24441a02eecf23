// A decoded PerfData region as JSON (`inspect --format json`, and the prologue in the audit
// report).
#pragma once

#include <nlohmann/json.hpp>

#include "model/perfdata.hpp"
#include "model/prologue_json.hpp"

namespace hsperfguard {

// The prologue fields and every entry with its metadata; strings that are not UTF-8 are
// escaped (see text_escape.hpp).
nlohmann::json region_to_json(const perfdata::Region& region);

}  // namespace hsperfguard
