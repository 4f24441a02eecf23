// The rule catalogue: metadata for every rule id, compiled in from rules/*.json, and the
// profiles (default, strict, hotspot) and policy files that enable, disable or re-rate rules.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/finding.hpp"

namespace hsperfguard {

struct RuleInfo {
  std::string id;
  std::string title;
  Severity severity = Severity::medium;  // default severity
  std::vector<std::string> applies_to;   // "temp-dir", "namespace", "file", "attach"
  std::vector<std::string> platforms;    // "linux", "windows"
  std::string rationale;
  std::string remediation;
  std::vector<std::string> evidence;    // the keys of its findings' evidence (a test checks them)
  std::vector<std::string> references;  // OpenJDK bug ids, documents
  bool repairable = false;
};

// The compiled-in catalogue, by id. Throws only if the embedded JSON is malformed, which
// the test suite rules out.
const std::map<std::string, RuleInfo, std::less<>>& rule_catalog();
const RuleInfo* find_rule(std::string_view id);

// What a profile or policy changes: per rule, enabled or not and an optional severity.
struct RuleSetting {
  bool enabled = true;
  std::optional<Severity> severity;
};

struct Policy {
  std::string name = "default";
  std::map<std::string, RuleSetting, std::less<>> rules;  // only rules that differ

  bool enabled(std::string_view rule) const;
  Severity severity_of(std::string_view rule, Severity fallback) const;
};

// Every key a policy document may have, and every key of one rule's setting: the parser
// accepts these and no other, and hsperfguard-policy(5) documents each (a test holds both to
// these lists).
inline constexpr std::array<std::string_view, 3> kPolicyKeys{"name", "description", "rules"};
inline constexpr std::array<std::string_view, 2> kPolicyRuleKeys{"enabled", "severity"};

std::vector<std::string> profile_names();
// A named built-in profile; nullopt if there is none by that name.
std::optional<Policy> builtin_profile(std::string_view name);
// Applies a policy document (same shape as a profile file) on top of `base`. Returns an
// error message for unknown rule ids, unknown severities or a malformed document.
std::optional<std::string> apply_policy(Policy& base, const nlohmann::json& document);
// The same from a policy file's text, parsed with a depth limit (a deeply nested value is
// refused, never recursed into). Returns an error message, or nullopt.
std::optional<std::string> apply_policy_text(Policy& base, std::string_view text);

// The rule's remediation for one subject: the catalogue's placeholders filled in from the
// subject's path, so that the commands name what to change. `<path>` and `<file>` become the
// path; `/tmp/hsperfdata_<user>` the path (a namespace's, or the namespace of a file);
// `<namespace>` the namespace; `<user>` the name after "hsperfdata_" (a namespace subject or
// a file in one). Each is one shell word that means exactly its bytes (model/shell_word.hpp).
// A placeholder that the path does not give (no namespace in it) is left as it is.
std::string remediation_for(const RuleInfo& rule, std::string_view path);

// Fills severity and remediation (remediation_for the finding's path) from the catalogue and
// `policy`, and drops findings of disabled rules.
Findings apply_policy_to_findings(Findings findings, const Policy& policy);

}  // namespace hsperfguard
