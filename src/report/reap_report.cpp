#include "report/reap_report.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>
#include <thread>

#include "model/compact_json.hpp"
#include "report/report_json.hpp"
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

json reap_report_head_json(const ReapRun& run, const HostInfo& host) {
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

  json all_errors = json::array();
  json roots = json::array();
  json namespaces = json::array();
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
  // File-level observation errors (unreadable entries) go to the flat list only.
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

  std::map<std::string, std::size_t> by_verdict, by_why;
  for (const PlanItem& item : run.plan.items) {
    ++by_verdict[std::string(to_string(item.verdict))];
    ++by_why[item.why];
  }
  const PlanCounts planned = run.plan.counts();
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
  reap["planned"] = {{"items", run.plan.items.size()},
                     {"remove", planned.remove},
                     {"keep", planned.keep},
                     {"skip", planned.skip},
                     {"by_verdict", by_verdict},
                     {"by_why", by_why}};
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
  reap["timings_ms"] = {{"lock", run.timings.lock_ms},
                        {"discover", run.timings.discover_ms},
                        {"observe", run.timings.observe_ms},
                        {"plan", run.timings.plan_ms},
                        {"execute", run.timings.execute_ms}};
  report["reap"] = std::move(reap);
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

std::string reap_report_text(const ReapRun& run) {
  std::ostringstream out;
  const Plan& plan = run.plan;
  out << (run.dry_run ? "reap plan (dry run, nothing is changed)" : "reap plan") << "\n";
  for (const RootPlan& rp : plan.roots) {
    // As this host reaches it (a container's /tmp is not the host's).
    const std::string& temp_dir = run.roots.at(rp.root).shown_temp_dir();
    out << "temp dir " << terminal_safe(temp_dir);
    if (rp.kind != RootKind::host) {
      out << " (" << to_string(rp.kind) << " " << terminal_safe(rp.root_dir) << ")";
    }
    out << (rp.actionable ? "" : "  NOT ACTIONABLE: " + terminal_safe(rp.why));
    if (const auto& stopped = run.roots.at(rp.root).stopped) out << "  STOPPED (" << *stopped << ")";
    out << "\n";
    for (const auto& e : run.roots.at(rp.root).errors) {
      out << "  error: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": " << terminal_safe(e.message) << "\n";
    }
    std::optional<std::size_t> current_ns;
    std::vector<bool> ns_listed(plan.namespaces.size(), false);
    // The text shows each item's message, not its evidence: the evidence goes as text into one
    // scratch string (the document form would parse it back into a JSON value for nothing).
    std::string evidence;
    auto message_of = [&](const PlanItem& item) {
      evidence.clear();
      return explain_item(run.roots, plan, static_cast<std::size_t>(&item - plan.items.data()),
                          run.options, evidence)
          .message;
    };
    bool attach_header = false;
    for (const PlanItem& item : plan.items) {
      if (item.root != rp.root) continue;
      if (item.ns && item.ns != current_ns) {
        current_ns = item.ns;
        ns_listed[*item.ns] = true;
        const NamespacePlan& np = plan.namespaces[*item.ns];
        out << "  " << terminal_safe(np.path);
        if (np.acting) out << "  (acting as " << np.acting->uid << ":" << np.acting->gid << ")";
        if (!np.actionable) out << "  NOT ACTIONABLE: " << terminal_safe(np.why);
        out << "\n";
      }
      if (item.subject == ReapSubject::attach_file && !attach_header) {
        attach_header = true;
        out << "  attach files in " << terminal_safe(temp_dir) << "\n";
      }
      const std::string_view action = to_string(item.action);
      out << "    " << action << std::string(8 - action.size(), ' ')
          << terminal_safe(item.subject == ReapSubject::namespace_dir ? item.path : item.name)
          << "  " << to_string(item.verdict) << " (" << item.reason
          << "): " << terminal_safe(message_of(item));
      if (item.action == ReapAction::skip) out << "; skipped: " << terminal_safe(item.why);
      if (item.why == "too-young" && item.age_ms) out << " (age " << seconds(*item.age_ms) << ")";
      if (const auto remediation = item_remediation(plan, static_cast<std::size_t>(&item - plan.items.data()))) {
        out << "; kept, " << item.why << ": " << terminal_safe(*remediation);
      }
      out << "\n";
    }
    if (rp.attach_deferred > 0 || rp.attach_unlisted > 0) {
      out << "  attach files in " << terminal_safe(temp_dir) << ": " << rp.attach_judged
          << " judged; beyond what one run plans (" << kAttachItemsPerRun << " of each kind), "
          << rp.attach_deferred << " reapable left for the next run, " << rp.attach_unlisted
          << " others not listed\n";
    }
    // Namespaces with nothing in them are still worth a line when they are not actionable.
    for (std::size_t n = 0; n < plan.namespaces.size(); ++n) {
      const NamespacePlan& np = plan.namespaces[n];
      if (np.root != rp.root || np.actionable || ns_listed[n]) continue;
      out << "  " << terminal_safe(np.path) << "  NOT ACTIONABLE: " << terminal_safe(np.why) << "\n";
    }
  }
  const PlanCounts planned = plan.counts();
  out << "\nplan: " << plan.items.size() << " item(s): " << planned.remove << " to remove, "
      << planned.keep << " to keep, " << planned.skip << " skipped";
  if (const std::size_t left = plan.left_to_a_person(); left > 0) {
    out << "; " << left << " left to a person (" << kNotPermitted << ")";
  }
  out << "\n";
  if (run.execution) {
    out << "\nactions:\n";
    for (const auto& r : run.execution->actions) {
      const std::string_view outcome = to_string(r.outcome);
      out << "  " << outcome << std::string(outcome.size() < 14 ? 14 - outcome.size() : 1, ' ')
          << terminal_safe(plan.items[r.item].path);
      if (r.outcome != ReapOutcome::removed) out << "  (" << terminal_safe(r.detail) << ")";
      if (r.error) out << ": " << terminal_safe(r.error->op) << ": " << terminal_safe(r.error->message);
      out << "\n";
    }
    const ReapOutcomeCounts c = count_outcomes(*run.execution);
    out << "\ndone: " << c.removed << " removed, " << c.vanished << " vanished, "
        << c.became_live << " became live, " << c.changed << " changed, " << c.failed
        << " failed, " << c.not_attempted << " not attempted";
    if (run.execution->deadline_reached) out << "; --max-runtime reached";
    if (run.execution->interrupted) out << "; interrupted";
    out << "\n";
    for (const auto& e : run.execution->errors) {
      out << "error: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": " << terminal_safe(e.message) << "\n";
    }
  }
  for (const auto& e : run.errors) {
    out << "error: " << terminal_safe(e.path) << ": " << terminal_safe(e.op) << ": " << terminal_safe(e.message) << "\n";
  }
  if (run.incomplete) out << "INCOMPLETE: some temp dirs could not be observed, or the run stopped early\n";
  return out.str();
}

}  // namespace hsperfguard
