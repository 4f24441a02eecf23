// The create report's JSON, from the record the command keeps as it goes.
#include "report/create_report.hpp"

#include "model/json_text.hpp"
#include "model/text_escape.hpp"
#include "report/audit_report_json.hpp"
#include "version.hpp"

namespace hsperfguard {

nlohmann::json create_report_json(const CreateRecord& record, const HostInfo& host) {
  using nlohmann::json;
  const auto opt = [](const auto& value) { return value ? json(*value) : json(nullptr); };
  json report;
  report["schema"] = "hsperfguard-create/1";
  report["tool"] = {{"name", "hsperfguard"}, {"version", kVersion}};
  report["host"] = {{"name", escape_non_utf8(host.name)},
                    {"os", host.os},
                    {"kernel", escape_non_utf8(host.kernel)},
                    {"euid", host.euid}};
  report["command"] = "create";
  report["generated_at"] = format_utc_millis(record.generated_at_ms);
  put_text(report, "user", record.user);
  report["profile"] = record.profile;
  report["policy_file"] = record.policy_file ? json(escape_non_utf8(*record.policy_file)) : json(nullptr);
  if (record.namespace_path.empty()) {
    report["namespace"] = nullptr;
  } else {
    json ns;
    put_text(ns, "path", record.namespace_path);
    ns["action"] = opt(record.namespace_action);
    ns["mode_before"] = record.mode_before ? json(octal_mode(*record.mode_before)) : json(nullptr);
    ns["mode"] = record.mode ? json(octal_mode(*record.mode)) : json(nullptr);
    ns["uid"] = opt(record.uid);
    ns["owner_sid"] = opt(record.owner_sid);
    report["namespace"] = std::move(ns);
  }
  if (record.backing_file) {
    json file;
    put_text(file, "path", *record.backing_file);
    file["size"] = opt(record.backing_file_size);
    file["mode"] = record.backing_file_mode ? json(octal_mode(*record.backing_file_mode)) : json(nullptr);
    report["backing_file"] = std::move(file);
  } else {
    report["backing_file"] = nullptr;
  }
  json& notes = report["notes"] = json::array();
  for (const auto& note : record.notes) notes.push_back(escape_non_utf8(note));
  json& findings = report["findings"] = json::array();
  for (const auto& f : record.findings) {
    json j;
    j["rule"] = f.finding.rule;
    j["severity"] = to_string(f.finding.severity);
    put_text(j, "path", f.finding.path);
    put_text(j, "message", f.finding.message);
    j["blocking"] = f.blocking;
    j["repair"] = f.advice.empty() ? json(nullptr) : json(escape_non_utf8(f.advice));
    findings.push_back(std::move(j));
  }
  json& errors = report["errors"] = json::array();
  for (const auto& e : record.errors) errors.push_back(error_to_json(e));
  report["exit_code"] = record.exit_code;
  report["exit_reason"] = record.exit_code != 0 ? json(escape_non_utf8(record.exit_reason)) : json(nullptr);
  return report;
}

}  // namespace hsperfguard
