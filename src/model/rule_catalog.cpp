#include "model/rule_catalog.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "embedded_rules.hpp"
#include "model/nearest_word.hpp"
#include "model/shell_word.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kSubjects{"temp-dir", "namespace", "file", "attach"};
constexpr std::array<std::string_view, 2> kPlatforms{"linux", "windows"};

bool contains(std::span<const std::string_view> set, std::string_view value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

// A name from a policy file, quoted for a message: at most 64 bytes of it (a policy is the
// user's file, but a message must never print unbounded input).
std::string json_quoted(std::string_view text) {
  constexpr std::size_t kShown = 64;
  if (text.size() <= kShown) return json(std::string(text)).dump(-1, ' ', false, json::error_handler_t::replace);
  return json(std::string(text.substr(0, kShown))).dump(-1, ' ', false, json::error_handler_t::replace) +
         "... (" + std::to_string(text.size()) + " bytes)";
}

// What a value is, for a message: a short string is shown, anything else is named by its type
// (a deeply nested value is never printed: printing is recursive).
std::string describe_value(const json& value) {
  if (value.is_string()) return json_quoted(value.get_ref<const std::string&>());
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_null()) return "null";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();  // a number: bounded
}

// A malformed embedded file is a build defect, not a user error: the test suite loads
// every file, so this only fires for someone editing rules/ without running the tests.
[[noreturn]] void embedded_defect(std::string_view file, const std::string& what) {
  throw std::logic_error("rules/" + std::string(file) + ": " + what);
}

std::string required_text(const json& rule, std::string_view key, std::string_view file,
                          std::string_view id) {
  const auto it = rule.find(key);
  if (it == rule.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    embedded_defect(file, "rule " + json_quoted(id) + ": \"" + std::string(key) +
                              "\" must be a non-empty string");
  }
  return it->get<std::string>();
}

std::vector<std::string> string_list(const json& rule, std::string_view key, std::string_view file,
                                     std::string_view id, std::span<const std::string_view> allowed,
                                     bool non_empty) {
  const auto it = rule.find(key);
  if (it == rule.end() || !it->is_array()) {
    embedded_defect(file,
                    "rule " + json_quoted(id) + ": \"" + std::string(key) + "\" must be an array");
  }
  std::vector<std::string> out;
  for (const json& item : *it) {
    if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
      embedded_defect(file, "rule " + json_quoted(id) + ": \"" + std::string(key) +
                                "\" must hold non-empty strings");
    }
    const auto& value = item.get_ref<const std::string&>();
    if (!allowed.empty() && !contains(allowed, value)) {
      embedded_defect(file, "rule " + json_quoted(id) + ": unknown " + std::string(key) +
                                " value " + json_quoted(value));
    }
    if (std::find(out.begin(), out.end(), value) != out.end()) {
      embedded_defect(file, "rule " + json_quoted(id) + ": duplicate " + std::string(key) +
                                " value " + json_quoted(value));
    }
    out.push_back(value);
  }
  if (non_empty && out.empty()) {
    embedded_defect(file, "rule " + json_quoted(id) + ": \"" + std::string(key) + "\" is empty");
  }
  return out;
}

// "<family>.<name>": lower-case ASCII letters, digits and '-', exactly one dot, no empty part.
bool well_formed_id(std::string_view id) {
  const auto dot = id.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == id.size()) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || i == dot;
    if (!ok) return false;
  }
  return true;
}

RuleInfo parse_rule(const json& rule, std::string_view file) {
  static constexpr std::array<std::string_view, 10> kKeys{"id",          "title",      "severity",
                                                          "applies_to",  "platforms",  "rationale",
                                                          "remediation", "evidence",   "references",
                                                          "repairable"};
  if (!rule.is_object()) embedded_defect(file, "every rule must be a JSON object");
  const auto id_it = rule.find("id");
  if (id_it == rule.end() || !id_it->is_string() || id_it->get_ref<const std::string&>().empty()) {
    embedded_defect(file, "a rule has no \"id\" string");
  }
  RuleInfo info;
  info.id = id_it->get<std::string>();
  for (const auto& [key, value] : rule.items()) {
    if (!contains(kKeys, key)) {
      embedded_defect(file, "rule " + json_quoted(info.id) + ": unknown key " + json_quoted(key));
    }
  }
  if (!well_formed_id(info.id)) {
    embedded_defect(file, "rule id " + json_quoted(info.id) +
                              " is not \"<family>.<name>\" in lower-case letters, digits and '-'");
  }
  info.title = required_text(rule, "title", file, info.id);
  const auto severity = parse_severity(required_text(rule, "severity", file, info.id));
  if (!severity) embedded_defect(file, "rule " + json_quoted(info.id) + ": unknown severity");
  info.severity = *severity;
  info.applies_to = string_list(rule, "applies_to", file, info.id, kSubjects, true);
  info.platforms = string_list(rule, "platforms", file, info.id, kPlatforms, true);
  info.rationale = required_text(rule, "rationale", file, info.id);
  info.remediation = required_text(rule, "remediation", file, info.id);
  info.evidence = string_list(rule, "evidence", file, info.id, {}, true);
  info.references = string_list(rule, "references", file, info.id, {}, false);
  const auto repairable = rule.find("repairable");
  if (repairable == rule.end() || !repairable->is_boolean()) {
    embedded_defect(file, "rule " + json_quoted(info.id) + ": \"repairable\" must be a boolean");
  }
  info.repairable = repairable->get<bool>();
  return info;
}

std::map<std::string, RuleInfo, std::less<>> load_catalog() {
  std::map<std::string, RuleInfo, std::less<>> catalog;
  for (const auto& file : embedded_rules::rule_files()) {
    json document;
    try {
      document = json::parse(file.text);
    } catch (const json::parse_error& e) {
      embedded_defect(file.name, std::string("not valid JSON: ") + e.what());
    }
    if (!document.is_array()) embedded_defect(file.name, "must be a JSON array of rules");
    for (const json& rule : document) {
      RuleInfo info = parse_rule(rule, file.name);
      const std::string id = info.id;
      if (!catalog.emplace(id, std::move(info)).second) {
        embedded_defect(file.name, "duplicate rule id " + json_quoted(id));
      }
    }
  }
  return catalog;
}

std::string_view profile_name_of(std::string_view file) { return file.substr(0, file.rfind('.')); }

// Checks a policy document completely before anything is applied, so a rejected document
// leaves the policy untouched.
std::optional<std::string> validate_policy(const json& document) {
  if (!document.is_object()) return "a policy must be a JSON object";
  for (const auto& [key, value] : document.items()) {
    if (!contains(kPolicyKeys, key)) {
      return "unknown key " + json_quoted(key) + " (expected \"name\", \"description\", \"rules\")";
    }
    if (key == "name" || key == "description") {
      if (!value.is_string()) return json_quoted(key) + " must be a string";
    } else if (!value.is_object()) {  // "rules"
      return "\"rules\" must be an object mapping rule ids to {\"enabled\", \"severity\"}";
    }
  }
  const auto rules = document.find("rules");
  if (rules == document.end()) return std::nullopt;
  for (const auto& [id, setting] : rules->items()) {
    if (find_rule(id) == nullptr) {
      std::vector<std::string> ids;
      for (const auto& [known, rule] : rule_catalog()) ids.push_back(known);
      const auto near = nearest_match(id, ids);
      return "unknown rule id " + json_quoted(id) + (near ? "; did you mean " + json_quoted(*near) + "?" : "") +
             " (`hsperfguard rules` lists the known ids)";
    }
    if (!setting.is_object()) {
      return "rule " + json_quoted(id) + ": expected an object like {\"enabled\": false}";
    }
    for (const auto& [key, value] : setting.items()) {
      if (!contains(kPolicyRuleKeys, key)) {
        return "rule " + json_quoted(id) + ": unknown key " + json_quoted(key) +
               " (expected \"enabled\", \"severity\")";
      }
      if (key == "enabled") {
        if (!value.is_boolean())
          return "rule " + json_quoted(id) + ": \"enabled\" must be true or false";
      } else if (!value.is_string() || !parse_severity(value.get_ref<const std::string&>())) {  // "severity"
        const auto near = value.is_string()
                              ? nearest_match(value.get_ref<const std::string&>(),
                                              {"info", "low", "medium", "high", "critical"})
                              : std::nullopt;
        return "rule " + json_quoted(id) + ": unknown severity " + describe_value(value) +
               (near ? "; did you mean " + json_quoted(*near) + "?" : "") +
               " (expected info, low, medium, high or critical)";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

const std::map<std::string, RuleInfo, std::less<>>& rule_catalog() {
  static const auto catalog = load_catalog();
  return catalog;
}

const RuleInfo* find_rule(std::string_view id) {
  const auto& catalog = rule_catalog();
  const auto it = catalog.find(id);
  return it == catalog.end() ? nullptr : &it->second;
}

bool Policy::enabled(std::string_view rule) const {
  const auto it = rules.find(rule);
  return it == rules.end() || it->second.enabled;
}

Severity Policy::severity_of(std::string_view rule, Severity fallback) const {
  const auto it = rules.find(rule);
  return it != rules.end() && it->second.severity ? *it->second.severity : fallback;
}

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const auto& file : embedded_rules::profile_files()) {
    names.emplace_back(profile_name_of(file.name));
  }
  return names;
}

std::optional<Policy> builtin_profile(std::string_view name) {
  for (const auto& file : embedded_rules::profile_files()) {
    if (profile_name_of(file.name) != name) continue;
    const std::string where = "profiles/" + std::string(file.name);
    json document;
    try {
      document = json::parse(file.text);
    } catch (const json::parse_error& e) {
      embedded_defect(where, std::string("not valid JSON: ") + e.what());
    }
    const auto declared = document.is_object() ? document.find("name") : document.end();
    if (declared == document.end() || !declared->is_string() ||
        declared->get_ref<const std::string&>() != name) {
      embedded_defect(where, "\"name\" must be " + json_quoted(name));
    }
    Policy policy;
    policy.name = std::string(name);
    if (auto problem = apply_policy(policy, document)) embedded_defect(where, *problem);
    return policy;
  }
  return std::nullopt;
}

std::optional<std::string> apply_policy(Policy& base, const nlohmann::json& document) {
  if (auto problem = validate_policy(document)) return problem;
  if (const auto name = document.find("name"); name != document.end()) {
    base.name = name->get<std::string>();
  }
  const auto rules = document.find("rules");
  if (rules == document.end()) return std::nullopt;
  for (const auto& [id, setting] : rules->items()) {
    RuleSetting& target = base.rules[id];
    if (const auto enabled = setting.find("enabled"); enabled != setting.end()) {
      target.enabled = enabled->get<bool>();
    }
    if (const auto severity = setting.find("severity"); severity != setting.end()) {
      target.severity = parse_severity(severity->get_ref<const std::string&>());
    }
  }
  return std::nullopt;
}

namespace {
// "at line 4, column 5: syntax error while parsing object - unexpected string literal;
// expected '}'": where the parser stopped (its byte offset counted into lines and columns of
// `text`) and what it expected there.
std::string json_error_place(std::string_view text, const json::parse_error& e) {
  // e.byte counts the bytes read, the offending one included (0 when nothing was read).
  const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
  const std::string_view before = text.substr(0, at);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  std::string out = "at line " + std::to_string(line) + ", column " + std::to_string(at - line_start + 1);
  // The parser's words after its own prefix ("[json.exception.parse_error.101] parse error at
  // line 4, column 5: ").
  const std::string_view what = e.what();
  if (const auto colon = what.find(": "); colon != std::string_view::npos) {
    out += ": ";
    out += what.substr(colon + 2);
  }
  return out;
}
}  // namespace

std::optional<std::string> apply_policy_text(Policy& base, std::string_view text) {
  // A policy is a few levels deep ({"rules": {"id": {"severity": "high"}}}). Deeper values
  // are discarded while parsing (the parser itself does not recurse) and refused.
  constexpr int kMaxDepth = 8;
  bool too_deep = false;
  const json::parser_callback_t keep = [&](int depth, json::parse_event_t, json&) {
    if (depth <= kMaxDepth) return true;
    too_deep = true;
    return false;
  };
  json document;
  try {
    document = json::parse(text, keep, true);
  } catch (const json::parse_error& e) {
    if (too_deep) return "nested deeper than " + std::to_string(kMaxDepth) + " levels: not a policy";
    return "not valid JSON " + json_error_place(text, e);
  }
  if (too_deep) return "nested deeper than " + std::to_string(kMaxDepth) + " levels: not a policy";
  if (document.is_discarded()) return std::string("not valid JSON");
  return apply_policy(base, document);
}

namespace {

bool windows_path(std::string_view path) {
  return path.find('\\') != std::string_view::npos && path.find('/') == std::string_view::npos;
}

void replace_all(std::string& text, std::string_view placeholder, const std::string& with) {
  for (std::size_t at = text.find(placeholder); at != std::string::npos;
       at = text.find(placeholder, at + with.size())) {
    text.replace(at, placeholder.size(), with);
  }
}

constexpr std::string_view kNamespacePrefix = "hsperfdata_";

}  // namespace

std::string remediation_for(const RuleInfo& rule, std::string_view path) {
  std::string remedy = rule.remediation;
  if (path.empty()) return remedy;
  const char separator = windows_path(path) ? '\\' : '/';
  // The namespace: the subject itself when its last component is hsperfdata_*, else its
  // directory when that is.
  auto last_component = [&](std::string_view p) {
    const std::size_t slash = p.rfind(separator);
    return slash == std::string_view::npos ? p : p.substr(slash + 1);
  };
  std::optional<std::string_view> ns;
  if (last_component(path).starts_with(kNamespacePrefix)) {
    ns = path;
  } else if (const std::size_t slash = path.rfind(separator); slash != std::string_view::npos && slash > 0) {
    const std::string_view parent = path.substr(0, slash);
    if (last_component(parent).starts_with(kNamespacePrefix)) ns = parent;
  }
  const std::string subject = shell_word(path);
  replace_all(remedy, "<path>", subject);
  replace_all(remedy, "<file>", subject);
  if (ns) {
    replace_all(remedy, "/tmp/hsperfdata_<user>", shell_word(*ns));
    replace_all(remedy, "<namespace>", shell_word(*ns));
    const std::string_view user = last_component(*ns).substr(kNamespacePrefix.size());
    if (!user.empty()) {
      replace_all(remedy, "--user <user>", shell_option("--user", user));
      replace_all(remedy, "<user>", shell_word(user));
    }
  }
  return remedy;
}

Findings apply_policy_to_findings(Findings findings, const Policy& policy) {
  std::erase_if(findings, [&](const Finding& finding) { return !policy.enabled(finding.rule); });
  for (Finding& finding : findings) {
    // A finding of a rule the catalogue does not know is kept as it is: never swallowed.
    if (const RuleInfo* info = find_rule(finding.rule)) {
      finding.severity = policy.severity_of(finding.rule, info->severity);
      if (finding.remediation.empty()) finding.remediation = remediation_for(*info, finding.path);
    } else {
      finding.severity = policy.severity_of(finding.rule, finding.severity);
    }
  }
  return findings;
}

}  // namespace hsperfguard
