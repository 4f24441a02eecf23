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

// The verdict with its message and evidence: what a report or a reap plan records.
LivenessVerdict decide_liveness(const FileFacts& file, const LivenessSettings& settings);

// The same, with the evidence appended to `evidence` as compact JSON (keys sorted: the text
// append_json writes for the document above) and left null in the verdict: what the reports
// write for every file, without building a document per file.
LivenessVerdict decide_liveness(const FileFacts& file, const LivenessSettings& settings,
                                std::string& evidence);

// The same verdict, reason and message with only the evidence that settled it ("decided_by",
// "reason", and "decided_by_pid", "would_be", "lock", "vm_begin_time_ms"): what a finding
// about the verdict carries. Building the full evidence is most of a file's cost, so an audit
// judges with this and judge_liveness, and the report asks decide_liveness per file.
LivenessVerdict decide_liveness_brief(const FileFacts& file, const LivenessSettings& settings);

// The same decision without message or evidence, allocating nothing: for passes over many
// files that only need to sort them (decide_liveness costs a few microseconds a file, most
// of it building the evidence JSON). Always agrees with decide_liveness.
struct LivenessJudgement {
  Verdict verdict = Verdict::unknown;
  std::string_view reason;      // as LivenessVerdict::reason
  std::string_view decided_by;  // as evidence["decided_by"]
};
LivenessJudgement judge_liveness(const FileFacts& file, const LivenessSettings& settings);

// sun.rt.createVmBeginTime of the file's region, when the region was read and has it.
std::optional<std::int64_t> vm_begin_time_ms(const FileFacts& file);

}  // namespace hsperfguard
