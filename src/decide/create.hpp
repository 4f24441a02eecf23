// `hsperfguard create`, the judging half: what to make (names, modes, the region's bytes)
// and whether what exists, or what was made, is safe by the audit's own rules. Pure.
//
// create never changes an existing namespace that the audit's rules fault: it refuses, and
// says for each finding whether `repair` would fix it. What it makes must audit clean; the
// command re-observes and judges it with the same rules to prove it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"
#include "model/finding.hpp"
#include "decide/repair.hpp"
#include "model/rule_catalog.hpp"

namespace hsperfguard {

inline constexpr std::string_view kNamespacePrefix = "hsperfdata_";

// A user name that can be the suffix of a namespace: not empty, no '/', no NUL, not "." or
// "..", at most 255 bytes with the prefix. Returns the problem, or nullopt.
std::optional<std::string> check_user_name(std::string_view user);
std::string namespace_name_for(std::string_view user);

// "0755", "755", "0700" or "700": the modes the audit accepts for a namespace (0755 is
// HotSpot's, 0700 the private one). nullopt for anything else.
std::optional<std::uint32_t> parse_namespace_mode(std::string_view text);

// The mode bits create removes from an existing namespace that the rules judged compliant:
// the permission bits the requested mode does not grant. It never adds one, so an admin's
// chmod 700 stays 0700 under the default --mode 0755, and --mode 0700 tightens a 0755 one.
std::uint32_t bits_create_clears(std::uint32_t requested_mode);

// The region of a backing file made by `create --pid`.
struct RegionRequest {
  std::optional<std::size_t> size;  // bytes; default 32 KiB; rounded up to the page size
  std::int64_t begin_time_ms = 0;    // sun.rt.createVmBeginTime
  std::optional<std::string> command;  // sun.rt.javaCommand
};

struct PlannedRegion {
  std::vector<std::byte> bytes;     // size: a multiple of the page size
  std::optional<std::string> error;  // the request cannot be met
};

PlannedRegion plan_region(const RegionRequest& request, std::size_t page_size);

// What stands in create's way in one temp root, judged by the audit's rules (judge()) with
// `policy`: findings at or above `threshold` block, the rest are reported.
struct CreateAssessment {
  Findings blocking_temp_dir;  // on the temp dir: nothing may be made beneath it
  Findings blocking;           // on the namespace and its entries
  Findings notes;              // below the threshold
  // How `repair` would deal with each finding on the namespace and its entries.
  RepairPlan repair;
  bool blocked() const { return !blocking_temp_dir.empty() || !blocking.empty(); }
  std::size_t total() const { return blocking_temp_dir.size() + blocking.size() + notes.size(); }
};

// `namespace_index`: the namespace of interest in root.namespaces (nullopt: there is none
// yet; then only the temp dir is judged). Other namespaces of the root are not judged.
CreateAssessment assess_for_create(const TempRootFacts& root, std::optional<std::size_t> namespace_index,
                                   const Policy& policy, Severity threshold);

// The index of the namespace named `name` in root.namespaces.
std::optional<std::size_t> find_namespace(const TempRootFacts& root, std::string_view name);

// The repair plan's word on one finding: "repair fixes it: mode 0777 -> 0755" or
// "repair leaves it: <reason>; manual remedy: <remediation>".
std::string repair_advice(const RepairPlan& plan, const Finding& finding);

}  // namespace hsperfguard
