#include "decide/ps.hpp"

#include <algorithm>
#include <cerrno>
#include <set>

#include "checks/invisible.hpp"
#include "checks/reach.hpp"
#include "decide/audit.hpp"
#include "decide/remedy.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

std::optional<std::string> string_counter(const FileFacts& file, std::string_view name) {
  if (!file.region) return std::nullopt;
  const perfdata::Entry* e = file.region->region.find(name);
  if (e == nullptr || !e->is_string()) return std::nullopt;
  return std::string(e->string_value);
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

// A file ps has a row for, shown or not: a regular file with a pid's name, judged.
bool listed(const FileFacts& file) {
  const InodeFacts* inode = file.opened ? &*file.opened : file.lstat ? &*file.lstat : nullptr;
  return inode != nullptr && inode->kind == FileKind::regular && file.liveness &&
         file.pid_name.kind == PidNameKind::canonical;
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

// The row of a backing file ps shows: what its region says, its verdict, and the process
// that owns it (whose host pid is then in `owners`).
PsRow file_row(const TempRootFacts& root, const NamespaceFacts& ns, const FileFacts& file,
               const LivenessJudgement& verdict, const std::vector<JvmProcessFacts>& jvms,
               std::set<std::int32_t>& owners) {
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
    if (const auto reach = checks::diagnose_reach(root, *owner)) {
      row.reach_cause = std::string(checks::to_string(reach->cause));
      row.unit = reach->unit;
      row.reach_explanation = reach->explanation;
      row.reach_command = reach->command;
    }
  } else if (root.kind != RootKind::container && verdict.verdict == Verdict::live) {
    row.host_pid = file.pid_name.pid;  // on the host the name is the host pid
  }
  return row;
}

// The rows of a namespace's files that ps shows, in pid order.
void append_namespace_rows(const TempRootFacts& root, const LivenessSettings& settings,
                           const NamespaceFacts& ns, const std::vector<JvmProcessFacts>& jvms,
                           const PsOptions& options, std::set<std::int32_t>& owners,
                           std::vector<PsRow>& rows) {
  const std::size_t first = rows.size();
  for (const auto& file : ns.files) {
    if (!listed(file)) continue;
    const LivenessJudgement verdict = judge_liveness(file, settings);
    if (!shown(verdict.verdict, options)) continue;
    rows.push_back(file_row(root, ns, file, verdict, jvms, owners));
  }
  std::stable_sort(rows.begin() + static_cast<std::ptrdiff_t>(first), rows.end(),
                   [](const PsRow& a, const PsRow& b) { return a.ns_pid < b.ns_pid; });
}

// The row of a JVM that maps no backing file (blind) or one that was deleted: why, diagnosed
// in its namespace where HotSpot would have put its file, or from its own flags.
PsRow invisible_jvm_row(const JvmProcessFacts& jvm, const std::vector<TempRootFacts>& roots) {
  const auto [home, ns] = home_of(jvm, roots);
  PsRow row = process_row(jvm, jvm.backing_file_deleted ? "deleted" : "blind", "undetermined");
  if (home != nullptr) {
    const checks::InvisibleDiagnosis d = checks::diagnose_invisible(jvm, *home, ns);
    row.reason = std::string(checks::to_string(d.cause));
    row.details = d.details;
    row.lock_holder_pid = d.lock_holder;
    row.explanation = d.explanation;
    // The audit's remediation for this JVM: the catalogue's (the diagnosis's fix), fitted to
    // its temp dir as the audit fits it.
    Finding finding;
    finding.rule = std::string(checks::audit_rule_of(d.cause));
    finding.path = checks::invisible_finding_path(jvm, *home, ns);
    finding.remediation = d.fix;
    fit_remedy(finding, *home, ns, std::nullopt);
    row.fix = finding.remediation;
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
  return row;
}

// The row of a JVM that no listed backing file led to: invisible, mapping a file that was not
// found, or with maps that could not say.
PsRow jvm_without_file_row(const JvmProcessFacts& jvm, const std::vector<TempRootFacts>& roots) {
  PsRow row;
  if (jvm.invisible()) {
    row = invisible_jvm_row(jvm, roots);
  } else if (jvm.vm == VmKind::openj9 && !jvm.maps_backing_file.value_or(false)) {
    // Not an invisible HotSpot: OpenJ9 has no hsperfdata to publish (its jps, jcmd and jstat,
    // eclipse.dev/openj9/docs/tool_migration, use its Attach API, whose common directory is
    // .com_ibm_tools_attach in the temp dir, -Dcom.ibm.tools.attach.directory; HotSpot's tools
    // cannot attach to it, nor it to HotSpot).
    row = process_row(jvm, "openj9", "no-hsperfdata");
    row.explanation =
        "an OpenJ9 JVM (it maps libj9vm): OpenJ9 writes no hsperfdata, by design, so jps, jstat and jcmd of a "
        "HotSpot JDK never see it; the jps, jcmd and jstat of an OpenJ9 JDK reach it through OpenJ9's attach API "
        "(its directory .com_ibm_tools_attach in the temp dir), and its -Xdump agents write its dumps";
  } else if (jvm.maps_backing_file.value_or(false)) {
    row = process_row(jvm, "unlisted", "backing-file-not-found");
    row.backing_file = jvm.mapped_backing_file;
    if (const NamespaceFacts* ns = home_of(jvm, roots).ns; ns != nullptr && not_entered(*ns)) {
      // It publishes (jps in its own mount namespace sees it); we did not look inside.
      row.reason = "namespace-not-entered";
      row.explanation = "its namespace " + ns->path +
                        " is on another mount, which is not entered from outside the container; the JVM "
                        "publishes there";
    }
  } else if (jvm.process.maps_cut) {
    // Its maps were read only up to their cap: the backing file may be mapped beyond.
    row = process_row(jvm, "unknown", "maps-cut");
    row.explanation = "its maps are too long to read whole; whether it maps a backing file is not known";
  } else {
    row = process_row(jvm, "unknown", "maps-unreadable");
  }
  if (jvm.process.mount_namespace) {
    // Where its namespace would be: the container whose mount namespace it is in.
    for (const auto& root : roots) {
      if (root.container && root.container->mount_namespace == *jvm.process.mount_namespace) {
        row.root_kind = RootKind::container;
      }
    }
  }
  return row;
}

}  // namespace

std::vector<PsRow> ps_rows(const std::vector<TempRootFacts>& roots,
                           const std::vector<JvmProcessFacts>& jvms, const PsOptions& options) {
  std::vector<PsRow> rows;
  std::set<std::int32_t> owners;  // host pids of the JVMs that have a row through their file
  for (const auto& root : roots) {
    const LivenessSettings settings = liveness_settings_for(root);
    for (const auto& ns : root.namespaces) {
      append_namespace_rows(root, settings, ns, jvms, options, owners, rows);
    }
  }
  for (const auto& jvm : jvms) {
    if (owners.contains(jvm.process.pid)) continue;
    rows.push_back(jvm_without_file_row(jvm, roots));
  }
  return rows;
}

bool ps_rows_depend_on_locks(const std::vector<PsRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const PsRow& row) {
    if (row.state == "blind" || row.state == "deleted") return true;
    if (row.state == "unlisted" || row.state == "openj9" ||
        (row.state == "unknown" && (row.reason == "maps-unreadable" || row.reason == "maps-cut"))) {
      return false;  // a process's row: no file of ours decided it
    }
    return row.reason != "mapped";
  });
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
      if (!jvm.invisible() || !jvm_uses_temp_root(jvm, root)) continue;
      if (!jvm.user) {
        if (jvm.no_user_entry) root.invisible_jvms.push_back(jvm);  // no name: no namespace
        continue;
      }
      const bool has_namespace = std::any_of(root.namespaces.begin(), root.namespaces.end(),
                                             [&](const NamespaceFacts& n) { return n.user_suffix == *jvm.user; });
      if (!has_namespace) root.invisible_jvms.push_back(jvm);
    }
  }
}

}  // namespace hsperfguard
