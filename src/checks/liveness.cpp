// Verdict rules: what the liveness verdict of a backing file says about it. The verdict is
// decided once (liveness.cpp) and shared with the report; these rules only turn it into
// findings. A finding carries the evidence that settled the verdict (decide_liveness_brief);
// the full evidence is the file's verdict in the report.
#include "checks/checks.hpp"

namespace hsperfguard::checks {

Findings check_verdict(const NamespaceFacts& ns, const FileFacts& file, LivenessVerdict verdict) {
  (void)ns;
  Findings out;
  if (verdict.verdict != Verdict::stale && verdict.verdict != Verdict::pid_reused) return out;
  // Only the deciding values (decide_liveness_brief's evidence, whose lock is its state
  // alone); a full evidence, should one be given, is cut down to them. The full evidence is
  // reported once, under the file's verdict.
  nlohmann::json evidence = std::move(verdict.evidence);
  if (!evidence.is_object()) evidence = nlohmann::json::object();
  for (auto it = evidence.begin(); it != evidence.end();) {
    const std::string& key = it.key();
    if (key == "decided_by" || key == "decided_by_pid" || key == "would_be" || key == "lock" ||
        key == "vm_begin_time_ms") {
      ++it;
    } else {
      it = evidence.erase(it);
    }
  }
  if (const auto lock = evidence.find("lock"); lock != evidence.end() && lock->is_object()) {
    *lock = lock->value("state", "unknown");
  }
  evidence["verdict"] = to_string(verdict.verdict);
  evidence["reason"] = std::move(verdict.reason);
  out.push_back(make_finding(verdict.verdict == Verdict::stale ? "file.stale" : "file.pid-reused",
                             file.path, std::move(verdict.message), std::move(evidence)));
  return out;
}

}  // namespace hsperfguard::checks
