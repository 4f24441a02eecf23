#include "commands/reap_journal.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <utility>

#include "commands/environment.hpp"
#include "model/json_text.hpp"
#include "report/logging.hpp"
#include "report/reap_report.hpp"

namespace hsperfguard {
namespace {

// A journal line of ours: a JSON object whose "event" is a string.
bool is_journal_record(std::string_view line) {
  const auto record = nlohmann::json::parse(line, nullptr, false);
  return record.is_object() && record.contains("event") && record["event"].is_string();
}

// Opens the journal and makes sure appending to it is right: a new file, or one whose first
// line is a record of ours (appending to anything else would corrupt some other file). A last
// line cut short (a run killed while writing it, before records were written whole) is ended,
// and the next record says so, so that no record is ever glued onto another.
std::optional<platform::AppendLog> open_journal(const std::string& path, ObservationError& error,
                                                Environment& env) {
  std::optional<platform::AppendLog> log = platform::AppendLog::open(path, &error);
  if (!log || log->created() || log->size() == 0) return log;
  constexpr std::size_t kLookAt = std::size_t{64} * 1024;
  const auto head = log->read(0, kLookAt, &error);
  if (!head) return std::nullopt;
  const auto newline = head->find('\n');
  const bool ours = newline != std::string::npos
                        ? is_journal_record(std::string_view(*head).substr(0, newline))
                        : head->starts_with("{\"") && head->size() == log->size();  // one record, cut short
  if (!ours) {
    error = ObservationError{path, "read", 0,
                             "not a journal of hsperfguard (its first line is not one of its records): "
                             "nothing appended"};
    return std::nullopt;
  }
  const auto last = log->read(log->size() - 1, 1, &error);
  if (!last) return std::nullopt;
  if (*last != "\n") {
    nlohmann::json note = {{"event", "incomplete-line"},
                           {"at", format_utc_millis(env.now_epoch_ms())},
                           {"note", "the line before this one was cut short by an earlier run"}};
    if (auto failed = log->append_raw("\n" + dump_json(note, -1) + "\n")) {
      error = *failed;
      return std::nullopt;
    }
  }
  return log;
}

}  // namespace

std::optional<ReapJournal> ReapJournal::open(const std::string& path, const Plan& plan, Environment& env,
                                             ObservationError& error) {
  std::optional<platform::AppendLog> log = open_journal(path, error, env);
  if (!log) return std::nullopt;
  return ReapJournal(std::move(*log), plan, env);
}

bool ReapJournal::write_line(const std::string& line) {
  if (error_) return false;
  error_ = log_.append(line);
  return !error_;
}

void ReapJournal::start_root(std::size_t first_item) {
  const RootPlan& root = plan_.roots.back();
  const auto items = std::span(plan_.items).subspan(first_item);
  const auto removals = std::count_if(items.begin(), items.end(),
                                      [](const PlanItem& item) { return item.action == ReapAction::remove; });
  nlohmann::json start = {{"event", "start"},
                          {"at", format_utc_millis(env_.now_epoch_ms())},
                          {"root", root.root},
                          {"planned_removals", removals},
                          {"items", items.size()}};
  put_text(start, "temp_dir", root.temp_dir);
  write_line(dump_json(start, -1));
}

bool ReapJournal::before_unlink(const PlanItem& item) {
  nlohmann::json j = {{"event", "unlinking"}, {"at", format_utc_millis(env_.now_epoch_ms())}};
  j["item"] = items_before_ + static_cast<std::size_t>(&item - plan_.items.data());
  put_text(j, "path", item.path);
  if (item.expected) {
    j["dev"] = item.expected->dev;
    j["ino"] = item.expected->ino;
    j["kind"] = to_string(item.expected->kind);
  }
  j["verdict"] = to_string(item.verdict);
  j["reason"] = item.reason;
  return write_line(dump_json(j, -1));
}

void ReapJournal::on_action(const ReapActionRecord& record) {
  nlohmann::json j = action_json(plan_, record, items_before_);
  j["event"] = "outcome";
  write_line(dump_json(j, -1));
}

void ReapJournal::finish(const ReapOutcomeCounts& c) {
  const nlohmann::json j = {{"event", "finish"},
                            {"at", format_utc_millis(env_.now_epoch_ms())},
                            {"removed", c.removed},
                            {"vanished", c.vanished},
                            {"became_live", c.became_live},
                            {"changed", c.changed},
                            {"failed", c.failed},
                            {"not_attempted", c.not_attempted}};
  write_line(dump_json(j, -1));
}

}  // namespace hsperfguard
