// The rule registry: one entry per catalogue rule (rules/*.json), keyed by its id, holding
// the one function (declared in rules.hpp) that judges each kind of subject the rule applies
// to, and RuleSelection, which rows an entry point runs. Every function
// appends findings of its own rule id only and touches nothing else, so a rule can be read,
// tested and switched off as one thing. The entry points of checks.hpp run the registry in
// its order, which is the report's order; a test keeps the registry and the catalogue in step.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "checks/subjects.hpp"
#include "model/facts.hpp"
#include "model/finding.hpp"
#include "model/verdict.hpp"

namespace hsperfguard::checks {

using TempDirRule = void (*)(const TempRootFacts&, Findings&);
using NamespaceRule = void (*)(const TempRootFacts&, const NamespaceFacts&, Findings&);
using PredictionRule = void (*)(const PredictionSubject&, Findings&);
using FileRule = void (*)(const TempRootFacts&, const NamespaceFacts&, const FileFacts&, Findings&);
using JvmRule = void (*)(const JvmSubject&, Findings&);
using DescriptorRule = void (*)(const DescriptorSubject&, Findings&);
using AttachRule = void (*)(const TempRootFacts&, const AttachFacts&, Findings&);
// Verdict rules judge a backing file's liveness verdict, decided before (decide/liveness).
// The verdict is check_verdict's own copy: the one rule that matches its verdict value may
// take its message and evidence for the finding (100,000 stale files are 100,000 findings).
using VerdictRule = void (*)(const NamespaceFacts&, const FileFacts&, LivenessVerdict&, Findings&);

// A rule: its id and its function per subject (null where it does not apply).
struct RuleEntry {
  std::string_view id;
  TempDirRule temp_dir = nullptr;
  NamespaceRule namespace_dir = nullptr;
  PredictionRule prediction = nullptr;  // a namespace, judged by its publication prediction
  FileRule file = nullptr;
  JvmRule jvm = nullptr;
  DescriptorRule descriptor = nullptr;
  AttachRule attach = nullptr;
  VerdictRule verdict = nullptr;
};

// Every rule, in report order.
std::span<const RuleEntry> rule_registry();
// The entry of `id`; null when no rule has that id.
const RuleEntry* find_rule_entry(std::string_view id);

// Which rules an entry point runs: all of them, or those a policy enables, or one (a test).
class RuleSelection {
 public:
  // Every rule (a static instance: the default of the entry points).
  static const RuleSelection& all();
  // Only the rules whose id satisfies `wanted`.
  template <typename Predicate>
  static RuleSelection where(Predicate wanted) {
    RuleSelection selection;
    for (const RuleEntry& entry : rule_registry()) selection.on_.push_back(wanted(entry.id));
    return selection;
  }
  static RuleSelection only(std::string_view id) {
    return where([id](std::string_view rule) { return rule == id; });
  }
  // Whether the registry's entry at `index` runs.
  bool runs(std::size_t index) const { return index < on_.size() && on_[index]; }

 private:
  std::vector<bool> on_;
};

}  // namespace hsperfguard::checks
