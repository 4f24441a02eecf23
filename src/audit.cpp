#include "audit.hpp"

#include "checks/checks.hpp"

namespace hsperfguard {

LivenessSettings liveness_settings_for(const TempRootFacts& root) {
  LivenessSettings liveness;
  liveness.container = root.kind == RootKind::container;
  return liveness;
}

std::vector<RootJudgement> judge(const std::vector<TempRootFacts>& roots, const Policy& policy) {
  std::vector<RootJudgement> out;
  out.reserve(roots.size());
  for (const auto& root : roots) {
    RootJudgement rj;
    rj.findings = apply_policy_to_findings(checks::check_temp_root(root), policy);
    rj.namespaces.reserve(root.namespaces.size());
    for (const auto& ns : root.namespaces) {
      NamespaceJudgement nj;
      nj.findings = apply_policy_to_findings(checks::check_namespace(root, ns), policy);
      nj.files.reserve(ns.files.size());
      const LivenessSettings liveness = liveness_settings_for(root);
      for (const auto& file : ns.files) {
        FileJudgement fj;
        Findings findings = checks::check_file(root, ns, file);
        if (file.liveness) {
          fj.verdict = judge_liveness(file, liveness);
          for (auto& f : checks::check_verdict(ns, file, decide_liveness_brief(file, liveness))) {
            findings.push_back(std::move(f));
          }
        }
        fj.findings = apply_policy_to_findings(std::move(findings), policy);
        nj.files.push_back(std::move(fj));
      }
      rj.namespaces.push_back(std::move(nj));
    }
    for (const auto& attach : root.attach_files) {
      rj.attach_files.push_back(apply_policy_to_findings(checks::check_attach(root, attach), policy));
    }
    out.push_back(std::move(rj));
  }
  return out;
}

std::optional<Severity> highest_severity(const AuditResult& result) {
  std::optional<Severity> worst;
  for_each_finding(result, [&](const Finding& f) {
    if (!worst || f.severity > *worst) worst = f.severity;
  });
  return worst;
}

}  // namespace hsperfguard
