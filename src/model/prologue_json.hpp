// The one JSON shape of a PerfData prologue: the audit report's region summary, `inspect`
// and the evidence of file.bad-prologue all write it from here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/perfdata.hpp"

namespace hsperfguard {

// {"accessible", "byte_order", "entry_offset", "magic", "major_version", "minor_version",
// "mod_time_stamp", "num_entries", "overflow", "used"}, appended as compact JSON (keys sorted).
void append_prologue_json(std::string& out, const perfdata::Prologue& prologue);
// The same as a document.
nlohmann::json prologue_json(const perfdata::Prologue& prologue);

}  // namespace hsperfguard
