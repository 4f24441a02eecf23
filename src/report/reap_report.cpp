// The reap report: its JSON (the head built as a document, the plan and actions streamed a
// block at a time), its text for a person, and the lines that need a person's attention.
#include "report/reap_report.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>
#include <thread>

#include "model/compact_json.hpp"
#include "report/audit_report_json.hpp"
#include "report/audit_report_text.hpp"
#include "model/text_escape.hpp"
#include "version.hpp"

namespace hsperfguard {

using nlohmann::json;

namespace {

template <typename T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json errors_json(const std::vector<ObservationError>& errors, json& all) {
  json out = json::array();
  for (const auto& e : errors) {
    out.push_back(error_to_json(e));
    all.push_back(out.back());
  }
  return out;
}

std::string seconds(std::int64_t ms) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << static_cast<double>(ms) / 1000.0 << " s";
  return s.str();
}

// A group of like plan items (one action, verdict and why in a namespace) longer than this is
// one line with its count and the first names; --verbose lists every item.
constexpr std::size_t kItemsBeforeGrouping = 3;
constexpr std::size_t kNamesShown = 3;

std::string kind_words(FileKind kind) {
  switch (kind) {
    case FileKind::regular: return "a regular file";
    case FileKind::directory: return "a directory";
    case FileKind::symlink: return "a symbolic link";
    case FileKind::fifo: return "a FIFO";
    case FileKind::socket: return "a socket";
    case FileKind::char_device: return "a character device";
    case FileKind::block_device: return "a block device";
    case FileKind::unknown: break;
  }
  return "of an unknown kind";
}

// Why a temp dir or namespace is left alone, in words (the JSON keeps the code).
std::string left_alone_words(std::string_view why, const std::optional<InodeFacts>& lstat) {
  if (why == "not-a-directory") {
    return "it is " + (lstat ? kind_words(lstat->kind) : std::string("not a directory")) +
           ", not a directory (hsperfguard audit says what to do)";
  }
  if (why == "unobserved") return "it could not be observed";
  if (why == "replaced") return "it was replaced while it was observed";
  if (why == "crosses-mount") return "something is mounted on it";
  if (why == "not-owner") return "it is another user's, and only root acts as its owner";
  if (why == "owner-outside-container") {
    return "its owner is no uid the container's user namespace maps: nothing in the container made it "
           "(a directory of this host bound there), and the reaper never acts as that uid there";
  }
  if (why == "temp-dir-unobserved") return "its temp dir could not be observed";
  return std::string(why);
}

// Why an item is skipped or kept, in words (the JSON keeps the code).
std::string item_why_words(const PlanItem& item, const ReapOptions& options) {
  const std::string_view why = item.why;
  if (why == "too-young") {
    std::string words = "changed";
    if (item.age_ms) words += " " + seconds(*item.age_ms) + " ago (the later of its mtime and ctime)";
    return words + ", younger than --min-age " + seconds(options.min_age_ms);
  }
  if (why == "special-file") return "a FIFO, socket or device is removed only with --include-special";
  if (why == "directory") return "a directory inside a namespace is never removed";
  if (why == "hard-linked") return "it has other hard links: a person decides";
  if (why == "unexpected-kind") return "its kind is not known";
  if (why == "not-a-pid-name") return "it is not named after a pid";
  if (why == "namespace-not-actionable") return "its namespace is left alone";
  if (why == "temp-dir-not-actionable") return "its temp dir is left alone";
  if (why == "not-owner") return "it is another user's, and only root acts as its owner";
  if (why == "owner-outside-container") {
    return "its owner is no uid the container's user namespace maps: nothing in the container made it "
           "(a directory of this host bound there), and the reaper never acts as that uid there";
  }
  if (why == "not-empty") return "it is not empty";
  if (why == "live") return "a live JVM's";
  if (why == "unknown") return "whether its JVM is alive is not known";
  return std::string(why);
}

std::string verdict_words(Verdict verdict) {
  std::string words(to_string(verdict));
  std::replace(words.begin(), words.end(), '-', ' ');
  return words;
}

}  // namespace

namespace {

void append_expected(std::string& out, const std::optional<ExpectedInode>& e) {
  if (!e) {
    out += "null";
    return;
  }
  CompactObject o(out);
  o.number("dev", e->dev);
  o.number("gid", e->gid);
  o.number("ino", e->ino);
  o.string("kind", to_string(e->kind));
  o.string("mode", octal_mode(e->mode));
  o.number("nlink", e->nlink);
  o.number("uid", e->uid);
}

void append_acting(std::string& out, const std::optional<ActingIdentity>& a) {
  if (!a) {
    out += "null";
    return;
  }
  CompactObject o(out);
  o.number("gid", a->gid);
  o.number("uid", a->uid);
}

// The document forms of the two above, for the report's head (one rendering of each).
json expected_json(const std::optional<ExpectedInode>& e) {
  std::string text;
  append_expected(text, e);
  return json::parse(text);
}

json acting_json(const std::optional<ActingIdentity>& a) {
  std::string text;
  append_acting(text, a);
  return json::parse(text);
}

// One plan item of the report, written directly (compact_json.hpp).
void append_plan_item(std::string& out, const ReapRun& run, std::size_t i) {
  const PlanItem& item = run.plan.items[i];
  std::string evidence;
  const LivenessVerdict explained = explain_item(run.roots, run.plan, i, run.options, evidence);
  CompactObject o(out);
  append_acting(o.key("acting"), item.acting);
  o.string("action", to_string(item.action));
  o.number("age_ms", item.age_ms);
  o.key("evidence") += evidence;
  append_expected(o.key("expected"), item.expected);
  o.number("item", run.items_before + i);
  o.string("message", escape_non_utf8(explained.message));
  o.text("name", item.name);
  o.number("namespace", item.ns);
  o.text("path", item.path);
  o.string("reason", item.reason);
  if (const auto remediation = item_remediation(run.plan, i)) {
    o.string("remediation", *remediation);
  } else {
    o.null("remediation");
  }
  o.number("root", item.root);
  o.string("subject", to_string(item.subject));
  o.string("verdict", to_string(item.verdict));
  o.string("why", item.why);
}

// One action record of the report and of the journal, written directly. `items_before`: the
// run's items before plan.items[0] (a run in parts).
void append_action(std::string& out, const Plan& plan, const ReapActionRecord& r, std::size_t items_before) {
  const PlanItem& item = plan.items[r.item];
  CompactObject o(out);
  if (r.at_ms > 0) {
    o.time("at", r.at_ms);
  } else {
    o.null("at");
  }
  o.string("detail", r.detail);
  if (r.error) {
    o.value("error", error_to_json(*r.error));
  } else {
    o.null("error");
  }
  o.number("item", items_before + r.item);
  o.string("outcome", to_string(r.outcome));
  o.text("path", item.path);
  o.string("subject", to_string(item.subject));
}

}  // namespace

ReapOutcomeCounts count_outcomes(const ExecutionResult& execution) {
  ReapTally tally;
  tally.add_actions(execution.actions);
  return tally.outcomes;
}

void ReapTally::add_items(const std::vector<PlanItem>& plan_items) {
  items += plan_items.size();
  for (const PlanItem& item : plan_items) {
    switch (item.action) {
      case ReapAction::remove: ++planned.remove; break;
      case ReapAction::keep:
        ++planned.keep;
        ++kept_by_why[item.why];
        break;
      case ReapAction::skip: ++planned.skip; break;
    }
    if (item.why == kNotPermitted) ++left_to_a_person;
    ++by_verdict[std::string(to_string(item.verdict))];
    ++by_why[item.why];
    ++by_verdict_and_action[{item.verdict, item.action}];
  }
}

void ReapTally::add_actions(const std::vector<ReapActionRecord>& records) {
  actions += records.size();
  for (const auto& a : records) {
    switch (a.outcome) {
      case ReapOutcome::removed: ++outcomes.removed; break;
      case ReapOutcome::vanished: ++outcomes.vanished; break;
      case ReapOutcome::became_live: ++outcomes.became_live; break;
      case ReapOutcome::changed: ++outcomes.changed; break;
      case ReapOutcome::failed: ++outcomes.failed; break;
      case ReapOutcome::not_attempted: ++outcomes.not_attempted; break;
    }
  }
}

ReapTally tally_of(const ReapRun& run) {
  ReapTally tally = run.dropped;
  tally.add_items(run.plan.items);
  if (run.execution) tally.add_actions(run.execution->actions);
  return tally;
}

// The document forms, for the journal and for callers that edit a record: parsed from the
// one writer above, so there is a single rendering of each record.
json plan_item_json(const ReapRun& run, std::size_t i) {
  std::string text;
  append_plan_item(text, run, i);
  return json::parse(text);
}

json action_json(const Plan& plan, const ReapActionRecord& r, std::size_t items_before) {
  std::string text;
  append_action(text, plan, r, items_before);
  return json::parse(text);
}

namespace {

// The report's opening members, as every report of the tool has them: schema, tool, host,
// command, times and whether the run is complete.
json reap_report_frame(const ReapRun& run, const HostInfo& host) {
  json report;
  report["schema"] = kReportSchema;
  report["tool"] = {{"name", "hsperfguard"}, {"version", kVersion}, {"build", kBuildInfo}};
  report["host"] = {{"name", escape_non_utf8(host.name)},
                    {"os", host.os},
                    {"kernel", escape_non_utf8(host.kernel)},
                    {"euid", host.euid}};
  report["command"] = "reap";
  report["started_at"] = format_utc_millis(run.started_at_ms);
  report["finished_at"] = format_utc_millis(run.finished_at_ms);
  report["duration_ms"] = run.finished_at_ms - run.started_at_ms;
  report["complete"] = !run.incomplete;
  report["not_looked_at"] = not_looked_at_json(run.not_looked_at);
  report["scope"] = scope_json(run.scope_user);
  return report;
}

// Each temp dir's plan; its observation errors also go to `all_errors`.
json root_plans_json(const ReapRun& run, json& all_errors) {
  json roots = json::array();
  for (const RootPlan& rp : run.plan.roots) {
    const TempRootFacts& facts = run.roots.at(rp.root);
    json jr;
    jr["kind"] = to_string(rp.kind);
    put_text(jr, "root", rp.root_dir);
    put_text(jr, "temp_dir", rp.temp_dir);
    jr["expected"] = expected_json(rp.expected);
    jr["actionable"] = rp.actionable;
    jr["why"] = rp.why;
    jr["attach_files"] = {{"judged", rp.attach_judged},
                          {"deferred", rp.attach_deferred},
                          {"unlisted", rp.attach_unlisted}};
    jr["stopped"] = or_null(facts.stopped);
    jr["errors"] = errors_json(facts.errors, all_errors);
    roots.push_back(std::move(jr));
  }
  return roots;
}

// Each namespace's plan; its observation errors also go to `all_errors`.
json namespace_plans_json(const ReapRun& run, json& all_errors) {
  json namespaces = json::array();
  for (const NamespacePlan& np : run.plan.namespaces) {
    const NamespaceFacts& facts = run.roots.at(np.root).namespaces.at(np.ns);
    json jn;
    jn["root"] = np.root;
    put_text(jn, "name", np.name);
    put_text(jn, "path", np.path);
    put_text(jn, "user", np.user);
    jn["user_exists"] = or_null(np.user_exists);
    jn["expected"] = expected_json(np.expected);
    jn["actionable"] = np.actionable;
    jn["why"] = np.why;
    jn["acting"] = acting_json(np.acting);
    jn["entries"] = np.entries;
    jn["errors"] = errors_json(facts.errors, all_errors);
    namespaces.push_back(std::move(jn));
  }
  return namespaces;
}

// The errors no root or namespace of the report holds, appended to the flat list: those of
// files (unreadable entries) and attach files, of the execution, and of the run itself.
void append_unplaced_errors(const ReapRun& run, json& all_errors) {
  for (std::size_t r = 0; r < run.roots.size(); ++r) {
    const TempRootFacts& root = run.roots[r];
    for (const auto& [in_root, e] : run.dropped_errors) {
      if (in_root == r) all_errors.push_back(error_to_json(e));
    }
    for (const auto& ns : root.namespaces) {
      for (const auto& f : ns.files) {
        for (const auto& e : f.errors) all_errors.push_back(error_to_json(e));
      }
    }
    for (const auto& a : root.attach_files) {
      for (const auto& e : a.errors) all_errors.push_back(error_to_json(e));
    }
  }
  if (run.execution) {
    for (const auto& e : run.execution->errors) all_errors.push_back(error_to_json(e));
  }
  for (const auto& e : run.errors) all_errors.push_back(error_to_json(e));
}

// The plan's counts: items by action, by verdict and by why.
json planned_json(const ReapTally& tally) {
  return {{"items", tally.items},
          {"remove", tally.planned.remove},
          {"keep", tally.planned.keep},
          {"skip", tally.planned.skip},
          {"by_verdict", tally.by_verdict},
          {"by_why", tally.by_why}};
}

// What the execution came to (null outcomes for a run that planned only).
void put_outcomes(json& reap, const ReapRun& run, const ReapTally& tally) {
  if (run.execution) {
    const ReapOutcomeCounts& c = tally.outcomes;
    reap["outcomes"] = {{"removed", c.removed},         {"vanished", c.vanished},
                        {"became_live", c.became_live}, {"changed", c.changed},
                        {"failed", c.failed},           {"not_attempted", c.not_attempted}};
    reap["deadline_reached"] = run.execution->deadline_reached;
    reap["interrupted"] = run.execution->interrupted;
  } else {
    reap["outcomes"] = nullptr;
    reap["deadline_reached"] = false;
    reap["interrupted"] = false;
  }
}

// The report's "reap" member: the options, the lock and journal, the plans of the roots and
// namespaces, the counts, the outcomes and the timings.
json reap_section_json(const ReapRun& run, json&& roots, json&& namespaces) {
  json reap;
  reap["dry_run"] = run.dry_run;
  reap["options"] = {{"min_age_ms", run.options.min_age_ms},
                     {"max_runtime_ms", or_null(run.max_runtime_ms)},
                     {"include_special", run.options.include_special},
                     {"remove_empty_namespaces", run.options.remove_empty_namespaces},
                     {"start_time_tolerance_ms", run.options.start_time_tolerance_ms}};
  reap["lock"] = {{"path", or_null(run.lock.path)},
                  {"acquired", run.lock.acquired},
                  {"waited", run.lock.waited},
                  {"wait_ms", run.lock.wait_ms}};
  reap["journal"] = or_null(run.journal);
  reap["roots"] = std::move(roots);
  reap["namespaces"] = std::move(namespaces);
  const ReapTally tally = tally_of(run);
  reap["planned"] = planned_json(tally);
  put_outcomes(reap, run, tally);
  reap["timings_ms"] = {{"lock", run.timings.lock_ms},
                        {"discover", run.timings.discover_ms},
                        {"observe", run.timings.observe_ms},
                        {"plan", run.timings.plan_ms},
                        {"execute", run.timings.execute_ms}};
  return reap;
}

}  // namespace

json reap_report_head_json(const ReapRun& run, const HostInfo& host) {
  json report = reap_report_frame(run, host);
  json all_errors = json::array();
  json roots = root_plans_json(run, all_errors);
  json namespaces = namespace_plans_json(run, all_errors);
  append_unplaced_errors(run, all_errors);
  report["reap"] = reap_section_json(run, std::move(roots), std::move(namespaces));
  report["errors"] = std::move(all_errors);
  return report;
}

namespace {

// The items of a part, rendered a block at a time (two threads, each half a block, into
// `first` and `second`, the caller's, whose room is kept from call to call) and handed to
// `write` as each block is done.
void render_blocks(std::size_t n, const std::function<void(std::string&, std::size_t)>& render,
                   const std::function<void(std::string_view)>& write, std::string& first,
                   std::string& second) {
  constexpr std::size_t kBlock = 4096;
  auto range = [&](std::string& part, std::size_t begin, std::size_t end) {
    part.clear();
    for (std::size_t i = begin; i < end; ++i) render(part, i);
  };
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t end = std::min(n, begin + kBlock);
    const std::size_t middle = begin + (end - begin) / 2;
    std::thread helper;
    if (end - begin >= 512 && std::thread::hardware_concurrency() > 1) {
      try {
        helper = std::thread([&] { range(second, middle, end); });
      } catch (const std::system_error&) {
      }
    }
    range(first, begin, helper.joinable() ? middle : end);
    write(first);
    if (helper.joinable()) {
      helper.join();
      write(second);
    }
  }
}

// Like lines of the text (one namespace's items, one place's actions), together in the order of
// their first: each group's first lines (all of them under --verbose), its first names, and
// what its one line says when it is longer than kItemsBeforeGrouping.
struct LineGroup {
  std::size_t count = 0;
  std::vector<std::string> lines;
  std::vector<std::string> names;
  // The grouped line: prefix, the count, what_head, the names, suffix.
  std::string prefix, what_head, suffix;
};

class LineGroups {
 public:
  // The group of `key`; `made` is true when it is new (the caller fills its texts).
  LineGroup& group(const std::string& key, bool& made) {
    auto [at, added] = index_.try_emplace(key, groups_.size());
    made = added;
    if (added) groups_.emplace_back();
    return groups_[at->second];
  }
  bool empty() const { return groups_.empty(); }
  // Every group's lines, or its one line; then empty again.
  void flush(std::string& out, bool verbose) {
    for (const LineGroup& g : groups_) {
      if (verbose || g.count <= kItemsBeforeGrouping) {
        for (const std::string& line : g.lines) out += line;
        continue;
      }
      out += g.prefix;
      out += std::to_string(g.count);
      out += g.what_head;
      for (std::size_t n = 0; n < g.names.size(); ++n) out.append(n > 0 ? ", " : "").append(g.names[n]);
      out += ", ...; --verbose lists each)";
      out += g.suffix;
    }
    groups_.clear();
    index_.clear();
  }

 private:
  std::vector<LineGroup> groups_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

// The writer's state: the spools (made when first needed), and for the text where it is in
// the plan and the actions.
struct ReapReportWriter::Impl {
  bool json = false;  // JSON, else the text
  bool verbose = false;
  bool color = false;
  SpoolMaker make_spool;
  std::unique_ptr<ReportSpool> plan, actions, failed, kept;
  // Text: the byte ranges of plan's spool that hold each temp dir's items, by root index.
  std::vector<std::optional<std::pair<std::size_t, std::size_t>>> root_ranges;
  std::optional<std::size_t> current_root, current_ns;
  bool attach_header = false;
  std::vector<bool> ns_listed;  // namespaces that got a heading
  LineGroups items, outcomes;
  std::string place;  // where the actions being grouped happen
  std::string scratch, evidence;
  // The rendered blocks of JSON items, kept from part to part: a part's items (hundreds of KB)
  // are rendered into the room the last part's left, not into strings grown anew each time.
  std::string block, helper_block;

  ReportSpool& spool(std::unique_ptr<ReportSpool>& s) {
    if (!s) s = make_spool();
    return *s;
  }
  void to(std::unique_ptr<ReportSpool>& s, std::string& text) {
    if (!text.empty()) spool(s).append(text);
    text.clear();
  }
  std::size_t size_of(const std::unique_ptr<ReportSpool>& s) const { return s ? s->size() : 0; }

  void add_json(const ReapRun& run) {
    const std::size_t before = run.items_before;
    render_blocks(
        run.plan.items.size(),
        [&](std::string& out, std::size_t i) {
          out += before + i == 0 ? "\n    " : ",\n    ";
          append_plan_item(out, run, i);
        },
        [&](std::string_view text) {
          if (!text.empty()) spool(plan).append(text);
        },
        block, helper_block);
    if (!run.execution) return;
    const std::size_t actions_before = run.dropped.actions;
    const auto& records = run.execution->actions;
    render_blocks(
        records.size(),
        [&](std::string& out, std::size_t i) {
          out += actions_before + i == 0 ? "\n    " : ",\n    ";
          append_action(out, run.plan, records[i], before);
        },
        [&](std::string_view text) {
          if (!text.empty()) spool(actions).append(text);
        },
        block, helper_block);
  }

  // ---- text: the plan's items

  void add_text_items(const ReapRun& run) {
    const Plan& p = run.plan;
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      const PlanItem& item = p.items[i];
      if (!current_root || item.root != *current_root) {
        close_root();
        current_root = item.root;
        if (root_ranges.size() <= item.root) root_ranges.resize(item.root + 1);
        root_ranges[item.root] = std::pair{size_of(plan), size_of(plan)};
        current_ns.reset();
        attach_header = false;
      }
      if (item.ns && item.ns != current_ns) {
        flush_items();
        current_ns = item.ns;
        if (ns_listed.size() <= *item.ns) ns_listed.resize(*item.ns + 1, false);
        ns_listed[*item.ns] = true;
        namespace_heading(scratch, run, p.namespaces[*item.ns]);
        to(plan, scratch);
      }
      if (item.subject == ReapSubject::attach_file && !attach_header) {
        flush_items();
        attach_header = true;
        scratch += "  attach files in " + terminal_safe(run.roots.at(item.root).shown_temp_dir()) + "\n";
        to(plan, scratch);
      }
      add_item(run, i);
    }
    if (verbose) flush_items();
  }

  void add_item(const ReapRun& run, std::size_t i) {
    const PlanItem& item = run.plan.items[i];
    const std::string key = std::string(to_string(item.action)) + '\0' + std::string(to_string(item.verdict)) +
                            '\0' + item.why;
    bool made = false;
    LineGroup& g = items.group(key, made);
    ++g.count;
    const bool shown = verbose || g.lines.size() < kItemsBeforeGrouping;
    if (!made && !shown) {
      if (g.names.size() < kNamesShown) g.names.push_back(terminal_safe(item.name));
      return;
    }
    // The words after the names: the verdict, the message and why the item stays.
    evidence.clear();
    const std::string message =
        terminal_safe(explain_item(run.roots, run.plan, i, run.options, evidence).message);
    std::string rest;
    if (item.action == ReapAction::skip) rest += "; skipped: " + item_why_words(item, run.options);
    if (item.action == ReapAction::keep && item.why != kNotPermitted) {
      rest += "; kept: " + item_why_words(item, run.options);
    }
    if (const auto remediation = item_remediation(run.plan, i)) {
      rest += "; kept, left to a person: " + terminal_safe(*remediation);
    }
    rest += "\n";
    const std::string_view action = to_string(item.action);
    const std::string prefix = "    " + std::string(action) + std::string(8 - action.size(), ' ');
    if (made) {
      g.prefix = prefix;
      g.what_head = " files (";
      g.suffix = "  " + verdict_words(item.verdict) + ", the first: " + message + rest;
    }
    if (g.names.size() < kNamesShown) g.names.push_back(terminal_safe(item.name));
    if (shown) {
      g.lines.push_back(prefix +
                        terminal_safe(item.subject == ReapSubject::namespace_dir ? item.path : item.name) +
                        "  " + verdict_words(item.verdict) + ": " + message + rest);
    }
  }

  void flush_items() {
    if (items.empty()) return;
    items.flush(scratch, verbose);
    to(plan, scratch);
  }

  void close_root() {
    flush_items();
    if (current_root && *current_root < root_ranges.size() && root_ranges[*current_root]) {
      root_ranges[*current_root]->second = size_of(plan);
    }
  }

  static void namespace_heading(std::string& out, const ReapRun& run, const NamespacePlan& np) {
    out += "  " + terminal_safe(np.path);
    if (np.acting) out += "  (acting as " + std::to_string(np.acting->uid) + ":" + std::to_string(np.acting->gid) + ")";
    if (!np.actionable) out += "  left alone: " + left_alone_words(np.why, namespace_lstat(run, np));
    out += "\n";
  }

  // ---- text: the actions, grouped like the plan

  void add_text_actions(const ReapRun& run) {
    if (!run.execution) return;
    for (const ReapActionRecord& r : run.execution->actions) {
      const PlanItem& item = run.plan.items[r.item];
      std::string where = action_place(run, item);
      if (where != place) {
        flush_actions();
        place = std::move(where);
      }
      add_action(r, item);
    }
    if (verbose) flush_actions();
  }

  static std::string action_place(const ReapRun& run, const PlanItem& item) {
    if (item.subject == ReapSubject::namespace_file && item.ns) return run.plan.namespaces[*item.ns].path;
    return item.root < run.roots.size() ? run.roots[item.root].shown_temp_dir() : std::string();
  }

  void add_action(const ReapActionRecord& r, const PlanItem& item) {
    std::string key = std::string(to_string(r.outcome)) + '\0' + std::string(to_string(item.verdict)) + '\0' +
                      std::string(to_string(item.subject)) + '\0' + r.detail;
    if (r.error) key += '\0' + r.error->op + '\0' + r.error->message;
    bool made = false;
    LineGroup& g = outcomes.group(key, made);
    ++g.count;
    if (g.names.size() < kNamesShown) g.names.push_back(terminal_safe(item.name));
    const bool shown = verbose || g.lines.size() < kItemsBeforeGrouping;
    if (!made && !shown) return;
    const std::string_view outcome = to_string(r.outcome);
    std::string prefix = "  " + styled_text(color, r.outcome == ReapOutcome::removed ? "32" : "1;31", outcome) +
                         std::string(outcome.size() < 14 ? 14 - outcome.size() : 1, ' ');
    std::string suffix;
    if (r.outcome != ReapOutcome::removed) suffix += "  (" + terminal_safe(r.detail) + ")";
    if (r.error) suffix += ": " + terminal_safe(r.error->op) + ": " + terminal_safe(r.error->message);
    suffix += "\n";
    if (made) {
      const std::string_view noun = item.subject == ReapSubject::attach_file    ? "attach files"
                                    : item.subject == ReapSubject::namespace_dir ? "empty namespace directories"
                                                                                 : "files";
      g.prefix = prefix;
      g.what_head = " " + verdict_words(item.verdict) + " " + std::string(noun) + " in " + terminal_safe(place) + " (";
      g.suffix = suffix;
    }
    if (shown) g.lines.push_back(prefix + terminal_safe(item.path) + suffix);
  }

  void flush_actions() {
    if (outcomes.empty()) return;
    outcomes.flush(scratch, verbose);
    to(actions, scratch);
  }

  // ---- both: what needs a person

  void add_attention(const ReapRun& run) {
    if (run.execution) {
      for (const auto& r : run.execution->actions) {
        if (r.outcome != ReapOutcome::failed) continue;
        scratch.append("failed ").append(terminal_safe(run.plan.items[r.item].path));
        if (r.error) {
          scratch.append(": ").append(terminal_safe(r.error->op)).append(": ").append(terminal_safe(r.error->message));
        } else {
          scratch.append(" (").append(terminal_safe(r.detail)).append(")");
        }
        scratch.append("\n");
      }
      to(failed, scratch);
    }
    for (std::size_t i = 0; i < run.plan.items.size(); ++i) {
      const auto remediation = item_remediation(run.plan, i);
      if (!remediation) continue;
      scratch.append("kept ").append(terminal_safe(run.plan.items[i].path)).append(" (");
      scratch.append(run.plan.items[i].why).append("): ").append(terminal_safe(*remediation)).append("\n");
    }
    to(kept, scratch);
  }

  static void copy_all(const std::unique_ptr<ReportSpool>& s, const ContentWriter& write) {
    if (s) s->copy(0, s->size(), write);
  }

  // ---- the whole text, from the spools

  void write_text(const ReapRun& run, const std::string& exit_line, const ContentWriter& write) {
    close_root();
    flush_actions();
    std::string out = run.dry_run ? "reap plan (dry run, nothing is changed)" : "reap plan";
    // --user: that user's namespaces were the run's scope, the others were not looked at.
    if (run.scope_user) out += ", namespaces of user " + terminal_safe(*run.scope_user) + " only";
    out += "\n";
    write(out);
    for (const RootPlan& rp : run.plan.roots) write_root(run, rp, write);
    const ReapTally tally = tally_of(run);
    out = "\nplan: " + std::to_string(tally.items) + " item(s): " + std::to_string(tally.planned.remove) +
          " to remove, " + std::to_string(tally.planned.keep) + " to keep, " + std::to_string(tally.planned.skip) +
          " skipped";
    if (tally.left_to_a_person > 0) {
      out += "; " + std::to_string(tally.left_to_a_person) + " left to a person (" + std::string(kNotPermitted) + ")";
    }
    out += "\n";
    if (run.execution) {
      out += "\nactions:\n";
      write(out);
      out.clear();
      copy_all(actions, write);
      const ReapOutcomeCounts& c = tally.outcomes;
      out += "\ndone: " + std::to_string(c.removed) + " removed, " + std::to_string(c.vanished) + " vanished, " +
             std::to_string(c.became_live) + " became live, " + std::to_string(c.changed) + " changed, " +
             std::to_string(c.failed) + " failed, " + std::to_string(c.not_attempted) + " not attempted";
      if (run.execution->deadline_reached) out += "; --max-runtime reached";
      if (run.execution->interrupted) out += "; interrupted";
      out += "\n";
      for (const auto& e : run.execution->errors) error_line(out, "", e);
    }
    for (const auto& e : run.errors) error_line(out, "", e);
    // An incomplete run says what was not looked at, and why, in its last line (the exit line).
    if (!exit_line.empty()) out.append(exit_line).append("\n");
    write(out);
  }

  void write_root(const ReapRun& run, const RootPlan& rp, const ContentWriter& write) {
    const TempRootFacts& root = run.roots.at(rp.root);
    // As this host reaches it (a container's /tmp is not the host's).
    const std::string& temp_dir = root.shown_temp_dir();
    std::string out = "temp dir " + terminal_safe(temp_dir) + " (" + temp_dir_whose(root) + ")";
    out += rp.actionable ? "" : "  left alone: " + left_alone_words(rp.why, root.lstat);
    if (const auto& stopped = root.stopped) out += "  STOPPED (" + *stopped + ")";
    out += "\n";
    for (const auto& e : root.errors) error_line(out, "  ", e);
    write(out);
    out.clear();
    if (rp.root < root_ranges.size() && root_ranges[rp.root]) {
      plan->copy(root_ranges[rp.root]->first, root_ranges[rp.root]->second, write);
    }
    if (rp.attach_deferred > 0 || rp.attach_unlisted > 0) {
      out += "  attach files in " + terminal_safe(temp_dir) + ": " + std::to_string(rp.attach_judged) +
             " judged; beyond what one run plans (" + std::to_string(kAttachItemsPerRun) + " of each kind), " +
             std::to_string(rp.attach_deferred) + " reapable left for the next run, " +
             std::to_string(rp.attach_unlisted) + " others not listed\n";
    }
    // Namespaces with nothing in them are still worth a line when they are not actionable.
    for (std::size_t n = 0; n < run.plan.namespaces.size(); ++n) {
      const NamespacePlan& np = run.plan.namespaces[n];
      if (np.root != rp.root || np.actionable || (n < ns_listed.size() && ns_listed[n])) continue;
      out += "  " + terminal_safe(np.path) + "  left alone: " + left_alone_words(np.why, namespace_lstat(run, np)) + "\n";
    }
    write(out);
  }

  // A namespace's lstat, when its facts are kept (what kind of file it is).
  static std::optional<InodeFacts> namespace_lstat(const ReapRun& run, const NamespacePlan& np) {
    if (np.root >= run.roots.size() || np.ns >= run.roots[np.root].namespaces.size()) return std::nullopt;
    return run.roots[np.root].namespaces[np.ns].lstat;
  }

  static void error_line(std::string& out, std::string_view indent, const ObservationError& e) {
    out.append(indent).append("error: ").append(terminal_safe(e.path)).append(": ").append(terminal_safe(e.op));
    out.append(": ").append(terminal_safe(e.message)).append("\n");
  }
};

ReapReportWriter::ReapReportWriter(bool as_json, bool verbose, bool color, SpoolMaker make_spool)
    : impl_(std::make_unique<Impl>()) {
  impl_->json = as_json;
  impl_->verbose = verbose;
  impl_->color = color;
  impl_->make_spool = std::move(make_spool);
}

ReapReportWriter::~ReapReportWriter() = default;

void ReapReportWriter::add_part(const ReapRun& run) {
  if (impl_->json) {
    impl_->add_json(run);
  } else {
    impl_->add_text_items(run);
    impl_->add_text_actions(run);
  }
  impl_->add_attention(run);
}

void ReapReportWriter::write_report(const ReapRun& run, const HostInfo& host, const std::string& exit_line,
                                    const ContentWriter& write) {
  if (!impl_->json) {
    impl_->write_text(run, exit_line, write);
    return;
  }
  std::string head = dump_json(reap_report_head_json(run, host));
  // The head is an object with members: it ends with "\n}". Continue it with the two long
  // arrays, from their spools.
  if (head.ends_with("\n}")) head.resize(head.size() - 2);
  write(head);
  const ReapTally tally = tally_of(run);
  write(",\n  \"plan\": [");
  Impl::copy_all(impl_->plan, write);
  write(tally.items == 0 ? "]" : "\n  ]");
  write(",\n  \"actions\": [");
  Impl::copy_all(impl_->actions, write);
  write(tally.actions == 0 ? "]" : "\n  ]");
  write("\n}\n");
}

void ReapReportWriter::write_attention(const ContentWriter& write) {
  Impl::copy_all(impl_->failed, write);
  Impl::copy_all(impl_->kept, write);
}

namespace {

std::unique_ptr<ReportSpool> string_spool() { return std::make_unique<StringSpool>(); }

}  // namespace

void StringSpool::copy(std::size_t begin, std::size_t end, const ContentWriter& write) {
  if (begin < end && end <= text_.size()) write(std::string_view(text_).substr(begin, end - begin));
}

void write_reap_report_json(const ReapRun& run, const HostInfo& host, const ContentWriter& write) {
  ReapReportWriter writer(true, false, false, string_spool);
  writer.add_part(run);
  writer.write_report(run, host, "", write);
}

std::string reap_report_json_text(const ReapRun& run, const HostInfo& host) {
  std::string out;
  write_reap_report_json(run, host, [&](std::string_view piece) { out.append(piece); });
  return out;
}

std::string reap_attention_text(const ReapRun& run) {
  ReapReportWriter writer(false, false, false, string_spool);
  writer.add_part(run);
  std::string out;
  writer.write_attention([&](std::string_view piece) { out.append(piece); });
  return out;
}

std::string reap_report_text(const ReapRun& run, bool verbose, const std::string& exit_line, bool color) {
  ReapReportWriter writer(false, verbose, color, string_spool);
  writer.add_part(run);
  std::string out;
  writer.write_report(run, HostInfo{}, exit_line, [&](std::string_view piece) { out.append(piece); });
  return out;
}

}  // namespace hsperfguard
