// The rules and shared texts of a version 2 report, and a finding written against them
// (report/finding_json.hpp).
#include "report/finding_json.hpp"

#include <cstdint>

#include "model/compact_json.hpp"
#include "model/json_text.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {

using nlohmann::json;

std::optional<std::string> path_template(std::string_view text, std::string_view path) {
  if (text.find(kPathPlaceholder) != std::string_view::npos) return std::nullopt;
  std::string out(text);
  if (path.empty()) return out;
  // Left to right, never looking into what was just written: the placeholder's one '<' opens
  // it, so no "<path>" of the result overlaps text around it, and replacing each "<path>" by
  // the path again gives the text back.
  for (std::size_t at = out.find(path); at != std::string::npos;
       at = out.find(path, at + kPathPlaceholder.size())) {
    out.replace(at, path.size(), kPathPlaceholder);
  }
  return out;
}

ReportRules::ReportRules(const Policy& policy) {
  for (const auto& [id, info] : rule_catalog()) {
    if (!policy.enabled(id)) continue;
    index_.emplace(id, rules_.size());
    rules_.push_back({&info, policy.severity_of(id, info.severity)});
  }
}

std::optional<std::size_t> ReportRules::index_of(std::string_view rule) const {
  const auto it = index_.find(rule);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

json ReportRules::to_json() const {
  json out = json::array();
  for (const Entry& e : rules_) {
    const RuleInfo& r = *e.info;
    out.push_back({{"id", r.id},
                   {"title", r.title},
                   {"severity", to_string(e.severity)},
                   {"default_severity", to_string(r.severity)},
                   {"applies_to", r.applies_to},
                   {"rationale", r.rationale},
                   {"remediation", r.remediation},
                   {"references", r.references},
                   {"repairable", r.repairable}});
  }
  return out;
}

namespace {

// FNV-1a, 64 bits, of which the key keeps 48 (12 hex digits): at most kMaxTexts texts are
// keyed, and a second text meeting a taken key is written where it is used.
std::string text_key(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string key(12, '0');
  for (std::size_t i = 0; i < key.size(); ++i) key[key.size() - 1 - i] = kDigits[(hash >> (4 * i)) & 0xf];
  return key;
}

}  // namespace

std::optional<std::string> ReportTexts::key_for(const std::string& text) {
  if (text.size() < kMinShared) return std::nullopt;
  std::string key = text_key(text);
  const std::lock_guard lock(mutex_);
  if (const auto it = texts_.find(key); it != texts_.end()) {
    if (it->second == text) return key;
    return std::nullopt;  // another text has this key
  }
  if (texts_.size() >= kMaxTexts || bytes_ + text.size() > kMaxBytes) return std::nullopt;
  bytes_ += text.size();
  texts_.emplace(key, text);
  return key;
}

json ReportTexts::to_json() const {
  const std::lock_guard lock(mutex_);
  json out = json::object();
  for (const auto& [key, text] : texts_) out[key] = text;
  return out;
}

namespace {

// True when every string value and key of `value` is already valid UTF-8.
bool all_utf8(const json& value) {
  if (value.is_string()) return is_valid_utf8(value.get_ref<const std::string&>());
  if (value.is_array()) {
    for (const auto& v : value) {
      if (!all_utf8(v)) return false;
    }
  } else if (value.is_object()) {
    for (const auto& [k, v] : value.items()) {
      if (!is_valid_utf8(k) || !all_utf8(v)) return false;
    }
  }
  return true;
}

// A text of a finding under `key`, or its shared template's key under `key` + "_ref". `shown`
// is the text as version 1 wrote it (valid UTF-8), `path` the finding's path as written.
void put_shared_text(CompactObject& o, std::string_view key, const std::string& shown, std::string_view path,
                     ReportTexts* texts) {
  if (texts != nullptr) {
    if (const auto templated = path_template(shown, path)) {
      if (const auto ref = texts->key_for(*templated)) {
        o.string(std::string(key) + "_ref", *ref);
        return;
      }
    }
  }
  o.string(key, shown);
}

void append_finding(std::string& out, const Finding& f, const FindingContext& context, bool evidence_in_record) {
  const std::string path = escape_non_utf8(f.path);
  const std::optional<std::size_t> rule_index =
      context.rules != nullptr ? context.rules->index_of(f.rule) : std::nullopt;
  CompactObject o(out);
  if (evidence_in_record) {
    // stated in the subject's record: docs/migration.md says where
  } else if (all_utf8(f.evidence)) {
    append_json(o.key("evidence"), f.evidence);
  } else {
    append_json(o.key("evidence"), sanitize_json(f.evidence));
  }
  // "message" and "message_ref" sort before "path"; "remediation" and its "_ref" after.
  const std::string message = escape_non_utf8(f.message);
  put_shared_text(o, "message", message, path, context.texts);
  if (f.path != context.subject_path) o.text("path", f.path);
  if (is_valid_utf8(f.remediation)) {
    put_shared_text(o, "remediation", f.remediation, path, context.texts);
  } else {
    o.string("remediation", f.remediation);
  }
  if (f.repairable) o.boolean("repairable", true);
  o.string("rule", f.rule);
  // The index is taken out of the optional once: g++ 12 at -O2 warned (as an error under
  // -Werror) that a second dereference "may be used uninitialized".
  bool severity_is_the_rules = false;
  if (rule_index.has_value()) {
    const std::size_t index = rule_index.value();
    o.number("rule_index", index);
    severity_is_the_rules = context.rules->severity_at(index) == f.severity;
  }
  if (!severity_is_the_rules) o.string("severity", to_string(f.severity));
}

}  // namespace

void append_report_findings(std::string& out, const Findings& findings, const FindingContext& context) {
  out += '[';
  bool first = true;
  for (const auto& f : findings) {
    if (!first) out += ',';
    first = false;
    append_finding(out, f, context, context.evidence_in_record && context.evidence_in_record(f));
  }
  out += ']';
}

json report_findings_json(const Findings& findings, const FindingContext& context) {
  std::string text;
  append_report_findings(text, findings, context);
  return json::parse(text);
}

}  // namespace hsperfguard
