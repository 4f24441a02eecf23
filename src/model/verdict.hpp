// A liveness verdict as data: what decide/liveness.hpp decides about a backing file and what
// rules, plans and reports carry. The decision itself is in decide/liveness.cpp.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace hsperfguard {

enum class Verdict { live, stale, pid_reused, foreign, unknown };

std::string_view to_string(Verdict verdict);

// The verdicts a reaper may act on. unknown never is.
constexpr bool reapable(Verdict verdict) {
  return verdict == Verdict::stale || verdict == Verdict::pid_reused || verdict == Verdict::foreign;
}

struct LivenessSettings {
  // createVmBeginTime is taken after the process started, and /proc's start time is up to a
  // second early (btime is truncated) and ticks are 10 ms: only a process start later than
  // begin + tolerance proves another process. Wall-clock steps forward of more than this
  // between the JVM's start and the observation can fake that proof.
  std::int64_t start_time_tolerance_ms = 2000;
  // RootKind::container: candidates are matched by NSpid within the container's mount
  // namespace, and an empty candidate list (with a complete /proc scan) means gone.
  bool container = false;
};

struct LivenessVerdict {
  Verdict verdict = Verdict::unknown;
  // Stable, short: "lock-held", "mapped", "process-gone", "started-after-vm-begin",
  // "maps-without-file", "not-a-pid-name", "not-a-regular-file", "lock-unknown", ...
  std::string reason;
  std::string message;  // one sentence for people
  // What was observed, and "decided_by": the piece of evidence that settled it
  // ("file", "lock", "maps", "start-time", "process", "name", "file-kind", "region").
  nlohmann::json evidence;
};

// A verdict as decided (decide/liveness.hpp's judge_liveness), without message or evidence:
// allocates nothing, and carries what explain_liveness needs to say why without deciding again.
struct LivenessJudgement {
  Verdict verdict = Verdict::unknown;
  std::string_view reason;      // as LivenessVerdict::reason (a static string)
  std::string_view decided_by;  // as evidence["decided_by"] (a static string)
  // The candidate process that decided it, by its index in the file's liveness candidates.
  std::optional<std::uint32_t> decided_by_candidate;
  // reason "lock-unknown": the verdict a lock known to be free would have given.
  Verdict would_be = Verdict::unknown;
};

}  // namespace hsperfguard
