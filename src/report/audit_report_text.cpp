#include "report/audit_report_text.hpp"

#include <map>
#include <vector>

#include "model/rule_catalog.hpp"
#include "model/text_escape.hpp"

namespace hsperfguard {

std::string styled_text(bool color, std::string_view code, std::string_view text) {
  if (!color) return std::string(text);
  return "\033[" + std::string(code) + "m" + std::string(text) + "\033[0m";
}

std::string severity_text(bool color, Severity severity) {
  const std::string_view word = to_string(severity);
  switch (severity) {
    case Severity::critical:
    case Severity::high: return styled_text(color, "1;31", word);
    case Severity::medium: return styled_text(color, "33", word);
    case Severity::low:
    case Severity::info: return styled_text(color, "2", word);
  }
  return std::string(word);
}

namespace {

// A group of file findings shows this many names; --verbose shows them all.
constexpr std::size_t kNamesShown = 3;

// ANSI styles, only when the options say so.
std::string styled(const TextOptions& options, std::string_view code, std::string_view text) {
  return styled_text(options.color, code, text);
}

std::string bold(const TextOptions& options, std::string_view text) { return styled(options, "1", text); }

std::string severity_word(const TextOptions& options, Severity severity) {
  return severity_text(options.color, severity);
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// The repair hint of a finding repair fixes (unless its remedy says so).
void print_repair_hint(std::string& out, const char* indent, const Finding& f, const TextOptions& options) {
  if (!f.repairable) return;
  if (f.remediation.find("hsperfguard repair") != std::string::npos) return;
  out.append(indent).append("or run: hsperfguard repair").append(terminal_safe(options.scope));
  out.append(" (it fixes this finding)\n");
}

std::string evidence_text(const Finding& f) {
  return terminal_safe(f.evidence.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// One finding: "[severity] rule: message" (after `subject`, a file's name, when given), its
// evidence under --verbose, its fix and the repair hint.
void print_finding(std::string& out, const char* indent, const Finding& f, const TextOptions& options,
                   std::string_view subject = {}) {
  out.append(indent).append("[").append(severity_word(options, f.severity)).append("] ").append(f.rule);
  if (!subject.empty()) out.append(" ").append(terminal_safe(subject));
  out.append(": ").append(terminal_safe(f.message)).append("\n");
  const std::string deeper = std::string(indent) + "    ";
  if (options.verbose) out.append(deeper).append("evidence: ").append(evidence_text(f)).append("\n");
  out.append(deeper).append("fix: ").append(terminal_safe(f.remediation)).append("\n");
  print_repair_hint(out, deeper.c_str(), f, options);
}

void print_findings(std::string& out, const Findings& findings, const char* indent, const TextOptions& options) {
  for (const auto& f : findings) print_finding(out, indent, f, options);
}

void print_error(std::string& out, const char* indent, const ObservationError& e, bool with_path) {
  out.append(indent).append("error: ");
  if (with_path) out.append(terminal_safe(e.path)).append(": ");
  out.append(terminal_safe(e.op)).append(": ").append(terminal_safe(e.message)).append("\n");
}

// The findings of a namespace's files (of one part): under --verbose each on its own, else
// those of one rule, severity and remedy as one entry, with how many files and the first
// names, in the order of their first file.
void print_file_findings(std::string& out, const NamespaceFacts& ns, const NamespaceJudgement& nj,
                         const TextOptions& options) {
  struct Group {
    const Finding* first = nullptr;
    std::vector<std::string_view> names;
    std::size_t count = 0;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t f = 0; f < ns.files.size() && f < nj.files.size(); ++f) {
    for (const Finding& finding : nj.files[f].findings) {
      if (options.verbose) {
        print_finding(out, "    ", finding, options, ns.files[f].name);
        continue;
      }
      std::string key = finding.rule;
      key.append(1, '\0').append(to_string(finding.severity)).append(1, '\0').append(finding.remediation);
      auto [at, added] = index.try_emplace(std::move(key), groups.size());
      if (added) groups.push_back(Group{&finding, {}, 0});
      Group& group = groups[at->second];
      ++group.count;
      if (group.names.size() < kNamesShown) group.names.push_back(ns.files[f].name);
    }
  }
  for (const Group& group : groups) {
    if (group.count == 1) {
      print_finding(out, "    ", *group.first, options, group.names.front());
      continue;
    }
    const Finding& f = *group.first;
    const RuleInfo* info = find_rule(f.rule);
    out.append("    [").append(severity_word(options, f.severity)).append("] ").append(f.rule);
    if (info != nullptr) out.append(" (").append(info->title).append(")");
    out.append(": ").append(std::to_string(group.count)).append(" files");
    if (group.names.size() < group.count) out.append(", the first ").append(std::to_string(group.names.size()));
    out.append(": ");
    for (std::size_t n = 0; n < group.names.size(); ++n) {
      out.append(n > 0 ? ", " : "").append(terminal_safe(group.names[n]));
    }
    out.append(" (--verbose lists each with its evidence)\n");
    out.append("        the first: ").append(terminal_safe(f.message)).append("\n");
    out.append("        fix: ").append(terminal_safe(f.remediation)).append("\n");
    print_repair_hint(out, "        ", f, options);
  }
  // The files' own errors (an entry that could not be read): by operation and message.
  std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::string_view>> errors;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& file : ns.files) {
    for (const auto& e : file.errors) {
      auto [at, added] = errors.try_emplace({e.op, e.message}, 0, file.name);
      if (added) order.push_back(at->first);
      ++at->second.first;
    }
  }
  for (const auto& key : order) {
    const auto& [count, first] = errors.at(key);
    out.append("    error: ");
    if (count == 1) {
      out.append(terminal_safe(first));
    } else {
      out.append(std::to_string(count)).append(" files, the first ").append(terminal_safe(first));
    }
    out.append(": ").append(terminal_safe(key.first)).append(": ").append(terminal_safe(key.second)).append("\n");
  }
}

void print_attention(std::string& out, const Findings& findings, Severity at_least) {
  for (const auto& f : findings) {
    if (f.severity < at_least) continue;
    out.append(to_string(f.severity)).append(" ").append(f.rule).append(" ");
    out.append(terminal_safe(f.path)).append(": ").append(terminal_safe(f.message));
    out.append("; fix: ").append(terminal_safe(f.remediation)).append("\n");
  }
}

bool any_file_errors(const NamespaceFacts& ns) {
  for (const auto& file : ns.files) {
    if (!file.errors.empty()) return true;
  }
  return false;
}

}  // namespace

void render_attention_namespace(std::string& out, const NamespaceJudgement& nj, Severity at_least) {
  print_attention(out, nj.findings, at_least);
  for (const auto& fj : nj.files) print_attention(out, fj.findings, at_least);
}

void render_attention_findings(std::string& out, const Findings& findings, Severity at_least) {
  print_attention(out, findings, at_least);
}

std::string attention_root_text(const RootJudgement& rj, Severity at_least) {
  std::string out;
  print_attention(out, rj.findings, at_least);
  for (const auto& attach : rj.attach_files) print_attention(out, attach, at_least);
  return out;
}

std::string temp_dir_whose(const TempRootFacts& root) {
  switch (root.kind) {
    case RootKind::host: return "this host's";
    case RootKind::tmpdir: return "named by --tmpdir";
    case RootKind::root: return "of the system root " + terminal_safe(root.root) + ", named by --root";
    case RootKind::container:
      return root.container ? "a container's, host pid " + std::to_string(root.container->host_pid)
                            : std::string("a container's");
  }
  return "this host's";
}

std::string audit_root_opening_text(const TempRootFacts& root, const TextOptions& options) {
  return bold(options, "temp dir " + terminal_safe(root.shown_temp_dir())) + " (" + temp_dir_whose(root) + ")\n";
}

void render_audit_namespace_text(std::string& out, const NamespaceFacts& ns, const NamespaceJudgement& nj,
                                 const TextOptions& options) {
  std::size_t file_findings = 0;
  for (const auto& fj : nj.files) file_findings += fj.findings.size();
  const bool file_errors = any_file_errors(ns);
  if (ns.part == 0) {
    out.append("  ").append(terminal_safe(ns.path)).append("  ").append(std::to_string(ns.files.size()));
    out.append(ns.more_parts ? "+ file(s), a large namespace shown in parts" : " file(s)");
    if (!ns.more_parts && nj.findings.empty() && file_findings == 0 && ns.errors.empty() && !file_errors) {
      out.append("  ok\n");
      return;
    }
    out.append("\n");
  } else if (file_findings > 0 || !ns.errors.empty() || file_errors) {
    out.append("  ").append(terminal_safe(ns.path)).append("  (continued: ")
        .append(std::to_string(ns.files.size())).append(" more file(s))\n");
  }
  print_findings(out, nj.findings, "    ", options);
  for (const auto& e : ns.errors) print_error(out, "    ", e, false);
  print_file_findings(out, ns, nj, options);
}

void render_audit_attach_text(std::string& out, const AttachFacts& attach, const Findings& findings,
                              const TextOptions& options) {
  if (findings.empty() && attach.errors.empty()) return;
  out.append("  ").append(terminal_safe(attach.path)).append("\n");
  print_findings(out, findings, "    ", options);
  for (const auto& e : attach.errors) print_error(out, "    ", e, false);
}

std::string audit_root_closing_text(const TempRootFacts& root, const RootJudgement& rj, std::size_t namespaces,
                                    const TextOptions& options) {
  std::string out;
  print_findings(out, rj.findings, "  ", options);
  for (const auto& e : root.errors) print_error(out, "  ", e, true);
  for (std::size_t a = 0; a < root.attach_files.size() && a < rj.attach_files.size(); ++a) {
    render_audit_attach_text(out, root.attach_files[a], rj.attach_files[a], options);
  }
  out.append("  ").append(std::to_string(namespaces)).append(" namespace(s) in ").append(terminal_safe(root.shown_temp_dir()));
  if (root.stopped) out.append("; STOPPED (").append(*root.stopped).append(") before its end");
  return out + "\n";
}

namespace {

// The findings at or above --fail-on (which fail the run), and those below it.
struct FailingCounts {
  std::size_t failing = 0;
  std::size_t below = 0;
};

// The summary's findings line: the findings by severity, worst first.
FailingCounts append_findings_line(std::string& out, const AuditTally& tally, const ReportContext& context,
                                   const TextOptions& options) {
  out.append("  findings  ").append(std::to_string(tally.findings)).append(" finding(s)");
  FailingCounts counts;
  std::string by_severity;
  for (int s = static_cast<int>(Severity::critical); s >= static_cast<int>(Severity::info); --s) {
    const auto severity = static_cast<Severity>(s);
    const auto it = tally.by_severity.find(severity);
    if (it == tally.by_severity.end() || it->second == 0) continue;
    (severity >= context.fail_on ? counts.failing : counts.below) += it->second;
    by_severity.append(by_severity.empty() ? "" : ", ").append(std::to_string(it->second)).append(" ")
        .append(severity_word(options, severity));
  }
  if (!by_severity.empty()) out.append(": ").append(by_severity);
  out.append("\n");
  return counts;
}

// Whether the run fails, and why, with its exit code.
std::string run_verdict(const AuditResult& result, const ReportContext& context, FailingCounts counts,
                        const TextOptions& options) {
  const std::string fail_on(to_string(context.fail_on));
  std::string verdict;
  if (result.stopped) {
    verdict.append(styled(options, "1;31", "INCOMPLETE")).append(": stopped (").append(*result.stopped)
        .append(") before everything was observed (exit 3)");
  } else if (result.incomplete) {
    // What was not looked at and why, in one line; a run with nothing counted missing
    // (--containers-only found no temp dir) keeps the general words.
    std::string missing = not_looked_at_line(result.not_looked_at);
    if (missing.empty()) missing = "some temp dirs or processes could not be observed";
    verdict.append(styled(options, "1;31", "INCOMPLETE")).append(": ").append(missing).append(" (exit 3)");
  } else if (counts.failing > 0) {
    verdict.append(styled(options, "1;31", "FAIL")).append(": ").append(std::to_string(counts.failing))
        .append(" finding(s) at or above --fail-on ").append(fail_on).append(" (exit 1)");
  } else {
    verdict.append(styled(options, "32", "clean")).append(": no findings at or above ").append(fail_on);
    if (counts.below > 0) verdict.append(" (").append(std::to_string(counts.below)).append(" below it)");
    verdict.append(" (exit 0)");
  }
  if ((result.stopped || result.incomplete) && counts.failing > 0) {
    verdict.append("; ").append(std::to_string(counts.failing)).append(" finding(s) at or above --fail-on ").append(fail_on);
  }
  return verdict;
}

// What could not be observed: the count JSON gives, and the first.
void append_errors_line(std::string& out, const AuditTally& tally) {
  out.append("  errors    ");
  if (tally.error_count == 0) {
    out.append("none\n");
    return;
  }
  out.append(std::to_string(tally.error_count)).append(" (what could not be observed)");
  if (!tally.errors.empty()) {
    const ObservationError& e = tally.errors.front();
    out.append("; the first: ").append(terminal_safe(e.path)).append(": ").append(terminal_safe(e.op))
        .append(": ").append(terminal_safe(e.message));
  }
  out.append("\n");
}

// The rule of the worst finding (the first of that severity in rule order); empty without any.
std::string worst_rule_of(const AuditTally& tally) {
  std::string worst_rule;
  Severity worst = Severity::info;
  for (const auto& entry : tally.by_rule_and_severity) {
    const auto& [rule, severity] = entry.first;
    if (worst_rule.empty() || severity > worst) {
      worst = severity;
      worst_rule = rule;
    }
  }
  return worst_rule;
}

// What to run next, each command with what it does.
std::vector<std::string> next_commands(const AuditTally& tally, const TextOptions& options) {
  std::vector<std::string> next;
  const std::size_t repairable = tally.repairable;
  const std::string worst_rule = worst_rule_of(tally);
  const std::string scope = terminal_safe(options.scope);
  if (repairable > 0) {
    next.push_back("hsperfguard repair --dry-run" + scope + "   shows how it would fix " +
                   std::to_string(repairable) + " repairable finding(s); without --dry-run it fixes them");
  }
  // The reap planner's count on the same facts (AuditTally::reap), not the verdicts: a
  // hard-linked file, a FIFO or a file younger than --min-age is stale and stays.
  const ReapCount& reap = tally.reap;
  const std::string kept = std::to_string(reap.kept_reapable) + " stale or foreign file(s)";
  if (reap.remove > 0) {
    next.push_back("hsperfguard reap --dry-run" + scope + "   shows what the reaper would remove (" +
                   std::to_string(reap.remove) + " file(s))" +
                   (reap.kept_reapable == 0 ? "" : " and why it keeps " + std::to_string(reap.kept_reapable) +
                                                       " other stale or foreign file(s)"));
  } else if (reap.kept_reapable > 0) {
    next.push_back("hsperfguard reap --dry-run" + scope + "   shows why the reaper keeps " + kept);
  }
  if (!worst_rule.empty()) {
    next.push_back("hsperfguard rules show " + worst_rule + "   what the worst finding means and how to fix it");
  }
  if (!options.verbose && tally.findings > 0) {
    next.push_back("hsperfguard audit --verbose" + scope + "   every finding with its evidence");
  }
  return next;
}

}  // namespace

std::string audit_summary_text(const AuditTally& tally, const AuditResult& result, const ReportContext& context,
                               const TextOptions& options) {
  std::string out = "\n" + bold(options, "summary") + "\n";
  const FailingCounts counts = append_findings_line(out, tally, context, options);
  const std::string verdict = run_verdict(result, context, counts, options);
  append_errors_line(out, tally);
  const std::vector<std::string> next = next_commands(tally, options);
  for (std::size_t n = 0; n < next.size(); ++n) out.append(n == 0 ? "  next      " : "            ").append(next[n]).append("\n");
  // Last, what was checked and the verdict, on one line (what `tail -n 1` of a report gives).
  out.append(std::to_string(tally.namespaces)).append(" namespace(s)");
  // --user: the namespaces of that user were the run's scope, the others were not looked at.
  if (result.scope_user) out.append(" of user ").append(terminal_safe(*result.scope_user));
  out.append(", ")
      .append(std::to_string(tally.files)).append(" file(s), ")
      .append(std::to_string(tally.attach_files)).append(" attach file(s) in ")
      .append(plural(tally.roots, "temp dir", "temp dirs")).append(", ")
      .append(std::to_string(options.jvm_processes)).append(" JVM process(es) looked at; ")
      .append(verdict).append("\n");
  return out;
}

std::string audit_report_text(const AuditResult& result, const ReportContext& context, const TextOptions& options) {
  std::string out;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    const auto& root = result.roots[r];
    const auto& rj = result.judgements.at(r);
    out += audit_root_opening_text(root, options);
    for (std::size_t n = 0; n < root.namespaces.size(); ++n) {
      render_audit_namespace_text(out, root.namespaces[n], rj.namespaces.at(n), options);
    }
    out += audit_root_closing_text(root, rj, root.namespaces.size(), options);
  }
  AuditTally tally = tally_result(result);
  // As a reap run by the same user when the audit ended would plan.
  tally.reap = count_reap(result, result.finished_at_ms, context.host.euid);
  return out + audit_summary_text(tally, result, context, options);
}

}  // namespace hsperfguard
