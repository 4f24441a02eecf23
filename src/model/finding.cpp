#include "model/finding.hpp"

#include <array>
#include <utility>

namespace hsperfguard {
namespace {

constexpr std::array<std::pair<Severity, std::string_view>, 5> kSeverityNames{{
    {Severity::info, "info"},
    {Severity::low, "low"},
    {Severity::medium, "medium"},
    {Severity::high, "high"},
    {Severity::critical, "critical"},
}};

}  // namespace

std::string_view to_string(Severity severity) {
  for (const auto& [value, name] : kSeverityNames) {
    if (value == severity) return name;
  }
  return "unknown";
}

// Exact, lower-case names only: the same spelling in rules/*.json, policy files, reports
// and on the command line.
std::optional<Severity> parse_severity(std::string_view text) {
  for (const auto& [value, name] : kSeverityNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

}  // namespace hsperfguard
