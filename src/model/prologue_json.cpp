#include "model/prologue_json.hpp"

#include "model/compact_json.hpp"

namespace hsperfguard {

void append_prologue_json(std::string& out, const perfdata::Prologue& p) {
  CompactObject j(out);
  j.number("accessible", p.accessible);
  j.string("byte_order", perfdata::to_string(p.byte_order));
  j.number("entry_offset", p.entry_offset);
  j.number("magic", p.magic);
  j.number("major_version", p.major_version);
  j.number("minor_version", p.minor_version);
  j.number("mod_time_stamp", p.mod_time_stamp);
  j.number("num_entries", p.num_entries);
  j.number("overflow", p.overflow);
  j.number("used", p.used);
}

nlohmann::json prologue_json(const perfdata::Prologue& p) {
  std::string text;
  append_prologue_json(text, p);
  return nlohmann::json::parse(text);
}

}  // namespace hsperfguard
