// `hsperfguard inspect`: decode one backing file.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "model/perfdata.hpp"

namespace hsperfguard {

enum class InspectFormat { snap, json, text };

struct InspectOptions {
  std::string target;  // a path, or a decimal pid resolved like jstat does
  InspectFormat format = InspectFormat::text;
  bool supported_only = false;  // snap: hide counters without the "supported" flag
  std::string temp_dir;         // where pids are resolved; empty: the platform default
};

// Prints the decoded region to `out`, a one-line error to `err`; returns an exit code.
int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err);

// The prologue fields and every entry with its metadata; strings that are not UTF-8 are
// escaped (see text_escape.hpp).
nlohmann::json region_to_json(const perfdata::Region& region);
nlohmann::json prologue_to_json(const perfdata::Prologue& prologue);

}  // namespace hsperfguard
