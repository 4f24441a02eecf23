#include "report/ps_report.hpp"

#include <sstream>

#include "model/text_escape.hpp"
#include "model/verdict.hpp"
#include "report/audit_report_json.hpp"

namespace hsperfguard {
namespace {

std::string opt_int(const std::optional<std::int32_t>& v) { return v ? std::to_string(*v) : "-"; }

// The row's uptime: "-" for a file whose JVM is gone (stale, pid-reused, foreign), which is
// not up however long ago it started (its start stays in the JSON's start_time_ms).
std::string row_uptime(const PsRow& r, std::int64_t now_ms) {
  const bool gone = r.state == to_string(Verdict::stale) || r.state == to_string(Verdict::pid_reused) ||
                    r.state == to_string(Verdict::foreign);
  return gone ? "-" : format_uptime(r.start_time_ms, now_ms);
}

}  // namespace

std::string format_uptime(std::optional<std::int64_t> start_ms, std::int64_t now_ms) {
  if (!start_ms || *start_ms > now_ms) return "-";
  std::int64_t s = (now_ms - *start_ms) / 1000;
  const std::int64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;
  s %= 60;
  auto two = [](std::int64_t v) { return std::string(v < 10 ? "0" : "") + std::to_string(v); };
  if (d > 0) return std::to_string(d) + "d" + two(h) + "h";
  if (h > 0) return std::to_string(h) + "h" + two(m) + "m";
  if (m > 0) return std::to_string(m) + "m" + two(s) + "s";
  return std::to_string(s) + "s";
}

std::string ps_text(const std::vector<PsRow>& rows, std::int64_t now_ms, std::optional<std::size_t> columns) {
  std::vector<std::vector<std::string>> table;
  table.push_back(
      {"HOST-PID", "NS-PID", "USER", "STATE", "UPTIME", "CONTAINER", "VERSION", "MAIN"});
  for (const auto& r : rows) {
    std::string container = "-";
    if (r.mount_namespace && r.root_kind == RootKind::container) container = *r.mount_namespace;
    std::string main = r.main ? *r.main : r.command_line ? "[" + *r.command_line + "]" : "-";
    table.push_back({opt_int(r.host_pid), opt_int(r.ns_pid), r.user ? terminal_safe(*r.user) : "-",
                     r.state, row_uptime(r, now_ms), terminal_safe(container),
                     r.vm_version ? terminal_safe(*r.vm_version) : "-", terminal_safe(main)});
  }
  std::vector<std::size_t> width(table.front().size(), 0);
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  std::ostringstream rows_text;
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      rows_text << line[i];
      if (i + 1 < line.size()) rows_text << std::string(width[i] - line[i].size() + 2, ' ');
    }
    rows_text << "\n";
  }
  std::ostringstream out;
  out << (columns ? fit_to_columns(rows_text.str(), *columns) : rows_text.str());
  // Why each invisible JVM is invisible, and the fix.
  bool first = true;
  for (const auto& r : rows) {
    if (!r.explanation) continue;
    if (first) out << "\n";
    first = false;
    out << opt_int(r.host_pid) << " " << r.state << " (" << r.reason
        << "): " << terminal_safe(*r.explanation);
    if (r.fix) out << "; fix: " << terminal_safe(*r.fix);
    out << "\n";
  }
  // Why the host's attach misses a JVM that jps lists, and what reaches it.
  for (const auto& r : rows) {
    if (!r.reach_explanation) continue;
    if (first) out << "\n";
    first = false;
    out << opt_int(r.host_pid) << " " << r.state << " (" << r.reach_cause.value_or("")
        << "): " << terminal_safe(*r.reach_explanation) << "\n";
  }
  return out.str();
}

nlohmann::json ps_json(const std::vector<PsRow>& rows, std::int64_t now_ms,
                       const std::vector<ObservationError>& errors) {
  using nlohmann::json;
  json doc;
  doc["schema"] = "hsperfguard-ps/1";
  doc["generated_at"] = format_utc_millis(now_ms);
  json& list = doc["jvms"] = json::array();
  auto opt = [](auto& j, const char* key, const auto& value) {
    j[key] = value ? json(*value) : json(nullptr);
  };
  for (const auto& r : rows) {
    json j;
    opt(j, "host_pid", r.host_pid);
    opt(j, "ns_pid", r.ns_pid);
    if (r.user)
      put_text(j, "user", *r.user);
    else
      j["user"] = nullptr;
    j["root_kind"] = to_string(r.root_kind);
    opt(j, "mount_namespace", r.mount_namespace);
    if (r.cgroup)
      put_text(j, "cgroup", *r.cgroup);
    else
      j["cgroup"] = nullptr;
    if (r.main)
      put_text(j, "main", *r.main);
    else
      j["main"] = nullptr;
    if (r.command_line)
      put_text(j, "command_line", *r.command_line);
    else
      j["command_line"] = nullptr;
    if (r.vm_version)
      put_text(j, "vm_version", *r.vm_version);
    else
      j["vm_version"] = nullptr;
    opt(j, "start_time_ms", r.start_time_ms);
    j["uptime"] = row_uptime(r, now_ms);
    if (r.backing_file)
      put_text(j, "backing_file", *r.backing_file);
    else
      j["backing_file"] = nullptr;
    j["state"] = r.state;
    j["reason"] = r.reason;
    json details = json::array();
    for (const auto& d : r.details) details.push_back(sanitize_json(json(d)));
    j["details"] = std::move(details);
    opt(j, "lock_holder_pid", r.lock_holder_pid);
    if (r.explanation)
      put_text(j, "explanation", *r.explanation);
    else
      j["explanation"] = nullptr;
    if (r.fix)
      put_text(j, "fix", *r.fix);
    else
      j["fix"] = nullptr;
    if (r.reach_cause) {
      json reach = {{"cause", *r.reach_cause}};
      if (r.unit)
        put_text(reach, "unit", *r.unit);
      else
        reach["unit"] = nullptr;
      put_text(reach, "explanation", r.reach_explanation.value_or(""));
      put_text(reach, "command", r.reach_command.value_or(""));
      j["reach"] = std::move(reach);
    } else {
      j["reach"] = nullptr;
    }
    list.push_back(std::move(j));
  }
  json& errs = doc["errors"] = json::array();
  for (const auto& e : errors) errs.push_back(error_to_json(e));
  return doc;
}

}  // namespace hsperfguard
