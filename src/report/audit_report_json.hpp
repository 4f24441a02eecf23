// The JSON report ("hsperfguard-report/3", schema in schemas/report.schema.json).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "decide/audit.hpp"
#include "model/host_info.hpp"
#include "model/json_text.hpp"
#include "report/finding_json.hpp"

namespace hsperfguard {

struct ReportContext {
  std::string command = "audit";
  HostInfo host;
  Severity fail_on = Severity::medium;
  std::optional<std::string> policy_file;  // the policy file applied on top of the profile
};

// Version 2 states each rule's texts once ("rules") and the texts findings share ("texts");
// version 3 leaves to a file's record the evidence of its findings that the record states (its
// verdict, its region). docs/migration.md says how each earlier version's fields are rebuilt.
inline constexpr const char* kReportSchema = "hsperfguard-report/3";

// The report as a document: what write_audit_report_json writes, parsed (one rendering).
nlohmann::json audit_report_json(const AuditResult& result, const ReportContext& context);

class StreamingWriter;

// The report written as the audit goes: the members known at the start, then each namespace as it
// is judged, then the attach files (as they are judged, or from the result), then the temp
// dirs, summary and errors. Pretty-printed as dump_json
// would, except each file's record, which is one compact line. Memory is that of one namespace.
class AuditJsonWriter {
 public:
  // `policy`: the run's profile and policy, whose enabled rules the report states once.
  AuditJsonWriter(const ReportContext& context, const Policy& policy, std::int64_t started_at_ms,
                  const std::function<void(std::string_view)>& sink);
  ~AuditJsonWriter();
  AuditJsonWriter(const AuditJsonWriter&) = delete;
  AuditJsonWriter& operator=(const AuditJsonWriter&) = delete;

  void add_namespace(std::size_t root_index, const TempRootFacts& root, const NamespaceFacts& ns,
                     const NamespaceJudgement& judgement);
  // The same, rendered beforehand by render_audit_namespace (on any thread).
  void add_rendered_namespace(std::string_view text);
  // A later part of a namespace, or what closes it after its last part (render_audit_namespace).
  void add_rendered_continuation(std::string_view text);
  // An attach file judged apart from its temp dir (observe_attach_files), after every
  // namespace: the report's "attach" list, one part at a time, in any number.
  void add_attach(std::size_t root_index, const AttachFacts& attach, const Findings& findings);
  // `result`: every root (namespaces not needed), root-level judgements, times, completeness.
  // The attach files still in result's roots follow those added.
  void finish(const AuditResult& result, const AuditTally& tally);
  // What render_audit_namespace writes findings against: this report's rules and texts (the
  // texts are shared by the workers that render, and written by finish()).
  FindingContext findings_context() const;

 private:
  void open_attach();  // closes the namespaces, opens "attach"

  std::unique_ptr<StreamingWriter> out_;
  std::unique_ptr<ReportRules> rules_;
  std::unique_ptr<ReportTexts> texts_;
  bool first_member_ = true;
  bool first_namespace_ = true;
  bool attach_open_ = false;
  bool first_attach_ = true;
};

// One namespace's object as AuditJsonWriter writes it among the report's namespaces,
// appended to `text` (whose memory a caller may reuse from namespace to namespace), its
// findings written against `findings` (the writer's findings_context()). Pure but for the
// shared texts it adds to: workers render namespaces in parallel, the writer puts them in order. A namespace observed
// in parts (NamespaceFacts::part): part 0 renders the object up to its last file so far and
// puts what closes the object in `closing` (given to the writer after the last part); a later
// part renders its file records only (add_rendered_continuation).
void render_audit_namespace(std::string& text, std::string* closing, std::size_t root_index,
                            const TempRootFacts& root, const NamespaceFacts& ns,
                            const NamespaceJudgement& judgement, const FindingContext& findings);

// A whole result through AuditJsonWriter.
void write_audit_report_json(const AuditResult& result, const ReportContext& context,
                             const std::function<void(std::string_view)>& sink);

// The report's shapes of an observation error and of an inode (null when absent), for the
// other commands' reports (reap).
nlohmann::json error_to_json(const ObservationError& error);
// What an audit or reap run could not look at (its "not_looked_at"; any of it makes the run
// incomplete).
nlohmann::json not_looked_at_json(const NotLookedAt& missing);
// What an audit or reap run was asked to look at (its "scope"): the user of --user, or null.
nlohmann::json scope_json(const std::optional<std::string>& user);
nlohmann::json inode_to_json(const std::optional<InodeFacts>& inode);

}  // namespace hsperfguard
