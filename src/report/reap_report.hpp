// The reap report: the plan (what was judged, with its evidence, and what would be done),
// the actions (what was done and what failed), as JSON ("command": "reap", schema in
// schemas/report.schema.json) or as text for people.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <utility>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "decide/audit.hpp"
#include "decide/reaper.hpp"
#include "model/facts.hpp"
#include "model/host_info.hpp"

namespace hsperfguard {

struct ReapLockInfo {
  std::optional<std::string> path;  // nullopt: --no-lock, or a dry run (takes no lock)
  bool acquired = false;
  bool waited = false;
  std::int64_t wait_ms = 0;
};

// Where a run spent its time (milliseconds), for operators watching a cron job grow.
struct ReapTimings {
  std::int64_t lock_ms = 0;
  std::int64_t observe_ms = 0;   // listing and stat'ing, liveness, the regions it needed
  std::int64_t plan_ms = 0;
  std::int64_t execute_ms = 0;
  std::int64_t discover_ms = 0;  // which temp dirs to look at: the container scan over /proc
};

struct ReapOutcomeCounts {
  std::size_t removed = 0;
  std::size_t vanished = 0;
  std::size_t became_live = 0;
  std::size_t changed = 0;
  std::size_t failed = 0;
  std::size_t not_attempted = 0;
};

// What plan items and action records came to, counted. A run in parts reports each part, adds
// it here and drops it: of its items and actions, these counts are all that is kept.
struct ReapTally {
  std::size_t items = 0;
  PlanCounts planned;
  std::size_t left_to_a_person = 0;  // kept, why "not-permitted"
  std::map<std::string, std::size_t> by_verdict, by_why;
  std::map<std::pair<Verdict, ReapAction>, std::size_t> by_verdict_and_action;
  std::map<std::string, std::size_t> kept_by_why;
  std::size_t actions = 0;
  ReapOutcomeCounts outcomes;

  void add_items(const std::vector<PlanItem>& items);
  void add_actions(const std::vector<ReapActionRecord>& actions);
};

struct ReapRun {
  std::vector<TempRootFacts> roots;
  // A run reported whole (observe_and_plan, tests): every item. A run in parts
  // (run_reap_command): the items of the part being planned, acted on and reported; those of
  // the parts before it are counted in `dropped` (items[i] is the run's item items_before + i),
  // and the files of those parts are gone from `roots` (their errors are in dropped_errors).
  Plan plan;
  std::size_t items_before = 0;
  ReapTally dropped;
  // The errors of the files and attach files of dropped parts, with the index of their root.
  std::vector<std::pair<std::size_t, ObservationError>> dropped_errors;
  std::optional<ExecutionResult> execution;  // absent for a dry run
  ReapOptions options;
  bool dry_run = false;
  std::optional<std::int64_t> max_runtime_ms;
  ReapLockInfo lock;
  std::optional<std::string> journal;
  std::vector<ObservationError> errors;  // run-level (the journal, ...)
  std::int64_t started_at_ms = 0;
  std::int64_t finished_at_ms = 0;
  // A temp dir could not be observed, or was not observed to the end (the run's limits, or
  // a container's share of them, were reached: its TempRootFacts::stopped says so).
  bool incomplete = false;
  // What the run could not look at (any of it makes it incomplete).
  NotLookedAt not_looked_at;
  // --user: the only user whose namespaces were in scope.
  std::optional<std::string> scope_user;
  ReapTimings timings;
};

ReapOutcomeCounts count_outcomes(const ExecutionResult& execution);
// The run's whole tally: what `dropped` counts and the items and actions it still holds.
ReapTally tally_of(const ReapRun& run);

// One JSON object for a plan item (its message and evidence from explain_item) or an
// action (also the journal's lines).
nlohmann::json plan_item_json(const ReapRun& run, std::size_t item);
nlohmann::json action_json(const Plan& plan, const ReapActionRecord& record, std::size_t items_before = 0);

// The whole report, every section but the plan and the actions.
nlohmann::json reap_report_head_json(const ReapRun& run, const HostInfo& host);
using ContentWriter = std::function<void(std::string_view)>;

// Where a report written as its run goes keeps a section until the sections before it are
// written (the head, which counts the whole run, comes first): run_reap_command backs it with
// an unnamed temp file, so that the report's size costs no memory; StringSpool keeps it in a
// string (tests, runs reported whole).
class ReportSpool {
 public:
  virtual ~ReportSpool() = default;
  virtual void append(std::string_view text) = 0;
  virtual std::size_t size() const = 0;
  // Bytes [begin, end) of what was appended, handed to `write`.
  virtual void copy(std::size_t begin, std::size_t end, const ContentWriter& write) = 0;
};

class StringSpool final : public ReportSpool {
 public:
  void append(std::string_view text) override { text_.append(text); }
  std::size_t size() const override { return text_.size(); }
  void copy(std::size_t begin, std::size_t end, const ContentWriter& write) override;

 private:
  std::string text_;
};

using SpoolMaker = std::function<std::unique_ptr<ReportSpool>()>;

// The reap report written as the run goes: add_part renders the part the run holds (its plan
// items, the actions on them, with explain_item's messages from the part's facts) into spools,
// after which the caller may drop the part; write_report writes the head from the run's
// counts and then the spools. JSON (`as_json`) or the text for people (`verbose`, `color` as for
// reap_report_text). The text groups like items of a namespace across its parts, as a report
// of the whole run does; under --verbose each part's items are grouped on their own.
class ReapReportWriter {
 public:
  ReapReportWriter(bool as_json, bool verbose, bool color, SpoolMaker make_spool);
  ~ReapReportWriter();
  ReapReportWriter(const ReapReportWriter&) = delete;
  ReapReportWriter& operator=(const ReapReportWriter&) = delete;

  void add_part(const ReapRun& run);
  // The whole report; `exit_line` ends the text (see reap_report_text).
  void write_report(const ReapRun& run, const HostInfo& host, const std::string& exit_line,
                    const ContentWriter& write);
  // --quiet's lines (reap_attention_text) of every part added.
  void write_attention(const ContentWriter& write);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The whole JSON report of a run that holds every item, handed to `write` piece by piece: the
// head pretty-printed, then "plan" and "actions" with one item per line.
void write_reap_report_json(const ReapRun& run, const HostInfo& host, const ContentWriter& write);
// The same, whole, in a string (tests, small runs).
std::string reap_report_json_text(const ReapRun& run, const HostInfo& host);
// The text for people: each temp dir and namespace, its items (like items of a namespace, more
// than three, as one line with their count and first names unless `verbose`), the counts, the
// actions (grouped the same way: like outcomes of a namespace as one line) and errors. Why something is skipped, kept or left alone is said in words.
// `exit_line` ("exit 1: 2 removals failed ...", or empty for a run that exits 0) ends it;
// `color`: the outcomes in the audit's colours (removed green, the others red).
std::string reap_report_text(const ReapRun& run, bool verbose = false, const std::string& exit_line = "",
                             bool color = false);
// --quiet: what needs a person, for cron to mail, one line each, every part terminal_safe:
// "failed PATH: OP: MESSAGE" for each removal that failed, "kept PATH (not-permitted):
// REMEDIATION" for each entry the plan leaves to a person. Empty when all is well.
std::string reap_attention_text(const ReapRun& run);

}  // namespace hsperfguard
