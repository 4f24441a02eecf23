// file.bad-prologue: the contents of a backing file, as parsed by perfdata::parse_region.
#include <cstdio>
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/modules.hpp"

namespace hsperfguard::checks {
namespace {

nlohmann::json prologue_json(const perfdata::Prologue& p) {
  char magic[16];
  std::snprintf(magic, sizeof magic, "0x%08x", static_cast<unsigned>(p.magic));
  return {{"magic", magic},
          {"byte_order", perfdata::to_string(p.byte_order)},
          {"version", std::to_string(p.major_version) + "." + std::to_string(p.minor_version)},
          {"accessible", p.accessible},
          {"used", p.used},
          {"overflow", p.overflow},
          {"mod_time_stamp", p.mod_time_stamp},
          {"entry_offset", p.entry_offset},
          {"num_entries", p.num_entries}};
}

}  // namespace

void check_prologue(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
                    Findings& out) {
  (void)root;
  (void)ns;
  if (!file.region || !file.region->region.error || !has_pid_like_name(file)) return;
  if (is_symlink(file.opened, file.lstat)) return;
  const InodeFacts* inode = judged_inode(file.opened, file.lstat);
  if (inode != nullptr && inode->kind != FileKind::regular) return;
  // An empty file has nothing to parse; file.bad-size already says it is empty.
  if (inode != nullptr && inode->size == 0 && file.region->bytes_read == 0) return;

  const perfdata::Region& region = file.region->region;
  const perfdata::ParseError& error = *region.error;
  nlohmann::json evidence = {{"offset", error.offset},
                             {"reason", printable(error.reason)},
                             {"bytes_read", file.region->bytes_read},
                             {"region_size", region.size},
                             {"entries_decoded", region.entries.size()},
                             {"walk_end", region.walk_end}};
  evidence["prologue"] = region.prologue ? prologue_json(*region.prologue) : nlohmann::json();
  std::string message = "backing file " + printable(file.path) +
                        " is not a valid PerfData region: " + printable(error.reason) +
                        " at offset " + std::to_string(error.offset);
  if (region.prologue && region.prologue->accessible == 0) {
    message += " (the region is marked not yet accessible: a JVM may still be initialising it)";
  }
  out.push_back(
      make_finding("file.bad-prologue", file.path, std::move(message), std::move(evidence)));
}

}  // namespace hsperfguard::checks
