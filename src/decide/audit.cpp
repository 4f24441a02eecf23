#include "decide/audit.hpp"

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "decide/remedy.hpp"
#include "decide/repair.hpp"

namespace hsperfguard {

LivenessSettings liveness_settings_for(const TempRootFacts& root) {
  LivenessSettings liveness;
  liveness.container = root.kind == RootKind::container;
  return liveness;
}

namespace {

// The temp dir's own findings (repair_refusal reads their rule ids, which fitting keeps).
Findings temp_dir_findings(const TempRootFacts& root, const Policy& policy) {
  return apply_policy_to_findings(checks::check_temp_root(root), policy);
}

// Each finding's `repairable` and its remedy for where its subject is (decide/remedy.hpp),
// by repair's own decision.
void fit_remedies(Findings& findings, const TempRootFacts& root, const Findings& root_findings,
                  const RepairSubject& subject) {
  for (Finding& f : findings) fit_remedy(f, root, subject.ns, repair_refusal(root, root_findings, subject, f));
}

}  // namespace

RootJudgement judge_root(const TempRootFacts& root, const Policy& policy) {
  RootJudgement rj;
  rj.findings = temp_dir_findings(root, policy);
  fit_remedies(rj.findings, root, rj.findings, {});
  if (root.opened) rj.new_namespace_prediction = checks::predict_new_namespace(root, false);
  rj.attach_files.reserve(root.attach_files.size());
  for (const auto& attach : root.attach_files) rj.attach_files.push_back(judge_attach(root, attach, policy));
  return rj;
}

Findings judge_attach(const TempRootFacts& root, const AttachFacts& attach, const Policy& policy) {
  Findings findings = apply_policy_to_findings(checks::check_attach(root, attach), policy);
  fit_remedies(findings, root, {}, {.attach = true});
  return findings;
}

NamespaceJudgement judge_namespace(const TempRootFacts& root, const NamespaceFacts& ns,
                                   const Policy& policy) {
  return judge_namespace(root, ns, policy, temp_dir_findings(root, policy));
}

NamespaceJudgement judge_namespace(const TempRootFacts& root, const NamespaceFacts& ns,
                                   const Policy& policy, const Findings& root_findings) {
  NamespaceJudgement nj;
  if (ns.part == 0) {
    nj.prediction = checks::predict_publication(root, ns);
    nj.findings = apply_policy_to_findings(
        checks::check_namespace(root, ns, checks::RuleSelection::all(), &nj.prediction), policy);
    fit_remedies(nj.findings, root, root_findings, {.ns = &ns});
  }
  nj.files.reserve(ns.files.size());
  const LivenessSettings liveness = liveness_settings_for(root);
  for (const auto& file : ns.files) {
    FileJudgement fj;
    Findings findings = checks::check_file(root, ns, file);
    if (file.liveness) {
      // Decided once: the judgement carries it, the finding and the report explain it.
      fj.verdict = judge_liveness(file, liveness);
      for (auto& f : checks::check_verdict(ns, file, explain_liveness_brief(*fj.verdict, file))) {
        findings.push_back(std::move(f));
      }
    }
    fj.findings = apply_policy_to_findings(std::move(findings), policy);
    fit_remedies(fj.findings, root, root_findings, {.ns = &ns, .file = &file});
    nj.files.push_back(std::move(fj));
  }
  return nj;
}

std::vector<RootJudgement> judge(const std::vector<TempRootFacts>& roots, const Policy& policy) {
  std::vector<RootJudgement> out;
  out.reserve(roots.size());
  for (const auto& root : roots) {
    RootJudgement rj = judge_root(root, policy);
    rj.namespaces.reserve(root.namespaces.size());
    for (const auto& ns : root.namespaces) {
      rj.namespaces.push_back(judge_namespace(root, ns, policy, rj.findings));
    }
    out.push_back(std::move(rj));
  }
  return out;
}

namespace {

static_assert(static_cast<std::size_t>(Verdict::unknown) + 2 ==
                  std::tuple_size_v<decltype(AuditTally::files_by_verdict)>,
              "one slot per verdict and one for files without liveness evidence");

void add_flagged(AuditTally::FlaggedNamespace& to, const AuditTally::FlaggedNamespace& more) {
  for (const auto& [severity, n] : more.by_severity) to.by_severity[severity] += n;
  to.worst = std::max(to.worst, more.worst);
}

void count(AuditTally& t, const Finding& f) {
  ++t.findings;
  ++t.by_severity[f.severity];
  ++t.by_rule[f.rule];
  ++t.by_rule_and_severity[{f.rule, f.severity}];
  if (f.repairable) ++t.repairable;
  if (!t.worst || f.severity > *t.worst) t.worst = f.severity;
}

}  // namespace

// ENOENT: gone since it was listed. EXDEV: on another mount, deliberately not entered (the
// mount-boundary rules judge it): a refusal the report states as a finding, not something the
// run failed to look at; counting it made every host whose namespace is a mount (a pod's own
// tmpfs, a bind mount) incomplete.
bool leaves_unseen(const ObservationError& error) { return error.code != ENOENT && error.code != EXDEV; }

bool leaves_namespace_unseen(const NamespaceFacts& ns, const ObservationError& error) {
  return leaves_unseen(error) && (error.path == ns.path || error.path.starts_with(ns.path + "/"));
}

const ObservationError* first_unseen_error(const NamespaceFacts& ns) {
  for (const auto& e : ns.errors) {
    if (leaves_namespace_unseen(ns, e)) return &e;
  }
  for (const auto& file : ns.files) {
    const auto it = std::find_if(file.errors.begin(), file.errors.end(), leaves_unseen);
    if (it != file.errors.end()) return &*it;
  }
  return nullptr;
}

namespace {

bool any_unseen(const std::vector<ObservationError>& errors) {
  return std::any_of(errors.begin(), errors.end(), leaves_unseen);
}

std::string counted(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

void NotLookedAt::add(const NotLookedAt& other) {
  temp_dirs += other.temp_dirs;
  namespaces += other.namespaces;
  entries += other.entries;
  users += other.users;
  processes += other.processes;
  containers_not_scanned = containers_not_scanned || other.containers_not_scanned;
  as_root = as_root && other.as_root;
  scoped_to_user = scoped_to_user || other.scoped_to_user;
}

void NotLookedAt::add_namespace(const NamespaceFacts& ns) {
  // Its own errors, of the namespace or beneath it (leaves_namespace_unseen): counting those
  // about processes made every namespace of a host whose pid 1 refuses ptrace "unreadable".
  if (std::any_of(ns.errors.begin(), ns.errors.end(),
                  [&ns](const ObservationError& e) { return leaves_namespace_unseen(ns, e); })) {
    ++namespaces;
  }
  if (ns.part == 0 && ns.user_lookup_failed) ++users;
  for (const auto& file : ns.files) {
    if (any_unseen(file.errors)) ++entries;
  }
}

void NotLookedAt::add_root(const TempRootFacts& root) {
  if (!root.opened || any_unseen(root.errors)) ++temp_dirs;
  processes += root.unobserved.count;
  for (const auto& attach : root.attach_files) {
    if (any_unseen(attach.errors)) ++entries;
  }
}

std::string not_looked_at_line(const NotLookedAt& missing) {
  const bool as_root = missing.as_root;
  std::vector<std::string> parts;
  if (missing.temp_dirs > 0) parts.push_back(counted(missing.temp_dirs, "temp dir", "temp dirs") + " not read whole");
  if (missing.namespaces > 0) parts.push_back(counted(missing.namespaces, "namespace", "namespaces") + " unreadable");
  if (missing.entries > 0) parts.push_back(counted(missing.entries, "entry", "entries") + " unreadable");
  if (missing.users > 0) {
    parts.push_back("the users of " + counted(missing.users, "namespace", "namespaces") + " not looked up");
  }
  if (missing.processes > 0) {
    parts.push_back("the containers of " + counted(missing.processes, "process", "processes") + " not looked into");
  }
  if (missing.containers_not_scanned) parts.push_back("containers not scanned");
  if (parts.empty()) return {};
  std::string line = as_root ? "" : "not root: ";
  for (std::size_t i = 0; i < parts.size(); ++i) line.append(i == 0 ? "" : ", ").append(parts[i]);
  if (!as_root) line.append(": run as root").append(missing.scoped_to_user ? "" : ", or --user NAME for your own namespaces only");
  return line;
}

void AuditTally::add_errors(const std::vector<ObservationError>& more) {
  error_count += more.size();
  for (const auto& e : more) {
    if (errors.size() >= kKeptErrors) break;
    errors.push_back(e);
  }
}

void AuditTally::settle_open() {
  if (!open_) return;
  FlaggedNamespace done = std::move(*open_);
  open_.reset();
  if (done.by_severity.empty()) return;
  ++flagged_namespaces;
  ++flagged_by_worst[static_cast<std::size_t>(done.worst)];
  // The kept list: worst first, then by path; the least of them gives way.
  const auto before = [](const FlaggedNamespace& a, const FlaggedNamespace& b) {
    return a.worst != b.worst ? a.worst > b.worst : a.path < b.path;
  };
  if (flagged.size() == kKeptFlaggedNamespaces && !before(done, flagged.back())) return;
  flagged.insert(std::upper_bound(flagged.begin(), flagged.end(), done, before), std::move(done));
  if (flagged.size() > kKeptFlaggedNamespaces) flagged.pop_back();
}

void AuditTally::add_flagged_part(FlaggedNamespace&& part) {
  if (open_ && open_->path == part.path) {  // a later part of the namespace being counted
    add_flagged(*open_, part);
    return;
  }
  settle_open();
  open_ = std::move(part);
}

void AuditTally::add_namespace(const NamespaceFacts& ns, const NamespaceJudgement& judgement) {
  if (ns.part == 0) ++namespaces;
  files += ns.files.size();
  add_errors(ns.errors);
  for (const auto& file : ns.files) add_errors(file.errors);
  not_looked_at.add_namespace(ns);
  FlaggedNamespace flagged_ns{ns.path, {}, Severity::info};
  auto add = [&](const Finding& f) {
    count(*this, f);
    ++flagged_ns.by_severity[f.severity];
    flagged_ns.worst = std::max(flagged_ns.worst, f.severity);
  };
  for (const auto& f : judgement.findings) add(f);
  for (std::size_t i = 0; i < ns.files.size(); ++i) {
    const FileJudgement* file = i < judgement.files.size() ? &judgement.files[i] : nullptr;
    if (file != nullptr) {
      for (const auto& f : file->findings) add(f);
    }
    if (file == nullptr || !file->verdict) {
      ++files_by_verdict.back();
    } else {
      ++files_by_verdict[static_cast<std::size_t>(file->verdict->verdict)];
    }
  }
  add_flagged_part(std::move(flagged_ns));
}

void AuditTally::merge(AuditTally&& other) {
  findings += other.findings;
  for (const auto& [severity, n] : other.by_severity) by_severity[severity] += n;
  for (const auto& [rule, n] : other.by_rule) by_rule[rule] += n;
  for (const auto& [key, n] : other.by_rule_and_severity) by_rule_and_severity[key] += n;
  repairable += other.repairable;
  reap.remove += other.reap.remove;
  reap.kept_reapable += other.reap.kept_reapable;
  if (other.worst && (!worst || *other.worst > *worst)) worst = other.worst;
  roots += other.roots;
  namespaces += other.namespaces;
  files += other.files;
  attach_files += other.attach_files;
  for (std::size_t i = 0; i < files_by_verdict.size(); ++i)
    files_by_verdict[i] += other.files_by_verdict[i];
  // What the other tally settled comes before what it has open (report order).
  for (auto& settled : other.flagged) {
    add_flagged_part(std::move(settled));
    settle_open();
  }
  flagged_namespaces += other.flagged_namespaces - other.flagged.size();
  for (std::size_t i = 0; i < flagged_by_worst.size(); ++i) flagged_by_worst[i] += other.flagged_by_worst[i];
  for (const auto& kept : other.flagged) --flagged_by_worst[static_cast<std::size_t>(kept.worst)];
  if (other.open_) add_flagged_part(std::move(*other.open_));
  not_looked_at.add(other.not_looked_at);
  const std::size_t more_errors = other.error_count - other.errors.size();
  add_errors(other.errors);
  error_count += more_errors;
}

void AuditTally::add_root(const TempRootFacts& root, const RootJudgement& judgement) {
  settle_open();  // the namespaces before a temp dir's own facts are complete
  ++roots;
  attach_files += root.attach_files.size();
  add_errors(root.errors);
  for (const auto& attach : root.attach_files) add_errors(attach.errors);
  not_looked_at.add_root(root);
  for (const auto& f : judgement.findings) count(*this, f);
  for (const auto& attach : judgement.attach_files) {
    for (const auto& f : attach) count(*this, f);
  }
}

void AuditTally::add_attach(const AttachFacts& attach, const Findings& judged) {
  settle_open();
  ++attach_files;
  add_errors(attach.errors);
  if (std::any_of(attach.errors.begin(), attach.errors.end(), leaves_unseen)) ++not_looked_at.entries;
  for (const auto& f : judged) count(*this, f);
}

AuditTally tally_result(const AuditResult& result) {
  // Every root observed has its judgement, and every namespace of it its own: a result that
  // lacks one is a fault of the caller, not a namespace to count as clean.
  AuditTally t;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    const auto& root = result.roots[r];
    const RootJudgement& judged = result.judgements.at(r);
    for (std::size_t n = 0; n < root.namespaces.size(); ++n) {
      t.add_namespace(root.namespaces[n], judged.namespaces.at(n));
    }
  }
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    t.add_root(result.roots[r], result.judgements.at(r));
  }
  return t;
}

ReapCount count_reap(const AuditResult& result, std::int64_t now_ms, std::uint32_t euid) {
  const ReapOptions defaults;
  ReapCount total;
  for (const auto& root : result.roots) {
    if (!reaped_in_same_scope(root)) continue;
    for (const auto& ns : root.namespaces) {
      const ReapCount c = count_reap(root, ns, defaults, now_ms, euid);
      total.remove += c.remove;
      total.kept_reapable += c.kept_reapable;
    }
    std::size_t attach_removals = 0;
    for (const auto& attach : root.attach_files) {
      const ReapCount c = count_reap(root, attach, defaults, now_ms, euid);
      attach_removals += c.remove;
      total.kept_reapable += c.kept_reapable;
    }
    total.remove += std::min(attach_removals, kAttachItemsPerRun);
  }
  return total;
}

std::optional<Severity> highest_severity(const AuditResult& result) {
  std::optional<Severity> worst;
  for_each_finding(result, [&](const Finding& f) {
    if (!worst || f.severity > *worst) worst = f.severity;
  });
  return worst;
}

}  // namespace hsperfguard
