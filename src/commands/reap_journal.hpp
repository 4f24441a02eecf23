// The reap's journal (--journal): one JSON line per event, appended as the reap acts, so
// that a run killed half-way leaves a record of what it was about to do and what it did: a
// temp dir's start, each entry before it is unlinked and its outcome, and the run's finish.
// Appending goes only to a new file or to one whose first line is a record of ours.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "model/facts.hpp"
#include "model/reap_plan.hpp"
#include "platform/lock_and_journal.hpp"
#include "report/reap_report.hpp"

namespace hsperfguard {

class Environment;

class ReapJournal {
 public:
  // Opens `path` for appending (see the file's opening comment). A last line cut short (a run
  // killed while writing it) is ended, and the next record says so, so that no record is ever
  // glued onto another. nullopt: `error` says why.
  static std::optional<ReapJournal> open(const std::string& path, const Plan& plan, Environment& env,
                                         ObservationError& error);

  // A temp dir's plan (a run in parts: a part of it) is about to be acted on: its items from
  // `first_item` on.
  void start_root(std::size_t first_item);
  // A run in parts: the run's items before the plan's first (the lines number items in the run).
  void set_items_before(std::size_t items_before) { items_before_ = items_before; }
  // Before an entry is unlinked: false when the line could not be written (the entry is then
  // not removed).
  bool before_unlink(const PlanItem& item);
  void on_action(const ReapActionRecord& record);
  // The run's last line: what its actions came to.
  void finish(const ReapOutcomeCounts& outcomes);
  // The first write that failed; every later one is skipped.
  const std::optional<ObservationError>& error() const { return error_; }

 private:
  ReapJournal(platform::AppendLog log, const Plan& plan, Environment& env)
      : log_(std::move(log)), plan_(plan), env_(env) {}
  bool write_line(const std::string& line);

  platform::AppendLog log_;
  const Plan& plan_;
  Environment& env_;
  std::optional<ObservationError> error_;
  std::size_t items_before_ = 0;
};

}  // namespace hsperfguard
