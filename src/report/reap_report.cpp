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
  o.number("item", i);
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

// One action record of the report and of the journal, written directly.
void append_action(std::string& out, const Plan& plan, const ReapActionRecord& r) {
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
  o.number("item", r.item);
  o.string("outcome", to_string(r.outcome));
  o.text("path", item.path);
  o.string("subject", to_string(item.subject));
}

}  // namespace

ReapOutcomeCounts count_outcomes(const ExecutionResult& execution) {
  ReapOutcomeCounts c;
  for (const auto& a : execution.actions) {
    switch (a.outcome) {
      case ReapOutcome::removed: ++c.removed; break;
      case ReapOutcome::vanished: ++c.vanished; break;
      case ReapOutcome::became_live: ++c.became_live; break;
      case ReapOutcome::changed: ++c.changed; break;
      case ReapOutcome::failed: ++c.failed; break;
      case ReapOutcome::not_attempted: ++c.not_attempted; break;
    }
  }
  return c;
}

// The document forms, for the journal and for callers that edit a record: parsed from the
// one writer above, so there is a single rendering of each record.
json plan_item_json(const ReapRun& run, std::size_t i) {
  std::string text;
  append_plan_item(text, run, i);
  return json::parse(text);
}

json action_json(const Plan& plan, const ReapActionRecord& r) {
  std::string text;
  append_action(text, plan, r);
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
    jn["entries"] = facts.files.size();
    jn["errors"] = errors_json(facts.errors, all_errors);
    namespaces.push_back(std::move(jn));
  }
  return namespaces;
}

// The errors no root or namespace of the report holds, appended to the flat list: those of
// files (unreadable entries) and attach files, of the execution, and of the run itself.
void append_unplaced_errors(const ReapRun& run, json& all_errors) {
  for (const auto& root : run.roots) {
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
json planned_json(const Plan& plan) {
  std::map<std::string, std::size_t> by_verdict, by_why;
  for (const PlanItem& item : plan.items) {
    ++by_verdict[std::string(to_string(item.verdict))];
    ++by_why[item.why];
  }
  const PlanCounts planned = plan.counts();
  return {{"items", plan.items.size()},
          {"remove", planned.remove},
          {"keep", planned.keep},
          {"skip", planned.skip},
          {"by_verdict", by_verdict},
          {"by_why", by_why}};
}

// What the execution came to (null outcomes for a run that planned only).
void put_outcomes(json& reap, const ReapRun& run) {
  if (run.execution) {
    const ReapOutcomeCounts c = count_outcomes(*run.execution);
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
  reap["planned"] = planned_json(run.plan);
  put_outcomes(reap, run);
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

void write_reap_report_json(const ReapRun& run, const HostInfo& host,
                            const std::function<void(std::string_view)>& write) {
  std::string head = dump_json(reap_report_head_json(run, host));
  // The head is an object with members: it ends with "\n}". Continue it with the two long
  // arrays, rendered a block at a time (two threads, each half a block) and written as they
  // are done: a report on 100,000 entries is never held whole.
  if (head.ends_with("\n}")) head.resize(head.size() - 2);
  write(head);
  constexpr std::size_t kBlock = 4096;
  std::string first, second;
  auto array = [&](const char* key, std::size_t n, auto&& render) {
    write(std::string(",\n  \"") + key + "\": [");
    auto range = [&](std::string& part, std::size_t begin, std::size_t end) {
      part.clear();
      for (std::size_t i = begin; i < end; ++i) {
        part += i == 0 ? "\n    " : ",\n    ";
        render(part, i);
      }
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
    write(n == 0 ? "]" : "\n  ]");
  };
  array("plan", run.plan.items.size(),
        [&](std::string& out, std::size_t i) { append_plan_item(out, run, i); });
  const std::size_t actions = run.execution ? run.execution->actions.size() : 0;
  array("actions", actions, [&](std::string& out, std::size_t i) {
    append_action(out, run.plan, run.execution->actions[i]);
  });
  write("\n}\n");
}

std::string reap_report_json_text(const ReapRun& run, const HostInfo& host) {
  std::string out;
  write_reap_report_json(run, host, [&](std::string_view piece) { out.append(piece); });
  return out;
}

std::string reap_attention_text(const ReapRun& run) {
  std::string out;
  if (run.execution) {
    for (const auto& r : run.execution->actions) {
      if (r.outcome != ReapOutcome::failed) continue;
      out.append("failed ").append(terminal_safe(run.plan.items[r.item].path));
      if (r.error) {
        out.append(": ").append(terminal_safe(r.error->op)).append(": ").append(terminal_safe(r.error->message));
      } else {
        out.append(" (").append(terminal_safe(r.detail)).append(")");
      }
      out.append("\n");
    }
  }
  for (std::size_t i = 0; i < run.plan.items.size(); ++i) {
    const auto remediation = item_remediation(run.plan, i);
    if (!remediation) continue;
    out.append("kept ").append(terminal_safe(run.plan.items[i].path)).append(" (");
    out.append(run.plan.items[i].why).append("): ").append(terminal_safe(*remediation)).append("\n");
  }
  return out;
}

namespace {

// The text of a reap run: its plan temp dir by temp dir and namespace by namespace, the plan's
// counts, then what was done.
class ReapText {
 public:
  ReapText(const ReapRun& run, bool verbose, bool color)
      : run_(run), plan_(run.plan), verbose_(verbose), color_(color) {}

  std::string render() {
    out_ << (run_.dry_run ? "reap plan (dry run, nothing is changed)" : "reap plan");
    // --user: that user's namespaces were the run's scope, the others were not looked at.
    if (run_.scope_user) out_ << ", namespaces of user " << terminal_safe(*run_.scope_user) << " only";
    out_ << "\n";
    for (const RootPlan& rp : plan_.roots) write_root(rp);
    write_plan_counts();
    if (run_.execution) write_execution(*run_.execution);
    for (const auto& e : run_.errors) write_error("", e);
    // An incomplete run says what was not looked at, and why, in its last line (the exit line).
    return out_.str();
  }

 private:
  void write_root(const RootPlan& rp) {
    const TempRootFacts& root = run_.roots.at(rp.root);
    // As this host reaches it (a container's /tmp is not the host's).
    const std::string& temp_dir = root.shown_temp_dir();
    out_ << "temp dir " << terminal_safe(temp_dir);
    out_ << " (" << temp_dir_whose(root) << ")";
    out_ << (rp.actionable ? "" : "  left alone: " + left_alone_words(rp.why, root.lstat));
    if (const auto& stopped = root.stopped) out_ << "  STOPPED (" << *stopped << ")";
    out_ << "\n";
    for (const auto& e : root.errors) write_error("  ", e);
    const std::vector<bool> ns_listed = write_root_items(rp, temp_dir);
    if (rp.attach_deferred > 0 || rp.attach_unlisted > 0) {
      out_ << "  attach files in " << terminal_safe(temp_dir) << ": " << rp.attach_judged
           << " judged; beyond what one run plans (" << kAttachItemsPerRun << " of each kind), "
           << rp.attach_deferred << " reapable left for the next run, " << rp.attach_unlisted
           << " others not listed\n";
    }
    // Namespaces with nothing in them are still worth a line when they are not actionable.
    for (std::size_t n = 0; n < plan_.namespaces.size(); ++n) {
      const NamespacePlan& np = plan_.namespaces[n];
      if (np.root != rp.root || np.actionable || ns_listed[n]) continue;
      out_ << "  " << terminal_safe(np.path)
           << "  left alone: " << left_alone_words(np.why, namespace_lstat(np)) << "\n";
    }
  }

  // The temp dir's items under the heading of their namespace (or of its attach files), a
  // block of one namespace's items at a time. Returns which namespaces got a heading.
  std::vector<bool> write_root_items(const RootPlan& rp, const std::string& temp_dir) {
    std::optional<std::size_t> current_ns;
    std::vector<bool> ns_listed(plan_.namespaces.size(), false);
    bool attach_header = false;
    // One namespace's (or the attach files') items, written when the next one begins.
    std::vector<const PlanItem*> block;
    for (const PlanItem& item : plan_.items) {
      if (item.root != rp.root) continue;
      if (item.ns && item.ns != current_ns) {
        write_block(block);
        current_ns = item.ns;
        ns_listed[*item.ns] = true;
        write_namespace_heading(plan_.namespaces[*item.ns]);
      }
      if (item.subject == ReapSubject::attach_file && !attach_header) {
        write_block(block);
        attach_header = true;
        out_ << "  attach files in " << terminal_safe(temp_dir) << "\n";
      }
      block.push_back(&item);
    }
    write_block(block);
    return ns_listed;
  }

  void write_namespace_heading(const NamespacePlan& np) {
    out_ << "  " << terminal_safe(np.path);
    if (np.acting) out_ << "  (acting as " << np.acting->uid << ":" << np.acting->gid << ")";
    if (!np.actionable) out_ << "  left alone: " << left_alone_words(np.why, namespace_lstat(np));
    out_ << "\n";
  }

  // A block's items, like items (action, verdict, why) together in the order of their first;
  // a group longer than kItemsBeforeGrouping is one line unless verbose. The block is emptied.
  void write_block(std::vector<const PlanItem*>& block) {
    std::vector<std::vector<const PlanItem*>> groups;
    std::map<std::string, std::size_t> index;
    for (const PlanItem* item : block) {
      const std::string key = std::string(to_string(item->action)) + '\0' +
                              std::string(to_string(item->verdict)) + '\0' + item->why;
      auto [at, added] = index.try_emplace(key, groups.size());
      if (added) groups.emplace_back();
      groups[at->second].push_back(item);
    }
    for (const auto& group : groups) {
      if (verbose_ || group.size() <= kItemsBeforeGrouping) {
        for (const PlanItem* item : group) {
          write_item(*item,
                     terminal_safe(item->subject == ReapSubject::namespace_dir ? item->path
                                                                               : item->name),
                     1);
        }
        continue;
      }
      std::string names = std::to_string(group.size()) + " files (";
      for (std::size_t n = 0; n < kNamesShown; ++n) {
        names += (n > 0 ? ", " : "") + terminal_safe(group[n]->name);
      }
      names += ", ...; --verbose lists each)";
      write_item(*group.front(), names, group.size());
    }
    block.clear();
  }

  // One line for `item`, or for `count` like items named by `names`.
  void write_item(const PlanItem& item, std::string_view names, std::size_t count) {
    const std::string_view action = to_string(item.action);
    out_ << "    " << action << std::string(8 - action.size(), ' ') << names << "  "
         << verdict_words(item.verdict);
    out_ << (count > 1 ? ", the first: " : ": ") << terminal_safe(message_of(item));
    if (item.action == ReapAction::skip) out_ << "; skipped: " << item_why_words(item, run_.options);
    if (item.action == ReapAction::keep && item.why != kNotPermitted) {
      out_ << "; kept: " << item_why_words(item, run_.options);
    }
    if (const auto remediation = item_remediation(plan_, index_of(item))) {
      out_ << "; kept, left to a person: " << terminal_safe(*remediation);
    }
    out_ << "\n";
  }

  // The text shows each item's message, not its evidence: the evidence goes as text into one
  // scratch string (the document form would parse it back into a JSON value for nothing).
  std::string message_of(const PlanItem& item) {
    evidence_.clear();
    return explain_item(run_.roots, plan_, index_of(item), run_.options, evidence_).message;
  }

  std::size_t index_of(const PlanItem& item) const {
    return static_cast<std::size_t>(&item - plan_.items.data());
  }

  // A namespace's lstat, when its facts are kept (what kind of file it is).
  std::optional<InodeFacts> namespace_lstat(const NamespacePlan& np) const {
    if (np.root >= run_.roots.size() || np.ns >= run_.roots[np.root].namespaces.size()) {
      return std::nullopt;
    }
    return run_.roots[np.root].namespaces[np.ns].lstat;
  }

  void write_plan_counts() {
    const PlanCounts planned = plan_.counts();
    out_ << "\nplan: " << plan_.items.size() << " item(s): " << planned.remove << " to remove, "
         << planned.keep << " to keep, " << planned.skip << " skipped";
    if (const std::size_t left = plan_.left_to_a_person(); left > 0) {
      out_ << "; " << left << " left to a person (" << kNotPermitted << ")";
    }
    out_ << "\n";
  }

  // The actions grouped like the plan: in each namespace (or each temp dir's attach files and
  // empty namespaces), like outcomes (outcome, verdict, detail, error) together in the order
  // of their first; a group longer than kItemsBeforeGrouping is one line with its count and
  // first names unless verbose. Then the outcomes counted, and the execution's errors.
  void write_execution(const ExecutionResult& execution) {
    out_ << "\nactions:\n";
    std::string place;
    std::vector<const ReapActionRecord*> block;
    for (const auto& r : execution.actions) {
      const std::string where = action_place(plan_.items[r.item]);
      if (where != place) write_action_block(block, place);
      place = where;
      block.push_back(&r);
    }
    write_action_block(block, place);
    const ReapOutcomeCounts c = count_outcomes(execution);
    out_ << "\ndone: " << c.removed << " removed, " << c.vanished << " vanished, "
         << c.became_live << " became live, " << c.changed << " changed, " << c.failed
         << " failed, " << c.not_attempted << " not attempted";
    if (execution.deadline_reached) out_ << "; --max-runtime reached";
    if (execution.interrupted) out_ << "; interrupted";
    out_ << "\n";
    for (const auto& e : execution.errors) write_error("", e);
  }

  // Where an action happens, as its grouped line names it: a file's namespace, or the temp
  // dir of an attach file or an empty namespace directory.
  std::string action_place(const PlanItem& item) const {
    if (item.subject == ReapSubject::namespace_file && item.ns) return plan_.namespaces[*item.ns].path;
    return item.root < run_.roots.size() ? run_.roots[item.root].shown_temp_dir() : std::string();
  }

  void write_action_block(std::vector<const ReapActionRecord*>& block, const std::string& place) {
    std::vector<std::vector<const ReapActionRecord*>> groups;
    std::map<std::string, std::size_t> index;
    for (const ReapActionRecord* r : block) {
      const PlanItem& item = plan_.items[r->item];
      std::string key = std::string(to_string(r->outcome)) + '\0' + std::string(to_string(item.verdict)) + '\0' +
                        std::string(to_string(item.subject)) + '\0' + r->detail;
      if (r->error) key += '\0' + r->error->op + '\0' + r->error->message;
      auto [at, added] = index.try_emplace(key, groups.size());
      if (added) groups.emplace_back();
      groups[at->second].push_back(r);
    }
    for (const auto& group : groups) {
      if (verbose_ || group.size() <= kItemsBeforeGrouping) {
        for (const ReapActionRecord* r : group) write_action(*r, terminal_safe(plan_.items[r->item].path));
        continue;
      }
      const PlanItem& first = plan_.items[group.front()->item];
      const std::string_view noun = first.subject == ReapSubject::attach_file    ? "attach files"
                                    : first.subject == ReapSubject::namespace_dir ? "empty namespace directories"
                                                                                  : "files";
      std::string what = std::to_string(group.size()) + " " + verdict_words(first.verdict) + " " +
                         std::string(noun) + " in " + terminal_safe(place) + " (";
      for (std::size_t n = 0; n < kNamesShown; ++n) {
        what += (n > 0 ? ", " : "") + terminal_safe(plan_.items[group[n]->item].name);
      }
      what += ", ...; --verbose lists each)";
      write_action(*group.front(), what);
    }
    block.clear();
  }

  // One line for an action, or for the like actions `what` names (the first one's detail).
  void write_action(const ReapActionRecord& r, std::string_view what) {
    const std::string_view outcome = to_string(r.outcome);
    out_ << "  " << styled_text(color_, r.outcome == ReapOutcome::removed ? "32" : "1;31", outcome)
         << std::string(outcome.size() < 14 ? 14 - outcome.size() : 1, ' ') << what;
    if (r.outcome != ReapOutcome::removed) out_ << "  (" << terminal_safe(r.detail) << ")";
    if (r.error) out_ << ": " << terminal_safe(r.error->op) << ": " << terminal_safe(r.error->message);
    out_ << "\n";
  }

  void write_error(std::string_view indent, const ObservationError& e) {
    out_ << indent << "error: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": "
         << terminal_safe(e.message) << "\n";
  }

  const ReapRun& run_;
  const Plan& plan_;
  const bool verbose_;
  const bool color_;
  std::ostringstream out_;
  std::string evidence_;
};

}  // namespace

std::string reap_report_text(const ReapRun& run, bool verbose, const std::string& exit_line, bool color) {
  std::string text = ReapText(run, verbose, color).render();
  if (!exit_line.empty()) text.append(exit_line).append("\n");
  return text;
}

}  // namespace hsperfguard
