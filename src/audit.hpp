// `hsperfguard audit`: discover, observe, judge. The judging half is pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "facts.hpp"
#include "finding.hpp"
#include "liveness.hpp"
#include "rule_catalog.hpp"

namespace hsperfguard {

// Judgements mirror the facts tree, index for index.
struct FileJudgement {
  Findings findings;
  // Present when liveness evidence was gathered for the file: the decision alone. The report
  // asks decide_liveness for its message and evidence when it writes the file, so an audit of
  // many files never holds every file's evidence at once.
  std::optional<LivenessJudgement> verdict;
};

struct NamespaceJudgement {
  Findings findings;
  std::vector<FileJudgement> files;
};

struct RootJudgement {
  Findings findings;
  std::vector<NamespaceJudgement> namespaces;
  std::vector<Findings> attach_files;
};

struct AuditResult {
  std::vector<TempRootFacts> roots;
  std::vector<RootJudgement> judgements;
  Policy policy;
  std::int64_t started_at_ms = 0;
  std::int64_t finished_at_ms = 0;
  // True when a temp dir could not be observed at all (the audit is incomplete).
  bool incomplete = false;
};

// How the files of `root` are judged alive or not.
LivenessSettings liveness_settings_for(const TempRootFacts& root);

// Runs every rule module over the facts and applies the policy. Pure.
std::vector<RootJudgement> judge(const std::vector<TempRootFacts>& roots, const Policy& policy);

// The most severe finding, if any.
std::optional<Severity> highest_severity(const AuditResult& result);

// Calls `visit(finding)` for every finding in the result.
template <typename Visit>
void for_each_finding(const AuditResult& result, Visit&& visit) {
  for (const auto& root : result.judgements) {
    for (const auto& f : root.findings) visit(f);
    for (const auto& ns : root.namespaces) {
      for (const auto& f : ns.findings) visit(f);
      for (const auto& file : ns.files) {
        for (const auto& f : file.findings) visit(f);
      }
    }
    for (const auto& attach : root.attach_files) {
      for (const auto& f : attach) visit(f);
    }
  }
}

}  // namespace hsperfguard
