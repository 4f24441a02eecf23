// Liveness: from the evidence observation gathered about one backing file to a verdict.
//
// Pure: no syscalls, no clock. The policy (docs/POLICY.md section 6) in one place:
//   live       its lock is held (by anyone), a candidate process maps its (dev, ino), or
//              its pid is alive and everything we could read agrees it is the owner;
//   stale      the lock is known free and the pid is gone (containers: no process of the
//              container's mount namespace has that NSpid, and /proc was fully read);
//   pid_reused the lock is known free, the pid is alive, and it is provably another process:
//              it started after sun.rt.createVmBeginTime + tolerance, or its maps are
//              readable and do not map the file;
//   foreign    not a regular file, or not a canonical pid name, and neither locked nor mapped;
//   unknown    anything we could not see: EPERM, unreadable /proc, unknown lock state, ...
// Only stale, pid_reused and foreign may ever be reaped. A free lock alone proves nothing:
// JVMs before 17.0.7 / 11.0.19 never take it, and on overlayfs the kernel drops it when the
// JVM closes its descriptor.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "model/facts.hpp"
#include "model/verdict.hpp"

namespace hsperfguard {

// The decision, made once per file: the verdict, its reason and what explains it, allocating
// nothing (a few hundred nanoseconds; building the evidence JSON is most of a file's cost).
// Audit judgements, reap plans and ps rows carry it; reports explain it below.
LivenessJudgement judge_liveness(const FileFacts& file, const LivenessSettings& settings);

// A judgement of `file` (judge_liveness's, with the same settings) explained without deciding
// again: its message and its full evidence, as a document...
LivenessVerdict explain_liveness(const LivenessJudgement& judgement, const FileFacts& file,
                                 const LivenessSettings& settings);
// ...or appended to `evidence` as compact JSON (keys sorted, the text append_json writes for
// that document), the verdict's evidence left null: what the reports write for every file.
LivenessVerdict explain_liveness(const LivenessJudgement& judgement, const FileFacts& file,
                                 const LivenessSettings& settings, std::string& evidence);
// ...or with only the evidence that settled it ("decided_by", "reason", and "decided_by_pid",
// "would_be", "lock", "vm_begin_time_ms"): what a finding about the verdict carries.
LivenessVerdict explain_liveness_brief(const LivenessJudgement& judgement, const FileFacts& file);
// Whether `evidence` is exactly the brief's evidence with "verdict" added (what a finding about
// the verdict carries, checks/file.cpp), compared without building it: the audit report leaves
// such a finding's evidence to the file's verdict.
bool is_verdict_finding_evidence(const LivenessJudgement& judgement, const FileFacts& file,
                                 const nlohmann::json& evidence);

// judge_liveness and explain_liveness in one, for a single file (tests, inspect).
LivenessVerdict decide_liveness(const FileFacts& file, const LivenessSettings& settings);

// sun.rt.createVmBeginTime of the file's region, when the region was read and has it.
std::optional<std::int64_t> vm_begin_time_ms(const FileFacts& file);

}  // namespace hsperfguard
