// What an audit report states once instead of in every finding (report version 2): the rules
// of the run, each with what is the same for all its findings (title, rationale, remediation
// template, references, the severity this run gives it), and the long texts that findings of
// many subjects share once their subject's path is written as `<path>`; and a finding written
// against them, carrying only its own facts. docs/migration.md says how a consumer rebuilds
// every version 1 field from them.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/finding.hpp"
#include "model/rule_catalog.hpp"

namespace hsperfguard {

// The placeholder that stands for a finding's own path in a shared text.
inline constexpr std::string_view kPathPlaceholder = "<path>";

// `text` with every occurrence of `path` written as `<path>`, or nullopt when `text` already
// holds `<path>` itself (then no consumer could tell the placeholder from the text, and the
// text is written whole). Filling `<path>` back with `path` gives `text` again.
std::optional<std::string> path_template(std::string_view text, std::string_view path);

// The rules of a run's report: every rule of the catalogue that its policy enables, in id
// order, with the severity the policy gives it. A finding names its rule by index.
class ReportRules {
 public:
  explicit ReportRules(const Policy& policy);

  // The index of `rule` in the report's "rules", or nullopt for an id the catalogue does not
  // know or the policy disables (its finding then carries everything itself).
  std::optional<std::size_t> index_of(std::string_view rule) const;
  Severity severity_at(std::size_t index) const { return rules_.at(index).severity; }
  // The report's "rules" array.
  nlohmann::json to_json() const;

 private:
  struct Entry {
    const RuleInfo* info = nullptr;
    Severity severity = Severity::medium;
  };
  std::vector<Entry> rules_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

// The report's "texts": each long text that findings share, by a key made from its bytes, so
// that a finding written on any worker thread names it the same way. Bounded: past kMaxTexts
// texts or kMaxBytes bytes a finding carries its text itself, so the memory of a run does not
// grow with its findings. Thread-safe.
class ReportTexts {
 public:
  static constexpr std::size_t kMaxTexts = 4096;
  static constexpr std::size_t kMaxBytes = std::size_t{4} << 20;
  // A text shorter than this is written where it is used: its key would cost about as much.
  static constexpr std::size_t kMinShared = 40;

  // The key of `text` in the table (added if new), or nullopt when the text is short, the
  // table is full, or another text has the same key.
  std::optional<std::string> key_for(const std::string& text);
  // The report's "texts" object, keys in order.
  nlohmann::json to_json() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::string> texts_;
  std::size_t bytes_ = 0;
};

// What a finding is written against: the run's rules, its shared texts (null: every text
// written in the finding), and the path of the subject that holds it (its temp dir, namespace,
// file or attach file), which its own path is omitted for when they are equal.
struct FindingContext {
  const ReportRules* rules = nullptr;
  ReportTexts* texts = nullptr;
  std::string_view subject_path;
  // Whether a finding's evidence is stated elsewhere in the subject's record (version 3: a
  // file's verdict or region), and so not written in the finding. Empty: never.
  std::function<bool(const Finding&)> evidence_in_record = nullptr;
};

// A list of findings as the report writes it, compactly, keys in sorted order.
void append_report_findings(std::string& out, const Findings& findings, const FindingContext& context);
// The same as a document (parsed from that text: one rendering).
nlohmann::json report_findings_json(const Findings& findings, const FindingContext& context);

}  // namespace hsperfguard
