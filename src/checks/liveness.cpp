// Verdict rules: what the liveness verdict of a backing file says about it. The verdict is
// decided once (liveness.cpp) and shared with the report; these rules only turn it into
// findings. A finding carries the evidence that settled the verdict (decide_liveness_brief);
// the full evidence is the file's verdict in the report.
#include "checks/checks.hpp"

namespace hsperfguard::checks {

Findings check_verdict(const NamespaceFacts& ns, const FileFacts& file,
                       const LivenessVerdict& verdict) {
  (void)ns;
  Findings out;
  // Only the deciding values: the verdict's full evidence may be given (decide_liveness) but is
  // reported once, under the file's verdict.
  nlohmann::json evidence = nlohmann::json::object();
  for (const char* key : {"decided_by", "decided_by_pid", "would_be", "lock", "vm_begin_time_ms"}) {
    const auto it = verdict.evidence.find(key);
    if (it != verdict.evidence.end()) evidence[key] = *it;
  }
  // The full evidence has the lock as an object; the brief one only its state.
  if (const auto lock = evidence.find("lock"); lock != evidence.end() && lock->is_object()) {
    *lock = lock->value("state", "unknown");
  }
  evidence["verdict"] = to_string(verdict.verdict);
  evidence["reason"] = verdict.reason;
  if (verdict.verdict == Verdict::stale) {
    out.push_back(make_finding("file.stale", file.path, verdict.message, std::move(evidence)));
  } else if (verdict.verdict == Verdict::pid_reused) {
    out.push_back(make_finding("file.pid-reused", file.path, verdict.message, std::move(evidence)));
  }
  return out;
}

}  // namespace hsperfguard::checks
