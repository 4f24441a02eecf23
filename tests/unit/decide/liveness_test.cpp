// The liveness policy as a truth table: every combination of the evidence, and the exact
// verdict, reason and deciding evidence for each. Pure: facts are built by hand.
#include "decide/liveness.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/facts.hpp"
#include "model/pid_name.hpp"
#include "model/procfs_parse.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using Existence = ProcessFacts::Existence;

constexpr std::int64_t kBegin = 1'700'000'000'000;     // sun.rt.createVmBeginTime
constexpr std::int64_t kFileCtime = kBegin + 50;       // the JVM created its file just after
constexpr std::int64_t kStartBefore = kBegin - 500;    // the JVM's own process
constexpr std::int64_t kStartAfter = kBegin + 60'000;  // a later process with the same pid
constexpr std::int32_t kPid = 4242;

enum class L { held, free, unknown };          // lock
enum class P { alive, gone, eperm, unknown };  // kill(pid, 0)
enum class M { yes, no, unreadable };          // maps the file's (dev, ino)
enum class S { before, after, absent };        // process start vs. VM begin (and ctime)
enum class B { yes, no };                      // region has createVmBeginTime
enum class N { canonical, noncanonical, out_of_range, not_a_pid };
using V = Verdict;

perfdata::Region region_with_begin(std::optional<std::int64_t> begin) {
  perfdata::Region r;
  r.size = 32768;
  r.prologue = perfdata::Prologue{};
  if (begin) {
    perfdata::Entry e;
    e.name = "sun.rt.createVmBeginTime";
    e.long_value = *begin;
    r.entries.push_back(e);
  } else {
    r.error = perfdata::ParseError{0, "bad magic"};  // a zero-filled or foreign file
  }
  return r;
}

InodeFacts file_inode(FileKind kind = FileKind::regular) {
  InodeFacts i;
  i.kind = kind;
  i.mode = 0600;
  i.uid = 1000;
  i.size = 32768;
  i.dev = 0x2a;
  i.ino = 77;
  i.ctime = {kFileCtime / 1000, (kFileCtime % 1000) * 1'000'000};
  return i;
}

ProcessFacts process(std::int32_t pid, P p, M m, S s) {
  ProcessFacts f;
  f.pid = pid;
  f.existence = p == P::alive   ? Existence::alive
                : p == P::gone  ? Existence::gone
                : p == P::eperm ? Existence::no_permission
                                : Existence::unknown;
  if (m != M::unreadable) f.maps_backing_file = m == M::yes;
  if (s != S::absent) f.start_time_ms = s == S::before ? kStartBefore : kStartAfter;
  return f;
}

FileFacts backing_file(std::string name, FileKind kind, L lock,
                       std::vector<ProcessFacts> candidates, B begin = B::yes) {
  FileFacts f;
  f.name = name;
  f.path = "/tmp/hsperfdata_alice/" + name;
  f.pid_name = classify_pid_name(name);
  f.lstat = file_inode(kind);
  f.opened = f.lstat;
  f.region = RegionSummary{
      region_with_begin(begin == B::yes ? std::optional(kBegin) : std::nullopt), 32768};
  LivenessFacts lf;
  lf.lock_source = "proc-locks";
  if (lock != L::unknown) lf.lock_held = lock == L::held;
  if (lock == L::held) {
    lf.lock_holder_pid = kPid;
    lf.lock_kind = "FLOCK WRITE";
  }
  lf.candidates = std::move(candidates);
  f.liveness = std::move(lf);
  return f;
}

bool any_candidate_has(const json& ev, const char* key) {
  for (const auto& c : ev.at("candidates")) {
    if (c.contains(key) && !c.at(key).is_null()) return true;
  }
  return false;
}

// The evidence names what decided the verdict, and carries the value that did.
::testing::AssertionResult evidence_names(const LivenessVerdict& v, const std::string& decided_by) {
  const json& ev = v.evidence;
  if (ev.value("decided_by", "") != decided_by) {
    return ::testing::AssertionFailure() << "decided_by " << ev.value("decided_by", "?")
                                         << ", want " << decided_by << "; evidence " << ev.dump();
  }
  if (ev.value("reason", "") != v.reason) return ::testing::AssertionFailure() << "reason missing";
  bool ok = false;
  if (decided_by == "lock") {
    ok = ev.at("lock").at("state") == (v.verdict == Verdict::live ? "held" : "unknown");
  } else if (decided_by == "maps") {
    ok = any_candidate_has(ev, "maps_backing_file");
  } else if (decided_by == "start-time") {
    ok = any_candidate_has(ev, "start_after_vm_begin_ms");
  } else if (decided_by == "process") {
    ok = any_candidate_has(ev, "existence") || ev.contains("candidates_complete") ||
         ev.at("candidates").empty();
  } else if (decided_by == "region") {
    ok = ev.at("vm_begin_time_ms").is_null();
  } else if (decided_by == "name") {
    ok = ev.at("file").at("name_kind") != "canonical";
  } else if (decided_by == "file-kind") {
    ok = ev.at("file").at("kind") != "regular";
  } else if (decided_by == "file") {
    ok = ev.contains("file");
  }
  if (!ok)
    return ::testing::AssertionFailure() << "evidence lacks " << decided_by << ": " << ev.dump();
  return ::testing::AssertionSuccess();
}

std::string describe_brief(const LivenessVerdict& v) {
  return std::string(to_string(v.verdict)) + "/" + v.reason + " (" + v.message + ") " +
         v.evidence.dump();
}

// judge_liveness is the same decision without the explanation, and explain_liveness_brief
// says the same with only the deciding evidence (version 3 of the audit report leaves a
// file.stale finding's evidence out when it is the brief's, and rebuilds it from the verdict's).
::testing::AssertionResult judge_agrees(const FileFacts& file, const LivenessSettings& settings,
                                        const LivenessVerdict& v) {
  const LivenessJudgement j = judge_liveness(file, settings);
  const LivenessVerdict brief = explain_liveness_brief(j, file);
  const auto same_in_brief = [&](const char* key) {
    if (!v.evidence.contains(key)) return !brief.evidence.contains(key);
    return brief.evidence.value(key, nlohmann::json()) == v.evidence.at(key);
  };
  if (brief.verdict != v.verdict || brief.reason != v.reason || brief.message != v.message ||
      !same_in_brief("decided_by") || !same_in_brief("reason") ||
      !same_in_brief("decided_by_pid") || !same_in_brief("would_be") ||
      !same_in_brief("vm_begin_time_ms") ||
      brief.evidence.value("lock", "") != v.evidence.at("lock").value("state", "")) {
    return ::testing::AssertionFailure() << "explain_liveness_brief says " << describe_brief(brief);
  }
  // What a finding about the verdict carries is recognised as the brief's, and nothing else is.
  nlohmann::json carried = brief.evidence;
  carried["verdict"] = to_string(brief.verdict);
  if (!is_verdict_finding_evidence(j, file, carried)) {
    return ::testing::AssertionFailure() << "not recognised as the brief's: " << carried.dump();
  }
  for (const auto& [key, value] : carried.items()) {
    nlohmann::json without = carried;
    without.erase(key);
    nlohmann::json changed = carried;
    changed[key] = value.is_number() ? nlohmann::json(value.get<std::int64_t>() + 1) : nlohmann::json(9);
    if (is_verdict_finding_evidence(j, file, without) || is_verdict_finding_evidence(j, file, changed)) {
      return ::testing::AssertionFailure() << "recognised without or with a changed " << key << ": " << carried.dump();
    }
  }
  nlohmann::json more = carried;
  more["decided_by_pid"] = more.value("decided_by_pid", 0) + 1;
  more["extra"] = true;
  if (is_verdict_finding_evidence(j, file, more) || is_verdict_finding_evidence(j, file, nlohmann::json())) {
    return ::testing::AssertionFailure() << "recognised with a member more, or as null";
  }
  if (j.verdict == v.verdict && j.reason == v.reason &&
      j.decided_by == v.evidence.value("decided_by", "")) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "judge_liveness says " << to_string(j.verdict) << "/" << j.reason;
}

std::string describe(const LivenessVerdict& v) {
  return std::string(to_string(v.verdict)) + "/" + v.reason + " (" + v.message + ")";
}

// ---- Canonical pid name, regular file, host root: the evidence dimensions ----------------

struct CoreRow {
  L lock;
  P process;
  M maps;
  S start;
  B begin;
  V verdict;
  const char* reason;
  const char* decided_by;
};

// lock x existence x maps x start time x VM begin time present: 3 x 4 x 3 x 3 x 2 rows.
// Without a begin time, "after" means after the file's ctime (+ tolerance), "before" before it.
// clang-format off
const CoreRow kCoreTable[] = {
    {L::held, P::alive, M::yes, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::yes, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::yes, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::no, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::no, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::no, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::unreadable, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::unreadable, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::unreadable, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::yes, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::yes, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::yes, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::no, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::no, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::no, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::unreadable, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::unreadable, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::unreadable, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::yes, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::yes, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::yes, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::no, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::no, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::no, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::unreadable, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::unreadable, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::unreadable, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::yes, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::yes, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::yes, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::no, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::no, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::no, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::unreadable, S::before, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::unreadable, S::after, B::yes, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::unreadable, S::absent, B::yes, V::live, "lock-held", "lock"},
    {L::free, P::alive, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::free, P::alive, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::free, P::alive, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::free, P::alive, M::no, S::before, B::yes, V::pid_reused, "maps-without-file", "maps"},
    {L::free, P::alive, M::no, S::after, B::yes, V::pid_reused, "started-after-vm-begin", "start-time"},
    {L::free, P::alive, M::no, S::absent, B::yes, V::pid_reused, "maps-without-file", "maps"},
    {L::free, P::alive, M::unreadable, S::before, B::yes, V::live, "process-alive", "start-time"},
    {L::free, P::alive, M::unreadable, S::after, B::yes, V::pid_reused, "started-after-vm-begin", "start-time"},
    {L::free, P::alive, M::unreadable, S::absent, B::yes, V::unknown, "process-unreadable", "process"},
    {L::free, P::gone, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::free, P::gone, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::free, P::gone, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::free, P::gone, M::no, S::before, B::yes, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::no, S::after, B::yes, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::no, S::absent, B::yes, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::unreadable, S::before, B::yes, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::unreadable, S::after, B::yes, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::unreadable, S::absent, B::yes, V::stale, "process-gone", "process"},
    {L::free, P::eperm, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::free, P::eperm, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::free, P::eperm, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::free, P::eperm, M::no, S::before, B::yes, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::no, S::after, B::yes, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::no, S::absent, B::yes, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::unreadable, S::before, B::yes, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::unreadable, S::after, B::yes, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::unreadable, S::absent, B::yes, V::unknown, "process-no-permission", "process"},
    {L::free, P::unknown, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::free, P::unknown, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::free, P::unknown, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::free, P::unknown, M::no, S::before, B::yes, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::no, S::after, B::yes, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::no, S::absent, B::yes, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::unreadable, S::before, B::yes, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::unreadable, S::after, B::yes, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::unreadable, S::absent, B::yes, V::unknown, "process-unknown", "process"},
    {L::unknown, P::alive, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::alive, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::alive, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::alive, M::no, S::before, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::alive, M::no, S::after, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::alive, M::no, S::absent, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::alive, M::unreadable, S::before, B::yes, V::live, "process-alive", "start-time"},
    {L::unknown, P::alive, M::unreadable, S::after, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::alive, M::unreadable, S::absent, B::yes, V::unknown, "process-unreadable", "process"},
    {L::unknown, P::gone, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::gone, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::gone, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::gone, M::no, S::before, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::no, S::after, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::no, S::absent, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::unreadable, S::before, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::unreadable, S::after, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::unreadable, S::absent, B::yes, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::eperm, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::eperm, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::eperm, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::eperm, M::no, S::before, B::yes, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::no, S::after, B::yes, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::no, S::absent, B::yes, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::unreadable, S::before, B::yes, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::unreadable, S::after, B::yes, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::unreadable, S::absent, B::yes, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::unknown, M::yes, S::before, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::unknown, M::yes, S::after, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::unknown, M::yes, S::absent, B::yes, V::live, "mapped", "maps"},
    {L::unknown, P::unknown, M::no, S::before, B::yes, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::no, S::after, B::yes, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::no, S::absent, B::yes, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::unreadable, S::before, B::yes, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::unreadable, S::after, B::yes, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::unreadable, S::absent, B::yes, V::unknown, "process-unknown", "process"},
    {L::held, P::alive, M::yes, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::yes, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::yes, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::no, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::no, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::no, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::unreadable, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::unreadable, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::alive, M::unreadable, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::yes, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::yes, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::yes, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::no, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::no, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::no, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::unreadable, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::unreadable, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::gone, M::unreadable, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::yes, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::yes, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::yes, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::no, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::no, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::no, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::unreadable, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::unreadable, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::eperm, M::unreadable, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::yes, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::yes, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::yes, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::no, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::no, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::no, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::unreadable, S::before, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::unreadable, S::after, B::no, V::live, "lock-held", "lock"},
    {L::held, P::unknown, M::unreadable, S::absent, B::no, V::live, "lock-held", "lock"},
    {L::free, P::alive, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::free, P::alive, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::free, P::alive, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::free, P::alive, M::no, S::before, B::no, V::unknown, "startup-window", "region"},
    {L::free, P::alive, M::no, S::after, B::no, V::pid_reused, "maps-without-file", "maps"},
    {L::free, P::alive, M::no, S::absent, B::no, V::unknown, "startup-window", "region"},
    {L::free, P::alive, M::unreadable, S::before, B::no, V::unknown, "no-vm-begin-time", "region"},
    {L::free, P::alive, M::unreadable, S::after, B::no, V::unknown, "no-vm-begin-time", "region"},
    {L::free, P::alive, M::unreadable, S::absent, B::no, V::unknown, "no-vm-begin-time", "region"},
    {L::free, P::gone, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::free, P::gone, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::free, P::gone, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::free, P::gone, M::no, S::before, B::no, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::no, S::after, B::no, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::no, S::absent, B::no, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::unreadable, S::before, B::no, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::unreadable, S::after, B::no, V::stale, "process-gone", "process"},
    {L::free, P::gone, M::unreadable, S::absent, B::no, V::stale, "process-gone", "process"},
    {L::free, P::eperm, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::free, P::eperm, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::free, P::eperm, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::free, P::eperm, M::no, S::before, B::no, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::no, S::after, B::no, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::no, S::absent, B::no, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::unreadable, S::before, B::no, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::unreadable, S::after, B::no, V::unknown, "process-no-permission", "process"},
    {L::free, P::eperm, M::unreadable, S::absent, B::no, V::unknown, "process-no-permission", "process"},
    {L::free, P::unknown, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::free, P::unknown, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::free, P::unknown, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::free, P::unknown, M::no, S::before, B::no, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::no, S::after, B::no, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::no, S::absent, B::no, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::unreadable, S::before, B::no, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::unreadable, S::after, B::no, V::unknown, "process-unknown", "process"},
    {L::free, P::unknown, M::unreadable, S::absent, B::no, V::unknown, "process-unknown", "process"},
    {L::unknown, P::alive, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::alive, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::alive, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::alive, M::no, S::before, B::no, V::unknown, "startup-window", "region"},
    {L::unknown, P::alive, M::no, S::after, B::no, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::alive, M::no, S::absent, B::no, V::unknown, "startup-window", "region"},
    {L::unknown, P::alive, M::unreadable, S::before, B::no, V::unknown, "no-vm-begin-time", "region"},
    {L::unknown, P::alive, M::unreadable, S::after, B::no, V::unknown, "no-vm-begin-time", "region"},
    {L::unknown, P::alive, M::unreadable, S::absent, B::no, V::unknown, "no-vm-begin-time", "region"},
    {L::unknown, P::gone, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::gone, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::gone, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::gone, M::no, S::before, B::no, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::no, S::after, B::no, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::no, S::absent, B::no, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::unreadable, S::before, B::no, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::unreadable, S::after, B::no, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::gone, M::unreadable, S::absent, B::no, V::unknown, "lock-unknown", "lock"},
    {L::unknown, P::eperm, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::eperm, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::eperm, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::eperm, M::no, S::before, B::no, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::no, S::after, B::no, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::no, S::absent, B::no, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::unreadable, S::before, B::no, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::unreadable, S::after, B::no, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::eperm, M::unreadable, S::absent, B::no, V::unknown, "process-no-permission", "process"},
    {L::unknown, P::unknown, M::yes, S::before, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::unknown, M::yes, S::after, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::unknown, M::yes, S::absent, B::no, V::live, "mapped", "maps"},
    {L::unknown, P::unknown, M::no, S::before, B::no, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::no, S::after, B::no, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::no, S::absent, B::no, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::unreadable, S::before, B::no, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::unreadable, S::after, B::no, V::unknown, "process-unknown", "process"},
    {L::unknown, P::unknown, M::unreadable, S::absent, B::no, V::unknown, "process-unknown", "process"},
};
// clang-format on

TEST(LivenessTruthTable, EveryCombinationOfEvidence) {
  ASSERT_EQ(std::size(kCoreTable), 3u * 4u * 3u * 3u * 2u);
  for (const CoreRow& row : kCoreTable) {
    const FileFacts file =
        backing_file(std::to_string(kPid), FileKind::regular, row.lock,
                     {process(kPid, row.process, row.maps, row.start)}, row.begin);
    const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
    SCOPED_TRACE(::testing::Message()
                 << "row lock=" << int(row.lock) << " process=" << int(row.process)
                 << " maps=" << int(row.maps) << " start=" << int(row.start)
                 << " begin=" << int(row.begin) << " got " << describe(v));
    EXPECT_EQ(v.verdict, row.verdict);
    EXPECT_EQ(v.reason, row.reason);
    EXPECT_TRUE(evidence_names(v, row.decided_by));
    EXPECT_TRUE(judge_agrees(file, LivenessSettings{}, v));
    EXPECT_FALSE(v.message.empty());
  }
}

// ---- Name kinds x file kinds ----------------------------------------------------------------

struct NameRow {
  N name;
  FileKind kind;
  L lock;
  bool mapped;  // else: maps unreadable; the pid is alive and started before the VM began
  V verdict;
  const char* reason;
  const char* decided_by;
};

// clang-format off
const NameRow kNameTable[] = {
    {N::canonical, FileKind::regular, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::regular, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::regular, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::regular, L::free, false, V::live, "process-alive", "start-time"},
    {N::canonical, FileKind::regular, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::regular, L::unknown, false, V::live, "process-alive", "start-time"},
    {N::canonical, FileKind::directory, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::directory, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::directory, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::directory, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::canonical, FileKind::directory, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::directory, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::canonical, FileKind::symlink, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::symlink, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::symlink, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::symlink, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::canonical, FileKind::symlink, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::symlink, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::canonical, FileKind::fifo, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::fifo, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::fifo, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::fifo, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::canonical, FileKind::fifo, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::fifo, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::canonical, FileKind::socket, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::socket, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::socket, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::socket, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::canonical, FileKind::socket, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::socket, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::canonical, FileKind::char_device, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::char_device, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::char_device, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::char_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::canonical, FileKind::char_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::char_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::canonical, FileKind::block_device, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::block_device, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::block_device, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::block_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::canonical, FileKind::block_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::block_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::canonical, FileKind::unknown, L::held, true, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::unknown, L::held, false, V::live, "lock-held", "lock"},
    {N::canonical, FileKind::unknown, L::free, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::unknown, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::canonical, FileKind::unknown, L::unknown, true, V::live, "mapped", "maps"},
    {N::canonical, FileKind::unknown, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::regular, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::regular, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::regular, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::regular, L::free, false, V::foreign, "not-a-pid-name", "name"},
    {N::noncanonical, FileKind::regular, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::regular, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::directory, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::directory, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::directory, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::directory, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::noncanonical, FileKind::directory, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::directory, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::symlink, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::symlink, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::symlink, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::symlink, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::noncanonical, FileKind::symlink, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::symlink, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::fifo, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::fifo, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::fifo, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::fifo, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::noncanonical, FileKind::fifo, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::fifo, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::socket, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::socket, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::socket, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::socket, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::noncanonical, FileKind::socket, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::socket, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::char_device, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::char_device, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::char_device, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::char_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::noncanonical, FileKind::char_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::char_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::block_device, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::block_device, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::block_device, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::block_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::noncanonical, FileKind::block_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::block_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::noncanonical, FileKind::unknown, L::held, true, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::unknown, L::held, false, V::live, "lock-held", "lock"},
    {N::noncanonical, FileKind::unknown, L::free, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::unknown, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::noncanonical, FileKind::unknown, L::unknown, true, V::live, "mapped", "maps"},
    {N::noncanonical, FileKind::unknown, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::regular, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::regular, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::regular, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::regular, L::free, false, V::foreign, "not-a-pid-name", "name"},
    {N::out_of_range, FileKind::regular, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::regular, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::directory, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::directory, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::directory, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::directory, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::out_of_range, FileKind::directory, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::directory, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::symlink, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::symlink, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::symlink, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::symlink, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::out_of_range, FileKind::symlink, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::symlink, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::fifo, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::fifo, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::fifo, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::fifo, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::out_of_range, FileKind::fifo, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::fifo, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::socket, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::socket, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::socket, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::socket, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::out_of_range, FileKind::socket, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::socket, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::char_device, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::char_device, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::char_device, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::char_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::out_of_range, FileKind::char_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::char_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::block_device, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::block_device, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::block_device, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::block_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::out_of_range, FileKind::block_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::block_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::out_of_range, FileKind::unknown, L::held, true, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::unknown, L::held, false, V::live, "lock-held", "lock"},
    {N::out_of_range, FileKind::unknown, L::free, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::unknown, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::out_of_range, FileKind::unknown, L::unknown, true, V::live, "mapped", "maps"},
    {N::out_of_range, FileKind::unknown, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::regular, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::regular, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::regular, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::regular, L::free, false, V::foreign, "not-a-pid-name", "name"},
    {N::not_a_pid, FileKind::regular, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::regular, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::directory, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::directory, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::directory, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::directory, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::not_a_pid, FileKind::directory, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::directory, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::symlink, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::symlink, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::symlink, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::symlink, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::not_a_pid, FileKind::symlink, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::symlink, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::fifo, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::fifo, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::fifo, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::fifo, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::not_a_pid, FileKind::fifo, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::fifo, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::socket, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::socket, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::socket, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::socket, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::not_a_pid, FileKind::socket, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::socket, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::char_device, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::char_device, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::char_device, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::char_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::not_a_pid, FileKind::char_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::char_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::block_device, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::block_device, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::block_device, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::block_device, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::not_a_pid, FileKind::block_device, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::block_device, L::unknown, false, V::unknown, "lock-unknown", "lock"},
    {N::not_a_pid, FileKind::unknown, L::held, true, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::unknown, L::held, false, V::live, "lock-held", "lock"},
    {N::not_a_pid, FileKind::unknown, L::free, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::unknown, L::free, false, V::foreign, "not-a-regular-file", "file-kind"},
    {N::not_a_pid, FileKind::unknown, L::unknown, true, V::live, "mapped", "maps"},
    {N::not_a_pid, FileKind::unknown, L::unknown, false, V::unknown, "lock-unknown", "lock"},
};
// clang-format on

std::string name_of(N n) {
  switch (n) {
    case N::canonical:
      return std::to_string(kPid);
    case N::noncanonical:
      return "00" + std::to_string(kPid);  // HotSpot reads 4242, never writes it
    case N::out_of_range:
      return "99999999999";
    case N::not_a_pid:
      return "java.hprof";
  }
  return "";
}

TEST(LivenessTruthTable, EveryNameKindAndFileKind) {
  ASSERT_EQ(std::size(kNameTable), 4u * 8u * 3u * 2u);
  for (const NameRow& row : kNameTable) {
    const M maps = row.mapped ? M::yes : M::unreadable;
    const FileFacts file = backing_file(name_of(row.name), row.kind, row.lock,
                                        {process(kPid, P::alive, maps, S::before)});
    const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
    SCOPED_TRACE(::testing::Message() << "row name=" << name_of(row.name)
                                      << " kind=" << int(row.kind) << " lock=" << int(row.lock)
                                      << " mapped=" << row.mapped << " got " << describe(v));
    EXPECT_EQ(v.verdict, row.verdict);
    EXPECT_EQ(v.reason, row.reason);
    EXPECT_TRUE(evidence_names(v, row.decided_by));
    EXPECT_TRUE(judge_agrees(file, LivenessSettings{}, v));
  }
}

TEST(LivenessTruthTable, OnlyStalePidReusedAndForeignAreReapable) {
  EXPECT_TRUE(reapable(Verdict::stale));
  EXPECT_TRUE(reapable(Verdict::pid_reused));
  EXPECT_TRUE(reapable(Verdict::foreign));
  EXPECT_FALSE(reapable(Verdict::live));
  EXPECT_FALSE(reapable(Verdict::unknown));
  EXPECT_EQ(to_string(Verdict::pid_reused), "pid-reused");
}

// ---- Containers: candidates found by NSpid in the container's mount namespace -------------

struct ContainerRow {
  const char* what;
  L lock;
  std::vector<ProcessFacts> candidates;
  std::optional<bool> complete;
  V verdict;
  const char* reason;
  const char* decided_by;
};

TEST(LivenessTruthTable, ContainerCandidates) {
  const ProcessFacts gone = process(31001, P::gone, M::unreadable, S::absent);
  const ProcessFacts reused = process(31002, P::alive, M::no, S::after);
  const ProcessFacts owner = process(31003, P::alive, M::unreadable, S::before);
  const ProcessFacts eperm = process(31004, P::eperm, M::unreadable, S::before);
  ProcessFacts mapped_elsewhere = process(31005, P::alive, M::yes, S::before);
  mapped_elsewhere.maps_inode_only = true;  // overlayfs: maps show the upper layer's device
  const ContainerRow rows[] = {
      {"no process has the nspid",
       L::free,
       {},
       true,
       V::stale,
       "no-process-in-namespace",
       "process"},
      {"the /proc scan was incomplete",
       L::free,
       {},
       false,
       V::unknown,
       "process-scan-incomplete",
       "process"},
      {"no scan at all",
       L::free,
       {},
       std::nullopt,
       V::unknown,
       "process-scan-incomplete",
       "process"},
      {"no process, lock unknown", L::unknown, {}, true, V::unknown, "lock-unknown", "lock"},
      {"no process, lock held", L::held, {}, true, V::live, "lock-held", "lock"},
      {"its process is gone", L::free, {gone}, true, V::stale, "process-gone", "process"},
      {"reused and gone",
       L::free,
       {gone, reused},
       true,
       V::pid_reused,
       "started-after-vm-begin",
       "start-time"},
      {"reused and owner", L::free, {reused, owner}, true, V::live, "process-alive", "start-time"},
      {"gone and EPERM",
       L::free,
       {gone, eperm},
       true,
       V::unknown,
       "process-no-permission",
       "process"},
      {"mapped by inode only",
       L::free,
       {reused, mapped_elsewhere},
       true,
       V::live,
       "mapped",
       "maps"},
  };
  LivenessSettings settings;
  settings.container = true;
  for (const ContainerRow& row : rows) {
    FileFacts file = backing_file("7", FileKind::regular, row.lock, row.candidates);
    file.liveness->candidates_complete = row.complete;
    const LivenessVerdict v = decide_liveness(file, settings);
    SCOPED_TRACE(::testing::Message()
                 << row.what << ": got " << describe(v) << " " << v.evidence.dump());
    EXPECT_EQ(v.verdict, row.verdict);
    EXPECT_EQ(v.reason, row.reason);
    EXPECT_TRUE(evidence_names(v, row.decided_by));
    EXPECT_TRUE(judge_agrees(file, settings, v));
  }
}

// The reports write the evidence as text, without a document: that text must be what the
// document would be (every member, sorted keys, bytes that are not UTF-8 escaped).
// A judgement is explained, never decided again: the explanation says the verdict that was
// decided, with the candidate that decided it, even when a fresh decision would differ.
TEST(LivenessExplanation, ExplainsTheJudgementItIsGivenWithoutDecidingAgain) {
  // Two candidates in a container: the second, which maps the file, decides "live".
  FileFacts file = backing_file(
      std::to_string(kPid), FileKind::regular, L::free,
      {process(kPid, P::gone, M::no, S::absent), process(9999, P::alive, M::yes, S::before)});
  LivenessSettings settings;
  settings.container = true;
  const LivenessJudgement judged = judge_liveness(file, settings);
  ASSERT_EQ(judged.verdict, V::live);
  ASSERT_EQ(judged.reason, "mapped");
  ASSERT_EQ(judged.decided_by_candidate, 1u);
  EXPECT_EQ(explain_liveness(judged, file, settings).evidence.at("decided_by_pid"), 9999);
  EXPECT_EQ(explain_liveness_brief(judged, file).evidence.at("decided_by_pid"), 9999);

  // The facts the report is written from are the same facts; a judgement of other facts (here
  // the lock seen held) is still explained as what it says.
  FileFacts later = file;
  later.liveness->lock_held = true;
  ASSERT_EQ(judge_liveness(later, settings).reason, "lock-held");
  const LivenessVerdict explained = explain_liveness(judged, later, settings);
  EXPECT_EQ(explained.verdict, V::live);
  EXPECT_EQ(explained.reason, "mapped");
  EXPECT_EQ(explained.evidence.at("reason"), "mapped");
  EXPECT_EQ(explained.message, "pid 9999 maps this file");

  // A lock-unknown judgement keeps what a free lock would have given.
  const FileFacts unknown_lock = backing_file(std::to_string(kPid), FileKind::regular, L::unknown,
                                              {process(kPid, P::gone, M::unreadable, S::absent)});
  const LivenessJudgement doubt = judge_liveness(unknown_lock, LivenessSettings{});
  EXPECT_EQ(doubt.reason, "lock-unknown");
  EXPECT_EQ(doubt.would_be, V::stale);
  EXPECT_EQ(explain_liveness_brief(doubt, unknown_lock).evidence.at("would_be"), "stale");
}

// A judgement that names a candidate the facts do not have (facts changed since, a judgement
// of other facts) is explained without a deciding process, never with one read past the list.
TEST(LivenessExplanation, AJudgementNamingACandidateTheFactsLackHasNoDecidingProcess) {
  const FileFacts file = backing_file(std::to_string(kPid), FileKind::regular, L::free,
                                      {process(kPid, P::gone, M::no, S::absent)});
  LivenessJudgement judged = judge_liveness(file, LivenessSettings{});
  ASSERT_EQ(judged.decided_by_candidate, 0U);
  EXPECT_EQ(explain_liveness(judged, file, LivenessSettings{}).evidence.at("decided_by_pid"), kPid);
  judged.decided_by_candidate = 1;  // one past the one candidate
  const LivenessVerdict v = explain_liveness(judged, file, LivenessSettings{});
  EXPECT_FALSE(v.evidence.contains("decided_by_pid")) << v.evidence.dump();
  EXPECT_FALSE(explain_liveness_brief(judged, file).evidence.contains("decided_by_pid"));
}

// How long after the VM began a candidate started is said only when both times are known.
TEST(LivenessEvidence, AStartAfterTheVmBeganNeedsBothTimes) {
  const auto start_after = [](const FileFacts& file) {
    const json ev = explain_liveness(judge_liveness(file, LivenessSettings{}), file, LivenessSettings{}).evidence;
    return ev.at("candidates").at(0).contains("start_after_vm_begin_ms");
  };
  EXPECT_TRUE(start_after(backing_file(std::to_string(kPid), FileKind::regular, L::free,
                                       {process(kPid, P::alive, M::no, S::after)}, B::yes)));
  EXPECT_FALSE(start_after(backing_file(std::to_string(kPid), FileKind::regular, L::free,
                                        {process(kPid, P::alive, M::no, S::after)}, B::no)));
  EXPECT_FALSE(start_after(backing_file(std::to_string(kPid), FileKind::regular, L::free,
                                        {process(kPid, P::alive, M::no, S::absent)}, B::yes)));
}

TEST(LivenessEvidence, TextIsTheDocumentWithEveryMember) {
  ProcessFacts full = process(31002, P::alive, M::yes, S::after);
  full.maps_inode_only = true;
  full.maps_libjvm = true;
  full.real_uid = 1000;
  full.ns_pids = {31002, 7};
  full.mount_namespace = "mnt:[4026531841]";
  full.error = ObservationError{"", "open", 13, "Permission denied"};
  full.error->path = std::string("/proc/31002/") + '\xff' + "maps";
  FileFacts file = backing_file("31002", FileKind::regular, L::unknown,
                                {full, process(31003, P::gone, M::unreadable, S::absent)});
  file.liveness->lock_holder_pid = 99;
  file.liveness->lock_kind = "FLOCK WRITE";
  file.liveness->lock_inode_only = true;
  file.liveness->candidates_complete = false;
  LivenessSettings settings;
  settings.container = true;

  std::string text;
  const LivenessVerdict compact =
      explain_liveness(judge_liveness(file, settings), file, settings, text);
  const LivenessVerdict document = decide_liveness(file, settings);
  EXPECT_TRUE(compact.evidence.is_null());
  EXPECT_EQ(compact.message, document.message);
  EXPECT_EQ(compact.reason, document.reason);
  const json parsed = json::parse(text);
  EXPECT_EQ(text, parsed.dump()) << "members out of order";
  EXPECT_EQ(parsed, document.evidence);
  const json& c = parsed.at("candidates").at(0);
  for (const char* key : {"error", "existence", "judgement", "maps_backing_file", "maps_inode_only",
                          "maps_libjvm", "mount_namespace", "ns_pids", "pid", "real_uid",
                          "start_after_vm_begin_ms", "start_time_ms"}) {
    EXPECT_TRUE(c.contains(key)) << key;
  }
  EXPECT_EQ(c.at("ns_pids"), json::array({31002, 7}));
  EXPECT_EQ(c.at("error").at("path"), "/proc/31002/\\xffmaps");
  EXPECT_EQ(parsed.at("candidates_complete"), false);
  EXPECT_EQ(parsed.at("lock").at("holder_pid"), 99);
  EXPECT_EQ(parsed.at("lock").at("inode_only"), true);
  EXPECT_EQ(parsed.at("lock").at("kind"), "FLOCK WRITE");
  EXPECT_EQ(parsed.at("file").at("pid"), 31002);
  EXPECT_EQ(parsed.at("vm_begin_time_ms"), kBegin);
  EXPECT_EQ(parsed.at("decided_by_pid"), 31002);  // it maps the file

  // The member only an unknown lock has.
  const FileFacts gone = backing_file("31003", FileKind::regular, L::unknown,
                                      {process(31003, P::gone, M::unreadable, S::absent)}, B::no);
  std::string brief;
  EXPECT_EQ(
      explain_liveness(judge_liveness(gone, LivenessSettings{}), gone, LivenessSettings{}, brief)
          .reason,
      "lock-unknown");
  const json gone_parsed = json::parse(brief);
  EXPECT_EQ(brief, gone_parsed.dump());
  EXPECT_EQ(gone_parsed.at("would_be"), "stale");
  EXPECT_TRUE(gone_parsed.at("vm_begin_time_ms").is_null());
  EXPECT_EQ(gone_parsed, decide_liveness(gone, LivenessSettings{}).evidence);
}

TEST(LivenessTruthTable, HostRootWithoutCandidateIsUnknown) {
  const FileFacts file = backing_file("4242", FileKind::regular, L::free, {});
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_EQ(v.reason, "no-candidate");
}

// ---- The file itself ------------------------------------------------------------------------

TEST(LivenessFile, UnobservedFileIsUnknown) {
  FileFacts file =
      backing_file("4242", FileKind::regular, L::free, {process(kPid, P::gone, M::no, S::absent)});
  file.lstat.reset();
  file.opened.reset();
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_EQ(v.reason, "file-unobserved");
  EXPECT_TRUE(evidence_names(v, "file"));
}

TEST(LivenessFile, FileSwappedDuringObservationIsUnknown) {
  FileFacts file =
      backing_file("4242", FileKind::regular, L::free, {process(kPid, P::gone, M::no, S::absent)});
  file.opened->ino = 78;  // lstat saw one inode, the opened fd another
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_EQ(v.reason, "file-replaced");
}

TEST(LivenessFile, MountPointIsNeverJudgedStale) {
  FileFacts file =
      backing_file("4242", FileKind::regular, L::free, {process(kPid, P::gone, M::no, S::absent)});
  file.crosses_mount = true;
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).reason, "crosses-mount");
}

TEST(LivenessFile, NoLivenessFactsAtAllIsUnknown) {
  FileFacts file = backing_file("4242", FileKind::regular, L::free, {});
  file.liveness.reset();
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).verdict, Verdict::unknown);
  file.name = "java.hprof";
  file.pid_name = classify_pid_name(file.name);
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::unknown);  // a foreign name, but nobody looked at its lock
  EXPECT_EQ(v.reason, "lock-unknown");
}

TEST(LivenessFile, LstatAloneIsEnoughWhenTheFileWasNotOpened) {
  FileFacts file = backing_file("4242", FileKind::regular, L::free,
                                {process(kPid, P::gone, M::unreadable, S::absent)});
  file.opened.reset();
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).verdict, Verdict::stale);
}

// ---- Start time: the tolerance boundary ------------------------------------------------------

TEST(LivenessStartTime, ToleranceBoundaryIsExclusive) {
  LivenessSettings settings;
  settings.start_time_tolerance_ms = 2000;
  ProcessFacts p = process(kPid, P::alive, M::unreadable, S::absent);
  p.start_time_ms = kBegin + 2000;  // btime truncation and tick rounding live in here
  FileFacts file = backing_file("4242", FileKind::regular, L::free, {p});
  EXPECT_EQ(decide_liveness(file, settings).verdict, Verdict::live);
  file.liveness->candidates[0].start_time_ms = kBegin + 2001;
  const LivenessVerdict v = decide_liveness(file, settings);
  EXPECT_EQ(v.verdict, Verdict::pid_reused);
  EXPECT_EQ(v.evidence.at("candidates").at(0).at("start_after_vm_begin_ms"), 2001);
  settings.start_time_tolerance_ms = 5000;
  EXPECT_EQ(decide_liveness(file, settings).verdict, Verdict::live);
}

TEST(LivenessStartTime, BeginTimeThatIsNotAPositiveLongIsAbsent) {
  FileFacts file = backing_file("4242", FileKind::regular, L::free,
                                {process(kPid, P::alive, M::unreadable, S::after)});
  file.region->region.entries[0].long_value = 0;
  EXPECT_FALSE(vm_begin_time_ms(file).has_value());
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).reason, "no-vm-begin-time");
  file.region->region.entries[0].long_value = kBegin;
  file.region->region.entries[0].vector_length = 8;  // a string named like the counter
  EXPECT_FALSE(vm_begin_time_ms(file).has_value());
  file.region.reset();
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).reason, "no-vm-begin-time");
}

// A JVM creates its file, then maps it, then records createVmBeginTime: a process that
// started before the file's last change and does not map it yet may be that JVM.
TEST(LivenessStartTime, UnmappedFileOfAStartingJvmIsNotCalledReused) {
  ProcessFacts starting = process(kPid, P::alive, M::no, S::before);
  FileFacts file = backing_file("4242", FileKind::regular, L::free, {starting}, B::no);
  LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_EQ(v.reason, "startup-window");
  // Started the tolerance after the file's last change, no more: within what clock rounding
  // allows, so it may still be the JVM that made it (the boundary is exclusive, as for
  // createVmBeginTime).
  LivenessSettings settings;
  settings.start_time_tolerance_ms = 2000;
  file.liveness->candidates[0].start_time_ms = kFileCtime + 2000;
  v = decide_liveness(file, settings);
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_EQ(v.reason, "startup-window");
  // The same process, started well after the file last changed, cannot have created it.
  file.liveness->candidates[0].start_time_ms = kFileCtime + 2001;
  v = decide_liveness(file, settings);
  EXPECT_EQ(v.verdict, Verdict::pid_reused);
  EXPECT_EQ(v.reason, "maps-without-file");
}

// ---- Adversarial: named after the attack ----------------------------------------------------

// A stale file whose pid now belongs to an unrelated long-running process (the EPERM case
// HotSpot calls stale): we do not guess.
TEST(LivenessAttack, PidTakenByAnotherUsersProcessIsUnknownNotStale) {
  ProcessFacts other = process(kPid, P::eperm, M::unreadable, S::after);
  const FileFacts file = backing_file("4242", FileKind::regular, L::free, {other});
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_FALSE(reapable(v.verdict));
}

// Old JVMs never take the lock: a free lock on a file whose JVM still runs proves nothing.
TEST(LivenessAttack, FreeLockOfAnOldJvmDoesNotMakeItStale) {
  const FileFacts file = backing_file("4242", FileKind::regular, L::free,
                                      {process(kPid, P::alive, M::yes, S::before)});
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).verdict, Verdict::live);
  const FileFacts unreadable = backing_file("4242", FileKind::regular, L::free,
                                            {process(kPid, P::alive, M::unreadable, S::before)});
  EXPECT_EQ(decide_liveness(unreadable, LivenessSettings{}).verdict, Verdict::live);
}

// A hard link to a live JVM's file under a name no JVM writes: the inode is in use.
TEST(LivenessAttack, HardLinkToLiveFileUnderForeignNameStaysLive) {
  FileFacts file = backing_file("backup", FileKind::regular, L::held, {});
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::live);
  EXPECT_EQ(v.evidence.at("lock").at("holder_pid"), kPid);
  EXPECT_EQ(v.evidence.at("lock").at("kind"), "FLOCK WRITE");
}

// Leading zeros: HotSpot would treat "007" as pid 7's file; no JVM ever wrote it.
TEST(LivenessAttack, ZeroPaddedNameIsForeignNotPidSeven) {
  FileFacts file = backing_file("007", FileKind::regular, L::free,
                                {process(7, P::alive, M::unreadable, S::before)});
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::foreign);
  EXPECT_EQ(v.evidence.at("file").at("name_kind"), "noncanonical");
}

// A forged region claiming a VM began long ago cannot make a live JVM's file reapable
// while the JVM maps it, nor while its lock is held.
TEST(LivenessAttack, ForgedEarlyBeginTimeDoesNotBeatMapsOrLock) {
  FileFacts file =
      backing_file("4242", FileKind::regular, L::free, {process(kPid, P::alive, M::yes, S::after)});
  file.region->region.entries[0].long_value = 1;
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).verdict, Verdict::live);
  file = backing_file("4242", FileKind::regular, L::held,
                      {process(kPid, P::alive, M::unreadable, S::after)});
  file.region->region.entries[0].long_value = 1;
  EXPECT_EQ(decide_liveness(file, LivenessSettings{}).verdict, Verdict::live);
}

// ---- /proc parsers ----------------------------------------------------------------------------

TEST(ProcfsParse, LocksKeepsHoldersAndSkipsWaiters) {
  const std::string text =
      "1: FLOCK  ADVISORY  WRITE 2436 fe:00:10960898 0 EOF\n"
      "1: -> FLOCK  ADVISORY  WRITE 2437 fe:00:10960898 0 EOF\n"
      "2: POSIX  ADVISORY  READ 1200 00:1a:2 0 EOF\n"
      "3: OFDLCK ADVISORY  WRITE -1 103:05:99 0 EOF\n"
      "4: LEASE  ACTIVE    READ 880 00:2f:12345 0 EOF\n"
      "5: FLOCK  ADVISORY  WRITE 0 00:1a:3 0 EOF\n"
      "6: POSIX  ADVISORY  WRITE 77 <none>:0 0 EOF\n"
      "garbage line\n"
      "7: FLOCK  ADVISORY  WRITE 1 00:1a:4 0 EOF\n"  // pid 1: a JVM that is init of our pid namespace
      "8: FLOCK  ADVISORY  WRITE 12 fe:zz:1 0 EOF";  // no final newline
  const procfs::LocksParse p = procfs::parse_locks(text);
  ASSERT_EQ(p.held.size(), 6u);
  EXPECT_EQ(p.waiters, 1u);
  EXPECT_EQ(p.malformed, 2u);
  EXPECT_EQ(p.held[0].kind, "FLOCK");
  EXPECT_EQ(p.held[0].access, "WRITE");
  EXPECT_EQ(p.held[0].pid, 2436);
  EXPECT_EQ(p.held[0].file, (procfs::FileId{0xfe, 0x00, 10960898}));
  EXPECT_EQ(p.held[1].file, (procfs::FileId{0, 0x1a, 2}));
  EXPECT_EQ(p.held[2].kind, "OFDLCK");
  EXPECT_FALSE(p.held[2].pid.has_value());  // OFD locks belong to no process
  EXPECT_EQ(p.held[2].file.major, 0x103u);
  EXPECT_EQ(p.held[3].kind, "LEASE");
  EXPECT_FALSE(p.held[4].pid.has_value());  // holder outside our pid namespace
  EXPECT_EQ(p.held[5].pid, 1);
  EXPECT_EQ(p.held[5].file, (procfs::FileId{0, 0x1a, 4}));
}

// A line of /proc/locks starts with its number and a colon ("12:"): a line whose first field
// is a number without it, or a colon alone, is not the format this parser knows, and is
// counted malformed, never taken for a lock held (however well the rest of it reads).
TEST(ProcfsParse, ALockLineWithoutItsNumberAndColonIsMalformed) {
  const procfs::LocksParse p = procfs::parse_locks(
      "12 FLOCK  ADVISORY  WRITE 100 00:1a:5 0 EOF\n"
      ": FLOCK  ADVISORY  WRITE 101 00:1a:6 0 EOF\n"
      "13: FLOCK  ADVISORY  WRITE 102 00:1a:7 0 EOF\n");
  ASSERT_EQ(p.held.size(), 1u);
  EXPECT_EQ(p.held[0].pid, 102);
  EXPECT_EQ(p.malformed, 2u);
}

TEST(ProcfsParse, StatTakesFieldsAfterTheLastParenthesis) {
  // A command name with spaces and parentheses, as any process may choose.
  const std::string stat =
      "4242 (evil) S 1 2 3 (x) R 1 4242 4242 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 19 0 "
      "123456 1000000 200 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";
  const auto f = procfs::parse_stat(stat);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->state, 'R');
  EXPECT_EQ(f->start_ticks, 123456u);
  EXPECT_FALSE(procfs::parse_stat("4242 (short) S 1 2 3").has_value());
  EXPECT_FALSE(procfs::parse_stat("no parenthesis at all").has_value());
  EXPECT_FALSE(procfs::parse_stat("").has_value());
}

TEST(ProcfsParse, BtimeAndStartTime) {
  EXPECT_EQ(procfs::parse_btime("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n"), 1700000000);
  EXPECT_FALSE(procfs::parse_btime("cpu 1\nbtimeX 5\n").has_value());
  EXPECT_EQ(procfs::start_time_ms(1700000000, 12345, 100), 1700000000LL * 1000 + 123450);
  EXPECT_EQ(procfs::start_time_ms(10, 7, 3), 12333);  // 7 ticks of 3 Hz = 2.333 s
  EXPECT_FALSE(procfs::start_time_ms(10, 7, 0).has_value());
  EXPECT_FALSE(procfs::start_time_ms(10, ~std::uint64_t{0}, 1).has_value());
}

// A boot time of 0 (or below) is no clock: no start time is made from it, and a process's
// start is then unknown rather than in 1970 (which would make every live JVM "older" than its
// file, a reused pid). One second after the epoch is a clock; so are the bounds of
// start_time_ms, each side of them.
TEST(ProcfsParse, BtimeOfZeroIsNoClockAndTheBoundsHoldEachSide) {
  EXPECT_FALSE(procfs::parse_btime("btime 0\n").has_value());
  EXPECT_FALSE(procfs::parse_btime("btime -1\n").has_value());
  EXPECT_EQ(procfs::parse_btime("btime 1\n"), 1);
  EXPECT_EQ(procfs::parse_btime("btime 0\nbtime 7\n"), 7);  // the first valid line decides
  EXPECT_FALSE(procfs::parse_btime("btime\n").has_value());
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  EXPECT_EQ(procfs::start_time_ms(0, 7, 3), 2333);
  EXPECT_FALSE(procfs::start_time_ms(-1, 7, 3).has_value());
  EXPECT_EQ(procfs::start_time_ms(kMax, 0, 100), kMax * 1000);
  EXPECT_FALSE(procfs::start_time_ms(kMax + 1, 0, 100).has_value());
  EXPECT_EQ(procfs::start_time_ms(1, static_cast<std::uint64_t>(kMax), 1), (1 + kMax) * 1000);
  EXPECT_FALSE(procfs::start_time_ms(1, static_cast<std::uint64_t>(kMax) + 1, 1).has_value());
  EXPECT_EQ(procfs::start_time_ms(10, 1, 1), 11000);
}

TEST(ProcfsParse, StatusUidAndNSpid) {
  const auto s = procfs::parse_status(
      "Name:\tjava\nTgid:\t900\nPid:\t900\nUid:\t1000\t1001\t1002\t1003\nNSpid:\t900\t45\t7\n");
  EXPECT_EQ(s.tgid, 900);
  EXPECT_EQ(s.real_uid, 1000u);
  EXPECT_EQ(s.effective_uid, 1001u);
  EXPECT_EQ(s.ns_pids, (std::vector<std::int32_t>{900, 45, 7}));
  EXPECT_TRUE(procfs::parse_status("NSpid:\t900\tx\n").ns_pids.empty());  // never a partial list
}

// A parser reads the text it is given and no further: a view cut from a longer buffer, the
// byte after it a blank, ends where it ends (the last line without its newline).
TEST(ProcfsParse, AViewEndsWhereItEndsWhateverBytesFollowIt) {
  const std::string buffer = "Tgid:\t7\nNSpid:\t12\t1\t \t";
  const std::string_view view(buffer.data(), buffer.find("1\t \t") + 1);
  ASSERT_EQ(view.back(), '1');
  const auto s = procfs::parse_status(view);
  EXPECT_EQ(s.tgid, 7);
  EXPECT_EQ(s.ns_pids, (std::vector<std::int32_t>{12, 1}));
}

TEST(ProcfsParse, MapsFilesAndLibjvm) {
  const std::string maps =
      "55d0c0a00000-55d0c0a01000 r--p 00000000 fe:00 3944023                    "
      "/usr/lib/jvm/bin/java\n"
      "7f0000000000-7f0000001000 rw-s 00000000 00:1a 2                          "
      "/tmp/hsperfdata_a/42\n"
      "7f0000001000-7f0000002000 r-xp 00000000 fe:00 3944100                    "
      "/usr/lib/jvm/lib/server/libjvm.so\n"
      "7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n"
      "7f0000003000-7f0000004000 r--p 00001000 fe:00 3944100                    "
      "/usr/lib/jvm/lib/server/libjvm.so\n"
      "7ffd00000000-7ffd00001000 rw-p 00000000 00:00 0                          [stack]\n";
  const procfs::MapsSummary m = procfs::parse_maps(maps);
  EXPECT_EQ(m.lines, 6u);
  EXPECT_EQ(m.malformed, 0u);
  EXPECT_TRUE(m.libjvm);
  ASSERT_EQ(m.files.size(), 3u);
  EXPECT_EQ(procfs::match_file(m.files, {0, 0x1a, 2}), procfs::Match::exact);
  EXPECT_EQ(procfs::match_file(m.files, {0, 0x1b, 2}), procfs::Match::inode_only);
  EXPECT_EQ(procfs::match_file(m.files, {0, 0x1a, 3}), procfs::Match::none);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /opt/libjvm.so.bak\n").libjvm);
  EXPECT_TRUE(procfs::parse_maps("7f-8f r-xp 0 fe:00 5 /opt/libjvm.so (deleted)\n").libjvm);
  // Mapped only to be read (a scanner, a checksum, a backup): no JVM runs its code.
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /usr/lib/jvm/lib/server/libjvm.so\n").libjvm);
  EXPECT_FALSE(procfs::parse_maps("7f-8f rw-s 0 fe:00 5 /opt/libjvm.so\n").libjvm);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r-x\n").libjvm);
  EXPECT_EQ(procfs::parse_maps("").lines, 0u);
  EXPECT_EQ(procfs::parse_maps("7f-8f r--p 0 nodevice 5 /x\n").malformed, 1u);
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 nodevice 5 /x\n").files_complete());
  EXPECT_TRUE(procfs::parse_maps(maps).files_complete());
}

// The streaming parser: maps are fed as the kernel hands them over, cut anywhere.
std::string repeat(char c, std::size_t n) { return std::string(n, c); }

procfs::MapsSummary parse_in_chunks(std::string_view text, std::size_t chunk,
                                    std::size_t max_line = procfs::kMaxMapsLine,
                                    bool truncated = false) {
  procfs::MapsParser parser(max_line);
  for (std::size_t at = 0; at < text.size(); at += chunk) parser.feed(text.substr(at, chunk));
  return parser.finish(truncated);
}

TEST(ProcfsParse, MapsFedInChunksOfAnySizeAreParsedAsWhole) {
  const std::string maps =
      "55d0c0a00000-55d0c0a01000 r--p 00000000 fe:00 3944023    /usr/lib/jvm/bin/java\n"
      "7f0000000000-7f0000001000 rw-s 00000000 00:1a 2          /tmp/hsperfdata_a/42\n"
      "7f0000001000-7f0000002000 r-xp 00000000 fe:00 3944100    /usr/lib/jvm/lib/server/libjvm.so\n"
      "7f0000002000-7f0000003000 rw-p 00000000 00:00 0 \n"
      "7ffd00000000-7ffd00001000 rw-p 00000000 00:00 0          [stack]";  // no last newline
  const procfs::MapsSummary whole = procfs::parse_maps(maps);
  ASSERT_EQ(whole.lines, 5u);
  ASSERT_EQ(whole.files.size(), 3u);
  for (std::size_t chunk = 1; chunk <= maps.size(); ++chunk) {
    const procfs::MapsSummary m = parse_in_chunks(maps, chunk);
    EXPECT_EQ(m.files, whole.files) << chunk;
    EXPECT_EQ(m.lines, whole.lines) << chunk;
    EXPECT_TRUE(m.libjvm) << chunk;
    ASSERT_TRUE(m.backing) << chunk;
    EXPECT_EQ(m.backing->path, "/tmp/hsperfdata_a/42");
    EXPECT_EQ(m.backing->range, "7f0000000000-7f0000001000");
    EXPECT_TRUE(m.files_complete() && m.paths_complete()) << chunk;
  }
}

// A line longer than the parser keeps: its device and inode still count (they come first),
// its path is not judged, and the summary says that the paths are not known whole.
TEST(ProcfsParse, MapsLineLongerThanTheBufferKeepsItsFileButNotItsPath) {
  const std::string long_path = "/" + repeat('d', 900) + "/lib/server/libjvm.so";
  const std::string maps = "7f10-7f20 r-xp 0 fe:00 77 " + long_path +
                           "\n"
                           "7f30-7f40 rw-s 0 00:2a 12 /tmp/hsperfdata_app/42\n";
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{300}, maps.size()}) {
    const procfs::MapsSummary m = parse_in_chunks(maps, chunk, 256);
    EXPECT_EQ(m.lines, 2u) << chunk;
    EXPECT_EQ(m.long_lines, 1u) << chunk;
    EXPECT_EQ(m.malformed, 0u) << chunk;
    EXPECT_EQ(procfs::match_file(m.files, {0xfe, 0, 77}), procfs::Match::exact) << chunk;
    EXPECT_FALSE(m.libjvm) << "a cut path is not judged";
    EXPECT_TRUE(m.hsperfdata) << "the next line is whole again";
    EXPECT_TRUE(m.files_complete());
    EXPECT_FALSE(m.paths_complete());
  }
  // Kept whole, the same line names libjvm.
  EXPECT_TRUE(parse_in_chunks(maps, 64, 4096).libjvm);
  // A line whose inode runs to the end of what is kept may have lost digits: malformed.
  const std::string cut_inode = "7f10-7f20 r-xp 0 fe:00 " + repeat(' ', 229) + "123456789 /x\n";
  const procfs::MapsSummary m = parse_in_chunks(cut_inode, 16, 256);
  EXPECT_EQ(m.malformed, 1u);
  EXPECT_TRUE(m.files.empty());
  EXPECT_FALSE(m.files_complete()) << "the line it could not parse may have mapped any file";
}

// The boundary: a line of exactly the bytes kept is whole, wherever it was cut; one byte more
// and its path is no longer judged.
TEST(ProcfsParse, MapsLineOfExactlyTheBytesKeptIsWhole) {
  const std::string head = "7f10-7f20 r-xp 0 fe:00 77 /";
  const std::string tail = "/lib/server/libjvm.so";
  const std::string fits = head + repeat('d', 256 - head.size() - tail.size()) + tail;
  ASSERT_EQ(fits.size(), 256u);
  const std::string one_more = head + repeat('d', 257 - head.size() - tail.size()) + tail;
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{100}, std::size_t{256}, std::size_t{257}}) {
    const procfs::MapsSummary m = parse_in_chunks(fits + "\n", chunk, 256);
    EXPECT_EQ(m.lines, 1u) << chunk;
    EXPECT_EQ(m.long_lines, 0u) << chunk;
    EXPECT_TRUE(m.libjvm) << chunk;
    EXPECT_TRUE(m.paths_complete()) << chunk;
    const procfs::MapsSummary longer = parse_in_chunks(one_more + "\n", chunk, 256);
    EXPECT_EQ(longer.long_lines, 1u) << chunk;
    EXPECT_FALSE(longer.libjvm) << chunk;
  }
}

// The reader stopped within a line (the cap, or the run limits): that line is not parsed, its
// inode may be cut short ("12" of "123456"), and the summary proves no file unmapped.
TEST(ProcfsParse, MapsLineCutAtTheCapIsNotParsed) {
  const std::string maps = "7f10-7f20 r--p 0 fe:00 5 /a\n7f30-7f40 r--p 0 fe:00 123456 /b\n";
  const std::string cut = maps.substr(0, maps.find("123456") + 2);
  const procfs::MapsSummary m = parse_in_chunks(cut, 5, procfs::kMaxMapsLine, true);
  EXPECT_EQ(m.lines, 1u);
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_EQ(m.files[0].ino, 5u);
  EXPECT_TRUE(m.truncated);
  EXPECT_FALSE(m.files_complete());
  EXPECT_FALSE(m.paths_complete());
  // Cut right after a newline: every line read is whole, but the file went on.
  const procfs::MapsSummary at_newline =
      parse_in_chunks(maps.substr(0, maps.find('\n') + 1), 3, procfs::kMaxMapsLine, true);
  EXPECT_EQ(at_newline.lines, 1u);
  EXPECT_FALSE(at_newline.files_complete());
  // The same text, the whole file: its last line, even without a newline, is parsed.
  EXPECT_EQ(parse_in_chunks(maps.substr(0, maps.size() - 1), 5).files.size(), 2u);
}

// Paths are bytes: neither UTF-8 nor anything else is assumed of them; " (deleted)" is cut
// off a path wherever the line was split.
TEST(ProcfsParse, MapsPathsThatAreNotUtf8AndDeletedSuffixes) {
  const std::string odd = "/tmp/\xff\xfe\x80/hsperfdata_\xc3\x28/42";
  const std::string maps = "7f10-7f20 r-xp 0 fe:00 5 /opt/\xe9t\xe9/libjvm.so (deleted)\n"
                           "7f30-7f40 rw-s 0 00:2a 12 " + odd + " (deleted)\n";
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{4}, maps.size()}) {
    const procfs::MapsSummary m = parse_in_chunks(maps, chunk);
    EXPECT_TRUE(m.libjvm) << chunk;
    ASSERT_TRUE(m.backing) << chunk;
    EXPECT_EQ(m.backing->path, odd);
    EXPECT_TRUE(m.backing->deleted);
    EXPECT_EQ(m.backing->file, (procfs::FileId{0, 0x2a, 12}));
  }
  // A suffix in the middle of a path is part of the name.
  EXPECT_FALSE(procfs::parse_maps("7f-8f r--p 0 fe:00 5 /opt/libjvm.so (deleted)/x\n").libjvm);
}

// One file mapped a page at a time, tens of thousands of times: the parser's list of files
// stays near the number of distinct files.
TEST(ProcfsParse, MapsOfFewFilesMappedManyTimesNameEachOnce) {
  std::string maps;
  for (int i = 0; i < 20000; ++i) {
    maps += "7f10-7f20 r--s 0 00:2a " + std::string(i % 2 ? "12" : "13") + " /f\n";
  }
  procfs::MapsParser parser;
  parser.feed(maps);
  const procfs::MapsSummary m = parser.finish();
  EXPECT_EQ(m.lines, 20000u);
  EXPECT_EQ(m.files.size(), 2u);
}

}  // namespace
}  // namespace hsperfguard
