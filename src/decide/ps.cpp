#include "decide/ps.hpp"

#include <algorithm>
#include <cerrno>
#include <set>
#include <sstream>

#include "decide/audit.hpp"
#include "checks/invisible.hpp"
#include "report/report_json.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

std::optional<std::string> string_counter(const FileFacts& file, std::string_view name) {
  if (!file.region) return std::nullopt;
  const perfdata::Entry* e = file.region->region.find(name);
  if (e == nullptr || !e->is_string()) return std::nullopt;
  return e->string_value;
}

// The process that owns a backing file: one that maps it, else the lock holder.
const ProcessFacts* owner_of(const LivenessFacts& lf) {
  for (const auto& p : lf.candidates) {
    if (p.maps_backing_file.value_or(false)) return &p;
  }
  if (lf.lock_held.value_or(false) && lf.lock_holder_pid) {
    for (const auto& p : lf.candidates) {
      if (p.pid == *lf.lock_holder_pid) return &p;
    }
  }
  return nullptr;
}

const JvmProcessFacts* jvm_by_pid(const std::vector<JvmProcessFacts>& jvms, std::int32_t pid) {
  for (const auto& j : jvms) {
    if (j.process.pid == pid) return &j;
  }
  return nullptr;
}

bool shown(Verdict v, const PsOptions& options) {
  return options.all || v == Verdict::live || v == Verdict::unknown;
}

PsRow process_row(const JvmProcessFacts& jvm, std::string state, std::string reason) {
  PsRow row;
  row.host_pid = jvm.process.pid;
  if (!jvm.process.ns_pids.empty()) row.ns_pid = jvm.process.ns_pids.back();
  row.user = jvm.user;
  row.mount_namespace = jvm.process.mount_namespace;
  row.cgroup = jvm.process.cgroup;
  row.command_line = jvm.command_line;
  row.start_time_ms = jvm.process.start_time_ms;
  row.state = std::move(state);
  row.reason = std::move(reason);
  return row;
}

std::string opt_int(const std::optional<std::int32_t>& v) { return v ? std::to_string(*v) : "-"; }

// Where HotSpot puts `jvm`'s file: the temp dir it sees, and hsperfdata_<its user> there
// (null when that namespace does not exist).
struct Home {
  const TempRootFacts* root = nullptr;
  const NamespaceFacts* ns = nullptr;
};
Home home_of(const JvmProcessFacts& jvm, const std::vector<TempRootFacts>& roots) {
  Home home;
  for (const auto& root : roots) {
    if (!jvm_uses_temp_root(jvm, root)) continue;
    home.root = &root;
    for (const auto& n : root.namespaces) {
      if (jvm.user && n.user_suffix == *jvm.user) home.ns = &n;
    }
  }
  return home;
}

// Observation stopped at its mount boundary (a container's namespace on a mount of its own).
bool not_entered(const NamespaceFacts& ns) {
  for (const auto& e : ns.errors) {
    if (e.op == "openat" && e.code == EXDEV) return true;
  }
  return false;
}

}  // namespace

std::vector<PsRow> ps_rows(const std::vector<TempRootFacts>& roots,
                           const std::vector<JvmProcessFacts>& jvms, const PsOptions& options) {
  std::vector<PsRow> rows;
  std::set<std::int32_t> owners;  // host pids of the JVMs that have a row through their file
  for (const auto& root : roots) {
    const LivenessSettings settings = liveness_settings_for(root);
    for (const auto& ns : root.namespaces) {
      const std::size_t first = rows.size();
      for (const auto& file : ns.files) {
        const InodeFacts* inode = file.opened ? &*file.opened : file.lstat ? &*file.lstat : nullptr;
        if (inode == nullptr || inode->kind != FileKind::regular || !file.liveness ||
            file.pid_name.kind != PidNameKind::canonical) {
          continue;
        }
        const LivenessJudgement verdict = judge_liveness(file, settings);
        if (!shown(verdict.verdict, options)) continue;
        PsRow row;
        row.ns_pid = file.pid_name.pid;
        row.user = ns.user_suffix;
        row.root_kind = root.kind;
        if (root.container) {
          row.mount_namespace = root.container->mount_namespace;
          row.cgroup = root.container->cgroup;
        }
        row.main = string_counter(file, "sun.rt.javaCommand");
        row.vm_version = string_counter(file, "java.property.java.vm.version");
        row.start_time_ms = vm_begin_time_ms(file);
        row.backing_file = file.path;
        row.state = std::string(to_string(verdict.verdict));
        row.reason = std::string(verdict.reason);
        if (const ProcessFacts* owner = owner_of(*file.liveness)) {
          row.host_pid = owner->pid;
          owners.insert(owner->pid);
          if (const JvmProcessFacts* jvm = jvm_by_pid(jvms, owner->pid)) {
            if (!row.mount_namespace) row.mount_namespace = jvm->process.mount_namespace;
            if (jvm->process.cgroup) row.cgroup = jvm->process.cgroup;
          }
          if (!row.start_time_ms) row.start_time_ms = owner->start_time_ms;
        } else if (root.kind != RootKind::container && verdict.verdict == Verdict::live) {
          row.host_pid = file.pid_name.pid;  // on the host the name is the host pid
        }
        rows.push_back(std::move(row));
      }
      std::stable_sort(rows.begin() + static_cast<std::ptrdiff_t>(first), rows.end(),
                       [](const PsRow& a, const PsRow& b) { return a.ns_pid < b.ns_pid; });
    }
  }
  for (const auto& jvm : jvms) {
    if (owners.contains(jvm.process.pid)) continue;
    if (jvm.invisible()) {
      // Its namespace, where HotSpot would have put its file.
      const auto [home, ns] = home_of(jvm, roots);
      PsRow row = process_row(jvm, jvm.backing_file_deleted ? "deleted" : "blind", "undetermined");
      if (home != nullptr) {
        const checks::InvisibleDiagnosis d = checks::diagnose_invisible(jvm, *home, ns);
        row.reason = std::string(checks::to_string(d.cause));
        row.details = d.details;
        row.lock_holder_pid = d.lock_holder;
        row.explanation = d.explanation;
        row.fix = d.fix;
        row.root_kind = home->kind;
      } else if (jvm.backing_file_deleted) {
        row.reason = "backing-file-deleted";
        row.explanation = "its backing file was deleted while it runs";
      } else if (jvm.perf_data && jvm.perf_data->disables) {
        row.reason = "perf-data-disabled";
        row.explanation = "it was started with " + jvm.perf_data->flag + " (" + jvm.perf_data->source + ")";
      }
      if (jvm.backing_file_deleted) {
        row.backing_file = jvm.mapped_backing_file;
        row.main = jvm.region_main;
        row.vm_version = jvm.region_vm_version;
        if (jvm.region_begin_ms) row.start_time_ms = jvm.region_begin_ms;
      }
      rows.push_back(std::move(row));
    } else if (jvm.maps_backing_file.value_or(false)) {
      PsRow row = process_row(jvm, "unlisted", "backing-file-not-found");
      row.backing_file = jvm.mapped_backing_file;
      if (const NamespaceFacts* ns = home_of(jvm, roots).ns; ns != nullptr && not_entered(*ns)) {
        // It publishes (jps in its own mount namespace sees it); we did not look inside.
        row.reason = "namespace-not-entered";
        row.explanation = "its namespace " + ns->path +
                          " is on another mount, which is not entered from outside the container; the JVM "
                          "publishes there";
      }
      rows.push_back(std::move(row));
    } else {
      rows.push_back(process_row(jvm, "unknown", "maps-unreadable"));
    }
    if (jvm.process.mount_namespace) {
      // Where its namespace would be: the container whose mount namespace it is in.
      for (const auto& root : roots) {
        if (root.container && root.container->mount_namespace == *jvm.process.mount_namespace) {
          rows.back().root_kind = RootKind::container;
        }
      }
    }
  }
  return rows;
}

bool jvm_uses_temp_root(const JvmProcessFacts& jvm, const TempRootFacts& root) {
  const InodeFacts* dir = root.opened ? &*root.opened : nullptr;
  return dir != nullptr && jvm.temp_dir_dev && jvm.temp_dir_ino && dir->dev == *jvm.temp_dir_dev &&
         dir->ino == *jvm.temp_dir_ino;
}

void assign_invisible_jvms(const TempRootFacts& root, NamespaceFacts& ns,
                           const std::vector<JvmProcessFacts>& jvms) {
  for (const auto& jvm : jvms) {
    if (jvm.invisible() && jvm.user && ns.user_suffix == *jvm.user && jvm_uses_temp_root(jvm, root)) {
      ns.invisible_jvms.push_back(jvm);
    }
  }
}

void assign_invisible_jvms(std::vector<TempRootFacts>& roots, const std::vector<JvmProcessFacts>& jvms) {
  for (auto& root : roots) {
    for (auto& ns : root.namespaces) assign_invisible_jvms(root, ns, jvms);
    for (const auto& jvm : jvms) {
      if (!jvm.invisible() || !jvm.user || !jvm_uses_temp_root(jvm, root)) continue;
      const bool has_namespace = std::any_of(root.namespaces.begin(), root.namespaces.end(),
                                             [&](const NamespaceFacts& n) { return n.user_suffix == *jvm.user; });
      if (!has_namespace) root.invisible_jvms.push_back(jvm);
    }
  }
}

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

std::string ps_text(const std::vector<PsRow>& rows, std::int64_t now_ms) {
  std::vector<std::vector<std::string>> table;
  table.push_back({"HOST-PID", "NS-PID", "USER", "STATE", "UPTIME", "CONTAINER", "VERSION", "MAIN"});
  for (const auto& r : rows) {
    std::string container = "-";
    if (r.mount_namespace && r.root_kind == RootKind::container) container = *r.mount_namespace;
    std::string main = r.main ? *r.main : r.command_line ? "[" + *r.command_line + "]" : "-";
    table.push_back({opt_int(r.host_pid), opt_int(r.ns_pid), r.user ? terminal_safe(*r.user) : "-",
                     r.state, format_uptime(r.start_time_ms, now_ms), terminal_safe(container),
                     r.vm_version ? terminal_safe(*r.vm_version) : "-", terminal_safe(main)});
  }
  std::vector<std::size_t> width(table.front().size(), 0);
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  std::ostringstream out;
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      out << line[i];
      if (i + 1 < line.size()) out << std::string(width[i] - line[i].size() + 2, ' ');
    }
    out << "\n";
  }
  // Why each invisible JVM is invisible, and the fix.
  bool first = true;
  for (const auto& r : rows) {
    if (!r.explanation) continue;
    if (first) out << "\n";
    first = false;
    out << opt_int(r.host_pid) << " " << r.state << " (" << r.reason << "): " << terminal_safe(*r.explanation);
    if (r.fix) out << "; fix: " << terminal_safe(*r.fix);
    out << "\n";
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
    if (r.user) put_text(j, "user", *r.user); else j["user"] = nullptr;
    j["root_kind"] = to_string(r.root_kind);
    opt(j, "mount_namespace", r.mount_namespace);
    if (r.cgroup) put_text(j, "cgroup", *r.cgroup); else j["cgroup"] = nullptr;
    if (r.main) put_text(j, "main", *r.main); else j["main"] = nullptr;
    if (r.command_line) put_text(j, "command_line", *r.command_line); else j["command_line"] = nullptr;
    if (r.vm_version) put_text(j, "vm_version", *r.vm_version); else j["vm_version"] = nullptr;
    opt(j, "start_time_ms", r.start_time_ms);
    j["uptime"] = format_uptime(r.start_time_ms, now_ms);
    if (r.backing_file) put_text(j, "backing_file", *r.backing_file); else j["backing_file"] = nullptr;
    j["state"] = r.state;
    j["reason"] = r.reason;
    json details = json::array();
    for (const auto& d : r.details) details.push_back(sanitize_json(json(d)));
    j["details"] = std::move(details);
    opt(j, "lock_holder_pid", r.lock_holder_pid);
    if (r.explanation) put_text(j, "explanation", *r.explanation); else j["explanation"] = nullptr;
    if (r.fix) put_text(j, "fix", *r.fix); else j["fix"] = nullptr;
    list.push_back(std::move(j));
  }
  json& errs = doc["errors"] = json::array();
  for (const auto& e : errors) errs.push_back(error_to_json(e));
  return doc;
}

}  // namespace hsperfguard
