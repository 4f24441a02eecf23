#include "report_json.hpp"

#include <array>
#include <cstdio>
#include <ctime>
#include <map>

#include "inspect.hpp"
#include "text_escape.hpp"
#include "version.hpp"

namespace hsperfguard {

using nlohmann::json;

std::string_view to_string(FileKind kind) {
  switch (kind) {
    case FileKind::regular: return "regular";
    case FileKind::directory: return "directory";
    case FileKind::symlink: return "symlink";
    case FileKind::fifo: return "fifo";
    case FileKind::socket: return "socket";
    case FileKind::char_device: return "char-device";
    case FileKind::block_device: return "block-device";
    case FileKind::unknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(RootKind kind) {
  switch (kind) {
    case RootKind::host: return "host";
    case RootKind::tmpdir: return "tmpdir";
    case RootKind::root: return "root";
    case RootKind::container: return "container";
  }
  return "host";
}

std::string octal_mode(std::uint32_t mode) {
  std::array<char, 16> buf{};
  std::snprintf(buf.data(), buf.size(), "%04o", mode & 07777u);
  return buf.data();
}

std::string format_utc_millis(std::int64_t epoch_ms) {
  const std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
#ifdef _WIN32
  gmtime_s(&tm, &secs);
#else
  gmtime_r(&secs, &tm);
#endif
  std::array<char, 96> buf{};
  std::snprintf(buf.data(), buf.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(epoch_ms % 1000));
  return buf.data();
}

void put_text(json& document, const std::string& key, std::string_view raw) {
  document[key] = escape_non_utf8(raw);
  if (!is_valid_utf8(raw)) document[key + "_hex"] = to_hex(raw);
}

json sanitize_json(const json& value) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    return is_valid_utf8(s) ? value : json(escape_non_utf8(s));
  }
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value) out.push_back(sanitize_json(v));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : value.items()) out[escape_non_utf8(k)] = sanitize_json(v);
    return out;
  }
  return value;
}

std::string dump_json(const json& document, int indent) {
  return document.dump(indent, ' ', false, json::error_handler_t::replace);
}

namespace {

json finding_json(const Finding& f) {
  json j;
  j["rule"] = f.rule;
  j["severity"] = to_string(f.severity);
  put_text(j, "path", f.path);
  j["message"] = escape_non_utf8(f.message);
  j["evidence"] = sanitize_json(f.evidence);
  j["remediation"] = f.remediation;
  return j;
}

json findings_json(const Findings& findings) {
  json out = json::array();
  for (const auto& f : findings) out.push_back(finding_json(f));
  return out;
}

json error_json(const ObservationError& e) {
  json j;
  put_text(j, "path", e.path);
  j["op"] = e.op;
  j["code"] = e.code;
  j["message"] = escape_non_utf8(e.message);
  return j;
}

json errors_json(const std::vector<ObservationError>& errors, json& all) {
  json out = json::array();
  for (const auto& e : errors) {
    out.push_back(error_json(e));
    all.push_back(out.back());
  }
  return out;
}

json inode_json(const std::optional<InodeFacts>& inode) {
  if (!inode) return nullptr;
  return {{"kind", to_string(inode->kind)}, {"mode", octal_mode(inode->mode)},
          {"uid", inode->uid},             {"gid", inode->gid},
          {"nlink", inode->nlink},         {"size", inode->size},
          {"dev", inode->dev},             {"ino", inode->ino},
          {"mtime", format_utc_millis(inode->mtime.millis())}};
}

json volume_json(const std::optional<VolumeFacts>& v) {
  if (!v) return nullptr;
  json j = {{"fs_type", v->fs_type}, {"network", v->network}};
  j["acl_support"] = v->acl_support ? json(*v->acl_support) : json(nullptr);
  j["compressed"] = v->compressed ? json(*v->compressed) : json(nullptr);
  return j;
}

json region_summary_json(const std::optional<RegionSummary>& summary) {
  if (!summary) return nullptr;
  const auto& r = summary->region;
  json j = {{"valid", r.valid()}, {"bytes_read", summary->bytes_read}, {"entries", r.entry_count}};
  j["prologue"] = r.prologue ? prologue_to_json(*r.prologue) : json(nullptr);
  j["error"] = r.error ? json{{"offset", r.error->offset}, {"reason", r.error->reason}} : json(nullptr);
  if (const auto* begin = r.find("sun.rt.createVmBeginTime"); begin && !begin->is_string()) {
    j["vm_begin_time"] = format_utc_millis(begin->long_value);
  }
  return j;
}

struct Counts {
  std::map<Severity, std::size_t> by_severity;
  std::map<std::string, std::size_t> by_rule;
  std::size_t total = 0;
  void add(const Findings& findings) {
    for (const auto& f : findings) {
      ++by_severity[f.severity];
      ++by_rule[f.rule];
      ++total;
    }
  }
};

}  // namespace

json error_to_json(const ObservationError& error) { return error_json(error); }

json inode_to_json(const std::optional<InodeFacts>& inode) { return inode_json(inode); }

json audit_report_json(const AuditResult& result, const ReportContext& context) {
  json report;
  report["schema"] = kReportSchema;
  report["tool"] = {{"name", "hsperfguard"}, {"version", kVersion}, {"build", kBuildInfo}};
  report["host"] = {{"name", escape_non_utf8(context.host.name)},
                    {"os", context.host.os},
                    {"kernel", escape_non_utf8(context.host.kernel)},
                    {"euid", context.host.euid}};
  report["command"] = context.command;
  report["profile"] = result.policy.name;
  report["fail_on"] = to_string(context.fail_on);
  report["started_at"] = format_utc_millis(result.started_at_ms);
  report["finished_at"] = format_utc_millis(result.finished_at_ms);
  report["duration_ms"] = result.finished_at_ms - result.started_at_ms;
  report["complete"] = !result.incomplete;

  json all_errors = json::array();
  json roots = json::array();
  json namespaces = json::array();
  json attach = json::array();
  Counts counts;
  std::size_t file_count = 0;
  std::map<std::string, std::size_t> by_verdict;

  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    const auto& root = result.roots[r];
    const auto& rj = result.judgements.at(r);
    json jr;
    jr["kind"] = to_string(root.kind);
    put_text(jr, "root", root.root);
    put_text(jr, "temp_dir", root.temp_dir);
    jr["inode"] = inode_json(root.opened ? root.opened : root.lstat);
    jr["volume"] = volume_json(root.volume);
    if (root.container) {
      jr["container"] = {{"host_pid", root.container->host_pid},
                         {"mount_namespace", root.container->mount_namespace}};
    }
    jr["findings"] = findings_json(rj.findings);
    jr["errors"] = errors_json(root.errors, all_errors);
    counts.add(rj.findings);
    roots.push_back(std::move(jr));

    for (std::size_t n = 0; n < root.namespaces.size(); ++n) {
      const auto& ns = root.namespaces[n];
      const auto& nj = rj.namespaces.at(n);
      json jn;
      jn["root"] = r;
      put_text(jn, "name", ns.name);
      put_text(jn, "path", ns.path);
      put_text(jn, "user", ns.user_suffix);
      const auto& inode = ns.opened ? ns.opened : ns.lstat;
      jn["kind"] = inode ? json(to_string(inode->kind)) : json(nullptr);
      jn["owner_uid"] = inode ? json(inode->uid) : json(nullptr);
      jn["mode"] = inode ? json(octal_mode(inode->mode)) : json(nullptr);
      jn["expected_uid"] = ns.user && ns.user->uid ? json(*ns.user->uid) : json(nullptr);
      jn["volume"] = volume_json(ns.volume);
      jn["findings"] = findings_json(nj.findings);
      jn["errors"] = errors_json(ns.errors, all_errors);
      counts.add(nj.findings);
      json files = json::array();
      for (std::size_t f = 0; f < ns.files.size(); ++f) {
        const auto& file = ns.files[f];
        const auto& fj = nj.files.at(f);
        json jf;
        put_text(jf, "name", file.name);
        put_text(jf, "path", file.path);
        const auto& fi = file.opened ? file.opened : file.lstat;
        jf["kind"] = fi ? json(to_string(fi->kind)) : json(nullptr);
        jf["pid"] = file.pid_name.pid ? json(*file.pid_name.pid) : json(nullptr);
        jf["pid_name"] = to_string(file.pid_name.kind);
        jf["inode"] = inode_json(fi);
        jf["region"] = region_summary_json(file.region);
        if (fj.verdict) {
          jf["verdict"] = {{"verdict", to_string(fj.verdict->verdict)},
                           {"reason", fj.verdict->reason},
                           {"message", escape_non_utf8(fj.verdict->message)},
                           {"evidence", sanitize_json(fj.verdict->evidence)}};
        } else {
          jf["verdict"] = nullptr;
        }
        jf["findings"] = findings_json(fj.findings);
        jf["errors"] = errors_json(file.errors, all_errors);
        counts.add(fj.findings);
        if (fj.verdict) ++by_verdict[std::string(to_string(fj.verdict->verdict))];
        files.push_back(std::move(jf));
      }
      file_count += ns.files.size();
      jn["files"] = std::move(files);
      namespaces.push_back(std::move(jn));
    }
    for (std::size_t a = 0; a < root.attach_files.size(); ++a) {
      const auto& af = root.attach_files[a];
      json ja;
      ja["root"] = r;
      put_text(ja, "path", af.path);
      ja["kind"] = af.kind == AttachFacts::Kind::listener_socket ? "listener-socket" : "trigger-file";
      ja["pid"] = af.pid ? json(*af.pid) : json(nullptr);
      ja["inode"] = inode_json(af.lstat);
      ja["findings"] = findings_json(rj.attach_files.at(a));
      ja["errors"] = errors_json(af.errors, all_errors);
      counts.add(rj.attach_files.at(a));
      attach.push_back(std::move(ja));
    }
  }

  report["roots"] = std::move(roots);
  report["namespaces"] = std::move(namespaces);
  report["attach"] = std::move(attach);
  json by_severity = json::object();
  for (Severity s : {Severity::info, Severity::low, Severity::medium, Severity::high, Severity::critical}) {
    by_severity[std::string(to_string(s))] = counts.by_severity[s];
  }
  json by_rule = json::object();
  for (const auto& [rule, n] : counts.by_rule) by_rule[rule] = n;
  const auto worst = highest_severity(result);
  report["summary"] = {{"findings", counts.total},
                       {"by_severity", by_severity},
                       {"by_rule", by_rule},
                       {"roots", result.roots.size()},
                       {"namespaces", report["namespaces"].size()},
                       {"files", file_count},
                       {"files_by_verdict", by_verdict},
                       {"errors", all_errors.size()},
                       {"highest_severity", worst ? json(to_string(*worst)) : json(nullptr)}};
  report["errors"] = std::move(all_errors);
  return report;
}

}  // namespace hsperfguard
