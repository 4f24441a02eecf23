// What a rule says about one subject. Severity and remediation come from the rule
// catalogue (rules/*.json), possibly changed by a profile or policy file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hsperfguard {

enum class Severity { info = 0, low = 1, medium = 2, high = 3, critical = 4 };

std::string_view to_string(Severity severity);
std::optional<Severity> parse_severity(std::string_view text);

struct Finding {
  std::string rule;  // stable id, "namespace.symlink"
  Severity severity = Severity::medium;
  std::string path;  // raw bytes of the subject's path (escaped when reported)
  std::string message;
  nlohmann::json evidence = nlohmann::json::object();  // the observed values that decided it
  std::string remediation;
  // `hsperfguard repair` fixes it: repair's own decision (decide/repair.hpp, repair_refusal),
  // made when the finding is judged; false until then.
  bool repairable = false;
};

using Findings = std::vector<Finding>;

}  // namespace hsperfguard
