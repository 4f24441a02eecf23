#include "decide/liveness.hpp"

#include <array>
#include <utility>

#include "model/compact_json.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using Existence = ProcessFacts::Existence;

enum class LockState { held, free, unknown };

// Every way a verdict can be reached. The order of the checks is in decide() below.
enum class Reason {
  file_unobserved,
  file_replaced,
  crosses_mount,
  lock_held,
  mapped,
  not_a_regular_file,
  not_a_pid_name,
  lock_unknown,
  no_candidate,
  no_process_in_namespace,
  process_scan_incomplete,
  process_gone,
  process_no_permission,
  process_unknown,
  started_after_vm_begin,
  maps_without_file,
  startup_window,
  no_vm_begin_time,
  process_unreadable,
  process_alive,
};

struct ReasonInfo {
  std::string_view code;
  std::string_view decided_by;
};

constexpr std::array<ReasonInfo, 20> kReasons = {{
    {"file-unobserved", "file"},
    {"file-replaced", "file"},
    {"crosses-mount", "file"},
    {"lock-held", "lock"},
    {"mapped", "maps"},
    {"not-a-regular-file", "file-kind"},
    {"not-a-pid-name", "name"},
    {"lock-unknown", "lock"},
    {"no-candidate", "process"},
    {"no-process-in-namespace", "process"},
    {"process-scan-incomplete", "process"},
    {"process-gone", "process"},
    {"process-no-permission", "process"},
    {"process-unknown", "process"},
    {"started-after-vm-begin", "start-time"},
    {"maps-without-file", "maps"},
    {"startup-window", "region"},
    {"no-vm-begin-time", "region"},
    {"process-unreadable", "process"},
    {"process-alive", "start-time"},
}};

const ReasonInfo& info(Reason r) { return kReasons[static_cast<std::size_t>(r)]; }

struct Outcome {
  Verdict verdict = Verdict::unknown;
  Reason reason = Reason::no_candidate;
  const ProcessFacts* subject = nullptr;  // the candidate that decided it, if one did
  Verdict would_be = Verdict::unknown;    // lock_unknown: what a known free lock would give
};

// What the decision reads, gathered once.
struct Inputs {
  const InodeFacts* inode = nullptr;
  const LivenessFacts* facts = nullptr;
  std::optional<std::int64_t> begin;
  LockState lock = LockState::unknown;
};

Inputs inputs_of(const FileFacts& file) {
  Inputs in;
  in.inode = file.opened ? &*file.opened : file.lstat ? &*file.lstat : nullptr;
  in.facts = file.liveness ? &*file.liveness : nullptr;
  in.begin = vm_begin_time_ms(file);
  in.lock = !in.facts || !in.facts->lock_held ? LockState::unknown
            : *in.facts->lock_held            ? LockState::held
                                              : LockState::free;
  return in;
}

// What one candidate says, the lock being known free and the file not mapped by it (both
// settled before).
Outcome judge_candidate(const ProcessFacts& p, std::optional<std::int64_t> begin,
                        std::int64_t file_ctime_ms, std::int64_t tolerance) {
  auto out = [&](Verdict v, Reason r) { return Outcome{v, r, &p, Verdict::unknown}; };
  switch (p.existence) {
    case Existence::gone:
      return out(Verdict::stale, Reason::process_gone);
    case Existence::no_permission:
      return out(Verdict::unknown, Reason::process_no_permission);
    case Existence::unknown:
      return out(Verdict::unknown, Reason::process_unknown);
    case Existence::alive:
      break;
  }
  if (p.maps_backing_file.value_or(false)) return out(Verdict::live, Reason::mapped);
  if (begin && p.start_time_ms && *p.start_time_ms > *begin + tolerance) {
    return out(Verdict::pid_reused, Reason::started_after_vm_begin);
  }
  if (p.maps_backing_file.has_value()) {  // readable, not mapping it
    // A JVM creates its file before it maps it: while the region has no createVmBeginTime,
    // an unmapped file may be a JVM's that is still starting, unless the process only
    // started after the file last changed.
    if (begin || (p.start_time_ms && *p.start_time_ms > file_ctime_ms + tolerance)) {
      return out(Verdict::pid_reused, Reason::maps_without_file);
    }
    return out(Verdict::unknown, Reason::startup_window);
  }
  if (!begin) return out(Verdict::unknown, Reason::no_vm_begin_time);
  if (!p.start_time_ms) return out(Verdict::unknown, Reason::process_unreadable);
  return out(Verdict::live, Reason::process_alive);
}

Outcome decide(const FileFacts& file, const LivenessSettings& settings, const Inputs& in) {
  if (in.inode == nullptr) return {Verdict::unknown, Reason::file_unobserved};
  if (file.lstat && file.opened &&
      (file.lstat->dev != file.opened->dev || file.lstat->ino != file.opened->ino)) {
    return {Verdict::unknown, Reason::file_replaced};
  }
  if (file.crosses_mount) return {Verdict::unknown, Reason::crosses_mount};
  if (in.lock == LockState::held) return {Verdict::live, Reason::lock_held};
  if (in.facts) {
    for (const ProcessFacts& p : in.facts->candidates) {
      if (p.maps_backing_file.value_or(false)) return {Verdict::live, Reason::mapped, &p};
    }
  }

  Outcome outcome;
  if (in.inode->kind != FileKind::regular) {
    outcome = {Verdict::foreign, Reason::not_a_regular_file};
  } else if (file.pid_name.kind != PidNameKind::canonical) {
    outcome = {Verdict::foreign, Reason::not_a_pid_name};
  } else if (!in.facts || in.facts->candidates.empty()) {
    if (!settings.container) {
      outcome = {Verdict::unknown, Reason::no_candidate};
    } else if (in.facts && in.facts->candidates_complete.value_or(false)) {
      outcome = {Verdict::stale, Reason::no_process_in_namespace};
    } else {
      outcome = {Verdict::unknown, Reason::process_scan_incomplete};
    }
  } else {
    // Several candidates (containers): any live one keeps the file, any doubt keeps it, and
    // it is reused only if no candidate may be its owner.
    std::optional<Outcome> live, unknown, reused, gone;
    const std::int64_t ctime_ms = in.inode->ctime.millis();
    for (const ProcessFacts& p : in.facts->candidates) {
      const Outcome o = judge_candidate(p, in.begin, ctime_ms, settings.start_time_tolerance_ms);
      auto& slot = o.verdict == Verdict::live      ? live
                   : o.verdict == Verdict::unknown ? unknown
                   : o.verdict == Verdict::stale   ? gone
                                                   : reused;
      if (!slot) slot = o;
    }
    outcome = live ? *live : unknown ? *unknown : reused ? *reused : *gone;
  }
  // An unknown lock may be held by a JVM (17.0.7+ always locks): nothing becomes reapable.
  if (reapable(outcome.verdict) && in.lock == LockState::unknown) {
    return {Verdict::unknown, Reason::lock_unknown, outcome.subject, outcome.verdict};
  }
  return outcome;
}

// ---- Explaining: message and evidence, only for decide_liveness ---------------------------

std::string_view lock_state_name(LockState s) {
  switch (s) {
    case LockState::held:
      return "held";
    case LockState::free:
      return "free";
    case LockState::unknown:
      return "unknown";
  }
  return "unknown";
}



// Why a process's maps proved nothing: unreadable, or read only in part.
std::string maps_state(const ProcessFacts& p) {
  return p.maps_cut ? "too long to read whole (this file may be mapped beyond)" : "unreadable";
}

std::string message_for(const Outcome& o, const FileFacts& file, const Inputs& in) {
  const std::string pid = o.subject ? "pid " + std::to_string(o.subject->pid) : "the pid";
  switch (o.reason) {
    case Reason::file_unobserved:
      return "the file could not be stat'ed";
    case Reason::file_replaced:
      return "the file was replaced while being observed";
    case Reason::crosses_mount:
      return "something is mounted on this name";
    case Reason::lock_held: {
      std::string m = "its lock is held";
      if (in.facts->lock_holder_pid) m += " by pid " + std::to_string(*in.facts->lock_holder_pid);
      return m + " (" + in.facts->lock_source + ")";
    }
    case Reason::mapped:
      return pid + " maps this file";
    case Reason::not_a_regular_file:
      return "a " + std::string(to_string(in.inode->kind)) + " is never a JVM's backing file";
    case Reason::not_a_pid_name:
      switch (file.pid_name.kind) {
        case PidNameKind::out_of_range: return "the name is a number outside the pid range: no JVM writes it";
        case PidNameKind::noncanonical: return "the name is a pid with leading zeros: no JVM writes it";
        default: return "the name is not a pid: no JVM writes it";
      }
    case Reason::lock_unknown:
      return "its lock state is unknown, and a JVM since 17.0.7 holds it for its lifetime: not " +
             std::string(to_string(o.would_be));
    case Reason::no_candidate:
      return "no process was observed for this pid";
    case Reason::no_process_in_namespace:
      return "no process of the container's mount namespace has pid " +
             std::to_string(file.pid_name.pid.value_or(0)) + " there";
    case Reason::process_scan_incomplete:
      return "not every process could be placed in or out of the container's mount namespace";
    case Reason::process_gone:
      return pid + " no longer exists";
    case Reason::process_no_permission:
      return pid + " exists but may not be inspected (EPERM)";
    case Reason::process_unknown:
      return "whether " + pid + " exists could not be determined";
    case Reason::started_after_vm_begin:
      return pid + " started " + std::to_string(*o.subject->start_time_ms - *in.begin) +
             " ms after the VM that wrote this file began: it is another process";
    case Reason::maps_without_file:
      return in.begin ? pid + " is alive but does not map this file"
                      : pid + " does not map this file and started after it last changed";
    case Reason::startup_window:
      return pid +
             " does not map this file, which has no VM begin time yet: it may belong to a "
             "JVM that is still starting";
    case Reason::no_vm_begin_time:
      return pid + " is alive, its maps are " + maps_state(*o.subject) +
             " and the region has no VM begin time";
    case Reason::process_unreadable:
      return pid + (o.subject->maps_cut
                        ? " is alive, its start time could not be read and its maps are too long "
                          "to read whole"
                        : " is alive but neither its start time nor its maps could be read");
    case Reason::process_alive:
      return pid + " is alive and started before the VM that wrote this file began";
  }
  return {};
}

// The evidence is written as compact JSON, members in sorted key order (as a JSON document
// keeps them): at 100,000 files a document per file would cost more than observing them.
// decide_liveness parses this text back into its document, so there is one description.
void append_process(std::string& out, const ProcessFacts& p, const Inputs& in,
                    std::int64_t ctime_ms, const LivenessSettings& settings) {
  CompactObject j(out);
  if (p.error) {
    CompactObject e(j.key("error"));
    e.number("code", p.error->code);
    e.utf8("message", p.error->message);
    e.utf8("op", p.error->op);
    e.utf8("path", p.error->path);
  }
  j.string("existence", to_string(p.existence));
  // What this candidate alone says (the file's verdict may have been settled before).
  j.string("judgement",
           info(judge_candidate(p, in.begin, ctime_ms, settings.start_time_tolerance_ms).reason).code);
  if (p.maps_backing_file) j.boolean("maps_backing_file", *p.maps_backing_file);
  if (p.maps_cut) j.boolean("maps_cut", true);
  if (p.maps_backing_file.value_or(false) && p.maps_inode_only) j.boolean("maps_inode_only", true);
  if (p.maps_libjvm) j.boolean("maps_libjvm", *p.maps_libjvm);
  if (p.mount_namespace) j.utf8("mount_namespace", *p.mount_namespace);
  if (!p.ns_pids.empty()) {
    std::string& a = j.key("ns_pids");
    a += '[';
    for (std::size_t i = 0; i < p.ns_pids.size(); ++i) {
      if (i > 0) a += ',';
      a += std::to_string(p.ns_pids[i]);
    }
    a += ']';
  }
  j.number("pid", p.pid);
  if (p.real_uid) j.number("real_uid", *p.real_uid);
  if (p.start_time_ms && in.begin) j.number("start_after_vm_begin_ms", *p.start_time_ms - *in.begin);
  if (p.start_time_ms) j.number("start_time_ms", *p.start_time_ms);
}

void append_evidence(std::string& out, const Outcome& o, const FileFacts& file,
                     const LivenessSettings& settings, const Inputs& in) {
  CompactObject ev(out);
  {
    std::string& a = ev.key("candidates");
    a += '[';
    if (in.facts) {
      const std::int64_t ctime_ms = in.inode ? in.inode->ctime.millis() : 0;
      bool first = true;
      for (const auto& p : in.facts->candidates) {
        if (!first) a += ',';
        first = false;
        append_process(a, p, in, ctime_ms, settings);
      }
    }
    a += ']';
  }
  if (in.facts && settings.container) ev.boolean_or_null("candidates_complete", in.facts->candidates_complete);
  ev.string("decided_by", info(o.reason).decided_by);
  if (o.subject) ev.number("decided_by_pid", o.subject->pid);
  {
    CompactObject f(ev.key("file"));
    if (in.inode) {
      f.number("ctime_ms", in.inode->ctime.millis());
      f.number("dev", in.inode->dev);
      f.number("ino", in.inode->ino);
      f.string("kind", to_string(in.inode->kind));
    }
    f.string("name_kind", to_string(file.pid_name.kind));
    if (file.pid_name.pid) f.number("pid", *file.pid_name.pid);
  }
  {
    CompactObject l(ev.key("lock"));
    if (in.facts) {
      if (in.facts->lock_holder_pid) l.number("holder_pid", *in.facts->lock_holder_pid);
      if (in.facts->lock_inode_only) l.boolean("inode_only", true);
      if (!in.facts->lock_kind.empty()) l.utf8("kind", in.facts->lock_kind);
      l.utf8("source", in.facts->lock_source);
    }
    l.string("state", lock_state_name(in.lock));
  }
  ev.string("reason", info(o.reason).code);
  ev.number("start_time_tolerance_ms", settings.start_time_tolerance_ms);
  ev.number("vm_begin_time_ms", in.begin);
  if (o.reason == Reason::lock_unknown) ev.string("would_be", to_string(o.would_be));
}

json brief_evidence_of(const Outcome& o, const Inputs& in) {
  json ev = json::object();
  if (o.subject) ev["decided_by_pid"] = o.subject->pid;
  if (o.reason == Reason::lock_unknown) ev["would_be"] = to_string(o.would_be);
  ev["lock"] = lock_state_name(in.lock);
  ev["vm_begin_time_ms"] = in.begin ? json(*in.begin) : json(nullptr);
  ev["decided_by"] = info(o.reason).decided_by;
  ev["reason"] = info(o.reason).code;
  return ev;
}

// Whether `ev` is exactly brief_evidence_of(o, in) with "verdict" added (what a finding about
// the verdict carries), compared member by member: nothing is built.
bool is_verdict_finding_evidence_of(const json& ev, const Outcome& o, const Inputs& in) {
  if (!ev.is_object()) return false;
  const auto equals = [&](const char* key, const auto& value) {
    const auto it = ev.find(key);
    return it != ev.end() && *it == value;
  };
  std::size_t members = 5;  // verdict, lock, vm_begin_time_ms, decided_by, reason
  if (!equals("verdict", to_string(o.verdict))) return false;
  if (o.subject) {
    if (!equals("decided_by_pid", o.subject->pid)) return false;
    ++members;
  }
  if (o.reason == Reason::lock_unknown) {
    if (!equals("would_be", to_string(o.would_be))) return false;
    ++members;
  }
  const auto begin = ev.find("vm_begin_time_ms");
  if (begin == ev.end() || (in.begin ? *begin != *in.begin : !begin->is_null())) return false;
  return ev.size() == members && equals("lock", lock_state_name(in.lock)) &&
         equals("decided_by", info(o.reason).decided_by) && equals("reason", info(o.reason).code);
}

// The outcome a judgement was made from, rebuilt from the file's own facts.
Outcome outcome_of(const LivenessJudgement& j, const Inputs& in) {
  Outcome o;
  o.verdict = j.verdict;
  o.would_be = j.would_be;
  for (std::size_t r = 0; r < kReasons.size(); ++r) {
    if (kReasons[r].code == j.reason) o.reason = static_cast<Reason>(r);
  }
  if (j.decided_by_candidate && in.facts && *j.decided_by_candidate < in.facts->candidates.size()) {
    o.subject = &in.facts->candidates[*j.decided_by_candidate];
  }
  return o;
}

}  // namespace

std::optional<std::int64_t> vm_begin_time_ms(const FileFacts& file) {
  if (!file.region) return std::nullopt;
  const perfdata::Entry* e = file.region->region.find("sun.rt.createVmBeginTime");
  if (e == nullptr || e->is_string() || e->long_value <= 0) return std::nullopt;
  return e->long_value;
}

LivenessJudgement judge_liveness(const FileFacts& file, const LivenessSettings& settings) {
  const Inputs in = inputs_of(file);
  const Outcome o = decide(file, settings, in);
  LivenessJudgement j{o.verdict, info(o.reason).code, info(o.reason).decided_by, std::nullopt,
                      o.would_be};
  if (o.subject != nullptr) {
    j.decided_by_candidate = static_cast<std::uint32_t>(o.subject - in.facts->candidates.data());
  }
  return j;
}

LivenessVerdict explain_liveness(const LivenessJudgement& judgement, const FileFacts& file,
                                 const LivenessSettings& settings) {
  std::string evidence;
  LivenessVerdict v = explain_liveness(judgement, file, settings, evidence);
  v.evidence = json::parse(evidence);
  return v;
}

LivenessVerdict explain_liveness(const LivenessJudgement& judgement, const FileFacts& file,
                                 const LivenessSettings& settings, std::string& evidence) {
  const Inputs in = inputs_of(file);
  const Outcome o = outcome_of(judgement, in);
  LivenessVerdict v;
  v.verdict = o.verdict;
  v.reason = std::string(info(o.reason).code);
  v.message = message_for(o, file, in);
  append_evidence(evidence, o, file, settings, in);
  return v;
}

LivenessVerdict explain_liveness_brief(const LivenessJudgement& judgement, const FileFacts& file) {
  const Inputs in = inputs_of(file);
  const Outcome o = outcome_of(judgement, in);
  LivenessVerdict v;
  v.verdict = o.verdict;
  v.reason = std::string(info(o.reason).code);
  v.message = message_for(o, file, in);
  v.evidence = brief_evidence_of(o, in);
  return v;
}

bool is_verdict_finding_evidence(const LivenessJudgement& judgement, const FileFacts& file,
                                 const nlohmann::json& evidence) {
  const Inputs in = inputs_of(file);
  return is_verdict_finding_evidence_of(evidence, outcome_of(judgement, in), in);
}

LivenessVerdict decide_liveness(const FileFacts& file, const LivenessSettings& settings) {
  return explain_liveness(judge_liveness(file, settings), file, settings);
}

}  // namespace hsperfguard
