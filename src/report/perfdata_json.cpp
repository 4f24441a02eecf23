#include "report/perfdata_json.hpp"

#include <utility>

#include "model/text_escape.hpp"

namespace hsperfguard {

nlohmann::json region_to_json(const perfdata::Region& region) {
  nlohmann::json j;
  j["size"] = region.size;
  j["prologue"] = region.prologue ? prologue_json(*region.prologue) : nlohmann::json(nullptr);
  auto& entries = j["entries"] = nlohmann::json::array();
  for (const auto& e : region.entries) {
    nlohmann::json je = {{"name", escape_non_utf8(e.name)},
                         {"offset", e.offset},
                         {"entry_length", e.entry_length},
                         {"type", e.is_string() ? "string" : "long"},
                         {"units", perfdata::to_string(e.units)},
                         {"variability", perfdata::to_string(e.variability)},
                         {"supported", e.supported()},
                         {"vector_length", e.vector_length}};
    if (e.is_string()) {
      je["value"] = escape_non_utf8(e.string_value);
    } else {
      je["value"] = e.long_value;
    }
    entries.push_back(std::move(je));
  }
  j["walk_end"] = region.walk_end;
  if (region.error) {
    j["error"] = {{"offset", region.error->offset}, {"reason", region.error->reason}};
  } else {
    j["error"] = nullptr;
  }
  return j;
}

}  // namespace hsperfguard
