#include "decide/inspect_target.hpp"

#include "model/text_escape.hpp"

namespace hsperfguard {
namespace {

std::string listed(const std::vector<BackingFileCandidate>& candidates) {
  std::string out;
  for (const auto& c : candidates) out += (out.empty() ? "" : ", ") + terminal_safe(c.path);
  return out;
}

std::string owner_text(const BackingFileCandidate& c) {
  return c.owner_uid ? "uid " + std::to_string(*c.owner_uid) : std::string("an unknown owner");
}

}  // namespace

InspectTarget choose_backing_file(const InspectProcess& process, const std::vector<BackingFileCandidate>& candidates) {
  InspectTarget out;
  const std::string pid = std::to_string(process.pid);
  if (process.mapped) {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].ino == process.mapped->ino && candidates[i].dev == process.mapped->dev) {
        out.candidate = i;
        return out;
      }
    }
    out.refusal = "pid " + pid + " maps a backing file that is none of the files named " + pid +
                  " here (a container's, or one replaced since it was created)" +
                  (candidates.empty() ? std::string() : "; not its: " + listed(candidates));
    return out;
  }
  const bool alive = process.existence == ProcessFacts::Existence::alive ||
                     process.existence == ProcessFacts::Existence::no_permission;
  if (alive && process.effective_uid) {
    const std::uint32_t uid = *process.effective_uid;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto& c = candidates[i];
      if (c.owner_uid == uid) {
        if (!out.candidate) out.candidate = i;
      } else {
        out.notes.push_back("passed over " + terminal_safe(c.path) + ": owned by " + owner_text(c) +
                            ", not by pid " + pid + "'s user (uid " + std::to_string(uid) + ")");
      }
    }
    if (out.candidate && process.maps_read) {
      out.notes.push_back("pid " + pid + " maps no backing file: " + terminal_safe(candidates[*out.candidate].path) +
                          " is not its own (a stale file of an earlier process with that pid?)");
    }
    if (!out.candidate) {
      out.refusal = "no backing file of pid " + pid + " (uid " + std::to_string(uid) + ")" +
                    (process.maps_read ? ": it maps none" : "") +
                    "; `hsperfguard ps --all` says why a JVM publishes none";
    }
    return out;
  }
  if (candidates.size() == 1) {
    out.candidate = 0;
    out.notes.push_back(process.existence == ProcessFacts::Existence::gone
                            ? "pid " + pid + " is not running: " + terminal_safe(candidates[0].path) + " is a stale file"
                            : "the user of pid " + pid + " could not be read: " + terminal_safe(candidates[0].path) +
                                  " (owned by " + owner_text(candidates[0]) + ") is not known to be its own");
    return out;
  }
  if (candidates.empty()) {
    out.refusal = "no backing file named " + pid + (process.existence == ProcessFacts::Existence::gone
                                                          ? " and no process " + pid
                                                          : std::string());
    return out;
  }
  out.refusal = std::to_string(candidates.size()) + " files are named " + pid + " and " +
                (process.existence == ProcessFacts::Existence::gone ? "no process " + pid + " runs"
                                                                    : "the user of pid " + pid + " is unknown") +
                " to tell them apart; give the path: " + listed(candidates);
  return out;
}

std::optional<std::string> explain_no_backing_file(const NoBackingFileFacts& facts) {
  const std::string pid = std::to_string(facts.pid);
  if (facts.existence == ProcessFacts::Existence::gone) {
    return facts.files == 0 ? std::optional<std::string>("no process " + pid) : std::nullopt;
  }
  if (facts.jvm != nullptr) {
    const PsRow& row = *facts.jvm;
    std::string text;
    if (row.state == "openj9") {
      text = "pid " + pid + " is an OpenJ9 JVM, which has no backing file";
      if (row.explanation) text += ": " + *row.explanation;
    } else if (row.reason == "perf-data-disabled" && row.details.size() >= 2) {
      text = "pid " + pid + " is a JVM started with " + terminal_safe(row.details[0]) + " (" + terminal_safe(row.details[1]) +
             "): it has no backing file, it publishes no counters";
    } else {
      text = "pid " + pid + " is a JVM with no backing file that jps and jstat can read";
      if (row.explanation) text += ": " + *row.explanation;
    }
    if (row.fix) text += "; fix: " + *row.fix;
    return text;
  }
  if (facts.existence == ProcessFacts::Existence::alive && facts.maps_libjvm == false) {
    return "pid " + pid + " is not a JVM" + (facts.comm ? " (comm " + terminal_safe(*facts.comm) + ")" : std::string()) +
           ": it maps no libjvm";
  }
  return std::nullopt;
}

}  // namespace hsperfguard
